package store

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// The verify-first index (DESIGN §3) lets the queue of memories under the
// trust threshold be read without reading every memory. A memory's trust
// (memory.TrustAt) depends on the memory alone and the time, and it never
// rises as time passes: only an unbound memory's time factor moves, and
// only down. So when an active memory is written, the moment its trust
// will fall under the threshold is known, and it is kept in a key:
//
//	vq/<pid>/<second %016x>/<id>    empty: from that second on, its trust may be under the threshold
//
// A memory whose trust never falls (most of them) has no entry; one already
// under it has second 0. The entry is one of the memory's index keys
// (indexKeys), so every write that moves the inputs of trust — an edit,
// a wake check marking a binding moved, a review, a reopen, supersession,
// archive, forget — moves or drops it in the same transaction. The queue
// reads the entries up to now and computes the exact trust of those
// memories only.

// verifyIndexVersion is written at keyVerifyIndexed once every memory has
// its entry. Entries are computed by memory.TrustAt and TrustThreshold: a
// change to either must raise the version, and the next Open rebuilds the
// index.
const verifyIndexVersion = "1"

// verifyKeys is m's entry in the verify-first index: none unless m is
// active and its trust falls under the threshold some day.
func verifyKeys(m *memory.Memory) [][]byte {
	if m.Status != memory.StatusActive {
		return nil
	}
	sec, ok := fallsAt(m)
	if !ok {
		return nil
	}
	return [][]byte{keyVerify(m.Project, sec, m.ID)}
}

// lastSecond bounds the search for the moment trust falls: the end of the
// year 9999. Trust that still holds then holds for good (an unbound
// memory's time factor stops falling two years after its confirmation).
const lastSecond = 253402300799

// fallsAt is a second from which m's trust may be under the threshold:
// trust at every earlier moment is at or above it (false: trust never
// falls under it). It is the second before the first whole second at which
// trust is under the threshold, found by bisection (trust never rises with
// time), so that a moment between the two is covered too; 0 when trust is
// under the threshold from the start of Unix time.
func fallsAt(m *memory.Memory) (int64, bool) {
	under := func(sec int64) bool { return memory.TrustAt(m, time.Unix(sec, 0)) < memory.TrustThreshold }
	if !under(lastSecond) {
		return 0, false
	}
	if under(0) {
		return 0, true
	}
	lo, hi := int64(0), int64(lastSecond) // under(lo) is false, under(hi) true
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if under(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, true
}

// VerifyFirst returns the project's active memories whose trust at now is
// under TrustThreshold, newest first (the order of List). It reads the
// verify-first index up to now and those memories only: its cost follows
// the length of the queue, not the size of the store. A store whose index
// is not built yet (opened without room to build it) is read whole.
func (db *DB) VerifyFirst(ctx context.Context, project string, now time.Time) ([]*memory.Memory, error) {
	var out []*memory.Memory
	err := db.view(func(txn *badger.Txn) error {
		ids, err := verifyCandidates(txn, project, now)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, err := getMem(txn, id)
			if errors.Is(err, memory.ErrNotFound) {
				continue // being forgotten
			}
			if err != nil {
				return err
			}
			if m.Project == project && m.Status == memory.StatusActive && memory.TrustAt(m, now) < memory.TrustThreshold {
				out = append(out, m)
			}
		}
		return nil
	})
	return out, err
}

// verifyCandidates are the ids, newest first, of the memories whose trust
// may be under the threshold at now: those of the index entries up to
// now's second (one at that second may already be under it), or every
// active memory when the index is not built.
func verifyCandidates(txn *badger.Txn, project string, now time.Time) ([]string, error) {
	v, err := markerOf(txn, keyVerifyIndexed)
	if err != nil {
		return nil, err
	}
	built := string(v) == verifyIndexVersion
	prefix, end := prefixStatus(project, memory.StatusActive), []byte(nil)
	if built {
		prefix, end = prefixVerify(project), keyVerify(project, max(now.Unix(), 0)+1, "")
	}
	o := badger.DefaultIteratorOptions
	o.Prefix, o.PrefetchValues = prefix, false
	it := txn.NewIterator(o)
	defer it.Close()
	var ids []string
	for it.Rewind(); it.Valid() && (end == nil || bytes.Compare(it.Item().Key(), end) < 0); it.Next() {
		ids = append(ids, idFromKey(it.Item().Key()))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	slices.Reverse(ids)
	return ids, nil
}

// backfillVerify builds the verify-first index of a store written before
// it, or before its version (then the old entries go first), once.
func (db *DB) backfillVerify() error {
	var v []byte
	if err := db.view(func(txn *badger.Txn) (err error) {
		v, err = markerOf(txn, keyVerifyIndexed)
		return err
	}); err != nil || string(v) == verifyIndexVersion {
		return err
	}
	if v != nil {
		if err := db.dropKeys(prefixVerifyAll); err != nil {
			return err
		}
	}
	return db.backfill(keyVerifyIndexed, verifyIndexVersion, "backfill-verify", verifyKeys)
}
