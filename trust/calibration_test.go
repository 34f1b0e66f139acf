package trust

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

func review(v memory.Verdict, id string, bs ...memory.ReviewedBinding) memory.Review {
	return memory.Review{MemoryID: id, Verdict: v, Bindings: bs}
}

func binding(kind memory.WatermarkKind, target string, st memory.WatermarkState) memory.ReviewedBinding {
	return memory.ReviewedBinding{Kind: kind, Target: target, State: st}
}

func TestCalibrateCountsEachCell(t *testing.T) {
	t.Parallel()
	moved := binding(memory.WatermarkFile, "go.sum", memory.WatermarkMoved)
	gone := binding(memory.WatermarkFile, "old.go", memory.WatermarkGone)
	intactGit := binding(memory.WatermarkGit, "bench/", memory.WatermarkIntact)
	none := binding(memory.WatermarkNone, "", memory.WatermarkUnbound)
	cal := Calibrate([]memory.Review{
		review(memory.VerdictConfirm, "a", moved),             // noise
		review(memory.VerdictRebind, "b", moved),              // noise: the fact held
		review(memory.VerdictSupersede, "c", gone),            // caught
		review(memory.VerdictReject, "d", intactGit),          // missed
		review(memory.VerdictConfirm, "e", intactGit),         // quiet and right
		review(memory.VerdictSupersede, "f", none),            // missed, nothing bound
		review(memory.VerdictSupersede, "g", gone, intactGit), // caught by the file; no miss for git
		review(memory.VerdictConfirm, "h", binding(memory.WatermarkFlag, "X", memory.WatermarkIntact)),
	})
	want := map[memory.WatermarkKind]Cells{
		memory.WatermarkFile: {Caught: 2, Noise: 2, Reviews: 4},
		memory.WatermarkGit:  {Missed: 1, QuietRight: 1, Reviews: 2},
		memory.WatermarkFlag: {QuietRight: 1, Reviews: 1},
		memory.WatermarkNone: {Missed: 1, Reviews: 1},
	}
	if cal.Reviews != 8 || len(cal.Kinds) != 4 {
		t.Fatalf("%+v", cal)
	}
	for _, k := range cal.Kinds {
		w := want[k.Kind]
		if k.Caught != w.Caught || k.Noise != w.Noise || k.Missed != w.Missed || k.QuietRight != w.QuietRight || k.Reviews != w.Reviews {
			t.Errorf("%s: %+v, want %+v", k.Kind, k.Cells, w)
		}
	}
	flagged := map[string]BindingNote{}
	for _, f := range cal.Flagged {
		flagged[f.Binding] = f
	}
	if f := flagged["file:go.sum"]; f.Problem != "noise" || strings.Join(f.Memories, ",") != "a,b" {
		t.Errorf("go.sum fired twice on noise and was not flagged: %+v", cal.Flagged)
	}
	if f := flagged["git:bench/"]; f.Problem != "silent" {
		t.Errorf("bench/ stayed silent while a fact changed and was not flagged: %+v", cal.Flagged)
	}
	if f := flagged["none"]; f.Problem != "silent" {
		t.Errorf("an unbound fact changed and none was not flagged: %+v", cal.Flagged)
	}
	if _, ok := flagged["file:old.go"]; ok || len(cal.Flagged) != 3 {
		t.Errorf("flagged a binding that did its job: %+v", cal.Flagged)
	}
	text := FormatCalibration(cal)
	if !strings.Contains(text, "file         2       2       0       0      50 %       0 %") {
		t.Errorf("table:\n%s", text)
	}
}

// One false alarm is not a pattern.
func TestCalibrateNeedsTwoFalseAlarms(t *testing.T) {
	t.Parallel()
	cal := Calibrate([]memory.Review{review(memory.VerdictConfirm, "a", binding(memory.WatermarkFile, "go.sum", memory.WatermarkMoved))})
	if len(cal.Flagged) != 0 {
		t.Fatalf("%+v", cal.Flagged)
	}
}

