package inboxline

import (
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"

	"cairn/memory"
	"cairn/safetext"
)

// Change is what replaces what between two one-line texts, for a row
// that says old → new: the old text whole, and of the new only the words
// that take the place of old ones (several changes joined by " … "), so
// that the row reads "port 8080. → 9090." and two rows about the same
// memory differ where their changes do. When the texts share little, or
// the new one only drops words, after is the new text whole.
func Change(a, b string) (before, after string) {
	a, b = fold(a), fold(b)
	shared, total, at := 0, 0, 0 // at: where the span begins in b
	var added []string
	for _, sp := range Diff(a, b) {
		n := words(sp.Text)
		switch sp.Op {
		case diffmatchpatch.DiffEqual:
			shared += n
		case diffmatchpatch.DiffInsert:
			if t := wholeWords(b, at, at+len(sp.Text)); t != "" && (len(added) == 0 || added[len(added)-1] != t) {
				added = append(added, t)
			}
		}
		if sp.Op != diffmatchpatch.DiffDelete {
			at += len(sp.Text)
		}
		total += n
	}
	if len(added) == 0 || 2*shared < total-shared {
		return a, b
	}
	return a, strings.Join(added, " … ")
}

// wholeWords is the inserted text b[i:j] as a row shows it: widened to
// the whole word where it begins or ends inside one (v0.7.0 → v0.8.0 is
// "v0.8.0", not "8"), less the sentence's punctuation at its ends, and ""
// when it is punctuation only (a period the new text adds).
func wholeWords(b string, i, j int) string {
	wordChar := func(k int) bool {
		r := rune(b[k])
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80
	}
	if i < j && wordChar(i) {
		for i > 0 && b[i-1] != ' ' {
			i--
		}
	}
	if i < j && wordChar(j-1) {
		for j < len(b) && b[j] != ' ' {
			j++
		}
	}
	t := strings.TrimRight(strings.TrimSpace(b[i:j]), ".,;:!?")
	if words(t) == 0 {
		return ""
	}
	return t
}

// words counts the words of a text.
func words(s string) int {
	n := 0
	for _, t := range tokens(s) {
		if isWord(t) {
			n++
		}
	}
	return n
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
