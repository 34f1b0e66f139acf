package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Stats counts what the whole store holds, from the counts kept by the
// writes (see counts.go); the projects are few and counted by key.
func (db *DB) Stats(ctx context.Context) (memory.Stats, error) {
	s := memory.Stats{ByStatus: map[memory.Status]int{}, ByLayer: map[string]int{}, Schema: schemaVersion, Dir: db.dir, OpenedAt: db.open}
	err := db.view(func(txn *badger.Txn) error {
		t, err := counts(txn)
		if err != nil {
			return err
		}
		s.Projects = len(projectIDs(txn))
		for k, n := range t.Mem {
			if _, l, st, ok := splitMemCountKey(k); ok && n != 0 {
				s.ByStatus[st] += n
				s.Memories += n
				s.ByLayer[l.String()] += n
			}
		}
		s.Edges, s.Events, s.Drafts = t.Edges, t.Events, t.Drafts
		return nil
	})
	s.LSMBytes = db.lsmBytes()
	s.VlogBytes = db.logBytes()
	return s, err
}

// onDisk is what a file takes on disk: its blocks where the system says
// (a memtable's log is allocated ahead and mostly holes), else its size.
func onDisk(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}

// logBytes is what the value log and the memtables' write-ahead logs hold
// on disk, from the files themselves: Badger's Size reads metrics, which the
// store turns off (it said 0 MiB for a store just opened), and a store just
// written holds most of its bytes in logs not yet compacted into tables.
func (db *DB) logBytes() int64 {
	ents, err := os.ReadDir(db.dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if ext := filepath.Ext(e.Name()); ext != ".vlog" && ext != ".mem" {
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += onDisk(fi)
		}
	}
	return n
}
