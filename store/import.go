package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// ImportError names the record (0-based Index) that refused an import.
type ImportError struct {
	Index int
	Err   error
}

func (e *ImportError) Error() string { return fmt.Sprintf("record %d: %v", e.Index+1, e.Err) }
func (e *ImportError) Unwrap() error { return e.Err }

// Import adds records to a project. It is idempotent: a record is matched
// to a stored memory by id, else by ref, else by identical content; a match
// with the same content changes nothing, a match with other content becomes
// a new version of it; a matched record that names no bindings keeps the
// memory's (binding happens where the files are, after an import adds
// memories: see ImportResult.New). Every record is validated and scanned for secrets
// before anything is written, so a bad record refuses the whole import and
// leaves the store as it was. Large imports are written in several
// transactions, each holding whole memories with all their index entries.
func (db *DB) Import(ctx context.Context, project string, recs []memory.Record, by memory.Actor) (ImportResult, error) {
	var res ImportResult
	plan, err := db.planImport(project, recs)
	if err != nil {
		return res, err
	}
	w := &batchWriter{db: db, ctx: ctx}
	for i, op := range plan.ops {
		switch {
		case op.old == nil:
			res.Added++
			res.New = append(res.New, Added{Record: i, ID: op.m.ID})
		case op.same:
			res.Unchanged++
			continue
		default:
			res.Updated++
		}
		op := op
		if err := w.add(estimate(op.m), func(txn *badger.Txn) error { return importOne(txn, op) }); err != nil {
			return res, err
		}
	}
	for _, e := range plan.edges {
		e := e
		res.Edges++
		if err := w.add(256, func(txn *badger.Txn) error { return putEdge(txn, e) }); err != nil {
			return res, err
		}
	}
	summary := fmt.Sprintf("imported %d records: %d added, %d updated, %d unchanged", len(recs), res.Added, res.Updated, res.Unchanged)
	if err := w.add(256, func(txn *badger.Txn) error {
		if res.Added+res.Updated+res.Edges == 0 {
			return nil
		}
		return db.event(txn, project, by, memory.EventImport, "", summary)
	}); err != nil {
		return res, err
	}
	return res, w.flush()
}

type importOp struct {
	m    *memory.Memory
	old  *memory.Memory // nil: new
	same bool
}

type importPlan struct {
	ops   []importOp
	edges []memory.Edge
}

// planImport validates every record and matches it to the store, writing nothing.
func (db *DB) planImport(project string, recs []memory.Record) (importPlan, error) {
	var plan importPlan
	now := db.now().UTC()
	ids, refs := map[string]int{}, map[string]int{}
	var edgeIdx []int
	for i, r := range recs {
		m, edges := r.ToMemory(project)
		fail := func(err error) error { return &ImportError{Index: i, Err: err} }
		if m.ID != "" && !validID(m.ID) {
			return plan, fail(invalidf("id %q is not a ULID", m.ID))
		}
		for _, t := range []*time.Time{&m.CreatedAt, &m.UpdatedAt, &m.ValidFrom} {
			if t.IsZero() {
				*t = now
			}
			*t = t.UTC()
		}
		if !m.ValidUntil.IsZero() {
			m.ValidUntil = m.ValidUntil.UTC()
		}
		if err := db.prepare(m); err != nil {
			return plan, fail(err)
		}
		if m.ID != "" {
			if j, dup := ids[m.ID]; dup {
				return plan, fail(invalidf("id %s also appears in record %d", m.ID, j+1))
			}
			ids[m.ID] = i
		}
		if m.Ref != "" {
			if j, dup := refs[m.Ref]; dup {
				return plan, fail(invalidf("ref %q also appears in record %d", m.Ref, j+1))
			}
			refs[m.Ref] = i
		}
		for _, e := range edges {
			if !e.Kind.Valid() {
				return plan, fail(invalidf("unknown link kind %q", e.Kind))
			}
			if e.Weight < 0 || e.Weight > 1 {
				return plan, fail(invalidf("link weight %v out of range 0..1", e.Weight))
			}
			plan.edges = append(plan.edges, e)
			edgeIdx = append(edgeIdx, i)
		}
		plan.ops = append(plan.ops, importOp{m: m})
	}
	err := db.view(func(txn *badger.Txn) error {
		for i := range plan.ops {
			op := &plan.ops[i]
			old, err := db.match(txn, project, op.m)
			if err != nil {
				return &ImportError{Index: i, Err: err}
			}
			if old != nil {
				op.old = old
				op.m.ID = old.ID
				if op.m.Watermarks == nil {
					op.m.Watermarks = old.Watermarks // a record that names no binding does not unbind
				}
				op.same = sameContent(old, op.m) && old.Status == op.m.Status &&
					slices.Equal(old.Supersedes, op.m.Supersedes) && old.SupersededBy == op.m.SupersededBy &&
					old.ValidUntil.Equal(op.m.ValidUntil)
			} else if op.m.ID == "" {
				op.m.ID = newID()
				ids[op.m.ID] = i
			}
		}
		known := func(id string) (bool, error) {
			if _, ok := ids[id]; ok {
				return true, nil
			}
			m, err := getMem(txn, id)
			if errors.Is(err, ErrNotFound) {
				return false, nil
			}
			return err == nil && (m.Project == project || m.Project == memory.GlobalID), err
		}
		for i, op := range plan.ops {
			refsTo := slices.Clone(op.m.Supersedes)
			if op.m.SupersededBy != "" {
				refsTo = append(refsTo, op.m.SupersededBy)
			}
			for _, id := range refsTo {
				if ok, err := known(id); err != nil || !ok {
					return &ImportError{Index: i, Err: invalidf("supersession names %s, which is neither in the input nor in the project", id)}
				}
			}
		}
		for j := range plan.edges {
			e := &plan.edges[j]
			e.From = plan.ops[edgeIdx[j]].m.ID
			if e.CreatedAt.IsZero() {
				e.CreatedAt = now
			}
			if ok, err := known(e.To); err != nil || !ok {
				return &ImportError{Index: edgeIdx[j], Err: invalidf("%s link to %s, which is neither in the input nor in the project", e.Kind, e.To)}
			}
			if e.From == e.To {
				return &ImportError{Index: edgeIdx[j], Err: invalidf("a memory cannot link to itself")}
			}
		}
		// Keep only edges that are new or changed, so a second import writes nothing.
		changed := plan.edges[:0]
		for _, e := range plan.edges {
			var cur memory.Edge
			err := get(txn, keyEdgeOut(e), &cur)
			if err == nil && cur.Weight == e.Weight && cur.Active == e.Active {
				continue
			}
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			changed = append(changed, e)
		}
		plan.edges = changed
		return nil
	})
	return plan, err
}

