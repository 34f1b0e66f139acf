package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Import adds records to a project, all or nothing. It is idempotent: a
// record is matched to a stored memory by id, else by ref, else by identical
// content; a match with the same content changes nothing, a match with other
// content becomes a new version of it; a record without id or ref that says
// what an active memory says after normalisation counts as that memory,
// unchanged, and reinforces it (ImportResult.Reinforced); a matched record
// that names no bindings keeps the memory's (binding happens where the files are, after
// an import adds memories: see ImportResult.New). Records are matched to
// the store as it was before the import: two records that say the same
// thing both become memories, as they would in an empty store. A bad
// record refuses the whole import and leaves the store as it was.
//
// A record may carry the memory's earlier versions (Record.History), which
// are written with it when it is new (a matched memory keeps its own
// history), and a record may be one timeline event (Record.Event), written
// as it came unless the project has an event of its id: an export read
// into a fresh store keeps its history and timeline (see import_history.go).
//
// Badger bounds the size of a transaction, so a large import is written in
// several, each holding whole memories with all their index entries and, in
// the same transaction, an undo journal of what it changed. One last
// transaction is the commit point: it writes the import's timeline event
// and its result and drops the journal. Until then the import can be undone
// from the journal: at once when ctx is cancelled, a record is refused or a
// write fails, and at the next Open when the process died. Readers may see
// an import in progress, never half of one after it ended.
//
// A caller that may send the same import twice (a client retrying after a
// lost connection) names it with WithImportID: the second call returns the
// first one's result instead of importing again.
func (db *DB) Import(ctx context.Context, project string, recs []memory.Record, by memory.Actor) (memory.ImportResult, error) {
	return db.importFrom(ctx, project, memory.Chunks(recs, memory.ImportChunk), len(recs), by)
}

// ImportStream is Import of records handed over a chunk at a time: next
// returns the next chunk, and io.EOF after the last one (any other error
// refuses the import). The import holds a chunk or two at a time, not the
// whole input, and works on one chunk (validating, scanning for secrets,
// normalising, signing, encoding, on every core) while it writes the one
// before.
func (db *DB) ImportStream(ctx context.Context, project string, next func() ([]memory.Record, error), by memory.Actor) (memory.ImportResult, error) {
	return db.importFrom(ctx, project, next, -1, by)
}

// importFrom runs an import of the records next hands over; records is
// their number when known (a retry with the same id must have as many),
// else -1.
func (db *DB) importFrom(ctx context.Context, project string, next func() ([]memory.Record, error), records int, by memory.Actor) (memory.ImportResult, error) {
	id := memory.ImportID(ctx)
	if id == "" {
		id = newID()
	} else if !validID(id) {
		return memory.ImportResult{}, invalidf("import id %q is not a ULID: leave it empty and cairn makes one", id)
	}
	// One import at a time: a retry waits for the attempt it repeats, and
	// any journal found under the lock belongs to an import that is over.
	db.importing.Lock()
	defer db.importing.Unlock()
	if err := ctx.Err(); err != nil {
		return memory.ImportResult{}, err
	}
	if err := db.undoImports(); err != nil {
		return memory.ImportResult{}, err
	}
	if res, ok, err := db.landed(id, project, records); ok || err != nil {
		return res, err
	}
	im := &importer{db: db, project: project, now: db.now().UTC(),
		ids: map[string]int{}, refs: map[string]int{}, ours: map[string]bool{},
		w:      &batchWriter{db: db, ctx: ctx, id: id},
		hashes: indexScan{prefix: prefixHash(project, "")[:len(prefixHash(project, ""))-1]},
		norms:  indexScan{prefix: prefixNorm(project, "")[:len(prefixNorm(project, ""))-1]}}
	if err := db.view(func(txn *badger.Txn) error {
		im.empty = len(keysLimit(txn, prefixAll(project), 1)) == 0
		return nil
	}); err != nil {
		return memory.ImportResult{}, err
	}
	err := im.run(next)
	if err == nil {
		err = im.finish(by)
	}
	if err != nil {
		if uerr := db.undoImport(id); uerr != nil {
			return memory.ImportResult{}, fmt.Errorf("%w; undoing the part already written failed too (%v): cairn undoes it when it next opens the store", err, uerr)
		}
		return memory.ImportResult{}, err
	}
	db.step("done", 0)
	return im.res, nil
}

type importOp struct {
	m    *memory.Memory
	old  *memory.Memory // nil: new
	same bool
	// again: the record says what old says in other words; it counts as
	// old, unchanged, and reinforces it (see importMatch).
	again bool

	// Worked out ahead of the write, on every core: m's normalised text
	// and derived index parts; for a new memory its encoded value, its
	// index entries and the hash the journal keeps. gen: cairn made its
	// id, so no other writer can hold it.
	norm  string
	d     derived
	val   []byte
	index [][]byte
	wrote string
	gen   bool
	edges []memory.Edge // the record's links, from m
	// hist: the record's earlier versions, written with it when it is
	// new (see importHistory).
	hist []*memory.Memory
	// event: the record is one timeline entry, not a memory (m is nil).
	event *memory.Event
}

