package derive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"cairn/secrets"
)

// Options bound what is read.
type Options struct {
	// MaxFileSize skips larger files; 0 (or less) means DefaultMaxFileSize.
	MaxFileSize int64
	// Exclude are globs a person excluded, matched against the slash path
	// relative to the root. Each element is matched with path.Match; "**"
	// stands for any number of elements (none included). A pattern with no
	// slash matches a file or directory of that name at any depth, like a
	// .gitignore line; a pattern with a slash is anchored at the root (a
	// leading "/" is allowed). A pattern that matches a directory excludes
	// everything under it. A trailing "/" is ignored.
	Exclude []string
}

// DefaultMaxFileSize is the size limit when Options.MaxFileSize is unset.
const DefaultMaxFileSize = 1 << 20

func (o Options) maxSize() int64 {
	if o.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return o.MaxFileSize
}

// Entry is a candidate file: listed, not skipped by its path or its stat.
type Entry struct {
	Path    string `json:"path"` // slash-separated, relative to the root
	Size    int64  `json:"size"`
	ModTime int64  `json:"mod_time"` // unix nanoseconds
}

// The reasons a file is skipped, the keys of Skipped.
const (
	SkipVendored  = "vendored"  // under vendor/, node_modules/, third_party/ …
	SkipGenerated = "generated" // a "Code generated … DO NOT EDIT." header, a lock file, minified code
	SkipBinary    = "binary"    // a NUL byte in its first 8 KiB
	SkipLarge     = "large"     // over MaxFileSize
	SkipSymlink   = "symlink"   // a link that leaves the root, or to a directory
	SkipExcluded  = "excluded"  // matched one of Options.Exclude
	SkipSecret    = "secret"    // a path with a secret in it: the path is part of every record
	// SkipSpecial (open.go): a FIFO, a device or a socket.
)

// Skipped counts skipped files by reason. In a git repository every
// skipped file counts once; in a walk a skipped directory counts once for
// the whole of it (it is not entered).
type Skipped map[string]int

func (s Skipped) add(reason string) { s[reason]++ }

// String says what was skipped in words, for `cairn index`:
// "12 binary, 3 generated, 1 large (over the size limit)"; "" for none.
func (s Skipped) String() string {
	words := []struct{ key, one, many string }{
		{SkipBinary, "binary", "binaries"},
		{SkipGenerated, "generated", "generated"},
		{SkipVendored, "vendored", "vendored"},
		{SkipLarge, "over the size limit", "over the size limit"},
		{SkipSymlink, "symlink", "symlinks"},
		{SkipExcluded, "excluded", "excluded"},
		{SkipSpecial, "not a regular file", "not regular files"},
		{SkipSecret, "named with a secret", "named with a secret"},
	}
	var parts []string
	for _, w := range words {
		switch n := s[w.key]; {
		case n == 1:
			parts = append(parts, "1 "+w.one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, w.many))
		}
	}
	return strings.Join(parts, ", ")
}

// List names the files worth reading under root, sorted by path, and
// counts what it skipped and why. In a git work tree the files are those
// git would show (tracked, plus untracked ones .gitignore does not
// ignore); elsewhere a walk that leaves out dot-directories and the usual
// vendored and build directories. It reads the first 8 KiB of each file
// (binary, generated, minified); Update reads less.
func List(ctx context.Context, root string, opt Options) ([]Entry, Skipped, error) {
	cands, skipped, err := candidates(ctx, root, opt)
	if err != nil {
		return nil, nil, err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("derive: %w", err)
	}
	out := cands[:0]
	head := make([]byte, headSize)
	for _, e := range cands {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		n, reason, err := readHead(real, e.Path, head)
		if reason != "" {
			skipped.add(reason) // replaced since it was listed
			continue
		}
		if err != nil {
			continue // gone since it was listed, or unreadable: nothing to read
		}
		if reason := contentSkip(e.Path, head[:n]); reason != "" {
			skipped.add(reason)
			continue
		}
		out = append(out, e)
	}
	return out, skipped, nil
}

