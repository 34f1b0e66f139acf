package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// keptEqualsScan fails the test unless the counts kept by the writes are
// what a count of the store key by key finds, and Stats and Count say them.
func keptEqualsScan(t testing.TB, db *DB, what string) {
	t.Helper()
	var kept, scan tallied
	ok := false
	err := db.view(func(txn *badger.Txn) error {
		var err error
		kept, ok, err = readCounts(txn)
		scan = countAll(txn)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !ok {
		t.Fatalf("%s: the store keeps no counts", what)
	}
	for k, n := range scan.Mem {
		if kept.Mem[k] != n {
			t.Fatalf("%s: %s kept %d, counted %d (kept %+v)", what, k, kept.Mem[k], n, kept)
		}
	}
	for k, n := range kept.Mem {
		if n != 0 && scan.Mem[k] != n {
			t.Fatalf("%s: %s kept %d, counted %d", what, k, n, scan.Mem[k])
		}
	}
	if kept.Edges != scan.Edges || kept.Events != scan.Events || kept.Drafts != scan.Drafts {
		t.Fatalf("%s: edges/events/drafts kept %d/%d/%d, counted %d/%d/%d", what,
			kept.Edges, kept.Events, kept.Drafts, scan.Edges, scan.Events, scan.Drafts)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Count(ctx, testPID)
	if err != nil {
		t.Fatal(err)
	}
	total, mine := 0, 0
	for k, n := range scan.Mem {
		total += n
		if pid, l, s, _ := splitMemCountKey(k); pid == testPID && c.ByLayer[l][s] != n {
			t.Fatalf("%s: Count says %d for %s, the store holds %d", what, c.ByLayer[l][s], k, n)
		} else if pid == testPID {
			mine += n
		}
	}
	if st.Memories != total || st.Edges != scan.Edges || st.Events != scan.Events || st.Drafts != scan.Drafts {
		t.Fatalf("%s: Stats %+v, the store holds %d memories, %d edges, %d events, %d drafts", what, st, total, scan.Edges, scan.Events, scan.Drafts)
	}
	if got := c.Total(memory.StatusActive) + c.Total(memory.StatusArchived) + c.Total(memory.StatusSuperseded); got != mine {
		t.Fatalf("%s: Count totals %d, the project holds %d", what, got, mine)
	}
}

// countsWorld drives random writes of every kind against a store.
type countsWorld struct {
	t      testing.TB
	db     *DB
	r      *rand.Rand
	n      int
	drafts []string
}

func (w *countsWorld) body() string {
	w.n++
	return distinctFact(fmt.Sprintf("counted fact %d about module %d", w.n, w.r.IntN(40)), w.n)
}

// some is a memory of the project with status s, nil when there is none.
func (w *countsWorld) some(s memory.Status) *memory.Memory {
	p, err := w.db.List(ctx, memory.Query{Project: testPID, Status: s, Limit: 50})
	if err != nil {
		w.t.Fatal(err)
	}
	if len(p.Memories) == 0 {
		return nil
	}
	return p.Memories[w.r.IntN(len(p.Memories))]
}

// step does one random write and names it; refused writes (a stale run, a
// ref taken) are fine: the counts must hold whatever happened.
func (w *countsWorld) step() string {
	db, layer := w.db, memory.Layers[w.r.IntN(len(memory.Layers))]
	must := func(err error) {
		if err != nil && !errors.Is(err, memory.ErrStale) && !errors.Is(err, memory.ErrNotFound) && !errors.Is(err, memory.ErrInvalid) {
			w.t.Fatal(err)
		}
	}
	switch k := w.r.IntN(18); k {
	case 15:
		if m := w.some(memory.StatusActive); m != nil {
			v := []memory.Verdict{memory.VerdictConfirm, memory.VerdictReject}[w.r.IntN(2)]
			_, err := db.Review(ctx, m.ID, v, nil, "checked", memory.ActorUser)
			must(err)
		}
		return "review"
	case 16:
		if m := w.some(memory.StatusActive); m != nil {
			_, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: m.Layer, Body: m.Body}, memory.ActorUser)
			must(err)
		}
		return "the same fact said again"
	case 17:
		rec := memory.Record{Layer: layer, Body: w.body()}
		if m := w.some(memory.StatusActive); m != nil {
			rec.Edges = []memory.RecordEdge{{Kind: memory.EdgeRelatesTo, To: m.ID}}
		}
		ev := memory.Event{ID: memory.NewID(), Project: testPID, Time: time.Now().UTC(), Actor: memory.ActorUser, Kind: memory.EventImport, Summary: "an imported event"}
		_, err := db.Import(ctx, testPID, []memory.Record{rec, {Event: &ev}}, memory.ActorUser)
		must(err)
		return "import with a link and an event"
	case 0, 1:
		_, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: layer, Body: w.body()}, memory.ActorAgent)
		must(err)
		return "remember"
	case 2:
		if m := w.some(memory.StatusActive); m != nil {
			_, err := db.Edit(ctx, m.ID, memory.Patch{Layer: &layer}, memory.ActorUser)
			must(err)
		}
		return "edit the layer"
	case 3:
		if m := w.some(memory.StatusActive); m != nil {
			_, err := db.Supersede(ctx, m.ID, &memory.Memory{Project: testPID, Layer: layer, Body: w.body()}, memory.ActorUser)
			must(err)
		}
		return "supersede"
	case 4:
		if m := w.some(memory.StatusActive); m != nil {
			_, err := db.Archive(ctx, m.ID, "no longer true", memory.ActorUser)
			must(err)
		}
		return "archive"
	case 5:
		if m := w.some(memory.StatusArchived); m != nil {
			_, err := db.Unarchive(ctx, m.ID, memory.ActorUser)
			must(err)
		}
		return "restore"
	case 6:
		s := []memory.Status{memory.StatusActive, memory.StatusArchived, memory.StatusSuperseded}[w.r.IntN(3)]
		if m := w.some(s); m != nil {
			must(db.Forget(ctx, m.ID, memory.ActorUser))
		}
		return "forget"
	case 7:
		a, b := w.some(memory.StatusActive), w.some(memory.StatusActive)
		if a != nil && b != nil && a.ID != b.ID {
			must(db.Link(ctx, memory.Edge{From: a.ID, To: b.ID, Kind: []memory.EdgeKind{memory.EdgeRelatesTo, memory.EdgeBecause}[w.r.IntN(2)]}, memory.ActorUser))
		}
		return "link"
	case 8:
		d, err := db.Capture(ctx, memory.Draft{Project: testPID, Actor: memory.ActorAgent, Text: w.body()})
		must(err)
		w.drafts = append(w.drafts, d.ID)
		return "capture"
	case 9:
		if len(w.drafts) > 0 {
			i := w.r.IntN(len(w.drafts))
			must(db.DropDraft(ctx, w.drafts[i], memory.ActorUser))
			w.drafts = append(w.drafts[:i], w.drafts[i+1:]...)
		}
		return "drop a draft"
	case 10:
		var recs []memory.Record
		for i := range 1 + w.r.IntN(5) {
			recs = append(recs, memory.Record{Layer: layer, Body: w.body(), Ref: fmt.Sprintf("imp-%d-%d", w.n, i)})
		}
		_, err := db.Import(ctx, testPID, recs, memory.ActorUser)
		must(err)
		return "import"
	case 11:
		// An import that fails half way is taken back whole.
		var recs []memory.Record
		for range 3000 {
			recs = append(recs, memory.Record{Layer: layer, Body: w.body()})
		}
		cctx, cancel := context.WithCancel(ctx)
		db.testStep = func(stage string, n int) {
			if stage == "batch" && n == 1 {
				cancel()
			}
		}
		_, err := db.Import(cctx, testPID, recs, memory.ActorUser)
		db.testStep = nil
		cancel()
		if !errors.Is(err, context.Canceled) {
			w.t.Fatalf("an import cancelled half way: %v", err)
		}
		return "import cancelled half way"
	case 12, 13:
		ops := []memory.Op{{Kind: memory.OpCreate, Memory: &memory.Memory{ID: memory.NewID(), Layer: layer, Body: w.body()}}}
		if m := w.some(memory.StatusActive); m != nil {
			ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: m.ID, With: ops[0].Memory.ID})
		}
		if len(w.drafts) > 0 {
			d := w.drafts[w.r.IntN(len(w.drafts))]
			ops = append(ops, memory.Op{Kind: memory.OpDraftDone, Draft: d})
		}
		run, err := db.Apply(ctx, memory.Run{Project: testPID, Summary: "counted run"}, ops)
		must(err)
		if err == nil && k == 13 {
			_, err = db.UndoRun(ctx, testPID, run.ID, memory.ActorUser)
			must(err)
			return "consolidation run and its undo"
		}
		return "consolidation run"
	default:
		b := memory.IngestBatch{Project: testPID, Summary: "ingested"}
		for range 1 + w.r.IntN(3) {
			b.Drafts = append(b.Drafts, memory.Draft{ID: memory.NewID(), Project: testPID, Actor: memory.ActorAgent, Text: w.body()})
		}
		_, err := db.Ingest(ctx, b)
		must(err)
		for _, d := range b.Drafts {
			w.drafts = append(w.drafts, d.ID)
		}
		return "ingest"
	}
}

