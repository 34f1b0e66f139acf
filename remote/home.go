package remote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A cairn home holds the store, the socket (when its path is short
// enough), the start lock and the logs. Anyone who can read it can read
// every memory, and anyone who can write it can plant a socket or a
// symlink there, so it must be the user's alone.

// PrepareHome creates the home (mode 0700) or makes sure an existing one
// is private: a home of ours that others can read or write is tightened to
// 0700; one we do not own is refused with the command that fixes it.
func PrepareHome(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create cairn home: %w", err)
	}
	fi, err := os.Stat(home)
	if err != nil {
		return fmt.Errorf("cairn home: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cairn home %s is not a directory: point CAIRN_HOME at a directory", home)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if owner(fi) != os.Getuid() {
			return fmt.Errorf("cairn home %s is open to other users (mode %04o) and belongs to uid %d, not you: its owner should run chmod 700 %s, or use a home of your own (CAIRN_HOME)",
				home, fi.Mode().Perm(), owner(fi), home)
		}
		if err := os.Chmod(home, 0o700); err != nil {
			return fmt.Errorf("cairn home %s is open to other users and cannot be made private (%v): run chmod 700 %s", home, err, home)
		}
	}
	if err := privateStore(filepath.Join(home, "store")); err != nil {
		return err
	}
	for _, d := range homeDirs {
		if err := noLinkDir(filepath.Join(home, d)); err != nil {
			return err
		}
	}
	return nil
}

// homeDirs are the directories other parts of cairn keep in the home: the
// team mirror's sync states and the file fingerprints.
var homeDirs = []string{"sync", "fingerprints"}

// noLinkDir refuses a directory of the home that is a symbolic link (or
// not a directory): what cairn writes there would land wherever it points.
func noLinkDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cairn home: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: cairn does not write through links in its home — remove it (rm %s); cairn makes the directory again", dir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: remove it (rm %s); cairn makes the directory again", dir, dir)
	}
	return nil
}

// privateStore checks the store directory inside a home that was open to
// others before cairn tightened it: someone may have planted it there as a
// symlink to a place they read, or as a directory of their own. Either is
// refused; a store directory of ours that others can enter is tightened.
func privateStore(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the store creates it, 0700, inside a home that is private now
	}
	if err != nil {
		return fmt.Errorf("cairn store %s: %w", dir, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("cairn store %s is a symbolic link, which could hand your memories to whoever made it: remove it (rm %s) or point CAIRN_HOME elsewhere", dir, dir)
	case !fi.IsDir():
		return fmt.Errorf("cairn store %s is not a directory: remove it (rm %s) and try again", dir, dir)
	case owner(fi) != os.Getuid():
		return fmt.Errorf("cairn store %s belongs to uid %d, not you: remove it (rm -r %s) or point CAIRN_HOME elsewhere", dir, owner(fi), dir)
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("cairn store %s is open to other users and cannot be made private (%v): run chmod 700 %s", dir, err, dir)
		}
	}
	return nil
}

func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// openPrivate opens a file cairn keeps in its home. It never follows a
// symlink planted at path, never blocks on a FIFO, and refuses anything
// that is not a regular file of ours with a single link (a hard link to a
// file someone else can read would leak what we write). A file of ours
// that others can read is made private.
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: cairn does not write through links in its home — remove it (rm %s) and try again", path, path)
		}
		if errors.Is(err, syscall.ENXIO) {
			return nil, notPlain(path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, notPlain(path)
	case ok && (int(st.Uid) != os.Getuid() || st.Nlink != 1):
		f.Close()
		return nil, fmt.Errorf("%s belongs to uid %d or is linked elsewhere (%d links): cairn will not write to it — remove it (rm %s) and try again", path, st.Uid, st.Nlink, path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, err
		}
	}
	// Regular files ignore O_NONBLOCK; clear it anyway so that nothing
	// downstream meets EAGAIN.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func notPlain(path string) error {
	return fmt.Errorf("%s is not a regular file: remove it (rm %s) and try again", path, path)
}

