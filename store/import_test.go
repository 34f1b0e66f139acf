package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

const (
	idA = "01JD0000000000000000000AAA"
	idB = "01JD0000000000000000000BBB"
	idC = "01JD0000000000000000000CCC"
)

func sampleRecords() []memory.Record {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	until := t0.Add(24 * time.Hour)
	return []memory.Record{
		{ID: idA, Ref: "old-bench", Layer: memory.LayerState, Body: "+229 % decode speed", Status: memory.StatusSuperseded,
			SupersededBy: idB, ValidUntil: &until, CreatedAt: t0, UpdatedAt: t0, ValidFrom: t0, Tags: []string{"bench"}},
		{ID: idB, Layer: memory.LayerState, Body: "+31 % decode speed", Supersedes: []string{idA},
			Edges: []memory.RecordEdge{{Kind: memory.EdgeSupersedes, To: idA}, {Kind: memory.EdgeEvidence, To: idC, Weight: 0.5}}},
		{ID: idC, Layer: memory.LayerEpisode, Title: "bench #41", Body: "measured on the MoE model", Status: memory.StatusArchived},
		{Layer: memory.LayerInvariant, Body: "never commit .env files"},
		{Ref: "pref-1", Layer: memory.LayerInvariant, Body: "prefers stdlib over deps", Provenance: memory.ProvUserCorrected},
	}
}

func TestImportIsIdempotent(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	res, err := db.Import(ctx, testPID, sampleRecords(), memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 5 || res.Updated != 0 || res.Edges != 2 {
		t.Fatalf("first import: %+v", res)
	}
	before, _ := db.Stats(ctx)
	res, err = db.Import(ctx, testPID, sampleRecords(), memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 0 || res.Updated != 0 || res.Unchanged != 5 || res.Edges != 0 {
		t.Fatalf("second import changed something: %+v", res)
	}
	after, _ := db.Stats(ctx)
	if before.Memories != after.Memories || before.Events != after.Events || before.Edges != after.Edges {
		t.Fatalf("stats moved: %+v → %+v", before, after)
	}
	a, _ := db.Get(ctx, idA)
	if a.Status != memory.StatusSuperseded || a.SupersededBy != idB || a.Ref != "old-bench" || !a.CreatedAt.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("imported fields: %+v", a)
	}
	c, _ := db.Get(ctx, idC)
	if c.Status != memory.StatusArchived {
		t.Fatalf("status: %s", c.Status)
	}
	// A changed record with a known ref becomes a new version.
	recs := sampleRecords()
	recs[4].Body = "prefers stdlib over deps, strongly"
	res, err = db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil || res.Updated != 1 || res.Unchanged != 4 {
		t.Fatalf("third import: %+v %v", res, err)
	}
	p, _ := db.GetByRef(ctx, testPID, "pref-1")
	if p.Version != 2 {
		t.Fatalf("updated by ref: %+v", p)
	}
}

func TestImportRefusesWholeInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		edit  func([]memory.Record) []memory.Record
		index int
		want  string
	}{
		{"bad layer", func(r []memory.Record) []memory.Record { r[3].Layer = 'Q'; return r }, 3, "layer"},
		{"empty", func(r []memory.Record) []memory.Record { r[2].Body, r[2].Title = "", ""; return r }, 2, "empty"},
		{"dangling edge", func(r []memory.Record) []memory.Record {
			r[1].Edges = append(r[1].Edges, memory.RecordEdge{Kind: memory.EdgeBecause, To: "01JD0000000000000000000ZZZ"})
			return r
		}, 1, "neither in the input"},
		{"bad id", func(r []memory.Record) []memory.Record { r[3].ID = "nope"; return r }, 3, "ULID"},
		{"dup id", func(r []memory.Record) []memory.Record { r[3].ID = idA; return r }, 3, "also appears"},
		{"dup ref", func(r []memory.Record) []memory.Record { r[3].Ref = "pref-1"; return r }, 4, "also appears"},
		{"secret", func(r []memory.Record) []memory.Record {
			r[4].Body = "token: ghp_" + strings.Repeat("aB3", 12)
			return r
		}, 4, "GitHub"},
		{"bad edge kind", func(r []memory.Record) []memory.Record { r[1].Edges[1].Kind = "likes"; return r }, 1, "link kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			_, err := db.Import(ctx, testPID, c.edit(sampleRecords()), memory.ActorUser)
			var ie *memory.ImportError
			if !errors.As(err, &ie) || ie.Index != c.index || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want record %d mentioning %q", err, c.index+1, c.want)
			}
			st, _ := db.Stats(ctx)
			if st.Memories != 0 || st.Events != 0 || st.Edges != 0 {
				t.Fatalf("refused import wrote: %+v", st)
			}
		})
	}
}

