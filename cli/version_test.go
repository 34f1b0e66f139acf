package cli

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// gitOut is git's answer in the repository's root, "" when git fails
// (no git, or a copy of the source without .git).
func gitOut(args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", ".."}, args...)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// The binary `make build` leaves names its release and commit: the commit
// git says the checkout is at, marked +modified when the work tree
// differs from it; in a copy of the source without git, it says that no
// commit was recorded and how to get one.
func TestVersionOfTheMakeBuild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Missing(t, "make is not installed")
	}
	head := gitOut("rev-parse", "HEAD")
	dirtyBefore := gitOut("status", "--porcelain") != ""
	bin := filepath.Join(t.TempDir(), "cairn")
	if out, err := exec.Command("make", "-C", "..", "build", "BIN="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	dirtyAfter := gitOut("status", "--porcelain") != ""
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("cairn --version: %v", err)
	}
	v := string(out)
	goPart := " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if !strings.HasSuffix(v, goPart) {
		t.Fatalf("cairn --version = %q, want it to end with the Go that built it%q", v, goPart)
	}
	if head == "" {
		if v != "cairn devel, "+noCommit+goPart {
			t.Fatalf("built outside git: cairn --version = %q, want the text that no commit was recorded", v)
		}
		return
	}
	release := "devel"
	if d := gitOut("describe", "--tags", "--dirty"); d != "" {
		release = d
	}
	m := regexp.MustCompile(`^cairn (\S+) commit ([0-9a-f]{12})(\+modified)? \(`).FindStringSubmatch(v)
	if m == nil || m[2] != head[:12] {
		t.Fatalf("cairn --version = %q, want release %s and commit %s", v, release, head[:12])
	}
	if dirtyBefore == dirtyAfter && (m[3] != "") != dirtyBefore {
		t.Errorf("cairn --version = %q, but the work tree differs from the commit: %v", v, dirtyBefore)
	}
	if !strings.HasPrefix(m[1], strings.TrimSuffix(release, "-dirty")) {
		t.Errorf("cairn --version = %q, want the release %q (git describe --tags)", v, release)
	}
}

// A plain go build under this Makefile's GOFLAGS (-buildvcs=false) records
// no commit: --version says so, and names make build, instead of a bare
// "devel".
func TestVersionOfAPlainBuild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "cairn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-v").Output()
	if err != nil {
		t.Fatalf("cairn -v: %v", err)
	}
	want := "cairn devel, no commit recorded — make build records it (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if string(out) != want {
		t.Fatalf("cairn -v = %q, want %q", out, want)
	}
}