// The whole loop through the service, a Badger store and a real
// repository: a binding that fires on noise and one that stays silent are
// flagged; a rejected fact stays in the queue until it is corrected.
func TestServiceReviewsAndCalibration(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("go.sum", "v1\n")
	r.write("bench/decode.txt", "+229 %\n")
	r.commit("deps and bench")
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000cc", Name: "p", Root: r.root})
	s := For(db, p, nil, func(string) string { return "" })
	write := func(text string) *memory.Memory {
		ws, err := s.Bind(ctx, nil, text)
		if err != nil {
			t.Fatal(err)
		}
		m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: text, Watermarks: ws}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	deps := write("the build pins its modules in go.sum")
	bench := write("decode is +229 %, measured in bench/decode.txt")

	for i := range 2 { // go.sum churns; the fact about it holds
		r.write("go.sum", "v"+string(rune('2'+i))+"\n")
		r.commit("bump")
		if err := s.Wake(ctx); err != nil {
			t.Fatal(err)
		}
		q, _ := s.Queue(ctx, nil)
		if len(q) != 1 || q[0].Memory.ID != deps.ID {
			t.Fatalf("round %d: queue %+v", i, q)
		}
		if _, err := s.Confirm(ctx, q[0].Memory); err != nil {
			t.Fatal(err)
		}
	}
	// The bench fact turns out wrong although its file did not change.
	got, err := s.Reject(ctx, bench)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := s.Queue(ctx, nil)
	if len(q) != 1 || q[0].Memory.ID != bench.ID || !strings.HasPrefix(q[0].Reasons[0], "rejected on ") {
		t.Fatalf("the rejected fact is not queued with its reason: %+v", q)
	}
	if _, err := db.Supersede(ctx, got.ID, &memory.Memory{Body: "decode is +31 %, measured in bench/decode.txt"}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if q, _ := s.Queue(ctx, nil); len(q) != 0 {
		t.Fatalf("the corrected fact is still queued: %+v", q)
	}

	cal, err := s.Calibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Reviews != 3 || cal.Kinds[0].Kind != memory.WatermarkFile || cal.Kinds[0].Noise != 2 || cal.Kinds[0].Missed != 1 {
		t.Fatalf("file row: %+v (reviews %d)", cal.Kinds[0], cal.Reviews)
	}
	if len(cal.Flagged) != 2 || cal.Flagged[0].Problem == cal.Flagged[1].Problem {
		t.Fatalf("flagged: %+v", cal.Flagged)
	}
}

// gone is a store where one bound memory was forgotten after the index
// was read (the second step of a forget had not run yet).
type gone struct {
	*store.DB
	phantom string
}

func (g gone) phantomMemory(project string) *memory.Memory {
	return &memory.Memory{ID: g.phantom, Project: project, Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: "gone.txt", Fingerprint: "sha256:00", State: memory.WatermarkIntact}}}
}

func (g gone) Bound(ctx context.Context, project string) ([]*memory.Memory, error) {
	ms, err := g.DB.Bound(ctx, project)
	return append([]*memory.Memory{g.phantomMemory(project)}, ms...), err
}

func (g gone) BoundTargets(ctx context.Context, project string) ([]memory.BoundTarget, error) {
	ts, err := g.DB.BoundTargets(ctx, project)
	return append([]memory.BoundTarget{{Kind: memory.WatermarkFile, Target: "gone.txt", Fingerprint: "sha256:00", State: memory.WatermarkIntact, Count: 1}}, ts...), err
}

func (g gone) BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error) {
	ms, err := g.DB.BoundTo(ctx, project, targets)
	if slices.Contains(targets, "gone.txt") {
		ms = append([]*memory.Memory{g.phantomMemory(project)}, ms...)
	}
	return ms, err
}

// A forgotten memory met by a wake check is skipped: the others are
// still checked.
func TestWakeSkipsForgottenMemories(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("decode.txt", "+229 %\n")
	r.commit("bench")
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000cd", Name: "p", Root: r.root})
	s := For(gone{db, "01JD0000000000000000000ZZZ"}, p, nil, nil)
	ws, _ := s.Bind(ctx, nil, "decode in decode.txt")
	m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "decode in decode.txt", Watermarks: ws}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	r.write("decode.txt", "+31 %\n")
	if err := s.Wake(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Get(ctx, m.ID); got.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("the wake stopped at the forgotten memory: %+v", got.Watermarks)
	}
}
