package consolidate

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"cairn/consolidate/extract"
	"cairn/consolidate/update"
	"cairn/memory"
)

// updatePair is one line of an updates set: an old fact and a newer
// sentence that either updates it or is consistent with it.
type updatePair struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // "update" or "consistent"
	Old  string `json:"old"`
	New  string `json:"new"`
}

func readUpdatePairs(t *testing.T, file string) []updatePair {
	t.Helper()
	return readPairs(t, file, func(p updatePair) string {
		if p.Kind != "update" && p.Kind != "consistent" || p.Old == "" || p.New == "" {
			return "want kind update|consistent and old and new"
		}
		return ""
	})
}

// updateOutcome runs one pair through the real pass: the old fact stored as
// an agent's active memory, the new one captured by the person, then
// Consolidate. It reports whether the old one was superseded, or a
// supersession of it proposed (with the proposal's reason).
func updateOutcome(t *testing.T, p updatePair, l *LLM) (superseded, proposed bool, reason string) {
	t.Helper()
	st := openStore(t)
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: p.Old, Provenance: memory.ProvExtracted}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, p.New)
	if _, err := Consolidate(ctx, st, testProject, Options{LLM: l}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := st.Proposals(ctx, testProject.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range ps {
		if pr.Kind == memory.ProposeSupersede && pr.Target == old.ID {
			proposed, reason = true, pr.Reason
		}
	}
	return got.Status == memory.StatusSuperseded, proposed, reason
}

// TestUpdatesSet measures how many updates a pass catches (superseded or
// proposed) and how many consistent pairs it wrongly supersedes or
// proposes, on the dev set or on the file CAIRN_UPDATES_FILE names. Only
// what must always hold is asserted: no consistent pair is ever superseded
// on its own. The figures are printed (go test -run TestUpdatesSet -v).
func TestUpdatesSet(t *testing.T) {
	t.Parallel()
	file := os.Getenv("CAIRN_UPDATES_FILE")
	if file == "" {
		file = "testdata/updates-dev.jsonl"
	}
	pairs := readUpdatePairs(t, file)
	// With CAIRN_LLM_URL and CAIRN_LLM_MODEL set, each pass asks that
	// model too, as a user's configured one is asked (the settings file
	// is a temporary one: a developer's own is never read).
	home := t.TempDir()
	l, err := LLMFromEnv(func(k string) string {
		if k == "CAIRN_HOME" {
			return home
		}
		if strings.HasPrefix(k, "CAIRN_LLM_") {
			return os.Getenv(k)
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if l != nil {
		t.Logf("asking %s at %s", l.Model, l.URL)
	}
	var updates, consistent, superseded, proposed, falseSup, falseProp int
	for _, p := range pairs {
		sup, prop, why := updateOutcome(t, p, l)
		switch p.Kind {
		case "update":
			updates++
			switch {
			case sup:
				superseded++
			case prop:
				proposed++
			default:
				t.Logf("missed %s: %q → %q", p.ID, p.Old, p.New)
			}
		case "consistent":
			consistent++
			if sup {
				falseSup++
				t.Errorf("%s: a consistent pair was superseded: %q → %q", p.ID, p.Old, p.New)
			} else if prop {
				falseProp++
				t.Logf("false proposal %s: %q → %q (%s)", p.ID, p.Old, p.New, why)
			}
		}
	}
	t.Logf("%s: updates caught %d/%d (superseded %d, proposed %d); consistent pairs: false automatic supersessions %d/%d, false proposals %d/%d",
		file, superseded+proposed, updates, superseded, proposed, falseSup, consistent, falseProp, consistent)
}

// Different packages, tasks and environments never chain, whatever the
// shape of their sentences (found on real sessions: six packages' version
// constraints folded into one chain, one task superseded by another).
func TestOtherThingsNeverContradict(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{
		{"The `rails` gem is pinned to `~> 0.3`.", "The `sidekiq` gem is pinned to `~> 1.10`."},
		{"Added `{:req, \"~> 0.3\"}` to mix.exs.", "Added `{:finch, \"~> 1.10\"}` to mix.exs."},
		{"The dependency is `{:req, \"~> 0.3\"}`.", "The dependency is `{:finch, \"~> 1.10\"}`."},
		{"The version constraint is \"~> 0.3\".", "The version constraint is \"~> 1.10\"."},
		{"Run `bd update spotter-fum.1` to claim the task.", "Run `bd update spotter-fum.2` to claim the task."},
		{"Task spotter-fum.1 is blocked on the schema.", "Task spotter-fum.2 is blocked on the API."},
		{"Created `scripts/seed.sh` to fill the database.", "Created `scripts/reset.sh` to fill the database."},
		{"The helper script is scripts/seed.sh.", "The helper script is scripts/reset.sh."},
		{"Wrote the migration in priv/repo/migrations/001_users.exs.", "Wrote the migration in priv/repo/migrations/002_posts.exs."},
		{"The staging database lives in us-east-1.", "The production database lives in eu-west-1."},
	} {
		o := &memory.Memory{Layer: memory.LayerState, Body: p[0], Provenance: memory.ProvExtracted}
		n := &memory.Memory{Layer: memory.LayerState, Body: p[1], Provenance: memory.ProvUserStated}
		if c, ok := Contradicts(o, n); ok {
			t.Errorf("%q → %q read as a contradiction: %+v", p[0], p[1], c)
		}
		if s, c := update.Of(p[0], p[1]); s != update.None {
			t.Errorf("%q → %q read as an update (%d): %+v", p[0], p[1], s, c)
		}
	}
	// The same package, task or file with another value is one subject.
	for _, p := range [][2]string{
		{"The `rails` gem is pinned to `~> 7.0`.", "Bumped the `rails` gem pin to `~> 7.1`."},
		{"The config file is at config/app.yaml.", "The config file moved to etc/cairn/app.yaml."},
	} {
		if s, c := update.Of(p[0], p[1]); s == update.None {
			t.Errorf("%q → %q not read as an update: %+v", p[0], p[1], c)
		}
	}
	o := &memory.Memory{Layer: memory.LayerState, Body: "The dependency is `{:req, \"~> 0.3\"}`.", Provenance: memory.ProvExtracted}
	n := &memory.Memory{Layer: memory.LayerState, Body: "The dependency is `{:req, \"~> 0.4\"}`.", Provenance: memory.ProvExtracted}
	if _, ok := Contradicts(o, n); !ok {
		t.Errorf("req ~> 0.3 → ~> 0.4 is no contradiction")
	}
}

// A correction of a claim never stored ("no, the port is 8081, not 8080")
// teaches a lesson that names the subject and both values, and fires on
// the subject, not on "not".
func TestCorrectionLessonReadsSensibly(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	capture(t, st, memory.ActorUser, "no, the port is 8081, not 8080")
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := st.List(ctx, memory.Query{Project: testProject.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	lessons := 0
	for _, m := range page.Memories {
		if m.Kind != memory.KindLesson {
			continue
		}
		lessons++
		if !strings.Contains(m.Title, "8080 was wrong, 8081 is right") || strings.Contains(m.Title, "not 8080") {
			t.Errorf("lesson title %q", m.Title)
		}
		if len(m.Triggers) == 0 {
			t.Errorf("lesson %q has no trigger", m.Title)
		}
		for _, tr := range m.Triggers {
			if tr == "not" || !strings.Contains(tr, "port") {
				t.Errorf("lesson %q fires on %q", m.Title, tr)
			}
		}
	}
	if lessons != 1 {
		t.Fatalf("%d lessons, want 1", lessons)
	}
}

// An update in other words supersedes with its history (the new memory
// names what it supersedes, the old one its successor) and the run's undo
// puts the old one back; one only likely is a proposal that names old →
// new and changes no memory.
func TestUpdateInOtherWordsSupersedesWithUndo(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The web app deploys to Heroku.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, "We migrated the web app off Heroku; it now deploys to Fly.io.")
	rep, err := Consolidate(ctx, st, testProject, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != memory.StatusSuperseded || got.SupersededBy == "" {
		t.Fatalf("old: status %s, superseded by %q", got.Status, got.SupersededBy)
	}
	succ, err := st.Get(ctx, got.SupersededBy)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(succ.Supersedes, old.ID) || !strings.Contains(succ.Body, "Fly.io") || succ.Kind == memory.KindEvent {
		t.Fatalf("successor %+v", succ)
	}
	if _, err := st.UndoRun(ctx, testProject.ID, rep.Run.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, old.ID); got.Status != memory.StatusActive {
		t.Fatalf("after undo the old memory is %s", got.Status)
	}

	// A narrower subject ("for avatars") is another fact: nothing
	// superseded, nothing proposed, the new one kept beside the old.
	st = openStore(t)
	old = remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "Max upload size is 50 MB.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, "Bumped the max upload size for avatars to 5 MB.")
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, old.ID); got.Status != memory.StatusActive {
		t.Fatalf("a narrower subject superseded the old memory: %s", got.Status)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(ps, func(p memory.Proposal) bool { return p.Target == old.ID }) {
		t.Fatalf("a narrower subject was proposed as an update: %+v", ps)
	}
	active, err := st.List(ctx, memory.Query{Project: testProject.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(active.Memories, func(m *memory.Memory) bool { return strings.Contains(m.Body, "avatars") }) {
		t.Fatalf("the narrower fact was not kept: %d active", len(active.Memories))
	}
}

// What an agent said in its session is never read as a certain update:
// it is proposed, and the stored fact stays until a person accepts.
func TestAgentTranscriptNeverSupersedesByRewording(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The web app deploys to Heroku.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if _, err := st.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.ActorAgent, Text: "Deploys of the web app go to Fly.io now, not Heroku.",
		Source: memory.Source{Session: "s-1", File: "transcript.jsonl", Line: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, old.ID); got.Status != memory.StatusActive {
		t.Fatalf("an agent's session superseded a stored fact: %s", got.Status)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Kind != memory.ProposeSupersede || ps[0].Target != old.ID {
		t.Fatalf("proposals %+v, want one to supersede the stored fact", ps)
	}
}

// A statement extraction makes nothing of ("metrics exporter port: 9200")
// is still read for what it updates: a proposal old → new with the
// statement as the proposed memory's text, the stored fact untouched. A
// question, a request for work or a statement holding a credential is
// never read so.
func TestSkippedStatementProposesNeverSupersedes(t *testing.T) {
	t.Parallel()
	const note = "metrics exporter port: 9200"
	if cs := extract.Extract(memory.Draft{Actor: memory.ActorUser, Text: note}); len(cs) != 0 {
		t.Fatalf("extraction made %d candidates of %q; this test wants one it skips", len(cs), note)
	}
	for _, tc := range []struct {
		text    string
		propose bool
	}{
		{note, true},
		{"We scaled the metrics exporter to port 9200? not sure", false},
		{"is the metrics exporter port 9200", false},
		{"Please move the metrics exporter to port 9200.", false},
	} {
		st := openStore(t)
		old := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: "The metrics exporter listens on port 9100.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
		capture(t, st, memory.ActorUser, tc.text)
		if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Get(ctx, old.ID); got.Status != memory.StatusActive {
			t.Fatalf("%q: the stored fact is %s, want active", tc.text, got.Status)
		}
		ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
		if err != nil {
			t.Fatal(err)
		}
		var sup []memory.Proposal
		for _, p := range ps {
			if p.Kind == memory.ProposeSupersede && p.Target == old.ID {
				sup = append(sup, p)
			}
		}
		if !tc.propose {
			if len(sup) != 0 {
				t.Errorf("%q: proposed %+v", tc.text, sup)
			}
			continue
		}
		if len(sup) != 1 || sup[0].Memory == nil || sup[0].Memory.Body != note || !strings.Contains(sup[0].Reason, "9100 → 9200") {
			t.Fatalf("%q: proposals %+v, want one to supersede with the note, 9100 → 9200", tc.text, ps)
		}
	}
	// A line holding a credential is never read, whatever it updates.
	d := memory.Draft{Actor: memory.ActorUser, Text: "metrics exporter port: 9200 with token ghp_" + strings.Repeat("a1B2", 9) + "\nredis maxmemory = 4gb"}
	if got := extract.Skipped(d, nil); !slices.Equal(got, []string{"redis maxmemory = 4gb"}) {
		t.Errorf("skipped statements %q, want only the line without the credential", got)
	}
}

// Terse notes, "set to" and past actions naming the new value give it a
// type and a subject; the same subject said otherwise (how long a token
// lasts: "valid for", "lifetime:") is one subject, but another token,
// environment, package or setting never is.
func TestUpdateReadsTerseNotesAndOtherWords(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{
		{"The metrics exporter listens on port 9100.", "metrics exporter port: 9200"},
		{"Staging runs with log level DEBUG.", "staging log level set to INFO"},
		{"Refresh tokens are valid for 30 days before they expire.", "refresh token lifetime: 14d"},
		{"The payments chart is at version 2.3.1.", "I've bumped the payments chart to 2.4.0 and deployed it."},
		{"The database connection pool holds 20 connections.", "database connection pool size: 40"},
		{"The search service runs 3 replicas.", "We scaled the search service to 5 replicas last night."},
	} {
		if s, c := update.Of(p[0], p[1]); s == update.None {
			t.Errorf("%q → %q not read as an update: %+v", p[0], p[1], c)
		}
	}
	for _, p := range [][2]string{
		{"Refresh tokens are valid for 30 days before they expire.", "access token lifetime: 15m"},
		{"Staging runs with log level DEBUG.", "prod log level set to WARN"},
		{"The payments chart is at version 2.3.1.", "I've bumped the billing chart to 1.4.0 and deployed it."},
		{"Access logs are kept for 14 days.", "audit log retention: 365 days"},
		{"The metrics exporter listens on port 9100.", "metrics exporter scrape interval: 15s"},
		{"The kafka cluster has 3 brokers.", "We scaled kafka connect to 4 workers yesterday."},
	} {
		if s, c := update.Of(p[0], p[1]); s != update.None {
			t.Errorf("%q → %q read as an update (%d): %+v", p[0], p[1], s, c)
		}
	}
}

// A correction captured before the fact it corrects was stored ("now 6
// machines, not 4" said, then "has 4 machines" remembered) supersedes
// nothing — the stored one is the newer — but waits in the inbox, saying
// so, for a person to decide which holds.
func TestCorrectionSaidBeforeTheStoredFact(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	capture(t, st, memory.ActorUser, "the CI runner pool is now 6 machines, not 4")
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: "The CI runner pool has 4 machines.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, old.ID); got.Status != memory.StatusActive {
		t.Fatalf("the stored fact, newer than the draft, is %s", got.Status)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps, func(p memory.Proposal) bool {
		return p.Kind == memory.ProposeSupersede && p.Target == old.ID && strings.Contains(p.Reason, "4 machines → 6 machines") && strings.Contains(p.Reason, "stored after this was said")
	}) {
		t.Fatalf("no proposal says the draft may update the later fact: %+v", ps)
	}
}

// TestUpdatesSetTogether is the set as a store meets it: every old fact
// stored in one project, every newer text captured after them, one pass.
// A proposal counts as caught only when it names the pair's own old fact;
// one that names another pair's is a false proposal, as is any for a
// consistent pair's text. What must always hold is asserted: no
// consistent pair's fact is superseded on its own. The figures are
// printed.
func TestUpdatesSetTogether(t *testing.T) {
	t.Parallel()
	file := os.Getenv("CAIRN_UPDATES_FILE")
	if file == "" {
		file = "testdata/updates-dev.jsonl"
	}
	pairs := readUpdatePairs(t, file)
	st := openStore(t)
	oldOf := map[string]string{}  // pair id → its old memory
	pairOf := map[string]string{} // draft id → pair id
	for _, p := range pairs {
		m := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: p.Old, Provenance: memory.ProvExtracted}, memory.ActorAgent)
		oldOf[p.ID] = m.ID
	}
	for _, p := range pairs {
		pairOf[capture(t, st, memory.ActorUser, p.New).ID] = p.ID
	}
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	kind := map[string]string{}
	for _, p := range pairs {
		kind[p.ID] = p.Kind
	}
	caught := map[string]bool{}
	wrongTarget, forConsistent, consistentOwn := 0, 0, 0
	ps, err := st.Proposals(ctx, testProject.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	textOf := map[string]string{} // old memory → its text
	newOf := map[string]string{}  // pair id → its newer text
	for _, p := range pairs {
		textOf[oldOf[p.ID]] = p.Old
		newOf[p.ID] = p.New
	}
	// What names another pair's fact may be right (a set's pairs are not
	// written to be apart from each other): CAIRN_UPDATES_JUDGE names a
	// file to write those proposals to, for a person to judge.
	var toJudge []map[string]string
	for _, pr := range ps {
		if pr.Kind != memory.ProposeSupersede {
			continue
		}
		id, ok := pairOf[pr.Draft]
		if !ok {
			continue // between stored facts, not from a draft
		}
		switch {
		case kind[id] == "consistent":
			forConsistent++
			if pr.Target == oldOf[id] {
				consistentOwn++
			}
			t.Logf("proposal for consistent %s: %s", id, pr.Reason)
		case pr.Target == oldOf[id]:
			caught[id] = true
		default:
			wrongTarget++
			t.Logf("wrong target for %s: %s", id, pr.Reason)
		}
		if pr.Target != oldOf[id] {
			toJudge = append(toJudge, map[string]string{"pair": id, "stored": textOf[pr.Target], "new": newOf[id]})
		}
	}
	if f := os.Getenv("CAIRN_UPDATES_JUDGE"); f != "" {
		var b strings.Builder
		for _, j := range toJudge {
			line, _ := json.Marshal(j)
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A set may give an update pair and a consistent pair the same old
	// fact: stored once, the update's supersession of it is right.
	updatedToo := map[string]bool{}
	for _, p := range pairs {
		if p.Kind == "update" {
			updatedToo[oldOf[p.ID]] = true
		}
	}
	superseded := 0
	for _, p := range pairs {
		got, err := st.Get(ctx, oldOf[p.ID])
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != memory.StatusSuperseded {
			continue
		}
		// Among many, as alone: a consistent pair's fact is never
		// superseded on its own.
		if p.Kind == "consistent" {
			by, err := st.Get(ctx, got.SupersededBy)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case updatedToo[oldOf[p.ID]]:
			case strings.Contains(p.New, strings.TrimSuffix(strings.TrimSpace(by.Body), ".")):
				t.Errorf("%s: a consistent pair's fact was superseded by its own newer text among the others: %q by %q", p.ID, p.Old, by.Body)
			default:
				// Another pair's newer text about the same thing: the
				// set's pairs are not written to be apart from each other.
				t.Logf("%s: %q superseded by another pair's text %q", p.ID, p.Old, by.Body)
			}
		} else if !caught[p.ID] {
			superseded++
			caught[p.ID] = true
		}
	}
	if os.Getenv("CAIRN_UPDATES_MISSES") != "" {
		for _, p := range pairs {
			if p.Kind == "update" && !caught[p.ID] {
				t.Logf("missed %s: %q → %q", p.ID, p.Old, p.New)
			}
		}
	}
	updates, consistent := 0, 0
	for _, p := range pairs {
		if p.Kind == "update" {
			updates++
		} else {
			consistent++
		}
	}
	t.Logf("%s, together: updates caught %d/%d (superseded %d); proposals naming another pair's fact %d; proposals from consistent texts %d/%d (%d naming the pair's own fact)",
		file, len(caught), updates, superseded, wrongTarget, forConsistent, consistent, consistentOwn)
}

// An update read in one sentence of a person's short note proposes the
// whole note: accepting it keeps what the note says of the new value, and
// the proposal names that value.
func TestShortNoteProposedWhole(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: "Structured logs are shipped to Elasticsearch via Filebeat.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	const note = "logging: fluent-bit → Loki. Filebeat daemonset removed in #2291"
	capture(t, st, memory.ActorUser, note)
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p memory.Proposal) bool { return p.Kind == memory.ProposeSupersede && p.Target == old.ID })
	if i < 0 {
		t.Fatalf("no supersession proposed: %+v", ps)
	}
	if p := ps[i]; p.Memory == nil || p.Memory.Body != note || !strings.Contains(p.Reason, "Elasticsearch → Loki") {
		t.Fatalf("proposal %q with memory %+v", p.Reason, p.Memory)
	}
}

// When a newer text surely updates two stored facts, which one it updates
// is not sure: nothing is superseded on its own, a proposal waits.
func TestTwoSureReadingsOnlyPropose(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	a := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: "The maximum upload size is 10 MB.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	b := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: "The general file upload limit is 50 MB.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, "Uploads can be up to 25MB now.")
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*memory.Memory{a, b} {
		if got, _ := st.Get(ctx, m.ID); got.Status != memory.StatusActive {
			t.Errorf("%q is %s", m.Body, got.Status)
		}
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps, func(p memory.Proposal) bool {
		return p.Kind == memory.ProposeSupersede && (p.Target == a.ID || p.Target == b.ID)
	}) {
		t.Errorf("no supersession proposed: %+v", ps)
	}
}

// Among a store's facts, a text is proposed as an update of the fact it
// is about, not of another that shares a word with it and comes first
// among its candidates: "Friday deploy freeze is retired" updates that
// production deploys are frozen on Fridays, not where deploy notifications
// go; "Renamed ~/.toolrc … The old path isn't read anymore" where the CLI
// reads its settings, not that the API is versioned "in the URL path"
// (the subject gate, update/gate.go).
func TestAnUpdateOfOneFactProposesNoOther(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	facts := map[string]string{}
	for _, body := range []string{
		"Deploy notifications go to the #deploys Slack channel.",
		"Production deploys are frozen on Fridays.",
		"The API is versioned in the URL path, e.g. /v1/orders.",
		"The CLI reads its settings from ~/.toolrc.",
		"Session tokens expire after 24 hours.",
		"Errors are tracked with Sentry.",
	} {
		facts[remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: body, Provenance: memory.ProvExtracted}, memory.ActorAgent).ID] = body
	}
	want := map[string]string{ // draft → the fact it updates
		capture(t, st, memory.ActorUser, "Friday deploy freeze is retired — we have canaries and auto-rollback now, so ship whenever.").ID: "Production deploys are frozen on Fridays.",
		capture(t, st, memory.ActorUser, "Renamed ~/.toolrc to ~/.config/tool/config.toml (XDG). The old path isn't read anymore.").ID:     "The CLI reads its settings from ~/.toolrc.",
	}
	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	ps, err := st.Proposals(ctx, testProject.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	proposed := map[string]bool{}
	for _, p := range ps {
		if p.Kind != memory.ProposeSupersede {
			continue
		}
		if facts[p.Target] != want[p.Draft] {
			t.Errorf("proposed as an update of %q: %s", facts[p.Target], p.Reason)
		}
		proposed[facts[p.Target]] = true
	}
	for id, body := range facts {
		got, _ := st.Get(ctx, id)
		updated := proposed[body] || got.Status == memory.StatusSuperseded
		if wanted := slices.Contains(slices.Collect(maps.Values(want)), body); updated != wanted {
			t.Errorf("%q: updated %v, want %v", body, updated, wanted)
		}
	}
}
