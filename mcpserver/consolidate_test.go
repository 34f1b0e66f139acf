package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/memory"
	"cairn/remote"
	"cairn/store"
)

// captureAll appends drafts through the capture tool, as an agent does.
func captureAll(t *testing.T, cs *mcp.ClientSession, texts ...string) {
	t.Helper()
	for _, s := range texts {
		var d CaptureOut
		if failed, text := call(t, cs, "capture", map[string]any{"text": s, "source": "session-1"}, &d); failed || d.ID == "" {
			t.Fatalf("capture %q: %s", s, text)
		}
	}
}

// state is everything a pass may change in one project, in one string:
// its memories (all statuses, with versions and salience), its drafts,
// runs, proposals and timeline.
func state(t *testing.T, st memory.Store, project string) string {
	t.Helper()
	var b strings.Builder
	q := memory.Query{Project: project, Status: memory.StatusAny, Limit: 1000}
	for {
		page, err := st.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Memories {
			fmt.Fprintf(&b, "mem %s %s v%d %s %q reinforced=%d reopened=%q\n", m.ID, m.Status, m.Version, m.SupersededBy, m.Title, m.Salience.Reinforcements, m.Reopened)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	ds, err := st.Drafts(ctx, project, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		fmt.Fprintf(&b, "draft %s done=%q\n", d.ID, d.Done)
	}
	runs, err := st.Runs(ctx, project, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "run %s %d changes undone=%v\n", r.ID, len(r.Changes), !r.UndoneAt.IsZero())
	}
	ps, err := st.Proposals(ctx, project, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		fmt.Fprintf(&b, "proposal %s %s %s\n", p.ID, p.Kind, p.State)
	}
	evs, err := st.Timeline(ctx, project, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "%d events\n", len(evs))
	return b.String()
}

func active(t *testing.T, st memory.Store, project, phrase string) []*memory.Memory {
	t.Helper()
	page, err := st.List(ctx, memory.Query{Project: project, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []*memory.Memory
	for _, m := range page.Memories {
		if strings.Contains(strings.ToLower(m.Text()), strings.ToLower(phrase)) {
			out = append(out, m)
		}
	}
	return out
}

// An agent captures a session's notes and consolidates: the report lists
// every change in words with the run's id and how a person undoes it, the
// memories are in the store as the report says, the drafts are done, the
// run is the system's (asked by the agent), and a second call has nothing
// to do.
func TestConsolidateTurnsDraftsIntoMemories(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	guess, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.",
		Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	captureAll(t, cs,
		"No, actually deploys go through Spinnaker, not ArgoCD.",
		"The integration tests run with -race in CI.",
		"ok, thanks")

	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed {
		t.Fatal(text)
	}
	t.Logf("report:\n%s", text)
	if out.Run == "" || out.DryRun || out.Drafts != 3 {
		t.Fatalf("run %q dry %v drafts %d", out.Run, out.DryRun, out.Drafts)
	}
	for _, want := range []string{
		"consolidated 3 drafts: ",
		"(run " + out.Run + ")",
		"- superseded 'Deploys go through ArgoCD.' → ",
		"`cairn consolidate --undo " + out.Run + "`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, text)
		}
	}
	// Every change but the drafts' bookkeeping is a line of the report.
	lines := 0
	for _, c := range out.Changes {
		if c.Kind == string(memory.ChangeDraftDone) {
			continue
		}
		lines++
		if c.Text == "" || !strings.Contains(text, "- "+c.Text+"\n") {
			t.Errorf("change %+v is not in the report", c)
		}
	}
	if lines == 0 || strings.Count(text, "\n- ") != lines {
		t.Errorf("%d changes, %d report lines", lines, strings.Count(text, "\n- "))
	}
	if out.Counts[string(memory.ChangeSupersede)] != 1 || out.Counts[string(memory.ChangeCreate)] < 1 {
		t.Errorf("counts %v", out.Counts)
	}

	// The store holds what the report says.
	old, err := db.Get(ctx, guess.ID)
	if err != nil {
		t.Fatal(err)
	}
	spin := active(t, db, p.ID, "spinnaker")
	if old.Status != memory.StatusSuperseded || len(spin) != 1 || old.SupersededBy != spin[0].ID {
		t.Fatalf("the guess is %s (by %s); successors %v", old.Status, old.SupersededBy, spin)
	}
	if race := active(t, db, p.ID, "-race in CI"); len(race) != 1 {
		t.Errorf("%d memories of the -race note, want 1", len(race))
	}
	if thanks := active(t, db, p.ID, "thanks"); len(thanks) != 0 {
		t.Errorf("chatter became a memory: %q", thanks[0].Text())
	}
	ds, _ := db.Drafts(ctx, p.ID, 100)
	if len(ds) != 3 || len(memory.Waiting(ds)) != 0 {
		t.Errorf("%d drafts, %d still waiting", len(ds), len(memory.Waiting(ds)))
	}
	runs, err := db.Runs(ctx, p.ID, 10)
	if err != nil || len(runs) != 1 || runs[0].ID != out.Run {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if runs[0].Actor != memory.ActorSystem || !strings.Contains(runs[0].Summary, "asked by agent") {
		t.Errorf("run by %s: %q", runs[0].Actor, runs[0].Summary)
	}

	// Nothing is left to do.
	before := state(t, db, p.ID)
	var again ConsolidateOut
	failed, text = call(t, cs, "consolidate", map[string]any{}, &again)
	if failed || again.Run != "" || len(again.Changes) != 0 || again.Drafts != 0 || !strings.HasPrefix(text, "nothing to do: ") {
		t.Fatalf("second call: %+v %q", again, text)
	}
	if state(t, db, p.ID) != before {
		t.Error("a call with nothing to do changed the store")
	}
	if strings.Contains(text, "--undo") {
		t.Errorf("a run that wrote nothing offers an undo: %q", text)
	}
}

// dry_run reports the changes a pass would make and writes nothing; the
// real pass then makes the same changes.
func TestConsolidateDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	if _, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.",
		Provenance: memory.ProvExtracted}, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	captureAll(t, cs, "No, actually deploys go through Spinnaker, not ArgoCD.", "The integration tests run with -race in CI.")
	before := state(t, db, p.ID)

	var dry ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{"dry_run": true}, &dry)
	if failed {
		t.Fatal(text)
	}
	if !dry.DryRun || dry.Run != "" || dry.Drafts != 2 || len(dry.Changes) == 0 {
		t.Fatalf("dry run: %+v", dry)
	}
	if !strings.HasPrefix(text, "dry run, nothing written: 2 drafts: ") || !strings.Contains(text, "- superseded 'Deploys go through ArgoCD.'") {
		t.Errorf("dry report:\n%s", text)
	}
	if strings.Contains(text, "--undo") {
		t.Errorf("a dry run offers an undo: %q", text)
	}
	if after := state(t, db, p.ID); after != before {
		t.Fatalf("a dry run changed the store:\nbefore %s\nafter  %s", before, after)
	}

	var real ConsolidateOut
	if failed, text := call(t, cs, "consolidate", map[string]any{"dry_run": false}, &real); failed || real.Run == "" {
		t.Fatalf("real run: %q", text)
	}
	kinds := func(o ConsolidateOut) (ks []string) {
		for _, c := range o.Changes {
			ks = append(ks, c.Kind)
		}
		return ks
	}
	if !slices.Equal(kinds(dry), kinds(real)) {
		t.Errorf("the dry run said %v, the run did %v", kinds(dry), kinds(real))
	}
}