// importer is one import under way.
type importer struct {
	db      *DB
	project string
	now     time.Time
	w       *batchWriter

	n    int            // records so far
	ids  map[string]int // ids the records name → record
	refs map[string]int // refs the records name → record
	// ours are the memories the import adds: a later record is not
	// matched to them by content (the match is with the store as it was).
	ours map[string]bool
	// empty: the project held no memory when the import began, so a
	// record without id or ref has nothing to match (the first import of
	// a project looks up nothing).
	empty bool
	// hashes and norms read the project's content and normalised-text
	// indexes as the import goes; once whole they spare the lookups of
	// the records no stored memory can match (see indexScan).
	hashes, norms indexScan

	edges   []memory.Edge
	edgeRec []int   // the record of each edge
	succ    []refTo // supersession named by records, checked at the end
	res     memory.ImportResult
}

// refTo is a memory a record names (as superseding or superseded by it).
type refTo struct {
	rec int
	id  string
}

// run plans each chunk next hands over while a writer writes the chunk
// before it, in order.
func (im *importer) run(next func() ([]memory.Record, error)) error {
	planned := make(chan []importWrite, 1)
	stop := make(chan struct{}) // the writer failed: plan no more
	werr := make(chan error, 1)
	go func() {
		var err error
		for ws := range planned {
			if err != nil {
				continue // drain what was planned before the plan saw stop
			}
			for _, w := range ws {
				if err = im.w.add(w); err != nil {
					close(stop)
					break
				}
			}
		}
		werr <- err
	}()
	err := im.plan(next, planned, stop)
	close(planned)
	if werr := <-werr; werr != nil {
		return werr // what stopped the plan, if it stopped
	}
	return err
}

// plan validates and matches every chunk and hands its writes to the writer.
func (im *importer) plan(next func() ([]memory.Record, error), planned chan<- []importWrite, stop <-chan struct{}) error {
	for {
		recs, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		ws, err := im.planChunk(recs)
		if err != nil {
			return err
		}
		select {
		case planned <- ws:
		case <-stop:
			return nil // the writer's error is the answer
		}
	}
}

// planChunk validates a chunk of records, matches them to the store and
// returns their writes, writing nothing.
func (im *importer) planChunk(recs []memory.Record) ([]importWrite, error) {
	base := im.n
	im.n += len(recs)
	ops := make([]importOp, len(recs))
	if err := im.prepareChunk(ops, recs, base); err != nil {
		return nil, err
	}
	if err := im.readAhead(len(recs)); err != nil {
		return nil, err
	}
	if err := im.matchChunk(ops, base); err != nil {
		return nil, err
	}
	im.nameChunk(ops, base)
	encodeChunk(ops)
	writes, need := im.tally(ops, base)
	if len(writes) > 0 {
		if err := im.db.roomFor(uint64(need)); err != nil {
			return nil, err
		}
	}
	return writes, nil
}

// prepareChunk validates and prepares the records of a chunk (on every
// core), then claims their ids and refs in order.
func (im *importer) prepareChunk(ops []importOp, recs []memory.Record, base int) error {
	if err := everyCore(len(recs), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := im.prepare(&ops[i], recs[i], base+i); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range ops {
		if err := im.claim(&ops[i], base+i); err != nil {
			return err
		}
	}
	return nil
}

// readAhead reads as much more of the store's hash indexes as n records
// may need, in order (an empty project has none to read).
func (im *importer) readAhead(n int) error {
	if im.empty {
		return nil
	}
	return im.db.view(func(txn *badger.Txn) error {
		if err := im.hashes.more(txn, scanPerRecord*n); err != nil {
			return err
		}
		return im.norms.more(txn, scanPerRecord*n)
	})
}

// matchChunk matches each record to what the store holds. Matching only
// reads (the store, and the memories of earlier chunks in ours), so it
// runs on every core; new ids are given after, in order (nameChunk).
func (im *importer) matchChunk(ops []importOp, base int) error {
	return everyCore(len(ops), func(lo, hi int) error {
		return im.db.view(func(txn *badger.Txn) error {
			for i := lo; i < hi; i++ {
				if err := im.match(txn, &ops[i]); err != nil {
					return &memory.ImportError{Index: base + i, Err: err}
				}
			}
			return nil
		})
	})
}

// nameChunk gives the chunk's new memories their ids, and the edges its
// records carry the memory each record became.
func (im *importer) nameChunk(ops []importOp, base int) {
	for i := range ops {
		if op := &ops[i]; op.event == nil && op.old == nil {
			if op.m.ID == "" {
				op.m.ID, op.gen = newID(), true
			}
			im.ours[op.m.ID] = true
		}
	}
	for j := len(im.edges) - 1; j >= 0 && im.edgeRec[j] >= base; j-- {
		im.edges[j].From = ops[im.edgeRec[j]-base].m.ID
	}
}

// encodeChunk encodes and indexes the chunk's new memories ahead of their
// write, on every core.
func encodeChunk(ops []importOp) {
	_ = everyCore(len(ops), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if op := &ops[i]; op.event == nil && op.old == nil {
				op.val, _ = encode(op.m) // plain data: it cannot fail
				op.index = indexKeysOf(op.m, op.d)
				op.wrote = valueHash(op.val)
			}
		}
		return nil
	})
}

