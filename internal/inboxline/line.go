package inboxline

import (
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"

	"cairn/memory"
	"cairn/safetext"
)

// around is how many words of what two texts share a changed pair keeps
// on each side of a change; the rest is cut to "…".
const around = 1

// Change is two one-line texts cut to where they differ: the changed
// words with a few shared words around them, so that a row shows old →
// new and not two long sentences that read alike.
func Change(a, b string) (before, after string) {
	a, b = fold(a), fold(b)
	spans := Diff(a, b)
	var ob, nb strings.Builder
	for i, sp := range spans {
		switch sp.Op {
		case diffmatchpatch.DiffDelete:
			ob.WriteString(sp.Text)
		case diffmatchpatch.DiffInsert:
			nb.WriteString(sp.Text)
		default:
			s := elide(sp.Text, i == 0, i == len(spans)-1)
			ob.WriteString(s)
			nb.WriteString(s)
		}
	}
	return strings.TrimSpace(ob.String()), strings.TrimSpace(nb.String())
}

// elide shortens a shared run to the words next to the changes: its last
// words when it leads, its first when it trails, both ends in between.
func elide(s string, first, last bool) string {
	toks := tokens(s)
	words := 0
	for _, t := range toks {
		if isWord(t) {
			words++
		}
	}
	keep := 2 * around
	if first || last {
		keep = around
	}
	if words <= keep+1 || first && last {
		return s
	}
	head := take(toks, around)
	tail := reverse(take(reverse(toks), around))
	switch {
	case first:
		return "…" + strings.TrimLeft(strings.Join(tail, ""), " ")
	case last:
		return strings.TrimRight(strings.Join(head, ""), " ") + "…"
	}
	return strings.Join(head, "") + "… " + strings.TrimLeft(strings.Join(tail, ""), " ")
}

// take is the tokens up to and with the n-th word.
func take(toks []string, n int) []string {
	for i, t := range toks {
		if isWord(t) {
			n--
			if n == 0 {
				return toks[:i+1]
			}
		}
	}
	return toks
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, t := range s {
		out[len(s)-1-i] = t
	}
	return out
}

func isWord(t string) bool {
	for _, r := range t {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
	}
	return false
}

// fold is a text on one line, neutralised, its runs of space folded.
func fold(s string) string { return strings.Join(strings.Fields(safetext.CleanLine(s)), " ") }

// Title is a memory's title as a row shows it: on one line, derived from
// its text when it has none.
func Title(m *memory.Memory) string {
	if m == nil {
		return "(a forgotten memory)"
	}
	t := m.Title
	if strings.TrimSpace(t) == "" {
		t = memory.DeriveTitle(m.Body)
	}
	return fold(t)
}

// Proposal says in one line what accepting p would change: a
// supersession's old → new cut to the words that differ, a merge's two
// titles, the title and kind of a memory to remember, the title of one to
// archive. target and other are the stored memories p names (nil when it
// names none, or one was forgotten since).
func Proposal(p memory.Proposal, target, other *memory.Memory) string {
	cand := p.Memory
	if cand == nil {
		cand = other
	}
	switch p.Kind {
	case memory.ProposeSupersede:
		if target == nil || cand == nil {
			return Title(target) + " → " + Title(cand)
		}
		before, after := Change(Title(target), Title(cand))
		return before + " → " + after
	case memory.ProposeMerge:
		return Title(target) + " + " + Title(cand)
	case memory.ProposeArchive:
		return Title(target)
	}
	if cand == nil {
		return Title(nil)
	}
	return Title(cand) + " · " + cand.Layer.Letter() + " " + fold(string(cand.Kind))
}