// headSize is how much of a file the content checks look at.
const headSize = 8 << 10

func readHead(root, rel string, buf []byte) (int, string, error) {
	f, _, reason, err := openInRoot(root, rel)
	if reason != "" || err != nil {
		return 0, reason, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return n, "", err
}

// candidates lists the files and keeps those their path and stat allow:
// everything List does except looking inside them.
func candidates(ctx context.Context, root string, opt Options) ([]Entry, Skipped, error) {
	ex, err := compileExcludes(opt.Exclude)
	if err != nil {
		return nil, nil, err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("derive: %w", err)
	}
	if fi, err := os.Stat(real); err != nil {
		return nil, nil, fmt.Errorf("derive: %w", err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("derive: %s is not a directory", root)
	}
	skipped := Skipped{}
	paths, gitErr := gitFiles(ctx, real)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []Entry
	if gitErr != nil {
		// Not a git work tree (or no git here): walk, leaving out what
		// .gitignore would usually leave out.
		out, err = walkTree(ctx, real, opt, ex, skipped)
		if err != nil {
			return nil, nil, err
		}
	} else {
		out = make([]Entry, 0, len(paths))
		for _, p := range paths {
			if reason := pathSkip(p, ex); reason != "" {
				skipped.add(reason)
				continue
			}
			if e, reason, ok := statEntry(real, p, opt); reason != "" {
				skipped.add(reason)
			} else if ok {
				out = append(out, e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, skipped, nil
}

// gitFiles asks git for the files of the work tree under root, relative
// to root: tracked ones and untracked ones not ignored. git runs without
// a pager or a prompt; -z keeps names unquoted.
func gitFiles(ctx context.Context, root string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "-C", root,
		"ls-files", "--cached", "--others", "--exclude-standard", "-z")
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	var paths []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		// A file with unmerged stages is listed once per stage.
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		paths = append(paths, p)
	}
	return paths, nil
}

// statEntry looks at one listed path: a regular file within the size limit is
// an entry; a symlink counts only when it stays inside the root and
// names a regular file. ok is false, with no reason, for what is not a
// file at all (a submodule, a directory, a file deleted but still in
// git's index).
func statEntry(root, p string, opt Options) (e Entry, reason string, ok bool) {
	name := filepath.Join(root, filepath.FromSlash(p))
	fi, err := os.Lstat(name)
	if err != nil {
		return Entry{}, "", false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(name)
		if err != nil {
			return Entry{}, "", false // dangling
		}
		if !insideRoot(root, target) {
			return Entry{}, SkipSymlink, false
		}
		if fi, err = os.Stat(target); err != nil {
			return Entry{}, "", false
		}
		if fi.IsDir() {
			return Entry{}, SkipSymlink, false
		}
	}
	if fi.IsDir() {
		return Entry{}, "", false
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, SkipSpecial, false
	}
	if fi.Size() > opt.maxSize() {
		return Entry{}, SkipLarge, false
	}
	return Entry{Path: p, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, "", true
}

// insideRoot reports whether target (a resolved path) is root or under it.
func insideRoot(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// walkTree lists a directory that is not a git work tree. Dot-directories
// (.git, .venv, .idea …) and build directories are not entered; the CI
// directories facts are read from are.
func walkTree(ctx context.Context, root string, opt Options, ex []excludePattern, skipped Skipped) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == root {
				return err
			}
			return nil // an unreadable directory: leave it out
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == root {
			return nil
		}
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return nil
		}
		p := filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			switch {
			case strings.HasPrefix(base, ".") && !ciDirs[base]:
				return fs.SkipDir
			case buildDirs[base]:
				return fs.SkipDir
			case vendorDir(base):
				skipped.add(SkipVendored)
				return fs.SkipDir
			case matchExcludes(ex, p):
				skipped.add(SkipExcluded)
				return fs.SkipDir
			}
			return nil
		}
		if reason := pathSkip(p, ex); reason != "" {
			skipped.add(reason)
			return nil
		}
		if e, reason, ok := statEntry(root, p, opt); reason != "" {
			skipped.add(reason)
		} else if ok {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("derive: %w", err)
	}
	return out, nil
}

// vendorDirs hold other people's code, checked in or installed.
var vendorDirs = map[string]bool{
	"vendor": true, "node_modules": true, "third_party": true, "third-party": true,
	"bower_components": true, "jspm_packages": true, "Pods": true, "site-packages": true,
}

// buildDirs hold what a build or a tool wrote; a walk (no .gitignore to
// ask) does not enter them. In a git repository they are listed only
// when committed, and then read.
var buildDirs = map[string]bool{
	"dist": true, "build": true, "target": true, "out": true, "__pycache__": true,
	"venv": true, "coverage": true, "obj": true,
}

// ciDirs are the dot-directories a walk enters: where CI is configured.
var ciDirs = map[string]bool{".github": true, ".gitlab": true, ".circleci": true, ".ci": true}

// vendorDir reports a directory of other people's code: one of
// vendorDirs, or one named for it (difftastic's vendored_parsers).
func vendorDir(name string) bool {
	return vendorDirs[name] || strings.HasPrefix(name, "vendored")
}

// lockFiles are written by package managers, never by a person.
var lockFiles = map[string]bool{
	"go.sum": true, "go.work.sum": true, "package-lock.json": true, "npm-shrinkwrap.json": true,
	"yarn.lock": true, "pnpm-lock.yaml": true, "bun.lockb": true, "Cargo.lock": true,
	"poetry.lock": true, "Pipfile.lock": true, "uv.lock": true, "pdm.lock": true,
	"composer.lock": true, "Gemfile.lock": true, "flake.lock": true, "mix.lock": true,
	"pubspec.lock": true, "Podfile.lock": true, "packages.lock.json": true,
}

// pathSkip is the reason to skip a file by its path alone, or "".
func pathSkip(p string, ex []excludePattern) string {
	if matchExcludes(ex, p) {
		return SkipExcluded
	}
	if len(secrets.Scan(p)) > 0 {
		return SkipSecret
	}
	elems := strings.Split(p, "/")
	if len(elems) > 1 && elems[0] == ".cairn" {
		return SkipGenerated // cairn's own team mirror (cairn sync): memories, not what the repository says
	}
	for _, e := range elems[:len(elems)-1] {
		if vendorDir(e) {
			return SkipVendored
		}
	}
	if builtBundle(elems) {
		return SkipGenerated
	}
	base := strings.ToLower(elems[len(elems)-1])
	if lockFiles[elems[len(elems)-1]] {
		return SkipGenerated
	}
	for _, suf := range []string{".min.js", ".min.css", ".min.mjs", "-min.js", ".bundle.js", ".pb.go", "_pb2.py", ".map"} {
		if strings.HasSuffix(base, suf) {
			return SkipGenerated
		}
	}
	return ""
}

// contentSkip is the reason to skip a file by its first bytes, or "":
// a NUL byte (binary), the generated-code header in the leading comments
// (Go's convention, which other generators follow too), or a script or
// style sheet whose lines are too long for a person to have written.
func contentSkip(p string, head []byte) string {
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if generatedHeader(head) {
		return SkipGenerated
	}
	if minifiable(p) && longLines(head) {
		return SkipGenerated
	}
	return ""
}

// generatedHeader finds, among the comment lines before the first line
// of code, one that says "Code generated … DO NOT EDIT." exactly as the
// Go convention writes it (https://go.dev/s/generatedcode).
func generatedHeader(head []byte) bool {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		marker := headerCommentMarker(line)
		if marker == "" {
			return false // code begins: the header would have come before
		}
		text := bytes.TrimSpace(line[len(marker):])
		if bytes.HasPrefix(text, []byte("Code generated ")) &&
			(bytes.HasSuffix(text, []byte("DO NOT EDIT.")) || bytes.HasSuffix(text, []byte("DO NOT EDIT"))) {
			return true
		}
		if saysGenerated(strings.ToLower(string(text))) {
			return true
		}
	}
	return false
}

// saysGenerated reports a header comment, in lower case, that says in
// other words what Go's convention says: "# Auto generated by
// tools/make_width_tables.py", "// @generated", "This file was
// automatically generated", "generated by x, do not edit".
func saysGenerated(text string) bool {
	for _, p := range []string{"auto generated", "auto-generated", "autogenerated", "automatically generated", "@generated"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	if !strings.Contains(text, "generated") {
		return false
	}
	return strings.HasPrefix(text, "this file") || strings.HasPrefix(text, "this code") || strings.Contains(text, "do not edit")
}

// headerCommentMarker is the comment opener line starts with, or "".
func headerCommentMarker(line []byte) string {
	for _, m := range []string{"//", "/*", "<!--", "#", "--", ";", "*"} {
		if bytes.HasPrefix(line, []byte(m)) {
			return m
		}
	}
	return ""
}

// builtBundle reports a script, a style sheet or a type declaration under
// a dist directory: what a bundler wrote from the sources beside it
// (dist/node/axios.cjs from lib/), committed for those who install from
// git. Its functions copy the sources' and would answer "where is X?" in
// their place.
func builtBundle(elems []string) bool {
	base := strings.ToLower(elems[len(elems)-1])
	if !minifiable(base) && !declarationFile(base) {
		return false
	}
	for _, e := range elems[:len(elems)-1] {
		if strings.EqualFold(e, "dist") {
			return true
		}
	}
	return false
}

// declarationFile names a TypeScript declaration file (index.d.ts,
// index.d.cts, index.d.mts): the types of code written elsewhere.
func declarationFile(base string) bool {
	for _, suf := range []string{".d.ts", ".d.cts", ".d.mts"} {
		if strings.HasSuffix(strings.ToLower(base), suf) {
			return true
		}
	}
	return false
}

// minifiable names the files a minifier writes.
func minifiable(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".css", ".jsx":
		return true
	}
	return false
}

// longLines reports a head whose lines average over 300 bytes or which
// has one over 2,000: written by a minifier or a bundler, not a person.
func longLines(head []byte) bool {
	lines := bytes.Count(head, []byte{'\n'}) + 1
	if len(head)/lines > 300 {
		return true
	}
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			i = len(head)
		}
		if i > 2000 {
			return true
		}
		if i == len(head) {
			break
		}
		head = head[i+1:]
	}
	return false
}

