// Package trust binds remembered facts to things that exist — a file, the
// history of a path in git, an environment flag — and notices when those
// things move (DESIGN §3). Binding is mechanical: candidates are found in
// the text by their shape and kept only if they resolve; nothing is
// invented. A wake check re-reads every fingerprint in one batch and says,
// in words, what moved.
package trust

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"cairn/memory"
	"cairn/safetext"
)

// Checker fingerprints referents of one project.
type Checker struct {
	Root   string              // the project's root (a git work tree or a directory)
	Getenv func(string) string // the caller's environment (flags)
	Now    func() time.Time
	// Observer names this process in the reasons of what it alone can see
	// (a flag's value belongs to one process's environment).
	Observer string

	// wall is the clock a file's hash is timed by (see racyWindow);
	// tests move it to hash "long after" a file was written.
	wall func() time.Time

	mu     sync.Mutex
	files  map[string]fileStamp // fingerprints by path, valid while the stat holds (see filecache.go)
	head   string               // the commit the objects in trees were resolved at (see gitcache.go)
	trees  map[string]string    // the object of each scope at head; "" for none
	keepIn string               // the file they are kept in between processes; "": none
	loaded bool                 // keepIn has been read
	dirty  bool                 // files changed since keepIn was read or written
}

// NewChecker checks referents under root with the given environment.
func NewChecker(root string, getenv func(string) string) *Checker {
	return &Checker{Root: root, Getenv: getenv, Now: time.Now, Observer: observer(), wall: time.Now, files: map[string]fileStamp{}}
}

// observer names this process: its command (the program and its first
// argument, the subcommand) and its pid.
func observer() string {
	args := os.Args
	if len(args) == 0 {
		return fmt.Sprintf("pid %d", os.Getpid())
	}
	cmd := filepath.Base(args[0])
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		cmd += " " + args[1]
	}
	return fmt.Sprintf("%s, pid %d", safetext.CleanLine(cmd), os.Getpid())
}

// errGone means the referent no longer exists.
var errGone = fmt.Errorf("gone")

// fingerprint reads the current fingerprint of one referent.
func (c *Checker) fingerprint(ctx context.Context, w memory.Watermark) (string, error) {
	switch w.Kind {
	case memory.WatermarkFile:
		return c.fileFingerprint(w.Target)
	case memory.WatermarkFlag:
		v, ok := c.lookup(w.Target)
		if !ok {
			return "", errGone
		}
		return "sha256:" + short(sha256.Sum256([]byte(v))), nil
	}
	return "", nil
}

func (c *Checker) lookup(name string) (string, bool) {
	if c.Getenv == nil {
		return "", false
	}
	v := c.Getenv(name)
	return v, v != ""
}

func short(sum [32]byte) string { return hex.EncodeToString(sum[:8]) }

// path makes a target absolute within the project.
func (c *Checker) path(target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(c.Root, target)
}

// Files larger than hashLimit are fingerprinted by a prefix of hashPrefix
// bytes with their size and modification time, so a bound file that grows
// to a gigabyte costs one bounded read, not a pass over it.
const (
	hashLimit  = 4 << 20
	hashPrefix = 1 << 20
)

// fileFingerprint is the content hash of a regular file, re-read only when
// what a stat says of it changed since it was hashed (by this process or,
// with KeepFingerprints, an earlier one) or it had changed just before.
// Anything else — a directory, a device such as /dev/zero, a FIFO, a
// socket — has no fingerprint: reading it could block forever or never end.
func (c *Checker) fileFingerprint(target string) (string, error) {
	p := c.path(target)
	id, regular, err := statFile(p)
	if err != nil || !regular {
		c.drop(p)
		return "", errGone
	}
	c.mu.Lock()
	c.loadFiles()
	st, ok := c.files[p]
	c.mu.Unlock()
	if ok && st.id == id && st.settled() {
		return st.fp, nil // the same file, unchanged since it was hashed (on a real file system: checked then)
	}
	if pseudoFile(p) {
		c.drop(p)
		return "", errGone
	}
	hashedAt := c.wall().UnixNano()
	fp, fi, err := hashRegular(p)
	if err != nil {
		c.drop(p)
		return "", errGone
	}
	c.mu.Lock()
	c.files[p] = fileStamp{id: statID(fi), hashedAt: hashedAt, fp: fp}
	c.dirty = true
	c.mu.Unlock()
	return fp, nil
}

