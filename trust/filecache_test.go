package trust

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// keptChecker is a checker of root as a new process makes it, keeping its
// fingerprints in keep; it hashes files an hour after "now", so a file
// written by the test counts as settled (unchanged for longer than
// racyWindow) unless a test says otherwise.
func keptChecker(root, keep string) *Checker {
	c := NewChecker(root, nil)
	c.wall = func() time.Time { return time.Now().Add(time.Hour) }
	c.KeepFingerprints(keep)
	return c
}

// stampFile binds a memory to one file of root with c.
func stampFile(t *testing.T, c *Checker, target string) *memory.Memory {
	t.Helper()
	w, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFile, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	return &memory.Memory{ID: "m-" + target, Confidence: 0.9, Watermarks: []memory.Watermark{w}}
}

// state is what a check with c says of m's first watermark.
func state(t *testing.T, c *Checker, m *memory.Memory) memory.WatermarkState {
	t.Helper()
	changes, err := c.Check(ctx, []*memory.Memory{m})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		return m.Watermarks[0].State
	}
	return changes[0].Watermarks[0].State
}

// The next process finds the fingerprints the last one left, and still
// notices a changed file: a rewrite of the same size, and one that also
// puts the old modification time back.
func TestKeptFingerprintsNoticeChangesInTheNextProcess(t *testing.T) {
	t.Parallel()
	root, keep := t.TempDir(), t.TempDir()
	p := filepath.Join(root, "a.go")
	if err := os.WriteFile(p, []byte("package a // one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := stampFile(t, keptChecker(root, keep), "a.go")
	files, _ := filepath.Glob(filepath.Join(keep, "*"))
	if len(files) != 1 {
		t.Fatalf("fingerprints kept in %d files, want 1", len(files))
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the fingerprint file is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if got := state(t, keptChecker(root, keep), m); got != memory.WatermarkIntact {
		t.Fatalf("unchanged file: %s in the next process", got)
	}

	if err := os.WriteFile(p, []byte("package a // two\n"), 0o644); err != nil { // the same size
		t.Fatal(err)
	}
	if got := state(t, keptChecker(root, keep), m); got != memory.WatermarkMoved {
		t.Fatalf("a rewrite of the same size: %s in the next process, want moved", got)
	}

	m = stampFile(t, keptChecker(root, keep), "a.go")
	before, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("package a // 333\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, before.ModTime(), before.ModTime()); err != nil { // the stamp's time again
		t.Fatal(err)
	}
	if got := state(t, keptChecker(root, keep), m); got != memory.WatermarkMoved {
		t.Fatalf("a rewrite of the same size and time: %s in the next process, want moved", got)
	}
}

// A kept fingerprint stands for the file while its stat matches and it
// had been still for longer than racyWindow when it was hashed (the file
// is not read again); a file hashed just after it changed is read again,
// since a rewrite in the same clock tick would leave its stat as it was.
func TestKeptFingerprintsStatBeforeHash(t *testing.T) {
	t.Parallel()
	root, keep := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := stampFile(t, keptChecker(root, keep), "a.go")
	cache, _ := filepath.Glob(filepath.Join(keep, "*"))
	real := m.Watermarks[0].Fingerprint
	// What the last process would have read had the file held other bytes.
	rewrite := func(hashedAt func(line []string) string) {
		b, err := os.ReadFile(cache[0])
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			if f := strings.SplitN(l, " ", 8); len(f) == 8 && f[7] == filepath.Join(root, "a.go") {
				f[5], f[6] = hashedAt(f), "sha256:00000000000000ff"
				lines[i] = strings.Join(f, " ")
			}
		}
		if err := os.WriteFile(cache[0], []byte(strings.Join(lines, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	rewrite(func(f []string) string { return f[5] }) // hashed an hour after the file's last change
	if fp, _ := keptChecker(root, keep).fileFingerprint("a.go"); fp != "sha256:00000000000000ff" {
		t.Fatalf("a settled kept fingerprint was not used: the file was read again (%s)", fp)
	}
	rewrite(func(f []string) string { return f[4] }) // hashed in the tick the file last changed
	if fp, _ := keptChecker(root, keep).fileFingerprint("a.go"); fp != real {
		t.Fatalf("a fingerprint taken as the file changed was trusted: %s, want %s", fp, real)
	}
}

// A fingerprint file that is damaged, cut short or not a fingerprint file
// is a cold cache: every file is read, the answer is right, nothing is
// reported, and the file is written anew.
func TestCorruptFingerprintFileIsAColdCache(t *testing.T) {
	t.Parallel()
	root, keep := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := stampFile(t, keptChecker(root, keep), "a.go")
	cache, _ := filepath.Glob(filepath.Join(keep, "*"))
	good, err := os.ReadFile(cache[0])
	if err != nil {
		t.Fatal(err)
	}
	lie := strings.ReplaceAll(string(good), m.Watermarks[0].Fingerprint, "sha256:00000000000000ff")
	for name, bad := range map[string]string{
		"garbage":           "\x00\x01not a cache at all",
		"empty":             "",
		"cut short":         lie[:len(lie)-3],
		"a malformed line":  lie + "12 x 3 4 5 6 sha256:00 /a.go\n",
		"a relative path":   lie + "1 2 3 4 5 6 sha256:00000000000000ff a.go\n",
		"another version":   strings.Replace(lie, "fingerprints 1", "fingerprints 9", 1),
		"a directory there": "",
	} {
		if err := os.RemoveAll(cache[0]); err != nil {
			t.Fatal(err)
		}
		if name == "a directory there" {
			if err := os.Mkdir(cache[0], 0o700); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(cache[0], []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if fp, err := keptChecker(root, keep).fileFingerprint("a.go"); err != nil || fp != m.Watermarks[0].Fingerprint {
			t.Fatalf("%s: %s, %v; want the file's own fingerprint", name, fp, err)
		}
		if got := state(t, keptChecker(root, keep), m); got != memory.WatermarkIntact {
			t.Fatalf("%s: %s, want intact", name, got)
		}
		if name != "a directory there" {
			if b, _ := os.ReadFile(cache[0]); !strings.HasPrefix(string(b), cacheHeader) {
				t.Fatalf("%s: the fingerprint file was not written anew: %q", name, b)
			}
		}
	}
}

// Fingerprints kept for one root are never used for another, even when
// the file is found under the other's name.
func TestFingerprintsOfAnotherRootAreNotUsed(t *testing.T) {
	t.Parallel()
	a, b, keep := t.TempDir(), t.TempDir(), t.TempDir()
	for _, root := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(root, "x.go"), []byte("package x // "+root+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ca := keptChecker(a, keep)
	stampFile(t, ca, "x.go")
	cb := keptChecker(b, keep)
	real, err := hashFile(filepath.Join(b, "x.go"))
	if err != nil {
		t.Fatal(err)
	}
	// a's file, its lines rewritten to name b's paths with a false
	// fingerprint, put where b's fingerprints are kept.
	kept, err := os.ReadFile(ca.keepIn)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.ReplaceAll(string(kept), filepath.Join(a, "x.go"), filepath.Join(b, "x.go"))
	fi, _ := os.Stat(filepath.Join(b, "x.go"))
	id := statID(fi)
	lines := strings.Split(forged, "\n")
	for i, l := range lines {
		if f := strings.SplitN(l, " ", 8); len(f) == 8 {
			lines[i] = strings.Join([]string{itoa(id.dev), itoa(id.ino), itoa(uint64(id.size)), itoa(uint64(id.mtime)), itoa(uint64(id.ctime)),
				itoa(uint64(id.mtime + int64(time.Hour))), "sha256:00000000000000ff", f[7]}, " ")
		}
	}
	if err := os.WriteFile(cb.keepIn, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if fp, _ := cb.fileFingerprint("x.go"); fp != real {
		t.Fatalf("b's file fingerprinted %s from a's kept file, want %s", fp, real)
	}
	// The same lines under b's own header are used: what kept them out was the root.
	own := strings.Replace(strings.Join(lines, "\n"), "root "+a+"\n", "root "+b+"\n", 1)
	if err := os.WriteFile(cb.keepIn, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	if fp, _ := keptChecker(b, keep).fileFingerprint("x.go"); fp != "sha256:00000000000000ff" {
		t.Fatalf("b's own kept fingerprint was not used (%s): the test proves nothing", fp)
	}
}

func hashFile(p string) (string, error) {
	fp, _, err := hashRegular(p)
	return fp, err
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
