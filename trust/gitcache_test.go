package trust

import (
	"path/filepath"
	"testing"

	"cairn/memory"
)

// HEAD read from the repository's files is what git says it is: a branch
// in a loose ref, in packed refs, a detached HEAD, a linked work tree; and
// nothing where the files do not say it plainly.
func TestHeadCommitAsGitSaysIt(t *testing.T) {
	r := newRepo(t)
	same := func(state, root string) {
		t.Helper()
		want := r.git("-C", root, "rev-parse", "HEAD")
		if got := headCommit(root); got != want {
			t.Fatalf("%s: HEAD read as %q, git says %q", state, got, want)
		}
	}
	same("a loose ref", r.root)
	r.git("pack-refs", "--all")
	same("packed refs", r.root)
	r.write("b.txt", "b\n")
	r.commit("b")
	same("a new commit over packed refs", r.root)
	r.git("checkout", "-q", "--detach", "HEAD~1")
	same("a detached HEAD", r.root)
	r.git("checkout", "-q", "main")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "side", wt, "HEAD~1")
	same("a linked work tree", wt)
	same("the main work tree beside it", r.root)
	if got := headCommit(t.TempDir()); got != "" {
		t.Fatalf("a directory without .git: HEAD read as %q", got)
	}
	if got := headCommit(filepath.Join(r.root, "bench")); got != "" {
		t.Fatalf("a directory inside the work tree: HEAD read as %q (git decides there)", got)
	}
}

// The objects a process resolved at HEAD are used by the next while HEAD
// names the same commit: a commit that changes a directory is noticed,
// and so is a checkout back to the stamped commit.
func TestKeptTreesFollowHead(t *testing.T) {
	r, _ := benchRepo(t)
	keep := t.TempDir()
	m := &memory.Memory{Confidence: 0.9, Watermarks: keptChecker(r.root, keep).Bind(ctx, "everything under bench/ is generated")}
	if len(m.Watermarks) != 1 || m.Watermarks[0].Kind != memory.WatermarkGit {
		t.Fatalf("bound to %+v", m.Watermarks)
	}
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkIntact {
		t.Fatalf("nothing changed: %s", got)
	}
	stamped := r.git("rev-parse", "HEAD")
	r.write("bench/b.txt", "new\n")
	r.commit("b")
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkMoved {
		t.Fatalf("a commit under bench/: %s in the next process, want moved", got)
	}
	r.git("checkout", "-q", "--detach", stamped)
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkIntact {
		t.Fatalf("back at the stamped commit: %s in the next process, want intact", got)
	}
}
