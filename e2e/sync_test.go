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
)

// BenchmarkSyncWholeProcess is `cairn sync` as a person runs it after a
// pull: 10,000 shared memories in a git repository, the server running.
// "unchanged": nothing changed on either side; "full": the store wrote a
// memory the mirror does not hold (a personal one) since, so every shared
// memory is read through the socket and compared with its file.
func BenchmarkSyncWholeProcess(b *testing.B) {
	root := b.TempDir()
	dir, work := filepath.Join(root, "home"), filepath.Join(root, "repo")
	os.MkdirAll(work, 0o755)
	env := append(os.Environ(), "CAIRN_HOME="+dir, "CAIRN_IDLE=30s", "NO_COLOR=1", "HOME="+root,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := exec.Command("git", "-C", work, "init", "-q", "-b", "main")
	git.Env = env
	if out, err := git.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	var recs bytes.Buffer
	for i := range 10_000 {
		json.NewEncoder(&recs).Encode(map[string]string{"layer": string("ABDEF"[i%5]),
			"title": fmt.Sprintf("fact %d about module %d", i, i%97),
			"body":  fmt.Sprintf("Module %d keeps its state in table %d; callers go through its API.", i%97, i)})
	}
	src := filepath.Join(root, "facts.jsonl")
	os.WriteFile(src, recs.Bytes(), 0o600)
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, work
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("cairn %v: %v %s", args, err, out)
		}
		return string(out)
	}
	owner := &home{dir: dir}
	b.Cleanup(func() {
		if pid := owner.serverPID(); alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	run("import", src)
	if out := run("sync"); !strings.Contains(out, "10000 files written") {
		b.Fatalf("first sync: %s", out)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if out := run("sync"); !strings.Contains(out, "nothing to sync") {
				b.Fatalf("sync: %s", out)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		n := 0
		for b.Loop() {
			b.StopTimer()
			n++
			run("remember", "-l", "B", "--tag", "personal", "-t", fmt.Sprintf("note %d", n), "a private note")
			b.StartTimer()
			if out := run("sync"); !strings.Contains(out, "nothing to sync") {
				b.Fatalf("sync: %s", out)
			}
		}
	})
}
