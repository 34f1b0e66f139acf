package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"cairn/memory"
)

// Options tune Open. The zero value is right for the product.
type Options struct {
	// Log receives Badger's own log lines; nil discards them (Badger writes
	// to stderr by default, which tears a TUI apart).
	Log io.Writer
	// GCInterval is how often value-log GC runs; 0 means 10 minutes.
	GCInterval time.Duration
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// NoSync turns off synchronous writes. Only benchmarks of the write
	// path without fsync use it; the product never does.
	NoSync bool

	// readOnly is for tests: open read-only, as on a disk without room
	// (see openReadOnly), whatever the free space.
	readOnly bool

	// smallLSM is for tests: 1 MiB memtables so that a few megabytes of
	// writes go through SST files and compactions, and no block compression
	// so that text stays findable in the raw files.
	smallLSM bool
}

// memTableSize is Badger's memtable size (see Open); a transaction may
// hold 15 % of it.
const memTableSize = 32 << 20

// DB is the Badger-backed Store.
type DB struct {
	// testStep is importStep for this store alone (tests only).
	testStep func(stage string, n int)
	// testRunStep is runStepHook for this store alone (tests only).
	testRunStep func(stage string, n int)

	bdb  *badger.DB
	dir  string
	opt  Options
	now  func() time.Time
	open time.Time

	// ro is set when Open found no room to open read-write and opened the
	// store read-only (see openReadOnly); dirLock is then the store's lock.
	ro      bool
	dirLock *os.File

	mu     sync.RWMutex // held for reading by every operation, for writing by Close
	closed bool
	stop   chan struct{}
	done   chan struct{}

	// dropping is held for writing while a forget drops keys (DropPrefix),
	// for reading by every write: Badger blocks writes during DropPrefix and
	// fails them with ErrBlockedWrites, so writers wait for it instead.
	dropping sync.RWMutex

	importing sync.Mutex // held by the running import (see Import)

	// The counts kept by the writes (see counts.go): deltas written since
	// the last fold, and the fold under way.
	deltas  atomic.Int64
	folding sync.Mutex

	bound boundCache // each project's bound stamps, while nothing is written (see bound.go)

	// Accesses waiting to be written (see Touch).
	salMu      sync.Mutex
	salPending map[string][]time.Time
	salTimer   *time.Timer
}

var _ memory.Store = (*DB)(nil)

// ownerFile names the file in the store directory that says which process holds it.
const ownerFile = "owner.json"

// Owner describes the process that holds a store open.
type Owner struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// Open opens (creating if needed) the store in dir. A store already held by
// another process gives an error wrapping ErrLocked that names that process.
// On a disk without room to open it read-write, it opens read-only: reads
// work, writes are refused with ErrDiskFull (see openReadOnly).
func Open(dir string, opt Options) (*DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, diskFull(dir, fmt.Errorf("create store directory: %w", err))
	}
	if err := clearTornLogs(dir); err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	// Every value cairn writes is far below the value threshold, so values
	// live in the LSM tree, where a forget's DropPrefix removes them from
	// disk, and never in the value log, which keeps them until its file is
	// rewritten.
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(!opt.NoSync).
		WithLogger(badgerLogger(opt.Log)).
		WithMetricsEnabled(false).
		WithNumVersionsToKeep(1).
		WithValueThreshold(1 << 20).
		// Memory: one memtable filling and one flushing (Badger's default
		// of five kept up to 320 MB of a 100,000-memory import resident),
		// of 32 MB each, not 64: a memtable costs its size and three tenths
		// more in the heap (and the collector lets garbage grow in
		// proportion), and its size again in its mapped log. Badger bounds a
		// transaction at 15 % of it, 4.8 MB, above an import's batches
		// (batchBytes, a generous estimate) and any single write. A block
		// cache of 16 MB: reads are of recent, hot keys, and a miss costs a
		// read of the mapped table and a 4 KB decompression, microseconds.
		WithNumMemtables(2).
		WithMemTableSize(memTableSize).
		WithBlockCacheSize(16 << 20).
		// Level 0 compacts when it holds ten tables, not five, and stalls
		// writes at twenty, not fifteen. Index keys (content and text
		// hashes, signature bands) fall everywhere in their ranges, so every
		// compaction of level 0 rewrites most of the level under it: twice
		// the input a compaction is half the rewriting. An import of 100,000
		// memories into a store of 300,000 took 10–12 CPU-seconds instead
		// of 15–17 (profiled, the import of BenchmarkImport100kInto300k into
		// another project); reads look at up to ten more tables' bloom
		// filters.
		WithNumLevelZeroTables(10).
		WithNumLevelZeroTablesStall(20)
	if opt.smallLSM {
		bo = bo.WithMemTableSize(1 << 20).WithBaseTableSize(512 << 10).WithBaseLevelSize(2 << 20).
			WithValueThreshold(128 << 10).WithCompression(options.None).
			// Badger's own level 0 bounds: a few megabytes reach the levels under it.
			WithNumLevelZeroTables(5).WithNumLevelZeroTablesStall(15)
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	db := &DB{dir: dir, opt: opt, now: now, open: now().UTC(),
		stop: make(chan struct{}), done: make(chan struct{})}
	full := roomToOpen(dir)
	if full == nil && opt.readOnly {
		full = errors.New("opened read-only for a test")
	}
	var err error
	for wait := 2 * time.Millisecond; ; wait *= 2 {
		if full != nil {
			err = db.openReadOnly(bo, full)
		} else {
			err = db.openReadWrite(bo)
		}
		if !errors.Is(err, memory.ErrLocked) || wait > 256*time.Millisecond || !ownerGone(dir) {
			break
		}
		// The lock's holder closed the store, but a child this process
		// was starting at that moment still holds a copy of the lock's
		// file until it runs its program (a few milliseconds at most):
		// the lock is free once it does.
		lockWait(wait)
	}
	if err != nil {
		return nil, err
	}
	db.writeOwner()
	go db.gcLoop()
	return db, nil
}