// What a pass is not sure of waits for a person: the agent is told how
// many proposals wait and where a person reviews them, the reason names
// memories by title, and the memory it is about is left as it was.
func TestConsolidateLeavesProposalsToAPerson(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	said, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.",
		Provenance: memory.ProvUserStated}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	// An agent's note ranks below what the person said.
	captureAll(t, cs, "Deploys go through Spinnaker.")
	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed {
		t.Fatal(text)
	}
	t.Logf("report:\n%s", text)
	if out.Counts[string(memory.ChangePropose)] != 1 || out.ProposalsOpen != 1 {
		t.Fatalf("counts %v, %d open", out.Counts, out.ProposalsOpen)
	}
	if !strings.Contains(text, "1 proposal waits for a person to review (`cairn inbox`); agents cannot accept or reject them.") {
		t.Errorf("the report does not send the proposal to a person:\n%s", text)
	}
	i := slices.IndexFunc(out.Changes, func(c Change) bool { return c.Kind == string(memory.ChangePropose) })
	if c := out.Changes[i]; !strings.Contains(c.Text, "'Deploys go through ArgoCD.'") || strings.Contains(c.Text, said.ID) {
		t.Errorf("the proposal's line does not name the memory by its title: %q", c.Text)
	}
	if m, _ := db.Get(ctx, said.ID); m.Status != memory.StatusActive || m.Version != said.Version {
		t.Errorf("what the person said is %s v%d", m.Status, m.Version)
	}
	if ps, _ := db.Proposals(ctx, p.ID, memory.ProposalOpen); len(ps) != 1 || ps[0].Target != said.ID {
		t.Fatalf("open proposals %+v", ps)
	}
}

