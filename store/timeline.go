package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// event appends one entry to a project's timeline inside txn.
func (db *DB) event(txn *badger.Txn, pid string, by memory.Actor, kind memory.EventKind, memID, summary string) error {
	_, err := db.appendEvent(txn, pid, by, kind, memID, summary)
	return err
}

// appendEvent is event, returning the event's id. An event about a memory
// is indexed under it, so that forgetting the memory drops the event; the
// forget event itself is the one that stays.
func (db *DB) appendEvent(txn *badger.Txn, pid string, by memory.Actor, kind memory.EventKind, memID, summary string) (string, error) {
	if by == "" {
		by = memory.ActorUser
	}
	e := memory.Event{ID: newID(), Project: pid, Time: db.now().UTC(), Actor: by, Kind: kind, MemoryID: memID, Summary: summary}
	if err := put(txn, keyEvent(pid, e.ID), e); err != nil {
		return "", err
	}
	tallyKey(txn, prefixAllEvents, 1) // a new id: a new key
	if memID != "" && kind != memory.EventForget {
		return e.ID, txn.Set(keyEventOfMem(memID, e.ID), nil)
	}
	return e.ID, nil
}

// Timeline returns a project's events, newest first, with the current
// title of each memory they name.
func (db *DB) Timeline(ctx context.Context, project string, limit int) ([]memory.Event, error) {
	if limit <= 0 {
		limit = memory.DefaultLimit
	}
	var out []memory.Event
	err := db.view(func(txn *badger.Txn) error {
		prefix := prefixEvents(project)
		o := badger.DefaultIteratorOptions
		o.Prefix, o.Reverse = prefix, true
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Seek(append(prefix, 0xFF)); it.Valid() && len(out) < limit; it.Next() {
			e, gone, err := readEvent(it.Item())
			if err != nil {
				return err
			}
			if gone {
				continue
			}
			if e.MemoryID != "" {
				if m, err := getMem(txn, e.MemoryID); err == nil {
					e.Title = m.Title
				} else if !errors.Is(err, memory.ErrNotFound) {
					return err
				}
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// Capture appends raw text to a project's drafts inbox, durably, for a
// later consolidation pass. Secrets are refused like on every write path,
// in every field of the draft.
func (db *DB) Capture(ctx context.Context, d memory.Draft) (memory.Draft, error) {
	if d.Text == "" {
		return d, invalidf("nothing to capture: the text is empty")
	}
	if len(d.Text) > 4*memory.MaxBody {
		return d, invalidf("draft is %d bytes: capture at most %d at a time", len(d.Text), 4*memory.MaxBody)
	}
	if err := d.Validate(); err != nil {
		return d, invalid(err)
	}
	if err := secrets.Check(draftFields(d)...); err != nil {
		return d, err
	}
	if d.Actor == "" {
		d.Actor = memory.ActorAgent
	}
	if !d.Actor.Valid() || d.Source.Actor != "" && !d.Source.Actor.Valid() {
		return d, invalidf("unknown actor: use user, agent or system")
	}
	if d.ID == "" {
		d.ID = newID()
	} else if !validID(d.ID) {
		return d, invalidf("draft id %q is not a ULID: leave it empty and cairn makes one", d.ID)
	}
	d.Time = db.now().UTC()
	err := db.update(ctx, func(txn *badger.Txn) error {
		if err := needProject(txn, d.Project); err != nil {
			return err
		}
		var stored memory.Draft
		if err := get(txn, keyDraft(d.Project, d.ID), &stored); err == nil {
			d = stored // a retry of a capture that already landed
			return nil
		}
		if err := putCounted(txn, keyDraft(d.Project, d.ID), d); err != nil {
			return err
		}
		eid, err := db.appendEvent(txn, d.Project, d.Actor, memory.EventCapture, "", fmt.Sprintf("captured %d bytes", len(d.Text)))
		if err != nil {
			return err
		}
		return txn.Set(keyEventOfDraft(d.ID, eid), nil) // DropDraft drops it with the draft
	})
	return d, err
}

// draftFields is every free-text field of a draft, for the secret scan:
// the text and its source. The rest are checked: ids, actors, the project.
func draftFields(d memory.Draft) []secrets.Field {
	return []secrets.Field{
		{Name: "text", Text: d.Text},
		{Name: "source session", Text: d.Source.Session},
		{Name: "source file", Text: d.Source.File},
		{Name: "source message", Text: d.Source.Message},
	}
}

// Drafts lists a project's inbox, oldest first: every draft waiting for
// consolidation (up to limit), then as many of those consolidation took —
// the newest — as limit leaves room for. A new capture is never lost
// behind thousands of consolidated drafts kept for undo. ListDrafts pages
// through all of them.
func (db *DB) Drafts(ctx context.Context, project string, limit int) ([]memory.Draft, error) {
	if limit <= 0 {
		limit = memory.DefaultLimit
	}
	var waiting, done []memory.Draft
	err := db.view(func(txn *badger.Txn) error {
		if err := scanDrafts(txn, prefixDrafts(project), "", false, func(d memory.Draft) bool {
			if d.Done == "" {
				waiting = append(waiting, d)
			}
			return len(waiting) < limit
		}); err != nil {
			return err
		}
		room := limit - len(waiting)
		if room <= 0 {
			return nil
		}
		return scanDrafts(txn, prefixDrafts(project), "", true, func(d memory.Draft) bool {
			if d.Done != "" {
				done = append(done, d)
			}
			return len(done) < room
		})
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(done)
	out := append(waiting, done...)
	slices.SortFunc(out, func(a, b memory.Draft) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// ListDrafts is one page of a project's drafts, oldest first, from the
// cursor q.After on.
func (db *DB) ListDrafts(ctx context.Context, q memory.DraftQuery) (memory.DraftPage, error) {
	if q.Project == "" {
		return memory.DraftPage{}, invalidf("the project is required")
	}
	if strings.Contains(q.Prefix, "/") || strings.Contains(q.After, "/") {
		return memory.DraftPage{}, invalidf("a draft id holds no /")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = memory.DefaultLimit
	}
	limit = min(limit, memory.MaxDraftPage)
	page := memory.DraftPage{Drafts: []memory.Draft{}}
	err := db.view(func(txn *badger.Txn) error {
		more := false
		err := scanDrafts(txn, append(prefixDrafts(q.Project), q.Prefix...), q.After, false, func(d memory.Draft) bool {
			if q.Waiting && d.Done != "" {
				return true
			}
			if len(page.Drafts) == limit {
				more = true
				return false
			}
			page.Drafts = append(page.Drafts, d)
			return true
		})
		if more {
			page.Next = page.Drafts[len(page.Drafts)-1].ID
		}
		return err
	})
	return page, err
}

// scanDrafts calls fn with the drafts whose keys start with prefix, after
// the draft id after (""; from the first), oldest first or (reverse)
// newest first, while fn returns true. Drafts being dropped are skipped.
func scanDrafts(txn *badger.Txn, prefix []byte, after string, reverse bool, fn func(memory.Draft) bool) error {
	o := badger.DefaultIteratorOptions
	o.Prefix, o.Reverse = prefix, reverse
	it := txn.NewIterator(o)
	defer it.Close()
	if reverse {
		it.Seek(append(slices.Clone(prefix), 0xFF))
	} else if after != "" {
		// Draft ids are ULIDs: the key of after, then one past it.
		proj := prefix[:bytes.LastIndexByte(prefix, '/')+1]
		from := append(append(slices.Clone(proj), after...), 0)
		if bytes.Compare(from, prefix) < 0 {
			from = prefix
		}
		it.Seek(from)
	} else {
		it.Rewind()
	}
	for ; it.Valid(); it.Next() {
		var d memory.Draft
		k := it.Item().KeyCopy(nil)
		gone := false
		if err := it.Item().Value(func(v []byte) error {
			if gone = len(v) > 0 && v[0] == formatForgotten; gone {
				return nil // being dropped
			}
			return decode(k, v, &d)
		}); err != nil {
			return err
		}
		if !gone && !fn(d) {
			return nil
		}
	}
	return nil
}

// LastEvent is the id of the newest event of any project ("" when there
// is none): a stamp of the store's state for caches derived from it (the
// recall index saves it and catches up from it with EventsSince).
func (db *DB) LastEvent(ctx context.Context) (string, error) {
	var last string
	err := db.view(func(txn *badger.Txn) error {
		for _, pid := range projectIDs(txn) {
			prefix := prefixEvents(pid)
			o := badger.DefaultIteratorOptions
			o.Prefix, o.Reverse, o.PrefetchValues = prefix, true, false
			it := txn.NewIterator(o)
			it.Seek(append(slices.Clone(prefix), 0xFF))
			if it.Valid() {
				if id := string(it.Item().Key()[len(prefix):]); id > last {
					last = id
				}
			}
			it.Close()
		}
		return nil
	})
	return last, err
}

// EventsSince lists the events of every project newer than the event id
// after, oldest first (those of a forgotten memory are gone, its forget
// event stays).
func (db *DB) EventsSince(ctx context.Context, after string) ([]memory.Event, error) {
	var out []memory.Event
	err := db.view(func(txn *badger.Txn) error {
		for _, pid := range projectIDs(txn) {
			prefix := prefixEvents(pid)
			o := badger.DefaultIteratorOptions
			o.Prefix = prefix
			it := txn.NewIterator(o)
			for it.Seek(append(slices.Clone(prefix), after...)); it.Valid(); it.Next() {
				if string(it.Item().Key()[len(prefix):]) <= after {
					continue
				}
				e, gone, err := readEvent(it.Item())
				if err != nil {
					it.Close()
					return err
				}
				if !gone {
					out = append(out, e)
				}
			}
			it.Close()
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// readEvent decodes one event; gone is an event whose memory is being
// forgotten (it reads as nothing until the drop).
func readEvent(item *badger.Item) (e memory.Event, gone bool, err error) {
	k := item.KeyCopy(nil)
	err = item.Value(func(v []byte) error {
		if gone = len(v) > 0 && v[0] == formatForgotten; gone {
			return nil
		}
		return decode(k, v, &e)
	})
	return e, gone, err
}

// projectIDs are the ids of every project.
func projectIDs(txn *badger.Txn) []string {
	var out []string
	for _, k := range keys(txn, prefixProjects) {
		out = append(out, string(k[len("proj/"):]))
	}
	return out
}
