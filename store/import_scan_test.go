package store

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"cairn/memory"
)

// An import into a project larger than what its first chunks read of the
// project's hash indexes finds every stored fact it says again, in the
// chunks before the scan is whole (looked up) and after (filtered by it):
// the same text is unchanged, the same words in other case and spacing
// reinforce, an archived copy is history, and the rest is new.
func TestImportMatchesWhileAndAfterReadingTheIndexes(t *testing.T) {
	db, _ := openTest(t)
	const stored = 120
	recs := make([]memory.Record, stored)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.LayerState, Title: fmt.Sprintf("fact %d", i), Body: fmt.Sprintf("the cache of service %d keeps entries for %d minutes", i, i+3)}
	}
	if res, err := db.Import(ctx, testPID, recs, memory.ActorUser); err != nil || res.Added != stored {
		t.Fatal(res, err)
	}
	old := scanPerRecord
	scanPerRecord = 3 // 12 records a chunk read 36 keys of each index: whole at the fourth of six chunks
	t.Cleanup(func() { scanPerRecord = old })

	var again []memory.Record
	for i := 0; i < stored; i += 5 {
		again = append(again,
			recs[i], // the same content: unchanged
			memory.Record{Layer: memory.LayerState, Body: strings.ToUpper(recs[i+1].Title + "  " + recs[i+1].Body)}, // the same fact: reinforced
			memory.Record{Layer: memory.LayerState, Title: fmt.Sprintf("new fact %d", i), Body: "never seen before " + fmt.Sprint(i)},
		)
	}
	next, n := 0, 0
	res, err := db.ImportStream(ctx, testPID, func() ([]memory.Record, error) {
		if next == len(again) {
			return nil, io.EOF
		}
		c := again[next:min(next+12, len(again))]
		next += len(c)
		n++
		return c, nil
	}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Fatalf("the import came in %d chunks: want 6", n)
	}
	want := stored / 5
	if res.Unchanged != 2*want || res.Reinforced != want || res.Added != want || res.Updated != 0 {
		t.Fatalf("%d added, %d updated, %d unchanged (%d reinforced); want %d added, %d unchanged (%d reinforced)", res.Added, res.Updated, res.Unchanged, res.Reinforced, want, 2*want, want)
	}
	p, err := db.List(ctx, memory.Query{Project: testPID, Status: memory.StatusActive, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Memories) != stored+want {
		t.Fatalf("%d active memories, want %d", len(p.Memories), stored+want)
	}
	for _, m := range p.Memories {
		said := m.Title < "new" && m.Title != "" && sameIndexMod(m.Title, 5, 1)
		if want := map[bool]int{true: 1, false: 0}[said]; m.Salience.Reinforcements != want {
			t.Fatalf("%q reinforced %d times, want %d", m.Title, m.Salience.Reinforcements, want)
		}
	}
}

// sameIndexMod reports whether the number ending title ("fact 12") is r modulo d.
func sameIndexMod(title string, d, r int) bool {
	var n int
	if _, err := fmt.Sscanf(title, "fact %d", &n); err != nil {
		return false
	}
	return n%d == r
}
