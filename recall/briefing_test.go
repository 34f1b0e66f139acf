package recall

import (
	"context"
	"strings"
	"testing"
	"time"

	"cairn/ingest"
	"cairn/memory"
)

// episode records session s of the fixture's project as ingest writes it:
// begun at start, and ended with its tests green or failing, or still
// running.
func (f *fixture) episode(t *testing.T, s string, start time.Time, ended, green bool) {
	t.Helper()
	d := &ingest.Diary{Session: s, Format: ingest.FormatClaudeCode, Start: start, End: start.Add(time.Hour),
		Asked: []string{"work on " + s}, Prompts: 1, Ended: ended,
		Commands: []ingest.Command{{Text: "go test ./...", Runs: 1}},
		Tests:    &ingest.TestResult{Command: "go test ./...", Passed: green}}
	title, body := d.Episode()
	f.said(t, memory.Memory{Layer: memory.LayerEpisode, Kind: memory.KindEvent, Title: title, Body: body,
		Ref: ingest.EpisodeRef(s), ValidFrom: start, Source: memory.Source{Actor: memory.ActorSystem, Session: s}})
}

// said stores m as cairn's own writes from a session are: dated when said.
func (f *fixture) said(t *testing.T, m memory.Memory) {
	t.Helper()
	m.Project = f.pid
	if _, err := f.db.Remember(context.Background(), &m, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
}

// A to-do filed as an invariant never leads the briefing: settled by the
// work (its session ended green, or a later session began), it is left
// out and counted; still open, it comes last, under its own heading, after
// every rule.
func TestBriefingToDosAreNoRules(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	todo := memory.Memory{Layer: memory.LayerInvariant, Title: "Still needed for gqc.6",
		Body: "- [ ] wire the exporter\n- [ ] document the flag", ValidFrom: t0.Add(30 * time.Minute), Source: memory.Source{Session: "s1"}}
	rules := func(f *fixture) {
		f.add(t, memory.Memory{Layer: memory.LayerInvariant, Title: "Never commit .env files", Body: "CI checks for them."})
		f.add(t, memory.Memory{Layer: memory.LayerInvariant, Title: "A lockfile is still needed for reproducible builds", Body: "Commit go.sum."})
		f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "VGPR-256 starved occupancy", Body: "don't"})
	}
	brief := func(f *fixture) (Briefing, string) {
		b, err := Context(context.Background(), f.db, []string{f.pid}, 800)
		if err != nil {
			t.Fatal(err)
		}
		return b, b.Markdown()
	}
	for _, c := range []struct {
		name    string
		history func(f *fixture)
		settled bool
	}{
		{"its session ended green", func(f *fixture) { f.episode(t, "s1", t0, true, true) }, true},
		{"a later session began", func(f *fixture) {
			f.episode(t, "s1", t0, true, false)
			f.episode(t, "s2", t0.Add(24*time.Hour), false, false)
		}, true},
		{"its session ended failing", func(f *fixture) { f.episode(t, "s1", t0, true, false) }, false},
		{"its session is still running", func(f *fixture) { f.episode(t, "s1", t0, false, true) }, false},
		{"no session recorded", func(f *fixture) {}, false},
	} {
		f := newFixture(t)
		c.history(f)
		f.said(t, todo)
		rules(f)
		b, md := brief(f)
		inv := strings.Index(md, "## Invariants")
		if inv < 0 || !strings.HasPrefix(md[inv:], "## Invariants\n\n- **Never commit .env files**") && !strings.HasPrefix(md[inv:], "## Invariants\n\n- **A lockfile") {
			t.Errorf("%s: the briefing does not lead with the rules:\n%s", c.name, md)
		}
		if !strings.Contains(md, "A lockfile is still needed") || !strings.Contains(md[:strings.Index(md, "## What failed")], "A lockfile is still needed") {
			t.Errorf("%s: a rule that says something is still needed is no to-do:\n%s", c.name, md)
		}
		at := strings.Index(md, "Still needed for gqc.6")
		switch {
		case c.settled && (at >= 0 || b.Settled != 1 || !strings.Contains(md, "1 to-dos of earlier sessions left out")):
			t.Errorf("%s: a settled to-do is left out and counted (settled %d):\n%s", c.name, b.Settled, md)
		case !c.settled && (at < 0 || b.Settled != 0 || at < strings.Index(md, "VGPR-256") || !strings.Contains(md[:at], "## Open to-dos")):
			t.Errorf("%s: an open to-do comes last, under its own heading:\n%s", c.name, md)
		}
	}
}

func TestReadsAsToDo(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Still needed for gqc.6":                                    true,
		"gqc.6 status\n\nNext steps:\n1. wire the exporter":         true,
		"## Remaining tasks\n- the docs":                            true,
		"TODO: drop the v1 client":                                  true,
		"Left to do: the migration":                                 true,
		"Release checklist\n- [x] tag\n- [ ] publish":               true,
		"Release 0.7\nShipped on Monday.\n- [x] tag\n- [ ] publish": true,
		"Use Postgres for the ledger\nIt needs transactions.\nNext steps: migrate the schema.\nThe ORM supports it.": false,
		"To do: rotate the staging keys":                               true,
		"A lockfile is still needed for reproducible builds":           false,
		"Todo app state lives in Redux":                                false,
		"Never commit .env files":                                      false,
		"The next step of the pipeline is the linker, not the bundler": false,
	} {
		title, body, _ := strings.Cut(text, "\n")
		if got := ReadsAsToDo(&memory.Memory{Title: title, Body: body}); got != want {
			t.Errorf("%q reads as a to-do: %v, want %v", text, got, want)
		}
	}
}

// CutText keeps whole sentences within the tokens, else whole words; it
// never cuts a word and never goes over.
func TestCutText(t *testing.T) {
	t.Parallel()
	text := "Run make migrate with STAGE=staging first. Production locked the orders table for 40 minutes! Check the output."
	for tokens, want := range map[int]string{
		100: text,
		20:  "Run make migrate with STAGE=staging first.",
		26:  "Run make migrate with STAGE=staging first. Production locked the orders table for 40 minutes!",
		6:   "Run make migrate with",
		3:   "Run make",
		0:   "",
	} {
		got := CutText(text, tokens)
		if got != want {
			t.Errorf("%d tokens: %q, want %q", tokens, got, want)
		}
		if TextCost(got) > tokens {
			t.Errorf("%d tokens: %q costs %d", tokens, got, TextCost(got))
		}
	}
	if got := CutText("first line without a stop\nsecond line", 7); got != "first line without a stop" {
		t.Errorf("a line's end is a sentence's end: %q", got)
	}
	if got := CutText("see v1.2.3 for the fix of the exporter", 3); got != "see v1.2.3" {
		t.Errorf("a dot inside a word is no sentence's end: %q", got)
	}
}
