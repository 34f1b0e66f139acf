// Package inboxline says in words what a proposal would change, for the
// inbox's rows (the workbench's and the command line's alike), and holds
// the word diff both show a proposal's two texts with.
package inboxline

import (
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Span is a run of text that is the same in both versions, or only in one.
type Span struct {
	Op   diffmatchpatch.Operation
	Text string
}

// Diff compares two texts word by word: each word, each run of spaces,
// each newline and each punctuation mark is one symbol, so highlights fall
// on whole words.
func Diff(a, b string) []Span {
	index := map[string]rune{}
	var table []string
	encode := func(s string) []rune {
		var out []rune
		for _, tok := range tokens(s) {
			r, ok := index[tok]
			if !ok {
				r = symbol(len(table))
				index[tok] = r
				table = append(table, tok)
			}
			out = append(out, r)
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	// Semantic cleanup folds tiny common words between changes into the
	// change, so a rewritten sentence reads as old → new, not as confetti.
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false))
	var out []Span
	for _, d := range diffs {
		var sb strings.Builder
		for _, r := range d.Text {
			sb.WriteString(table[tokenOf(r)])
		}
		if n := len(out); n > 0 && out[n-1].Op == d.Type {
			out[n-1].Text += sb.String()
		} else {
			out = append(out, Span{d.Type, sb.String()})
		}
	}
	return out
}

// Marked is the word diff of two texts in one, as git's --word-diff=plain
// writes it: [-removed-] and {+added+}.
func Marked(a, b string) string {
	var sb strings.Builder
	for _, sp := range Diff(a, b) {
		switch sp.Op {
		case diffmatchpatch.DiffEqual:
			sb.WriteString(sp.Text)
		case diffmatchpatch.DiffDelete:
			sb.WriteString("[-" + sp.Text + "-]")
		case diffmatchpatch.DiffInsert:
			sb.WriteString("{+" + sp.Text + "+}")
		}
	}
	return sb.String()
}

// symbol is the rune standing for token i: any valid rune works, as long
// as it survives a trip through a Go string (so never a surrogate).
func symbol(i int) rune {
	r := rune(i + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

func tokenOf(r rune) int {
	n := int(r)
	if n >= 0xE000 {
		n -= 0x800
	}
	return n - 1
}

// tokens splits text into words, runs of spaces, newlines and punctuation.
func tokens(s string) []string {
	var out []string
	start := 0
	kind := func(r rune) int {
		switch {
		case r == '\n':
			return 0
		case unicode.IsSpace(r):
			return 1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			return 2
		}
		return 3
	}
	prev := -1
	for i, r := range s {
		k := kind(r)
		if i > start && (k != prev || k == 0 || k == 3) {
			out = append(out, s[start:i])
			start = i
		}
		prev = k
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
