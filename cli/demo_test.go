package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// cairn demo shows the loop, not only its result: after the sample set
// is loaded, a real consolidation pass has superseded an agent's fact on
// the person's correction and written a lesson of it, reopened a decision
// whose evidence a later load test contradicts, and proposed an agent's
// newer release for the person to decide; two drafts wait for the next
// pass.
func TestDemoShowsTheLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, err := os.ReadFile("../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, err := st.EnsureProject(ctx, mustNamed("demo"))
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := readJSONL("demo sample set", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Import(ctx, p.ID, recs, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	if err := demoLoop(ctx, st, p); err != nil {
		t.Fatal(err)
	}

	page, err := st.List(ctx, memory.Query{Project: p.ID, Status: memory.StatusAny, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	var lesson, reopened, superseded8080 bool
	for _, m := range page.Memories {
		switch {
		case m.Kind == memory.KindLesson && m.Status == memory.StatusActive:
			lesson = true
		case m.Layer == memory.LayerDecision && !m.ReopenedAt.IsZero():
			reopened = true
		case strings.Contains(m.Title, "staging API listens on port 8080") && m.Status == memory.StatusSuperseded:
			superseded8080 = true
		}
	}
	props, err := st.Proposals(ctx, p.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	drafts, err := st.ListDrafts(ctx, memory.DraftQuery{Project: p.ID, Waiting: true})
	if err != nil {
		t.Fatal(err)
	}
	if !lesson || !reopened || !superseded8080 || len(props) == 0 || len(drafts.Drafts) != 2 {
		t.Fatalf("lesson %v, reopened decision %v, correction superseded %v, %d proposals, %d drafts waiting; want each, and 2 drafts",
			lesson, reopened, superseded8080, len(props), len(drafts.Drafts))
	}
}
