package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// tally is what the sidebar counts: the store's counts of the project's
// memories, and the sections' own.
type tally struct {
	counts memory.Counts
	loaded bool // the counts have arrived once
	verify int  // memories in the verify-first queue
	inbox  int  // waiting drafts, open proposals and gaps
	repo   int  // the repository's modules (0: not indexed)
}

// total is how many memories the project holds, whatever their status.
func (t tally) total() int {
	n := 0
	for _, s := range memory.Statuses {
		n += t.counts.Total(s)
	}
	return n
}

// title is the section's heading.
func (s section) title() string {
	switch {
	case s < 6:
		l := memory.Layers[s]
		return l.Letter() + " " + l.Title()
	case s == sectionVerify:
		return "Verify first"
	case s == sectionInbox:
		return "Inbox"
	case s == sectionArchived:
		return "Archived"
	case s == sectionSuperseded:
		return "Superseded (history)"
	case s == sectionRepo:
		return "Repository"
	}
	return "Timeline"
}

// of is how many memories the section holds, as the sidebar
// counts them (the list loads them a page at a time), or -1 where the loaded
// list is the whole of it.
func (t tally) of(s section) int {
	switch {
	case s < sectionVerify:
		l, _ := s.layer()
		return t.counts.Active(l)
	case s == sectionArchived:
		return t.counts.Total(memory.StatusArchived)
	case s == sectionSuperseded:
		return t.counts.Total(memory.StatusSuperseded)
	}
	return -1
}

// countLabel is a sidebar count in at most four cells: 999, 1.2k, 38k,
// 100k, 1.2M (a count is read at a glance, and "1…" said nothing).
func countLabel(n int) string {
	switch {
	case n < 0:
		return ""
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// sidebarWidth fits the longest label ("  B working state") and the widest
// count beside it, inside the border and padding: 24 cells, a little more
// for four-character counts.
func (t tally) width() int {
	widest := len(countLabel(t.verify))
	for _, n := range []int{t.inbox, t.repo, t.counts.Total(memory.StatusArchived), t.counts.Total(memory.StatusSuperseded)} {
		widest = max(widest, len(countLabel(n)))
	}
	for _, l := range memory.Layers {
		widest = max(widest, len(countLabel(t.counts.Active(l))))
	}
	return max(24, 22+widest)
}

// lines are the sidebar's rows, w cells wide: sel is the selected
// section, focused whether the sidebar has the keyboard.
func (t tally) lines(th themes.Theme, w int, sel section, focused bool) []string {
	st := th.Styles
	out := []string{st.Title.Render("Layers")}
	row := func(i section, label string, n int, style lipgloss.Style) string {
		mark := "  "
		if i == sel {
			mark = "> "
		}
		count := countLabel(n)
		text := mark + style.Render(label)
		line := text + strings.Repeat(" ", max(w-lipgloss.Width(text)-len(count), 1)) + st.Muted.Render(count)
		if i == sel && focused {
			return st.Selected.Render(pad(mark+label+strings.Repeat(" ", max(w-len(mark)-lipgloss.Width(label)-len(count), 1))+count, w))
		}
		return line
	}
	for i, l := range memory.Layers {
		out = append(out, row(layerSection(l), l.Letter()+" "+l.Title(), t.counts.Active(l), st.Layer[i]))
	}
	out = append(out, st.Muted.Render(strings.Repeat("─", w)))
	out = append(out, row(sectionVerify, "! Verify first", t.verify, st.Warn))
	out = append(out, row(sectionInbox, "Inbox", t.inbox, st.Accent))
	out = append(out, row(sectionArchived, "Archived", t.counts.Total(memory.StatusArchived), lipgloss.NewStyle()))
	out = append(out, row(sectionSuperseded, "Superseded", t.counts.Total(memory.StatusSuperseded), lipgloss.NewStyle()))
	out = append(out, row(sectionTimeline, "Timeline", -1, lipgloss.NewStyle()))
	repo := -1 // not indexed: no count, the section says how
	if t.repo > 0 {
		repo = t.repo
	}
	out = append(out, row(sectionRepo, "Repository", repo, lipgloss.NewStyle()))
	return out
}

// welcome greets an empty project.
func welcome(t themes.Theme, project string, waitingItems int, w int) []string {
	st := t.Styles
	lines := []string{
		st.Title.Render("Welcome to cairn"),
		"",
		"cairn is long-term memory for coding agents and the people who work with them: facts, decisions and their reasons, what failed — versioned instead of overwritten, and yours to correct.",
		"",
		"Nothing is remembered in " + st.Accent.Render(safetext.CleanLine(project)) + " yet. Three ways to start:",
		"",
		"  " + st.Key.Render("/remember -l A Never commit .env files"),
		"      press / here and type it",
		"  " + st.Key.Render("cairn mcp"),
		"      let your coding agent remember and recall",
		"  " + st.Key.Render("cairn demo"),
		"      look around a sample project first",
		"",
		st.Muted.Render("? shows every key · q quits"),
	}
	if waitingItems > 0 {
		lines = append(lines[:5], append([]string{
			st.Warn.Render(waiting(waitingItems)+" in the inbox:") + " " + st.Key.Render("i") + " shows them, " + st.Key.Render("/consolidate") + " turns drafts into memories.",
			"",
		}, lines[5:]...)...)
	}
	return wrapAll(lines, w)
}

// waiting says how many items wait: "1 item waits", "3 items wait".
func waiting(n int) string {
	if n == 1 {
		return "1 item waits"
	}
	return fmt.Sprintf("%d items wait", n)
}
