package project

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"cairn/internal/safefile"
)

// Head is the commit HEAD names, read from the repository's files at root
// (the top of a work tree), or "" when they do not say it plainly — no
// .git at root, a reftable, a symbolic ref to another — and git must be
// asked. Reading the files is what lets a command check HEAD without
// starting a git process.
func Head(root string) string {
	gitDir, common, ok := gitDirs(root)
	if !ok {
		return ""
	}
	b, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(b))
	ref, symbolic := strings.CutPrefix(h, "ref: ")
	if !symbolic {
		return ObjectID(h) // detached
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") || strings.ContainsAny(ref, "\\\x00") {
		return ""
	}
	for _, d := range []string{gitDir, common} {
		if b, err := readSmall(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return ObjectID(strings.TrimSpace(string(b)))
		}
	}
	packed := filepath.Join(common, "packed-refs")
	if fi, err := os.Lstat(packed); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, _, err := safefile.OpenRegular(func(flag int) (*os.File, error) { return os.OpenFile(packed, flag, 0) }, "")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if id, name, ok := bytes.Cut(sc.Bytes(), []byte{' '}); ok && string(name) == ref {
			return ObjectID(string(id))
		}
	}
	return ""
}

// ObjectID is s when it is a full object name (SHA-1 or SHA-256), else "".
func ObjectID(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return s
}

// gitDirs reads where the work tree at root keeps its git directory and
// the common one its linked work trees share, from root/.git (a directory,
// or a file "gitdir: PATH" in a linked work tree or a submodule), without
// starting git. ok is false when root has no .git it can read.
func gitDirs(root string) (gitDir, common string, ok bool) {
	if root == "" {
		return "", "", false
	}
	gitDir = filepath.Join(root, ".git")
	fi, err := os.Lstat(gitDir)
	switch {
	case err != nil:
		return "", "", false
	case fi.IsDir():
		return gitDir, gitDir, true
	case !fi.Mode().IsRegular():
		return "", "", false
	}
	b, err := readSmall(gitDir)
	d, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if err != nil || !found || d == "" {
		return "", "", false
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(root, d)
	}
	gitDir, common = filepath.Clean(d), filepath.Clean(d)
	if b, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		if common = strings.TrimSpace(string(b)); !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		common = filepath.Clean(common)
	}
	return gitDir, common, true
}

// readSmall reads a file git (or cairn) writes a line into: a .git file,
// a commondir, HEAD, a loose ref, the cached first commit. Whatever sits
// there instead — a FIFO, a device, a link to one, megabytes — is refused,
// never waited on or read whole.
func readSmall(name string) ([]byte, error) {
	b, _, err := safefile.ReadFile(name, 64<<10, "git file", "cairn reads it without git only when it is a plain file")
	return b, err
}
