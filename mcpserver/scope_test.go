package mcpserver

import (
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// seed stores a memory with a chosen id in project, as a person would
// have written it.
func seed(t *testing.T, db *store.DB, project, id, text string) {
	t.Helper()
	m := &memory.Memory{ID: id, Project: project, Body: text, Layer: memory.LayerState, Provenance: memory.ProvUserStated}
	if _, err := db.Remember(ctx, m, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, db *store.DB, id string) memory.Status {
	t.Helper()
	m, err := db.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m.Status
}

// An agent pinned to one project archives only that project's memories:
// another project's memory is absent to it (not archived, its text never
// echoed), a global one is refused, and an id prefix is resolved only
// among the memories it can see, so another project's ids never show up
// in an ambiguity error.
func TestArchiveStaysInItsProject(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	other, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	const (
		a1 = "01J0000000AAAA000000000001" // shares its prefix with b1
		b1 = "01J0000000AAAA000000000002"
		b2 = "01J0000000BBBB000000000005" // the only match of its prefix
		g1 = "01J0000000GGGG000000000003"
		b3 = "01J0000000CCCC000000000006" // sorts before a4 and a5
		a4 = "01J0000000CCCC000000000007"
		a5 = "01J0000000CCCC000000000008"
	)
	seed(t, db, p.ID, a1, "ours: the decode kernel runs at 128 VGPRs")
	seed(t, db, other.ID, b1, "theirs: the billing database password rotates on Mondays")
	seed(t, db, other.ID, b2, "theirs: payroll runs on the 25th")
	seed(t, db, memory.GlobalID, g1, "global: the user prefers table-driven tests")
	seed(t, db, other.ID, b3, "theirs: staging lives in eu-west")
	seed(t, db, p.ID, a4, "ours: the cache is warmed at start")
	seed(t, db, p.ID, a5, "ours: the cache holds 4096 entries")

	refused := []struct {
		name, id, want string
		mustNotSay     []string
		untouched      string
	}{
		{"another project's memory by full id", b1, "no memory " + b1 + " in this project", []string{"billing", "password"}, b1},
		{"another project's memory by prefix", b2[:24], "in this project", []string{b2, "payroll"}, b2},
		{"a global memory", g1, "global", nil, g1},
		{"a prefix ambiguous in this project", "01J0000000CCCC", "ambiguous", []string{b3, "eu-west"}, a4},
		{"not an id", "01J0\x1b]0;x", "not a memory id", nil, ""},
		{"too short", "01J", "too short", nil, ""},
	}
	for _, c := range refused {
		failed, text := call(t, cs, "archive", map[string]any{"id": c.id, "reason": "no longer true"}, nil)
		if !failed || !strings.Contains(text, c.want) {
			t.Errorf("%s: failed=%v %q, want an error saying %q", c.name, failed, text, c.want)
		}
		for _, s := range c.mustNotSay {
			if strings.Contains(text, s) {
				t.Errorf("%s: the error shows %q from outside the project: %q", c.name, s, text)
			}
		}
		if c.untouched != "" && status(t, db, c.untouched) != memory.StatusActive {
			t.Errorf("%s: %s was archived", c.name, c.untouched)
		}
	}
	// A prefix shared with another project's memory is still unique here.
	var got Item
	if failed, text := call(t, cs, "archive", map[string]any{"id": strings.ToLower(a1[:14]), "reason": "kernel rewritten"}, &got); failed {
		t.Fatalf("archive by a prefix unique in the project: %s", text)
	}
	if got.ID != a1 || status(t, db, a1) != memory.StatusArchived || status(t, db, b1) != memory.StatusActive {
		t.Fatalf("archived %s; a1 %s, b1 %s", got.ID, status(t, db, a1), status(t, db, b1))
	}
	evs, err := db.Timeline(ctx, other.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Kind == memory.EventArchive {
			t.Fatalf("the other project's timeline has an archive: %+v", e)
		}
	}

	// Reading stays as recall defines it: this project plus global.
	var r RecallOut
	if failed, text := call(t, cs, "recall", map[string]any{"query": "table-driven tests payroll billing password staging"}, &r); failed {
		t.Fatal(text)
	}
	for _, it := range append(r.Results, r.VerifyFirst...) {
		if it.ID == b1 || it.ID == b2 || it.ID == b3 {
			t.Errorf("recall served another project's memory %s", it.ID)
		}
	}
	if len(r.Results) == 0 || r.Results[0].ID != g1 {
		t.Errorf("recall did not serve the global memory: %+v", r.Results)
	}
}

// user-stated and user-corrected are a person's word: an agent claiming
// them is refused and nothing is stored; what it stores carries the agent
// as its actor.
func TestAgentsCannotClaimUserProvenance(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	for _, prov := range []string{"user-stated", "user", "stated", "user-corrected", "corrected", "USER-STATED"} {
		failed, text := call(t, cs, "remember", map[string]any{"text": "the user wants tabs", "provenance": prov}, nil)
		if !failed || !strings.Contains(text, "is for what a person writes") || !strings.Contains(text, "observed") {
			t.Errorf("provenance %q: failed=%v %q", prov, failed, text)
		}
	}
	if page, _ := db.List(ctx, memory.Query{Project: p.ID, Status: memory.StatusAny}); len(page.Memories) != 0 {
		t.Fatalf("refused calls stored %d memories", len(page.Memories))
	}
	var m Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "the decode bench gives +31 %", "provenance": "measured"}, &m); failed {
		t.Fatal(text)
	}
	stored, err := db.Get(ctx, m.ID)
	if err != nil || stored.Provenance != memory.ProvMeasured || stored.Source.Actor != memory.ActorAgent {
		t.Fatalf("stored %+v %v", stored, err)
	}
	evs, _ := db.Timeline(ctx, p.ID, 1)
	if evs[0].Actor != memory.ActorAgent {
		t.Fatalf("remember event by %s", evs[0].Actor)
	}
}

