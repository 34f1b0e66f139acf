package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

// TestStatsCountsTheDisk: right after writes, with nothing compacted yet,
// the disk figure is what the store's files take (it said 0 MiB: Badger's
// own size reads metrics, which the store turns off).
func TestStatsCountsTheDisk(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	// Bodies of 1.7 KB that share no word but stop words: near-duplicate
	// bodies made each write compare hundreds of others, which is not
	// what this test is about.
	written := 0
	for i := range 300 {
		body := strings.Repeat(distinctFact("canary", i)+" ", 1700/len(distinctFact("canary", i)))
		written += len(body)
		remember(t, db, memory.LayerState, fmt.Sprint("note ", i), body)
	}
	s, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var du int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			du += onDisk(fi)
		}
		return nil
	})
	got := s.LSMBytes + s.VlogBytes
	if got < int64(written/4) || got > du {
		t.Fatalf("disk %d bytes (LSM %d, logs %d); the files take %d", got, s.LSMBytes, s.VlogBytes, du)
	}
}
