package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Link adds (or re-weights) a typed edge between two memories of the same
// project, or from a project's memory to a global one.
func (db *DB) Link(ctx context.Context, e memory.Edge, by memory.Actor) error {
	if !e.Kind.Valid() {
		return invalidf("unknown link kind %q: use one of %s", e.Kind, strings.Join(memory.EdgeKindNames(), ", "))
	}
	if e.Kind == memory.EdgeSupersedes {
		return invalidf("supersession is not a plain link — use supersede, which also retires the old memory")
	}
	if e.From == e.To {
		return invalidf("a memory cannot link to itself")
	}
	if e.Weight == 0 {
		e.Weight = 1
	}
	if err := e.Validate(); err != nil { // NaN passes any comparison: name it
		return invalid(err)
	}
	e.CreatedAt, e.Active = db.now().UTC(), true
	return db.update(ctx, func(txn *badger.Txn) error {
		from, err := getMem(txn, e.From)
		if err != nil {
			return err
		}
		to, err := getMem(txn, e.To)
		if err != nil {
			return err
		}
		if from.Project != to.Project && to.Project != memory.GlobalID {
			return invalidf("%s and %s are in different projects; a link may only cross into global", e.From, e.To)
		}
		if err := putEdge(txn, e); err != nil {
			return err
		}
		return db.event(txn, from.Project, by, memory.EventLink, e.From, fmt.Sprintf("%s %s", e.Kind, e.To))
	})
}

func putEdge(txn *badger.Txn, e memory.Edge) error {
	if err := putCounted(txn, keyEdgeOut(e), e); err != nil {
		return err
	}
	return txn.Set(keyEdgeIn(e), nil)
}

func deleteEdge(txn *badger.Txn, e memory.Edge) error {
	if err := deleteCounted(txn, keyEdgeOut(e)); err != nil {
		return err
	}
	return txn.Delete(keyEdgeIn(e))
}

// Edges returns the edges leaving id and those arriving at it.
func (db *DB) Edges(ctx context.Context, id string) (out, in []memory.Edge, err error) {
	err = db.view(func(txn *badger.Txn) error {
		out, in, err = edgesOf(txn, id)
		return err
	})
	return out, in, err
}

func edgesOf(txn *badger.Txn, id string) (out, in []memory.Edge, err error) {
	o := badger.DefaultIteratorOptions
	o.Prefix = prefixEdgesOut(id)
	it := txn.NewIterator(o)
	for it.Rewind(); it.Valid(); it.Next() {
		var e memory.Edge
		k := it.Item().KeyCopy(nil)
		if err := it.Item().Value(func(v []byte) error { return decode(k, v, &e) }); err != nil {
			it.Close()
			return nil, nil, err
		}
		out = append(out, e)
	}
	it.Close()
	for _, k := range keys(txn, prefixEdgesIn(id)) {
		// edge/in/<to>/<kind>/<from>: read the edge itself from its out key.
		rest := strings.TrimPrefix(string(k), string(prefixEdgesIn(id)))
		kind, from, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		var e memory.Edge
		err := get(txn, keyEdgeOut(memory.Edge{From: from, Kind: memory.EdgeKind(kind), To: id}), &e)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		in = append(in, e)
	}
	return out, in, nil
}
