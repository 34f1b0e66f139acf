package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// TestVerifyFirstThroughTheCLI is scenario 1 of the trust issue end to end:
// a fact bound to a file in a real repository goes to the verify-first
// queue when the file changes, recall stops serving it as current, and a
// confirmation brings it back.
func TestVerifyFirstThroughTheCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	gitIn(t, e.wd, "init", "-q", "-b", "main")
	gitIn(t, e.wd, "config", "user.email", "t@example.com")
	gitIn(t, e.wd, "config", "user.name", "t")
	os.MkdirAll(filepath.Join(e.wd, "bench"), 0o755)
	os.MkdirAll(filepath.Join(e.wd, "docs"), 0o755)
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
	os.WriteFile(filepath.Join(e.wd, "docs", "a.md"), []byte("a\n"), 0o644)
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-q", "-m", "bench")

	m := e.rec("remember", "+229 % decode speed, measured in bench/decode.txt", "--provenance", "measured")
	if len(m.Watermarks) != 1 || m.Watermarks[0].Target != "bench/decode.txt" {
		t.Fatalf("not bound automatically: %+v", m.Watermarks)
	}
	if strings.TrimSpace(e.ok("verify")) != "nothing to verify: every memory is trusted as current" {
		t.Fatalf("queue not empty at first")
	}
	// A docs-only commit changes nothing.
	os.WriteFile(filepath.Join(e.wd, "docs", "a.md"), []byte("b\n"), 0o644)
	gitIn(t, e.wd, "commit", "-qam", "docs")
	if q := e.ok("verify"); !strings.Contains(q, "nothing to verify") {
		t.Fatalf("docs-only commit queued it:\n%s", q)
	}
	// The bound file changes.
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+31 %\n"), 0o644)
	gitIn(t, e.wd, "commit", "-qam", "numbers")
	q := e.ok("verify")
	if !strings.Contains(q, m.ID) || !strings.Contains(q, "bench/decode.txt: content changed since") {
		t.Fatalf("queue:\n%s", q)
	}
	var rec struct {
		Results     []memory.Record `json:"results"`
		VerifyFirst []memory.Record `json:"verify_first"`
	}
	json.Unmarshal([]byte(e.ok("recall", "decode speed", "--json")), &rec)
	if len(rec.Results) != 0 || len(rec.VerifyFirst) != 1 || rec.VerifyFirst[0].Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("recall served a moved fact as current: %+v", rec)
	}
	if tl := e.ok("timeline"); !strings.Contains(tl, "content changed") {
		t.Fatalf("the wake check left no trace on the timeline:\n%s", tl)
	}
	e.ok("verify", "confirm", m.ID)
	if q := e.ok("verify"); !strings.Contains(q, "nothing to verify") {
		t.Fatalf("confirm did not restore trust:\n%s", q)
	}
	// Bindings that do not resolve are refused; rebind replaces them.
	if r := e.run("", "remember", "x", "--bind", "file:src/does/not/exist.go"); r.code != 1 || !strings.Contains(r.err, "does not resolve") {
		t.Fatalf("unresolvable binding: %+v", r)
	}
	got := e.rec("verify", "rebind", m.ID, "git:bench/")
	if len(got.Watermarks) != 1 || got.Watermarks[0].Kind != memory.WatermarkGit || got.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("rebind: %+v", got.Watermarks)
	}
	none := e.rec("remember", "mentions src/does/not/exist.go only", "--bind", "none")
	if len(none.Watermarks) != 1 || none.Watermarks[0].Kind != memory.WatermarkNone {
		t.Fatalf("--bind none: %+v", none.Watermarks)
	}
}
