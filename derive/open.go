package derive

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SkipSpecial is the reason a FIFO, a device or a socket is not read: it
// is no file (a FIFO blocks the reader, /dev/zero never ends).
const SkipSpecial = "special"

// openInRoot opens the file at the slash path rel under root (a resolved
// directory) for reading. A link is followed only to a file inside root;
// what is not a regular file is refused without blocking on it (the open
// does not wait for a FIFO's writer). reason says why a file is refused
// (SkipSymlink, SkipSpecial); err is for a file that is not there or
// cannot be opened.
func openInRoot(root, rel string) (f *os.File, fi fs.FileInfo, reason string, err error) {
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, nil, "", err
	}
	if !insideRoot(root, real) {
		return nil, nil, SkipSymlink, nil
	}
	f, err = os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) { // made a link since it was resolved
			return nil, nil, SkipSymlink, nil
		}
		return nil, nil, "", err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, "", err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, nil, "", fmt.Errorf("%s is a directory", rel)
		}
		return nil, nil, SkipSpecial, nil
	}
	return f, fi, "", nil
}

// readInRoot reads a file under root as openInRoot opens it, at most limit
// bytes: a larger file is refused (SkipLarge), whatever its size said when
// it was opened.
func readInRoot(root, rel string, limit int64) (b []byte, reason string, err error) {
	f, fi, reason, err := openInRoot(root, rel)
	if reason != "" || err != nil {
		return nil, reason, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, SkipLarge, nil
	}
	b, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(b)) > limit {
		return nil, SkipLarge, nil
	}
	return b, "", nil
}
