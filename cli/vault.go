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
	Skipped    exchange.Skipped `json:"skipped,omitzero"`
	BodyLinks  int              `json:"body_links,omitempty"`
	Unresolved int              `json:"unresolved_links,omitempty"`
}

// vaultLinks counts what the wiki links of an imported directory's bodies
// became: edges made, and links that name nothing known.
type vaultLinks struct {
	Linked, Unresolved int
}

// linkVault makes an edge of each wiki link a body of v writes ([[Title]],
// [[Title|label]], [[short-id]], [[file-name]]) whose target is a memory of
// the import or of the project, of the kind its Links section line says
// (relates_to elsewhere). It runs after the import, because a memory the
// import added has its id only then. A link that names nothing is counted,
// never refused; an edge that exists already is left as it is, so a second
// import links nothing.
func (a *app) linkVault(ctx context.Context, v *exchange.Vault, added []memory.Added) (vaultLinks, error) {
	var out vaultLinks
	ids := make([]string, len(v.Records))
	for i, r := range v.Records {
		ids[i] = r.ID
	}
	for _, ad := range added {
		if ad.Record >= 0 && ad.Record < len(ids) {
			ids[ad.Record] = ad.ID
		}
	}
	byName := map[string]int{}  // file path or name without .md
	byTitle := map[string]int{} // title
	for i, r := range v.Records {
		f := strings.ToLower(filepath.ToSlash(strings.TrimSuffix(v.Files[i], filepath.Ext(v.Files[i]))))
		for _, k := range []string{f, filepath.Base(f)} {
			if _, dup := byName[k]; !dup {
				byName[k] = i
			}
		}
		if t := strings.ToLower(strings.TrimSpace(r.Title)); t != "" {
			if _, dup := byTitle[t]; !dup {
				byTitle[t] = i
			}
		}
	}
	// idOf is the memory record i became; a record without an id that the
	// import matched to a memory is found by its title.
	idOf := func(i int) (string, error) {
		if ids[i] == "" {
			id, err := a.findTitle(ctx, v.Records[i].Title)
			if err != nil {
				return "", err
			}
			ids[i] = id
		}
		return ids[i], nil
	}
	resolve := func(target string) (string, error) {
		k := strings.ToLower(target)
		if i, ok := byName[k]; ok {
			return idOf(i)
		}
		if i, ok := byTitle[k]; ok {
			return idOf(i)
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
	for i, links := range v.Links {
		if len(links) == 0 {
			continue
		}
		from, err := idOf(i)
		if err != nil {
			return out, err
		}
		if from == "" {
			out.Unresolved += len(links)
			continue
		}
		existing, _, err := a.st.Edges(ctx, from)
		if err != nil {
			return out, err
		}
		has := func(kind memory.EdgeKind, to string) bool {
			for _, e := range existing {
				if e.To == to && (e.Kind == kind || kind == memory.EdgeRelatesTo) {
					return true
				}
			}
			return false
		}
		// A link the Links section gives a kind wins over the same link
		// written plainly in the text.
		links = slices.Clone(links)
		slices.SortStableFunc(links, func(x, y exchange.BodyLink) int {
			return cmp.Compare(boolInt(x.Kind == memory.EdgeRelatesTo), boolInt(y.Kind == memory.EdgeRelatesTo))
		})
		for _, l := range links {
			to, err := resolve(l.Target)
			if err != nil {
				return out, err
			}
			switch {
			case to == "":
				out.Unresolved++
				continue
			case to == from || has(l.Kind, to):
				continue
			}
			kind := l.Kind
			if kind == memory.EdgeSupersedes {
				kind = memory.EdgeRelatesTo // supersession is carried by the frontmatter, never a plain link
			}
			e := memory.Edge{From: from, Kind: kind, To: to, Weight: 1, Active: true}
			if err := a.st.Link(ctx, e, memory.ActorUser); err != nil {
				if errors.Is(err, memory.ErrInvalid) {
					out.Unresolved++ // e.g. a memory of another project
					continue
				}
				return out, err
			}
			existing = append(existing, e)
			out.Linked++
		}
	}
	return out, nil
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
