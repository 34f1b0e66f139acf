package consolidate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

var ctx = context.Background()

// testProject is the project every test here works in.
var testProject = memory.Project{ID: "00000000000000c0", Name: "consolidate-test"}

func openStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(ctx, testProject); err != nil {
		t.Fatal(err)
	}
	return db
}

func capture(t testing.TB, st memory.Store, by memory.Actor, text string) memory.Draft {
	t.Helper()
	d, err := st.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: by, Text: text, Source: memory.Source{Session: "morning"}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func remember(t testing.TB, st memory.Store, m memory.Memory, by memory.Actor) *memory.Memory {
	t.Helper()
	m.Project = testProject.ID
	out, err := st.Remember(ctx, &m, by)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshot is everything a run may change, as JSON, for comparing a store
// before and after: every memory of every status with its edges, the
// drafts and the proposals. Salience is left out (reading is no change).
func snapshot(t testing.TB, st memory.Store) string {
	t.Helper()
	var b strings.Builder
	q := memory.Query{Project: testProject.ID, Status: memory.StatusAny, Limit: 1000}
	var ms []*memory.Memory
	for {
		page, err := st.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, page.Memories...)
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	slices.SortFunc(ms, func(a, b *memory.Memory) int { return strings.Compare(a.ID, b.ID) })
	for _, m := range ms {
		c := m.Clone()
		c.Salience = memory.Salience{}
		out, in, err := st.Edges(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(struct {
			M       *memory.Memory
			Out, In []memory.Edge
		}{c, out, in})
		b.Write(j)
		b.WriteByte('\n')
	}
	ds, err := st.Drafts(ctx, testProject.ID, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(ds)
	b.Write(j)
	ps, err := st.Proposals(ctx, testProject.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	j, _ = json.Marshal(ps)
	b.Write(j)
	return b.String()
}

// find is the one memory of the project, outside the lessons of F (which
// quote what they are about), whose title or body holds s, in status.
func find(t testing.TB, st memory.Store, s string, status memory.Status) *memory.Memory {
	t.Helper()
	page, err := st.List(ctx, memory.Query{Project: testProject.ID, Status: status, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var hits []*memory.Memory
	for _, m := range page.Memories {
		if m.Layer != memory.LayerMeta && strings.Contains(strings.ToLower(m.Text()), strings.ToLower(s)) {
			hits = append(hits, m)
		}
	}
	if len(hits) != 1 {
		var titles []string
		for _, m := range page.Memories {
			titles = append(titles, string(m.Layer)+" "+m.Title)
		}
		t.Fatalf("%d %s memories hold %q; the %s ones are:\n%s", len(hits), status, s, status, strings.Join(titles, "\n"))
	}
	return hits[0]
}

// morning is the "done means": a person captures a morning of
// notes and corrections over a store that already holds an agent's guess
// and a decision with its evidence, and runs one pass.
func morning(t *testing.T) (*store.DB, *memory.Memory, *memory.Memory, *memory.Memory) {
	st := openStore(t)
	argo := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "Deploys go through ArgoCD.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	evidence := remember(t, st, memory.Memory{Layer: memory.LayerEpisode, Kind: memory.KindEvent, Body: "Load test: the token bucket holds 5000 rps.", Provenance: memory.ProvMeasured}, memory.ActorAgent)
	decision := remember(t, st, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision, Body: "Rate limiting uses a token bucket, because the load test showed it holds the traffic."}, memory.ActorUser)
	if err := st.Link(ctx, memory.Edge{From: decision.ID, Kind: memory.EdgeEvidence, To: evidence.ID, Weight: 1, Active: true}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	capture(t, st, memory.ActorUser, "No, actually deploys go through Spinnaker, not ArgoCD.")
	capture(t, st, memory.ActorUser, "ok, thanks")
	capture(t, st, memory.ActorUser, "I prefer table-driven tests for parsers.")
	capture(t, st, memory.ActorUser, "Load test: the token bucket holds 3000 rps.")
	capture(t, st, memory.ActorUser, "let me look at the logs")
	return st, argo, evidence, decision
}

func TestMorningConsolidation(t *testing.T) {
	t.Parallel()
	st, argo, evidence, decision := morning(t)

	before := snapshot(t, st)
	dry, err := Consolidate(ctx, st, testProject, Options{DryRun: true, AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Run.ID != "" || !dry.Changed() {
		t.Fatalf("dry run: id %q, %d changes", dry.Run.ID, len(dry.Run.Changes))
	}
	if after := snapshot(t, st); after != before {
		t.Fatal("a dry run changed the store")
	}

	var stages []string
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser, Progress: func(p Progress) {
		if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
			stages = append(stages, p.Stage)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Run.ID == "" {
		t.Fatal("the run has no id")
	}
	if !slices.Equal(stages, []string{"reading", "extracting", "reconciling", "writing"}) {
		t.Errorf("progress stages: %v", stages)
	}
	if rep.Drafts != 5 {
		t.Errorf("drafts read: %d, want 5", rep.Drafts)
	}
	var lines []string
	for _, c := range rep.Run.Changes {
		lines = append(lines, Describe(c, Lookup(ctx, st)))
	}
	report := strings.Join(lines, "\n")
	t.Logf("report:\n%s\n%s", report, rep.Summary())

	// The agent's guess is history, superseded by the user's correction.
	old, err := st.Get(ctx, argo.ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != memory.StatusSuperseded {
		t.Fatalf("the ArgoCD guess is %s, want superseded", old.Status)
	}
	spin := find(t, st, "through spinnaker, not argocd.", memory.StatusActive)
	if old.SupersededBy != spin.ID || spin.Provenance != memory.ProvUserCorrected {
		t.Errorf("successor %s (%s), want %s user-corrected", old.SupersededBy, spin.Provenance, spin.ID)
	}
	if !strings.Contains(report, "superseded 'Deploys go through ArgoCD.'") {
		t.Errorf("the report does not show the supersession:\n%s", report)
	}
	// A specific lesson in F, linked to what it corrects.
	fs, err := st.List(ctx, memory.Query{Project: testProject.ID, Layer: memory.LayerMeta})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Memories) != 1 {
		t.Fatalf("%d lessons in F, want 1", len(fs.Memories))
	}
	lesson := fs.Memories[0]
	if lesson.Kind != memory.KindLesson || !strings.Contains(lesson.Text(), "ArgoCD") || !strings.Contains(lesson.Text(), "Spinnaker") {
		t.Fatalf("lesson %s %q: not specific", lesson.Kind, lesson.Text())
	}
	out, _, err := st.Edges(ctx, lesson.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(out, func(e memory.Edge) bool { return e.Kind == memory.EdgeLessonOf && e.To == argo.ID }) {
		t.Errorf("the lesson has no lesson_of link to the guess: %+v", out)
	}
	// The measurement superseded the old one, and the decision resting on it is reopened.
	if m, _ := st.Get(ctx, evidence.ID); m.Status != memory.StatusSuperseded {
		t.Errorf("the 5000 rps measurement is %s, want superseded", m.Status)
	}
	d, err := st.Get(ctx, decision.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.ReopenedAt.IsZero() || !strings.Contains(d.Reopened, evidence.ID) {
		t.Fatalf("the decision was not reopened for its evidence: %q", d.Reopened)
	}
	if tr := memory.TrustAt(d, time.Now()); tr >= 0.5 {
		t.Errorf("a reopened decision keeps trust %.2f", tr)
	}
	if !strings.Contains(report, "its evidence 'Load test: the token bucket holds 5000 rps.' was superseded") {
		t.Errorf("the report does not say why the decision was reopened:\n%s", report)
	}
	why := Explain(d.Reopened, Lookup(ctx, st))
	if !strings.Contains(why, "'Load test: the token bucket holds 5000 rps.'") {
		t.Errorf("the reason does not say what changed: %q", why)
	}
	// The preference is a new memory in A; chatter made nothing.
	if p := find(t, st, "table-driven", memory.StatusActive); p.Layer != memory.LayerInvariant {
		t.Errorf("the preference is in layer %s", p.Layer)
	}
	ds, _ := st.Drafts(ctx, testProject.ID, 100)
	if len(memory.Waiting(ds)) != 0 {
		t.Errorf("%d drafts still wait", len(memory.Waiting(ds)))
	}
	for _, c := range rep.Run.Changes {
		if c.Kind == memory.ChangeCreate && (strings.Contains(strings.ToLower(c.Title), "thanks") || strings.Contains(c.Title, "logs")) {
			t.Errorf("chatter became a memory: %q", c.Title)
		}
	}
	evs, _ := st.Timeline(ctx, testProject.ID, 100)
	if !slices.ContainsFunc(evs, func(e memory.Event) bool {
		return e.Kind == memory.EventConsolidate && e.Actor == memory.ActorSystem && strings.Contains(e.Summary, rep.Run.ID)
	}) {
		t.Error("no consolidate event by system naming the run on the timeline")
	}

	// Twice changes nothing.
	again := snapshot(t, st)
	rep2, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Changed() || rep2.Run.ID != "" {
		t.Errorf("the second pass changed %d things: %+v", len(rep2.Run.Changes), rep2.Run.Changes)
	}
	if snapshot(t, st) != again {
		t.Error("the second pass changed the store")
	}

	// Undo takes the whole run back.
	if _, err := Undo(ctx, st, testProject, rep.Run.ID[:10], memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, st); after != before {
		t.Errorf("undo did not restore the store:\nbefore %s\nafter  %s", before, after)
	}
	// And the pass can run again after its undo.
	rep3, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	if rep3.Counts[memory.ChangeSupersede] != rep.Counts[memory.ChangeSupersede] {
		t.Errorf("after the undo a new pass superseded %d, the first %d", rep3.Counts[memory.ChangeSupersede], rep.Counts[memory.ChangeSupersede])
	}
}

// TestDuplicatesFold: the same fact from two drafts and from the store
// becomes one memory, reinforced.
func TestDuplicatesFold(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	known := remember(t, st, memory.Memory{Layer: memory.LayerInvariant, Kind: memory.KindPreference, Body: "The user prefers table-driven tests for parsers."}, memory.ActorUser)
	capture(t, st, memory.ActorUser, "I prefer table-driven tests for parsers.")
	capture(t, st, memory.ActorUser, "We run the integration tests with -race in CI.")
	capture(t, st, memory.ActorUser, "we run the integration tests with -race in CI")
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	race := find(t, st, "integration tests with -race", memory.StatusActive)
	if race.Salience.Reinforcements != 1 {
		t.Errorf("the fact said twice has %d reinforcements, want 1", race.Salience.Reinforcements)
	}
	if rep.Counts[memory.ChangeReinforce] < 1 {
		t.Errorf("the report counts no reinforcement: %v", rep.Counts)
	}
	_ = known
}

// TestLowerRankBecomesProposal: an agent's extraction that contradicts what
// the user stated does not supersede it; a person decides, and accepting
// is a run that can be undone.
func TestLowerRankBecomesProposal(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	user := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The API listens on port 8080."}, memory.ActorUser)
	capture(t, st, memory.ActorAgent, "The API listens on port 9090.")
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := st.Get(ctx, user.ID); m.Status != memory.StatusActive {
		t.Fatalf("the user's fact is %s after an agent's extraction", m.Status)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Kind != memory.ProposeSupersede || ps[0].Target != user.ID {
		t.Fatalf("proposals: %+v (report %v)", ps, rep.Counts)
	}
	if _, err := Accept(ctx, st, testProject, ps[0].ID, nil, memory.ActorAgent); err == nil {
		t.Fatal("an agent accepted a proposal")
	}
	before := snapshot(t, st)
	run, err := Accept(ctx, st, testProject, ps[0].ID[:8], nil, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := st.Get(ctx, user.ID); m.Status != memory.StatusSuperseded {
		t.Fatalf("accepted, the old fact is %s", m.Status)
	}
	if p, _ := st.Proposal(ctx, ps[0].ID); p.State != memory.ProposalAccepted {
		t.Errorf("proposal is %s", p.State)
	}
	if _, err := Undo(ctx, st, testProject, run.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if snapshot(t, st) != before {
		t.Error("undoing the accept did not restore the store")
	}
	if _, err := Reject(ctx, st, testProject, ps[0].ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	rep2, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Changed() {
		t.Errorf("a rejected proposal came back: %+v", rep2.Run.Changes)
	}
}

// TestWeakAndStaleAreProposedForArchive: never deleted, only proposed.
func TestWeakAndStaleAreProposedForArchive(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	m := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The staging cluster runs on three nodes.", Provenance: memory.ProvInferred}, memory.ActorAgent)
	fresh := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The user wants small pull requests."}, memory.ActorUser)
	later := func() time.Time { return time.Now().Add(DefaultStaleAfter + 24*time.Hour) }
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if len(ps) != 1 || ps[0].Kind != memory.ProposeArchive || ps[0].Target != m.ID {
		t.Fatalf("proposals %+v, report %v", ps, rep.Counts)
	}
	if !strings.Contains(ps[0].Reason, "unused since") {
		t.Errorf("reason %q", ps[0].Reason)
	}
	if got, _ := st.Get(ctx, m.ID); got.Status != memory.StatusActive {
		t.Error("a weak memory was archived without a person")
	}
	_ = fresh
}

// TestSecretsNeverReachAMemory: a draft with a credential cannot even be
// captured; a redacted one makes no memory of the redacted statement.
func TestSecretsNeverReachAMemory(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	if _, err := st.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.ActorUser, Text: "The deploy token is ghp_" + strings.Repeat("a1B2", 9)}); err == nil {
		t.Fatal("a draft holding a token was captured")
	}
	capture(t, st, memory.ActorUser, "The staging database password is [REDACTED:password].\nWe deploy on Tuesdays.")
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Run.Changes {
		if strings.Contains(strings.ToLower(c.Title), "password") {
			t.Errorf("a redacted statement became %q", c.Title)
		}
	}
}

// TestForgetTakesTheDraftAlong: a memory consolidation made from a draft
// is forgotten; the draft, which holds the same text, goes with it.
func TestForgetTakesTheDraftAlong(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	d := capture(t, st, memory.ActorUser, "I prefer squash merges for feature branches.")
	other := capture(t, st, memory.ActorUser, "We deploy on Tuesdays.")
	if _, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser}); err != nil {
		t.Fatal(err)
	}
	m := find(t, st, "squash merges", memory.StatusActive)
	if err := st.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	ds, err := st.Drafts(ctx, testProject.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ds {
		if x.ID == d.ID || strings.Contains(x.Text, "squash") {
			t.Fatalf("the draft the forgotten memory came from is still there: %+v", x)
		}
	}
	if len(ds) != 1 || ds[0].ID != other.ID {
		t.Errorf("the other draft went too: %+v", ds)
	}
	evs, _ := st.Timeline(ctx, testProject.ID, 100)
	for _, e := range evs {
		if strings.Contains(e.Summary+e.Title, "squash") {
			t.Errorf("the timeline still quotes it: %+v", e)
		}
	}
}

// TestMovedEvidenceReopensOnce: a decision whose evidence's binding moved
// is reopened; once a person confirms it, the next pass leaves it alone.
func TestMovedEvidenceReopensOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	bound := []memory.Watermark{{Kind: memory.WatermarkFile, Target: "bench/limits.txt", Fingerprint: "sha256:aaaa", State: memory.WatermarkIntact, StampedAt: time.Now()}}
	ev := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The limiter allows 500 requests per second (bench/limits.txt).", Provenance: memory.ProvMeasured, Watermarks: bound}, memory.ActorUser)
	dec := remember(t, st, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision, Body: "We keep the in-process limiter instead of a gateway."}, memory.ActorUser)
	if err := st.Link(ctx, memory.Edge{From: dec.ID, Kind: memory.EdgeEvidence, To: ev.ID, Weight: 1, Active: true}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser}); err != nil || rep.Counts[memory.ChangeReopen] != 0 {
		t.Fatalf("reopened before anything moved: %v %v", rep.Counts, err)
	}
	moved := slices.Clone(bound)
	moved[0].State = memory.WatermarkMoved
	if _, err := st.SetWatermarks(ctx, ev.ID, moved, "content changed", memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := st.Get(ctx, dec.ID)
	if rep.Counts[memory.ChangeReopen] != 1 || !strings.Contains(d.Reopened, "file:bench/limits.txt") {
		t.Fatalf("not reopened for the moved evidence: %v %q", rep.Counts, d.Reopened)
	}
	stamp := []memory.Watermark{{Kind: memory.WatermarkNone, State: memory.WatermarkIntact, StampedAt: time.Now()}}
	if _, err := st.Review(ctx, dec.ID, memory.VerdictConfirm, stamp, "confirmed", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if d, _ := st.Get(ctx, dec.ID); !d.ReopenedAt.IsZero() {
		t.Fatal("a confirm left the decision reopened")
	}
	rep, err = Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[memory.ChangeReopen] != 0 {
		t.Errorf("a confirmed decision was reopened again for the same move: %v", rep.Counts)
	}
}

// TestAgentCaptureNeverSpeaksAsTheUser: an agent's draft that claims the
// user's words cannot supersede what the user stated.
func TestAgentCaptureNeverSpeaksAsTheUser(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	user := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "Deploys go through ArgoCD."}, memory.ActorUser)
	capture(t, st, memory.ActorAgent, "user: No, actually deploys go through Spinnaker, not ArgoCD.\nThe user corrected: the API listens on port 9090.")
	if _, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	if m, _ := st.Get(ctx, user.ID); m.Status != memory.StatusActive {
		t.Fatalf("an agent's draft superseded the user's fact (%s)", m.Status)
	}
	page, _ := st.List(ctx, memory.Query{Project: testProject.ID, Status: memory.StatusAny, Limit: 100})
	for _, m := range page.Memories {
		if m.ID != user.ID && (m.Provenance == memory.ProvUserStated || m.Provenance == memory.ProvUserCorrected) {
			t.Errorf("an agent's draft made %q %s", m.Title, m.Provenance)
		}
	}
	ps, _ := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	for _, p := range ps {
		if p.Memory != nil && (p.Memory.Provenance == memory.ProvUserStated || p.Memory.Provenance == memory.ProvUserCorrected) {
			t.Errorf("a proposal from an agent's draft claims %s", p.Memory.Provenance)
		}
	}
}

// TestContradictedEvidenceReopens: a draft that contradicts a decision's
// evidence, without the rank to supersede it (a proposal waits for a
// person), sends the decision back to verify-first all the same: the
// decision rests on something now in doubt.
func TestContradictedEvidenceReopens(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ev := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "Redis streams sustain 9k appends per second once persistence is on.", Provenance: memory.ProvMeasured}, memory.ActorUser)
	dec := remember(t, st, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision, Body: "We chose Kafka over Redis streams for the event log."}, memory.ActorUser)
	if err := st.Link(ctx, memory.Edge{From: dec.ID, Kind: memory.EdgeEvidence, To: ev.ID, Weight: 1, Active: true}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	capture(t, st, memory.ActorAgent, "Redis streams sustain 80k appends per second once persistence is on.")
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := st.Get(ctx, ev.ID); e.Status != memory.StatusActive {
		t.Fatalf("an agent's draft superseded a measurement (%s)", e.Status)
	}
	d, _ := st.Get(ctx, dec.ID)
	if rep.Counts[memory.ChangeReopen] != 1 || d.ReopenedAt.IsZero() || !strings.Contains(d.Reopened, "contradicted by a later draft") {
		t.Fatalf("the decision was not reopened: %v %q", rep.Counts, d.Reopened)
	}
	// The reopened decision waits for a person's answer in the verify-first
	// queue: a later pass, long after, asks nothing else of it (no proposal
	// to archive it as weak and stale while the question is open).
	later := func() time.Time { return time.Now().Add(DefaultStaleAfter + 24*time.Hour) }
	if _, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser, Now: later}); err != nil {
		t.Fatal(err)
	}
	ps, _ := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	for _, p := range ps {
		if p.Target == dec.ID && p.Kind == memory.ProposeArchive {
			t.Errorf("a reopened decision was proposed for archive while it waits in verify-first: %q", p.Reason)
		}
	}
	// Without the link, the same draft reopens nothing.
	st2 := openStore(t)
	remember(t, st2, memory.Memory{Layer: memory.LayerState, Body: "Redis streams sustain 9k appends per second once persistence is on.", Provenance: memory.ProvMeasured}, memory.ActorUser)
	remember(t, st2, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision, Body: "We chose Kafka over Redis streams for the event log."}, memory.ActorUser)
	capture(t, st2, memory.ActorAgent, "Redis streams sustain 80k appends per second once persistence is on.")
	if rep, err := Consolidate(ctx, st2, testProject, Options{AskedBy: memory.ActorAgent}); err != nil || rep.Counts[memory.ChangeReopen] != 0 {
		t.Fatalf("reopened without a link: %v %v", rep.Counts, err)
	}
}

// A decision is not a fact a draft updates: a figure in its reason is what
// it was decided on, and a new figure reopens it through its evidence
// (TestContradictedEvidenceReopens), never by a proposal to replace it.
func TestDraftDoesNotUpdateADecision(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	dec := remember(t, st, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision,
		Body: "Token bucket over sliding window for the rate limiter: the token bucket kept p99 under 4 ms in the load test."}, memory.ActorUser)
	capture(t, st, memory.ActorAgent, "The token bucket now keeps p99 under 12 ms in the load test.")
	if _, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	props, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range props {
		if p.Target == dec.ID {
			t.Errorf("a draft was proposed to replace the decision: %s", p.Reason)
		}
	}
	if d, _ := st.Get(ctx, dec.ID); d.Status != memory.StatusActive {
		t.Errorf("the decision is %s", d.Status)
	}
}

// The person's own words still update a decision: a correction
// supersedes it, a change said otherwise is proposed.
func TestPersonCorrectsADecision(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	dec := remember(t, st, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision,
		Body: "We chose Postgres for the session store."}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, "no, we chose MySQL for the session store, not Postgres")
	if _, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser}); err != nil {
		t.Fatal(err)
	}
	if d, _ := st.Get(ctx, dec.ID); d.Status != memory.StatusSuperseded {
		t.Errorf("the person's correction left the decision %s", d.Status)
	}
	st2 := openStore(t)
	dec2 := remember(t, st2, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision,
		Body: "We chose Postgres for the session store."}, memory.ActorAgent)
	capture(t, st2, memory.ActorUser, "We moved the session store from Postgres to MySQL last week.")
	if _, err := Consolidate(ctx, st2, testProject, Options{AskedBy: memory.ActorUser}); err != nil {
		t.Fatal(err)
	}
	props, _ := st2.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	d2, _ := st2.Get(ctx, dec2.ID)
	if d2.Status == memory.StatusActive && !slices.ContainsFunc(props, func(p memory.Proposal) bool { return p.Target == dec2.ID }) {
		t.Errorf("the person's change of the decision was neither applied nor proposed")
	}
}
