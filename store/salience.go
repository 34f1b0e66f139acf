package store

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// Salience lives in small records of its own (sal/<id>), beside the
// memory: a recall counts an access without rewriting the memory's whole
// record, and accesses are written in batches, at most flushEvery after
// they happen and when the store closes. A crash can lose the accesses of
// that last moment; it never loses a memory or a feedback, which are
// written at once.
const flushEvery = 500 * time.Millisecond

// salRecord is what sal/<id> holds; Reinforcements stay in the memory
// (they are written with the dedup that made them).
type salRecord struct {
	AccessCount int               `json:"access_count,omitempty"`
	Accesses    []time.Time       `json:"accesses,omitempty"`
	Feedback    []memory.Feedback `json:"feedback,omitempty"`
}

// overlaySalience puts the salience record of m, if it has one, over what
// its memory record carries (older stores kept accesses there).
func overlaySalience(txn *badger.Txn, m *memory.Memory) error {
	var r salRecord
	switch err := get(txn, keySal(m.ID), &r); {
	case errors.Is(err, memory.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	m.Salience.AccessCount, m.Salience.Accesses, m.Salience.Feedback = r.AccessCount, r.Accesses, r.Feedback
	return nil
}

// salOf is the salience record of m as read (getMem overlays the record
// when there is one, else m carries what an older store kept).
func salOf(m *memory.Memory) salRecord {
	return salRecord{AccessCount: m.Salience.AccessCount, Accesses: m.Salience.Accesses, Feedback: m.Salience.Feedback}
}

// Touch records that memories were recalled: it raises their salience
// (access count and recent access times). It is not an edit — no new
// version, no event — and it says nothing about whether they are true.
// The accesses are written within flushEvery (see FlushSalience).
func (db *DB) Touch(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if release, err := db.enter(); err != nil {
		return err
	} else {
		release()
	}
	at := db.now().UTC()
	db.salMu.Lock()
	defer db.salMu.Unlock()
	if db.salPending == nil {
		db.salPending = map[string][]time.Time{}
	}
	for _, id := range ids {
		db.salPending[id] = append(db.salPending[id], at)
	}
	if db.salTimer == nil {
		db.salTimer = time.AfterFunc(flushEvery, func() { _ = db.FlushSalience(context.Background()) })
	}
	return nil
}

// FlushSalience writes the accesses Touch has gathered. A memory
// forgotten meanwhile gets none.
func (db *DB) FlushSalience(ctx context.Context) error {
	db.salMu.Lock()
	pending := db.salPending
	db.salPending = nil
	if db.salTimer != nil {
		db.salTimer.Stop()
		db.salTimer = nil
	}
	db.salMu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	ids := make([]string, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for len(ids) > 0 { // transactions of bounded size
		batch := ids[:min(len(ids), 2000)]
		ids = ids[len(batch):]
		err := db.update(ctx, func(txn *badger.Txn) error {
			for _, id := range batch {
				m, err := getMem(txn, id)
				if errors.Is(err, memory.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				r := salOf(m)
				for _, at := range pending[id] {
					memory.AddAccess(&m.Salience, at)
				}
				r.AccessCount, r.Accesses = m.Salience.AccessCount, m.Salience.Accesses
				if err := put(txn, keySal(id), r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Feedback records that a recalled memory was (or was not) helpful for a
// query. It moves the memory's salience for similar queries and never its
// trust; it is written at once.
func (db *DB) Feedback(ctx context.Context, id, query string, helpful bool, by memory.Actor) error {
	query = strings.TrimSpace(query)
	if len([]rune(query)) > 500 {
		return invalidf("the query is %d characters: feedback keeps at most 500", len([]rune(query)))
	}
	if err := secrets.Check(secrets.Field{Name: "query", Text: query}); err != nil {
		return err
	}
	if err := db.FlushSalience(ctx); err != nil {
		return err
	}
	return db.update(ctx, func(txn *badger.Txn) error {
		m, err := getMem(txn, id)
		if err != nil {
			return err
		}
		r := salOf(m)
		r.Feedback = append(r.Feedback, memory.Feedback{Query: query, Helpful: helpful, At: db.now().UTC(), Actor: by})
		if n := len(r.Feedback); n > memory.MaxFeedback {
			r.Feedback = slices.Clone(r.Feedback[n-memory.MaxFeedback:])
		}
		return put(txn, keySal(id), r)
	})
}
