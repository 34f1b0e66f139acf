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
	body := strings.Repeat("the deploy pipeline waits for the canary ", 40)
	for i := range 300 {
		remember(t, db, memory.LayerState, fmt.Sprint("note ", i), fmt.Sprint(body, i))
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
	if got < int64(300*len(body)/4) || got > du {
		t.Fatalf("disk %d bytes (LSM %d, logs %d); the files take %d", got, s.LSMBytes, s.VlogBytes, du)
	}
}
