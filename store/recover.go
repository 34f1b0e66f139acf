package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// clearTornLogs removes the empty write-ahead and value log files a process
// killed at the wrong moment leaves behind, so that the next Open works.
//
// Badger creates a log file (.mem for each memtable, which every forget's
// DropPrefix and every memtable rotation does; .vlog for the value log) in
// two steps: create it empty, then size and stamp it. A kill between the
// two leaves a file of zero bytes, and the next Open refuses it ("while
// opening memtables … Create a new file") while stamping it, so the open
// after that works. An empty file cannot hold an acknowledged write — a
// write lands after the header the second step writes — so removing it
// loses nothing.
//
// It runs under Badger's own lock, a flock on the store directory itself:
// a process that holds the store may be between those two steps right now,
// and its file must not be touched. When the lock is held elsewhere nothing
// is removed and Open reports the holder as usual.
func clearTornLogs(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // held by a live process: its files are its own
	}
	defer syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".mem") || strings.HasSuffix(name, ".vlog")) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
