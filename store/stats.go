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
		// Only the ranges counted are read, keys only: the layer index
		// (one key a memory) of each project, edges, events and drafts —
		// not the dozen other keys every memory has.
		count := func(prefix string, each func(k []byte)) {
			o := badger.DefaultIteratorOptions
			o.PrefetchValues, o.Prefix = false, []byte(prefix)
			it := txn.NewIterator(o)
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				each(it.Item().Key())
			}
		}
		pids := projectIDs(txn)
		s.Projects = len(pids)
		for _, pid := range pids {
			prefix := string(prefixLayerAny(pid))
			count(prefix, func(k []byte) {
				rest := k[len(prefix):] // <L>/<s>/<id>
				if len(rest) > 4 {
					s.ByStatus[statusFromLetter(rest[2])]++
					s.Memories++
					s.ByLayer[memory.Layer(rest[0]).String()]++
				}
			})
		}
		count("edge/out/", func([]byte) { s.Edges++ })
		count("event/", func([]byte) { s.Events++ })
		count("draft/", func([]byte) { s.Drafts++ })
		return nil
	})
	_, s.VlogBytes = db.bdb.Size()
	s.LSMBytes = db.lsmBytes()
	return s, err
}