// excludePattern is one of Options.Exclude, split into elements.
type excludePattern []string

func compileExcludes(globs []string) ([]excludePattern, error) {
	var out []excludePattern
	for _, g := range globs {
		s := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(g), "/"))
		if s == "" {
			continue
		}
		anchored := strings.Contains(s, "/")
		s = strings.TrimPrefix(s, "/")
		elems := strings.Split(s, "/")
		for _, e := range elems {
			if _, err := path.Match(e, ""); err != nil {
				return nil, fmt.Errorf("derive: exclude pattern %q: %v", g, err)
			}
		}
		if !anchored {
			elems = append([]string{"**"}, elems...)
		}
		out = append(out, elems)
	}
	return out, nil
}

// matchExcludes reports whether p or a directory above it matches one of
// the patterns.
func matchExcludes(ex []excludePattern, p string) bool {
	if len(ex) == 0 {
		return false
	}
	elems := strings.Split(p, "/")
	for _, pat := range ex {
		if matchPrefix(pat, elems) {
			return true
		}
	}
	return false
}

// matchPrefix reports whether pat matches elems or a leading part of them
// (a directory that holds the path).
func matchPrefix(pat, elems []string) bool {
	if len(pat) == 0 {
		return true // the pattern ended on a directory above the path (or the path itself)
	}
	if pat[0] == "**" {
		for i := 0; i <= len(elems); i++ {
			if matchPrefix(pat[1:], elems[i:]) {
				return true
			}
		}
		return false
	}
	if len(elems) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], elems[0]); !ok {
		return false
	}
	return matchPrefix(pat[1:], elems[1:])
}
