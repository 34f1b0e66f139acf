package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWorkbenchInTmux runs ui/testdata/tmux_e2e.sh: the real binary in a
// real terminal, a /remember and a confirmed forget, checked in the store.
func TestWorkbenchInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make test installs it): skipping the terminal test")
	}
	h := newHome(t)
	script, _ := filepath.Abs("../ui/testdata/tmux_e2e.sh")
	cmd := exec.Command("bash", script, bin, h.work)
	cmd.Env = h.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