func TestLargeImportSpansTransactions(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	// Enough to span more than one transaction (asserted below), which is
	// all the test needs: 5,000 spanned three, in twice the race
	// detector's time.
	const n = 2500
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Body: strings.Repeat("x", 1500) + " " + newID()}
	}
	var batches int
	db.testStep = func(stage string, n int) {
		if stage == "batch" {
			batches = n
		}
	}
	res, err := db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil || res.Added != n {
		t.Fatalf("%+v %v", res, err)
	}
	if batches < 2 {
		t.Fatalf("the import fit in %d transaction: the test proves nothing", batches)
	}
	c, _ := db.Count(ctx, testPID)
	if c.Total(memory.StatusActive) != n {
		t.Fatalf("count %d", c.Total(memory.StatusActive))
	}
}

// An import repeated with the same id (a client retrying after a lost
// connection) returns the result of the attempt that landed, not "unchanged".
func TestImportRetryReturnsTheResultThatLanded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	db, err := Open(dir, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	ictx := memory.WithImportID(ctx, memory.NewID())
	first, err := db.Import(ictx, testPID, sampleRecords(), memory.ActorUser)
	if err != nil || first.Added != 5 || len(first.New) != 5 {
		t.Fatalf("first attempt: %+v %v", first, err)
	}
	again, err := db.Import(ictx, testPID, sampleRecords(), memory.ActorUser)
	if err != nil || !reflect.DeepEqual(again, first) {
		t.Fatalf("retry reports %+v (%v), the attempt that landed %+v", again, err, first)
	}
	evs, _ := db.Timeline(ctx, testPID, 10)
	if len(evs) != 1 {
		t.Fatalf("the retry wrote %d events", len(evs)-1)
	}
	// The same id for another import is a mistake, not a retry.
	if _, err := db.Import(ictx, testPID, sampleRecords()[:2], memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("an id reused for another import: %v", err)
	}
	if _, err := db.Import(memory.WithImportID(ctx, "nope"), testPID, sampleRecords(), memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("an import id that is not a ULID: %v", err)
	}
	// Another import of the same records is a new import: it is idempotent.
	other, err := db.Import(memory.WithImportID(ctx, memory.NewID()), testPID, sampleRecords(), memory.ActorUser)
	if err != nil || other.Unchanged != 5 || other.Added != 0 {
		t.Fatalf("a new import of the same records: %+v %v", other, err)
	}
	// Results are kept for retries, not for ever.
	db.Close()
	now = now.Add(2 * importKeep)
	db, err = Open(dir, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	late, err := db.Import(ictx, testPID, sampleRecords(), memory.ActorUser)
	if err != nil || late.Unchanged != 5 {
		t.Fatalf("after the result expired: %+v %v", late, err)
	}
}

// An attempt that was cancelled half way left nothing, so its retry
// imports everything and says so.
func TestImportRetryAfterACancelledAttempt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seedBase(t, dir)
	db := reopenWith(t, dir, importOptions)
	recs := bigImport(t, db)
	ictx, cancel := context.WithCancel(memory.WithImportID(ctx, memory.NewID()))
	db.testStep = func(stage string, n int) {
		if stage == "batch" && n == 2 {
			cancel()
		}
	}
	if _, err := db.Import(ictx, testPID, recs, memory.ActorUser); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled attempt: %v", err)
	}
	db.testStep = nil
	res, err := db.Import(memory.WithImportID(ctx, memory.ImportID(ictx)), testPID, recs, memory.ActorUser)
	if err != nil || res.Added != importNew || res.Updated != importBase || res.Edges != importLinks || len(res.New) != importNew {
		t.Fatalf("retry: added %d updated %d edges %d new %d, %v", res.Added, res.Updated, res.Edges, len(res.New), err)
	}
}

