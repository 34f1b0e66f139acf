// Package safefile reads files that come from other people (an import, a
// teammate's commit in the team mirror) without trusting what they are: a
// link to /dev/zero, a FIFO, a device or a file of gigabytes is refused
// with a line that names it, never read until memory runs out or waited on
// forever.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Size renders a limit for a person ("16 MiB").
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind says what a file that is not a regular one is ("a FIFO", "a
// directory"), for a refusal that names it.
func Kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// NotRegular says what a file is when it is not a regular file, so that
// the refusal names it: reading a device never ends, opening a FIFO waits
// for a writer, and some devices act when they are opened.
func NotRegular(mode fs.FileMode, hint string) error {
	return fmt.Errorf("is %s, not a regular file: %s", Kind(mode), hint)
}

// OpenRegular opens a file for reading only if it is a regular file. The
// caller has already looked (lstat) so that a device is never opened; this
// open is non-blocking so that a FIFO swapped in since cannot hang it, and
// the fstat after it refuses whatever was swapped in.
func OpenRegular(open func(flag int) (*os.File, error), hint string) (*os.File, int64, error) {
	f, err := open(os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, NotRegular(fi.Mode(), hint)
	}
	return f, fi.Size(), nil
}

// ReadBounded reads all of f, refusing it when it holds more than limit
// bytes (also when it grew since it was measured). what names the kind of
// file ("memory file") and ask the question a refusal ends with.
func ReadBounded(f *os.File, sz, limit int64, what, ask string) ([]byte, error) {
	if sz > limit {
		return nil, fmt.Errorf("is %d bytes, over the %s a %s may hold: %s", sz, Size(limit), what, ask)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("is over the %s a %s may hold: %s", Size(limit), what, ask)
	}
	return b, nil
}

// ReadFile reads path when it is a regular file of at most limit bytes,
// never following a symbolic link in its last element: the mirror's files
// come from teammates through git, and a link committed there must not
// lead a reader anywhere else. The error names what the file is, not the
// path (the caller names it), and ends with hint; a missing file is
// fs.ErrNotExist.
func ReadFile(path string, limit int64, what, hint string) ([]byte, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, PathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, NotRegular(fi.Mode(), hint)
	}
	f, sz, err := OpenRegular(func(flag int) (*os.File, error) {
		return os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0)
	}, hint)
	if err != nil {
		if pe := PathError(err); pe == syscall.ELOOP {
			return nil, fi, NotRegular(fs.ModeSymlink, hint) // swapped for a link since the lstat
		}
		return nil, fi, PathError(err)
	}
	defer f.Close()
	b, err := ReadBounded(f, sz, limit, what, hint)
	return b, fi, err
}

// PathError drops the operation and path from an *fs.PathError: the
// caller names the file itself.
func PathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
