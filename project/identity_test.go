package project

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"cairn/internal/testenv"
)

func detect(t *testing.T, dir string) (id string, keys []string, name string) {
	t.Helper()
	p, err := Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID, p.Keys, p.Name
}

// A worktree, a clone and a moved checkout of one repository are one
// project (its first commit); another repository is another; a directory
// outside git keeps the id cairn always gave it.
func TestDetectKnowsTheRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "shop")
	first := testenv.GitRepo(t, repo, "a")
	os.WriteFile(filepath.Join(repo, "b.txt"), []byte("b\n"), 0o644)
	testenv.Git(t, repo, "add", ".")
	testenv.Git(t, repo, "commit", "-q", "-m", "second")

	main, mainKeys, name := detect(t, repo)
	if main != KeyID(Key(KindRepo, first)) || name != "shop" || mainKeys[0] != Key(KindRepo, first) {
		t.Fatalf("the main checkout: id %s name %s keys %v, want the first commit %s's", main, name, mainKeys, first)
	}
	wt := filepath.Join(root, "task-1")
	testenv.Git(t, repo, "worktree", "add", "-q", "-b", "task-1", wt)
	sub := filepath.Join(wt, "deep")
	os.Mkdir(sub, 0o755)
	id, keys, name := detect(t, sub)
	if id != main || name != "shop" {
		t.Fatalf("a worktree: id %s name %s, want %s shop", id, name, main)
	}
	// The worktree shares the git directory and names the main checkout's
	// path (which finds a project a store kept by that path).
	for _, k := range []string{mainKeys[1], Key(KindPath, repo), Key(KindPath, wt)} {
		if !slices.Contains(keys, k) {
			t.Errorf("the worktree's keys %v lack %s", keys, k)
		}
	}

	clone := filepath.Join(root, "shop-again")
	testenv.Git(t, root, "clone", "-q", repo, clone)
	if id, keys, _ := detect(t, clone); id != main || slices.Contains(keys, mainKeys[1]) {
		t.Fatalf("a clone: id %s keys %v, want %s and its own git directory", id, keys, main)
	}
	moved := filepath.Join(root, "elsewhere", "shop")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(clone, moved); err != nil {
		t.Fatal(err)
	}
	if id, _, _ := detect(t, moved); id != main {
		t.Fatalf("a moved checkout: id %s, want %s", id, main)
	}

	other := filepath.Join(root, "other")
	testenv.GitRepo(t, other, "z")
	if id, _, _ := detect(t, other); id == main {
		t.Fatal("an unrelated repository got the first one's id")
	}

	plain := filepath.Join(root, "notes")
	os.Mkdir(plain, 0o755)
	id, keys, _ = detect(t, plain)
	if id != Key(KindPath, plain)[len(KindPath)+1:] || id != old(plain) || len(keys) != 1 {
		t.Fatalf("a plain directory: id %s keys %v, want the path's id %s", id, keys, old(plain))
	}
}

// old is the id cairn gave a directory before projects had keys.
func old(path string) string { return id("path:" + path) }

// A repository without a commit is known by its git directory, and keeps
// that key once it has one; a shallow clone is not taken for the
// repository it was cut from (its oldest commit is not the first).
func TestDetectWithoutAFirstCommit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "fresh")
	os.Mkdir(repo, 0o755)
	testenv.Git(t, repo, "init", "-q", "-b", "main")
	id, keys, _ := detect(t, repo)
	if len(keys) != 2 || id != KeyID(keys[0]) || keys[0][:len(KindGitDir)] != KindGitDir {
		t.Fatalf("a repository without a commit: id %s keys %v, want its git directory's", id, keys)
	}
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	testenv.Git(t, repo, "add", ".")
	testenv.Git(t, repo, "commit", "-q", "-m", "one")
	testenv.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	_, after, _ := detect(t, repo)
	if !slices.Contains(after, keys[0]) || after[0][:len(KindRepo)] != KindRepo {
		t.Fatalf("after a commit: keys %v, want the first commit's and %s", after, keys[0])
	}
	shallow := filepath.Join(root, "shallow")
	testenv.Git(t, root, "clone", "-q", "--depth", "1", "file://"+repo, shallow)
	if _, keys, _ := detect(t, shallow); keys[0][:len(KindGitDir)] != KindGitDir {
		t.Fatalf("a shallow clone: keys %v, want no first commit", keys)
	}
}

// Once found, the first commit comes from the cache in the git directory:
// no git process (here none could start). A cache that is no object name,
// a FIFO or a link to a device is not believed, never waited on, and is
// replaced by git's answer.
func TestFirstCommitCache(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "r")
	first := testenv.GitRepo(t, repo, "a")
	want := Key(KindRepo, first)
	cache := filepath.Join(repo, ".git", firstCacheName)
	hostile := map[string]func() error{
		"junk":        func() error { return os.WriteFile(cache, []byte("not a commit\n"), 0o644) },
		"other":       func() error { return os.WriteFile(cache, []byte("zz"+first[2:]+"\n"), 0o644) },
		"FIFO":        func() error { return syscall.Mkfifo(cache, 0o644) },
		"/dev/zero":   func() error { return os.Symlink("/dev/zero", cache) },
		"a directory": func() error { return os.Mkdir(cache, 0o755) },
	}
	for what, make := range hostile {
		os.RemoveAll(cache)
		if err := make(); err != nil {
			t.Fatal(err)
		}
		if _, keys, _ := detect(t, repo); keys[0] != want {
			t.Fatalf("a cache that is %s: keys %v, want %s first", what, keys, want)
		}
		if what == "a directory" {
			continue // not replaced, asked again each time
		}
		if b, err := os.ReadFile(cache); err != nil || string(b) != first+"\n" {
			t.Fatalf("a cache that was %s: now %q, %v; want git's answer", what, b, err)
		}
	}
	os.RemoveAll(cache)
	if _, keys, _ := detect(t, repo); keys[0] != want {
		t.Fatalf("keys %v, want %s first", keys, want)
	}
	t.Setenv("PATH", "")
	if _, keys, _ := detect(t, repo); keys[0] != want {
		t.Fatalf("with git out of reach, keys %v: the cache did not answer", keys)
	}
	os.Remove(cache)
	if _, keys, _ := detect(t, repo); keys[0] == want {
		t.Fatal("with no cache and no git, a first commit was still found")
	}
}

// BenchmarkDetectWorktree is what every hook pays to know its project: a
// worktree's keys with the first commit cached (no git process).
func BenchmarkDetectWorktree(b *testing.B) {
	root := b.TempDir()
	repo := filepath.Join(root, "r")
	testenv.GitRepo(b, repo, "a")
	wt := filepath.Join(root, "wt")
	testenv.Git(b, repo, "worktree", "add", "-q", "-b", "wt", wt)
	if _, err := Detect(wt); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if p, err := Detect(wt); err != nil || p.Keys[0][:len(KindRepo)] != KindRepo {
			b.Fatal(p, err)
		}
	}
}
