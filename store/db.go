package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	badger "github.com/dgraph-io/badger/v4"
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
}

// DB is the Badger-backed Store.
type DB struct {
	bdb  *badger.DB
	dir  string
	opt  Options
	now  func() time.Time
	open time.Time

	mu     sync.RWMutex // held for reading by every operation, for writing by Close
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

var _ Store = (*DB)(nil)

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
func Open(dir string, opt Options) (*DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create store directory: %w", err)
	}
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(!opt.NoSync).
		WithLogger(badgerLogger(opt.Log)).
		WithMetricsEnabled(false).
		WithNumVersionsToKeep(1)
	bdb, err := badger.Open(bo)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, lockedError(dir)
		}
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	db := &DB{bdb: bdb, dir: dir, opt: opt, now: now, open: now().UTC(),
		stop: make(chan struct{}), done: make(chan struct{})}
	if err := db.checkSchema(); err != nil {
		bdb.Close()
		return nil, err
	}
	if err := db.finishPurges(); err != nil {
		bdb.Close()
		return nil, fmt.Errorf("open store %s: finish an interrupted forget: %w", dir, err)
	}
	db.writeOwner()
	go db.gcLoop()
	return db, nil
}

func lockedError(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	var o Owner
	if err == nil && json.Unmarshal(b, &o) == nil && o.PID > 0 {
		return fmt.Errorf("%w: %s is held by %s (pid %d, since %s) — close it and try again",
			ErrLocked, dir, o.Command, o.PID, o.Since.Local().Format("15:04:05"))
	}
	return fmt.Errorf("%w: %s is held by another process — close it and try again", ErrLocked, dir)
}

func (db *DB) writeOwner() {
	o := Owner{PID: os.Getpid(), Command: strings.Join(commandLine(), " "), Since: db.open}
	b, _ := json.Marshal(o)
	_ = os.WriteFile(filepath.Join(db.dir, ownerFile), b, 0o600)
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
			return fmt.Errorf("%w: schema %q, this cairn reads schema %d — use the matching cairn or export and re-import", ErrSchema, v, schemaVersion)
		}
		return nil
	})
}

// Dir is the directory the store lives in.
func (db *DB) Dir() string { return db.dir }

// Close flushes and closes the store. It is idempotent; every call after it
// returns ErrClosed.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	close(db.stop)
	<-db.done
	_ = os.Remove(filepath.Join(db.dir, ownerFile))
	return db.bdb.Close()
}

// enter guards an operation against a concurrent Close.
func (db *DB) enter() (func(), error) {
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return nil, ErrClosed
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
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := db.bdb.Update(fn)
		if errors.Is(err, badger.ErrConflict) && attempt < 8 {
			time.Sleep(time.Duration(attempt+1) * time.Millisecond)
			continue
		}
		if errors.Is(err, badger.ErrConflict) {
			return fmt.Errorf("%w: too many concurrent writers, try again", ErrConflict)
		}
		return err
	}
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
		return ErrNotFound
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

func (l *logger) Errorf(f string, a ...any)   { l.l.Printf("ERROR "+f, a...) }
func (l *logger) Warningf(f string, a ...any) { l.l.Printf("WARN "+f, a...) }
func (l *logger) Infof(f string, a ...any)    { l.l.Printf("INFO "+f, a...) }
func (l *logger) Debugf(f string, a ...any)   {}
