package cli

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"cairn/exchange"
	"cairn/memory"
)

// importReport is what import --json prints: the store's result, and for
// a markdown directory what was skipped and what the bodies' links did.
type importReport struct {
	memory.ImportResult
	Skipped    exchange.Skipped    `json:"skipped,omitzero"`
	Fields     exchange.FieldCount `json:"unknown_fields,omitzero"`
	BodyLinks  int                 `json:"body_links,omitempty"`
	Unresolved int                 `json:"unresolved_links,omitempty"`
	Ambiguous  []ambiguousLink     `json:"ambiguous_links,omitempty"`
}

// vaultLinks counts what the wiki links of an imported directory's bodies
// became: edges made, links that name nothing known, and links that name
// two notes or more (not linked: which one was meant is the person's to
// say).
type vaultLinks struct {
	Linked, Unresolved int
	Ambiguous          []ambiguousLink
}

// ambiguousLink is a wiki link of a note that names more than one note.
type ambiguousLink struct {
	File       string   `json:"file"`
	Link       string   `json:"link"`
	Candidates []string `json:"candidates"`
}

// linkVault makes an edge of each wiki link a body of v writes ([[Title]],
// [[Title|label]], [[short-id]], [[file-name]]) whose target is a memory of
// the import or of the project, of the kind its Links section line says
// (relates_to elsewhere). It runs after the import, because a memory the
// import added has its id only then. A link that names nothing is counted,
// never refused; an edge that exists already is left as it is, so a second
// import links nothing.
func (a *app) linkVault(ctx context.Context, v *exchange.Vault, added []memory.Added) (vaultLinks, error) {
	lk := newVaultLinker(ctx, a, v, added)
	for i, links := range v.Links {
		if len(links) == 0 {
			continue
		}
		if err := lk.linkNote(i, links); err != nil {
			return lk.out, err
		}
	}
	return lk.out, nil
}

// vaultLinker resolves the wiki links of one imported directory.
type vaultLinker struct {
	ctx context.Context
	a   *app
	v   *exchange.Vault
	ids []string // the memory each record became ("" until known)
	// A link names a note by its path or file name (without .md), else by
	// its title, else by one of its aliases, as Obsidian resolves them; a
	// name more than one note answers to is ambiguous.
	byPath, byName, byTitle, byAlias map[string][]int
	out                              vaultLinks
}

func newVaultLinker(ctx context.Context, a *app, v *exchange.Vault, added []memory.Added) *vaultLinker {
	lk := &vaultLinker{ctx: ctx, a: a, v: v, ids: make([]string, len(v.Records)),
		byPath: map[string][]int{}, byName: map[string][]int{}, byTitle: map[string][]int{}, byAlias: map[string][]int{}}
	for i, r := range v.Records {
		lk.ids[i] = r.ID
	}
	for _, ad := range added {
		if ad.Record >= 0 && ad.Record < len(lk.ids) {
			lk.ids[ad.Record] = ad.ID
		}
	}
	put := func(m map[string][]int, k string, i int) {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" && !slices.Contains(m[k], i) {
			m[k] = append(m[k], i)
		}
	}
	for i, r := range v.Records {
		if r.Event != nil {
			continue
		}
		f := filepath.ToSlash(strings.TrimSuffix(v.Files[i], filepath.Ext(v.Files[i])))
		put(lk.byPath, f, i)
		put(lk.byName, filepath.Base(f), i)
		put(lk.byTitle, r.Title, i)
		if i < len(v.Aliases) {
			for _, al := range v.Aliases[i] {
				put(lk.byAlias, al, i)
			}
		}
	}
	return lk
}

// find is the notes a link's target names, by path, name, title or alias.
func (lk *vaultLinker) find(target string) []int {
	k := strings.ToLower(target)
	for _, m := range []map[string][]int{lk.byPath, lk.byName, lk.byTitle, lk.byAlias} {
		if found := m[k]; len(found) > 0 {
			return found
		}
	}
	return nil
}

// idOf is the memory record i became; a record without an id that the
// import matched to a memory is found by its title.
func (lk *vaultLinker) idOf(i int) (string, error) {
	if lk.ids[i] == "" {
		id, err := lk.a.findTitle(lk.ctx, lk.v.Records[i].Title)
		if err != nil {
			return "", err
		}
		lk.ids[i] = id
	}
	return lk.ids[i], nil
}

