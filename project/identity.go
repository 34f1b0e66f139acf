package project

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/memory"
)

// The kinds of key a repository is known by (see Detect).
const (
	KindRepo   = "repo"   // the repository's first commit
	KindGitDir = "gitdir" // its common git directory
	KindPath   = "path"   // a work tree's (or a plain directory's) path
)

// Key is the key of kind for value: "kind:" and 16 hex digits of a hash
// of both, so that no path appears in the store's keys. A path key's
// digits are the id cairn gave a checkout before projects had keys.
func Key(kind, value string) string { return kind + ":" + id(kind+":"+value) }

// KeyID is the 16 hex digits of key, the id a project found by it would
// have had.
func KeyID(key string) string {
	_, h, _ := strings.Cut(key, ":")
	return h
}

// Conflicts reports whether stored is known to be another repository
// than the checkout p: both have a first commit and they differ. A
// directory that held one repository and now holds another, with the same
// path or git directory, is then not taken for it.
func Conflicts(stored, p memory.Project) bool {
	a, b := repoKey(stored), repoKey(p)
	return a != "" && b != "" && a != b
}

func repoKey(p memory.Project) string {
	for _, k := range p.Keys {
		if strings.HasPrefix(k, KindRepo+":") {
			return k
		}
	}
	return ""
}

// SeenEvery is how often a project's sighting of a checkout already
// listed is brought up to date: the "last seen" of cairn projects is
// that precise, and a command in a known checkout rarely writes.
const SeenEvery = time.Hour

// maxSeen bounds the checkouts a project lists (worktree-per-task makes
// many): the least recently seen go first.
const maxSeen = 32

// Sight records in stored that it was used from the checkout at root at
// now, and reports whether that changed stored: a new checkout, or one
// last seen more than SeenEvery ago. The list stays most recent first.
func Sight(stored *memory.Project, root string, now time.Time) bool {
	if root == "" {
		return false
	}
	i := slices.IndexFunc(stored.Seen, func(s memory.Sighting) bool { return s.Path == root })
	if i >= 0 && now.Sub(stored.Seen[i].LastSeen) < SeenEvery {
		return false
	}
	if i >= 0 {
		stored.Seen = slices.Delete(stored.Seen, i, i+1)
	}
	stored.Seen = slices.Insert(stored.Seen, 0, memory.Sighting{Path: root, LastSeen: now.UTC()})
	if len(stored.Seen) > maxSeen {
		stored.Seen = stored.Seen[:maxSeen]
	}
	return true
}

// Stale reports whether the store's record of a project lacks something
// the checkout p says of it — a key, or a recent enough sighting — so that
// EnsureProject has something to write.
func Stale(stored, p memory.Project, now time.Time) bool {
	for _, k := range p.Keys {
		if !slices.Contains(stored.Keys, k) {
			return true
		}
	}
	s := stored
	s.Seen = slices.Clone(stored.Seen)
	return Sight(&s, p.Root, now)
}

// firstCacheName is the file in the common git directory where the
// repository's first commit is kept once found: finding it walks the whole
// history, which on a large repository takes longer than a prompt hook
// may. The file goes with the repository (a new clone finds it again),
// and keeps the project's key when HEAD moves to an unrelated branch.
const firstCacheName = "cairn-first-commit"

// gitTimeout bounds the one git call that finds a first commit.
const gitTimeout = 10 * time.Second

// firstCommit is the oldest commit with no parent reachable from HEAD in
// the work tree at root, whose common git directory is common: from the
// cache file when there is one, else from git (and then cached). It is ""
// for a repository without a commit, a shallow clone (its oldest commit is
// where the copy was cut, not where the history began), or when git cannot
// say.
func firstCommit(root, common string) string {
	cache := filepath.Join(common, firstCacheName)
	if b, err := readSmall(cache); err == nil {
		if c := ObjectID(strings.TrimSpace(string(b))); c != "" {
			return c
		}
	}
	if _, err := os.Lstat(filepath.Join(common, "shallow")); err == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "-C", root, "rev-list", "--max-parents=0", "HEAD", "--")
	cmd.Env = gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return ""
	}
	first := ObjectID(lines[len(lines)-1]) // newest first: the last is the oldest
	if first != "" {
		writeCache(common, first)
	}
	return first
}

// gitEnv is this process's environment without the variables that would
// point git at another repository than the one asked about (a hook run
// from inside a git hook has GIT_DIR set).
func gitEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, v := range []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_COMMON_DIR=", "GIT_INDEX_FILE="} {
			if strings.HasPrefix(kv, v) {
				return true
			}
		}
		return false
	})
}

// writeCache writes the first commit beside the repository's own files,
// under a new name renamed over the old: a reader never sees half a line.
// A repository cairn may not write to is asked again next time.
func writeCache(common, first string) {
	f, err := os.CreateTemp(common, firstCacheName+".*")
	if err != nil {
		return
	}
	_, werr := f.WriteString(first + "\n")
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(common, firstCacheName)) != nil {
		os.Remove(f.Name())
	}
}

// Getter reads a stored project by its id or one of its keys' ids
// (memory.Store's Project).
type Getter interface {
	Project(ctx context.Context, id string) (memory.Project, error)
}

// Find is the stored project of the checkout p (from Detect) without
// writing: the one its id or one of its keys names, in the keys' order,
// unless that one is another repository (Conflicts) — the one the store's
// EnsureProject finds. A lookup of p.ID alone misses a project known by an older key (a
// checkout's path before the repository's first commit was known).
func Find(ctx context.Context, st Getter, p memory.Project) (memory.Project, bool, error) {
	ids := []string{p.ID}
	for _, k := range p.Keys {
		if id := KeyID(k); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		stored, err := st.Project(ctx, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return p, false, err
		}
		if !Conflicts(stored, p) {
			return stored, true, nil
		}
	}
	return p, false, nil
}
