package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Badger writes its write-ahead log, value log and tables through memory
// maps of files it first extends as sparse files. When the disk fills, a
// write into a page the file system cannot back does not fail: the kernel
// kills the process with SIGBUS. So the store refuses a write while the
// free space could run out under it, and keeps working for reads.
//
// The reserve is what Badger may write after one more transaction of ours
// before its next chance to be refused:
//
//   - the transaction itself, at most MaxBatchSize bytes in the write-ahead
//     log and the value log; twice, for a concurrent writer;
//   - the flush of a full memtable into a level-0 table (MemTableSize);
//   - a compaction, which writes its output before it deletes its input:
//     the level-0 tables that trigger it and the base level, or the whole
//     LSM tree when that is smaller.
//
// The size of the sparse files is not counted: a new memtable maps
// 2×MemTableSize and a value log 2×ValueLogFileSize, but Badger fills them
// in order, so a write needs blocks only for its own bytes. With Badger's
// defaults (64 MiB memtables) a fresh store keeps about 87 MiB free.

// reserveSlack covers the small files Badger and cairn write outside the
// logs: the manifest, the discard stats, owner.json.
const reserveSlack = 4 << 20

// writeReserve is the free space a write needs, from the store's options
// and the current size of its LSM tree.
func writeReserve(o badger.Options, maxBatch, lsm int64) uint64 {
	compaction := int64(o.NumLevelZeroTables)*o.MemTableSize + o.BaseLevelSize
	return uint64(2*maxBatch + o.MemTableSize + min(lsm, compaction) + reserveSlack)
}

func (db *DB) reserve() uint64 {
	return writeReserve(db.bdb.Opts(), db.bdb.MaxBatchSize(), db.lsmBytes())
}

// lsmBytes is the size of the LSM tree's tables on disk. Badger's own
// Size reads metrics, which the store turns off, and so always says 0.
func (db *DB) lsmBytes() int64 {
	var n int64
	for _, t := range db.bdb.Tables() {
		n += int64(t.OnDiskSize)
	}
	return n
}

// roomToUndo refuses to undo an interrupted import on a disk too full
// for it: undoing writes (old versions back, tombstones), and so needs room
// for one transaction and the flush it may cause, though not the whole
// reserve, which is there to keep writes from using the last of it. The
// journal stays, and the next Open with room finishes the undo.
func (db *DB) roomToUndo() error {
	free, ok := freeSpace(db.dir)
	o := db.bdb.Opts()
	if need := uint64(db.bdb.MaxBatchSize() + o.MemTableSize + reserveSlack); ok && free < need {
		return &kindError{memory.ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to undo an interrupted import): free space and retry; nothing was lost",
			db.dir, mib(free), mib(need))}
	}
	return nil
}

// freeSpace is the space left for unprivileged writes on the disk
// holding dir; ok is false when the system cannot tell.
func freeSpace(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

// roomToWrite refuses a write transaction when the disk is nearly full.
func (db *DB) roomToWrite() error { return db.roomFor(0) }

// roomFor refuses a write of about n bytes (beyond one transaction) when
// it would leave less than the reserve free.
func (db *DB) roomFor(n uint64) error {
	free, ok := freeSpace(db.dir)
	if db.ro {
		return db.readOnlyRefusal(free, ok, n)
	}
	if !ok {
		return nil // the write tries; an ENOSPC still becomes ErrDiskFull
	}
	if need := db.reserve() + n; free < need {
		return &kindError{memory.ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to write safely): free space and retry; nothing was lost",
			db.dir, mib(free), mib(need))}
	}
	return nil
}

// roomToOpen says when Badger could not open the store read-write:
// opening maps a new value log and a new write-ahead log and writes their
// headers, and flushes what the old write-ahead logs hold into tables, all
// through memory maps, so on a full disk it dies of SIGBUS. Open then opens
// the store read-only (openReadOnly), and the error is its answer when
// even that fails.
func roomToOpen(dir string) error {
	free, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	if need := openNeed(dir); free < need {
		return &kindError{memory.ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to open the store): free space and retry; nothing was lost",
			dir, mib(free), mib(need))}
	}
	return nil
}

