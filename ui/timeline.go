package ui

import (
	"fmt"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// timelinePane is the project's events, newest first.
type timelinePane struct {
	events []memory.Event
	scroll int
}

// scrollBy scrolls n events, within what h lines show.
func (p *timelinePane) scrollBy(n, h int) {
	top := max(len(p.events)-(h-1), 0)
	p.scroll = clamp(clamp(p.scroll, 0, top)+n, 0, top)
}

func (p *timelinePane) view(t themes.Theme, w, h int) []string {
	st := t.Styles
	out := []string{st.Title.Render("Timeline") + st.Muted.Render(fmt.Sprintf(" %d events, newest first", len(p.events)))}
	if len(p.events) == 0 {
		return append(out, st.Muted.Render("nothing has happened in this project yet"))
	}
	for _, e := range p.events[clamp(p.scroll, 0, max(len(p.events)-(h-1), 0)):] {
		what := e.Title
		if what == "" && e.MemoryID != "" {
			what = short(e.MemoryID)
		}
		if e.Summary != "" {
			if what != "" {
				what += " — "
			}
			what += e.Summary
		}
		line := safetext.CleanLine(fmt.Sprintf("%s  %-6s %-10s %s", e.Time.Local().Format("01-02 15:04"), e.Actor, e.Kind, what))
		out = append(out, pad(line, w))
		if len(out) >= h {
			break
		}
	}
	return out
}
