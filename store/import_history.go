package store

import (
	"fmt"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// An export carries a memory's earlier versions (Record.History) and the
// project's timeline ({"event": …} records) so that an import into a
// fresh store keeps them. Both are written as they came: a version under
// its number, an event under its id, once.

// prepareHistory makes a record's earlier versions memories of m's id,
// validated and scanned for secrets like m itself. Versions come oldest
// first, numbered below m's (a version without a number takes its place
// in the list).
func (im *importer) prepareHistory(m *memory.Memory, hist []memory.Record) ([]*memory.Memory, error) {
	var out []*memory.Memory
	last := 0
	for i, h := range hist {
		if len(h.Edges) > 0 || len(h.History) > 0 || h.Event != nil {
			return nil, invalidf("history: version %d holds links, history or an event: a version holds only what the memory said then", i+1)
		}
		if h.Version == 0 {
			h.Version = i + 1
		}
		if h.Version <= last || h.Version >= m.Version {
			return nil, invalidf("history: version %d out of order: versions are listed oldest first, each below the memory's own (%d)", h.Version, m.Version)
		}
		last = h.Version
		v, _ := h.ToMemory(m.Project)
		v.ID = m.ID
		for _, t := range []*time.Time{&v.CreatedAt, &v.UpdatedAt, &v.ValidFrom} {
			if t.IsZero() {
				*t = m.CreatedAt
			}
			*t = t.UTC()
		}
		if !v.ValidUntil.IsZero() {
			v.ValidUntil = v.ValidUntil.UTC()
		}
		if err := im.db.prepare(v); err != nil {
			return nil, fmt.Errorf("history: version %d: %w", h.Version, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// importHistory writes the earlier versions of a memory the import
// creates, and notes them in its undo entry.
func importHistory(txn *badger.Txn, hist []*memory.Memory, u *undo) error {
	for _, v := range hist {
		if err := put(txn, keyVersion(v.ID, v.Version), v); err != nil {
			return err
		}
		u.Versions = append(u.Versions, v.Version)
	}
	return nil
}

// prepareEvent checks a timeline record: an event with an id, a kind, a
// time and an actor, and nothing else in the record. Its summary is
// scanned for secrets like every text cairn stores.
func (im *importer) prepareEvent(r memory.Record) (*memory.Event, error) {
	if r.Layer != 0 || r.Body != "" || r.Title != "" || r.ID != "" || r.Ref != "" || len(r.Edges) > 0 || len(r.History) > 0 {
		return nil, invalidf(`an event record holds only "event": {…}`)
	}
	e := *r.Event
	if e.Actor == "" {
		e.Actor = memory.ActorUser // as appendEvent says it
	}
	switch {
	case !validID(e.ID):
		return nil, invalidf("event id %q is not a ULID", e.ID)
	case e.Kind == "":
		return nil, invalidf("event %s has no kind", e.ID)
	case !e.Actor.Valid():
		return nil, invalidf("event %s: unknown actor %q: use user, agent or system", e.ID, e.Actor)
	case e.Time.IsZero():
		return nil, invalidf("event %s has no time", e.ID)
	case e.MemoryID != "" && !validID(e.MemoryID):
		return nil, invalidf("event %s names memory %q, which is not a ULID", e.ID, e.MemoryID)
	case len(e.Summary) > memory.MaxBody:
		return nil, invalidf("event %s: a summary of %d bytes: at most %d", e.ID, len(e.Summary), memory.MaxBody)
	}
	if err := secrets.Check(secrets.Field{Name: "event summary", Text: e.Summary}); err != nil {
		return nil, err
	}
	e.Project, e.Title, e.Time = im.project, "", e.Time.UTC()
	return &e, nil
}

// importEvent writes one timeline entry as it came, indexed under its
// memory as appendEvent indexes it, unless one with its id is there.
func importEvent(txn *badger.Txn, e memory.Event) (undo, error) {
	u := undo{Event: &e}
	if ok, err := exists(txn, keyEvent(e.Project, e.ID)); err != nil || ok {
		return u, err // Wrote stays empty: nothing to take back
	}
	if err := putCounted(txn, keyEvent(e.Project, e.ID), e); err != nil {
		return u, err
	}
	if e.MemoryID != "" && e.Kind != memory.EventForget {
		// The index is by memory and event alone: one another project's
		// import wrote is not this import's to write, nor to take back.
		ok, err := exists(txn, keyEventOfMem(e.MemoryID, e.ID))
		if err != nil {
			return u, err
		}
		if !ok {
			if err := txn.Set(keyEventOfMem(e.MemoryID, e.ID), nil); err != nil {
				return u, err
			}
			u.Indexed = true
		}
	}
	var err error
	u.Wrote, _, err = rawHash(txn, keyEvent(e.Project, e.ID))
	return u, err
}

// takeBackEvent removes an event the import wrote.
func takeBackEvent(txn *badger.Txn, u undo) error {
	e := u.Event
	h, _, err := rawHash(txn, keyEvent(e.Project, e.ID))
	if err != nil || h == "" || h != u.Wrote {
		return err
	}
	if err := deleteCounted(txn, keyEvent(e.Project, e.ID)); err != nil {
		return err
	}
	if u.Indexed {
		return txn.Delete(keyEventOfMem(e.MemoryID, e.ID))
	}
	return nil
}
