package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"cairn/memory"
)

// bindTo remembers a fact bound to a file with the given fingerprint.
func bindTo(t *testing.T, db *DB, body, file, fp string) *memory.Memory {
	t.Helper()
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: body,
		Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: file, Fingerprint: fp, State: memory.WatermarkIntact, StampedAt: time.Now()}}}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func summary(t *testing.T, db *DB) []string {
	t.Helper()
	ts, err := db.BoundTargets(ctx, testPID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, bt := range ts {
		out = append(out, fmt.Sprintf("%s:%s %s %s ×%d", bt.Kind, bt.Target, bt.Fingerprint, bt.State, bt.Count))
	}
	return out
}

// The summary is one row per distinct stamp with how many memories carry
// it, and it follows every write: a wake check's new state, a forget (whose
// keys go without a new version), a new binding.
func TestBoundTargetsFollowWrites(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a := bindTo(t, db, "the parser lives in a.go", "a.go", "sha256:aa")
	bindTo(t, db, "a.go also holds the lexer", "a.go", "sha256:aa")
	b := bindTo(t, db, "b.go holds the printer", "b.go", "sha256:bb")
	remember(t, db, memory.LayerState, "", "a fact bound to nothing")
	want := []string{"file:a.go sha256:aa intact ×2", "file:b.go sha256:bb intact ×1"}
	if got := summary(t, db); !slices.Equal(got, want) {
		t.Fatalf("summary %q, want %q", got, want)
	}
	if got := summary(t, db); !slices.Equal(got, want) { // from the cache: the same
		t.Fatalf("summary read again %q, want %q", got, want)
	}

	ws := slices.Clone(a.Watermarks)
	ws[0].State = memory.WatermarkMoved
	if _, err := db.SetWatermarks(ctx, a.ID, ws, "a.go changed", memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	want = []string{"file:a.go sha256:aa intact ×1", "file:a.go sha256:aa moved ×1", "file:b.go sha256:bb intact ×1"}
	if got := summary(t, db); !slices.Equal(got, want) {
		t.Fatalf("after a wake check's write: %q, want %q", got, want)
	}

	if err := db.Forget(ctx, b.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	want = want[:2]
	if got := summary(t, db); !slices.Equal(got, want) {
		t.Fatalf("after a forget: %q, want %q", got, want)
	}
	bindTo(t, db, "c.go holds the tests", "c.go", "sha256:cc")
	want = append(want, "file:c.go sha256:cc intact ×1")
	if got := summary(t, db); !slices.Equal(got, want) {
		t.Fatalf("after a new binding: %q, want %q", got, want)
	}
}

// BoundTo reads the memories bound to the targets asked for, and only them,
// as Bound fills them.
func TestBoundToReadsOnlyWhatWasAsked(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a1 := bindTo(t, db, "the parser lives in a.go", "a.go", "sha256:aa")
	a2 := bindTo(t, db, "a.go also holds the lexer", "a.go", "sha256:a2")
	bindTo(t, db, "b.go holds the printer", "b.go", "sha256:bb")
	got, err := db.BoundTo(ctx, testPID, []string{"a.go", "gone.go"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		if len(m.Watermarks) != 1 || m.Watermarks[0].Target != "a.go" || m.Project != testPID {
			t.Fatalf("BoundTo gave %+v", m)
		}
		ids = append(ids, m.ID)
	}
	want := []string{a1.ID, a2.ID}
	slices.Sort(want)
	if slices.Sort(ids); !slices.Equal(ids, want) {
		t.Fatalf("BoundTo(a.go) = %v, want %v", ids, want)
	}
	if got, err := db.BoundTo(ctx, testPID, nil); err != nil || len(got) != 0 {
		t.Fatalf("BoundTo(nothing) = %d memories, %v", len(got), err)
	}
	if _, err := db.BoundTargets(ctx, "0000000000000bad"); err != nil {
		t.Fatalf("an unknown project has an empty summary, not %v", err)
	}
}
