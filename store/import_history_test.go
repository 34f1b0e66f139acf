package store

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// An export's earlier versions and timeline come back as they were, once;
// an import refused later takes them back with everything else.
func TestImportKeepsHistoryAndTimeline(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	const ev1, ev2 = "01JD0000000000000000000EV1", "01JD0000000000000000000EV2"
	recs := []memory.Record{
		{ID: idA, Layer: memory.LayerState, Title: "decode speed", Body: "+31 %", Version: 3, CreatedAt: t0, UpdatedAt: t0.Add(2 * time.Hour),
			History: []memory.Record{
				{Layer: memory.LayerState, Title: "decode speed", Body: "+229 %", Version: 1, CreatedAt: t0, UpdatedAt: t0},
				{Layer: memory.LayerEpisode, Title: "decode", Body: "+30 %", Version: 2, Tags: []string{"bench"}, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)},
			}},
		{Event: &memory.Event{ID: ev1, Time: t0, Actor: memory.ActorAgent, Kind: memory.EventRemember, MemoryID: idA, Summary: "remembered"}},
		{Event: &memory.Event{ID: ev2, Time: t0.Add(time.Hour), Actor: memory.ActorUser, Kind: memory.EventEdit, MemoryID: idA, Summary: "version 2"}},
	}
	res, err := db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil || res.Added != 1 || res.Events != 2 {
		t.Fatalf("import: %+v %v", res, err)
	}
	hist, err := db.History(ctx, idA)
	if err != nil || len(hist) != 3 {
		t.Fatalf("history: %d %v", len(hist), err)
	}
	if hist[0].Body != "+229 %" || hist[1].Layer != memory.LayerEpisode || hist[1].Tags[0] != "bench" || !hist[1].UpdatedAt.Equal(t0.Add(time.Hour)) || hist[2].Version != 3 {
		t.Fatalf("versions: %+v %+v %+v", hist[0], hist[1], hist[2])
	}
	tl, _ := db.Timeline(ctx, testPID, 10)
	// Newest first: the import's own event, then the two as they were.
	if len(tl) != 3 || tl[0].Kind != memory.EventImport || tl[1].ID != ev2 || tl[2].ID != ev1 || tl[2].Actor != memory.ActorAgent || !tl[2].Time.Equal(t0) {
		t.Fatalf("timeline: %+v", tl)
	}
	// Again: nothing written, not even the import's event.
	res, err = db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil || res.Events != 0 || res.Unchanged != 1 {
		t.Fatalf("second import: %+v %v", res, err)
	}
	if again, _ := db.Timeline(ctx, testPID, 10); len(again) != 3 {
		t.Fatalf("second import wrote %d events", len(again)-3)
	}

	// Into another project, refused late (the source fails after
	// batches were written): no version, no event stays behind.
	const otherPID = "00000000000000bb"
	if _, err := db.EnsureProject(ctx, memory.Project{ID: otherPID, Name: "other"}); err != nil {
		t.Fatal(err)
	}
	more := slices.Clone(recs)
	more[0].ID = idB
	// Two chunks of filler after the history's: what is refused late
	// needs batches written before it (asserted below), not many of them
	// (12,000 records took the race detector three times as long).
	for i := range 2 * memory.ImportChunk {
		more = append(more, memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("filler %d", i)})
	}
	var batches atomic.Int32
	db.testStep = func(stage string, n int) {
		if stage == "batch" {
			batches.Add(1)
		}
	}
	chunks := memory.Chunks(more, memory.ImportChunk)
	broken := errors.New("the source broke")
	_, err = db.ImportStream(ctx, otherPID, func() ([]memory.Record, error) {
		c, err := chunks()
		if errors.Is(err, io.EOF) {
			return nil, broken
		}
		return c, err
	}, memory.ActorUser)
	if !errors.Is(err, broken) || batches.Load() == 0 {
		t.Fatalf("err = %v after %d batches: the test proves nothing", err, batches.Load())
	}
	if tl, _ := db.Timeline(ctx, otherPID, 10); len(tl) != 0 {
		t.Fatalf("a refused import left events: %+v", tl)
	}
	if err := db.view(func(txn *badger.Txn) error {
		if ks := keys(txn, prefixVersions(idB)); len(ks) != 0 {
			return fmt.Errorf("a refused import left %d versions", len(ks))
		}
		if ks := keys(txn, prefixEventsOfMem(idA)); len(ks) != 2 {
			return fmt.Errorf("%d events indexed under %s, want the first project's 2", len(ks), idA)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestImportRefusesBadHistoryAndEvents(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	cases := []struct {
		name string
		rec  memory.Record
		want string
	}{
		{"version out of order", memory.Record{Layer: memory.LayerState, Body: "b", Version: 2,
			History: []memory.Record{{Layer: memory.LayerState, Body: "a", Version: 2}}}, "out of order"},
		{"secret in a version", memory.Record{Layer: memory.LayerState, Body: "b", Version: 2,
			History: []memory.Record{{Layer: memory.LayerState, Body: "token: ghp_" + strings.Repeat("aB3", 12), Version: 1}}}, "history: version 1"},
		{"event with more", memory.Record{Layer: memory.LayerState, Event: &memory.Event{ID: idC, Kind: memory.EventEdit, Time: time.Now()}}, "only"},
		{"event without time", memory.Record{Event: &memory.Event{ID: idC, Kind: memory.EventEdit}}, "no time"},
		{"secret in an event", memory.Record{Event: &memory.Event{ID: idC, Kind: memory.EventEdit, Time: time.Now(), Summary: "token: ghp_" + strings.Repeat("aB3", 12)}}, "event summary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.Import(ctx, testPID, []memory.Record{c.rec}, memory.ActorUser)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if st, _ := db.Stats(ctx); st.Memories != 0 || st.Events != 0 {
		t.Fatalf("refused imports left %d memories, %d events", st.Memories, st.Events)
	}
}
