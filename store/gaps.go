package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// The gap log: questions recall could not answer (see recall's Floor).

// maxGaps bounds a project's gap log: the least recently asked go first.
const maxGaps = 500

// RecordGap notes that recall had nothing (or only weak hits, best) for
// query in project. A secret in the query is redacted, never stored.
func (db *DB) RecordGap(ctx context.Context, project, query string, best float64) error {
	query, _ = secrets.Redact(strings.TrimSpace(query))
	if query == "" {
		return nil
	}
	if r := []rune(query); len(r) > 300 {
		query = string(r[:299]) + "…"
	}
	gid := memory.GapID(query)
	now := db.now().UTC()
	return db.update(ctx, func(txn *badger.Txn) error {
		var g memory.Gap
		switch err := get(txn, keyGap(project, gid), &g); {
		case errors.Is(err, memory.ErrNotFound):
			g = memory.Gap{ID: gid, Project: project, Query: query, First: now}
			if err := trimGaps(txn, project); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		g.Count++
		g.Last, g.Best = now, best
		return put(txn, keyGap(project, gid), g)
	})
}

func trimGaps(txn *badger.Txn, project string) error {
	gs, err := gapsIn(txn, project)
	if err != nil || len(gs) < maxGaps {
		return err
	}
	for _, g := range gs[maxGaps-1:] {
		if err := txn.Delete(keyGap(project, g.ID)); err != nil {
			return err
		}
	}
	return nil
}

func gapsIn(txn *badger.Txn, project string) ([]memory.Gap, error) {
	var out []memory.Gap
	o := badger.DefaultIteratorOptions
	o.Prefix = prefixGaps(project)
	it := txn.NewIterator(o)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var g memory.Gap
		if err := it.Item().Value(func(v []byte) error { return decode(it.Item().Key(), v, &g) }); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	return out, nil
}

// Gaps lists a project's gap log, most recently asked first.
func (db *DB) Gaps(ctx context.Context, project string) ([]memory.Gap, error) {
	var out []memory.Gap
	err := db.view(func(txn *badger.Txn) (err error) {
		out, err = gapsIn(txn, project)
		return err
	})
	return out, err
}

// DropGap closes a gap (answered, or not worth answering).
func (db *DB) DropGap(ctx context.Context, project, id string, by memory.Actor) error {
	id = strings.ToLower(strings.TrimSpace(id))
	return db.update(ctx, func(txn *badger.Txn) error {
		var g memory.Gap
		if err := get(txn, keyGap(project, id), &g); err != nil {
			if errors.Is(err, memory.ErrNotFound) {
				return fmt.Errorf("gap %s: %w (cairn gaps lists them)", id, memory.ErrNotFound)
			}
			return err
		}
		return txn.Delete(keyGap(project, id))
	})
}
