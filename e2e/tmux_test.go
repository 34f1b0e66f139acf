package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
)

// tmuxScript runs one of ui/testdata's tmux scripts against the real
// binary in a fresh home: a real terminal, what a person sees.
func tmuxScript(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Missing(t, "tmux is not installed (make test installs it; apt-get install -y tmux): the terminal test needs it")
	}
	h := newHome(t)
	script, _ := filepath.Abs(filepath.Join("../ui/testdata", name))
	cmd := exec.Command("bash", script, bin, h.work)
	cmd.Env = h.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestWorkbenchInTmux: a /remember and a confirmed forget, checked in the store.
func TestWorkbenchInTmux(t *testing.T) { tmuxScript(t, "tmux_e2e.sh") }

// TestWorkbenchWithAnotherWriterInTmux: another shell writes while the
// workbench is open; a archives the selected memory, and a body's escape
// sequence does not retitle the terminal (issue 10 items 16 and 3).
func TestWorkbenchWithAnotherWriterInTmux(t *testing.T) { tmuxScript(t, "tmux_other_writer.sh") }

// TestInboxInTmux: drafts captured by the CLI wait in the Inbox;
// /consolidate supersedes the corrected fact and /undo takes it back
// (issue 11).
func TestInboxInTmux(t *testing.T) { tmuxScript(t, "tmux_inbox.sh") }
