package store

import (
	"errors"
	"io"
	"os"
	"syscall"

	"cairn/internal/atomicfile"
)

// writeFileAtomic replaces path with b without following a symlink that
// someone planted at path or at the temporary name: the data goes to a new
// file created exclusively (O_EXCL refuses an existing name, symlink or
// not), is synced, and is renamed over path.
func writeFileAtomic(path string, b []byte) error {
	return atomicfile.WriteBytes(path, 0o600, b)
}

// readNoFollow reads at most limit bytes of a regular file, refusing a
// symlink or anything that is not a regular file (a FIFO would block).
func readNoFollow(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New(path + " is not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
