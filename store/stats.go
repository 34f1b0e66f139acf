package store

import (
	"context"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Stats counts what the whole store holds, from keys alone.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	s := Stats{ByStatus: map[memory.Status]int{}, ByLayer: map[string]int{}, Schema: schemaVersion, Dir: db.dir, OpenedAt: db.open}
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.PrefetchValues = false
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			switch {
			case hasPrefix(k, "proj/"):
				s.Projects++
			case hasPrefix(k, "edge/out/"):
				s.Edges++
			case hasPrefix(k, "event/"):
				s.Events++
			case hasPrefix(k, "draft/"):
				s.Drafts++
			case hasPrefix(k, "idx/"):
				// idx/<pid>/ls/<L>/<s>/<id>
				rest := k[len("idx/")+17:]
				if hasPrefix(rest, "ls/") && len(rest) > 6 {
					st := statusFromLetter(rest[5])
					s.ByStatus[st]++
					s.Memories++
					s.ByLayer[memory.Layer(rest[3]).String()]++
				}
			}
		}
		return nil
	})
	_, s.VlogBytes = db.bdb.Size()
	s.LSMBytes = db.lsmBytes()
	return s, err
}

func hasPrefix(k []byte, p string) bool { return len(k) >= len(p) && string(k[:len(p)]) == p }
