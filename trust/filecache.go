package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/internal/atomicfile"
	"cairn/project"
)

// A file's fingerprint is kept with what a stat says of the file when it
// was hashed, in this process and, once KeepFingerprints names a
// directory, for the next process: a wake check stats every bound file and
// reads only those whose stat no longer matches. A CLI command is a new
// process each time; without the kept fingerprints each would hash every
// bound file again.

// fileID is what a stat says of a file: a rewrite changes its size or
// times, a replacement (a checkout renames a new file in) its inode.
type fileID struct {
	dev, ino           uint64
	size, mtime, ctime int64 // ns since the epoch
}

func statID(fi fs.FileInfo) fileID {
	ctime, dev, ino := changeTime(fi)
	return fileID{dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctime}
}

// racyWindow is how long after a file's last change its fingerprint is
// not taken from the stat alone. A file's times come from a coarse clock
// (a few milliseconds; two seconds on some file systems), so a rewrite
// that keeps the size, made in the same tick as the hash was read, would
// leave the stat unchanged: a file changed within racyWindow of the moment
// it was hashed is hashed again, until it has been still for that long.
const racyWindow = 2 * time.Second

type fileStamp struct {
	id       fileID
	hashedAt int64 // ns since the epoch, taken before the file was opened
	fp       string
}

// settled reports whether the stamp may stand for the file while its stat
// matches: the file had not changed for racyWindow when it was hashed.
func (s fileStamp) settled() bool {
	return s.hashedAt-max(s.id.mtime, s.id.ctime) > int64(racyWindow)
}

// FingerprintDir is the directory of cairn's home where processes keep
// file fingerprints for each other.
const FingerprintDir = "fingerprints"

// KeepFingerprints keeps the checker's file fingerprints in dir, in one
// file per project root, for the next process that checks the same root.
// A file that is missing, unreadable, corrupt or of another root is an
// empty cache (every file is hashed once), never an error.
func (c *Checker) KeepFingerprints(dir string) {
	if c.Root == "" || dir == "" {
		return
	}
	sum := sha256.Sum256([]byte(c.Root))
	c.mu.Lock()
	c.keepIn = filepath.Join(dir, hex.EncodeToString(sum[:8]))
	c.mu.Unlock()
}

// cacheHeader starts a fingerprint file; the root follows on its own line.
const cacheHeader = "cairn file fingerprints 1\n"

// maxCacheFile bounds what is read of a fingerprint file (a hundred bytes a
// file: a million bound files).
const maxCacheFile = 128 << 20

// loadFiles reads the kept fingerprints once, before the first file or
// scope is looked at. c.mu is held.
func (c *Checker) loadFiles() {
	if c.loaded || c.keepIn == "" {
		return
	}
	c.loaded = true
	k, err := readFingerprints(c.keepIn, c.Root)
	if err != nil {
		return // a cold cache: every file is hashed once, and the file rewritten
	}
	if len(c.files) == 0 {
		c.files = k.files
	} else {
		for p, st := range k.files {
			if _, ok := c.files[p]; !ok {
				c.files[p] = st
			}
		}
	}
	if c.head == "" {
		c.head, c.trees = k.head, k.trees
	}
}

// preload reads the kept fingerprints now, so that a check waiting for
// something else (the store) has them at hand.
func (c *Checker) preload() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadFiles()
}

// kept is what a fingerprint file holds.
type kept struct {
	files map[string]fileStamp
	head  string            // the commit trees were resolved at
	trees map[string]string // scope → object at head ("" for none)
}

// readFingerprints parses a fingerprint file of root.
func readFingerprints(path, root string) (kept, error) {
	// Never through a link, never waiting on a FIFO planted there.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return kept{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return kept{}, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCacheFile+1))
	if err != nil {
		return kept{}, err
	}
	if len(b) > maxCacheFile {
		return kept{}, fmt.Errorf("%s: too large", path)
	}
	rest, ok := bytes.CutPrefix(b, []byte(cacheHeader+"root "+root+"\n"))
	if !ok {
		return kept{}, fmt.Errorf("%s: not the fingerprints of %s", path, root)
	}
	k := kept{files: make(map[string]fileStamp, bytes.Count(rest, []byte{'\n'})), trees: map[string]string{}}
	for len(rest) > 0 {
		line, tail, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return kept{}, fmt.Errorf("%s: cut short", path) // damage: a torn write is never renamed in
		}
		rest = tail
		if g, ok := bytes.CutPrefix(line, []byte("git ")); ok {
			if err := k.parseTree(string(g)); err != nil {
				return kept{}, fmt.Errorf("%s: %w", path, err)
			}
			continue
		}
		p, st, err := parseStamp(string(line))
		if err != nil {
			return kept{}, fmt.Errorf("%s: %w", path, err)
		}
		k.files[p] = st
	}
	return k, nil
}

// A scope's line is "git HEAD OBJECT SCOPE": the commit, the scope's
// object at it ("-" for none), the scope last (it may be empty: the whole
// repository).
func (k *kept) parseTree(line string) error {
	f := strings.SplitN(line, " ", 3)
	if len(f) != 3 || project.ObjectID(f[0]) == "" || (f[1] != "-" && project.ObjectID(f[1]) == "") || (k.head != "" && k.head != f[0]) {
		return fmt.Errorf("malformed line %q", "git "+line)
	}
	k.head = f[0]
	if f[1] == "-" {
		f[1] = ""
	}
	k.trees[f[2]] = f[1]
	return nil
}

// A file's line is "dev ino size mtime ctime hashed fingerprint path":
// numbers in decimal, times in ns, the path last (it may hold spaces).
func parseStamp(line string) (string, fileStamp, error) {
	f := strings.SplitN(line, " ", 8)
	if len(f) != 8 || !strings.HasPrefix(f[6], "sha256:") || !filepath.IsAbs(f[7]) {
		return "", fileStamp{}, fmt.Errorf("malformed line %q", line)
	}
	var n [6]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return "", fileStamp{}, fmt.Errorf("malformed line %q", line)
		}
		n[i] = v
	}
	id := fileID{dev: uint64(n[0]), ino: uint64(n[1]), size: n[2], mtime: n[3], ctime: n[4]}
	return f[7], fileStamp{id: id, hashedAt: n[5], fp: f[6]}, nil
}

// saveFiles writes the fingerprints for the next process when this one
// learned something (a file hashed or gone). A failure to write costs the
// next process a re-read, nothing else, so it is not reported.
func (c *Checker) saveFiles() {
	c.mu.Lock()
	if !c.dirty || c.keepIn == "" || strings.ContainsAny(c.Root, "\n") {
		c.mu.Unlock()
		return
	}
	var b bytes.Buffer
	b.WriteString(cacheHeader + "root " + c.Root + "\n")
	for p, st := range c.files {
		if strings.ContainsAny(p, "\n") || !filepath.IsAbs(p) {
			continue // a name a line cannot hold is hashed again next time
		}
		fmt.Fprintf(&b, "%d %d %d %d %d %d %s %s\n", int64(st.id.dev), int64(st.id.ino), st.id.size, st.id.mtime, st.id.ctime, st.hashedAt, st.fp, p)
	}
	for scope, obj := range c.trees {
		if strings.ContainsAny(scope, "\n") {
			continue
		}
		if obj == "" {
			obj = "-"
		}
		fmt.Fprintf(&b, "git %s %s %s\n", c.head, obj, scope)
	}
	c.dirty = false
	path := c.keepIn
	c.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(path, 0o600, func(w io.Writer) error {
		_, err := b.WriteTo(w)
		return err
	})
}