// openReadWrite opens Badger and finishes what a process that died left
// unfinished.
func (db *DB) openReadWrite(bo badger.Options) error {
	bdb, err := badger.Open(bo)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return lockedError(db.dir)
		}
		return fmt.Errorf("open store %s: %w", db.dir, err)
	}
	db.bdb = bdb
	if err := db.checkSchema(); err != nil {
		bdb.Close()
		return err
	}
	// Finishing interrupted work writes, so on a disk without room for it
	// the work waits for an Open with room, rather than the store staying
	// shut: a forgotten memory is unreadable from the first step on, and an
	// import is undone by the next Import too.
	if db.roomToWrite() == nil {
		if err := db.finishPurges(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: finish an interrupted forget: %w", db.dir, err)
		}
	}
	if db.roomToUndo() == nil {
		if err := db.finishImports(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: undo an interrupted import: %w", db.dir, err)
		}
		if err := db.finishRuns(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: %w", db.dir, err)
		}
	}
	// A store written before the deduplication or verify-first indexes
	// gets them once; without room it waits for an Open with room (dedup
	// misses meanwhile, and the verify-first queue reads every memory).
	if db.roomToWrite() == nil {
		if err := db.backfillDedup(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: index memories for deduplication: %w", db.dir, err)
		}
		if err := db.backfillVerify(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: index memories for the verify-first queue: %w", db.dir, err)
		}
		if err := db.backfillProjectKeys(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: give projects known by path their repository's keys: %w", db.dir, err)
		}
		if err := db.buildCounts(); err != nil {
			bdb.Close()
			return fmt.Errorf("open store %s: count memories, edges, events and drafts: %w", db.dir, err)
		}
	}
	return nil
}

// ReadOnly reports whether Open opened the store read-only for lack of
// space: every write is refused until it is opened again with room.
func (db *DB) ReadOnly() bool { return db.ro }

// release closes Badger, then lets go of the lock a read-only open holds.
func (db *DB) release() error {
	err := db.bdb.Close()
	if db.dirLock != nil {
		db.dirLock.Close()
	}
	return err
}

// lockWait waits before the next try of a lock that no holder names; a
// test replaces it.
var lockWait = time.Sleep

// ownerGone reports whether the store in dir names no holder: the one
// that held it removed owner.json on closing it (or a new holder has not
// written it yet).
func ownerGone(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ownerFile))
	return errors.Is(err, fs.ErrNotExist)
}

func lockedError(dir string) error {
	var o Owner
	b, err := readNoFollow(filepath.Join(dir, ownerFile), 64<<10)
	if err == nil && json.Unmarshal(b, &o) == nil && o.PID > 0 {
		return fmt.Errorf("%w: %s is held by %s (pid %d, since %s) — close it and try again",
			memory.ErrLocked, dir, o.Command, o.PID, o.Since.Local().Format("15:04:05"))
	}
	return fmt.Errorf("%w: %s is held by another process — close it and try again", memory.ErrLocked, dir)
}

// writeOwner writes owner.json without following a symlink planted in
// the store directory: a new file under a temporary name, created
// exclusively, then renamed over the old one (rename replaces a symlink
// itself, never what it points to).
func (db *DB) writeOwner() {
	o := Owner{PID: os.Getpid(), Command: strings.Join(commandLine(), " "), Since: db.open}
	b, _ := json.Marshal(o)
	_ = writeFileAtomic(filepath.Join(db.dir, ownerFile), b)
}

func commandLine() []string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	if len(args) > 4 {
		args = append(args[:4], "…")
	}
	return args
}

func (db *DB) checkSchema() error {
	return db.bdb.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(keySchema)
		if errors.Is(err, badger.ErrKeyNotFound) {
			if db.ro {
				return nil // a store that never held anything: nothing to misread
			}
			return txn.Set(keySchema, []byte(strconv.Itoa(schemaVersion)))
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(string(v)); err != nil || n != schemaVersion {
			return fmt.Errorf("%w: schema %q, this cairn reads schema %d — use the matching cairn or export and re-import", memory.ErrSchema, v, schemaVersion)
		}
		return nil
	})
}

// Dir is the directory the store lives in.
func (db *DB) Dir() string { return db.dir }

