package remote

import (
	"errors"
	"testing"

	"cairn/memory"
)

// TestDropDraftOverTheSocket: a client erases a draft like a local store does.
func TestDropDraftOverTheSocket(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	d, err := c.Capture(ctx, memory.Draft{Project: pid, Text: "a draft to erase"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DropDraft(ctx, d.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if ds, err := db.Drafts(ctx, pid, 10); err != nil || len(ds) != 0 {
		t.Fatalf("drafts after the drop: %+v %v", ds, err)
	}
	if err := c.DropDraft(ctx, d.ID, memory.ActorUser); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("second drop: %v", err)
	}
	evs, err := c.Timeline(ctx, pid, 10)
	if err != nil || len(evs) != 1 || evs[0].Kind != memory.EventDropDraft {
		t.Fatalf("timeline: %+v %v", evs, err)
	}
}
