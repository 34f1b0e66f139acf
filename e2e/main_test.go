// Package e2e tests the real cairn binary the way people and agents use it:
// many processes on one home, an owner killed mid-write, agents over MCP.
package e2e

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
)

// bin is the cairn binary built once for the package.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-o", bin, "cairn")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build cairn:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// home is one user's cairn home with a short server idle timeout, so that
// the on-demand server is gone soon after a test's last client.
type home struct {
	t    *testing.T
	dir  string
	work string
}

func newHome(t *testing.T) *home {
	t.Helper()
	root := t.TempDir()
	h := &home{t: t, dir: filepath.Join(root, "home"), work: filepath.Join(root, "proj")}
	os.MkdirAll(h.work, 0o755)
	t.Cleanup(h.waitServerGone)
	return h
}

func (h *home) env() []string {
	return append(os.Environ(), "CAIRN_HOME="+h.dir, "CAIRN_IDLE=700ms", "NO_COLOR=1")
}

func (h *home) cmd(args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env, c.Dir = h.env(), h.work
	return c
}

// run runs cairn and returns stdout, stderr and the exit code.
func (h *home) run(stdin string, args ...string) (string, string, int) {
	h.t.Helper()
	c := h.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("run cairn: %v", err)
	}
	return out.String(), errb.String(), code
}

func (h *home) ok(args ...string) string {
	h.t.Helper()
	out, errs, code := h.run("", args...)
	if code != 0 {
		h.t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

func (h *home) json(v any, args ...string) {
	h.t.Helper()
	out := h.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		h.t.Fatalf("cairn %s --json: %v: %s", strings.Join(args, " "), err, out)
	}
}

// serverPID is the pid of the process holding the home's store, or 0.
func (h *home) serverPID() int {
	b, err := os.ReadFile(filepath.Join(h.dir, "store", "owner.json"))
	if err != nil {
		return 0
	}
	var o struct {
		PID int `json:"pid"`
	}
	json.Unmarshal(b, &o)
	return o.PID
}

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is gone for our purposes.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// waitServerGone fails the test if the home's server outlives its idle timeout.
func (h *home) waitServerGone() {
	pid := h.serverPID()
	deadline := time.Now().Add(15 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			h.t.Errorf("the cairn server (pid %d) was still running 15 s after the test's last client", pid)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