// Close flushes and closes the store. It is idempotent; every call after it
// returns ErrClosed.
func (db *DB) Close() error {
	_ = db.FlushSalience(context.Background()) // before the lock: it writes
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	close(db.stop)
	<-db.done
	_ = os.Remove(filepath.Join(db.dir, ownerFile))
	return db.release()
}

// enter guards an operation against a concurrent Close.
func (db *DB) enter() (func(), error) {
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return nil, memory.ErrClosed
	}
	return db.mu.RUnlock, nil
}

func (db *DB) gcLoop() {
	defer close(db.done)
	every := db.opt.GCInterval
	if every <= 0 {
		every = 10 * time.Minute
	}
	wait := every
	for {
		select {
		case <-db.stop:
			return
		case <-time.After(wait):
		}
		if db.roomToWrite() != nil {
			wait = every // a rewrite on a full disk could fault; wait for room
			continue
		}
		switch err := db.bdb.RunValueLogGC(0.5); {
		case err == nil:
			wait = time.Second // it rewrote a file: there may be more to do
		default:
			wait = every
		}
	}
}

// update runs fn in a read-write transaction, retrying a bounded number of
// times when a concurrent transaction conflicts.
func (db *DB) update(ctx context.Context, fn func(txn *badger.Txn) error) error {
	release, err := db.enter()
	if err != nil {
		return err
	}
	defer release()
	if err := db.roomToWrite(); err != nil {
		return db.readsOnly(ctx, fn, err)
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := diskFull(db.dir, db.commit(fn))
		if errors.Is(err, badger.ErrConflict) && attempt < 8 {
			time.Sleep(time.Duration(attempt+1) * time.Millisecond)
			continue
		}
		if errors.Is(err, badger.ErrConflict) {
			return fmt.Errorf("%w: too many concurrent writers, try again", memory.ErrConflict)
		}
		return err
	}
}

// readsOnly runs fn, which may not write (refused says why), in a
// read-only transaction: an operation that turns out to change nothing,
// such as EnsureProject of a known project, works on a full disk too,
// and one that would write gets refused instead of Badger's error.
func (db *DB) readsOnly(ctx context.Context, fn func(txn *badger.Txn) error, refused error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := db.bdb.View(fn)
	if errors.Is(err, badger.ErrReadOnlyTxn) {
		return refused
	}
	return err
}

// commit runs fn in one read-write transaction, waiting while a forget
// drops keys (see dropping), with what it changes in the counts (see
// counts.go).
func (db *DB) commit(fn func(txn *badger.Txn) error) error {
	if db.ro {
		return db.readsOnly(context.Background(), fn, db.roomToWrite())
	}
	db.dropping.RLock()
	defer db.dropping.RUnlock()
	counted := false
	err := db.bdb.Update(countedFn(fn, &counted))
	if err == nil && counted {
		db.maybeFold()
	}
	return err
}

// view runs fn in a read-only transaction.
func (db *DB) view(fn func(txn *badger.Txn) error) error {
	release, err := db.enter()
	if err != nil {
		return err
	}
	defer release()
	return db.bdb.View(fn)
}

// get reads and decodes one key; a missing key is ErrNotFound.
func get(txn *badger.Txn, key []byte, v any) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return memory.ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(func(val []byte) error { return decode(key, val, v) })
}

func put(txn *badger.Txn, key []byte, v any) error {
	b, err := encode(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", key, err)
	}
	return txn.Set(key, b)
}

func exists(txn *badger.Txn, key []byte) (bool, error) {
	_, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// keys lists the keys under prefix (no values).
func keys(txn *badger.Txn, prefix []byte) [][]byte {
	o := badger.DefaultIteratorOptions
	o.Prefix = prefix
	o.PrefetchValues = false
	it := txn.NewIterator(o)
	defer it.Close()
	var out [][]byte
	for it.Rewind(); it.Valid(); it.Next() {
		out = append(out, it.Item().KeyCopy(nil))
	}
	return out
}

func badgerLogger(w io.Writer) badger.Logger {
	if w == nil {
		return nil
	}
	return &logger{l: log.New(w, "badger ", log.LstdFlags)}
}

type logger struct{ l *log.Logger }

func (l *logger) Errorf(f string, a ...any)   { l.printf("ERROR ", f, a) }
func (l *logger) Warningf(f string, a ...any) { l.printf("WARN ", f, a) }
func (l *logger) Infof(f string, a ...any)    { l.printf("INFO ", f, a) }
func (l *logger) Debugf(f string, a ...any)   {}

// printf writes one of Badger's lines without the keys it names: a forget
// hands Badger the keys it drops (a forgotten memory's tags and ref among
// them) and Badger logs them, which would keep them in the debug log.
func (l *logger) printf(level, f string, a []any) {
	for i, v := range a {
		switch v.(type) {
		case []byte, [][]byte:
			a[i] = "(keys withheld)"
		}
	}
	line := fmt.Sprintf(f, a...)
	if i := strings.Index(line, "dropPrefixes"); i >= 0 { // a compaction's description
		line = line[:i] + "dropPrefixes:(keys withheld)"
	}
	l.l.Print(level + line)
}
