// Package atomicfile replaces a file whole or not at all: what is written
// goes to a temporary file beside it, which is synced and renamed over the
// path, so a reader (or a crash) sees the old file or the new one, never a
// part. Every file cairn writes outside its store goes through it.
package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with what fn writes, with mode mode. The temporary
// file is created exclusively (a name that exists, symlink or not, is never
// opened) and removed if anything fails; the rename replaces whatever is at
// path rather than writing through it. The directory is synced after the
// rename so the new name lasts a crash too.
func Write(path string, mode fs.FileMode, fn func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	bw := bufio.NewWriterSize(f, 1<<16)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
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
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// WriteBytes is Write of b.
func WriteBytes(path string, mode fs.FileMode, b []byte) error {
	return Write(path, mode, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
