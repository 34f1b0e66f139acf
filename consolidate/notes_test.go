package consolidate

import (
	"strings"
	"testing"
	"time"

	"cairn/consolidate/extract"
	"cairn/ingest"
	"cairn/memory"
)

// notesDraft is an agent's working note as ingest writes it.
func notesDraft(text string) memory.Draft {
	return memory.Draft{ID: "01JNOTES0000000000000000000", Actor: memory.ActorAgent, Time: time.Date(2026, 2, 11, 22, 25, 0, 0, time.UTC),
		Text:   ingest.NotesMark + "\n" + text,
		Source: memory.Source{Actor: memory.ActorAgent, Session: "s1", File: "/home/ana/.claude/projects/p/s1.jsonl", Line: 12}}
}

// What an agent concludes between its tool calls is kept; what it narrates
// stays in the session's log. (The sentences are written here in the
// shape real sessions have; the measure on real sessions is
// e2e/sessions_eval_test.go.)
func TestNotesKeepFindingsOnly(t *testing.T) {
	cases := []struct {
		text  string
		want  []string // titles kept, in order
		class extract.Class
	}{
		{"The CSS isn't built via esbuild — `app.css` lives in `priv/static/assets/`, which is gitignored. Let me check how it is tracked.",
			[]string{"The CSS isn't built via esbuild — `app.css` lives in `priv/static/assets/`, which is gitignored."}, extract.ClassState},
		{"The issue is clear — the worker process can't access the SQL sandbox of the test process. I need to use shared mode.",
			[]string{"The worker process can't access the SQL sandbox of the test process."}, extract.ClassFailure},
		{"The generated migration uses `ALTER TABLE ... modify`, which SQLite doesn't support for nullability changes. I need to rewrite it.",
			[]string{"The generated migration uses `ALTER TABLE ... modify`, which SQLite doesn't support for nullability changes."}, extract.ClassFailure},
		// Narration, progress, tracker chatter, the speaker's own doing,
		// hedges and a finding not acted on (no plan follows) make nothing.
		{"Let me look at the fixture and the parser to see what is going on here.", nil, ""},
		{"Progress. 10 of 12 tests pass now. Let me look at the other two.", nil, ""},
		{"Task spotter-fum.4 is ready (dependency spotter-fum.1 is closed). Let me claim it.", nil, ""},
		{"I added the `session_cwd` option to `render/2` for relative paths. Let me run the tests.", nil, ""},
		{"The fixture probably holds no `agent_id` field at all. Let me check.", nil, ""},
		{"The `TranscriptRenderer` alias was removed with the old alias group. Let me run credo.", nil, ""},
		{"The config in `config/test.exs` keeps the pool size at 10 for the repository.", nil, ""},
	}
	for _, c := range cases {
		got := extract.Extract(notesDraft(c.text))
		var titles []string
		for _, g := range got {
			titles = append(titles, g.Title)
			if c.class != "" && g.Class != c.class {
				t.Errorf("%q: class %s, want %s", c.text, g.Class, c.class)
			}
			if !g.Sure {
				t.Errorf("%q: a finding kept is sure", c.text)
			}
		}
		if len(titles) != len(c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, titles, c.want)
			continue
		}
		for i := range titles {
			if titles[i] != c.want[i] {
				t.Errorf("%q:\n got %q\nwant %q", c.text, titles[i], c.want[i])
			}
		}
	}
}

// The same sentence in a person's capture is read by the ordinary rules:
// the notes' gate is for an agent's working notes only.
func TestNotesGateOnlyForNotes(t *testing.T) {
	d := notesDraft("")
	d.Text = "The config in `config/test.exs` keeps the pool size at 10 for the repository."
	if got := extract.Extract(d); len(got) != 1 {
		t.Fatalf("an agent's final answer keeps its state: %+v", got)
	}
}

// A person's prompt in a session tells the agent what happened for the
// task at hand; how things are stays a memory.
func TestPromptNewsIsNoState(t *testing.T) {
	prompt := func(text string) memory.Draft {
		d := notesDraft("")
		d.Actor, d.Source.Actor, d.Text = memory.ActorUser, memory.ActorUser, text
		return d
	}
	if got := extract.Extract(prompt("new beads for the epic were added. tackle them")); len(got) != 0 {
		t.Errorf("news in a prompt became %+v", got)
	}
	if got := extract.Extract(prompt("main was clean before your change; fix the dialyzer errors")); len(got) != 0 {
		t.Errorf("news in a prompt became %+v", got)
	}
	if got := extract.Extract(prompt("The staging database runs Postgres 16 on db-2.")); len(got) != 1 || got[0].Class != extract.ClassState {
		t.Errorf("a state in a prompt: %+v", got)
	}
}

// A request for work in a prompt is no memory, whatever its verb (the real
// Claude Code's SessionEnd stored "retry the payments api call" as a fact).
func TestPromptRequestIsNoMemory(t *testing.T) {
	d := notesDraft("")
	d.Actor, d.Source.Actor, d.Text = memory.ActorUser, memory.ActorUser, "retry the payments api call"
	if got := extract.Extract(d); len(got) != 0 {
		t.Errorf("a request became %+v", got)
	}
}

// A finding takes the sentences that explain it, up to the agent's plan:
// one finding, one memory, with its cause.
func TestNoteFindingKeepsItsExplanation(t *testing.T) {
	got := extract.Extract(notesDraft("`load_session_messages` doesn't include `agent_id` in the map. " +
		"The sub-agent detection falls back to text pattern matching. The `agent_id` field is lost in the mapping. " +
		"Let me adjust the tests to what works."))
	if len(got) != 1 {
		t.Fatalf("%d memories from one finding: %q", len(got), titles(got))
	}
	if !strings.HasPrefix(got[0].Body, "`load_session_messages` doesn't include") || !strings.Contains(got[0].Body, "falls back to text pattern matching") ||
		!strings.HasSuffix(got[0].Body, "lost in the mapping.") || strings.Contains(got[0].Body, "Let me") {
		t.Errorf("body: %q", got[0].Body)
	}
}

// A step of the plan at hand, labelled, is no finding; a reply of a few
// words in a prompt is no statement.
func TestPlanStepsAndFragmentsAreNoMemories(t *testing.T) {
	if got := extract.Extract(notesDraft("**Fix 2**: Remove the broken dead code in `train.py` validate, which never runs. Let me do it.")); len(got) != 0 {
		t.Errorf("a plan step became %q", titles(got))
	}
	d := notesDraft("")
	d.Actor, d.Source.Actor, d.Text = memory.ActorUser, memory.ActorUser, "only 5 seconds"
	if got := extract.Extract(d); len(got) != 0 {
		t.Errorf("a reply fragment became %q", titles(got))
	}
}
