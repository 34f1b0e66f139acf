package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Counts kept by the writes.
//
// What stats, verify's summary and the workbench's first frame show (the
// memories of each project by layer and status, and the edges, events and
// drafts of the whole store) is kept up to date by every write, in the
// same transaction, so that reading it costs the same at a thousand
// memories and at a million:
//
//	meta/counts     the counts as of the last fold (JSON of tallied)
//	cntd/<id>       what one transaction changed since (JSON of tallied)
//
// A transaction writes its own delta under a new key rather than updating
// meta/counts, so that concurrent writers never conflict on it; after
// foldEvery deltas a writer folds them into meta/counts in one more
// transaction (reading at most that many small keys). A store written
// before the counts has no meta/counts: Open counts it key by key once
// (countsBuild), and until then (a store opened read-only) reads count key
// by key as they always did.
//
// The memory counts follow the layer index (idx/<pid>/ls/…): writeMemAs
// adds the entry and unindex removes it, so they are where the tally is
// taken; a forget takes its memory out of the counts when it marks it
// forgotten, before its keys are dropped. Edges, events and drafts are
// counted at their keys (setCounted, deleteCounted): a key holding the
// forgotten marker counts as gone.

var (
	keyCounts         = []byte("meta/counts")
	prefixCountDeltas = []byte("cntd/")
)

// foldEvery is how many deltas may wait before a writer folds them.
const foldEvery = 256

// tallied is the stored form of counts and of a delta.
type tallied struct {
	// Mem counts memories by "<project>/<layer>/<status letter>".
	Mem    map[string]int `json:"m,omitempty"`
	Edges  int            `json:"e,omitempty"`
	Events int            `json:"v,omitempty"`
	Drafts int            `json:"d,omitempty"`
}

func memCountKey(pid string, l memory.Layer, s memory.Status) string {
	return pid + "/" + string(l) + "/" + statusLetter(s)
}

// splitMemCountKey reads a key of tallied.Mem back.
func splitMemCountKey(k string) (pid string, l memory.Layer, s memory.Status, ok bool) {
	i := strings.LastIndexByte(k, '/')
	if i < 2 || i != len(k)-2 || k[i-2] != '/' {
		return "", 0, "", false
	}
	return k[:i-2], memory.Layer(k[i-1]), statusFromLetter(k[i+1]), true
}

func (t *tallied) empty() bool {
	return len(t.Mem) == 0 && t.Edges == 0 && t.Events == 0 && t.Drafts == 0
}

func (t *tallied) addMem(k string, n int) {
	if t.Mem == nil {
		t.Mem = map[string]int{}
	}
	if t.Mem[k] += n; t.Mem[k] == 0 {
		delete(t.Mem, k)
	}
}

// add adds o to t.
func (t *tallied) add(o tallied) {
	for k, n := range o.Mem {
		t.addMem(k, n)
	}
	t.Edges += o.Edges
	t.Events += o.Events
	t.Drafts += o.Drafts
}

// tallies holds the delta of each read-write transaction under way (see
// DB.commit), found by the transaction from the functions that write keys.
var tallies sync.Map // *badger.Txn → *tallied

func tallyOf(txn *badger.Txn) *tallied {
	if v, ok := tallies.Load(txn); ok {
		return v.(*tallied)
	}
	return nil
}

// countedFn wraps fn: what it changes in the counts is written with it, in
// the same transaction. done is set when it wrote a delta.
func countedFn(fn func(txn *badger.Txn) error, done *bool) func(txn *badger.Txn) error {
	return func(txn *badger.Txn) error {
		t := &tallied{}
		tallies.Store(txn, t)
		defer tallies.Delete(txn)
		*done = false
		if err := fn(txn); err != nil {
			return err
		}
		if t.empty() {
			return nil
		}
		b, _ := json.Marshal(t) // plain data: it cannot fail
		if err := txn.Set(append(bytes.Clone(prefixCountDeltas), newID()...), b); err != nil {
			return fmt.Errorf("count the write: %w", err)
		}
		*done = true
		return nil
	}
}

// tallyMem counts m's entry in the layer index in (n = 1) or out (n = -1).
func tallyMem(txn *badger.Txn, m *memory.Memory, n int) {
	if t := tallyOf(txn); t != nil {
		t.addMem(memCountKey(m.Project, m.Layer, m.Status), n)
	}
}

// counterOf is the count a key belongs to; nil for a key not counted.
func (t *tallied) counterOf(key []byte) *int {
	switch {
	case bytes.HasPrefix(key, prefixAllEdges):
		return &t.Edges
	case bytes.HasPrefix(key, prefixAllEvents):
		return &t.Events
	case bytes.HasPrefix(key, prefixAllDrafts):
		return &t.Drafts
	}
	return nil
}

// tallyKey counts key in or out by n, when it is a counted key.
func tallyKey(txn *badger.Txn, key []byte, n int) {
	if t := tallyOf(txn); t != nil {
		if c := t.counterOf(key); c != nil {
			*c += n
		}
	}
}

// liveKey reports whether key holds something that counts: present, and
// not the forgotten marker.
func liveKey(txn *badger.Txn, key []byte) (bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	gone := false
	err = item.Value(func(v []byte) error { gone = len(v) > 0 && v[0] == formatForgotten; return nil })
	return !gone, err
}

