package consolidate

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// listCounter is the store, counting the pages of memories read.
type listCounter struct {
	*store.DB
	pages atomic.Int64
}

func (s *listCounter) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	s.pages.Add(1)
	return s.DB.List(ctx, q)
}

// TestQuietPassReadsNoMemory: a pass after one that changed nothing, with
// nothing written since, reads no page of memories and finds nothing; a
// write since makes the next pass read them all again.
func TestQuietPassReadsNoMemory(t *testing.T) {
	t.Parallel()
	st := &listCounter{DB: openStore(t)}
	for _, body := range []string{"The API listens on port 8080.", "We deploy on Tuesdays.", "The user wants small pull requests."} {
		remember(t, st, memory.Memory{Layer: memory.LayerState, Body: body}, memory.ActorUser)
	}
	pass := func() Report {
		t.Helper()
		rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Changed() {
			t.Fatalf("changed: %s", rep.Summary())
		}
		return rep
	}
	pass()
	if m, err := st.PassMark(ctx, testProject.ID); err != nil || m.Time.IsZero() || m.Event == "" {
		t.Fatalf("a pass that changed nothing left no mark: %+v %v", m, err)
	}
	st.pages.Store(0)
	pass()
	if n := st.pages.Load(); n != 0 {
		t.Fatalf("a pass with nothing written since read %d pages of memories", n)
	}
	remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The cache holds an hour of results."}, memory.ActorUser)
	pass()
	if st.pages.Load() == 0 {
		t.Fatal("a pass after a write read no memory")
	}
}

// TestSecondPassLooksAtTheNewMemory: after a pass that changed nothing,
// one new memory that contradicts a stored one is paired with it by the
// next pass.
func TestSecondPassLooksAtTheNewMemory(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	old := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The API listens on port 8080."}, memory.ActorUser)
	remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "We deploy on Tuesdays."}, memory.ActorUser)
	if rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser}); err != nil || rep.Changed() {
		t.Fatalf("first pass: %v %v", rep.Summary(), err)
	}
	mark, err := st.PassMark(ctx, testProject.ID)
	if err != nil || mark.Time.IsZero() {
		t.Fatalf("no mark: %+v %v", mark, err)
	}
	// Written after the mark, and dated after it: the pass looks at the
	// memories written since, and at no other.
	newer := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The API listens on port 9090.", Provenance: memory.ProvInferred}, memory.ActorAgent)
	if !newer.UpdatedAt.After(mark.Time) {
		t.Fatalf("the new memory is dated %s, not after the mark %s", newer.UpdatedAt, mark.Time)
	}
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range rep.Run.Changes {
		if c.Target == old.ID && (c.Kind == memory.ChangeSupersede || c.Kind == memory.ChangePropose) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the second pass did not pair the new memory with %s: %+v", old.ID, rep.Run.Changes)
	}
}

// TestQuietPassStillFindsWhatAged: what time alone makes stale after a
// pass that changed nothing is proposed for archiving all the same: a
// first-hand memory whose trust fell under the threshold, and a secondhand
// one (the pass then reads every memory).
func TestQuietPassStillFindsWhatAged(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	low := remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The staging cluster runs on three nodes.", Confidence: 0.2}, memory.ActorUser)
	remember(t, st, memory.Memory{Layer: memory.LayerState, Body: "The user wants small pull requests."}, memory.ActorUser)
	if rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser}); err != nil || rep.Changed() {
		t.Fatalf("first pass: %v %v", rep.Summary(), err)
	}
	later := func() time.Time { return time.Now().Add(DefaultStaleAfter + 24*time.Hour) }
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Run.Changes) != 1 || rep.Run.Changes[0].Target != low.ID || rep.Run.Changes[0].Kind != memory.ChangePropose {
		t.Fatalf("changes %+v, want the archive proposal of %s", rep.Run.Changes, low.ID)
	}

	st2 := openStore(t)
	second := remember(t, st2, memory.Memory{Layer: memory.LayerState, Body: "The staging cluster runs on three nodes.", Provenance: memory.ProvInferred}, memory.ActorAgent)
	if rep, err := Consolidate(ctx, st2, testProject, Options{AskedBy: memory.ActorUser}); err != nil || rep.Changed() {
		t.Fatalf("first pass: %v %v", rep.Summary(), err)
	}
	if m, _ := st2.PassMark(ctx, testProject.ID); m.SecondhandLast.IsZero() {
		t.Fatalf("the mark does not say when the secondhand memory was last used: %+v", m)
	}
	rep, err = Consolidate(ctx, st2, testProject, Options{AskedBy: memory.ActorUser, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Run.Changes) != 1 || rep.Run.Changes[0].Target != second.ID {
		t.Fatalf("changes %+v, want the archive proposal of %s", rep.Run.Changes, second.ID)
	}
}
