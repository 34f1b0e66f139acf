// Package project works out which scope a cairn command acts in: the git
// repository around the working directory, a project named explicitly, or
// the user-wide global scope.
package project

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/memory"
)

// Detect returns the project for dir: the repository whose work tree
// holds it (the nearest directory with a .git, a directory or a file),
// else dir itself. A repository is known by its keys, most lasting first:
// its first commit (shared by every clone, worktree and moved checkout of
// it), its common git directory (shared by its worktrees, and all a
// repository without a commit has) and the work tree's path (all a
// directory outside git has, and what cairn knew projects by before; a
// linked worktree adds its main checkout's). The
// id is the first key's; the store finds a project by any of its keys
// (see memory.Project.Keys), so a project known by a weaker key keeps its
// id when a stronger one appears. Root is the work tree; the name is its
// base name, or the main work tree's for a linked worktree.
func Detect(dir string) (memory.Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return memory.Project{}, fmt.Errorf("find project of %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := GitRoot(abs)
	if root == "" {
		root = abs
	}
	name := filepath.Base(root)
	var keys []string
	if gitDir, common, ok := gitDirs(root); ok {
		if real, err := filepath.EvalSymlinks(common); err == nil {
			common = real
		}
		if first := firstCommit(root, common); first != "" {
			keys = append(keys, Key(KindRepo, first))
		}
		keys = append(keys, Key(KindGitDir, common))
		keys = append(keys, Key(KindPath, root))
		if gitDir != common && filepath.Base(common) == ".git" {
			// A linked worktree: the repository's name, and the main
			// checkout's path last, which finds the project a store kept
			// by that path before it learnt the repository's keys.
			main := filepath.Dir(common)
			name = filepath.Base(main)
			keys = append(keys, Key(KindPath, main))
		}
	} else {
		keys = append(keys, Key(KindPath, root))
	}
	if name == string(filepath.Separator) || name == "." {
		name = "root"
	}
	return memory.Project{ID: KeyID(keys[0]), Name: name, Root: root, Keys: keys}, nil
}

// WindowsPath reports whether p is an absolute Windows path ("C:\\Users\\x",
// "D:/work", "\\\\server\\share"), as a session recorded on Windows names
// its working directory.
func WindowsPath(p string) bool {
	return len(p) >= 3 && (p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/') ||
		strings.HasPrefix(p, `\\`) && len(p) > 2
}

// Foreign is the project of a working directory written on another system
// than this one (a Windows path read on Linux or macOS): nothing of it can
// be looked at here, so it is known by its path, spelt one way (forward
// slashes, the drive letter in upper case), and named by its last element.
func Foreign(path string) memory.Project {
	p := strings.ReplaceAll(strings.TrimRight(path, `\/`), `\`, "/")
	if len(p) >= 2 && p[1] == ':' {
		p = strings.ToUpper(p[:1]) + p[1:]
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	if name == "" || strings.HasSuffix(name, ":") {
		name = "root"
	}
	key := Key(KindPath, p)
	return memory.Project{ID: KeyID(key), Name: name, Root: path, Keys: []string{key}}
}

// GitRoot returns the nearest directory at or above dir that holds .git, or "".
func GitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Named returns the project for an explicit name. "global" is the
// user-wide scope.
func Named(name string) (memory.Project, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "/\\\x00\n") {
		return memory.Project{}, fmt.Errorf("invalid project name %q: use a plain name without slashes", name)
	}
	if strings.EqualFold(name, memory.GlobalName) {
		return Global(), nil
	}
	return memory.Project{ID: id("name:" + name), Name: name}, nil
}

// Global is the user-wide scope.
func Global() memory.Project {
	return memory.Project{ID: memory.GlobalID, Name: memory.GlobalName}
}

func id(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
