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

// Detect returns the project for dir: the root of the git repository that
// holds it (a .git directory or file), else dir itself. The id is a hash of
// the cleaned absolute root path, so it is stable for as long as the
// repository stays where it is; the name is the root's base name.
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
	if name == string(filepath.Separator) || name == "." {
		name = "root"
	}
	return memory.Project{ID: id("path:" + root), Name: name, Root: root}, nil
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
