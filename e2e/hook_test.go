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

// hookEvent is the JSON Claude Code sends a hook.
func hookEvent(event, cwd, prompt string) string {
	b, _ := json.Marshal(map[string]string{"hook_event_name": event, "session_id": "bench", "cwd": cwd, "prompt": prompt, "transcript_path": filepath.Join(cwd, "none.jsonl")})
	return string(b)
}

// The hook as Claude Code runs it: the built binary, the event on stdin,
// while another cairn process may hold the store.
func TestHookAsTheBinary(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.ok("remember", "Do not call the v1 payments API: it charges twice on retry", "--layer", "negative", "--trigger", "payments api")
	h.ok("remember", "Never commit .env files", "--layer", "invariant")
	out, errs, code := h.run(hookEvent("SessionStart", h.work, ""), "hook", "claude-code")
	if code != 0 || errs != "" || !strings.Contains(out, "Never commit .env files") {
		t.Fatalf("SessionStart: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = h.run(hookEvent("UserPromptSubmit", h.work, "retry the payments API call"), "hook", "claude-code")
	if code != 0 || errs != "" || !strings.Contains(out, "cairn: avoid — Do not call the v1 payments API") {
		t.Fatalf("UserPromptSubmit: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = h.run(hookEvent("UserPromptSubmit", h.work, "tidy the README"), "hook", "claude-code")
	if code != 0 || errs != "" || out != "" {
		t.Fatalf("an unrelated prompt: exit %d, %q, %q", code, out, errs)
	}
}

// BenchmarkHookPromptSubmit100k times `cairn hook claude-code` for a
// UserPromptSubmit as a whole process — start, open the store, read the
// negatives and the bound memories, answer — on a store of 100,000
// memories of which 2,000 are negatives with triggers.
func BenchmarkHookPromptSubmit100k(b *testing.B) {
	root := b.TempDir()
	dir, work := filepath.Join(root, "home"), filepath.Join(root, "proj")
	os.MkdirAll(work, 0o755)
	env := append(os.Environ(), "CAIRN_HOME="+dir, "NO_COLOR=1")
	var buf bytes.Buffer
	for i := range 100_000 {
		rec := map[string]any{"title": fmt.Sprintf("Fact %d: the service %d listens on port %d", i, i%977, 1000+i%50000), "layer": "state"}
		if i%50 == 0 {
			rec = map[string]any{"title": fmt.Sprintf("Do not use tool %d for migrations: it drops indexes", i), "layer": "negative",
				"triggers": []string{fmt.Sprintf("tool%d", i), fmt.Sprintf("migrate %d", i)}}
		}
		json.NewEncoder(&buf).Encode(rec)
	}
	src := filepath.Join(root, "seed.jsonl")
	os.WriteFile(src, buf.Bytes(), 0o600)
	imp := exec.Command(bin, "import", src)
	imp.Env, imp.Dir = env, work
	if out, err := imp.CombinedOutput(); err != nil {
		b.Fatalf("import: %v: %s", err, out)
	}
	owner := &home{dir: dir}
	gone := func() { // no cairn process holds the store any more
		for alive(owner.serverPID()) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	b.Cleanup(func() {
		if pid := owner.serverPID(); alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for _, c := range []struct{ name, prompt, want string }{
		{"near-a-negative", "run tool4200 on the users table", "cairn: avoid"},
		{"unrelated", "rename the logger package", ""},
	} {
		// Warm: a cairn process still holds the store (within its idle
		// time after the last command), so the hook connects to it.
		// Cold: none does, so the hook starts the store's server itself.
		for _, warm := range []bool{true, false} {
			name := c.name + "/cold"
			idle := "CAIRN_IDLE=20ms"
			if warm {
				name, idle = c.name+"/warm", "CAIRN_IDLE=10s"
			}
			b.Run(name, func(b *testing.B) {
				in := hookEvent("UserPromptSubmit", work, c.prompt)
				for range b.N {
					if !warm {
						b.StopTimer()
						gone()
						b.StartTimer()
					}
					cmd := exec.Command(bin, "hook", "claude-code")
					cmd.Env, cmd.Dir, cmd.Stdin = append(env, idle), work, strings.NewReader(in)
					out, err := cmd.Output()
					if err != nil || !strings.Contains(string(out), c.want) || c.want == "" && len(out) > 0 {
						b.Fatalf("hook: %v, %q", err, out)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/hook")
			})
			if warm {
				if pid := owner.serverPID(); alive(pid) {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				gone()
			}
		}
	}
}
