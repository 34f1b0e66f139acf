package agentsetup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/internal/atomicfile"
	"cairn/internal/safefile"
)

// MaxSettings bounds what is read of a settings file (Claude Code's
// ~/.claude.json, which keeps its history, runs to a few MiB).
const MaxSettings = 64 << 20

// ErrChanged says a file changed between reading it and writing it (the
// agent itself rewrites its settings): read it again and redo the edit.
var ErrChanged = errors.New("the file changed while cairn was editing it")

// Target is the file setup reads and writes for path, and a note for the
// person when that is not path itself. A settings file (or its folder) may
// be a symbolic link into the user's own dotfiles: it is followed when its
// target is a regular file inside home, and refused otherwise (a link into
// another application's file, or out of home). A file that is read-only,
// or that belongs to another user, is refused with the command that would
// allow the edit: cairn never takes over a file its owner locked.
func Target(path, home string) (real, note string, err error) {
	real, linked, err := resolve(path)
	if err != nil {
		return "", "", err
	}
	if linked {
		rh := home
		if h, err := filepath.EvalSymlinks(home); err == nil {
			rh = h
		}
		if home == "" || !within(rh, real) {
			return "", "", fmt.Errorf("%s is a symbolic link to %s, outside your home: cairn does not write through it — replace the link with a copy of the file (cp --remove-destination %s %s) and run setup again", path, real, real, path)
		}
		note = fmt.Sprintf("%s is a link into your dotfiles: cairn edits its target %s", path, real)
	}
	fi, err := os.Lstat(real)
	if errors.Is(err, fs.ErrNotExist) {
		return real, note, nil
	}
	if err != nil {
		return "", "", err
	}
	if !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is %s, not a settings file: remove it (rm %s) and run setup again", real, safefile.Kind(fi.Mode()), real)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", "", fmt.Errorf("%s belongs to uid %d, not you: cairn does not take over another user's file — if it should be yours, run: sudo chown %s %s", real, st.Uid, me(), real)
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return "", "", fmt.Errorf("%s is read-only (mode %04o): cairn leaves it as you locked it — to let setup edit it, run: chmod u+w %s", real, fi.Mode().Perm(), real)
	}
	return real, note, nil
}

// resolve follows the links of path's last element and of its folder (a
// dotfiles manager links either); linked says whether there was one. A
// link that leads nowhere is refused: writing would create a file where
// the person never looked.
func resolve(path string) (string, bool, error) {
	path = filepath.Clean(path)
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	linked := false
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		linked = true
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		linked = true
	}
	if !linked {
		return path, false, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			to, _ := os.Readlink(path)
			return "", true, fmt.Errorf("%s is a symbolic link to %s, which does not exist: remove the link (rm %s) or create its target, and run setup again", path, to, path)
		}
		rd, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", true, fmt.Errorf("%s: its folder is a symbolic link that leads nowhere (%v): fix the link and run setup again", path, unwrap(err))
		}
		return filepath.Join(rd, base), true, nil
	}
	if err != nil {
		return "", true, fmt.Errorf("%s: %v", path, unwrap(err))
	}
	return real, true, nil
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// me names the user for a chown command.
func me() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return strconv.Itoa(os.Getuid())
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadSettings reads a settings file (see Target for the path to give):
// only a regular file, at most MaxSettings bytes, never waiting on a FIFO.
// A missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadSettings(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a settings file", path, safefile.Kind(fi.Mode()))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSettings+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSettings {
		return nil, fmt.Errorf("%s is over %d MiB: not a settings file cairn edits — check it", path, MaxSettings>>20)
	}
	return b, nil
}