// TestCountsKeptEqualAScan: after random sequences of every kind of write
// (an import cancelled half way and taken back, runs and their undo,
// forgets among them), the counts kept equal a count key by key, and so
// after a reopen.
func TestCountsKeptEqualAScan(t *testing.T) {
	t.Parallel()
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			db, dir := openTest(t)
			w := &countsWorld{t: t, db: db, r: rand.New(rand.NewPCG(seed, 27))}
			for i := range 40 {
				what := w.step()
				keptEqualsScan(t, db, fmt.Sprintf("step %d (%s)", i, what))
			}
			db.Close()
			db = reopen(t, dir)
			keptEqualsScan(t, db, "after a reopen")
		})
	}
}

// TestCountsFoldKeepsThem: past foldEvery writes the deltas are folded
// into the counts, which stay right, and few deltas wait.
func TestCountsFoldKeepsThem(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	for i := range foldEvery + 10 {
		if _, err := db.Capture(ctx, memory.Draft{Project: testPID, Actor: memory.ActorAgent, Text: fmt.Sprintf("note %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	keptEqualsScan(t, db, "after a fold")
	waiting := 0
	if err := db.view(func(txn *badger.Txn) error { waiting = len(keys(txn, prefixCountDeltas)); return nil }); err != nil {
		t.Fatal(err)
	}
	if waiting >= foldEvery {
		t.Fatalf("%d deltas wait after %d writes: none was folded", waiting, foldEvery+10)
	}
	if st, _ := db.Stats(ctx); st.Drafts != foldEvery+10 {
		t.Fatalf("stats: %d drafts, want %d", st.Drafts, foldEvery+10)
	}
}

// TestCountsBuiltForAnOlderStore: a store written before the counts (here:
// its counts taken away) gets them at the next Open, counted key by key,
// and reads count key by key until then.
func TestCountsBuiltForAnOlderStore(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	w := &countsWorld{t: t, db: db, r: rand.New(rand.NewPCG(9, 9))}
	for range 20 {
		w.step()
	}
	want, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dropCounts(t, db)
	// Without counts, reads count the keys.
	if got, err := db.Stats(ctx); err != nil || got.Memories != want.Memories || got.Drafts != want.Drafts || got.Events != want.Events || got.Edges != want.Edges {
		t.Fatalf("without counts: %+v %v, want %+v", got, err, want)
	}
	db.Close()
	db = reopen(t, dir)
	keptEqualsScan(t, db, "after the open that built them")
	if got, _ := db.Stats(ctx); got.Memories != want.Memories || got.Drafts != want.Drafts || got.Events != want.Events || got.Edges != want.Edges {
		t.Fatalf("after the build: %+v, want %+v", got, want)
	}
}

// TestCountsCrashChild is the child half of TestKilledWriterKeepsCounts:
// writes of every kind in a loop, each acknowledged once it returned.
func TestCountsCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_COUNTS_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledWriterKeepsCounts")
	}
	db := openChild(dir)
	w := &countsWorld{t: t, db: db, r: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))}
	for {
		fmt.Println("ACK", w.step())
	}
}

