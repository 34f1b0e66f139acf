package mirror

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/memory"
)

// Merged is what git's merge driver makes of two concurrent versions of
// one memory file (see Merge).
type Merged struct {
	// Result is the file's merged content: the newer version, byte for
	// byte as that side wrote it.
	Result []byte
	// Copy, when both sides changed what a person reads, is the other
	// version as a memory of its own that contradicts the newer one: the
	// next cairn sync brings it in, to verify first. CopyName is where it
	// goes, beside the merged file (relative, forward slashes).
	Copy     []byte
	CopyName string
	// Kept says which side Result is: "ours" or "theirs".
	Kept string
}

// ErrNotMerged is input the merge driver does not read as memory files:
// git's own conflict is the way out, and a person resolves it.
var ErrNotMerged = errors.New("not memory files cairn can merge")

// Merge merges two concurrent versions of the memory file at rel (ours
// and theirs, from base): git's merge driver for the team mirror. A side
// that did not change what a person reads (title, body, links, fields:
// see Hash) gives way to the other. When both did, the result is the
// newer version (see Newer), and the other becomes a copy: a memory of
// its own, with an id made from both versions (a merge done again makes
// the same one), linked contradicts to the newer one, without version,
// dates or history, so that the sync reads it as a copy to verify first
// (as it reads the mirror's side of an edit made on both sides at once).
// Nothing is ever merged line by line, and no conflict marker is written.
//
// Input that is not a memory file (conflict markers already, no
// frontmatter, a parse error, another id on each side) is ErrNotMerged.
// An empty base (both sides added the file) is no base.
func Merge(rel string, base, ours, theirs []byte) (Merged, error) {
	keep := func(name string) string { return "\x00" + name } // links kept by name
	parse := func(side string, b []byte) (*Entry, error) {
		e, err := Parse(b, keep)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotMerged, side, err)
		}
		return e, nil
	}
	a, err := parse("ours", ours)
	if err != nil {
		return Merged{}, err
	}
	b, err := parse("theirs", theirs)
	if err != nil {
		return Merged{}, err
	}
	if a.ID != b.ID || a.ID == "" || ulidErr(a.ID) != nil {
		return Merged{}, fmt.Errorf("%w: the two sides name different memories (ids %q and %q)", ErrNotMerged, a.ID, b.ID)
	}
	ha, hb := Hash(a), Hash(b)
	// Newer decides as every clone does; two files it cannot order (the
	// same version, text and history) are ordered by their bytes, so that
	// either side's merge keeps the same one.
	newer := Newer(a, b) || (!Newer(b, a) && bytes.Compare(ours, theirs) >= 0)
	switch {
	case ha == hb: // the same text on both sides: the newer stamps
		return pick(newer, ours, theirs), nil
	case len(bytes.TrimSpace(base)) > 0:
		if o, err := Parse(base, keep); err == nil && o.ID == a.ID {
			switch Hash(o) {
			case ha: // only theirs changed what a person reads
				return pick(false, ours, theirs), nil
			case hb:
				return pick(true, ours, theirs), nil
			}
		}
	}
	m := pick(newer, ours, theirs)
	other := b
	if !newer {
		other = a
	}
	c := contradicting(other, linkName(rel))
	names, titles := linkNames(c)
	titles["\x00"+linkName(rel)] = pickEntry(newer, a, b).Title
	cb, err := Render(c, names, titles)
	if err != nil {
		return Merged{}, fmt.Errorf("%w: %v", ErrNotMerged, err)
	}
	m.Copy, m.CopyName = cb, path.Join(path.Dir(rel), Slug(c.Title)+"-"+ShortID(c.ID)+".md")
	return m, nil
}

func pick(ours bool, a, b []byte) Merged {
	if ours {
		return Merged{Result: a, Kept: "ours"}
	}
	return Merged{Result: b, Kept: "theirs"}
}

func pickEntry(ours bool, a, b *Entry) *Entry {
	if ours {
		return a
	}
	return b
}

// contradicting is e as a copy that contradicts the memory of the file
// named to (its name without .md): a new memory with an id made from e's
// id and text, nothing of e's own life (version, dates, history,
// supersession), and a contradicts link to that file.
func contradicting(e *Entry, to string) *Entry {
	c := *e
	t := time.Unix(0, 0)
	if e.Created.After(t) {
		t = e.Created
	}
	c.ID = derivedID(t, e.ID+"\x00merge\x00"+Hash(e))
	c.Status, c.Supersedes, c.SupersededBy, c.Version, c.History = memory.StatusActive, nil, "", 0, nil
	c.Created, c.Updated = time.Time{}, time.Time{}
	c.Links = sortLinks(append(slices.Clone(e.Links), Link{Kind: memory.EdgeContradicts, To: "\x00" + to}))
	return &c
}

// linkNames maps the links of an entry parsed with its links kept by name
// ("\x00name") to those names, for Render, and labels each with its name.
func linkNames(e *Entry) (names, titles map[string]string) {
	names, titles = map[string]string{}, map[string]string{}
	for _, l := range e.Links {
		names[l.To] = strings.TrimPrefix(l.To, "\x00")
		titles[l.To] = names[l.To]
	}
	return names, titles
}
