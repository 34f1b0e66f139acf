package cli

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/consolidate"
	"cairn/memory"
)

// cairn demo opens the workbench on a store where the loop has run: what
// the workbench is handed holds drafts waiting, open proposals (a
// supersession the pass was unsure of among them), a decision reopened
// because its evidence was superseded, and a lesson the pass wrote about
// a corrected fact — each made by capture and a real consolidation pass
// over the sample set, not written as rows.
func TestDemoShowsTheLoop(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile("../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	opened := false
	var errb bytes.Buffer
	env := e.cliEnv("demo")
	env.Stderr, env.Demo = &errb, sample
	env.Workbench = func(ctx context.Context, st memory.Store, p memory.Project, _ []memory.Project, _, _ string, _ func() (*consolidate.LLM, error)) error {
		opened = true
		checkDemoStore(t, ctx, st, p)
		return nil
	}
	code := Main(env)
	if code != ExitOK || !opened {
		t.Fatalf("cairn demo: exit %d, workbench opened %v: %s", code, opened, errb.String())
	}
}

func checkDemoStore(t *testing.T, ctx context.Context, st memory.Store, p memory.Project) {
	// Drafts wait for the next pass: the ones captured after the first.
	page, err := st.ListDrafts(ctx, memory.DraftQuery{Project: p.ID, Waiting: true})
	if err != nil {
		t.Fatal(err)
	}
	var waiting []string
	for _, d := range page.Drafts {
		waiting = append(waiting, d.Text)
	}
	if !slices.Equal(waiting, demoWaiting) {
		t.Errorf("drafts waiting = %q, want %q", waiting, demoWaiting)
	}

	// Proposals wait for a person, a supersession among them.
	props, err := st.Proposals(ctx, p.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[memory.ProposalKind]int{}
	for _, pr := range props {
		kinds[pr.Kind]++
	}
	if kinds[memory.ProposeSupersede] == 0 {
		t.Errorf("open proposals by kind = %v, want a supersession proposal", kinds)
	}

	// The pass ran as one run, which wrote a lesson and reopened a decision.
	runs, err := st.Runs(ctx, p.ID, 10)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs = %d (%v), want the demo's one pass", len(runs), err)
	}
	var lessons, reopened []string
	for _, c := range runs[0].Changes {
		switch c.Kind {
		case memory.ChangeLesson:
			lessons = append(lessons, c.Memory)
		case memory.ChangeReopen:
			reopened = append(reopened, c.Target)
		}
	}

	// The reopened decision waits in the verify-first queue with its reason.
	queue, err := st.VerifyFirst(ctx, p.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range queue {
		if m.Layer == memory.LayerDecision && !m.ReopenedAt.IsZero() && strings.Contains(m.Reopened, "evidence") && slices.Contains(reopened, m.ID) {
			found = true
		}
	}
	if !found {
		t.Errorf("no decision of the run reopened for its evidence in the verify-first queue (reopened %v, queue %d)", reopened, len(queue))
	}

	// The lesson is an active memory in F, linked to what it corrects.
	if len(lessons) == 0 {
		t.Fatalf("the demo's pass wrote no lesson: %+v", runs[0].Changes)
	}
	m, err := st.Get(ctx, lessons[0])
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := st.Edges(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Layer != memory.LayerMeta || m.Status != memory.StatusActive || !slices.ContainsFunc(out, func(e memory.Edge) bool { return e.Kind == memory.EdgeLessonOf }) {
		t.Errorf("lesson %q: layer %v, status %v, edges %+v; want an active F memory linked lesson_of", m.Title, m.Layer, m.Status, out)
	}
}
