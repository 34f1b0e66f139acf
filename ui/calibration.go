package ui

import (
	"fmt"

	"cairn/safetext"
	"cairn/themes"
	"cairn/trust"
)

// shownPerBinding is how many of a flagged binding's memories the
// calibration pane names; the rest are counted.
const shownPerBinding = 3

// calibrationPane shows what the project's reviews say about its
// bindings (DESIGN §3): per watermark kind, how often a binding fired
// when the fact had changed (caught), fired while it held (noise), stayed
// silent while it changed (missed) or stayed rightly silent (quiet); then
// the bindings that are poorly aimed, with what to do about them.
type calibrationPane struct {
	loaded bool
	cal    trust.Calibration
	titles map[string]string
	pg     pager // what shows of lines(), laid out by fit
}

func (p *calibrationPane) set(c trust.Calibration, titles map[string]string) {
	p.cal, p.titles, p.loaded = c, titles, true
}

// lines is the whole pane at width w, naming memories by their short ids.
func (p *calibrationPane) lines(t themes.Theme, w int, sid func(string) string) []string {
	st := t.Styles
	title := st.Title.Render("Calibration")
	switch {
	case !p.loaded:
		return []string{title, "", st.Muted.Render("counting the reviews…")}
	case p.cal.Reviews == 0:
		return wrapAll([]string{title, "",
			"no reviews yet: confirm, reject, rebind or supersede memories and their evidence shows here",
			"",
			st.Muted.Render("v opens the verify-first queue · esc closes")}, w)
	}
	reviews := "reviews"
	if p.cal.Reviews == 1 {
		reviews = "review"
	}
	out := []string{
		title + st.Muted.Render(fmt.Sprintf(" %d %s: did the binding fire × had the fact changed", p.cal.Reviews, reviews)),
		"",
		st.Muted.Render(fmt.Sprintf("%-6s %7s %7s %7s %7s %9s %9s", "kind", "caught", "noise", "missed", "quiet", "noise %", "missed %")),
	}
	for _, k := range p.cal.Kinds {
		row := fmt.Sprintf("%-6s %7d %7d %7d %7d %9s %9s", k.Kind, k.Caught, k.Noise, k.Missed, k.QuietRight,
			trust.Share(k.Noise, k.Caught+k.Noise), trust.Share(k.Missed, k.Caught+k.Missed))
		if k.Reviews == 0 {
			row = st.Muted.Render(row)
		}
		out = append(out, row)
	}
	out = append(out, "",
		st.Muted.Render("caught: fired, the fact had changed · noise: fired, the fact held"),
		st.Muted.Render("missed: silent, the fact changed · quiet: silent, the fact held"),
		"")
	if len(p.cal.Flagged) == 0 {
		out = append(out, st.OK.Render("✓ no binding flagged: none fires on noise or stays silent"))
		return wrapAll(out, w)
	}
	out = append(out, st.Title.Render(fmt.Sprintf("Flagged bindings %d", len(p.cal.Flagged))))
	for _, f := range p.cal.Flagged {
		line := safetext.CleanLine
		out = append(out, st.Warn.Render("! "+line(f.Binding)+" ("+line(f.Problem)+")")+" — "+line(f.Advice))
		for _, id := range f.Memories[:min(len(f.Memories), shownPerBinding)] {
			out = append(out, "    "+st.Muted.Render(sid(id))+" "+line(p.titles[id]))
		}
		if n := len(f.Memories) - shownPerBinding; n > 0 {
			out = append(out, st.Muted.Render(fmt.Sprintf("    and %d more", n)))
		}
	}
	return wrapAll(out, w)
}