// match finds the stored memory a record stands for: by id, by ref, or by content.
func (db *DB) match(txn *badger.Txn, project string, m *memory.Memory) (*memory.Memory, error) {
	if m.ID != "" {
		old, err := getMem(txn, m.ID)
		if err == nil {
			if old.Project != project {
				return nil, invalidf("id %s belongs to another project", m.ID)
			}
			if m.Ref != "" && old.Ref != m.Ref {
				if holder, err := refHolder(txn, project, m.Ref); err != nil || (holder != "" && holder != m.ID) {
					return nil, invalidf("ref %q is already used by %s", m.Ref, holder)
				}
			}
			return old, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	if m.Ref != "" {
		holder, err := refHolder(txn, project, m.Ref)
		if err != nil {
			return nil, err
		}
		if holder != "" {
			if m.ID != "" && holder != m.ID {
				return nil, invalidf("ref %q is already used by %s, not %s", m.Ref, holder, m.ID)
			}
			return getMem(txn, holder)
		}
		return nil, nil
	}
	if m.ID == "" {
		for _, k := range keys(txn, prefixHash(project, ContentHash(m))) {
			return getMem(txn, idFromKey(k))
		}
	}
	return nil, nil
}

func refHolder(txn *badger.Txn, project, ref string) (string, error) {
	item, err := txn.Get(keyRef(project, ref))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	return string(v), err
}

// importOne writes one planned record inside txn.
func importOne(txn *badger.Txn, op importOp) error {
	if op.old == nil {
		if err := claimRef(txn, op.m); err != nil {
			return err
		}
		return writeMem(txn, op.m)
	}
	old, err := getMem(txn, op.old.ID)
	if err != nil {
		return err
	}
	if err := put(txn, keyVersion(old.ID, old.Version), old); err != nil {
		return err
	}
	m := op.m.Clone()
	m.CreatedAt = old.CreatedAt
	if m.Version <= old.Version {
		m.Version = old.Version + 1
	}
	return rewrite(txn, old, m)
}

// estimate is a generous guess of the bytes a memory adds to a transaction.
func estimate(m *memory.Memory) int {
	return 2*(len(m.Body)+len(m.Title)) + 1024 + 128*len(m.Tags)
}

// batchWriter groups operations into transactions of bounded size, never
// splitting one operation across two.
type batchWriter struct {
	db      *DB
	ctx     context.Context
	pending []func(*badger.Txn) error
	size    int
}

const batchBytes = 4 << 20
const batchOps = 2000

func (w *batchWriter) add(size int, fn func(*badger.Txn) error) error {
	if len(w.pending) > 0 && (w.size+size > batchBytes || len(w.pending) >= batchOps) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.pending = append(w.pending, fn)
	w.size += size
	return nil
}

func (w *batchWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	fns := w.pending
	w.pending, w.size = nil, 0
	return w.db.update(w.ctx, func(txn *badger.Txn) error {
		for _, fn := range fns {
			if err := fn(txn); err != nil {
				return err
			}
		}
		return nil
	})
}
