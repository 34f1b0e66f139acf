package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// A home on a disk that filled up while cairn was not running: every
// command that reads works, and a command that writes fails with one line
// that says the disk is full, until space is freed. Before, the store did
// not open at all on a full disk, so `cairn list` failed too.
func TestFullDiskKeepsReadsWorking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mnt := filepath.Join(filepath.Dir(e.home), "disk")
	testenv.Tmpfs(t, mnt, 128)
	e.home = filepath.Join(mnt, "home")
	a := e.rec("remember", "Deploys go through ArgoCD", "--layer", "invariant")
	e.ok("remember", "Release v0.6.1 is out", "-l", "B")

	filler := filepath.Join(mnt, "filler")
	testenv.Fill(t, filler)

	if n := len(e.list()); n != 2 {
		t.Fatalf("list on a full disk: %d memories, want 2", n)
	}
	if got := e.rec("show", a.ID); got.Body != a.Body {
		t.Fatalf("show on a full disk: %+v", got)
	}
	if out := e.ok("timeline"); !strings.Contains(out, "ArgoCD") {
		t.Fatalf("timeline on a full disk:\n%s", out)
	}
	e.ok("projects")
	for _, args := range [][]string{
		{"remember", "a fact on a full disk"},
		{"edit", a.ID, "Deploys go through Flux"},
		{"archive", a.ID},
	} {
		r := e.run("", args...)
		want := "the disk holding " + filepath.Join(e.home, "store") + " is full"
		if r.code == 0 || !strings.Contains(r.err, want) || !strings.Contains(r.err, "free space and retry; nothing was lost") ||
			strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
			t.Errorf("cairn %s on a full disk: exit %d, stderr %q; want one line: %s … free space and retry; nothing was lost",
				strings.Join(args, " "), r.code, r.err, want)
		}
	}
	if rs := e.list(); len(rs) != 2 || e.rec("show", a.ID).Body != a.Body {
		t.Fatalf("the refused writes changed the store: %+v", rs)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.ok("remember", "a fact after space was freed")
	if n := len(e.list()); n != 3 {
		t.Fatalf("list after freeing space: %d memories, want 3", n)
	}
}
