package trust

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
)

// A git scope's object at HEAD (the tree of a directory) is a function of
// the commit HEAD names: while HEAD names the same commit, the objects
// resolved at it last time still hold, and a wake check runs no git at
// all. HEAD is read from the repository's files; whatever is unusual
// there (a reftable, a symbolic ref to another symbolic ref, no .git in
// the root) is left to git itself, every time.

// gitTrees is the object of every scope at HEAD; a scope missing from
// HEAD is absent from the result.
func (c *Checker) gitTrees(ctx context.Context, scopes []string) (map[string]string, error) {
	head := headCommit(c.Root)
	if head != "" {
		if trees, ok := c.keptTrees(head, scopes); ok {
			return trees, nil
		}
	}
	trees, err := c.gitObjects(ctx, scopes)
	// Kept only when HEAD named the same commit before and after git
	// resolved them: a commit or checkout meanwhile leaves nothing kept.
	if err == nil && head != "" && headCommit(c.Root) == head {
		c.keepTrees(head, scopes, trees)
	}
	return trees, err
}

// keptTrees answers from the kept objects when every scope was resolved
// at head.
func (c *Checker) keptTrees(head string, scopes []string) (map[string]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadFiles()
	if c.head != head {
		return nil, false
	}
	out := map[string]string{}
	for _, s := range scopes {
		obj, ok := c.trees[s]
		if !ok {
			return nil, false
		}
		if obj != "" {
			out[s] = obj
		}
	}
	return out, true
}

func (c *Checker) keepTrees(head string, scopes []string, trees map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head != head {
		c.head, c.trees = head, map[string]string{}
	}
	for _, s := range scopes {
		if _, ok := c.revPath(s); ok {
			c.trees[s] = trees[s]
		}
	}
	c.dirty = true
}

// headCommit is the commit HEAD names, read from the repository's files
// at root, or "" when they do not say it plainly.
func headCommit(root string) string {
	if root == "" {
		return ""
	}
	gitDir, common := filepath.Join(root, ".git"), ""
	fi, err := os.Lstat(gitDir)
	switch {
	case err != nil:
		return ""
	case fi.Mode().IsRegular(): // a linked work tree or a submodule: "gitdir: PATH"
		b, err := os.ReadFile(gitDir)
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if err != nil || !ok || d == "" {
			return ""
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		gitDir = d
		common = gitDir
		if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			if common = strings.TrimSpace(string(b)); !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
		}
	case fi.IsDir():
		common = gitDir
	default:
		return ""
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(b))
	ref, symbolic := strings.CutPrefix(h, "ref: ")
	if !symbolic {
		return objectID(h) // detached
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") || strings.ContainsAny(ref, "\\\x00") {
		return ""
	}
	for _, d := range uniqueStrings([]string{gitDir, common}) {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return objectID(strings.TrimSpace(string(b)))
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if id, name, ok := bytes.Cut(sc.Bytes(), []byte{' '}); ok && string(name) == ref {
			return objectID(string(id))
		}
	}
	return ""
}

// objectID is s when it is a full object name (SHA-1 or SHA-256), else "".
func objectID(s string) string {
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
