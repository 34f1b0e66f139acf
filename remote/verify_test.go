package remote

import (
	"testing"
	"time"

	"cairn/memory"
)

// The verify-first queue through the server is the store's, at the
// client's time.
func TestRemoteVerifyFirst(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	var ids []string
	facts := map[string]float64{"the cache holds a day of results": 0.4, "the planner takes the cheapest plan": 0.55, "builds run on two cores": 0.9}
	for _, body := range []string{"the cache holds a day of results", "the planner takes the cheapest plan", "builds run on two cores"} {
		m, err := c.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerState, Body: body, Confidence: facts[body]}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	for _, at := range []time.Time{time.Now(), time.Now().AddDate(1, 0, 0)} {
		got, err := c.VerifyFirst(ctx, pid, at)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.VerifyFirst(ctx, pid, at)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("at %s: %d through the server, %d in the store", at, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Title != want[i].Title {
				t.Fatalf("at %s: %s through the server, %s in the store", at, got[i].ID, want[i].ID)
			}
		}
	}
	if got, _ := c.VerifyFirst(ctx, pid, time.Now().AddDate(1, 0, 0)); len(got) != 2 || got[0].ID != ids[1] || got[1].ID != ids[0] {
		t.Fatalf("a year on the queue is %d long, want the two weaker facts newest first", len(got))
	}
}