// tally counts what each record of the chunk does in the import's result
// and returns the writes it needs, with the room they take on disk.
func (im *importer) tally(ops []importOp, base int) (writes []importWrite, need int) {
	for i := range ops {
		op := &ops[i]
		switch {
		case op.event != nil && op.same:
			continue
		case op.event != nil:
			im.res.Events++
			writes = append(writes, importWrite{rec: base + i, op: op, size: 512 + len(op.event.Summary), entries: 3})
			need += 512 + len(op.event.Summary)
			continue
		case op.old == nil:
			im.res.Added++
			im.res.New = append(im.res.New, memory.Added{Record: base + i, ID: op.m.ID})
		case op.again:
			im.res.Unchanged++
			im.res.Reinforced++
		case op.same:
			im.res.Unchanged++
			continue
		default:
			im.res.Updated++
		}
		w := importWrite{rec: base + i, op: op}
		if op.old == nil {
			w.size, w.entries = exactSize(op)
		} else {
			// the old version is kept twice: history and journal
			w.size, w.entries = estimate(op.m)+estimate(op.old), 2*(24+len(op.m.Tags)+len(op.old.Tags))
		}
		writes = append(writes, w)
		need += w.size
	}
	return writes, need
}

// prepare makes record i a memory, validates it, scans it for secrets and
// works out its normalised text and index parts. It runs on every core,
// so it reads and writes nothing shared.
func (im *importer) prepare(op *importOp, r memory.Record, i int) error {
	fail := func(err error) error { return &memory.ImportError{Index: i, Err: err} }
	if r.Event != nil {
		e, err := im.prepareEvent(r)
		if err != nil {
			return fail(err)
		}
		op.event = e
		return nil
	}
	m, edges := r.ToMemory(im.project)
	if m.ID != "" && !validID(m.ID) {
		return fail(invalidf("id %q is not a ULID", m.ID))
	}
	for _, t := range []*time.Time{&m.CreatedAt, &m.UpdatedAt, &m.ValidFrom} {
		if t.IsZero() {
			*t = im.now
		}
		*t = t.UTC()
	}
	if !m.ValidUntil.IsZero() {
		m.ValidUntil = m.ValidUntil.UTC()
	}
	if err := im.db.prepare(m); err != nil {
		return fail(err)
	}
	for _, e := range edges {
		if !e.Kind.Valid() {
			return fail(invalidf("unknown link kind %q", e.Kind))
		}
		if e.Weight < 0 || e.Weight > 1 {
			return fail(invalidf("link weight %v out of range 0..1", e.Weight))
		}
	}
	hist, err := im.prepareHistory(m, r.History)
	if err != nil {
		return fail(err)
	}
	op.m, op.edges, op.hist = m, edges, hist
	op.d = derived{content: contentHash(m)}
	if m.Status == memory.StatusActive {
		op.norm = memory.NormalText(m)
		op.d.setNormal(op.norm)
	}
	return nil
}

// claim checks, in record order, that record i names no id or ref an
// earlier record named, and keeps its links and supersessions for the end.
func (im *importer) claim(op *importOp, i int) error {
	if op.event != nil {
		return nil
	}
	m := op.m
	fail := func(err error) error { return &memory.ImportError{Index: i, Err: err} }
	if m.ID != "" {
		if j, dup := im.ids[m.ID]; dup {
			return fail(invalidf("id %s also appears in record %d", m.ID, j+1))
		}
		im.ids[m.ID] = i
	}
	if m.Ref != "" {
		if j, dup := im.refs[m.Ref]; dup {
			return fail(invalidf("ref %q also appears in record %d", m.Ref, j+1))
		}
		im.refs[m.Ref] = i
	}
	for _, e := range op.edges {
		im.edges = append(im.edges, e)
		im.edgeRec = append(im.edgeRec, i)
	}
	for _, id := range m.Supersedes {
		im.succ = append(im.succ, refTo{i, id})
	}
	if m.SupersededBy != "" {
		im.succ = append(im.succ, refTo{i, m.SupersededBy})
	}
	return nil
}