// resolve is the memory a link's target names: a note of the import, a
// memory of the project (or global) by id, or one by its title.
func (lk *vaultLinker) resolve(target string) (string, error) {
	a, ctx := lk.a, lk.ctx
	if found := lk.find(target); len(found) == 1 {
		return lk.idOf(found[0])
	}
	if looksLikeID(target) {
		if id, err := a.st.Resolve(ctx, target); err == nil {
			if m, err := a.st.Get(ctx, id); err == nil && (m.Project == a.proj.ID || m.Project == memory.GlobalID) {
				return id, nil
			}
		}
	}
	return a.findTitle(ctx, target)
}

// linkNote makes the edges of note i's links.
func (lk *vaultLinker) linkNote(i int, links []exchange.BodyLink) error {
	from, err := lk.idOf(i)
	if err != nil {
		return err
	}
	if from == "" {
		lk.out.Unresolved += len(links)
		return nil
	}
	existing, _, err := lk.a.st.Edges(lk.ctx, from)
	if err != nil {
		return err
	}
	// A link the Links section gives a kind wins over the same link
	// written plainly in the text.
	links = slices.Clone(links)
	slices.SortStableFunc(links, func(x, y exchange.BodyLink) int {
		return cmp.Compare(boolInt(x.Kind == memory.EdgeRelatesTo), boolInt(y.Kind == memory.EdgeRelatesTo))
	})
	for _, l := range links {
		if found := lk.find(l.Target); len(found) > 1 {
			amb := ambiguousLink{File: filepath.ToSlash(lk.v.Files[i]), Link: "[[" + l.Target + "]]"}
			for _, j := range found {
				amb.Candidates = append(amb.Candidates, filepath.ToSlash(lk.v.Files[j]))
			}
			lk.out.Ambiguous = append(lk.out.Ambiguous, amb)
			continue
		}
		e, err := lk.link(from, l, existing)
		if err != nil {
			return err
		}
		if e != nil {
			existing = append(existing, *e)
		}
	}
	return nil
}

// link makes the edge of one link from from, unless its target is
// unknown, is from itself, or is linked so already (in existing); it
// returns the edge made.
func (lk *vaultLinker) link(from string, l exchange.BodyLink, existing []memory.Edge) (*memory.Edge, error) {
	to, err := lk.resolve(l.Target)
	if err != nil {
		return nil, err
	}
	has := slices.ContainsFunc(existing, func(e memory.Edge) bool {
		return e.To == to && (e.Kind == l.Kind || l.Kind == memory.EdgeRelatesTo)
	})
	switch {
	case to == "":
		lk.out.Unresolved++
		return nil, nil
	case to == from || has:
		return nil, nil
	}
	kind := l.Kind
	if kind == memory.EdgeSupersedes {
		kind = memory.EdgeRelatesTo // supersession is carried by the frontmatter, never a plain link
	}
	e := memory.Edge{From: from, Kind: kind, To: to, Weight: 1, Active: true}
	if err := lk.a.st.Link(lk.ctx, e, memory.ActorUser); err != nil {
		if errors.Is(err, memory.ErrInvalid) {
			lk.out.Unresolved++ // e.g. a memory of another project
			return nil, nil
		}
		return nil, err
	}
	lk.out.Linked++
	return &e, nil
}

// findTitle finds the memory of the project (or global) titled title,
// ignoring case; "" when there is none.
func (a *app) findTitle(ctx context.Context, title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", nil
	}
	for _, pid := range []string{a.proj.ID, memory.GlobalID} {
		page, err := a.st.List(ctx, memory.Query{Project: pid, Status: memory.StatusAny, Match: title, Limit: 100})
		if err != nil {
			return "", err
		}
		for _, m := range page.Memories {
			if strings.EqualFold(strings.TrimSpace(m.Title), title) {
				return m.ID, nil
			}
		}
	}
	return "", nil
}

// looksLikeID says whether s can be a memory id or a prefix of one.
func looksLikeID(s string) bool {
	if len(s) < memory.MinPrefix || len(s) > 26 {
		return false
	}
	for _, r := range strings.ToUpper(s) {
		if !strings.ContainsRune("0123456789ABCDEFGHJKMNPQRSTVWXYZ", r) {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
