package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// writeFileAtomic replaces path with b without following a symlink that
// someone planted at path or at the temporary name: the data goes to a new
// file created exclusively (O_EXCL refuses an existing name, symlink or
// not), is synced, and is renamed over path.
func writeFileAtomic(path string, b []byte) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(suffix[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
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
