package store

import (
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// backfillBatch bounds the memories one backfill transaction indexes;
// Badger's own bound on a transaction's size may cut a batch shorter.
const backfillBatch = 1000

// backfill builds an index for a store written before it, once: every
// memory is read in bounded transactions and given the entries it needs
// (nil: none), and marker is set to version last, to say it is done; a
// marker already at version means there is nothing to do. Writing an
// index entry twice is harmless, so a backfill killed half way starts
// again at the next Open and ends the same. stage names the step for
// tests (see importStep).
func (db *DB) backfill(marker []byte, version, stage string, entries func(*memory.Memory) [][]byte) error {
	done := false
	if err := db.view(func(txn *badger.Txn) error {
		v, err := markerOf(txn, marker)
		done = string(v) == version
		return err
	}); err != nil || done {
		return err
	}
	prefix := keyMem("")
	after := []byte(nil)
	for batch := 1; ; batch++ {
		var next []byte
		more := false
		err := db.writeUnchecked(func(txn *badger.Txn) error {
			next, more = nil, false
			o := badger.DefaultIteratorOptions
			o.Prefix = prefix
			it := txn.NewIterator(o)
			defer it.Close()
			seek := prefix
			if after != nil {
				seek = append(append([]byte(nil), after...), 0)
			}
			n := 0
			for it.Seek(seek); it.Valid(); it.Next() {
				if n == backfillBatch {
					more = true
					return nil
				}
				k := it.Item().KeyCopy(nil)
				var m *memory.Memory
				if err := it.Item().Value(func(v []byte) error {
					if len(v) == 0 || v[0] == formatForgotten {
						return nil // being forgotten
					}
					var err error
					m, err = DecodeMemory(k, v)
					return err
				}); err != nil {
					return err
				}
				if m != nil {
					for i, ik := range entries(m) {
						if err := txn.Set(ik, nil); errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
							// The transaction is full: this memory goes into the
							// next one (the entries of it already set are kept,
							// and set again there).
							more = true
							return nil
						} else if err != nil {
							return fmt.Errorf("index %q (entry %d): %w", k, i, err)
						}
					}
				}
				next = k
				n++
			}
			return nil
		})
		if err != nil {
			return err
		}
		db.step(stage, batch)
		if !more {
			break
		}
		after = next
	}
	return db.writeUnchecked(func(txn *badger.Txn) error { return txn.Set(marker, []byte(version)) })
}

// dropKeys deletes every key under prefix, in bounded transactions.
func (db *DB) dropKeys(prefix []byte) error {
	for {
		more := false
		err := db.writeUnchecked(func(txn *badger.Txn) error {
			more = false
			o := badger.DefaultIteratorOptions
			o.Prefix, o.PrefetchValues = prefix, false
			it := txn.NewIterator(o)
			defer it.Close()
			n := 0
			for it.Rewind(); it.Valid(); it.Next() {
				if n == backfillBatch {
					more = true
					return nil
				}
				if err := txn.Delete(it.Item().KeyCopy(nil)); errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
					more = true
					return nil
				} else if err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil || !more {
			return err
		}
	}
}

// markerOf is the value of a marker key, nil when it is not set.
func markerOf(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}
