package store

import (
	"context"
	"errors"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// keyPassMark is where a project's last full consolidation pass that
// changed nothing left its mark (see memory.PassMark).
func keyPassMark(pid string) []byte { return []byte("pass/" + pid) }

// PassMark is the mark the project's last full pass that changed nothing
// left; the zero mark when none did.
func (db *DB) PassMark(ctx context.Context, project string) (memory.PassMark, error) {
	var m memory.PassMark
	err := db.view(func(txn *badger.Txn) error {
		if err := get(txn, keyPassMark(project), &m); !errors.Is(err, memory.ErrNotFound) {
			return err
		}
		return nil
	})
	return m, err
}

// SetPassMark records a pass's mark for the project.
func (db *DB) SetPassMark(ctx context.Context, project string, m memory.PassMark) error {
	return db.update(ctx, func(txn *badger.Txn) error {
		if err := needProject(txn, project); err != nil {
			return err
		}
		return put(txn, keyPassMark(project), m)
	})
}
