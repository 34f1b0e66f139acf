package consolidate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/consolidate/extract"
)

// The README's correction, through the real binary: a remembered port,
// the person's "no, the port is 8081, not 8080", a consolidation. The 8080
// fact is superseded, recall answers 8081, and no lesson fires on a word
// every prompt holds.
func TestReadmeCorrectionThroughTheBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "cairn")
	build := exec.Command("go", "build", "-o", bin, "cairn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, out)
	}
	home, work := filepath.Join(root, "home"), filepath.Join(root, "proj")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waitOwnerGone(t, home) })
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Env = append(os.Environ(), "CAIRN_HOME="+home, "HOME="+root, "CAIRN_IDLE=300ms", "NO_COLOR=1")
		c.Dir = work
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			t.Fatalf("cairn %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String()
	}
	run("remember", "The API port is 8080.")
	run("capture", "no, the port is 8081, not 8080")
	run("consolidate")

	var active []struct {
		Title, Body string
		Kind        string
		Triggers    []string
	}
	if err := json.Unmarshal([]byte(run("list", "--json")), &active); err != nil {
		t.Fatal(err)
	}
	for _, m := range active {
		if strings.Contains(m.Title+m.Body, "8080") && !strings.Contains(m.Title+m.Body, "8081") {
			t.Errorf("the 8080 fact is still active: %q", m.Title)
		}
		if m.Kind == "lesson" {
			for _, tr := range m.Triggers {
				if !extract.SpecificTrigger(tr) {
					t.Errorf("lesson %q fires on %q", m.Title, tr)
				}
			}
		}
	}
	if got := run("recall", "what port does the API listen on"); !strings.Contains(got, "8081") {
		t.Errorf("recall does not answer 8081:\n%s", got)
	}
	if got := run("list", "--status", "superseded"); !strings.Contains(got, "8080") {
		t.Errorf("the 8080 fact is not among the superseded:\n%s", got)
	}
}

// waitOwnerGone waits for the on-demand server the binary started to exit
// after its idle timeout, and kills it (by its pid) if it does not.
func waitOwnerGone(t *testing.T, home string) {
	b, err := os.ReadFile(filepath.Join(home, "store", "owner.json"))
	if err != nil {
		return
	}
	var o struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(b, &o) != nil || o.PID <= 0 {
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if syscall.Kill(o.PID, 0) != nil {
			return
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", o.PID)); err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(o.PID, syscall.SIGKILL)
			t.Errorf("the cairn server (pid %d) outlived its idle timeout", o.PID)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
