package store

import (
	"context"
	"slices"
	"sort"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Review records a person's verdict on a memory and carries it out in the
// same transaction, so that the evidence calibration counts and the change
// it describes cannot part:
//
//   - confirm: the fact holds; ws are its watermarks stamped anew and any
//     rejection is lifted;
//   - rebind: the fact holds but was bound to the wrong thing; ws replace
//     its watermarks and any rejection is lifted;
//   - reject: the fact no longer holds; it is marked rejected (trust 0,
//     listed to verify first) until it is superseded or corrected, and ws
//     is ignored.
//
// Supersede records its own review. The timeline gets a verify event.
func (db *DB) Review(ctx context.Context, id string, v memory.Verdict, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error) {
	if v == memory.VerdictSupersede || !v.Valid() {
		return nil, invalidf("invalid verdict %q: use confirm, rebind or reject (supersede writes the corrected fact)", v)
	}
	return db.verify(ctx, id, v, ws, summary, by)
}

// verify replaces a memory's watermarks with ws and, with a verdict,
// carries it out and records the review; the timeline gets a verify event.
func (db *DB) verify(ctx context.Context, id string, v memory.Verdict, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error) {
	for _, w := range ws {
		if err := w.Validate(); err != nil {
			return nil, invalid(err)
		}
	}
	var out *memory.Memory
	err := db.update(ctx, func(txn *badger.Txn) error {
		old, err := getMem(txn, id)
		if err != nil {
			return err
		}
		if v != "" && old.Status == memory.StatusSuperseded {
			return invalidf("%s is superseded by %s: it is history now — review that one instead", id, old.SupersededBy)
		}
		if v == memory.VerdictReject && !old.RejectedAt.IsZero() {
			return invalidf("%s was already rejected on %s: supersede it with the corrected fact, or confirm it if it holds after all", id, old.RejectedAt.Format("2006-01-02"))
		}
		now := db.now().UTC()
		m := old.Clone()
		switch v {
		case memory.VerdictReject:
			m.RejectedAt = now
		case "":
			m.Watermarks = merged(old.Watermarks, ws, now)
			if slices.Equal(m.Watermarks, old.Watermarks) {
				out = old // what was checked is no longer there: a review came first
				return nil
			}
		default:
			m.RejectedAt = time.Time{}
			m.ReopenedAt, m.Reopened = time.Time{}, "" // a person vouched for it again
			m.Watermarks = slices.Clone(ws)
		}
		if len(m.Watermarks) == 0 {
			m.Watermarks = nil
		}
		if err := rewrite(txn, old, m); err != nil {
			return err
		}
		if v != "" {
			if err := db.review(txn, memory.ReviewOf(old, v, by, now)); err != nil {
				return err
			}
		}
		out = m
		return db.event(txn, m.Project, by, memory.EventVerify, id, summary)
	})
	return out, err
}

// merged is what a wake check may write: a memory bound to nothing takes
// ws whole (binding after an import); otherwise only the state of each
// stored watermark that still has the kind, target and fingerprint that
// was checked is taken, so a confirmation or rebinding made while the
// check ran is never undone by it.
func merged(stored, ws []memory.Watermark, now time.Time) []memory.Watermark {
	if len(stored) == 0 {
		return slices.Clone(ws)
	}
	out := slices.Clone(stored)
	for i, sw := range out {
		for _, w := range ws {
			if w.Kind == sw.Kind && w.Target == sw.Target && w.Fingerprint == sw.Fingerprint {
				out[i].State = w.State
				switch {
				case !w.State.Fired():
					out[i].MovedAt = time.Time{}
				case !sw.State.Fired():
					out[i].MovedAt = now // it moved just now (it held before)
				}
			}
		}
	}
	return out
}

// review appends one review inside txn.
func (db *DB) review(txn *badger.Txn, r memory.Review) error {
	if r.Actor == "" {
		r.Actor = memory.ActorUser
	}
	r.ID = newID()
	if err := r.Validate(); err != nil {
		return invalid(err)
	}
	return put(txn, keyReview(r), r)
}

// Reviews returns every review recorded in a project, oldest first.
func (db *DB) Reviews(ctx context.Context, project string) ([]memory.Review, error) {
	var out []memory.Review
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixReviews(project)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var r memory.Review
			k := it.Item().KeyCopy(nil)
			if err := it.Item().Value(func(v []byte) error { return decode(k, v, &r) }); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}