// TestKilledWriterKeepsCounts: a writer killed at any point leaves counts
// that equal a count key by key once the store is opened again.
func TestKilledWriterKeepsCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for round := range 2 {
		killChildAfter(t, "TestCountsCrashChild", "CAIRN_COUNTS_CRASH_DIR="+dir, 40+20*round, func(string) {})
		db := reopen(t, dir)
		keptEqualsScan(t, db, fmt.Sprintf("after the kill of round %d", round))
		db.Close()
	}
}

// dropCounts deletes the kept counts, as a store written before them had
// none.
func dropCounts(t testing.TB, db *DB) {
	t.Helper()
	err := db.update(ctx, func(txn *badger.Txn) error {
		for _, k := range append(keys(txn, prefixCountDeltas), keyCounts) {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCountsBuild100k is the first open of a 100,000-memory store
// written before the counts: the open that counts it key by key, once.
func BenchmarkCountsBuild100k(b *testing.B) {
	dir := seededStore100k(b)
	for b.Loop() {
		b.StopTimer()
		db, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		dropCounts(b, db)
		db.Close()
		b.StartTimer()
		start := time.Now()
		if db, err = Open(dir, Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "open-ms")
		b.StopTimer()
		if st, _ := db.Stats(ctx); st.Memories != 100_000 {
			b.Fatalf("%d memories counted", st.Memories)
		}
		db.Close()
		b.StartTimer()
	}
}
