package mirror

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/memory"
)

// A teammate's file is dated no later than the sync's clock: one written
// after it (by a clock ahead, or by hand) is taken as of the sync, one
// before it keeps its own date.
func TestTeammatesDatesNoLaterThanTheSyncClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _, st, o, _ := syncedPair(t)
	o.Now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	file := func(title, created, updated string) string {
		id := memory.NewID()
		body := "---\nid: " + id + "\ntitle: " + title + "\nlayer: A\nkind: constraint\nprovenance: observed\nstatus: active\n" +
			"version: 1\ncreated: \"" + created + "\"\nupdated: \"" + updated + "\"\n---\n\n" + title + ".\n"
		must(t, os.WriteFile(filepath.Join(o.Dir, "A-invariant", ShortID(id)+".md"), []byte(body), 0o644))
		return id
	}
	ahead := file("Tag releases from main", "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z")
	before := file("Sign release tags", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z")
	if rep := syncOK(t, db, st, o); rep.Added != 2 {
		t.Fatalf("%+v", rep)
	}
	for _, c := range []struct {
		id               string
		created, updated time.Time
	}{
		{ahead, o.Now, o.Now},
		{before, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)},
	} {
		m, err := db.Get(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if !m.CreatedAt.Equal(c.created) || !m.UpdatedAt.Equal(c.updated) {
			t.Errorf("%q: created %s, updated %s; want %s, %s", m.Title, m.CreatedAt, m.UpdatedAt, c.created, c.updated)
		}
	}
}