// drop forgets the fingerprint of a path that is no file any more.
func (c *Checker) drop(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadFiles()
	if _, ok := c.files[p]; ok {
		delete(c.files, p)
		c.dirty = true
	}
}

// Files of the kernel's pseudo file systems look regular but are not
// content: /proc/kmsg blocks a read forever (and each read consumes the
// kernel's log), /proc/uptime changes on every read. They are never bound.
var pseudoFS = map[int64]bool{
	0x9fa0:     true, // proc
	0x62656572: true, // sysfs
	0x64626720: true, // debugfs
	0x74726163: true, // tracefs
	0x73636673: true, // securityfs
	0x27e0eb:   true, // cgroup
	0x63677270: true, // cgroup2
	0xcafe4a11: true, // bpf
	0x62656570: true, // configfs
	0xde5e81e4: true, // efivarfs
	0x6165676c: true, // pstore
	0x65735543: true, // fusectl
}

// pseudoFile reports whether p (after its links) lies on a pseudo file system.
func pseudoFile(p string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(p, &st) == nil && pseudoFS[int64(st.Type)]
}

// pseudoFD is pseudoFile for an open file, which no link can swap.
func pseudoFD(f *os.File) bool {
	var st syscall.Statfs_t
	return syscall.Fstatfs(int(f.Fd()), &st) == nil && pseudoFS[int64(st.Type)]
}

// hashRegular hashes the file at p, which must still be a regular file once
// open: it is opened non-blocking (a FIFO swapped in after the stat cannot
// hold the open) and checked again on the open descriptor.
func hashRegular(p string) (fp string, fi os.FileInfo, err error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() || pseudoFD(f) {
		return "", nil, errGone
	}
	h := sha256.New()
	if fi.Size() <= hashLimit {
		// LimitReader: a file that grows while we read is still read in bounds.
		if _, err := io.Copy(h, io.LimitReader(f, hashLimit+1)); err != nil {
			return "", nil, err
		}
	} else {
		if _, err := io.Copy(h, io.LimitReader(f, hashPrefix)); err != nil {
			return "", nil, err
		}
		fmt.Fprintf(h, "\x00size=%d mtime=%d", fi.Size(), fi.ModTime().UnixNano())
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return "sha256:" + short(sum), fi, nil
}

// git runs git in the project root.
func (c *Checker) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", c.Root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// A git fingerprint names the scope's object at HEAD (the tree of a
// directory, the blob of a file, HEAD's root tree for the whole
// repository) and the last commit that touched it: "commit:H tree:T". The
// object answers "did anything under it change" for every scope in one
// cheap git call; the commit, found in the history only when something
// changed, says since when. Fingerprints without a tree (older stamps) are
// compared by commit.
type gitFP struct{ commit, tree string }

func parseGitFP(s string) gitFP {
	var g gitFP
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(f, "commit:"); ok {
			g.commit = v
		} else if v, ok := strings.CutPrefix(f, "tree:"); ok {
			g.tree = v
		}
	}
	return g
}

func (g gitFP) String() string {
	if g.commit == "" {
		return ""
	}
	return "commit:" + g.commit + " tree:" + g.tree
}

// gitObjects resolves the object of every scope at HEAD in one git call; a
// scope missing from HEAD is absent from the result.
func (c *Checker) gitObjects(ctx context.Context, scopes []string) (map[string]string, error) {
	var in bytes.Buffer
	var asked []string
	for _, s := range uniqueStrings(scopes) {
		name, ok := c.revPath(s)
		if !ok {
			continue // outside the work tree: never in HEAD
		}
		in.WriteString(name + "\n")
		asked = append(asked, s)
	}
	trees := map[string]string{}
	if len(asked) == 0 {
		return trees, nil
	}
	cmd := exec.CommandContext(ctx, "git", "-C", c.Root, "cat-file", "--batch-check=%(objectname)")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for i, s := range asked {
		if i < len(lines) && !strings.HasSuffix(lines[i], " missing") && !strings.Contains(lines[i], " ") {
			trees[s] = lines[i]
		}
	}
	return trees, nil
}

// revPath names a scope's object at HEAD for git run in the root: the
// root's own tree for "", else the path relative to the root ("./" makes
// git read it from there, not from the repository's top). A scope that
// leaves the root cannot be named (git would refuse the whole batch).
func (c *Checker) revPath(scope string) (string, bool) {
	if scope == "" {
		return "HEAD^{tree}", true
	}
	rel := scope
	if filepath.IsAbs(scope) {
		r, err := filepath.Rel(c.Root, scope)
		if err != nil {
			return "", false
		}
		rel = r
	}
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsAny(rel, "\n") {
		return "", false
	}
	if rel == "." {
		return "HEAD:./", true
	}
	return "HEAD:./" + rel, true
}

