package ui

import (
	"fmt"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// timelinePane is the project's events, newest first, one a line under a
// heading that stays.
type timelinePane struct {
	events []memory.Event
	pg     pager // what shows of lines(), laid out by fit
}

// heading says what the timeline holds.
func (p *timelinePane) heading(t themes.Theme) string {
	return t.Styles.Title.Render("Timeline") + t.Styles.Muted.Render(fmt.Sprintf(" %d events, newest first", len(p.events)))
}

// view is the heading over what the pager shows.
func (p *timelinePane) view(t themes.Theme) []string {
	return append([]string{p.heading(t)}, p.pg.lines()...)
}

// lines is every event at width w, newest first.
func (p *timelinePane) lines(t themes.Theme, w int, sid func(string) string) []string {
	if len(p.events) == 0 {
		return []string{t.Styles.Muted.Render("nothing has happened in this project yet")}
	}
	out := make([]string, 0, len(p.events))
	for _, e := range p.events {
		what := e.Title
		if what == "" && e.MemoryID != "" {
			what = sid(e.MemoryID)
		}
		if e.Summary != "" {
			if what != "" {
				what += " — "
			}
			what += e.Summary
		}
		line := safetext.CleanLine(fmt.Sprintf("%s  %-6s %-10s %s", e.Time.Local().Format("01-02 15:04"), e.Actor, e.Kind, what))
		out = append(out, pad(line, w))
	}
	return out
}
