package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	badger "github.com/dgraph-io/badger/v4"
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
	lsm, _ := db.bdb.Size()
	return writeReserve(db.bdb.Opts(), db.bdb.MaxBatchSize(), lsm)
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
		return &kindError{ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to undo an interrupted import): free space and retry; nothing was lost",
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
	if !ok {
		return nil // the write tries; an ENOSPC still becomes ErrDiskFull
	}
	if need := db.reserve() + n; free < need {
		return &kindError{ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to write safely): free space and retry; nothing was lost",
			db.dir, mib(free), mib(need))}
	}
	return nil
}

// roomToOpen refuses to open the store when Badger could not even start:
// opening maps a new value log and a new write-ahead log and writes their
// headers, and flushes what the old write-ahead logs hold into tables, all
// through memory maps, so on a full disk it dies of SIGBUS.
func roomToOpen(dir string) error {
	free, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	need := uint64(reserveSlack)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil {
			need += allocated(fi)
		}
	}
	if free < need {
		return &kindError{ErrDiskFull, fmt.Errorf("the disk holding %s is full (%s free, cairn needs %s to open the store): free space and retry; nothing was lost",
			dir, mib(free), mib(need))}
	}
	return nil
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
	if err == nil || errors.Is(err, ErrDiskFull) {
		return err
	}
	// Badger flattens some errors into text (%v), losing the errno.
	if errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		return &kindError{ErrDiskFull, fmt.Errorf("the disk holding %s is full: free space and retry; nothing was lost", dir)}
	}
	return err
}

func mib(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
