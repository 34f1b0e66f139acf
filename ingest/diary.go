package ingest

import (
	"fmt"
	"strings"
	"time"

	"cairn/safetext"
)

// Episode is the session's episode: a title and a short body saying when,
// on which branch, what was asked, what was done and how it ended. The same
// diary always gives the same text.
func (d *Diary) Episode() (title, body string) {
	when := "Session"
	if !d.Start.IsZero() {
		start := d.Start.Local()
		when += " " + start.Format("2006-01-02 15:04")
		if !d.End.IsZero() && d.End.After(d.Start) {
			end := d.End.Local()
			if end.Format("2006-01-02") == start.Format("2006-01-02") {
				when += "–" + end.Format("15:04")
			} else {
				when += " – " + end.Format("2006-01-02 15:04")
			}
		}
	}
	if d.Branch != "" {
		when += " on " + d.Branch
	}
	title = when
	if len(d.Asked) > 0 {
		title += ": " + d.Asked[0]
	}
	title = cutBytes(safetext.CleanLine(title), 120)

	var b strings.Builder
	agent := "an agent"
	switch d.Format {
	case FormatClaudeCode:
		agent = "Claude Code"
	case FormatCodex:
		agent = "Codex"
	}
	fmt.Fprintf(&b, "A %s session", agent)
	if d.Cwd != "" {
		fmt.Fprintf(&b, " in %s", d.Cwd)
	}
	if d.Branch != "" {
		fmt.Fprintf(&b, " on branch %s", d.Branch)
	}
	if !d.Start.IsZero() {
		fmt.Fprintf(&b, ", %s", span(d.Start, d.End))
	}
	b.WriteString(".\n")
	if len(d.Asked) > 0 {
		fmt.Fprintf(&b, "\nAsked (%d %s):\n", d.Prompts, pluralWord(d.Prompts, "prompt", "prompts"))
		for _, a := range d.Asked {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		if n := d.Prompts - len(d.Asked); n > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", n)
		}
	}
	if len(d.Commands) > 0 || len(d.Files) > 0 {
		b.WriteString("\nDone:\n")
		for _, c := range d.Commands {
			fmt.Fprintf(&b, "- ran `%s`", c.Text)
			if c.Runs > 1 {
				fmt.Fprintf(&b, " %d×", c.Runs)
			}
			if c.Failed > 0 {
				fmt.Fprintf(&b, " (%d failed)", c.Failed)
			}
			b.WriteString("\n")
		}
		if len(d.Files) > 0 {
			fmt.Fprintf(&b, "- touched %d %s: %s\n", len(d.Files), pluralWord(len(d.Files), "file", "files"), strings.Join(d.Files, ", "))
		}
	}
	b.WriteString("\nEnded: ")
	var ended []string
	switch {
	case d.Tests == nil:
		ended = append(ended, "no tests run")
	case d.Tests.Passed:
		ended = append(ended, "tests green (`"+d.Tests.Command+"`)")
	default:
		s := "tests failing (`" + d.Tests.Command + "`"
		if d.Tests.Summary != "" {
			s += ": " + d.Tests.Summary
		}
		ended = append(ended, s+")")
	}
	if d.Failures > 0 {
		ended = append(ended, fmt.Sprintf("%d failed tool %s", d.Failures, pluralWord(d.Failures, "call", "calls")))
	}
	if d.Compacted > 0 {
		ended = append(ended, fmt.Sprintf("context compacted %d×", d.Compacted))
	}
	if !d.Ended {
		ended = append(ended, "still running when last read")
	}
	b.WriteString(strings.Join(ended, "; ") + ".\n")
	fmt.Fprintf(&b, "\nSession %s.", d.Session)
	// What a transcript quotes is data: escapes become visible symbols.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = safetext.CleanLine(l)
	}
	return title, strings.Join(lines, "\n")
}

// span is a session's time span in words.
func span(start, end time.Time) string {
	s := start.Local().Format("2006-01-02 15:04")
	if d := end.Sub(start).Round(time.Minute); d >= time.Minute {
		s += fmt.Sprintf(", %s", strings.TrimSuffix(d.String(), "0s"))
	}
	return s
}

func pluralWord(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}
