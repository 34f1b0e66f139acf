package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// purge is the intent a forget leaves until its bytes are gone: the key
// prefixes to drop and the memory's events, rewritten without content.
type purge struct {
	Prefixes [][]byte       `json:"prefixes"`
	Events   []memory.Event `json:"events"`
}

// Forget deletes a memory for good: its record, versions, index entries,
// edges (both directions), cached vectors and the content of its events.
// What remains is a content-free "forget" event on the timeline.
//
// It works in three steps so that the bytes really leave the disk:
//  1. one transaction makes the memory unreadable (a forgotten marker),
//     unlinks it from every other memory, writes the forget event and a
//     purge intent naming every key the memory owns;
//  2. Badger's DropPrefix removes those keys from the memtables, the write-
//     ahead log and every LSM level (a plain delete would leave the old
//     values on disk until some later compaction);
//  3. a second transaction writes the memory's events back without content
//     and removes the intent. An interrupted forget is finished at Open.
func (db *DB) Forget(ctx context.Context, id string, by memory.Actor) error {
	var intent purge
	err := db.update(ctx, func(txn *badger.Txn) error {
		m, err := getMem(txn, id)
		if err != nil {
			return err
		}
		intent, err = db.planPurge(txn, m)
		if err != nil {
			return err
		}
		if err := unlink(txn, m); err != nil {
			return err
		}
		if err := txn.Set(keyMem(id), []byte{formatForgotten}); err != nil {
			return err
		}
		if err := put(txn, keyPurge(id), intent); err != nil {
			return err
		}
		return db.event(txn, m.Project, by, memory.EventForget, id, "forgotten")
	})
	if err != nil {
		return err
	}
	if err := db.runPurge(id, intent); err != nil {
		return fmt.Errorf("forgotten, but dropping its bytes failed (cairn retries at the next start): %w", err)
	}
	return nil
}

// planPurge lists every key m owns: record, versions, index entries, ref,
// its edges' keys, its events and the vectors of each of its versions.
func (db *DB) planPurge(txn *badger.Txn, m *memory.Memory) (purge, error) {
	p := purge{Prefixes: [][]byte{keyMem(m.ID), prefixVersions(m.ID), prefixEdgesOut(m.ID), prefixEdgesIn(m.ID), prefixEventsOfMem(m.ID), prefixReviewsOf(m.Project, m.ID)}}
	p.Prefixes = append(p.Prefixes, indexKeys(m)...)
	if m.Ref != "" {
		p.Prefixes = append(p.Prefixes, keyRef(m.Project, m.Ref))
	}
	hashes := []string{ContentHash(m)}
	for _, k := range keys(txn, prefixVersions(m.ID)) {
		var old memory.Memory
		if err := get(txn, k, &old); err != nil {
			return p, err
		}
		hashes = append(hashes, ContentHash(&old))
		for _, ik := range indexKeys(&old) { // a tag or ref of an old version
			p.Prefixes = append(p.Prefixes, ik)
		}
		if old.Ref != "" && old.Ref != m.Ref {
			p.Prefixes = append(p.Prefixes, keyRef(m.Project, old.Ref))
		}
	}
	for _, h := range hashes {
		p.Prefixes = append(p.Prefixes, prefixVectors(h))
	}
	for _, k := range keys(txn, prefixEventsOfMem(m.ID)) {
		eid := idFromKey(k)
		var e memory.Event
		if err := get(txn, keyEvent(m.Project, eid), &e); err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return p, err
		}
		p.Prefixes = append(p.Prefixes, keyEvent(m.Project, eid))
		e.Summary, e.Title = "", ""
		p.Events = append(p.Events, e)
	}
	slices.SortFunc(p.Prefixes, func(a, b []byte) int { return slices.Compare(a, b) })
	p.Prefixes = slices.CompactFunc(p.Prefixes, slices.Equal)
	return p, nil
}

// unlink removes m from every other memory: the other end of each edge and
// the supersession fields that name it.
func unlink(txn *badger.Txn, m *memory.Memory) error {
	out, in, err := edgesOf(txn, m.ID)
	if err != nil {
		return err
	}
	for _, e := range out {
		if err := txn.Delete(keyEdgeIn(e)); err != nil {
			return err
		}
	}
	for _, e := range in {
		if err := txn.Delete(keyEdgeOut(e)); err != nil {
			return err
		}
	}
	related := slices.Clone(m.Supersedes)
	if m.SupersededBy != "" {
		related = append(related, m.SupersededBy)
	}
	for _, rid := range related {
		r, err := getMem(txn, rid)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		r.Supersedes = slices.DeleteFunc(r.Supersedes, func(s string) bool { return s == m.ID })
		if len(r.Supersedes) == 0 {
			r.Supersedes = nil
		}
		if r.SupersededBy == m.ID {
			r.SupersededBy = ""
		}
		if err := put(txn, keyMem(r.ID), r); err != nil {
			return err
		}
	}
	return nil
}

// runPurge drops the intent's keys from disk and writes the scrubbed events back.
func (db *DB) runPurge(id string, p purge) error {
	release, err := db.enter()
	if err != nil {
		return err
	}
	err = db.bdb.DropPrefix(p.Prefixes...)
	release()
	if err != nil {
		return err
	}
	err = db.update(context.Background(), func(txn *badger.Txn) error {
		for _, e := range p.Events {
			if err := put(txn, keyEvent(e.Project, e.ID), e); err != nil {
				return err
			}
		}
		return txn.Delete(keyPurge(id))
	})
	if err != nil {
		return err
	}
	// Values above Badger's value threshold live in the value log: rewrite
	// files that are now mostly garbage. Nothing to rewrite is the usual answer.
	if release, err := db.enter(); err == nil {
		for db.bdb.RunValueLogGC(0.01) == nil {
		}
		release()
	}
	return nil
}

// finishPurges completes forgets that a crash interrupted.
func (db *DB) finishPurges() error {
	type pending struct {
		id string
		p  purge
	}
	var todo []pending
	err := db.bdb.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixPurges
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var p purge
			k := it.Item().KeyCopy(nil)
			if err := it.Item().Value(func(v []byte) error { return decode(k, v, &p) }); err != nil {
				return err
			}
			todo = append(todo, pending{string(k[len(prefixPurges):]), p})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range todo {
		if err := db.runPurge(t.id, t.p); err != nil {
			return err
		}
	}
	return nil
}
