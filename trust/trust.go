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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"cairn/memory"
)

// Checker fingerprints referents of one project.
type Checker struct {
	Root   string              // the project's root (a git work tree or a directory)
	Getenv func(string) string // the caller's environment (flags)
	Now    func() time.Time

	mu    sync.Mutex
	files map[string]fileStamp // fingerprints by path, valid while size and mtime hold
}

type fileStamp struct {
	size  int64
	mtime time.Time
	fp    string
}

// NewChecker checks referents under root with the given environment.
func NewChecker(root string, getenv func(string) string) *Checker {
	return &Checker{Root: root, Getenv: getenv, Now: time.Now, files: map[string]fileStamp{}}
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
	case memory.WatermarkGit:
		fps, err := c.gitFingerprints(ctx, []string{w.Target})
		if err != nil {
			return "", err
		}
		return fps[w.Target], nil
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

// fileFingerprint is the content hash of a file, re-read only when its
// size or modification time changed.
func (c *Checker) fileFingerprint(target string) (string, error) {
	p := c.path(target)
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() {
		return "", errGone
	}
	c.mu.Lock()
	st, ok := c.files[p]
	c.mu.Unlock()
	if ok && st.size == fi.Size() && st.mtime.Equal(fi.ModTime()) {
		return st.fp, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", errGone
	}
	fp := "sha256:" + short(sha256.Sum256(b))
	c.mu.Lock()
	c.files[p] = fileStamp{fi.Size(), fi.ModTime(), fp}
	c.mu.Unlock()
	return fp, nil
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

// gitFingerprints finds, for every scope, the last commit that touched it
// ("" is the whole repository), with one git log over recent history and
// a single extra call only for scopes older than that window.
func (c *Checker) gitFingerprints(ctx context.Context, scopes []string) (map[string]string, error) {
	out := map[string]string{}
	log, err := c.gitLog(ctx, 2000)
	if err != nil {
		return nil, err
	}
	for _, s := range scopes {
		if s == "" {
			if len(log) > 0 {
				out[s] = "commit:" + log[0].hash
			}
			continue
		}
		if _, err := os.Stat(c.path(s)); err != nil {
			continue // the path is gone from the work tree
		}
		if h := lastTouch(log, s); h != "" {
			out[s] = "commit:" + h
			continue
		}
		b, err := c.git(ctx, "log", "-1", "--format=%H", "--", s)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			out[s] = "commit:" + string(bytes.TrimSpace(b))
		}
	}
	return out, nil
}

type commit struct {
	hash  string
	files []string
}

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
	if w.Kind == memory.WatermarkNone {
		w.State, w.StampedAt = memory.WatermarkUnbound, c.Now().UTC()
		return w, nil
	}
	fp, err := c.fingerprint(ctx, w)
	if err != nil || fp == "" {
		return w, fmt.Errorf("binding %s does not resolve in %s: %s", w.Spec(), c.Root, resolveHint(w))
	}
	w.Fingerprint, w.State, w.StampedAt = fp, memory.WatermarkIntact, c.Now().UTC()
	return w, nil
}

func resolveHint(w memory.Watermark) string {
	switch w.Kind {
	case memory.WatermarkFile:
		return "no such file — give a path relative to the project root"
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
	var out []memory.Watermark
	seen := map[string]bool{}
	var files []string
	for _, m := range pathRe.FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(m[1], ".,:;")
		if seen[p] || strings.Contains(p, "://") {
			continue
		}
		seen[p] = true
		files = append(files, p)
	}
	sort.Strings(files)
	for _, p := range files {
		fi, err := os.Stat(c.path(p))
		switch {
		case err != nil:
			continue // does not resolve: invent nothing
		case fi.IsDir():
			if w, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkGit, Target: strings.TrimSuffix(p, "/") + "/"}); err == nil {
				out = append(out, w)
			}
		default:
			if w, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFile, Target: filepath.Clean(p)}); err == nil {
				out = append(out, w)
			}
		}
	}
	out = narrowest(out)
	for _, name := range flagRe.FindAllString(text, -1) {
		if seen[name] {
			continue
		}
		seen[name] = true
		if w, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFlag, Target: name}); err == nil {
			out = append(out, w)
		}
	}
	return out
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
// one batch (one git log for all git watermarks), and returns the memories
// whose watermark states changed.
func (c *Checker) Check(ctx context.Context, ms []*memory.Memory) ([]Change, error) {
	var scopes []string
	for _, m := range ms {
		for _, w := range m.Watermarks {
			if w.Kind == memory.WatermarkGit {
				scopes = append(scopes, w.Target)
			}
		}
	}
	var gitFP map[string]string
	var log []commit
	if len(scopes) > 0 {
		var err error
		if gitFP, err = c.gitFingerprints(ctx, scopes); err != nil {
			gitFP = map[string]string{}
		}
		log, _ = c.gitLog(ctx, 2000)
	}
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
			var err error
			if w.Kind == memory.WatermarkGit {
				now = gitFP[w.Target]
			} else {
				now, err = c.fingerprint(ctx, w)
			}
			state := memory.WatermarkIntact
			switch {
			case err != nil || now == "":
				state = memory.WatermarkGone
			case now != w.Fingerprint:
				state = memory.WatermarkMoved
			}
			if state != memory.WatermarkIntact {
				reasons = append(reasons, reason(w, state, now, log))
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

// reason says in words what moved, old → new.
func reason(w memory.Watermark, state memory.WatermarkState, now string, log []commit) string {
	since := w.StampedAt.Local().Format("2006-01-02")
	if state == memory.WatermarkGone {
		switch w.Kind {
		case memory.WatermarkFile:
			return fmt.Sprintf("bound to %s: the file is gone (bound %s)", w.Target, since)
		case memory.WatermarkFlag:
			return fmt.Sprintf("bound to %s: the variable is no longer set (bound %s)", w.Target, since)
		}
		return fmt.Sprintf("bound to git:%s: the path is gone (bound %s)", w.Target, since)
	}
	switch w.Kind {
	case memory.WatermarkFile:
		return fmt.Sprintf("bound to %s: content changed since %s (%s → %s)", w.Target, since, w.Fingerprint, now)
	case memory.WatermarkFlag:
		return fmt.Sprintf("bound to %s: its value changed since %s", w.Target, since)
	}
	old := strings.TrimPrefix(w.Fingerprint, "commit:")
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
	return fmt.Sprintf("%d commits touched %s since %s (last now %s)", n, scope, abbrev(old), abbrev(strings.TrimPrefix(now, "commit:")))
}

func abbrev(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
