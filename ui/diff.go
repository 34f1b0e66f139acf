package ui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/sergi/go-diff/diffmatchpatch"

	"cairn/memory"
	"cairn/themes"
)

// span is a run of text that is the same in both versions, or only in one.
type span struct {
	op   diffmatchpatch.Operation
	text string
}

// wordDiff compares two texts word by word: each word and each run of
// spaces is one symbol, so highlights fall on whole words.
func wordDiff(a, b string) []span {
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
	var out []span
	for _, d := range diffs {
		var sb strings.Builder
		for _, r := range d.Text {
			sb.WriteString(table[index2(r)])
		}
		if n := len(out); n > 0 && out[n-1].op == d.Type {
			out[n-1].text += sb.String()
		} else {
			out = append(out, span{d.Type, sb.String()})
		}
	}
	return out
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

func index2(r rune) int {
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

// diffView shows two versions of a memory, side by side when there is room.
type diffView struct {
	old, new *memory.Memory
	title    string
	confirm  bool // the supersession is not stored yet: enter stores it
	scroll   int
	w, h     int
}

// sideBySide is the layout for terminals of at least this many columns.
const sideBySide = 100

func docText(m *memory.Memory) string {
	return m.Title + "\n\n" + strings.TrimRight(m.Body, "\n")
}

// lines renders the diff for width w.
func (d *diffView) lines(t themes.Theme, w int) []string {
	spans := wordDiff(docText(d.old), docText(d.new))
	// Markers ([-removed-] {+added+}) carry the change wherever colour
	// cannot: without colour, and in the unified view where old and new
	// words stand side by side in one line.
	markers := t.Plain || w < sideBySide
	mark := func(op diffmatchpatch.Operation, s string) string {
		switch op {
		case diffmatchpatch.DiffDelete:
			if markers {
				s = "[-" + s + "-]"
			}
			return t.Styles.Removed.Render(s)
		case diffmatchpatch.DiffInsert:
			if markers {
				s = "{+" + s + "+}"
			}
			return t.Styles.Added.Render(s)
		}
		return s
	}
	// build renders the spans that a side keeps, line by line.
	build := func(keep func(diffmatchpatch.Operation) bool) []string {
		var b strings.Builder
		for _, sp := range spans {
			if !keep(sp.op) {
				continue
			}
			// Mark each line of a multi-line change separately so styles do not span newlines.
			parts := strings.Split(sp.text, "\n")
			for i, p := range parts {
				if i > 0 {
					b.WriteString("\n")
				}
				if p != "" {
					b.WriteString(mark(sp.op, p))
				}
			}
		}
		return strings.Split(b.String(), "\n")
	}
	if w >= sideBySide {
		col := (w - 3) / 2
		left := wrapAll(build(func(op diffmatchpatch.Operation) bool { return op != diffmatchpatch.DiffInsert }), col)
		right := wrapAll(build(func(op diffmatchpatch.Operation) bool { return op != diffmatchpatch.DiffDelete }), col)
		head := pad(t.Styles.Bold.Render("old · "+short(d.old.ID)), col) + " │ " + t.Styles.Bold.Render("new · "+short(d.new.ID))
		out := []string{head, strings.Repeat("─", col) + "─┼─" + strings.Repeat("─", col)}
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			out = append(out, pad(l, col)+" │ "+r)
		}
		return out
	}
	head := t.Styles.Bold.Render("old " + short(d.old.ID) + " → new " + short(d.new.ID))
	return append([]string{head, strings.Repeat("─", w)}, wrapAll(build(func(diffmatchpatch.Operation) bool { return true }), w)...)
}

func (d *diffView) view(t themes.Theme, w, h int) string {
	body := d.lines(t, w)
	footer := "↑/↓ scroll · esc close"
	if d.confirm {
		footer = "enter store the new version · esc back to the editor"
	}
	title := t.Styles.Title.Render("Supersession diff") + t.Styles.Muted.Render(" · "+d.title)
	avail := max(h-3, 1)
	d.scroll = clamp(d.scroll, 0, max(len(body)-avail, 0))
	end := min(d.scroll+avail, len(body))
	return strings.Join(append(append([]string{title}, body[d.scroll:end]...), "", t.Styles.Footer.Render(footer)), "\n")
}

// wrapAll wraps styled lines to width w.
func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, max(w, 1), " "), "\n")...)
	}
	return out
}

// pad cuts or fills a styled string to exactly w cells.
func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

func short(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}