// gitFingerprints fingerprints every scope now: its object at HEAD and
// the last commit that touched it, found in log (the recent history) or,
// for a scope older than that window, by one git call of its own.
func (c *Checker) gitFingerprints(ctx context.Context, scopes []string, log []commit) (map[string]string, error) {
	trees, err := c.gitTrees(ctx, scopes)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range uniqueStrings(scopes) {
		g := gitFP{tree: trees[s]}
		if g.tree == "" {
			continue // not in HEAD
		}
		if s != "" {
			if _, err := os.Stat(c.path(s)); err != nil {
				continue // the path is gone from the work tree
			}
		}
		switch {
		case s == "" && len(log) > 0:
			g.commit = log[0].hash
		case s != "":
			g.commit = lastTouch(log, s)
		}
		if g.commit == "" {
			args := []string{"log", "-1", "--format=%H"}
			if s != "" {
				args = append(args, "--", s)
			}
			if b, err := c.git(ctx, args...); err == nil {
				g.commit = string(bytes.TrimSpace(b))
			}
		}
		if g.commit != "" {
			out[s] = g.String()
		}
	}
	return out, nil
}

func uniqueStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

type commit struct {
	hash  string
	files []string
}

// recentCommits is how much history one log reads: the window in which
// the last commit touching a scope is looked up in a single call.
const recentCommits = 2000

// gitLog is the newest n commits with the files each touched.
func (c *Checker) gitLog(ctx context.Context, n int) ([]commit, error) {
	b, err := c.git(ctx, "log", fmt.Sprintf("-n%d", n), "--format=%x00%H", "--name-only")
	if err != nil {
		return nil, err
	}
	var log []commit
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "\x00"); ok {
			log = append(log, commit{hash: h})
		} else if line != "" && len(log) > 0 {
			log[len(log)-1].files = append(log[len(log)-1].files, line)
		}
	}
	return log, nil
}

// touches reports whether a commit changed scope (a file or a directory).
func touches(cm commit, scope string) bool {
	scope = strings.TrimSuffix(filepath.ToSlash(scope), "/")
	for _, f := range cm.files {
		if f == scope || strings.HasPrefix(f, scope+"/") {
			return true
		}
	}
	return false
}

func lastTouch(log []commit, scope string) string {
	for _, cm := range log {
		if touches(cm, scope) {
			return cm.hash
		}
	}
	return ""
}

// Stamp resolves a watermark now and records its fingerprint; a referent
// that does not resolve is an error (never store a binding that does not).
func (c *Checker) Stamp(ctx context.Context, w memory.Watermark) (memory.Watermark, error) {
	out, errs := c.StampAll(ctx, []memory.Watermark{w})
	return out[0], errs[0]
}