// A streamed import is written as it arrives, so what fails late (the
// source, or a record of a late chunk) finds batches already written:
// they are undone, and the store is as it was.
func TestStreamedImportFailingLateUndoesWhatItWrote(t *testing.T) {
	t.Parallel()
	// Three chunks of the stream; the stores have small memtables, so each
	// chunk is several batches (see importOptions).
	recs := make([]memory.Record, 2*memory.ImportChunk+500)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("streamed fact %d about src/pkg%d", i, i%7)}
	}
	badSource := errors.New("line 4001: malformed JSON")
	late := 2*memory.ImportChunk + 300
	secret := slices.Clone(recs)
	secret[late].Body = "token: ghp_" + strings.Repeat("aB3", 12)
	cases := []struct {
		name string
		next func() ([]memory.Record, error)
		want func(error) bool
	}{
		{"the source fails", func() func() ([]memory.Record, error) {
			chunks := memory.Chunks(recs[:2*memory.ImportChunk], memory.ImportChunk)
			return func() ([]memory.Record, error) {
				c, err := chunks()
				if errors.Is(err, io.EOF) {
					return nil, badSource
				}
				return c, err
			}
		}(), func(err error) bool { return errors.Is(err, badSource) }},
		{"a late record holds a secret", memory.Chunks(secret, memory.ImportChunk), func(err error) bool {
			var ie *memory.ImportError
			return errors.As(err, &ie) && ie.Index == late && errors.Is(err, memory.ErrSecret)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := reopenWith(t, t.TempDir(), importOptions)
			var batches, undone atomic.Int32
			db.testStep = func(stage string, n int) {
				switch stage {
				case "batch":
					batches.Add(1)
				case "rollback":
					undone.Add(1)
				}
			}
			_, err := db.ImportStream(ctx, testPID, c.next, memory.ActorUser)
			if !c.want(err) {
				t.Fatalf("err = %v", err)
			}
			if batches.Load() == 0 || undone.Load() != batches.Load() {
				t.Fatalf("%d batches written, %d undone: the test proves nothing", batches.Load(), undone.Load())
			}
			st, _ := db.Stats(ctx)
			if st.Memories != 0 || st.Events != 0 {
				t.Fatalf("refused import left: %+v", st)
			}
			if err := db.view(func(txn *badger.Txn) error {
				if ks := keys(txn, []byte("idx/"+testPID+"/")); len(ks) != 0 {
					return fmt.Errorf("%d index entries left, first %q", len(ks), ks[0])
				}
				if ks := keys(txn, prefixJournal); len(ks) != 0 {
					return fmt.Errorf("%d journal entries left", len(ks))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Memories of the largest size, imported and then imported again changed
// (each update keeps the old version twice: history and undo journal),
// fill the import's transactions to their bound: each must still fit
// under Badger's limit on a transaction (15 % of a memtable).
func TestImportOfTheLargestMemoriesFitsTransactions(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	r := rand.New(rand.NewPCG(5, 6))
	body := func(i, v int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "memory %d version %d:", i, v)
		for b.Len() < memory.MaxBody-16 {
			fmt.Fprintf(&b, " w%x", r.Uint32())
		}
		return b.String()
	}
	// What is bounded is one batch, so the records need only fill more
	// than one: each import must be cut into at least two batches (checked
	// below), which 48 do (120 did the same, in two and a half times the
	// race detector's time).
	recs := make([]memory.Record, 48)
	for i := range recs {
		recs[i] = memory.Record{ID: newID(), Layer: memory.LayerState, Title: fmt.Sprintf("large %d", i), Body: body(i, 1), Tags: []string{"a", "b", "c"}}
	}
	var batches int
	db.testStep = func(stage string, n int) {
		if stage == "batch" {
			batches = n
		}
	}
	if res, err := db.Import(ctx, testPID, recs, memory.ActorUser); err != nil || res.Added != len(recs) {
		t.Fatalf("first import: %+v %v", res, err)
	}
	if batches < 2 {
		t.Fatalf("the first import wrote %d batch: none was filled to its bound, the test proves nothing", batches)
	}
	for i := range recs {
		recs[i].Body = body(i, 2)
	}
	batches = 0
	if res, err := db.Import(ctx, testPID, recs, memory.ActorUser); err != nil || res.Updated != len(recs) {
		t.Fatalf("second import: %+v %v", res, err)
	}
	if batches < 2 {
		t.Fatalf("the second import wrote %d batch: none was filled to its bound, the test proves nothing", batches)
	}
}
