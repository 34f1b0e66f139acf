package ui

import (
	"strings"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// forgetDialog asks before a hard delete. It shows the text as stored,
// re-read from the store, and answers No unless the person presses y.
type forgetDialog struct {
	mem *memory.Memory
}

func (d *forgetDialog) view(t themes.Theme, w, h int, sid func(string) string) string {
	st := t.Styles
	inner := max(w-8, 20)
	// The stored text as it is, neutralised: escapes in it must not act on
	// the terminal (they could erase the id line and hide what is deleted).
	text := safetext.CleanLine(d.mem.Title) + "\n\n" + strings.TrimRight(safetext.Clean(d.mem.Body), "\n")
	lines := wrapAll(strings.Split(text, "\n"), inner)
	room := max(h-12, 3)
	if len(lines) > room {
		lines = append(lines[:room-1], st.Muted.Render("… (the text goes on)"))
	}
	body := []string{
		st.Danger.Render("Forget this memory for good?"),
		st.Muted.Render(sid(d.mem.ID) + " · " + d.mem.Layer.Title() + " · " + safetext.CleanLine(string(d.mem.Status))),
		"",
	}
	body = append(body, lines...)
	body = append(body, "",
		"It cannot be undone. Archive (a) keeps it out of recall and can be undone.",
		"",
		st.Key.Render("y")+" forget   "+st.Key.Render("N")+"/enter/esc keep it (default)")
	return st.Dialog.Width(min(w-2, inner+8)).Render(strings.Join(body, "\n"))
}