// StampEach stamps every watermark or fails on the first that does not
// resolve.
func (c *Checker) StampEach(ctx context.Context, ws []memory.Watermark) ([]memory.Watermark, error) {
	out, errs := c.StampAll(ctx, ws)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// batchLog is how many distinct git scopes make one read of the recent
// history cheaper than a "git log -1" per scope.
const batchLog = 8

// StampAll stamps many watermarks at once: all git scopes resolved in one
// call, and the history read once when there are many of them; each
// result is stamped or carries the error of its referent.
func (c *Checker) StampAll(ctx context.Context, ws []memory.Watermark) ([]memory.Watermark, []error) {
	var scopes []string
	for _, w := range ws {
		if w.Kind == memory.WatermarkGit {
			scopes = append(scopes, w.Target)
		}
	}
	gitFP := map[string]string{}
	if len(scopes) > 0 {
		var log []commit
		if len(uniqueStrings(scopes)) > batchLog {
			log, _ = c.gitLog(ctx, recentCommits)
		}
		gitFP, _ = c.gitFingerprints(ctx, scopes, log)
	}
	now := c.Now().UTC()
	out, errs := make([]memory.Watermark, len(ws)), make([]error, len(ws))
	for i, w := range ws {
		out[i] = w
		var fp string
		switch w.Kind {
		case memory.WatermarkNone:
			out[i].State, out[i].StampedAt = memory.WatermarkUnbound, now
			continue
		case memory.WatermarkGit:
			fp = gitFP[w.Target]
		default:
			fp, _ = c.fingerprint(ctx, w)
		}
		if fp == "" {
			errs[i] = &UnresolvedError{Watermark: w, Root: c.Root}
			continue
		}
		out[i].Fingerprint, out[i].State, out[i].StampedAt = fp, memory.WatermarkIntact, now
	}
	c.saveFiles()
	return out, errs
}

// UnresolvedError is a binding that does not resolve: what it is and why.
// What to do about it depends on what was being done (a write gives
// another path, a confirm rebinds), so the caller says it.
type UnresolvedError struct {
	Watermark memory.Watermark
	Root      string
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("binding %s does not resolve in %s: %s", e.Watermark.Spec(), e.Root, e.reason())
}

func (e *UnresolvedError) reason() string {
	switch e.Watermark.Kind {
	case memory.WatermarkFile:
		return "no such regular file (devices, FIFOs, sockets and /proc or /sys files are never bound)"
	case memory.WatermarkFlag:
		return "the variable is not set"
	}
	return "no commit touches that path (is this a git repository?)"
}

// Candidate shapes in text.
var (
	pathRe = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:\.{0,2}/)?[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+/?|[A-Za-z0-9_\-]+/|[A-Za-z0-9_\-]+\.[A-Za-z0-9]{1,8})(?:$|[\s)\x60"',;:])`)
	flagRe = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
)

// Bind finds the referents a text names that resolve here, and stamps
// them: the narrowest wins (a file over its directory's history; a flag
// stands on its own). Commit ids are recognised but not bound: a commit
// never changes, so its fingerprint could never move.
func (c *Checker) Bind(ctx context.Context, text string) []memory.Watermark {
	return c.BindMany(ctx, []string{text})[0]
}

// BindMany binds many texts at once (an import), stamping every distinct
// referent once, with one read of the git history for all of them.
func (c *Checker) BindMany(ctx context.Context, texts []string) [][]memory.Watermark {
	cands := make([][]memory.Watermark, len(texts))
	var all []memory.Watermark
	index := map[memory.Watermark]int{}
	for i, text := range texts {
		for _, w := range c.candidates(text) {
			if _, ok := index[w]; !ok {
				index[w] = len(all)
				all = append(all, w)
			}
			cands[i] = append(cands[i], w)
		}
	}
	stamped, errs := c.StampAll(ctx, all)
	out := make([][]memory.Watermark, len(texts))
	for i, cs := range cands {
		var ws []memory.Watermark
		for _, w := range cs {
			if j := index[w]; errs[j] == nil {
				ws = append(ws, stamped[j])
			}
		}
		out[i] = narrowest(ws)
	}
	return out
}

// candidates are the referents a text names by their shape that exist
// here: files and directories that stat (a directory is watched through
// its git history), then UPPER_SNAKE names. Whether each resolves is up to
// the stamp.
func (c *Checker) candidates(text string) []memory.Watermark {
	seen := map[string]bool{}
	var files []string
	// The expressions are slow on long prose (an import binds thousands
	// of texts): they run only where they can match. Every shape pathRe
	// matches has a slash, or a dot followed by a letter or digit; every
	// name flagRe matches has an underscore.
	var paths [][]string
	if mayNamePath(text) {
		paths = pathRe.FindAllStringSubmatch(text, -1)
	}
	for _, m := range paths {
		p := strings.TrimRight(m[1], ".,:;")
		if seen[p] || strings.Contains(p, "://") {
			continue
		}
		seen[p] = true
		files = append(files, p)
	}
	sort.Strings(files)
	var out []memory.Watermark
	for _, p := range files {
		fi, err := os.Stat(c.path(p))
		switch {
		case err != nil:
			continue // does not resolve: invent nothing
		case !fi.IsDir() && (!fi.Mode().IsRegular() || pseudoFile(c.path(p))):
			continue // a device, FIFO, socket or kernel file has no content to watch
		case fi.IsDir():
			out = append(out, memory.Watermark{Kind: memory.WatermarkGit, Target: strings.TrimSuffix(p, "/") + "/"})
		default:
			out = append(out, memory.Watermark{Kind: memory.WatermarkFile, Target: filepath.Clean(p)})
		}
	}
	var flags []string
	if strings.IndexByte(text, '_') >= 0 {
		flags = flagRe.FindAllString(text, -1)
	}
	for _, name := range flags {
		if !seen[name] {
			seen[name] = true
			out = append(out, memory.Watermark{Kind: memory.WatermarkFlag, Target: name})
		}
	}
	return out
}

// mayNamePath reports whether text has a slash, or a dot followed by an
// ASCII letter or digit: what every path pathRe finds contains.
func mayNamePath(text string) bool {
	if strings.IndexByte(text, '/') >= 0 {
		return true
	}
	for i := strings.IndexByte(text, '.'); i >= 0 && i+1 < len(text); {
		if c := text[i+1]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
		j := strings.IndexByte(text[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// narrowest drops a directory binding when a file inside it is bound.
func narrowest(ws []memory.Watermark) []memory.Watermark {
	var out []memory.Watermark
	for _, w := range ws {
		covered := false
		if w.Kind == memory.WatermarkGit {
			for _, f := range ws {
				if f.Kind == memory.WatermarkFile && strings.HasPrefix(filepath.ToSlash(f.Target), w.Target) {
					covered = true
				}
			}
		}
		if !covered {
			out = append(out, w)
		}
	}
	return out
}

// Change is what a wake check found about one memory.
type Change struct {
	Memory     *memory.Memory
	Watermarks []memory.Watermark // the memory's watermarks with their new states
	Reasons    []string           // in words, one per watermark that is not intact
}

// Check compares every bound watermark of the memories with the world, in
// one batch, and returns the memories whose watermark states changed or
// that are not intact. Each distinct file is looked at once (stat, and a
// read only when its size or time changed since this checker last hashed
// it), on several goroutines; every git scope is resolved in one git call,
// and the history is read once, only when some scope changed.
func (c *Checker) Check(ctx context.Context, ms []*memory.Memory) ([]Change, error) {
	var files, scopes []string
	for _, m := range ms {
		for _, w := range m.Watermarks {
			if w.Fingerprint == "" {
				continue
			}
			switch w.Kind {
			case memory.WatermarkFile:
				files = append(files, w.Target)
			case memory.WatermarkGit:
				scopes = append(scopes, w.Target)
			}
		}
	}
	fileFP := c.fileFingerprints(uniqueStrings(files))
	gitNow, log := c.gitStates(ctx, ms, scopes)
	c.saveFiles()
	_, noGit := exec.LookPath("git")

	var changes []Change
	for _, m := range ms {
		ws := append([]memory.Watermark(nil), m.Watermarks...)
		var reasons []string
		changed := false
		for i, w := range ws {
			if w.Kind == memory.WatermarkNone {
				continue
			}
			if w.Fingerprint == "" { // imported with a state and no fingerprint to compare
				if w.State == memory.WatermarkMoved || w.State == memory.WatermarkGone {
					reasons = append(reasons, fmt.Sprintf("bound to %s: %s when it was imported (no fingerprint to compare: confirm or rebind)", w.Spec(), w.State))
				}
				continue
			}
			var now string
			switch w.Kind {
			case memory.WatermarkGit:
				if noGit != nil {
					continue // git is not installed here: no evidence either way
				}
				now = gitNow[w.Target]
			case memory.WatermarkFile:
				now = fileFP[w.Target]
			case memory.WatermarkFlag:
				// A variable belongs to one process's environment. One that
				// this process cannot see says nothing about the flag (the
				// shell may simply not export it): the shared state stays as
				// the last process that saw it left it.
				if _, ok := c.lookup(w.Target); !ok {
					if w.State == memory.WatermarkMoved || w.State == memory.WatermarkGone {
						reasons = append(reasons, fmt.Sprintf("bound to %s: its value changed since %s, as another cairn process saw it (this one does not see the variable)", w.Target, w.StampedAt.Local().Format("2006-01-02")))
					}
					continue
				}
				now, _ = c.fingerprint(ctx, w)
			default:
				now, _ = c.fingerprint(ctx, w)
			}
			state := memory.WatermarkIntact
			switch {
			case now == "":
				state = memory.WatermarkGone
			case w.Kind == memory.WatermarkGit && !sameGit(w.Fingerprint, now):
				state = memory.WatermarkMoved
			case w.Kind != memory.WatermarkGit && now != w.Fingerprint:
				state = memory.WatermarkMoved
			}
			if state != memory.WatermarkIntact {
				reasons = append(reasons, reason(w, state, now, log, c.Observer))
			}
			if state != w.State {
				ws[i].State = state
				changed = true
			}
		}
		if changed || len(reasons) > 0 {
			changes = append(changes, Change{Memory: m, Watermarks: ws, Reasons: reasons})
		}
	}
	return changes, nil
}

// sameGit compares a stored git fingerprint with a current one: by the
// scope's object when both have it, else by the last commit.
func sameGit(stored, now string) bool {
	a, b := parseGitFP(stored), parseGitFP(now)
	if a.tree != "" && b.tree != "" {
		return a.tree == b.tree
	}
	return a.commit == b.commit
}

// gitStates is the current fingerprint of every scope, as far as the
// comparison needs it: a scope whose object is what it was stamped with
// gets that stored fingerprint back without reading any history; the
// history is read once, for the rest. A scope gone from HEAD or the work
// tree is absent. The log is returned for the reasons.
func (c *Checker) gitStates(ctx context.Context, ms []*memory.Memory, scopes []string) (map[string]string, []commit) {
	now := map[string]string{}
	if len(scopes) == 0 {
		return now, nil
	}
	trees, err := c.gitTrees(ctx, scopes)
	if err != nil {
		return now, nil // not a repository (any more): every scope is gone
	}
	onDisk := map[string]bool{}
	for _, sc := range uniqueStrings(scopes) {
		onDisk[sc] = c.onDisk(sc)
	}
	var moved []string
	for _, m := range ms {
		for _, w := range m.Watermarks {
			if w.Kind != memory.WatermarkGit || w.Fingerprint == "" {
				continue
			}
			if t := trees[w.Target]; t != "" && t == parseGitFP(w.Fingerprint).tree && onDisk[w.Target] {
				if _, done := now[w.Target]; !done {
					now[w.Target] = w.Fingerprint
				}
				continue
			}
			moved = append(moved, w.Target) // this stamp is behind: the history says since when
		}
	}
	if len(moved) == 0 {
		return now, nil
	}
	log, _ := c.gitLog(ctx, recentCommits)
	fps, err := c.gitFingerprints(ctx, moved, log)
	if err != nil {
		return now, log
	}
	for s, fp := range fps {
		if _, done := now[s]; !done {
			now[s] = fp
		}
	}
	return now, log
}

// onDisk reports whether a scope is still in the work tree.
func (c *Checker) onDisk(scope string) bool {
	if scope == "" {
		return true
	}
	_, err := os.Stat(c.path(scope))
	return err == nil
}

// fileFingerprints fingerprints distinct files on a few goroutines; a file
// that is gone maps to "".
func (c *Checker) fileFingerprints(targets []string) map[string]string {
	out := make(map[string]string, len(targets))
	if len(targets) == 0 {
		return out
	}
	fps := make([]string, len(targets))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(8, len(targets)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(targets); i = int(next.Add(1) - 1) {
				fps[i], _ = c.fileFingerprint(targets[i])
			}
		})
	}
	wg.Wait()
	for i, t := range targets {
		out[t] = fps[i]
	}
	return out
}

// reason says in words what moved, old → new.
func reason(w memory.Watermark, state memory.WatermarkState, now string, log []commit, observer string) string {
	since := w.StampedAt.Local().Format("2006-01-02")
	if state == memory.WatermarkGone {
		switch w.Kind {
		case memory.WatermarkFile:
			return fmt.Sprintf("bound to %s: the file is gone or no longer a regular file (bound %s)", w.Target, since)
		}
		return fmt.Sprintf("bound to git:%s: the path is gone (bound %s)", w.Target, since)
	}
	switch w.Kind {
	case memory.WatermarkFile:
		return fmt.Sprintf("bound to %s: content changed since %s (%s → %s)", w.Target, since, w.Fingerprint, now)
	case memory.WatermarkFlag:
		return fmt.Sprintf("bound to %s: its value changed since %s (%s → %s, seen by %s)", w.Target, since, w.Fingerprint, now, observer)
	}
	old := parseGitFP(w.Fingerprint).commit
	n := 0
	for _, cm := range log {
		if cm.hash == old {
			break
		}
		if w.Target == "" || touches(cm, w.Target) {
			n++
		}
	}
	scope := w.Target
	if scope == "" {
		scope = "the repository"
	}
	return fmt.Sprintf("%d commits touched %s since %s (last now %s)", n, scope, abbrev(old), abbrev(parseGitFP(now).commit))
}

func abbrev(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