// An agent pinned to project P consolidates P only: Q's drafts keep
// waiting, Q's memories (even one that says the same as P's draft) are
// not touched, nothing of Q's text reaches the report, and remember does
// not fold a memory into Q's copy of it.
func TestConsolidateStaysInItsProject(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	q, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := db.Remember(ctx, &memory.Memory{Project: q.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.",
		Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"The payroll batch runs on the 25th.", "No, actually deploys go through Jenkins, not ArgoCD."} {
		if _, err := db.Capture(ctx, memory.Draft{Project: q.ID, Actor: memory.ActorUser, Text: s}); err != nil {
			t.Fatal(err)
		}
	}
	qBefore := state(t, db, q.ID)

	captureAll(t, cs, "No, actually deploys go through Spinnaker, not ArgoCD.", "The integration tests run with -race in CI.")
	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed || out.Run == "" || out.Drafts != 2 {
		t.Fatalf("consolidate: %+v %q", out, text)
	}
	for _, s := range []string{"payroll", "Jenkins", theirs.ID} {
		if strings.Contains(text, s) {
			t.Errorf("the report shows %q from another project:\n%s", s, text)
		}
	}
	for _, c := range out.Changes {
		if c.Target == theirs.ID || c.Memory == theirs.ID {
			t.Errorf("a change acts on the other project's memory: %+v", c)
		}
	}
	if after := state(t, db, q.ID); after != qBefore {
		t.Fatalf("the other project changed:\nbefore %s\nafter  %s", qBefore, after)
	}
	// The correction became P's own memory (there was nothing of P's to supersede).
	if spin := active(t, db, p.ID, "spinnaker"); len(spin) != 1 || spin[0].Project != p.ID {
		t.Errorf("P's memories of Spinnaker: %v", spin)
	}

	var mine Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "Deploys go through ArgoCD."}, &mine); failed {
		t.Fatal(text)
	}
	if mine.ID == theirs.ID || mine.Dedup != nil && (mine.Dedup.Reinforced == theirs.ID || mine.Dedup.Near == theirs.ID) {
		t.Fatalf("remember folded into the other project's memory: %+v", mine)
	}
	if got, _ := db.Get(ctx, mine.ID); got == nil || got.Project != p.ID {
		t.Fatalf("stored %+v", got)
	}
	if after := state(t, db, q.ID); after != qBefore {
		t.Fatalf("remember changed the other project:\nbefore %s\nafter  %s", qBefore, after)
	}
}

