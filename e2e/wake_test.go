package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each cairn command is a new process that finds the file fingerprints
// the last one kept in the home, and still notices a file that changed —
// a rewrite of the same size included.
func TestVerifyNoticesAChangeInTheNextProcess(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	file := filepath.Join(h.work, "decode.txt")
	if err := os.WriteFile(file, []byte("decode +229 %\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.ok("remember", "decode is +229 %, measured in decode.txt")
	if out := h.ok("verify"); !strings.Contains(out, "nothing to verify") {
		t.Fatalf("nothing changed, yet: %s", out)
	}
	kept, _ := filepath.Glob(filepath.Join(h.dir, "fingerprints", "*"))
	if len(kept) != 1 {
		t.Fatalf("fingerprints kept in %v, want one file", kept)
	}
	if fi, err := os.Stat(kept[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept fingerprints: %v, %v; want mode 0600", fi.Mode(), err)
	}
	if err := os.WriteFile(file, []byte("decode +31 %!\n"), 0o644); err != nil { // the same size
		t.Fatal(err)
	}
	if out := h.ok("verify"); !strings.Contains(out, "bound to decode.txt: content changed") {
		t.Fatalf("a rewrite of the same size went unnoticed by the next process: %s", out)
	}
	if err := os.WriteFile(kept[0], []byte("cairn file fingerprints 1\nroot /elsewhere\ngarbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := h.run("", "verify"); code != 0 || errs != "" || !strings.Contains(out, "bound to decode.txt: content changed") {
		t.Fatalf("with a damaged fingerprint file: exit %d, %q, %s", code, errs, out)
	}
}

// BenchmarkVerifyWholeProcess is `cairn verify` as a person runs it: 10,000
// facts bound to the files and directories of a 2,000-file repository,
// the store's server running. unchanged: nothing moved since the last
// command, which kept the fingerprints; cold: no kept fingerprints (every
// bound file is read); version: `cairn --version`, the process start alone;
// unchanged-indexed: unchanged, with the repository indexed (cairn index).
func BenchmarkVerifyWholeProcess(b *testing.B) {
	root := b.TempDir()
	dir, work := filepath.Join(root, "home"), filepath.Join(root, "repo")
	env := append(os.Environ(), "CAIRN_HOME="+dir, "CAIRN_IDLE=30s", "NO_COLOR=1", "HOME="+root)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", work, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	var files []string
	line := strings.Repeat("cache latency decode tile kernel quorum ", 2) + "\n"
	for d := range 40 {
		for f := range 50 {
			p := fmt.Sprintf("pkg%02d/file%03d.go", d, f)
			os.MkdirAll(filepath.Join(work, filepath.Dir(p)), 0o755)
			body := fmt.Sprintf("package pkg%02d // %s\n%s", d, p, strings.Repeat(line, 50))
			if err := os.WriteFile(filepath.Join(work, p), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
			files = append(files, p)
		}
	}
	written := time.Now()
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	var facts bytes.Buffer
	for i := range 10_000 {
		ref := files[(i*7919)%len(files)]
		if i%5 == 4 {
			ref = filepath.Dir(ref) + "/"
		}
		json.NewEncoder(&facts).Encode(map[string]string{"layer": "state", "title": fmt.Sprintf("fact %d about %s", i, ref),
			"body": fmt.Sprintf("The path in %s matters for case %d.", ref, i)})
	}
	src := filepath.Join(root, "facts.jsonl")
	os.WriteFile(src, facts.Bytes(), 0o600)
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
	if out := run("import", src); !strings.Contains(out, "10000 bound") {
		b.Fatalf("import: %s", out)
	}
	// A wake check meets files that have been still for a while; one
	// hashed within 2 s of its last change is read again by the next
	// check (see trust.racyWindow), which is not the case measured.
	time.Sleep(time.Until(written.Add(2500 * time.Millisecond)))
	if out := run("verify"); !strings.Contains(out, "nothing to verify") {
		b.Fatalf("verify: %s", out)
	}
	for _, c := range []struct {
		name string
		args []string
		cold bool
	}{{"unchanged", []string{"verify"}, false}, {"cold", []string{"verify"}, true}, {"version", []string{"--version"}, false},
		{"unchanged-indexed", []string{"verify"}, false}} {
		if c.name == "unchanged-indexed" { // what the repository says is kept too: each command checks its HEAD
			run("index")
			run("verify")
		}
		b.Run(c.name, func(b *testing.B) {
			var ts []time.Duration
			for range b.N {
				if c.cold {
					b.StopTimer()
					os.RemoveAll(filepath.Join(dir, "fingerprints"))
					b.StartTimer()
				}
				t0 := time.Now()
				run(c.args...)
				ts = append(ts, time.Since(t0))
			}
			sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
			b.ReportMetric(float64(ts[0].Microseconds())/1000, "best-ms")
			b.ReportMetric(float64(ts[len(ts)/2].Microseconds())/1000, "median-ms")
		})
	}
}