// LogLimit is the size past which a log in the home is moved to NAME.1
// when it is next opened, so a log keeps the last runs but cannot grow
// without bound.
const LogLimit = 1 << 20

// OpenLog opens a log in the home for appending (see openPrivate), first
// moving a log that has grown past LogLimit to path.1. It returns the
// offset at which this run's lines start.
func OpenLog(path string) (*os.File, int64, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > LogLimit {
		// rename replaces path.1 itself, even a symlink, never its target.
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, 0, fmt.Errorf("rotate %s: %w", path, err)
		}
	}
	f, err := openPrivate(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// AppendLine appends line (and a newline) to a log in the home, keeping
// the log under limit bytes: past it, the older half is dropped first. The
// log is opened as openPrivate does — never through a symbolic link, never
// another user's file or one linked elsewhere — and the trim works on that
// open file, so nothing outside the home is ever cut. Processes appending
// at once take turns (flock).
func AppendLine(path string, limit int64, line string) error {
	f, err := openPrivate(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	end := fi.Size()
	if end > limit {
		keep := make([]byte, min(end/2, limit/2))
		n, err := f.ReadAt(keep, end-int64(len(keep)))
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		keep = keep[:n]
		if i := bytes.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:] // from a line's start
		}
		if err := f.Truncate(0); err != nil {
			return err
		}
		if _, err := f.WriteAt(keep, 0); err != nil {
			return err
		}
		end = int64(len(keep))
	}
	_, err = f.WriteAt([]byte(line+"\n"), end)
	return err
}

// ReadTail reads the last n bytes of a log in the home, never through a
// symbolic link and never from anything but a regular file (a FIFO or a
// device there is refused at once, in one line).
func ReadTail(path string, n int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: cairn does not read or write through links in its home — remove it (rm %s)", path, path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notPlain(path)
	}
	from := max(0, fi.Size()-n)
	b := make([]byte, fi.Size()-from)
	got, err := f.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:got], nil
}

// SocketPath is where the server of a cairn home listens. Unix socket
// paths are limited to about 100 bytes: a longer home's socket goes in
// $XDG_RUNTIME_DIR when that is a private directory of ours, else in
// $TMPDIR/cairn-UID, a directory we create with mode 0700 and refuse to use
// when someone else made it or can write to it. Either way the socket is
// named after the home.
func SocketPath(home string) (string, error) {
	p := filepath.Join(home, "cairn.sock")
	if len(p) < 100 {
		return p, nil
	}
	h := sha256.Sum256([]byte(home))
	name := "cairn-" + hex.EncodeToString(h[:8]) + ".sock"
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) && runtimeDir(rt) {
		if p := filepath.Join(rt, name); len(p) < 100 {
			return p, nil
		}
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("cairn-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create the socket directory %s: %w", dir, err)
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// runtimeDir reports whether dir is a runtime directory as the XDG
// specification describes it: ours, a real directory, mode 0700.
func runtimeDir(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir() && owner(fi) == os.Getuid() && fi.Mode().Perm() == 0o700
}

// privateDir checks that dir is a real directory (not a symlink) that we
// own and that nobody else can write to.
func privateDir(dir string) error {
	const intruder = "someone may be trying to intercept cairn: remove it (as root if need be) and try again, or set XDG_RUNTIME_DIR to a private directory of yours or use a shorter CAIRN_HOME"
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("the socket directory: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the socket directory %s is a symbolic link — %s", dir, intruder)
	case !fi.IsDir():
		return fmt.Errorf("the socket directory %s is not a directory — %s", dir, intruder)
	case owner(fi) != os.Getuid():
		return fmt.Errorf("the socket directory %s belongs to uid %d, not you — %s", dir, owner(fi), intruder)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the socket directory %s can be written by others (mode %04o): run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}
