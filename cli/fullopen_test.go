package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A home on a disk that filled up while cairn was not running: every
// command that reads works, and a command that writes fails with one line
// that says the disk is full, until space is freed. Before, the store did
// not open at all on a full disk, so `cairn list` failed too.
func TestFullDiskKeepsReadsWorking(t *testing.T) {
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must run this test: %s", why)
		}
		t.Skipf("needs a small disk: %s (run as root to test a full disk)", why)
	}
	if os.Geteuid() != 0 {
		skip("not root, cannot mount a tmpfs")
	}
	e := newEnv(t)
	mnt := filepath.Join(filepath.Dir(e.home), "disk")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=128m,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		skip(fmt.Sprintf("mount -t tmpfs refused: %v %s", err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", mnt, err, out)
		}
	})
	e.home = filepath.Join(mnt, "home")
	a := e.rec("remember", "Deploys go through ArgoCD", "--layer", "invariant")
	e.ok("remember", "Release v0.6.1 is out", "-l", "B")

	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 1<<20))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}

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
