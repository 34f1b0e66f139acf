package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"cairn/themes"
)

// contextKeys are the keys of the views that take the keyboard for a while.
var contextKeys = []struct{ where, keys string }{
	{"filter (f)", "type to narrow the list (every match in the layer) · ↑/↓ move · enter keep · esc clear"},
	{"command line", "tab complete · ↑/↓ history · enter run · esc close"},
	{"forget dialog", "y forget for good · N, enter or esc keep it"},
	{"supersede editor", "first line is the title · ctrl+s show the diff · ctrl+e $EDITOR · esc cancel"},
	{"calibration (K)", "↑/↓ scroll · v the verify-first queue · esc, q or K close"},
	{"diff", "←/→ or h/l older/newer pair · [/] move the old side · enter store (when superseding) · of a proposal: a accept, w reject, e edit, then accept · esc close"},
	{"inbox (i)", "a accept · w reject · e edit, then accept · d diff (merge, supersede) · x drop a draft · o a draft's episode · enter read"},
	{"repository", "enter a module's sections · enter or e opens a section's file at its line in $EDITOR · f filter · esc back to the modules · read-only: a, u, x, s, ctrl+e, c, w, b and d say so, /index reads the repository again"},
	{"run report", "after /consolidate: ↑/↓ scroll · i the inbox · / command (/undo takes the run back) · esc close"},
}

// helpLines lists every key and every command (from the same registry the
// command line parses), for a help screen w cells wide. A description too
// long for its line wraps under itself, never under the key column.
func helpLines(t themes.Theme, w int) []string {
	st := t.Styles
	keyCell := func(e helpEntry, kw, cw int) []string { return hang(st.Key.Render(e.label), kw, e.text, cw) }
	lines := []string{st.Title.Render("Keys")}
	bs := helpEntries()
	if col := w / 2; col >= 48 {
		half := (len(bs) + 1) / 2
		lw, rw := keyWidth(bs[:half]), keyWidth(bs[half:])
		for i := range half {
			l := keyCell(bs[i], lw, col-1)
			var r []string
			if i+half < len(bs) {
				r = keyCell(bs[i+half], rw, w-col)
			}
			for j := range max(len(l), len(r)) {
				row := pad("", col-1)
				if j < len(l) {
					row = pad(l[j], col-1)
				}
				if j < len(r) {
					row += " " + r[j]
				}
				lines = append(lines, strings.TrimRight(row, " "))
			}
		}
	} else {
		kw := keyWidth(bs)
		for _, b := range bs {
			lines = append(lines, keyCell(b, kw, w)...)
		}
	}
	lines = append(lines, "", st.Title.Render("In views"))
	for _, c := range contextKeys {
		lines = append(lines, hang(st.Key.Render(c.where), 17, c.keys, w)...)
	}
	lines = append(lines, "", st.Title.Render("Commands")+st.Muted.Render(" (type / or :, tab completes, ↑/↓ history; no id = the selected memory)"))
	cw := 0
	for _, c := range registry {
		cw = max(cw, ansi.StringWidth("/"+c.name+" "+c.args)+1)
	}
	cw = min(cw, max(w/3, 20)) // a longer one takes a line of its own
	for _, c := range registry {
		lines = append(lines, hang(st.Key.Render("/"+c.name+" "+c.args), cw, c.help, w)...)
	}
	lines = append(lines, "", st.Title.Render("Marks"),
		"> selection · ● trusted  ◐ less so  ! low trust, verify first · ☆ recalled  ★ recalled often",
		"kinds: rule = constraint, pref = preference, proc = procedure, dec = decision, neg = negative")
	return wrapAll(lines, w)
}

// helpEntry is a key of the help screen and what it does.
type helpEntry struct{ label, text string }

// helpEntries are the bindings of the help screen, one entry a key: a key
// that means another thing in another view says where each meaning applies.
func helpEntries() []helpEntry {
	var out []helpEntry
	at := map[string]int{}
	for _, b := range allBindings() {
		text := b.long
		if b.where != "" {
			text = b.where + ": " + text
		}
		if i, ok := at[b.label()]; ok {
			out[i].text += " · " + text
			continue
		}
		at[b.label()] = len(out)
		out = append(out, helpEntry{b.label(), text})
	}
	return out
}

// keyWidth is the key column for es: the longest label and a space.
func keyWidth(es []helpEntry) int {
	w := 0
	for _, e := range es {
		w = max(w, ansi.StringWidth(e.label))
	}
	return w + 1
}

// hang lays out a key and its description in w cells: the key in a column
// of kw cells (on a line of its own when longer), the description wrapped
// in the rest with a hanging indent, so it never runs under the keys.
func hang(key string, kw int, desc string, w int) []string {
	dw := max(w-kw, 12)
	wrapped := wrapLines(desc, dw)
	var out []string
	if ansi.StringWidth(key) >= kw {
		out = append(out, key)
	} else {
		out = append(out, pad(key, kw)+wrapped[0])
		wrapped = wrapped[1:]
	}
	for _, l := range wrapped {
		out = append(out, strings.Repeat(" ", kw)+l)
	}
	return out
}
