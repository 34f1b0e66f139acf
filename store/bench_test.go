package store

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"cairn/memory"
)

// benchRecords makes n realistic records spread over the six layers.
func benchRecords(n int) []memory.Record {
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{
			Layer: memory.Layers[i%6],
			Title: fmt.Sprintf("memory %d about src/pkg%d/file%d.go", i, i%97, i%13),
			Body: fmt.Sprintf("Observed on run %d: the cache in pkg%d misses when the key has a trailing slash; "+
				"fixed by normalising paths before lookup. See bench #%d for the numbers.", i, i%97, i%500),
			Tags: []string{fmt.Sprintf("pkg%d", i%97), "bench"},
		}
	}
	return recs
}

func seed(b *testing.B, db *DB, n int) {
	b.Helper()
	recs := benchRecords(n)
	for i := 0; i < n; i += 10000 {
		if _, err := db.Import(ctx, testPID, recs[i:min(i+10000, n)], memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRememberDurable is one synchronous (fsynced) remember.
func BenchmarkRememberDurable(b *testing.B) {
	db, _ := openTest(b)
	var d []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: fmt.Sprintf("fact %d about src/x.go", i)}, memory.ActorUser); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
		i++
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkImport100k imports 100,000 memories into an empty store.
func BenchmarkImport100k(b *testing.B) {
	recs := benchRecords(100_000)
	for b.Loop() {
		b.StopTimer()
		db, _ := openTest(b)
		b.StartTimer()
		if _, err := db.Import(ctx, testPID, recs, memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
}

// BenchmarkOpen100k opens (and closes) a store of 100,000 memories.
func BenchmarkOpen100k(b *testing.B) {
	db, dir := openTest(b)
	seed(b, db, 100_000)
	db.Close()
	for b.Loop() {
		db, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

// BenchmarkListFirstPage lists the first page (50) of one layer of a 100k store.
func BenchmarkListFirstPage(b *testing.B) {
	db, _ := openTest(b)
	seed(b, db, 100_000)
	for b.Loop() {
		p, err := db.List(ctx, memory.Query{Project: testPID, Layer: memory.LayerDecision})
		if err != nil || len(p.Memories) != memory.DefaultLimit {
			b.Fatal(err, len(p.Memories))
		}
	}
}

// BenchmarkCount100k counts a 100k project by layer and status (the workbench sidebar).
func BenchmarkCount100k(b *testing.B) {
	db, _ := openTest(b)
	seed(b, db, 100_000)
	for b.Loop() {
		if _, err := db.Count(ctx, testPID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport100kInto300k imports 100,000 new memories into a store
// that already holds 300,000, each iteration into a copy of the same
// seeded store: into the project that holds them (every record is looked
// up: the project is not empty) and into another project (nothing to look
// up: what the store's size costs the writes alone). Their memories/s
// against Import100k's say whether the rate falls with the store's size.
func BenchmarkImport100kInto300k(b *testing.B) {
	seeded := b.TempDir()
	db := reopen(b, seeded)
	recs := benchRecords(400_000)
	for i := 0; i < 300_000; i += 100_000 {
		if _, err := db.Import(ctx, testPID, recs[i:i+100_000], memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "other"}); err != nil {
		b.Fatal(err)
	}
	db.Close()
	recs = recs[300_000:]
	for _, project := range []string{testPID, "00000000000000bb"} {
		name := "project=same"
		if project != testPID {
			name = "project=other"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				if err := os.CopyFS(dir, os.DirFS(seeded)); err != nil {
					b.Fatal(err)
				}
				db := reopen(b, dir)
				b.StartTimer()
				res, err := db.Import(ctx, project, recs, memory.ActorSystem)
				if err != nil || res.Added != len(recs) {
					b.Fatal(err, res.Added)
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(len(recs))*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
		})
	}
}