// match finds the stored memory op's record stands for, if any.
func (im *importer) match(txn *badger.Txn, op *importOp) error {
	if op.event != nil {
		ok, err := exists(txn, keyEvent(im.project, op.event.ID))
		op.same = ok // written by an earlier import of the same export
		return err
	}
	if im.empty && op.m.ID == "" && op.m.Ref == "" {
		return nil
	}
	old, err := im.db.match(txn, im.project, op.m, op.d.content, im.ours, im.hashes.mayHold(op.d.content))
	again := false
	if err == nil && old == nil && op.m.ID == "" && op.m.Ref == "" && im.norms.mayHold(op.d.normal) {
		// Not this content, but the same fact in other words.
		old, err = importMatch(txn, im.project, op.m, op.norm, im.ours)
		again = old != nil
	}
	switch {
	case err != nil:
		return err
	case again:
		op.old, op.again, op.m.ID = old, true, old.ID
	case old != nil:
		op.old = old
		op.m.ID = old.ID
		if op.m.Watermarks == nil {
			op.m.Watermarks = old.Watermarks // a record that names no binding does not unbind
		}
		op.same = sameContent(old, op.m) && old.Status == op.m.Status &&
			slices.Equal(old.Supersedes, op.m.Supersedes) && old.SupersededBy == op.m.SupersededBy &&
			old.ValidUntil.Equal(op.m.ValidUntil)
	}
	return nil
}

// finish checks what only the whole input can tell (that links and
// supersessions name memories of the input or the project), writes the
// links and commits.
func (im *importer) finish(by memory.Actor) error {
	err := im.db.view(func(txn *badger.Txn) error {
		known := func(id string) (bool, error) {
			if im.ours[id] {
				return true, nil
			}
			m, err := getMem(txn, id)
			if errors.Is(err, memory.ErrNotFound) {
				return false, nil
			}
			return err == nil && (m.Project == im.project || m.Project == memory.GlobalID), err
		}
		for _, r := range im.succ {
			if ok, err := known(r.id); err != nil || !ok {
				return &memory.ImportError{Index: r.rec, Err: invalidf("supersession names %s, which is neither in the input nor in the project", r.id)}
			}
		}
		for j := range im.edges {
			e := &im.edges[j]
			if e.CreatedAt.IsZero() {
				e.CreatedAt = im.now
			}
			if ok, err := known(e.To); err != nil || !ok {
				return &memory.ImportError{Index: im.edgeRec[j], Err: invalidf("%s link to %s, which is neither in the input nor in the project", e.Kind, e.To)}
			}
			if e.From == e.To {
				return &memory.ImportError{Index: im.edgeRec[j], Err: invalidf("a memory cannot link to itself")}
			}
		}
		// Keep only edges that are new or changed, so a second import writes nothing.
		changed := im.edges[:0]
		for _, e := range im.edges {
			var cur memory.Edge
			err := get(txn, keyEdgeOut(e), &cur)
			if err == nil && cur.Weight == e.Weight && cur.Active == e.Active {
				continue
			}
			if err != nil && !errors.Is(err, memory.ErrNotFound) {
				return err
			}
			changed = append(changed, e)
		}
		im.edges = changed
		return nil
	})
	if err != nil {
		return err
	}
	if len(im.edges) > 0 {
		if err := im.db.roomFor(uint64(512 * len(im.edges))); err != nil {
			return err
		}
	}
	for i := range im.edges {
		im.res.Edges++
		if err := im.w.add(importWrite{edge: &im.edges[i], size: 512, entries: 4}); err != nil {
			return err
		}
	}
	if err := im.w.flush(); err != nil {
		return err
	}
	res := im.res
	if res.Added+res.Updated+res.Reinforced+res.Edges+res.Events == 0 {
		return nil // nothing written, nothing to remember: a retry finds the same
	}
	im.db.step("commit", 0)
	summary := fmt.Sprintf("imported %d records: %d added, %d updated, %d unchanged", im.n, res.Added, res.Updated, res.Unchanged)
	if res.Reinforced > 0 {
		summary += fmt.Sprintf(" (%d said again: reinforced)", res.Reinforced)
	}
	return im.db.commitImport(im.w.ctx, im.w.id, im.project, im.n, im.w.n, res, by, summary)
}

