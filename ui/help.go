package ui

import (
	"fmt"
	"strings"

	"cairn/themes"
)

// contextKeys are the keys of the views that take the keyboard for a while.
var contextKeys = []struct{ where, keys string }{
	{"filter (f)", "type to narrow the loaded list · enter keep · esc clear"},
	{"command line", "tab complete · ↑/↓ history · enter run · esc close"},
	{"forget dialog", "y forget for good · N, enter or esc keep it"},
	{"supersede editor", "first line is the title · ctrl+s show the diff · ctrl+e $EDITOR · esc cancel"},
	{"calibration (K)", "↑/↓ scroll · v the verify-first queue · esc, q or K close"},
	{"diff", "←/→ older/newer pair · [/] move the old side · enter store (when superseding) · esc close"},
	{"inbox (i)", "a accept · w reject · e edit, then accept · d diff (merge, supersede) · x drop a draft · enter read"},
	{"proposal diff", "a accept · w reject · e edit, then accept · esc close"},
	{"run report", "after /consolidate: ↑/↓ scroll · i the inbox · esc close · /undo takes the run back"},
}

// helpLines lists every key and every command (from the same registry the
// command line parses), for a help screen w cells wide.
func helpLines(t themes.Theme, w int) []string {
	st := t.Styles
	var keyLines, cmdLines []string
	for _, b := range allBindings() {
		keyLines = append(keyLines, st.Key.Render(pad(b.label(), 16))+" "+b.help)
	}
	for _, c := range registry {
		cmdLines = append(cmdLines, st.Key.Render(pad("/"+c.name+" "+c.args, 26))+" "+c.help)
	}
	lines := []string{st.Title.Render("Keys")}
	if col := w / 2; col >= 48 {
		half := (len(keyLines) + 1) / 2
		for i := range half {
			r := ""
			if i+half < len(keyLines) {
				r = keyLines[i+half]
			}
			lines = append(lines, pad(keyLines[i], col-1)+" "+r)
		}
	} else {
		lines = append(lines, keyLines...)
	}
	lines = append(lines, "", st.Title.Render("In views"))
	for _, c := range contextKeys {
		lines = append(lines, st.Key.Render(pad(c.where, 17))+c.keys)
	}
	lines = append(lines, "", st.Title.Render("Commands")+st.Muted.Render(" (type / or :, tab completes, ↑/↓ history; no id = the selected memory)"))
	lines = append(lines, cmdLines...)
	lines = append(lines, "", st.Title.Render("Marks"),
		"> selection · ● trusted  ◐ less so  ! low trust, verify first · ☆ recalled  ★ recalled often",
		"kinds: rule = constraint, pref = preference, proc = procedure, dec = decision, neg = negative")
	return wrapAll(lines, w)
}

// helpView is the part of the help that fits h lines from scroll on.
func helpView(t themes.Theme, w, h, scroll int) string {
	lines := helpLines(t, w)
	scroll = clamp(scroll, 0, max(len(lines)-h, 0))
	lines = lines[scroll:]
	if len(lines) > h {
		lines = append(lines[:h-1], t.Styles.Muted.Render(fmt.Sprintf("… %d more lines: ↓ scrolls", len(lines)-h+1)))
	}
	return strings.Join(lines, "\n")
}
