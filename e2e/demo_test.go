package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDemoCleansUpWhenTheTerminalGoes: cairn demo in a real terminal
// (tmux) removes its temporary store when the terminal is closed (the
// kernel sends SIGHUP), when sent SIGHUP, and when sent SIGTERM.
func TestDemoCleansUpWhenTheTerminalGoes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed, and CI needs the terminal test: apt-get install -y tmux")
		}
		t.Skip("tmux is not installed (make test installs it): skipping the terminal test")
	}
	for _, c := range []struct {
		name string
		end  func(t *testing.T, tmux func(...string) string, pid int)
	}{
		{"terminal closed", func(t *testing.T, tmux func(...string) string, pid int) { tmux("kill-server") }},
		{"SIGHUP", func(t *testing.T, tmux func(...string) string, pid int) { syscall.Kill(pid, syscall.SIGHUP) }},
		{"SIGTERM", func(t *testing.T, tmux func(...string) string, pid int) { syscall.Kill(pid, syscall.SIGTERM) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			tmp := t.TempDir() // the demo's TMPDIR: what it leaves behind shows here
			sock := filepath.Join(t.TempDir(), "tmux")
			tmux := func(args ...string) string {
				out, _ := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
				return string(out)
			}
			t.Cleanup(func() { tmux("kill-server") })
			tmux("new-session", "-d", "-x", "100", "-y", "30", "-c", h.work,
				"exec env TMPDIR='"+tmp+"' CAIRN_HOME='"+h.dir+"' NO_COLOR=1 '"+bin+"' demo")
			pid, _ := strconv.Atoi(strings.TrimSpace(tmux("list-panes", "-F", "#{pane_pid}")))
			if pid <= 0 {
				t.Fatalf("no pane: %s", tmux("list-panes"))
			}
			waitUntil(t, "the demo shows its memories", func() bool {
				return strings.Contains(tmux("capture-pane", "-p"), "Never commit .env files")
			})
			if left, _ := filepath.Glob(filepath.Join(tmp, "cairn-demo-*")); len(left) != 1 {
				t.Fatalf("the running demo's store: %v", left)
			}
			c.end(t, tmux, pid)
			waitUntil(t, "the demo exits", func() bool { return !alive(pid) })
			if left, _ := filepath.Glob(filepath.Join(tmp, "cairn-demo-*")); len(left) != 0 {
				t.Fatalf("the demo left its temporary store behind: %v", left)
			}
		})
	}
}

// waitUntil polls cond until it holds, failing the test after 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}