// everyCore runs fn over 0…n in ranges of a few records, on every core,
// and returns the error of the lowest range that failed (fn stops at its
// first), so the answer does not depend on scheduling.
func everyCore(n int, fn func(lo, hi int) error) error {
	const grain = 64
	errs := make([]error, (n+grain-1)/grain)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(errs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				g := int(next.Add(1)) - 1
				if g >= len(errs) {
					return
				}
				errs[g] = fn(g*grain, min(g*grain+grain, n))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// match finds the stored memory a record stands for: by id, by ref, or by
// content (chash, m's contentHash; looked up only when byContent: a memory
// may hold it), leaving out the memories in skip.
func (db *DB) match(txn *badger.Txn, project string, m *memory.Memory, chash string, skip map[string]bool, byContent bool) (*memory.Memory, error) {
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
		if !errors.Is(err, memory.ErrNotFound) {
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
	if m.ID == "" && byContent {
		for _, k := range keys(txn, prefixHash(project, chash)) {
			if id := idFromKey(k); !skip[id] {
				return getMem(txn, id)
			}
		}
	}
	return nil, nil
}

// indexScan reads one of a project's hash indexes (idx/<pid>/hash/ or
// idx/<pid>/norm/, keys <prefix>/<hex hash>/<id>) a piece at a time as an
// import goes, keeping each hash's first eight bytes in key order. Once it
// has read the whole index it tells a hash no memory holds, and the import
// looks up only the records some memory may match. A lookup seeks into
// every table of the store, which costs more as the store grows; the scan
// reads on in key order, scanPerRecord keys for each record imported, so
// its cost follows the import's size, and an import much smaller than the
// project never finishes it and looks every record up as before. The scan
// is a filter of the negative answers only: a hash it holds is looked up.
type indexScan struct {
	prefix []byte // up to and with the "/" before the hash
	after  []byte // the last key read; nil before the first
	whole  bool   // read to its end
	broken bool   // a key not of the expected form: never trusted
	heads  []uint64
}

// scanPerRecord is how many index keys an import reads ahead for each
// record (a key read in order costs far less than a lookup's seeks).
// It is a variable only so that a test can make the scan take several
// chunks; nothing else sets it.
var scanPerRecord = 32

// more reads up to budget more keys of the index.
func (s *indexScan) more(txn *badger.Txn, budget int) error {
	if s.whole || s.broken {
		return nil
	}
	o := badger.DefaultIteratorOptions
	o.Prefix, o.PrefetchValues = s.prefix, false
	it := txn.NewIterator(o)
	defer it.Close()
	seek := s.prefix
	if s.after != nil {
		seek = append(slices.Clone(s.after), 0)
	}
	n := 0
	for it.Seek(seek); ; it.Next() {
		if !it.Valid() {
			s.whole = true
			return nil
		}
		if n == budget {
			return nil
		}
		k := it.Item().Key()
		h, ok := hashHead(string(k[len(s.prefix):]))
		if !ok || (len(s.heads) > 0 && h < s.heads[len(s.heads)-1]) {
			s.broken, s.heads = true, nil
			return nil
		}
		s.heads = append(s.heads, h)
		s.after = append(s.after[:0], k...)
		n++
	}
}

// mayHold reports whether some memory may have hash h: false only when
// the whole index was read and no key begins as h does.
func (s *indexScan) mayHold(h string) bool {
	if !s.whole || s.broken || h == "" {
		return true
	}
	head, ok := hashHead(h)
	if !ok {
		return true
	}
	_, found := slices.BinarySearch(s.heads, head)
	return found
}

// hashHead is the number the first 16 hex digits of h spell.
func hashHead(h string) (uint64, bool) {
	if len(h) < 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(h[:16], 16, 64)
	return n, err == nil && strings.ToLower(h[:16]) == h[:16]
}

// importKeep is how long the result of an import is kept for a retry of it
// (a client retries at once, after reconnecting).
const importKeep = time.Hour

// importDone is the commit record of an import.
type importDone struct {
	Time    time.Time           `json:"time"`
	Project string              `json:"project"`
	Records int                 `json:"records"`
	Batches int                 `json:"batches"`
	Result  memory.ImportResult `json:"result"` // without New, which is kept per batch
}

// undo is one journal entry: how to take back one write of an import.
// Wrote is a hash of the value the import wrote; when the stored value
// differs, a later writer changed it and its write stands.
type undo struct {
	Mem     string         `json:"mem,omitempty"`      // a memory the import wrote
	Old     *memory.Memory `json:"old,omitempty"`      // its previous version; nil: the import created it
	Edge    *memory.Edge   `json:"edge,omitempty"`     // a link the import wrote
	OldEdge *memory.Edge   `json:"old_edge,omitempty"` // its previous value; nil: the import created it
	// Versions: the earlier versions of a memory the import created.
	Versions []int `json:"versions,omitempty"`
	// Event: a timeline entry the import wrote; Indexed: and its entry
	// in the index of its memory's events.
	Event   *memory.Event `json:"event,omitempty"`
	Indexed bool          `json:"indexed,omitempty"`
	Wrote   string        `json:"wrote"`
}

// importWrite is one planned write: a memory (op) or a link (edge).
type importWrite struct {
	rec     int // the record of a memory
	op      *importOp
	edge    *memory.Edge
	size    int // the bytes it adds to a transaction, or a generous guess
	entries int // the entries it adds, or a generous guess
}

// importStep, when set (by tests), is called at each step of an import
// and of its undoing, so a test can stop or kill the process there. A test
// that sets it runs alone; a parallel test sets its store's testStep.
var importStep func(stage string, n int)

func (db *DB) step(stage string, n int) {
	if db.testStep != nil {
		db.testStep(stage, n)
	}
	if importStep != nil {
		importStep(stage, n)
	}
}

func valueHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// importOne writes one planned record inside txn and says how to undo it.
func importOne(txn *badger.Txn, op importOp) (undo, error) {
	if op.event != nil {
		return importEvent(txn, *op.event)
	}
	u := undo{Mem: op.m.ID}
	m := op.m
	if op.again {
		// The fact said again: one more reinforcement, no new version.
		// The journal keeps the record as it was, which an undo restores.
		old, err := getMem(txn, op.old.ID)
		if err != nil {
			return u, err
		}
		m = old.Clone()
		m.Salience.Reinforcements++
		if err := put(txn, keyMem(m.ID), m); err != nil {
			return u, err
		}
		u.Old = old
	} else if op.old == nil {
		// Planned as new: a memory that appeared under this id since is
		// another writer's, not ours to overwrite.
		// (An id cairn made now is nobody else's.)
		if !op.gen {
			if ok, err := exists(txn, keyMem(m.ID)); err != nil {
				return u, err
			} else if ok {
				return u, invalidf("memory %s was written by someone else during the import: run the import again", m.ID)
			}
		}
		if err := claimRef(txn, m); err != nil {
			return u, err
		}
		if err := importHistory(txn, op.hist, &u); err != nil {
			return u, err
		}
		// Encoded and indexed ahead (planChunk): the journal's hash is of
		// the value written, with no read back.
		u.Wrote = op.wrote
		return u, writeMemAs(txn, m, op.val, op.index)
	} else {
		old, err := getMem(txn, op.old.ID)
		if err != nil {
			return u, err
		}
		if err := put(txn, keyVersion(old.ID, old.Version), old); err != nil {
			return u, err
		}
		m = op.m.Clone()
		m.CreatedAt = old.CreatedAt
		if m.Version <= old.Version {
			m.Version = old.Version + 1
		}
		if err := rewrite(txn, old, m); err != nil {
			return u, err
		}
		u.Old = old
	}
	var err error
	u.Wrote, _, err = rawHash(txn, keyMem(m.ID)) // read back from the transaction: no second encoding
	return u, err
}

// importEdge writes one planned link inside txn and says how to undo it.
func importEdge(txn *badger.Txn, e memory.Edge) (undo, error) {
	u := undo{Edge: &e}
	var old memory.Edge
	switch err := get(txn, keyEdgeOut(e), &old); {
	case err == nil:
		u.OldEdge = &old
	case !errors.Is(err, memory.ErrNotFound):
		return u, err
	}
	if err := putEdge(txn, e); err != nil {
		return u, err
	}
	var err error
	u.Wrote, _, err = rawHash(txn, keyEdgeOut(e))
	return u, err
}

// rawHash is the hash of the value stored at key, "" when there is none.
func rawHash(txn *badger.Txn, key []byte) (string, []byte, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return "", nil, err
	}
	return valueHash(v), v, nil
}

// takeBack undoes one journal entry inside txn, unless a later writer
// changed what the import wrote (a forget, an edit): that write stands.
func takeBack(txn *badger.Txn, u undo) error {
	if u.Event != nil {
		return takeBackEvent(txn, u)
	}
	if u.Edge != nil {
		h, _, err := rawHash(txn, keyEdgeOut(*u.Edge))
		if err != nil || h != u.Wrote {
			return err
		}
		if u.OldEdge == nil {
			return deleteEdge(txn, *u.Edge)
		}
		return put(txn, keyEdgeOut(*u.OldEdge), *u.OldEdge)
	}
	key := keyMem(u.Mem)
	h, v, err := rawHash(txn, key)
	if err != nil || h != u.Wrote {
		return err
	}
	cur, err := DecodeMemory(key, v)
	if err != nil {
		return err
	}
	if err := unindex(txn, cur); err != nil {
		return err
	}
	if cur.Ref != "" && (u.Old == nil || u.Old.Ref != cur.Ref) {
		if holder, err := refHolder(txn, cur.Project, cur.Ref); err != nil {
			return err
		} else if holder == cur.ID {
			if err := txn.Delete(keyRef(cur.Project, cur.Ref)); err != nil {
				return err
			}
		}
	}
	if u.Old == nil {
		for _, v := range u.Versions {
			if err := txn.Delete(keyVersion(cur.ID, v)); err != nil {
				return err
			}
		}
		return txn.Delete(key)
	}
	old := u.Old
	if old.Ref != "" && old.Ref != cur.Ref {
		if holder, err := refHolder(txn, old.Project, old.Ref); err != nil {
			return err
		} else if holder == "" {
			if err := txn.Set(keyRef(old.Project, old.Ref), []byte(old.ID)); err != nil {
				return err
			}
		}
	}
	if err := writeMem(txn, old); err != nil {
		return err
	}
	return txn.Delete(keyVersion(old.ID, old.Version))
}

// undoImport takes back an unfinished import, newest write first, one
// transaction per journal chunk, each dropping its chunk: killed half way,
// it goes on where it stopped at the next Open.
func (db *DB) undoImport(id string) error {
	var batches [][]byte
	if err := db.view(func(txn *badger.Txn) error {
		batches = keys(txn, prefixJournalOf(id))
		return nil
	}); err != nil {
		return err
	}
	for i := len(batches) - 1; i >= 0; i-- {
		k := batches[i]
		n, _ := strconv.Atoi(string(k[len(k)-13 : len(k)-5])) // …/<batch>/<chunk>
		// Not stopped by the cancelled context that caused it, nor refused
		// like a write while it has room to finish (see roomToUndo).
		if err := db.roomToUndo(); err != nil {
			return err
		}
		err := db.writeUnchecked(func(txn *badger.Txn) error {
			var j []undo
			if err := get(txn, k, &j); err != nil {
				return err
			}
			for _, u := range slices.Backward(j) {
				if err := takeBack(txn, u); err != nil {
					return err
				}
			}
			if err := txn.Delete(keyImportNew(id, n)); err != nil {
				return err
			}
			return txn.Delete(k)
		})
		if err != nil {
			return err
		}
		db.step("rollback", len(batches)-i)
	}
	return nil
}

// undoImports takes back every unfinished import. Callers make sure none
// is running: at Open, or holding db.importing.
func (db *DB) undoImports() error {
	var ids []string
	if err := db.view(func(txn *badger.Txn) error {
		for _, k := range keys(txn, prefixJournal) {
			id, _, _ := strings.Cut(string(k[len(prefixJournal):]), "/")
			if len(ids) == 0 || ids[len(ids)-1] != id {
				ids = append(ids, id)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := db.undoImport(id); err != nil {
			return fmt.Errorf("undo the interrupted import %s: %w", id, err)
		}
	}
	return nil
}

// finishImports runs at Open, before the store serves anything: it takes
// back the imports a dead process left unfinished and drops old results.
func (db *DB) finishImports() error {
	if err := db.undoImports(); err != nil {
		return err
	}
	return db.writeUnchecked(func(txn *badger.Txn) error { return pruneImports(txn, db.now()) })
}

// pruneImports deletes the results of imports older than importKeep.
func pruneImports(txn *badger.Txn, now time.Time) error {
	for _, k := range keys(txn, prefixImportDone) {
		var d importDone
		if err := get(txn, k, &d); err != nil {
			return err
		}
		if now.Sub(d.Time) < importKeep {
			continue
		}
		id := string(k[len(prefixImportDone):])
		for n := 1; n <= d.Batches; n++ {
			if err := txn.Delete(keyImportNew(id, n)); err != nil {
				return err
			}
		}
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// commitImport is the commit point: the event, the result, and the end
// of the journal, in one transaction.
func (db *DB) commitImport(ctx context.Context, id, project string, records, batches int, res memory.ImportResult, by memory.Actor, summary string) error {
	done := importDone{Time: db.now().UTC(), Project: project, Records: records, Batches: batches, Result: res}
	done.Result.New = nil
	return db.update(ctx, func(txn *badger.Txn) error {
		if res.Added+res.Updated+res.Reinforced+res.Edges+res.Events > 0 {
			if err := db.event(txn, project, by, memory.EventImport, "", summary); err != nil {
				return err
			}
		}
		if err := pruneImports(txn, db.now()); err != nil {
			return err
		}
		if err := put(txn, keyImportDone(id), done); err != nil {
			return err
		}
		for _, k := range keys(txn, prefixJournalOf(id)) {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// landed returns the result of import id if it already landed; records
// is the number of records the caller imports, or -1 when it streams them.
func (db *DB) landed(id, project string, records int) (memory.ImportResult, bool, error) {
	var res memory.ImportResult
	found := false
	err := db.view(func(txn *badger.Txn) error {
		var d importDone
		err := get(txn, keyImportDone(id), &d)
		if errors.Is(err, memory.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.Project != project || (records >= 0 && d.Records != records) {
			return invalidf("import id %s was used by another import: leave it empty and cairn makes one", id)
		}
		found, res = true, d.Result
		for n := 1; n <= d.Batches; n++ {
			var added []memory.Added
			if err := get(txn, keyImportNew(id, n), &added); err != nil && !errors.Is(err, memory.ErrNotFound) {
				return err
			}
			res.New = append(res.New, added...)
		}
		return nil
	})
	return res, found, err
}

// writeUnchecked runs fn in a read-write transaction, retrying on conflict,
// without the context and the free-space reserve of update: it is for the
// writes that undo an import or drop old results.
func (db *DB) writeUnchecked(fn func(txn *badger.Txn) error) error {
	release, err := db.enter()
	if err != nil {
		return err
	}
	defer release()
	for attempt := 0; ; attempt++ {
		err := db.commit(fn)
		if errors.Is(err, badger.ErrConflict) && attempt < 8 {
			time.Sleep(time.Duration(attempt+1) * time.Millisecond)
			continue
		}
		return diskFull(db.dir, err)
	}
}

// exactSize is what a new memory adds to a transaction, by Badger's count
// (key, value and 12 bytes an entry), with its ref, its bound index
// entry, and its journal and New entries (under 128 bytes).
func exactSize(op *importOp) (size, entries int) {
	size, entries = len(keyMem(op.m.ID))+len(op.val)+12+128, 1
	for _, k := range op.index {
		size, entries = size+len(k)+12, entries+1
	}
	if op.m.Ref != "" {
		size, entries = size+len(keyRef(op.m.Project, op.m.Ref))+idLen+12, entries+1
	}
	if isBound(op.m) {
		size, entries = size+estimate(&memory.Memory{Watermarks: op.m.Watermarks})+128*len(op.m.Watermarks), entries+1
	}
	for _, h := range op.hist {
		size, entries = size+estimate(h), entries+1
	}
	return size, entries
}

// estimate is a generous guess of the bytes a memory adds to a transaction.
func estimate(m *memory.Memory) int {
	return 2*(len(m.Body)+len(m.Title)) + 1024 + 128*len(m.Tags)
}

// batchWriter groups an import's writes into transactions of bounded size,
// never splitting one memory across two, each with its undo journal.
type batchWriter struct {
	db      *DB
	ctx     context.Context
	id      string // the import
	pending []importWrite
	size    int
	entries int
	n       int // batches written
}

// journalChunk bounds the encoded size of one journal value: far below
// Badger's value threshold, so journals (which hold old versions' text)
// stay in the LSM tree and leave the disk when compacted, like every
// other value cairn writes.
const journalChunk = 256 << 10

// journalChunks encodes a batch's journal as values of at most about
// journalChunk bytes, each a JSON array of undo entries.
func journalChunks(j []undo) [][]byte {
	var out [][]byte
	cur := []byte{formatJSON, '['}
	for _, u := range j {
		b, _ := json.Marshal(u) // plain data: it cannot fail
		if len(cur) > 2 && len(cur)+len(b) > journalChunk {
			out = append(out, append(cur, ']'))
			cur = []byte{formatJSON, '['}
		}
		if len(cur) > 2 {
			cur = append(cur, ',')
		}
		cur = append(cur, b...)
	}
	return append(out, append(cur, ']'))
}

const batchBytes = 4 << 20

// batchOps bounds the entries of a batch. It is a variable only so that a
// test's child process can cut a run into batches with fewer steps (see
// TestRunCrashChild); nothing else sets it.
var batchOps = 2000

// An import's batches are bounded by their entries and bytes, which are
// exact for a new memory (its value and keys are made ahead) and generous
// guesses for the rest: at most importBatchShare of what Badger takes in
// one transaction (15 % of a memtable; read from the open store, so a
// change of the memtable's size cannot make a batch too big). Fewer,
// larger batches are fewer synchronous commits.
const importBatchShare = 0.6

func (w *batchWriter) add(iw importWrite) error {
	maxBytes := int(float64(w.db.bdb.MaxBatchSize()) * importBatchShare)
	maxEntries := int(float64(w.db.bdb.MaxBatchCount()) * importBatchShare)
	if len(w.pending) > 0 && (w.size+iw.size > maxBytes || w.entries+iw.entries > maxEntries) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.pending = append(w.pending, iw)
	w.size += iw.size
	w.entries += iw.entries
	return nil
}

func (w *batchWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	writes, n := w.pending, w.n+1
	w.pending, w.size, w.entries = nil, 0, 0
	err := w.db.update(w.ctx, func(txn *badger.Txn) error {
		journal := make([]undo, 0, len(writes))
		var added []memory.Added
		for _, iw := range writes {
			var u undo
			var err error
			if iw.edge != nil {
				u, err = importEdge(txn, *iw.edge)
			} else {
				u, err = importOne(txn, *iw.op)
				if iw.op.event == nil && iw.op.old == nil {
					added = append(added, memory.Added{Record: iw.rec, ID: iw.op.m.ID})
				}
			}
			if err != nil {
				if iw.edge == nil {
					return &memory.ImportError{Index: iw.rec, Err: err}
				}
				return err
			}
			journal = append(journal, u)
		}
		if len(added) > 0 {
			if err := put(txn, keyImportNew(w.id, n), added); err != nil {
				return err
			}
		}
		for c, b := range journalChunks(journal) {
			if err := txn.Set(keyJournal(w.id, n, c), b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.n = n
	w.db.step("batch", n)
	return nil
}
