package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
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

func keySal(id string) []byte { return []byte("sal/" + id) }

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
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	m.Salience.AccessCount, m.Salience.Accesses, m.Salience.Feedback = r.AccessCount, r.Accesses, r.Feedback
	return nil
}

// salOf reads the salience record of id, starting from what the memory
// carries when it has none yet.
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
				if errors.Is(err, ErrNotFound) {
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

func keyGap(pid, gid string) []byte { return []byte("gap/" + pid + "/" + gid) }
func prefixGaps(pid string) []byte  { return []byte("gap/" + pid + "/") }

// maxGaps bounds a project's gap log: the least recently asked go first.
const maxGaps = 500

// GapID names a question: the same words, in any case and spacing, are
// one gap.
func GapID(query string) string {
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(query)), " ")))
	return hex.EncodeToString(h[:6])
}

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
	gid := GapID(query)
	now := db.now().UTC()
	return db.update(ctx, func(txn *badger.Txn) error {
		var g memory.Gap
		switch err := get(txn, keyGap(project, gid), &g); {
		case errors.Is(err, ErrNotFound):
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
			if errors.Is(err, ErrNotFound) {
				return fmt.Errorf("gap %s: %w (cairn gaps lists them)", id, ErrNotFound)
			}
			return err
		}
		return txn.Delete(keyGap(project, id))
	})
}

// Vectors returns the cached vectors of content hashes for an embedder
// (those it has; see PutVectors).
func (db *DB) Vectors(ctx context.Context, embedder string, hashes []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	err := db.view(func(txn *badger.Txn) error {
		for _, h := range hashes {
			item, err := txn.Get(KeyVector(h, embedder))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := item.Value(func(v []byte) error {
				if len(v) < 1 || v[0] != formatVector || (len(v)-1)%4 != 0 {
					return nil // not a vector this version wrote: embed again
				}
				vec := make([]float32, (len(v)-1)/4)
				for i := range vec {
					vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(v[1+4*i:]))
				}
				out[h] = vec
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// formatVector marks a cached vector: little-endian float32s.
const formatVector byte = 'v'

// PutVectors caches vectors of content hashes for an embedder, so that a
// server start embeds only what is new. A forget drops the vector of the
// memory's content with it (prefixVectors).
func (db *DB) PutVectors(ctx context.Context, embedder string, vecs map[string][]float32) error {
	hashes := make([]string, 0, len(vecs))
	for h := range vecs {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	for len(hashes) > 0 {
		batch := hashes[:min(len(hashes), 500)]
		hashes = hashes[len(batch):]
		err := db.update(ctx, func(txn *badger.Txn) error {
			for _, h := range batch {
				v := vecs[h]
				b := make([]byte, 1+4*len(v))
				b[0] = formatVector
				for i, x := range v {
					binary.LittleEndian.PutUint32(b[1+4*i:], math.Float32bits(x))
				}
				if err := txn.Set(KeyVector(h, embedder), b); err != nil {
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