// openNeed is the free space a read-write open needs: the write-ahead logs
// it flushes into tables, and the small files.
func openNeed(dir string) uint64 {
	need := uint64(reserveSlack)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil {
			need += allocated(fi)
		}
	}
	return need
}

// allocated is the disk space a file occupies: a sparse log is mapped
// at its full size but holds only what was written.
func allocated(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Blocks) * 512
	}
	return uint64(fi.Size())
}

// diskFull turns a write that failed for lack of space into ErrDiskFull.
func diskFull(dir string, err error) error {
	if err == nil || errors.Is(err, memory.ErrDiskFull) {
		return err
	}
	// Badger flattens some errors into text (%v), losing the errno.
	if errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		return &kindError{memory.ErrDiskFull, fmt.Errorf("the disk holding %s is full: free space and retry; nothing was lost", dir)}
	}
	return err
}

func mib(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// readOnlyRefusal is the answer of a store opened read-only to a write of
// about n bytes, given the free space: the disk-full line while there is
// no room for a read-write open and the write; once there is, that the
// store must be opened again.
func (db *DB) readOnlyRefusal(free uint64, ok bool, n uint64) error {
	need := openNeed(db.dir) + db.reserve() + n
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("the disk holding %s is full: free space and retry; nothing was lost", db.dir)
	case free < need:
		err = fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to write safely): free space and retry; nothing was lost",
			db.dir, mib(free), mib(need))
	default:
		err = fmt.Errorf("cairn opened the store in %s read-only while its disk was full; there is room again, and it writes once reopened: retry in a moment; nothing was lost",
			db.dir)
		return &kindError{memory.ErrReadOnly, &kindError{memory.ErrDiskFull, &kindError{memory.ErrRoomAgain, err}}}
	}
	return &kindError{memory.ErrReadOnly, &kindError{memory.ErrDiskFull, err}}
}

// A disk too full for a read-write open (see roomToOpen) still lets the
// store be read: Open falls back to Badger's read-only mode, which maps
// every file read-only and writes nothing, so nothing can fault. Every
// write is refused (readOnlyRefusal); the next Open with room opens the
// store read-write. What Open finishes only with room waits until then: an
// interrupted forget (the memory is unreadable from its first step on, but
// its bytes stay on disk) and an interrupted import (readers see the part
// it wrote until it is undone).
//
// Badger's read-only mode refuses a write-ahead log that a killed process
// left behind: the log is a sparse file mapped at twice the memtable size,
// and Badger wants it cut where its last transaction ends, as its
// read-write open does. When nothing but zeros follows that point, cutting
// them off loses nothing and needs no space, so openReadOnly does it,
// holding the store's lock, and puts the zeros back if Badger still
// refuses. A log with anything else after its end (a transaction cut
// short) is left as it is, and Open says the disk is full.
//
// The lock is exclusive, as a read-write Open's is (Badger's read-only
// lock is shared): one process holds the store, as always.
func (db *DB) openReadOnly(bo badger.Options, full error) error {
	lock, err := lockDir(db.dir)
	if err != nil {
		return err
	}
	restore, err := trimLogs(db.dir)
	if err != nil {
		lock.Close()
		return fmt.Errorf("open store %s read-only: %w", db.dir, err)
	}
	bdb, err := badger.Open(bo.WithReadOnly(true).WithBypassLockGuard(true))
	if err != nil {
		restore()
		lock.Close()
		if bo.Logger != nil {
			bo.Logger.Warningf("open read-only on a full disk: %v", err)
		}
		return full // a new store, or a log cut short: room is the way out
	}
	db.bdb, db.dirLock, db.ro = bdb, lock, true
	if err := db.checkSchema(); err != nil {
		db.release()
		return err
	}
	return nil
}

// lockDir takes the lock Badger takes on a store, a flock on its directory,
// for a process that opens it without Badger's own lock.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, lockedError(dir)
		}
		return nil, fmt.Errorf("lock store %s: %w", dir, err)
	}
	return f, nil
}