// The same fact remembered twice is one memory, reinforced; the second
// call says so. A near-duplicate is stored, and the merge waits for a
// person.
func TestRememberReportsDuplicates(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	var first, second Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "The decode kernel runs at 128 VGPRs on gfx942."}, &first); failed || first.Dedup != nil {
		t.Fatalf("first: %q %+v", text, first.Dedup)
	} else if !strings.HasPrefix(text, "remembered "+first.ID) {
		t.Errorf("first: %q", text)
	}
	failed, text := call(t, cs, "remember", map[string]any{"text": "the decode kernel runs at 128 VGPRs on gfx942"}, &second)
	if failed {
		t.Fatal(text)
	}
	if second.Dedup == nil || second.Dedup.Reinforced != first.ID || second.ID != first.ID {
		t.Fatalf("second: %+v dedup %+v", second, second.Dedup)
	}
	if want := "already known: reinforced " + first.ID + " 'The decode kernel runs at 128 VGPRs on gfx942.'"; !strings.HasPrefix(text, want) {
		t.Errorf("second says %q, want it to start %q", text, want)
	}
	if ms := active(t, db, p.ID, "decode kernel"); len(ms) != 1 || ms[0].Salience.Reinforcements != 1 {
		t.Fatalf("%d memories after the same fact twice", len(ms))
	}

	var near Item
	failed, text = call(t, cs, "remember", map[string]any{"text": "The decode kernel now runs at 128 VGPRs on gfx942."}, &near)
	if failed {
		t.Fatal(text)
	}
	if near.Dedup == nil || near.Dedup.Near != first.ID || near.Dedup.Proposal == "" || near.ID == first.ID {
		t.Fatalf("near: %+v dedup %+v", near, near.Dedup)
	}
	if !strings.Contains(text, "the merge proposal "+near.Dedup.Proposal+" waits for a person (`cairn inbox`)") {
		t.Errorf("near says %q", text)
	}
	if ms := active(t, db, p.ID, "decode kernel"); len(ms) != 2 {
		t.Fatalf("%d memories after a near-duplicate, want 2", len(ms))
	}
	if ps, _ := db.Proposals(ctx, p.ID, memory.ProposalOpen); len(ps) != 1 || ps[0].ID != near.Dedup.Proposal || ps[0].Kind != memory.ProposeMerge {
		t.Fatalf("proposals %+v", ps)
	}
}

// A client that asks for progress hears the pass's stages in order.
func TestConsolidateReportsProgress(t *testing.T) {
	t.Parallel()
	db, p := openProject(t)
	got := make(chan *mcp.ProgressNotificationParams, 100)
	cs := serveOn(t, db, p, nil, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		got <- r.Params
	}})
	captureAll(t, cs, "The integration tests run with -race in CI.", "We deploy on Tuesdays.")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "consolidate", Meta: mcp.Meta{"progressToken": "sleep-1"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var stages []string
	last := 0.0
	deadline := time.After(10 * time.Second)
	for !slices.Contains(stages, "writing") {
		select {
		case n := <-got:
			if n.ProgressToken != "sleep-1" || n.Progress <= last {
				t.Fatalf("notification %+v after progress %v", n, last)
			}
			last = n.Progress
			if stage, _, _ := strings.Cut(n.Message, " "); len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
		case <-deadline:
			t.Fatalf("no progress from writing; stages %v", stages)
		}
	}
	if !slices.Equal(stages, []string{"reading", "extracting", "reconciling", "writing"}) {
		t.Errorf("stages %v", stages)
	}
}

// A misconfigured language model does not stop the pass: the patterns
// do the work and the report says why the model was not used.
func TestConsolidateSaysWhyTheModelWasNotUsed(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CAIRN_LLM_URL": "ftp://127.0.0.1/v1", "CAIRN_LLM_MODEL": "m"}
	cs, db, p := connectIn(t, t.TempDir(), func(k string) string { return env[k] })
	captureAll(t, cs, "The integration tests run with -race in CI.")
	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed || out.Run == "" {
		t.Fatalf("%q", text)
	}
	if !strings.HasPrefix(out.Note, "language model not used: CAIRN_LLM_URL") || !strings.Contains(text, out.Note) {
		t.Errorf("note %q in %q", out.Note, text)
	}
	if len(active(t, db, p.ID, "-race in CI")) != 1 {
		t.Error("the patterns did not make the memory")
	}
}