// What an agent sends goes through the checks a person's CLI input goes
// through: short fields that would act on a terminal are refused, and
// nothing is stored.
func TestToolInputIsChecked(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	const kept = "01J0000000KEEP000000000001"
	seed(t, db, p.ID, kept, "the decode kernel runs at 128 VGPRs")
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"archive", map[string]any{"id": kept, "reason": "stale\x1b[1A\x1b[2K"}, "reason"},
		{"remember", map[string]any{"text": "x", "title": "ok\x1b]0;pwned\x07"}, "title"},
		{"remember", map[string]any{"text": "x", "tags": []string{"fine", "a\x1b[2Jb"}}, "tag"},
		{"remember", map[string]any{"text": "x", "layer": "negative", "triggers": []string{"\u202eevil"}}, "trigger"},
		{"remember", map[string]any{"text": "x", "title": "two\nlines"}, "one line"},
		{"capture", map[string]any{"text": "raw notes", "source": "sess\x1b]8;;http://x\x07"}, "source"},
		{"capture", map[string]any{"text": "raw notes", "source": strings.Repeat("s", 300)}, "source"},
		{"capture", map[string]any{"text": "raw notes", "source": "token ghp_" + "Abcdefghijklmnopqrstuvwxyz0123456789"}, "GitHub"},
	}
	for _, c := range cases {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.Contains(text, c.want) {
			t.Errorf("%s %q: failed=%v %q, want an error about %q", c.tool, c.args, failed, text, c.want)
		}
		if strings.ContainsAny(text, "\x1b\u202e") {
			t.Errorf("%s: the error echoes a control character: %q", c.tool, text)
		}
	}
	if page, _ := db.List(ctx, memory.Query{Project: p.ID, Status: memory.StatusAny}); len(page.Memories) != 1 || page.Memories[0].Status != memory.StatusActive {
		t.Fatalf("refused calls changed the store: %d memories", len(page.Memories))
	}
	if ds, _ := db.Drafts(ctx, p.ID, 0); len(ds) != 0 {
		t.Fatalf("refused captures stored %d drafts", len(ds))
	}
}
