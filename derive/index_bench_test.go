package derive

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// indexStore is a real store with one project, for the index benchmarks.
func indexStore(b *testing.B) *store.DB {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(context.Background(), memory.Project{ID: "00000000000000aa", Name: "p"}); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkIndexCold5000 is `cairn index` of a 5,000-file repository into
// an empty store, in process: Update, the outlines, facts, modules and
// brief, and every record written.
func BenchmarkIndexCold5000(b *testing.B) {
	root, _ := genRepo(b, 5000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := indexStore(b)
		b.StartTimer()
		rep, err := Index(ctx, db, "00000000000000aa", root, Options{}, memory.ActorUser)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Read != 5000 {
			b.Fatalf("read %d", rep.Read)
		}
	}
}

// BenchmarkIndexAfter50 is the index after a commit that touched 50 of
// the 5,000 files: the stored stamps read, 50 files read and written, the
// summary summed up from the stored outlines.
func BenchmarkIndexAfter50(b *testing.B) {
	root, editable := genRepo(b, 5000)
	ctx := context.Background()
	db := indexStore(b)
	if _, err := Index(ctx, db, "00000000000000aa", root, Options{}, memory.ActorUser); err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-50 * time.Minute)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		edit50(b, root, editable, i, base)
		b.StartTimer()
		rep, err := Index(ctx, db, "00000000000000aa", root, Options{}, memory.ActorUser)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if rep.Read != 50 {
			b.Fatalf("read %d, want 50", rep.Read)
		}
		b.StartTimer()
	}
}