// The language model the server's environment names is asked for each
// draft; when it fails, the patterns do the work and the report says so.
func TestConsolidateAsksTheConfiguredModel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path+" "+body.Model)
		mu.Unlock()
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(llm.Close)
	env := map[string]string{"CAIRN_LLM_URL": llm.URL + "/v1", "CAIRN_LLM_MODEL": "test-model"}
	cs, db, p := connectIn(t, t.TempDir(), func(k string) string { return env[k] })
	captureAll(t, cs, "The integration tests run with -race in CI.")
	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed || out.Run == "" || out.Note != "" {
		t.Fatalf("%q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 || asked[0] != "POST /v1/chat/completions test-model" {
		t.Fatalf("the model was asked %v", asked)
	}
	if len(out.Dropped) == 0 || !strings.Contains(text, "left out: draft ") || !strings.Contains(text, "the patterns were used instead") {
		t.Errorf("the report does not say the model failed:\n%s", text)
	}
	if len(active(t, db, p.ID, "-race in CI")) != 1 {
		t.Error("the patterns did not make the memory")
	}
}

func openProject(t *testing.T) (*store.DB, memory.Project) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000aa", Name: "proj"})
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// When another cairn owns the store, cairn mcp is its client: the pass,
// its report and remember's dedup work the same through the store server.
func TestConsolidateThroughTheStoreServer(t *testing.T) {
	t.Parallel()
	db, p := openProject(t)
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- remote.NewServer(db, 0).Serve(sctx, ln) }()
	cl := remote.NewClient(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	})
	t.Cleanup(func() {
		cl.Close()
		stop()
		<-done
	})
	cs := serveOn(t, cl, p, nil, nil)

	captureAll(t, cs, "The integration tests run with -race in CI.")
	var out ConsolidateOut
	if failed, text := call(t, cs, "consolidate", map[string]any{}, &out); failed || out.Run == "" || !strings.Contains(text, "- new ") {
		t.Fatalf("consolidate through the server: %q", text)
	}
	race := active(t, db, p.ID, "-race in CI")
	if len(race) != 1 {
		t.Fatalf("%d memories", len(race))
	}
	var again Item
	failed, text := call(t, cs, "remember", map[string]any{"text": race[0].Body, "title": race[0].Title}, &again)
	if failed || again.Dedup == nil || again.Dedup.Reinforced != race[0].ID || !strings.HasPrefix(text, "already known: reinforced "+race[0].ID) {
		t.Fatalf("remember through the server: %q %+v", text, again.Dedup)
	}
}

// A pass over many drafts lists a bounded number of changes in words (the
// agent's context is not a log) and every change in the structured result.
func TestConsolidateReportStaysShort(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	const n = maxListed + 7
	for i := range n {
		if _, err := db.Capture(ctx, memory.Draft{Project: p.ID, Actor: memory.ActorAgent, Text: fmt.Sprintf("Service s%d listens on port %d.", i, 8000+i)}); err != nil {
			t.Fatal(err)
		}
	}
	var out ConsolidateOut
	failed, text := call(t, cs, "consolidate", map[string]any{}, &out)
	if failed {
		t.Fatal(text)
	}
	made := out.Counts[string(memory.ChangeCreate)]
	if made != n {
		t.Fatalf("%d new memories from %d drafts: %v", made, n, out.Counts)
	}
	if got := strings.Count(text, "\n- new "); got != maxListed {
		t.Errorf("%d changes listed in words, want %d", got, maxListed)
	}
	if want := fmt.Sprintf("- … and %d more changes (the structured result lists them all)\n", n-maxListed); !strings.Contains(text, want) {
		t.Errorf("the report does not say how many more:\n%s", text)
	}
	if len(out.Changes) != 2*n { // each draft: a memory and the draft done
		t.Errorf("%d changes in the structured result, want %d", len(out.Changes), 2*n)
	}
}
