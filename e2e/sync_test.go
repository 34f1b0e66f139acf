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

// A teammate's 3,000 hand-written files (no id), a sync killed with
// SIGKILL while it writes them back, two syncs at once, then syncs again:
// each file is one memory, whatever sync read it — never a duplicate.
func TestSyncKilledMidwayDuplicatesNothing(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	git := exec.Command("git", "-C", h.work, "init", "-q", "-b", "main")
	git.Env = append(h.env(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	const n = 3000
	dir := filepath.Join(h.work, ".cairn", "memories", "A-invariant")
	os.MkdirAll(dir, 0o755)
	for i := range n {
		note := fmt.Sprintf("---\ntitle: Rule %d\nlayer: A\n---\n\nRule %d of the team holds.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rule-%04d.md", i)), []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.ok("list") // the store and its server, before the sync to kill
	start, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Killed as soon as it writes in the folder: after its import, before
	// it has written the files back.
	sync := h.cmd("sync")
	if err := sync.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sync.Wait() }()
	killed := false
	for !killed {
		select {
		case <-done:
			t.Log("the sync ended before it could be killed mid-way")
			killed = true
		default:
			if fi, err := os.Stat(dir); err == nil && !fi.ModTime().Equal(start.ModTime()) {
				sync.Process.Signal(syscall.SIGKILL)
				<-done
				killed = true
			}
		}
	}
	// Two at once: one syncs, the other says another is running (or
	// finds nothing left to do).
	a, b := h.cmd("sync"), h.cmd("sync")
	var aerr, berr bytes.Buffer
	a.Stderr, b.Stderr = &aerr, &berr
	a.Start()
	b.Start()
	a.Wait()
	b.Wait()
	for _, e := range []string{aerr.String(), berr.String()} {
		if e != "" && !strings.Contains(e, "another cairn sync of this mirror is running") {
			t.Fatalf("a concurrent sync: %s", e)
		}
	}
	h.ok("sync")
	var recs []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	h.json(&recs, "list", "--limit", "10000")
	titles := map[string]int{}
	for _, r := range recs {
		titles[r.Title]++
	}
	if len(recs) != n || len(titles) != n {
		t.Fatalf("%d memories, %d titles, for %d files", len(recs), len(titles), n)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != n {
		t.Fatalf("%d files for %d memories", len(ents), n)
	}
	if out := h.ok("sync"); !strings.Contains(out, "nothing to sync") {
		t.Fatalf("then nothing to sync: %s", out)
	}
}