// Write replaces path with content atomically (a temporary file in the same
// directory, synced, renamed), keeping the file's mode, or mode for a new
// file, and a backup of what was there next to it (see Backup). The path
// goes through Target first, with the process's $HOME: a link into the
// user's dotfiles stays a link and its target is written; any other link,
// a read-only file or another user's file is refused. When the file is no
// longer before (nil: it did not exist), nothing is written and the error
// is ErrChanged. Content nil removes the file (after its backup): what
// --remove does to a file setup created. It returns the backup's path (""
// for a new file).
func Write(path string, before, content []byte, mode os.FileMode, now time.Time) (string, error) {
	path, _, err := Target(path, os.Getenv("HOME"))
	if err != nil {
		return "", err
	}
	backup := ""
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
		old, err := ReadSettings(path)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(old, before) {
			return "", ErrChanged
		}
		if backup, err = Backup(path, old, mode, now); err != nil {
			return "", err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	} else if before != nil {
		return "", ErrChanged
	}
	if content == nil {
		if before == nil {
			return "", nil
		}
		return backup, os.Remove(path)
	}
	dirMode := os.FileMode(0o755)
	if mode&0o077 == 0 {
		dirMode = 0o700
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return backup, err
	}
	return backup, atomicfile.WriteBytes(path, mode, content)
}

// backupMark separates a file's name from its backup's time.
const backupMark = ".cairn-backup-"

// Backup keeps old, the content of path, next to it as
// PATH.cairn-backup-TIME (then -TIME.2, -TIME.3 … within one second): a new
// name every time, created exclusively, so a backup is never overwritten,
// nor anything written through a link planted at its name. It returns the
// backup's path.
func Backup(path string, old []byte, mode os.FileMode, now time.Time) (string, error) {
	base := path + backupMark + now.UTC().Format("20060102T150405Z")
	for n := 1; n < 10000; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s.%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode.Perm())
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("keep a backup of %s: %v", path, unwrap(err))
		}
		_, err = f.Write(old)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("keep a backup of %s: %v", path, unwrap(err))
		}
		return name, nil
	}
	return "", fmt.Errorf("keep a backup of %s: too many backups of this second: remove old %s* files", path, base)
}

// Created reports whether setup created path and a removal left it with
// nothing (no backup of it was ever kept, and after is empty or {}): the
// removal then deletes it, giving back the absence the person had.
func Created(path string, after []byte) bool {
	t := bytes.TrimSpace(after)
	return (len(t) == 0 || string(t) == "{}") && len(Backups(path)) == 0
}

// Backups are the backups of path that Backup kept, newest first.
func Backups(path string) []string {
	names, _ := filepath.Glob(globEscape(path) + backupMark + "*")
	type kept struct {
		name, at string
		n        int
	}
	var ks []kept
	for _, name := range names {
		rest := strings.TrimPrefix(name, path+backupMark)
		at, num, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(num)
		if num == "" {
			n, err = 1, nil
		}
		if _, terr := time.Parse("20060102T150405Z", at); terr != nil || err != nil {
			continue // not one of ours
		}
		ks = append(ks, kept{name, at, n})
	}
	slices.SortFunc(ks, func(a, b kept) int {
		if c := strings.Compare(b.at, a.at); c != 0 {
			return c
		}
		return b.n - a.n
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.name
	}
	return out
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Original is what the person had before setup made path what it is now
// (current): the newest backup of path that holds nothing of cairn's
// (remove, the edit that takes cairn out, changes nothing in it) and that
// setup (the edit that puts cairn in) turns into exactly current. A
// removal writes it back, so that
// setup then --remove gives the person their file byte for byte. It is
// false when no backup fits — the file was changed since, by hand or by
// the agent — and the removal edits cairn out instead.
func Original(path string, current []byte, setup, remove func([]byte) ([]byte, bool, error)) ([]byte, bool) {
	for _, b := range Backups(path) {
		old, err := ReadSettings(b)
		if err != nil {
			continue
		}
		if _, had, err := remove(old); err != nil || had {
			continue
		}
		if after, changed, err := setup(old); err == nil && changed && bytes.Equal(after, current) {
			return old, true
		}
	}
	return nil, false
}

// LastWithCairn is the newest backup of path that holds cairn's entries
// (remove, the edit that takes cairn out, changes it), among the last few;
// nil for none. What a person added to cairn's entries comes back from it
// when setup writes them again after a --remove.
func LastWithCairn(path string, remove func([]byte) ([]byte, bool, error)) []byte {
	for i, b := range Backups(path) {
		if i == 10 {
			break
		}
		old, err := ReadSettings(b)
		if err != nil {
			continue
		}
		if _, had, err := remove(old); err == nil && had {
			return old
		}
	}
	return nil
}