// setCounted is txn.Set of a counted key (an edge, an event, a draft),
// counting it in when it was not live and out when val is the forgotten
// marker.
func setCounted(txn *badger.Txn, key, val []byte) error {
	was, err := liveKey(txn, key)
	if err != nil {
		return err
	}
	if err := txn.Set(key, val); err != nil {
		return err
	}
	is := len(val) == 0 || val[0] != formatForgotten
	tallyKey(txn, key, b2i(is)-b2i(was))
	return nil
}

// putCounted is put of a counted key.
func putCounted(txn *badger.Txn, key []byte, v any) error {
	b, err := encode(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", key, err)
	}
	return setCounted(txn, key, b)
}

// deleteCounted is txn.Delete of a counted key.
func deleteCounted(txn *badger.Txn, key []byte) error {
	was, err := liveKey(txn, key)
	if err != nil {
		return err
	}
	if err := txn.Delete(key); err != nil {
		return err
	}
	tallyKey(txn, key, -b2i(was))
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readCounts is the counts kept: meta/counts and the deltas after it;
// ok is false for a store without them (written before them, not yet
// opened read-write by a cairn that keeps them).
func readCounts(txn *badger.Txn) (t tallied, ok bool, err error) {
	item, err := txn.Get(keyCounts)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return t, false, nil
	}
	if err != nil {
		return t, false, err
	}
	if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &t) }); err != nil {
		return t, false, fmt.Errorf("read %s: %w", keyCounts, err)
	}
	_, err = eachDelta(txn, func(d tallied) { t.add(d) })
	return t, err == nil, err
}

// eachDelta calls fn with every delta waiting, and returns their keys.
func eachDelta(txn *badger.Txn, fn func(tallied)) ([][]byte, error) {
	o := badger.DefaultIteratorOptions
	o.Prefix = prefixCountDeltas
	it := txn.NewIterator(o)
	defer it.Close()
	var ks [][]byte
	for it.Rewind(); it.Valid(); it.Next() {
		var d tallied
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &d) }); err != nil {
			return nil, fmt.Errorf("read %s: %w", it.Item().Key(), err)
		}
		fn(d)
		ks = append(ks, it.Item().KeyCopy(nil))
	}
	return ks, nil
}

// fold adds the deltas waiting into meta/counts and deletes them, inside
// txn. Deltas written after txn began are not seen and stay for the next.
func fold(txn *badger.Txn) error {
	t, ok, err := readCounts(txn)
	if err != nil || !ok {
		return err
	}
	ks, err := eachDelta(txn, func(tallied) {})
	if err != nil {
		return err
	}
	for _, k := range ks {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(t)
	return txn.Set(keyCounts, b)
}

// maybeFold folds the deltas when enough wait; called after a commit that
// wrote one, with the store's write locks held (see commit). A fold that
// fails leaves the deltas for the next: the counts stay right.
func (db *DB) maybeFold() {
	if db.deltas.Add(1) < foldEvery || !db.folding.TryLock() {
		return
	}
	defer db.folding.Unlock()
	if db.bdb.Update(fold) == nil {
		db.deltas.Store(0)
	}
}

// countAll counts the store key by key: the layer index of every project
// (a memory being forgotten is counted until its keys are dropped), then
// edges, events and drafts, a forgotten marker counting as gone. It is
// what the counts kept must always equal.
func countAll(txn *badger.Txn) tallied {
	t := tallied{Mem: map[string]int{}}
	each := func(prefix []byte, values bool, fn func(k, v []byte)) {
		o := badger.DefaultIteratorOptions
		o.PrefetchValues, o.Prefix = false, prefix
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var v []byte
			if values {
				// The values are small (an event, a draft): read them only
				// for the marker's first byte.
				_ = it.Item().Value(func(b []byte) error {
					if len(b) > 0 {
						v = []byte{b[0]}
					}
					return nil
				})
			}
			fn(it.Item().Key(), v)
		}
	}
	for _, pid := range projectIDs(txn) {
		prefix := prefixLayerAny(pid)
		each(prefix, false, func(k, _ []byte) {
			if l, st, ok := layerStatusOf(k, prefix); ok {
				t.Mem[memCountKey(pid, l, st)]++
			}
		})
	}
	live := func(n *int) func(k, v []byte) {
		return func(_, v []byte) {
			if len(v) == 0 || v[0] != formatForgotten {
				*n++
			}
		}
	}
	each(prefixAllEdges, false, live(&t.Edges))
	each(prefixAllEvents, true, live(&t.Events))
	each(prefixAllDrafts, true, live(&t.Drafts))
	return t
}

// buildCounts gives a store without counts its counts, once, from a count
// key by key (see countAll), dropping any delta a write left meanwhile
// (the count includes it). A store with counts folds what waits.
func (db *DB) buildCounts() error {
	return db.writeUnchecked(func(txn *badger.Txn) error {
		if _, ok, err := readCounts(txn); err != nil || ok {
			if err != nil {
				return err
			}
			return fold(txn)
		}
		t := countAll(txn)
		for _, k := range keys(txn, prefixCountDeltas) {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		b, _ := json.Marshal(t)
		return txn.Set(keyCounts, b)
	})
}

// counts is the counts kept, or counted key by key on a store without them.
func counts(txn *badger.Txn) (tallied, error) {
	t, ok, err := readCounts(txn)
	if err != nil || ok {
		return t, err
	}
	return countAll(txn), nil
}
