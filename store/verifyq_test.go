package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// clock is a settable time for a store's Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func openClocked(t *testing.T, dir string, c *clock) *DB {
	t.Helper()
	db, err := Open(dir, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// scanQueue is the verify-first queue as it was computed before the index:
// every active memory listed, newest first, those under the threshold kept.
func scanQueue(t *testing.T, db *DB, now time.Time) []string {
	t.Helper()
	var out []string
	q := memory.Query{Project: testPID, Limit: 1000}
	for {
		page, err := db.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Memories {
			if memory.TrustAt(m, now) < memory.TrustThreshold {
				out = append(out, m.ID)
			}
		}
		if page.Next == "" {
			return out
		}
		q.After = page.Next
	}
}

func indexedQueue(t *testing.T, db *DB, now time.Time) []string {
	t.Helper()
	ms, err := db.VerifyFirst(ctx, testPID, now)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// sameQueue compares the indexed queue with a full scan at many moments:
// fixed ones from start on, and around the second every indexed memory's
// trust falls (the second before, at, half past and after it).
func sameQueue(t *testing.T, db *DB, start time.Time, what string) {
	t.Helper()
	nows := []time.Time{start}
	for _, d := range []int{1, 30, 61, 200, 338, 365, 500, 608, 700, 731, 2000} {
		nows = append(nows, start.AddDate(0, 0, d))
	}
	if err := db.view(func(txn *badger.Txn) error {
		for _, k := range keys(txn, prefixVerify(testPID)) {
			var sec int64
			fmt.Sscanf(string(k[len(prefixVerify(testPID)):len(prefixVerify(testPID))+16]), "%x", &sec)
			for _, d := range []time.Duration{-time.Second, -time.Second / 2, 0, time.Second / 2, time.Second, 2 * time.Second} {
				nows = append(nows, time.Unix(sec, 0).Add(d))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, now := range nows {
		want, got := scanQueue(t, db, now), indexedQueue(t, db, now)
		if !slices.Equal(want, got) {
			t.Fatalf("%s, at %s: indexed queue %v, a full scan %v", what, now.Format(time.RFC3339Nano), got, want)
		}
	}
}

// The queue read from the index is the queue a full scan finds, in the
// same order, at every moment — whatever moved the inputs of trust: time,
// a binding that moved, a review, a reopen, an edit, supersession,
// archive, forget — and after a reopen of the store.
func TestVerifyFirstIsTheFullScan(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	dir := t.TempDir()
	db := openClocked(t, dir, c)
	add := func(title string, conf float64, ws ...memory.Watermark) *memory.Memory {
		t.Helper()
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Title: title,
			Body: "the fact called " + title, Confidence: conf, Watermarks: ws}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	file := memory.Watermark{Kind: memory.WatermarkFile, Target: "src/auth.go", Fingerprint: "sha256:01", State: memory.WatermarkIntact, StampedAt: start}
	dir1 := memory.Watermark{Kind: memory.WatermarkGit, Target: "src/", Fingerprint: "commit:a tree:b", State: memory.WatermarkIntact, StampedAt: start}
	repo := memory.Watermark{Kind: memory.WatermarkGit, Target: "", Fingerprint: "commit:a tree:c", State: memory.WatermarkIntact, StampedAt: start}

	add("stated", 0)                 // 0.9: never under
	drifts := add("drifts", 0.55)    // under after about 338 days
	add("drifts later", 0.6)         // about 608 days
	late := add("drifts last", 0.62) // about 708 days
	add("weak", 0.45)                // always under
	bound := add("bound to a file", 0, file)
	inDir := add("bound to a directory", 0.95, dir1)
	inRepo := add("bound to the repository", 0.95, repo)
	toReject := add("to reject", 0)
	toArchive := add("weak, to archive", 0.3)
	toSupersede := add("weak, to supersede", 0.3)
	toForget := add("weak, to forget", 0.3)
	toEdit := add("to edit", 0.9)
	decision, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerDecision, Body: "we chose the planner B", Confidence: 0.9}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	c.Set(start.AddDate(0, 0, 100))
	add("written later", 0.56)
	sameQueue(t, db, start, "as written")

	moved := func(m *memory.Memory, state memory.WatermarkState) {
		t.Helper()
		ws := slices.Clone(m.Watermarks)
		ws[0].State = state
		if _, err := db.SetWatermarks(ctx, m.ID, ws, "wake check", memory.ActorSystem); err != nil {
			t.Fatal(err)
		}
	}
	moved(bound, memory.WatermarkMoved)
	moved(inDir, memory.WatermarkMoved)
	moved(inRepo, memory.WatermarkMoved) // 0.95 × 0.75: still served
	sameQueue(t, db, start, "after a wake check found bindings moved")
	moved(bound, memory.WatermarkIntact)
	moved(inRepo, memory.WatermarkGone)
	sameQueue(t, db, start, "after a binding came back and another went")

	if _, err := db.Review(ctx, toReject.ID, memory.VerdictReject, nil, "rejected", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	c.Set(start.AddDate(0, 0, 300))
	confirmed := []memory.Watermark{{Kind: memory.WatermarkNone, State: memory.WatermarkUnbound, StampedAt: c.Now()}}
	if _, err := db.Review(ctx, drifts.ID, memory.VerdictConfirm, confirmed, "confirmed", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Apply(ctx, memory.Run{Project: testPID, Summary: "test run"}, []memory.Op{{Kind: memory.OpReopen, Target: decision.ID, Reason: "its evidence changed"}}); err != nil {
		t.Fatal(err)
	}
	sameQueue(t, db, start, "after reviews and a reopen")

	if _, err := db.Archive(ctx, toArchive.ID, "weak", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Supersede(ctx, toSupersede.ID, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "the corrected fact", Confidence: 0.58}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := db.Forget(ctx, toForget.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	conf := 0.52
	if _, err := db.Edit(ctx, toEdit.ID, memory.Patch{Confidence: &conf}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	conf = 0.95
	if _, err := db.Edit(ctx, late.ID, memory.Patch{Confidence: &conf}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	sameQueue(t, db, start, "after archive, supersede, forget and edits")
	if _, err := db.Unarchive(ctx, toArchive.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	sameQueue(t, db, start, "after unarchive")
	if got := indexedQueue(t, db, start.AddDate(3, 0, 0)); len(got) < 8 {
		t.Fatalf("three years on the queue holds %d memories: the comparison proves little", len(got))
	}

	db.Close()
	db = openClocked(t, dir, c)
	sameQueue(t, db, start, "after a reopen")
}

// The index is read up to now only: the memories read are those in the
// queue, not every memory whose trust falls some day.
func TestVerifyFirstReadsOnlyWhatIsDue(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	db := openClocked(t, t.TempDir(), c)
	for i := range 50 {
		conf := 0.9
		switch {
		case i%5 == 0:
			conf = 0.4 // under now
		case i%5 == 1:
			conf = 0.55 // under in about a year
		}
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: fmt.Sprintf("fact %d", i), Confidence: conf}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	count := func(now time.Time) (read, queued int) {
		if err := db.view(func(txn *badger.Txn) error {
			ids, err := verifyCandidates(txn, testPID, now)
			read = len(ids)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return read, len(indexedQueue(t, db, now))
	}
	if read, queued := count(start); read != 10 || queued != 10 {
		t.Fatalf("now: %d read for a queue of %d, want 10 and 10", read, queued)
	}
	if read, queued := count(start.AddDate(2, 0, 0)); read != 20 || queued != 20 {
		t.Fatalf("in two years: %d read for a queue of %d, want 20 and 20", read, queued)
	}
}

// fallsAt is exact to the second: trust holds before it and is under the
// threshold a second later, for memories of every kind of trust input.
func TestFallsAtIsTheCrossing(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 13))
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	states := []memory.WatermarkState{memory.WatermarkIntact, memory.WatermarkMoved, memory.WatermarkGone}
	for i := range 2000 {
		m := &memory.Memory{ID: fmt.Sprintf("%026d", i), Project: testPID, Status: memory.StatusActive,
			Confidence: float64(r.IntN(101)) / 100, UpdatedAt: base.Add(time.Duration(r.Int64N(int64(3 * 365 * 24 * time.Hour))))}
		switch r.IntN(6) {
		case 0:
			m.Watermarks = []memory.Watermark{{Kind: memory.WatermarkFile, Target: "a.go", State: states[r.IntN(3)]}}
		case 1:
			m.Watermarks = []memory.Watermark{{Kind: memory.WatermarkNone, State: memory.WatermarkUnbound, StampedAt: m.UpdatedAt.AddDate(0, 0, r.IntN(400)-200)}}
		case 2:
			m.RejectedAt = m.UpdatedAt
		case 3:
			m.ReopenedAt = m.UpdatedAt
		}
		sec, ok := fallsAt(m)
		under := func(t time.Time) bool { return memory.TrustAt(m, t) < memory.TrustThreshold }
		switch {
		case !ok:
			if under(time.Unix(lastSecond, 0)) {
				t.Fatalf("%+v: never falls, yet is under the threshold at the end of time", m)
			}
		case sec == 0:
			if !under(time.Unix(0, 0)) {
				t.Fatalf("%+v: said under from the start, but trust %.3f then", m, memory.TrustAt(m, time.Unix(0, 0)))
			}
		default:
			if under(time.Unix(sec, 0)) || !under(time.Unix(sec+1, 0)) {
				t.Fatalf("%+v: falls at %d, trust %.6f then and %.6f a second later", m, sec,
					memory.TrustAt(m, time.Unix(sec, 0)), memory.TrustAt(m, time.Unix(sec+1, 0)))
			}
		}
		if m.Status = memory.StatusArchived; verifyKeys(m) != nil {
			t.Fatalf("an archived memory has an entry in the verify-first index")
		}
	}
}

// A store written before the index gets it at its next Open; one whose
// index is of another version gets it anew, its old entries gone; and
// until it has one, the queue is found by reading every memory.
func TestVerifyIndexBackfill(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	dir := t.TempDir()
	db := openClocked(t, dir, c)
	// More than one backfill batch, so that the backfill goes on past a
	// batch's end; how many more does not matter (2,500 were two and a
	// half batches, for twice the race detector's time).
	const stored = backfillBatch + backfillBatch/5
	for i := range stored {
		conf := []float64{0.9, 0.4, 0.55, 0.61}[i%4]
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.Layers[i%6], Body: distinctFact("backfill", i), Confidence: conf}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	later := start.AddDate(1, 2, 0)
	want := indexedQueue(t, db, later)
	if len(want) != stored/2 || !slices.Equal(want, scanQueue(t, db, later)) {
		t.Fatalf("queue of %d before the index was dropped", len(want))
	}
	entries := func() [][]byte {
		var ks [][]byte
		if err := db.view(func(txn *badger.Txn) error { ks = keys(txn, prefixVerifyAll); return nil }); err != nil {
			t.Fatal(err)
		}
		return ks
	}
	built := entries()

	// An older store: no index, no marker. The queue is still whole.
	if err := db.dropKeys(prefixVerifyAll); err != nil {
		t.Fatal(err)
	}
	if err := db.writeUnchecked(func(txn *badger.Txn) error { return txn.Delete(keyVerifyIndexed) }); err != nil {
		t.Fatal(err)
	}
	if got := indexedQueue(t, db, later); !slices.Equal(got, want) {
		t.Fatalf("without its index the queue is %d long, want %d", len(got), len(want))
	}
	db.Close()
	db = openClocked(t, dir, c)
	if got := entries(); !slices.EqualFunc(got, built, slices.Equal) {
		t.Fatalf("backfill wrote %d entries, the writes had %d", len(got), len(built))
	}
	if got := indexedQueue(t, db, later); !slices.Equal(got, want) {
		t.Fatalf("after the backfill the queue is %d long, want %d", len(got), len(want))
	}

	// An index of another version: its entries go, the index is rebuilt.
	stale := keyVerify(testPID, 5, "01ZZZZZZZZZZZZZZZZZZZZZZZZ")
	if err := db.writeUnchecked(func(txn *badger.Txn) error {
		if err := txn.Set(stale, nil); err != nil {
			return err
		}
		return txn.Set(keyVerifyIndexed, []byte("0"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openClocked(t, dir, c)
	if got := entries(); !slices.EqualFunc(got, built, slices.Equal) {
		t.Fatalf("rebuilt index has %d entries, want %d", len(got), len(built))
	}
	for _, k := range entries() {
		if strings.Contains(string(k), "01ZZZZZZZZ") {
			t.Fatal("an entry of the old index survived its rebuild")
		}
	}
}

// goldenMemories cover each branch of memory.TrustAt.
func goldenMemories(t0 time.Time) []*memory.Memory {
	unbound := func(title string, conf float64) *memory.Memory {
		return &memory.Memory{Title: title, Status: memory.StatusActive, Confidence: conf, UpdatedAt: t0}
	}
	bound := func(title string, conf float64, w memory.Watermark) *memory.Memory {
		m := unbound(title, conf)
		m.Watermarks = []memory.Watermark{w}
		return m
	}
	reopened, rejected := unbound("reopened", 0.9), unbound("rejected", 0.9)
	reopened.ReopenedAt, rejected.RejectedAt = t0, t0
	restamped := unbound("confirmed later", 0.55)
	restamped.Watermarks = []memory.Watermark{{Kind: memory.WatermarkNone, State: memory.WatermarkUnbound, StampedAt: t0.AddDate(0, 6, 0)}}
	return []*memory.Memory{
		unbound("stated", 0.9), unbound("drifts in the first year", 0.55), unbound("drifts in the second", 0.6),
		unbound("weak", 0.45), restamped, reopened, rejected,
		bound("file moved", 0.9, memory.Watermark{Kind: memory.WatermarkFile, Target: "a.go", State: memory.WatermarkMoved}),
		bound("flag moved", 0.9, memory.Watermark{Kind: memory.WatermarkFlag, Target: "A_B", State: memory.WatermarkMoved}),
		bound("directory moved", 0.95, memory.Watermark{Kind: memory.WatermarkGit, Target: "src/", State: memory.WatermarkMoved}),
		bound("repository moved", 0.9, memory.Watermark{Kind: memory.WatermarkGit, State: memory.WatermarkMoved}),
		bound("file gone", 0.9, memory.Watermark{Kind: memory.WatermarkFile, Target: "a.go", State: memory.WatermarkGone}),
		bound("file intact", 0.55, memory.Watermark{Kind: memory.WatermarkFile, Target: "a.go", State: memory.WatermarkIntact}),
	}
}

// The index holds what memory.TrustAt and TrustThreshold said when its
// entries were written. This test fails when either changes: then raise
// verifyIndexVersion (stores rebuild their index at the next Open) and
// write the new seconds here.
func TestVerifyIndexFollowsTheTrustFormula(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := map[string]int64{ // -1: never under the threshold
		"stated": -1, "drifts in the first year": 1796365963, "drifts in the second": 1819785600,
		"weak": 0, "confirmed later": 1812004363, "reopened": 0, "rejected": 0,
		"file moved": 0, "flag moved": 0, "directory moved": 0, "repository moved": -1, "file gone": 0, "file intact": -1,
	}
	for _, m := range goldenMemories(t0) {
		sec, ok := fallsAt(m)
		if !ok {
			sec = -1
		}
		if sec != want[m.Title] {
			t.Errorf("%s: trust falls at %d, the index of version %s says %d — raise verifyIndexVersion", m.Title, sec, verifyIndexVersion, want[m.Title])
		}
	}
	if verifyIndexVersion != "1" {
		t.Errorf("version %s: write its seconds above", verifyIndexVersion)
	}
}
