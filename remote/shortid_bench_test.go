package remote

import (
	"fmt"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// benchShortIDs shortens the ids of a page of 50 from 10,000 memories
// imported in one go (ids made in the same millisecond: the longest
// prefixes to find), as cairn list does before printing.
func benchShortIDs(b *testing.B, db *store.DB, st memory.Store) {
	recs := make([]memory.Record, 10_000)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact %d", i)}
	}
	if _, err := db.Import(ctx, pid, recs, memory.ActorSystem); err != nil {
		b.Fatal(err)
	}
	page, err := db.List(ctx, memory.Query{Project: pid})
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, m := range page.Memories {
		ids = append(ids, m.ID)
	}
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if s := memory.ShortIDsIn(ctx, st, ids); len(s) != len(ids) {
			b.Fatal(len(s))
		}
		d = append(d, time.Since(t0))
	}
	b.ReportMetric(p50(d), "p50-ms")
}

func BenchmarkShortIDsLocal(b *testing.B)  { db, _ := benchPair(b); benchShortIDs(b, db, db) }
func BenchmarkShortIDsRemote(b *testing.B) { db, c := benchPair(b); benchShortIDs(b, db, c) }
