package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HEAD read from the repository's files is what git says it is: a branch
// in a loose ref, in packed refs, a detached HEAD, a linked work tree; and
// nothing where the files do not say it plainly.
func TestHeadAsGitSaysIt(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(root, "add", "-A")
		git(root, "commit", "-q", "-m", name)
	}
	same := func(state, dir string) {
		t.Helper()
		if got, want := Head(dir), git(dir, "rev-parse", "HEAD"); got != want {
			t.Fatalf("%s: HEAD read as %q, git says %q", state, got, want)
		}
	}
	git(root, "init", "-q", "-b", "main")
	commit("a.txt")
	same("a loose ref", root)
	git(root, "pack-refs", "--all")
	same("packed refs", root)
	commit("b.txt")
	same("a new commit over packed refs", root)
	git(root, "checkout", "-q", "--detach", "HEAD~1")
	same("a detached HEAD", root)
	git(root, "checkout", "-q", "main")
	wt := filepath.Join(t.TempDir(), "wt")
	git(root, "worktree", "add", "-q", "-b", "side", wt, "HEAD~1")
	same("a linked work tree", wt)
	same("the main work tree beside it", root)
	if got := Head(t.TempDir()); got != "" {
		t.Fatalf("a directory without .git: HEAD read as %q", got)
	}
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	if got := Head(filepath.Join(root, "sub")); got != "" {
		t.Fatalf("a directory inside the work tree: HEAD read as %q (git decides there)", got)
	}
}
