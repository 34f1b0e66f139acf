package ui

import (
	"strings"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// dropDialog asks before a draft is deleted for good, the way the forget
// dialog asks about a memory: it shows the draft's text as stored, re-read
// from the store, and answers No unless the person presses y.
type dropDialog struct {
	draft memory.Draft
}

func (d *dropDialog) view(t themes.Theme, w, h int) string {
	st := t.Styles
	inner := max(w-8, 20)
	// Neutralised: escapes in captured text must not act on the terminal.
	lines := wrapAll(strings.Split(strings.TrimRight(safetext.Clean(d.draft.Text), "\n"), "\n"), inner)
	room := max(h-12, 3)
	if len(lines) > room {
		lines = append(lines[:room-1], st.Muted.Render("… (the text goes on)"))
	}
	state := "waiting for /consolidate"
	if d.draft.Done != "" {
		state = "consolidated by run " + short(d.draft.Done)
	}
	body := []string{
		st.Danger.Render("Drop this draft for good?"),
		st.Muted.Render(safetext.CleanLine(d.draft.ID) + " · captured " + d.draft.Time.Local().Format("2006-01-02 15:04") + " · " + draftSource(&d.draft) + " · " + state),
		"",
	}
	body = append(body, lines...)
	body = append(body, "",
		"It cannot be undone: the timeline keeps only that a draft was deleted.",
		"",
		st.Key.Render("y")+" drop   "+st.Key.Render("N")+"/enter/esc keep it (default)")
	return st.Dialog.Width(min(w-2, inner+8)).Render(strings.Join(body, "\n"))
}