// trimLogs cuts the zeros after the last transaction off every write-ahead
// log in dir (see openReadOnly); restore puts them back.
func trimLogs(dir string) (restore func(), err error) {
	type cut struct {
		path string
		size int64
	}
	var cuts []cut
	restore = func() {
		for _, c := range cuts {
			if f, err := os.OpenFile(c.path, os.O_WRONLY|syscall.O_NOFOLLOW, 0); err == nil {
				_ = f.Truncate(c.size) // zeros again, in a hole: no space needed
				f.Close()
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	for _, l := range logs {
		size, end, err := trimLog(l)
		if err != nil {
			restore()
			return nil, err
		}
		if end < size {
			cuts = append(cuts, cut{l, size})
		}
	}
	return restore, nil
}

// trimLog cuts one log at end, where its last transaction ends, when only
// zeros follow; size is its size before.
func trimLog(path string) (size, end int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if size = fi.Size(); !fi.Mode().IsRegular() || size <= logHeaderSize {
		return size, size, nil
	}
	end = logEnd(io.NewSectionReader(f, logHeaderSize, size-logHeaderSize))
	if zero, err := zerosFrom(f, end, size); err != nil || !zero {
		return size, size, err
	}
	return size, end, f.Truncate(end)
}

// A Badger log file (write-ahead log or value log) starts with a key id and
// an IV, then holds entries:
//
//	meta byte, user meta byte, uvarint key length, uvarint value length,
//	uvarint expiry, key, value, CRC-32 (Castagnoli, big-endian) of the rest.
//
// The entries of a transaction carry entryInTxn in meta and end with one
// that carries entryEndTxn.
const (
	logHeaderSize = 20
	entryInTxn    = 1 << 6
	entryEndTxn   = 1 << 7
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// logEnd reads a log's entries (r starts after the file header) and
// returns the file offset where its last whole transaction ends: the first
// entry that is cut short, fails its checksum or leaves a transaction
// open ends the log, as it ends Badger's replay. Should the two ever
// disagree, Badger refuses the cut log and openReadOnly puts it back.
func logEnd(r io.Reader) int64 {
	br := bufio.NewReaderSize(r, 64<<10)
	off, end := int64(logHeaderSize), int64(logHeaderSize)
	open := false
	for {
		n, meta, ok := logEntry(br)
		if !ok {
			return end
		}
		off += n
		switch {
		case meta&entryEndTxn != 0:
			end, open = off, false
		case meta&entryInTxn != 0:
			open = true
		case open:
			return end
		default:
			end = off
		}
	}
}

// logEntry reads one entry, returning its length and meta byte; ok is
// false at the end of the log.
func logEntry(br *bufio.Reader) (n int64, meta byte, ok bool) {
	head, _ := br.Peek(2 + 3*binary.MaxVarintLen64)
	if len(head) < 2 {
		return 0, 0, false
	}
	i := 2
	var lens [3]uint64 // key, value, expiry
	for j := range lens {
		v, w := binary.Uvarint(head[i:])
		if w <= 0 {
			return 0, 0, false
		}
		lens[j], i = v, i+w
	}
	kv := lens[0] + lens[1]
	if lens[0] == 0 || lens[0] > 1<<16 || lens[1] > 1<<32 {
		return 0, 0, false // zeros, or not an entry Badger writes
	}
	meta = head[0]
	sum := crc32.New(castagnoli)
	sum.Write(head[:i])
	if _, err := br.Discard(i); err != nil {
		return 0, 0, false
	}
	if _, err := io.CopyN(sum, br, int64(kv)); err != nil {
		return 0, 0, false
	}
	var want [4]byte
	if _, err := io.ReadFull(br, want[:]); err != nil || binary.BigEndian.Uint32(want[:]) != sum.Sum32() {
		return 0, 0, false
	}
	return int64(i) + int64(kv) + 4, meta, true
}

// zerosFrom reports whether f holds only zeros from off to size.
func zerosFrom(f *os.File, off, size int64) (bool, error) {
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if !bytes.Equal(buf[:n], zero[:n]) {
			return false, nil
		}
		if n == 0 {
			return false, err
		}
		off += int64(n)
	}
	return true, nil
}
