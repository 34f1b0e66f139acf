package ui

import (
	"fmt"
	"strings"

	"cairn/themes"
)

// helpView lists every key and every command (from the same registry the
// command line parses).
func helpView(t themes.Theme, w, h int) string {
	st := t.Styles
	var keyLines, cmdLines []string
	for _, b := range allBindings() {
		keyLines = append(keyLines, fmt.Sprintf("%s %s", st.Key.Render(pad(b.label(), 18)), b.help))
	}
	for _, c := range registry {
		cmdLines = append(cmdLines, fmt.Sprintf("%s %s", st.Key.Render(pad("/"+c.name+" "+c.args, 26)), c.help))
	}
	lines := []string{st.Title.Render("Keys")}
	lines = append(lines, keyLines...)
	lines = append(lines, "", st.Title.Render("Commands")+st.Muted.Render(" (type / or :, tab completes, ↑/↓ history)"))
	lines = append(lines, cmdLines...)
	lines = append(lines, "", st.Muted.Render("Marks: > selection · ● trusted ◐ less so ! verify first · ☆★ recalled often · esc closes help"))
	if w >= 120 && len(lines) > h {
		// two columns when wide
		left := append([]string{st.Title.Render("Keys")}, keyLines...)
		right := append([]string{st.Title.Render("Commands")}, cmdLines...)
		var out []string
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			out = append(out, pad(l, w/2)+r)
		}
		lines = out
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}
