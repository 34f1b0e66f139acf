package store

import (
	"fmt"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// seedDirect writes n memories straight through writeMem (counted, as
// every write is: see commit), 1,000 a transaction (an import's journal, events and deduplication checks would
// take minutes at a million): lowNow of them are under the trust
// threshold now, one in ten falls under it in a year or two (in the
// verify-first index, not yet due), the rest never does.
func seedDirect(b *testing.B, db *DB, n, lowNow int) {
	b.Helper()
	now := db.now().UTC()
	for i := 0; i < n; i += 1000 {
		err := db.commit(func(txn *badger.Txn) error {
			for j := i; j < min(i+1000, n); j++ {
				conf := 0.9
				switch {
				case j%(n/lowNow) == 0:
					conf = 0.4
				case j%10 == 1:
					conf = 0.55
				}
				m := &memory.Memory{ID: memory.NewID(), Project: testPID, Layer: memory.Layers[j%6], Kind: memory.DefaultKind(memory.Layers[j%6]),
					Title: fmt.Sprintf("memory %d about src/pkg%d/file%d.go", j, j%97, j%13),
					Body: fmt.Sprintf("Observed on run %d: the cache in pkg%d misses when the key has a trailing slash; "+
						"fixed by normalising paths before lookup. See bench #%d.", j, j%97, j%500),
					Tags: []string{fmt.Sprintf("pkg%d", j%97)}, Provenance: memory.ProvUserStated, Confidence: conf,
					CreatedAt: now, UpdatedAt: now, ValidFrom: now, Status: memory.StatusActive, Version: 1}
				if err := writeMem(txn, m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyFirst reads the verify-first queue (500 memories under
// the threshold) of stores of 100,000 and 1,000,000 memories, and counts
// the store (cairn stats); at 100,000 also the full scan the queue was
// before its index. Run it with -benchtime 20x: the 1M store takes minutes
// to write.
func BenchmarkVerifyFirst(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		db, err := Open(b.TempDir(), Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
			b.Fatal(err)
		}
		seedDirect(b, db, n, 500)
		// A store at rest: the compactions that a million fresh writes start
		// would otherwise run during (and slow) what is measured.
		if err := db.bdb.Flatten(2); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dk", n/1000)
		b.Run("queue-"+name, func(b *testing.B) {
			for b.Loop() {
				ms, err := db.VerifyFirst(ctx, testPID, time.Now())
				if err != nil || len(ms) != 500 {
					b.Fatal(err, len(ms))
				}
			}
		})
		b.Run("stats-"+name, func(b *testing.B) {
			for b.Loop() {
				s, err := db.Stats(ctx)
				if err != nil || s.Memories != n {
					b.Fatal(err, s.Memories)
				}
			}
		})
		if n == 100_000 {
			b.Run("scan-"+name, func(b *testing.B) {
				for b.Loop() {
					low, q := 0, memory.Query{Project: testPID, Limit: 1000}
					now := time.Now()
					for {
						page, err := db.List(ctx, q)
						if err != nil {
							b.Fatal(err)
						}
						for _, m := range page.Memories {
							if memory.TrustAt(m, now) < memory.TrustThreshold {
								low++
							}
						}
						if page.Next == "" {
							break
						}
						q.After = page.Next
					}
					if low != 500 {
						b.Fatal(low)
					}
				}
			})
		}
		db.Close()
	}
}

// seededStore100k is the directory of a closed store of 100,000 memories
// (500 under the trust threshold), written directly.
func seededStore100k(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	db, err := Open(dir, Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		b.Fatal(err)
	}
	seedDirect(b, db, 100_000, 500)
	db.Close()
	return dir
}

// BenchmarkBackfillVerify100k is the first open of a 100,000-memory store
// written before the verify-first index: the open that builds it.
func BenchmarkBackfillVerify100k(b *testing.B) {
	dir := seededStore100k(b)
	for b.Loop() {
		b.StopTimer()
		db, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range [][]byte{keyVerifyIndexed, prefixVerifyAll} {
			if err := db.bdb.DropPrefix(p); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
		b.StartTimer()
		start := time.Now()
		if db, err = Open(dir, Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "open-ms")
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
