package trust

import (
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// The queue is the one of the checker's time: an unbound fact of middling
// confidence joins it once it has gone unconfirmed long enough, most
// salient first, and leaves it when confirmed.
func TestQueueAtTheCheckersTime(t *testing.T) {
	t.Parallel()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000ce", Name: "p", Root: t.TempDir()})
	s := For(db, p, nil, func(string) string { return "" })
	var ms []*memory.Memory
	for _, body := range []string{"the cache holds a day of results", "the planner takes the cheapest plan", "builds run on two cores"} {
		m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: body, Confidence: 0.55}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if q, err := s.Queue(ctx, nil); err != nil || len(q) != 0 {
		t.Fatalf("just written, the queue holds %d (%v)", len(q), err)
	}
	s.Checker.Now = func() time.Time { return time.Now().AddDate(1, 0, 0) }
	bySalience := func(sal memory.Salience) float64 { return float64(sal.Reinforcements) }
	if _, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: ms[0].Body}, memory.ActorUser); err != nil {
		t.Fatal(err) // said again: more salient, no more trusted
	}
	q, err := s.Queue(ctx, bySalience)
	if err != nil || len(q) != 3 {
		t.Fatalf("a year on, the queue holds %d (%v)", len(q), err)
	}
	if q[0].Memory.ID != ms[0].ID || q[1].Memory.ID != ms[2].ID || q[2].Memory.ID != ms[1].ID {
		t.Fatalf("not most salient, then newest first: %s %s %s", q[0].Memory.Title, q[1].Memory.Title, q[2].Memory.Title)
	}
	if q[0].Trust >= memory.TrustThreshold || !strings.HasPrefix(q[0].Reasons[0], "not confirmed since ") {
		t.Fatalf("trust %.2f, reasons %q", q[0].Trust, q[0].Reasons)
	}
	if _, err := s.Confirm(ctx, q[1].Memory); err != nil {
		t.Fatal(err)
	}
	if q, _ := s.Queue(ctx, nil); len(q) != 2 {
		t.Fatalf("after a confirmation the queue holds %d, want 2", len(q))
	}
}
