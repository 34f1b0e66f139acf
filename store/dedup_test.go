package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

const otherPID = "00000000000000bb"

// rememberAs writes m (project testPID unless set) and fails the test on an error.
func rememberAs(t testing.TB, db *DB, m *memory.Memory, by memory.Actor) *memory.Memory {
	t.Helper()
	if m.Project == "" {
		m.Project = testPID
	}
	if m.Layer == 0 {
		m.Layer = memory.LayerInvariant
	}
	got, err := db.Remember(ctx, m, by)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// eventsOf are the timeline events about memory id, oldest first.
func eventsOf(t testing.TB, db *DB, pid, id string, kind memory.EventKind) []memory.Event {
	t.Helper()
	evs, err := db.Timeline(ctx, pid, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []memory.Event
	for _, e := range slices.Backward(evs) {
		if e.MemoryID == id && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func activeCount(t testing.TB, db *DB, pid string) int {
	t.Helper()
	c, err := db.Count(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	return c.Total(memory.StatusActive)
}

func TestSameFactReinforcesInsteadOfCopying(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	first := rememberAs(t, db, &memory.Memory{Layer: memory.LayerInvariant, Body: "Never commit .env files; the build reads secrets from vault."}, memory.ActorUser)

	// Other case, punctuation, spacing, layer and kind: the same fact.
	again := rememberAs(t, db, &memory.Memory{Layer: memory.LayerState,
		Body:   "  never COMMIT .env files —   the build reads secrets from Vault!! ",
		Source: memory.Source{Session: "s1", File: "notes.md", Line: 12}}, memory.ActorAgent)
	if again.ID != first.ID || again.Dedup == nil || again.Dedup.Reinforced != first.ID || again.Dedup.Near != "" {
		t.Fatalf("said again: id %s dedup %+v, want reinforced %s", again.ID, again.Dedup, first.ID)
	}
	if again.Salience.Reinforcements != 1 || again.Version != 1 || !again.UpdatedAt.Equal(first.UpdatedAt) ||
		again.Body != first.Body || again.Layer != memory.LayerInvariant || again.Provenance != first.Provenance {
		t.Fatalf("the stored memory is reinforced and otherwise as it was: %+v", again)
	}
	if n := activeCount(t, db, testPID); n != 1 {
		t.Fatalf("%d active memories, want 1 (no copy)", n)
	}
	evs := eventsOf(t, db, testPID, first.ID, memory.EventReinforce)
	if len(evs) != 1 || evs[0].Summary != "said again by agent (session s1, file notes.md:12)" || evs[0].Actor != memory.ActorAgent {
		t.Fatalf("reinforce events: %+v", evs)
	}

	// Only the parts of the source that are set.
	third := rememberAs(t, db, &memory.Memory{Body: "never commit .env files, the build reads secrets from vault"}, memory.ActorUser)
	if third.Salience.Reinforcements != 2 {
		t.Fatalf("third time: %d reinforcements, want 2", third.Salience.Reinforcements)
	}
	evs = eventsOf(t, db, testPID, first.ID, memory.EventReinforce)
	if len(evs) != 2 || evs[1].Summary != "said again by user" {
		t.Fatalf("reinforce events: %+v", evs)
	}
	// A write under a ref of its own is a memory of its own (and, saying
	// the same, proposed for merging).
	r := rememberAs(t, db, &memory.Memory{Ref: "no-env", Body: "Never commit .env files; the build reads secrets from vault."}, memory.ActorUser)
	if r.ID == first.ID || r.Ref != "no-env" || r.Dedup == nil || r.Dedup.Near != first.ID {
		t.Fatalf("with a ref: %s %+v", r.ID, r.Dedup)
	}
	// Never stored, and durable.
	db.Close()
	db = reopen(t, dir)
	got, err := db.Get(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Salience.Reinforcements != 2 || got.Dedup != nil {
		t.Fatalf("after reopen: reinforcements %d dedup %+v", got.Salience.Reinforcements, got.Dedup)
	}
	if h, _ := db.History(ctx, first.ID); len(h) != 1 {
		t.Fatalf("a reinforcement is not a version: %d versions", len(h))
	}
}

func TestDuplicatesOnlyWithinTheProjectAndAmongActiveMemories(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	if _, err := db.EnsureProject(ctx, memory.Project{ID: otherPID, Name: "other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: memory.GlobalID, Name: memory.GlobalName}); err != nil {
		t.Fatal(err)
	}
	const text = "The release checklist lives in docs/release.md"
	a := rememberAs(t, db, &memory.Memory{Body: text}, memory.ActorUser)
	for _, pid := range []string{otherPID, memory.GlobalID} {
		b := rememberAs(t, db, &memory.Memory{Project: pid, Body: text}, memory.ActorUser)
		if b.ID == a.ID || b.Dedup != nil || b.Project != pid {
			t.Fatalf("same text in project %s: %+v dedup %+v", pid, b, b.Dedup)
		}
	}
	// The global scope is a project like any other: its own duplicates fold.
	g := rememberAs(t, db, &memory.Memory{Project: memory.GlobalID, Body: strings.ToUpper(text)}, memory.ActorUser)
	if g.Dedup == nil || g.Dedup.Reinforced == "" || g.Project != memory.GlobalID {
		t.Fatalf("global said again: %+v", g.Dedup)
	}

	// An archived memory is not current: the fact said again is new.
	if _, err := db.Archive(ctx, a.ID, "moved", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	c := rememberAs(t, db, &memory.Memory{Body: text}, memory.ActorUser)
	if c.ID == a.ID || c.Dedup != nil {
		t.Fatalf("after archiving: %s dedup %+v", c.ID, c.Dedup)
	}
	// Unarchived, it is a candidate again (the oldest active one wins).
	if _, err := db.Unarchive(ctx, a.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if d := rememberAs(t, db, &memory.Memory{Body: text}, memory.ActorUser); d.Dedup == nil || d.Dedup.Reinforced != a.ID {
		t.Fatalf("after unarchiving: dedup %+v, want reinforced %s", d.Dedup, a.ID)
	}

	// A superseded memory is history: the old fact said again is new.
	if _, err := db.Archive(ctx, a.ID, "again", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Supersede(ctx, c.ID, &memory.Memory{Body: "The release checklist moved to the wiki"}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	e := rememberAs(t, db, &memory.Memory{Body: text}, memory.ActorUser)
	if e.ID == c.ID || e.ID == a.ID || e.Dedup != nil {
		t.Fatalf("after superseding: %s dedup %+v", e.ID, e.Dedup)
	}
}

// Two texts of similarity 11/12 whose signatures share a band (checked),
// with the same values: texts that differ in one ("wave32") are no merge.
const (
	nearA = "The decode kernel runs at 128 VGPRs on gfx942 with wave64 occupancy"
	nearB = "The decode kernel runs at 128 VGPRs on gfx942 with wave64 occupancy limits"
)

func TestNearDuplicateIsWrittenWithAMergeProposal(t *testing.T) {
	t.Parallel()
	na, nb := memory.Normalize(nearA), memory.Normalize(nearB)
	if !slices.ContainsFunc(memory.Signature(na), func(b string) bool { return slices.Contains(memory.Signature(nb), b) }) {
		t.Fatal("the test's texts must share a signature band")
	}
	sim := memory.Similarity(na, nb)
	db, _ := openTest(t)
	a := rememberAs(t, db, &memory.Memory{Body: nearA}, memory.ActorUser)
	rememberAs(t, db, &memory.Memory{Body: "The cache misses when a key has a trailing slash"}, memory.ActorUser)

	id := memory.NewID() // chosen, as the socket client does, so the write can be retried
	b := rememberAs(t, db, &memory.Memory{ID: id, Body: nearB}, memory.ActorAgent)
	if b.ID != id || b.Dedup == nil || b.Dedup.Near != a.ID || b.Dedup.Proposal == "" || b.Dedup.Reinforced != "" {
		t.Fatalf("near duplicate: id %s dedup %+v", b.ID, b.Dedup)
	}
	if n := activeCount(t, db, testPID); n != 3 {
		t.Fatalf("%d active memories, want 3 (the near duplicate is written)", n)
	}
	ps, err := db.Proposals(ctx, testPID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("says nearly the same as %s (similarity %.2f)", a.ID, sim)
	if len(ps) != 1 || ps[0].ID != b.Dedup.Proposal || ps[0].Kind != memory.ProposeMerge ||
		ps[0].Target != a.ID || ps[0].Other != b.ID || ps[0].Reason != want {
		t.Fatalf("proposals: %+v, want one merge of %s and %s: %q", ps, a.ID, b.ID, want)
	}
	if len(eventsOf(t, db, testPID, a.ID, memory.EventPropose)) != 1 {
		t.Fatal("no propose event on the timeline")
	}
	// Its reason reads with the title, and names no title when stored.
	title := func(id string) (string, bool) { m, err := db.Get(ctx, id); return m.Title, err == nil }
	if got := memory.Explain(ps[0].Reason, title); !strings.Contains(got, "'"+a.Title+"'") {
		t.Fatalf("explained reason: %q", got)
	}

	// The retry gets the same answer and makes nothing more.
	retry := rememberAs(t, db, &memory.Memory{ID: id, Body: nearB}, memory.ActorAgent)
	if retry.ID != id || retry.Dedup == nil || *retry.Dedup != *b.Dedup {
		t.Fatalf("retry: dedup %+v, want %+v", retry.Dedup, b.Dedup)
	}
	if ps, _ := db.Proposals(ctx, testPID, ""); len(ps) != 1 {
		t.Fatalf("%d proposals after the retry, want 1", len(ps))
	}
	if n := activeCount(t, db, testPID); n != 3 {
		t.Fatalf("%d active memories after the retry", n)
	}
	// A text that shares little is neither.
	c := rememberAs(t, db, &memory.Memory{Body: "The prefill kernel runs at 96 VGPRs on gfx90a"}, memory.ActorUser)
	if c.Dedup != nil {
		t.Fatalf("unrelated text: dedup %+v", c.Dedup)
	}
}

func TestRetryOfAReinforcingWriteReinforcesOnce(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	s := rememberAs(t, db, &memory.Memory{Body: "Run make lint before pushing"}, memory.ActorUser)
	id := memory.NewID()
	for i := range 3 {
		got := rememberAs(t, db, &memory.Memory{ID: id, Body: "run `make lint` before pushing."}, memory.ActorAgent)
		if got.ID != s.ID || got.Dedup == nil || got.Dedup.Reinforced != s.ID || got.Salience.Reinforcements != 1 {
			t.Fatalf("attempt %d: id %s reinforcements %d dedup %+v", i+1, got.ID, got.Salience.Reinforcements, got.Dedup)
		}
	}
	if _, err := db.Get(ctx, id); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the chosen id holds a memory: %v", err)
	}
	if evs := eventsOf(t, db, testPID, s.ID, memory.EventReinforce); len(evs) != 1 {
		t.Fatalf("%d reinforce events, want 1", len(evs))
	}
	// Another write under that id is a write of its own.
	other := rememberAs(t, db, &memory.Memory{ID: id, Body: "Tag releases from main only"}, memory.ActorAgent)
	if other.ID != id || other.Dedup != nil {
		t.Fatalf("another text under the chosen id: %s %+v", other.ID, other.Dedup)
	}
	// A different chosen id is a new saying of the fact.
	if got := rememberAs(t, db, &memory.Memory{ID: memory.NewID(), Body: "Run make lint before pushing"}, memory.ActorAgent); got.Salience.Reinforcements != 2 {
		t.Fatalf("a second saying: %d reinforcements, want 2", got.Salience.Reinforcements)
	}
}

func TestHigherRankedSayingRaisesTheStoredProvenance(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	inf := rememberAs(t, db, &memory.Memory{Body: "The nightly job runs at 02:00 UTC", Provenance: memory.ProvInferred}, memory.ActorAgent)
	if inf.Confidence != memory.ProvInferred.BaseConfidence() {
		t.Fatalf("confidence %v", inf.Confidence)
	}
	// Lower or equal rank: reinforced only.
	same := rememberAs(t, db, &memory.Memory{Body: "the nightly job runs at 02:00 utc", Provenance: memory.ProvInferred}, memory.ActorAgent)
	if same.Provenance != memory.ProvInferred || same.Version != 1 {
		t.Fatalf("equal rank changed provenance: %+v", same)
	}
	up := rememberAs(t, db, &memory.Memory{Body: "The nightly job runs at 02:00 UTC.", Provenance: memory.ProvUserStated}, memory.ActorUser)
	if up.ID != inf.ID || up.Provenance != memory.ProvUserStated || up.Confidence != memory.ProvUserStated.BaseConfidence() ||
		up.Version != 2 || up.Salience.Reinforcements != 2 || up.Dedup == nil || up.Dedup.Reinforced != inf.ID {
		t.Fatalf("raised: %+v dedup %+v", up, up.Dedup)
	}
	h, err := db.History(ctx, inf.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Provenance != memory.ProvInferred || h[0].Version != 1 || h[1].Provenance != memory.ProvUserStated {
		t.Fatalf("history: %d versions %+v", len(h), h)
	}
	evs := eventsOf(t, db, testPID, inf.ID, memory.EventReinforce)
	if len(evs) != 2 || !strings.Contains(evs[1].Summary, "provenance raised from inferred to user-stated (version 2)") {
		t.Fatalf("events: %+v", evs)
	}
	// Lower rank later: nothing is lowered.
	down := rememberAs(t, db, &memory.Memory{Body: "the nightly job runs at 02:00 UTC", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if down.Provenance != memory.ProvUserStated || down.Version != 2 || down.Confidence != up.Confidence {
		t.Fatalf("lower rank lowered the stored one: %+v", down)
	}
}

func TestSecretsAreRefusedBeforeDedup(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	s := rememberAs(t, db, &memory.Memory{Body: "The deploy reads its token from vault"}, memory.ActorUser)
	secret := "aws key AKIA" + "IOSFODNN7EXAMPLQ in use"
	for _, m := range []*memory.Memory{
		{Body: "the deploy reads its token from vault", Source: memory.Source{Session: secret}},
		{Body: "The deploy reads its token from vault", Source: memory.Source{File: secret}},
		{Body: "The deploy reads its token from vault " + secret},
	} {
		m.Project, m.Layer = testPID, memory.LayerInvariant
		_, err := db.Remember(ctx, m, memory.ActorAgent)
		if !errors.Is(err, memory.ErrSecret) || strings.Contains(err.Error(), "IOSFODNN7") {
			t.Fatalf("secret: %v", err)
		}
	}
	got, _ := db.Get(ctx, s.ID)
	if got.Salience.Reinforcements != 0 || len(eventsOf(t, db, testPID, s.ID, memory.EventReinforce)) != 0 {
		t.Fatalf("a refused write reinforced: %+v", got.Salience)
	}
}

func TestImportReinforcesTheSameFactOnce(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	s := rememberAs(t, db, &memory.Memory{Layer: memory.LayerInvariant, Body: "Never commit .env files"}, memory.ActorUser)
	recs := []memory.Record{
		{Layer: memory.LayerState, Body: "never commit .ENV files!"},                               // the same fact
		{Layer: memory.LayerState, Body: "The build uses make and go"},                             // new
		{Layer: memory.LayerState, Body: "never commit .env files", Status: memory.StatusArchived}, // history, not said again
	}
	res, err := db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || res.Unchanged != 1 || res.Reinforced != 1 || res.Updated != 0 {
		t.Fatalf("result: %+v", res)
	}
	got, _ := db.Get(ctx, s.ID)
	if got.Salience.Reinforcements != 1 || got.Version != 1 || got.Layer != memory.LayerInvariant || got.Body != s.Body {
		t.Fatalf("reinforced by the import: %+v", got)
	}
	evs, _ := db.Timeline(ctx, testPID, 1)
	if len(evs) != 1 || evs[0].Kind != memory.EventImport || !strings.Contains(evs[0].Summary, "1 said again: reinforced") {
		t.Fatalf("import event: %+v", evs)
	}

	// Undone with the import when it does not land.
	cctx, cancel := context.WithCancel(ctx)
	db.testStep = func(stage string, n int) {
		if stage == "commit" {
			cancel()
		}
	}
	if _, err := db.Import(cctx, testPID, recs[:1], memory.ActorUser); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	db.testStep = nil
	if got, _ := db.Get(ctx, s.ID); got.Salience.Reinforcements != 1 {
		t.Fatalf("a cancelled import left its reinforcement: %d", got.Salience.Reinforcements)
	}

	// Re-importing an export (records with ids) changes nothing.
	page, err := db.List(ctx, memory.Query{Project: testPID, Status: memory.StatusAny})
	if err != nil {
		t.Fatal(err)
	}
	var export []memory.Record
	for _, m := range page.Memories {
		export = append(export, memory.ToRecord(m, "test", nil))
	}
	before := dedupDump(t, db)
	res, err = db.Import(ctx, testPID, export, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged != len(export) || res.Reinforced != 0 || res.Added+res.Updated != 0 {
		t.Fatalf("re-import: %+v", res)
	}
	if after := dedupDump(t, db); !equalMaps(before, after) {
		t.Fatal("re-importing an export changed the store")
	}
}

// dedupDump is every memory record and index entry, by key.
func dedupDump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := string(it.Item().Key())
			if !strings.HasPrefix(k, "mem/") && !strings.HasPrefix(k, "idx/") && !strings.HasPrefix(k, "ver/") {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[k] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// dedupIndex lists the deduplication index entries of testPID.
func dedupIndex(t testing.TB, db *DB) []string {
	t.Helper()
	var out []string
	err := db.view(func(txn *badger.Txn) error {
		for _, p := range []string{"norm/", "nd/"} {
			for _, k := range keys(txn, []byte(prefixIdx(testPID)+p)) {
				out = append(out, string(k))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// wantIndex is the deduplication index the memories of testPID need.
func wantIndex(t testing.TB, db *DB) []string {
	t.Helper()
	page, err := db.List(ctx, memory.Query{Project: testPID, Status: memory.StatusAny, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range page.Memories {
		if m.Status == memory.StatusActive {
			for _, k := range dedupKeys(m) {
				out = append(out, string(k))
			}
		}
	}
	slices.Sort(out)
	return out
}

// unindexDedup turns a store into one written before the deduplication
// indexes: no entries, no marker.
func unindexDedup(t testing.TB, dir string) {
	t.Helper()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	drop := [][]byte{keyDedupIndexed, []byte(prefixIdx(testPID) + "norm/"), []byte(prefixIdx(testPID) + "nd/")}
	for _, p := range drop {
		if err := db.bdb.DropPrefix(p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBackfillIndexesAnOlderStore(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	var recs []memory.Record
	for i := range 40 {
		r := memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact %d: the service %d listens on port %d", i, i, 8000+i)}
		if i%5 == 0 {
			r.Status = memory.StatusArchived
		}
		recs = append(recs, r)
	}
	if _, err := db.Import(ctx, testPID, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	want := wantIndex(t, db)
	if len(want) == 0 || !slices.Equal(dedupIndex(t, db), want) {
		t.Fatal("writes do not maintain the index")
	}
	db.Close()
	unindexDedup(t, dir)

	db = reopen(t, dir)
	if got := dedupIndex(t, db); !slices.Equal(got, want) {
		t.Fatalf("after the backfill: %d entries, want %d", len(got), len(want))
	}
	// The fact said again is found in the older memories.
	got := rememberAs(t, db, &memory.Memory{Body: "Fact 7 — the service 7 listens on port 8007."}, memory.ActorUser)
	if got.Dedup == nil || got.Dedup.Reinforced == "" {
		t.Fatalf("after the backfill: dedup %+v", got.Dedup)
	}
	// Done once: a second open writes nothing; without the marker, the
	// same again.
	want = wantIndex(t, db)
	db.Close()
	db = reopen(t, dir)
	db.Close()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Delete(keyDedupIndexed) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, dir)
	if got := dedupIndex(t, db); !slices.Equal(got, want) {
		t.Fatalf("a second backfill: %d entries, want %d", len(got), len(want))
	}
}

// TestBackfillChild is the child half of TestKilledBackfillFinishesAtOpen:
// it opens the store and is killed by the backfill after its first batch.
func TestBackfillChild(t *testing.T) {
	dir := os.Getenv("CAIRN_BACKFILL_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledBackfillFinishesAtOpen")
	}
	importStep = func(stage string, n int) {
		if stage == "backfill" && n == 1 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	openChild(dir)
	fmt.Println("NOT KILLED")
}

func TestKilledBackfillFinishesAtOpen(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	// The child is killed after the first batch: the store needs more than
	// one for the kill to leave part of the index (half a batch more does;
	// two and a half batches took the race detector twice as long).
	n := backfillBatch + backfillBatch/2
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact %d: module m%d owns the table t%d", i, i, i)}
	}
	if _, err := db.Import(ctx, testPID, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	want := wantIndex(t, db)
	db.Close()
	unindexDedup(t, dir)

	cmd := childCmd(t, "TestBackfillChild")
	cmd.Env = append(os.Environ(), "CAIRN_BACKFILL_DIR="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed in the backfill: %v\n%s", err, out)
	}

	// Killed half way: part of the index, no marker.
	db, err = Open(dir, Options{readOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	part := dedupIndex(t, db)
	var marked bool
	db.view(func(txn *badger.Txn) (err error) { marked, err = exists(txn, keyDedupIndexed); return err })
	db.Close()
	if marked || len(part) == 0 || len(part) >= len(want) {
		t.Fatalf("after the kill: marker %v, %d of %d entries", marked, len(part), len(want))
	}
	db = reopen(t, dir)
	if got := dedupIndex(t, db); !slices.Equal(got, want) {
		t.Fatalf("after the next open: %d entries, want %d", len(got), len(want))
	}
}

// BenchmarkBackfill100k builds the deduplication index of a store of
// 100,000 memories written before it (one Open).
func BenchmarkBackfill100k(b *testing.B) {
	db, dir := openTest(b)
	seed(b, db, 100_000)
	db.Close()
	for b.Loop() {
		b.StopTimer()
		unindexDedup(b, dir)
		b.StartTimer()
		start := time.Now()
		db, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "open-ms")
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

// BenchmarkRememberDedup100k is one remember (fsynced) into a store of
// 100,000 memories that are near duplicates of each other (benchRecords),
// so the search reads its full quota of candidates.
func BenchmarkRememberDedup100k(b *testing.B) {
	db, _ := openTest(b)
	seed(b, db, 100_000)
	recs := benchRecords(100_000 + 200_000)
	i, near := 100_000, 0
	for b.Loop() {
		r := recs[i]
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: r.Layer, Title: r.Title, Body: r.Body}, memory.ActorUser)
		if err != nil {
			b.Fatal(err)
		}
		if m.Dedup != nil && m.Dedup.Near != "" {
			near++
		}
		i++
	}
	b.ReportMetric(float64(near)/float64(i-100_000), "proposals/op")
}

func TestNormalHashIsMemorysNormalHash(t *testing.T) {
	t.Parallel()
	for _, m := range []*memory.Memory{
		{Body: "Never commit .env files"},
		{Title: "A title of its own", Body: "and a body, v1.5 at 40%"},
		{Title: "Only a title"},
		{Body: "ÄÖÜ ﬁ ligatures — and ２ wide digits"},
	} {
		if got, want := normalHash(memory.NormalText(m)), memory.NormalHash(m); got != want {
			t.Errorf("%q: %s, memory.NormalHash says %s", m.Body, got, want)
		}
	}
}

func TestConcurrentWritersOfOneFactMakeOneMemory(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	const writers = 8
	got := make([]*memory.Memory, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			got[i], errs[i] = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerInvariant,
				Body: fmt.Sprintf("Release builds are signed%s", strings.Repeat("!", i))}, memory.ActorAgent)
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, m := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		ids[m.ID] = true
	}
	if len(ids) != 1 || activeCount(t, db, testPID) != 1 {
		t.Fatalf("%d memories from %d writers of one fact, want 1", len(ids), writers)
	}
	for id := range ids {
		if m, _ := db.Get(ctx, id); m.Salience.Reinforcements != writers-1 {
			t.Fatalf("%d reinforcements, want %d", m.Salience.Reinforcements, writers-1)
		}
	}
}

func TestBreadcrumbIsBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 500)
	got := breadcrumb(memory.Source{Session: long, File: long, Line: 3}, memory.ActorAgent)
	if n := len([]rune(got)); n > 300 || !strings.HasPrefix(got, "said again by agent (session éé") || !strings.HasSuffix(got, "…:3)") {
		t.Fatalf("breadcrumb of %d runes: %q", n, got)
	}
}

// Texts alike but for a value ("port 4000" and "port 4001", "wave64" and
// "wave32") are two facts or an update — consolidation's to read — never a
// merge proposal on the write path.
func TestNearTextsWithAnotherValueAreNoMerge(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	rememberAs(t, db, &memory.Memory{Body: nearA}, memory.ActorUser)
	b := rememberAs(t, db, &memory.Memory{Body: "The decode kernel runs at 128 VGPRs on gfx942 with wave32 occupancy"}, memory.ActorAgent)
	if b.Dedup != nil {
		t.Fatalf("a text with another value was taken for a near duplicate: %+v", b.Dedup)
	}
	if ps, err := db.Proposals(ctx, testPID, memory.ProposalOpen); err != nil || len(ps) != 0 {
		t.Fatalf("proposals %+v, %v", ps, err)
	}
	if n := activeCount(t, db, testPID); n != 2 {
		t.Fatalf("%d active memories, want both", n)
	}
}

// So are texts alike but for the environment or platform they hold in:
// "port 8080" and "port 8080 in staging" are two facts.
func TestNearTextsOfAnotherEnvironmentAreNoMerge(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	rememberAs(t, db, &memory.Memory{Body: "The API gateway listens on port 8080 behind the load balancer."}, memory.ActorUser)
	for _, body := range []string{
		"The API gateway listens on port 8080 behind the load balancer in staging.",
		"On Windows the API gateway listens on port 8080 behind the load balancer.",
	} {
		if m := rememberAs(t, db, &memory.Memory{Body: body}, memory.ActorUser); m.Dedup != nil {
			t.Errorf("%q taken for a near duplicate: %+v", body, m.Dedup)
		}
	}
	if ps, err := db.Proposals(ctx, testPID, memory.ProposalOpen); err != nil || len(ps) != 0 {
		t.Fatalf("proposals %+v, %v", ps, err)
	}
}
