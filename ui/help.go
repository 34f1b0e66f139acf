package ui

import (
	"fmt"
	"strings"

	"cairn/themes"
)

// helpView lists every key and every command (from the same registry the
// command line parses).
func helpView(t themes.Theme, w, h, scroll int) string {
	st := t.Styles
	var keyLines, cmdLines []string
	for _, b := range allBindings() {
		keyLines = append(keyLines, fmt.Sprintf("%s %s", st.Key.Render(pad(b.label(), 16)), b.help))
	}
	for _, c := range registry {
		cmdLines = append(cmdLines, fmt.Sprintf("%s %s", st.Key.Render(pad("/"+c.name+" "+c.args, 26)), c.help))
	}
	lines := []string{st.Title.Render("Keys")}
	if w >= 76 {
		// keys in two columns
		half := (len(keyLines) + 1) / 2
		for i := 0; i < half; i++ {
			r := ""
			if i+half < len(keyLines) {
				r = keyLines[i+half]
			}
			lines = append(lines, pad(keyLines[i], w/2)+r)
		}
	} else {
		lines = append(lines, keyLines...)
	}
	lines = append(lines, "", st.Title.Render("Commands")+st.Muted.Render(" (type / or :, tab completes, ↑/↓ history)"))
	lines = append(lines, cmdLines...)
	lines = append(lines, "", st.Muted.Render("Marks: > selection · ● trusted ◐ less so ! verify first · ☆★ recalled often · esc closes help"))
	scroll = clamp(scroll, 0, max(len(lines)-h, 0))
	lines = lines[scroll:]
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}
