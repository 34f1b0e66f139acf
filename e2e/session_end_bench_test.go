package e2e

import (
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

// sessionLine is one line of a Claude Code transcript: a person's prompt
// (k even) or the agent's answer.
func sessionLine(cwd string, k int) string {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Minute).Format(time.RFC3339)
	l := map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", k), "sessionId": "bench-s1", "cwd": cwd, "timestamp": at,
		"message": map[string]any{"role": "user", "content": fmt.Sprintf("Never deploy service %d on a Friday: its migrations lock table t%d.", k, k)}}
	if k%2 == 1 {
		l = map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", k), "sessionId": "bench-s1", "cwd": cwd, "timestamp": at,
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Noted; step %d done and the tests pass.", k)}}}}
	}
	b, _ := json.Marshal(l)
	return string(b) + "\n"
}

// BenchmarkHookSessionEnd20k times `cairn hook claude-code` for a
// SessionEnd as a whole process on a store of 20,000 memories (imported
// once, outside the timer), the session's transcript of 40 lines read and
// consolidated before: the work, as the cairn the hook hands it to does
// it (CAIRN_DETACHED), with nothing new (a cairn process holds the store,
// or none does and the hook starts the store's server), and with two new
// lines appended before each run (outside the timer), which it reads and
// consolidates; and what the agent waits for, the hook handing two new
// lines to a cairn in the background (whose work is waited for outside
// the timer).
func BenchmarkHookSessionEnd20k(b *testing.B) {
	root := b.TempDir()
	dir, work := filepath.Join(root, "home"), filepath.Join(root, "proj")
	os.MkdirAll(work, 0o755)
	env := append(os.Environ(), "CAIRN_HOME="+dir, "NO_COLOR=1")
	var seed strings.Builder
	for i := range 20_000 {
		rec := map[string]any{"title": fmt.Sprintf("Service %d answers on port %d behind proxy %d", i, 2000+i%40000, i%311), "layer": "state"}
		line, _ := json.Marshal(rec)
		seed.Write(line)
		seed.WriteByte('\n')
	}
	src := filepath.Join(root, "seed.jsonl")
	os.WriteFile(src, []byte(seed.String()), 0o600)
	tr := filepath.Join(root, "session.jsonl")
	var lines strings.Builder
	for k := range 40 {
		lines.WriteString(sessionLine(work, k))
	}
	os.WriteFile(tr, []byte(lines.String()), 0o600)
	ev, _ := json.Marshal(map[string]string{"hook_event_name": "SessionEnd", "session_id": "bench-s1", "cwd": work, "transcript_path": tr, "reason": "exit"})
	owner := &home{dir: dir}
	gone := func() {
		for alive(owner.serverPID()) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	b.Cleanup(func() {
		if pid := owner.serverPID(); alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	hook := func(b *testing.B, idle string, detached bool) {
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Env, cmd.Dir, cmd.Stdin = append(env, idle), work, strings.NewReader(string(ev))
		if detached {
			cmd.Env = append(cmd.Env, "CAIRN_DETACHED=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("hook: %v, %q", err, out)
		}
		if log, _ := os.ReadFile(filepath.Join(dir, "hooks.log")); len(log) > 0 {
			b.Fatalf("the hook failed: %s", log)
		}
	}
	imp := exec.Command(bin, "import", src)
	imp.Env, imp.Dir = append(env, "CAIRN_IDLE=10s"), work
	if out, err := imp.CombinedOutput(); err != nil {
		b.Fatalf("import: %v: %s", err, out)
	}
	hook(b, "CAIRN_IDLE=10s", true) // the session read and consolidated
	next := 40
	for _, c := range []struct {
		name              string
		warm, add, handed bool
	}{{"nothing-new/warm", true, false, false}, {"nothing-new/cold", false, false, false}, {"two-new-lines/warm", true, true, false},
		{"two-new-lines-handed-off/warm", true, true, true}} {
		if !c.warm { // the warm server goes first
			if pid := owner.serverPID(); alive(pid) {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			idle := "CAIRN_IDLE=20ms"
			if c.warm {
				idle = "CAIRN_IDLE=10s"
			}
			for range b.N {
				b.StopTimer()
				if !c.warm {
					gone()
				}
				if c.add {
					f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						b.Fatal(err)
					}
					f.WriteString(sessionLine(work, next) + sessionLine(work, next+1))
					f.Close()
					next += 2
				}
				b.StartTimer()
				hook(b, idle, !c.handed)
				if c.handed {
					b.StopTimer()
					for len(detachedOf(dir)) > 0 {
						time.Sleep(5 * time.Millisecond)
					}
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/hook")
		})
	}
}
