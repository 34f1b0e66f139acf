package store

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// The wake check's reads. A project's bound memories are summed up as the
// distinct stamps they carry (BoundTargets): a check compares those with
// the world and reads the memories of the few that moved (BoundTo), so a
// check that finds nothing moved does not ship every bound memory (10,000
// of them are a megabyte of JSON through the server).

// boundCache keeps each project's summary while the store holds no newer
// write: Badger's largest version (every commit raises it) and the count
// of forgets' drops (DropPrefix removes keys without a new version) both
// have to match. A check with nothing written since reads no key.
type boundCache struct {
	mu    sync.Mutex
	byPID map[string]boundSummary
	drops atomic.Uint64 // DropPrefix calls so far (see DB.drop)
}

type boundSummary struct {
	version, drops uint64
	targets        []memory.BoundTarget
}

// stamp is what a summary is valid for: read before the summary is read,
// so a write that lands meanwhile makes the next stamp differ (the summary
// is then read again, never served stale).
func (db *DB) boundStamp() (uint64, uint64) {
	return db.bdb.MaxVersion(), db.bound.drops.Load()
}

// BoundTargets sums up a project's bound memories as the distinct stamps
// they carry (kind, target, fingerprint, state), with how many carry each,
// sorted by kind, target, fingerprint and state.
func (db *DB) BoundTargets(ctx context.Context, project string) ([]memory.BoundTarget, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	version, drops := db.boundStamp()
	db.bound.mu.Lock()
	s, ok := db.bound.byPID[project]
	db.bound.mu.Unlock()
	if ok && s.version == version && s.drops == drops {
		return slices.Clone(s.targets), nil
	}
	type key struct {
		kind       memory.WatermarkKind
		target, fp string
		state      memory.WatermarkState
	}
	counts := map[key]int{}
	err := db.view(func(txn *badger.Txn) error {
		return eachBound(txn, project, func(m *memory.Memory) error {
			for _, w := range m.Watermarks {
				if w.Kind != memory.WatermarkNone {
					counts[key{w.Kind, w.Target, w.Fingerprint, w.State}]++
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	targets := make([]memory.BoundTarget, 0, len(counts))
	for k, n := range counts {
		targets = append(targets, memory.BoundTarget{Kind: k.kind, Target: k.target, Fingerprint: k.fp, State: k.state, Count: n})
	}
	slices.SortFunc(targets, func(a, b memory.BoundTarget) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.Fingerprint, b.Fingerprint), cmp.Compare(a.State, b.State))
	})
	db.bound.mu.Lock()
	if db.bound.byPID == nil {
		db.bound.byPID = map[string]boundSummary{}
	}
	db.bound.byPID[project] = boundSummary{version, drops, targets}
	db.bound.mu.Unlock()
	return slices.Clone(targets), nil
}

// BoundTo returns the bound memories of a project that carry a watermark
// on one of targets, filled as Bound fills them (id, project, watermarks).
func (db *DB) BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(targets))
	for _, t := range targets {
		want[t] = true
	}
	var out []*memory.Memory
	err := db.view(func(txn *badger.Txn) error {
		return eachBound(txn, project, func(m *memory.Memory) error {
			for _, w := range m.Watermarks {
				if w.Kind != memory.WatermarkNone && want[w.Target] {
					out = append(out, m)
					break
				}
			}
			return nil
		})
	})
	return out, err
}

// eachBound calls fn with every bound memory of a project, read from the
// bound index (id, project and watermarks only; a memory indexed before
// the index held watermarks is read whole).
func eachBound(txn *badger.Txn, project string, fn func(*memory.Memory) error) error {
	o := badger.DefaultIteratorOptions
	o.Prefix = prefixBound(project)
	it := txn.NewIterator(o)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().KeyCopy(nil)
		m := &memory.Memory{ID: idFromKey(k), Project: project}
		err := it.Item().Value(func(v []byte) error {
			if len(v) == 0 {
				return nil // written before the index held watermarks
			}
			return decode(k, v, &m.Watermarks)
		})
		if err != nil {
			return err
		}
		if len(m.Watermarks) == 0 {
			full, err := getMem(txn, m.ID)
			if errors.Is(err, memory.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			m.Watermarks = full.Watermarks
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}
