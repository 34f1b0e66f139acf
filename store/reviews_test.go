package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"cairn/memory"
)

// boundN numbers bound's memories: the same text twice would be one
// memory, reinforced (see dedup.go).
var boundN atomic.Int32

func bound(t *testing.T, db *DB, state memory.WatermarkState) *memory.Memory {
	t.Helper()
	body := fmt.Sprintf("decode is +229 %% (bench/decode.txt), run %d", boundN.Add(1))
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: body,
		Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: "bench/decode.txt", Fingerprint: "sha256:aa", State: state}}}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A review is carried out and recorded in one step, and both survive a
// reopen: reject takes trust away until a confirmation lifts it.
func TestReviewRejectConfirmAndRebind(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	m := bound(t, db, memory.WatermarkMoved)

	got, err := db.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if got.RejectedAt.IsZero() || memory.Trust(got) != 0 || got.Watermarks[0].Fingerprint != "sha256:aa" {
		t.Fatalf("reject: %+v trust %v", got, memory.Trust(got))
	}
	db.Close()
	db = reopen(t, dir)
	if got, _ = db.Get(ctx, m.ID); got.RejectedAt.IsZero() {
		t.Fatal("the rejection did not survive a reopen")
	}

	fresh := []memory.Watermark{{Kind: memory.WatermarkFile, Target: "bench/decode.txt", Fingerprint: "sha256:bb", State: memory.WatermarkIntact}}
	got, err = db.Review(ctx, m.ID, memory.VerdictConfirm, fresh, "confirmed", memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RejectedAt.IsZero() || got.Watermarks[0].Fingerprint != "sha256:bb" || memory.Trust(got) < 0.5 {
		t.Fatalf("confirm: %+v", got)
	}
	got, err = db.Review(ctx, m.ID, memory.VerdictRebind, []memory.Watermark{{Kind: memory.WatermarkGit, Target: "bench/", Fingerprint: "commit:c tree:t", State: memory.WatermarkIntact}}, "rebound", memory.ActorUser)
	if err != nil || got.Watermarks[0].Kind != memory.WatermarkGit {
		t.Fatalf("rebind: %+v %v", got, err)
	}

	rs, err := db.Reviews(ctx, testPID)
	if err != nil || len(rs) != 3 {
		t.Fatalf("reviews: %+v %v", rs, err)
	}
	want := []struct {
		v     memory.Verdict
		state memory.WatermarkState
	}{{memory.VerdictReject, memory.WatermarkMoved}, {memory.VerdictConfirm, memory.WatermarkMoved}, {memory.VerdictRebind, memory.WatermarkIntact}}
	for i, w := range want {
		if rs[i].Verdict != w.v || rs[i].MemoryID != m.ID || rs[i].Bindings[0].State != w.state || rs[i].Bindings[0].Target != "bench/decode.txt" {
			t.Fatalf("review %d: %+v, want %v on a %s binding (the state before the verdict)", i, rs[i], w.v, w.state)
		}
	}
	// The bound index follows the rebinding.
	bs, _ := db.Bound(ctx, testPID)
	if len(bs) != 1 || bs[0].Watermarks[0].Target != "bench/" {
		t.Fatalf("bound index: %+v", bs)
	}
}

// Supersession is a review too: the old fact changed. A bound memory
// whose watermark was intact counts as a miss, an unbound one as kind none.
// A supersession that carries out a rejection adds no second review.
func TestSupersedeRecordsAReview(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := bound(t, db, memory.WatermarkIntact)
	if _, err := db.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	next, err := db.Supersede(ctx, m.ID, &memory.Memory{Body: "decode is +31 %"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if !next.RejectedAt.IsZero() || memory.Trust(next) < 0.5 {
		t.Fatalf("the successor inherited the rejection: %+v", next)
	}
	plain := remember(t, db, memory.LayerInvariant, "prefers stdlib", "prefers stdlib over deps")
	if _, err := db.Supersede(ctx, plain.ID, &memory.Memory{Body: "prefers small deps"}, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	again := bound(t, db, memory.WatermarkIntact)
	if _, err := db.Supersede(ctx, again.ID, &memory.Memory{Body: "decode is +40 %"}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	rs, _ := db.Reviews(ctx, testPID)
	if len(rs) != 3 {
		t.Fatalf("reviews: %+v", rs)
	}
	if s := rs[0]; s.Verdict != memory.VerdictReject || s.MemoryID != m.ID {
		t.Fatalf("reject review: %+v", s)
	}
	if s := rs[1]; s.Bindings[0].Kind != memory.WatermarkNone || s.Actor != memory.ActorAgent || s.Verdict != memory.VerdictSupersede {
		t.Fatalf("unbound supersede review: %+v", s)
	}
	if s := rs[2]; s.Verdict != memory.VerdictSupersede || s.MemoryID != again.ID || s.Bindings[0].State != memory.WatermarkIntact {
		t.Fatalf("supersede review: %+v", s)
	}
	// History cannot be reviewed.
	if _, err := db.Review(ctx, m.ID, memory.VerdictConfirm, nil, "", memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("review of a superseded memory: %v", err)
	}
}

// Correcting the text in place lifts a rejection; a bad verdict changes nothing.
func TestEditLiftsRejectionAndBadVerdictsAreRefused(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := bound(t, db, memory.WatermarkMoved)
	db.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser)
	tags := []string{"perf"}
	if got, _ := db.Edit(ctx, m.ID, memory.Patch{Tags: &tags}, memory.ActorUser); got.RejectedAt.IsZero() {
		t.Fatal("a tag edit lifted the rejection")
	}
	body := "decode is +31 % (bench/decode.txt)"
	if got, _ := db.Edit(ctx, m.ID, memory.Patch{Body: &body}, memory.ActorUser); !got.RejectedAt.IsZero() {
		t.Fatal("correcting the text did not lift the rejection")
	}
	before, _ := db.Reviews(ctx, testPID)
	for _, v := range []memory.Verdict{"maybe", memory.VerdictSupersede} {
		if _, err := db.Review(ctx, m.ID, v, nil, "", memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
			t.Fatalf("verdict %q: %v", v, err)
		}
	}
	if after, _ := db.Reviews(ctx, testPID); len(after) != len(before) {
		t.Fatal("a refused review was recorded")
	}
}

// Forgetting a memory takes its reviews with it.
func TestForgetPurgesReviews(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := bound(t, db, memory.WatermarkMoved)
	keep := bound(t, db, memory.WatermarkMoved)
	db.Review(ctx, m.ID, memory.VerdictConfirm, m.Watermarks, "confirmed", memory.ActorUser)
	db.Review(ctx, keep.ID, memory.VerdictConfirm, keep.Watermarks, "confirmed", memory.ActorUser)
	if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	rs, _ := db.Reviews(ctx, testPID)
	if len(rs) != 1 || rs[0].MemoryID != keep.ID {
		t.Fatalf("reviews after forget: %+v", rs)
	}
}

// A wake check that read the watermarks before a person rebound or
// confirmed the memory does not undo the review when it writes.
func TestWakeWriteDoesNotUndoAReview(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := bound(t, db, memory.WatermarkIntact)
	checked := []memory.Watermark{m.Watermarks[0]}
	checked[0].State = memory.WatermarkMoved // what the wake found, from its snapshot
	rebound := []memory.Watermark{{Kind: memory.WatermarkGit, Target: "bench/", Fingerprint: "commit:c tree:t", State: memory.WatermarkIntact}}
	if _, err := db.Review(ctx, m.ID, memory.VerdictRebind, rebound, "rebound", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	got, err := db.SetWatermarks(ctx, m.ID, checked, "content changed", memory.ActorSystem)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Watermarks) != 1 || got.Watermarks[0].Kind != memory.WatermarkGit || got.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("the wake undid the rebinding: %+v", got.Watermarks)
	}
	// When the checked watermark is still the memory's, its state is written.
	stale := []memory.Watermark{rebound[0]}
	stale[0].State = memory.WatermarkMoved
	if got, _ = db.SetWatermarks(ctx, m.ID, stale, "3 commits touched bench/", memory.ActorSystem); got.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("the wake's finding was not recorded: %+v", got.Watermarks)
	}
}

// Rejecting twice counts once; correcting the text of a moved fact in
// place is evidence like a supersession.
func TestRejectOnceAndInPlaceCorrectionCounts(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := bound(t, db, memory.WatermarkMoved)
	if _, err := db.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("second reject: %v", err)
	}
	moved := bound(t, db, memory.WatermarkMoved)
	body := "decode is +31 % (bench/decode.txt)"
	if _, err := db.Edit(ctx, moved.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	intact := bound(t, db, memory.WatermarkIntact)
	typo := "decode is +229 % (see bench/decode.txt)"
	db.Edit(ctx, intact.ID, memory.Patch{Body: &typo}, memory.ActorUser)
	rs, _ := db.Reviews(ctx, testPID)
	if len(rs) != 2 || rs[0].Verdict != memory.VerdictReject || rs[1].MemoryID != moved.ID || rs[1].Verdict != memory.VerdictSupersede || !rs[1].Bindings[0].Moved() {
		t.Fatalf("reviews: %+v", rs)
	}
}
