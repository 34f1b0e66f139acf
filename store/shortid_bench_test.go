package store

import (
	"testing"

	"cairn/memory"
)

// BenchmarkShortIDs100k shortens the ids of a first page (50) of a
// 100,000-memory store imported in one go: ids made in the same
// millisecond, the longest prefixes to find.
func BenchmarkShortIDs100k(b *testing.B) {
	db, _ := openTest(b)
	seed(b, db, 100_000)
	p, err := db.List(ctx, memory.Query{Project: testPID, Layer: memory.LayerDecision})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, len(p.Memories))
	for i, m := range p.Memories {
		ids[i] = m.ID
	}
	for b.Loop() {
		if s := memory.ShortIDsIn(ctx, db, ids); len(s) != len(ids) {
			b.Fatal(len(s))
		}
	}
}
