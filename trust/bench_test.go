package trust

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// fixtureRepo builds a repository of 5,000 files and 2,000 commits with
// git fast-import (minutes with one git commit per commit, seconds so).
func fixtureRepo(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run(nil, "init", "-q", "-b", "main")
	var s bytes.Buffer
	file := func(i int) string { return fmt.Sprintf("pkg%02d/file%04d.go", i%50, i) }
	mark := 0
	r := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 2000; c++ {
		mark++
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata 4\nc%03d\n", mark, 1700000000+c, c%1000)
		if c > 0 {
			fmt.Fprintf(&s, "from :%d\n", mark-1)
		}
		write := func(i int) {
			body := fmt.Sprintf("package p // %d at commit %d\n", i, c)
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", file(i), len(body), body)
		}
		if c == 0 {
			for i := range 5000 {
				write(i)
			}
		} else {
			for range 3 {
				write(r.IntN(5000))
			}
		}
	}
	run(s.Bytes(), "fast-import", "--quiet")
	run(nil, "checkout", "-q", "-f", "main")
	return root
}

// boundMemories are 10,000 memories bound to files, directories and flags.
func boundMemories(b *testing.B, c *Checker) []*memory.Memory {
	r := rand.New(rand.NewPCG(3, 4))
	ws := make([]memory.Watermark, 10_000)
	for i := range ws {
		switch {
		case i%10 < 7:
			n := r.IntN(5000)
			ws[i] = memory.Watermark{Kind: memory.WatermarkFile, Target: fmt.Sprintf("pkg%02d/file%04d.go", n%50, n)}
		case i%10 < 9:
			ws[i] = memory.Watermark{Kind: memory.WatermarkGit, Target: fmt.Sprintf("pkg%02d/", r.IntN(50))}
		default:
			ws[i] = memory.Watermark{Kind: memory.WatermarkFlag, Target: "CAIRN_BENCH_FLAG"}
		}
	}
	stamped, errs := c.StampAll(ctx, ws)
	ms := make([]*memory.Memory, len(ws))
	for i, st := range stamped {
		if errs[i] != nil {
			b.Fatal(errs[i])
		}
		ms[i] = &memory.Memory{ID: fmt.Sprint(i), Confidence: 0.9, Watermarks: []memory.Watermark{st}}
	}
	return ms
}

func env(k string) string {
	if k == "CAIRN_BENCH_FLAG" {
		return "on"
	}
	return ""
}

// BenchmarkWakeUnchanged: a wake check where nothing moved, by a process
// that has checked before (its file cache warm).
func BenchmarkWakeUnchanged(b *testing.B) {
	root := fixtureRepo(b)
	c := checker(root)
	ms := boundMemories(b, c)
	for b.Loop() {
		changes, err := c.Check(ctx, ms)
		if err != nil || len(changes) != 0 {
			b.Fatal(err, len(changes))
		}
	}
}

// BenchmarkWakeCold: the same by a new process (a CLI command): every
// bound file is read and hashed once.
func BenchmarkWakeCold(b *testing.B) {
	root := fixtureRepo(b)
	ms := boundMemories(b, checker(root))
	for b.Loop() {
		c := checker(root)
		if _, err := c.Check(ctx, ms); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWakeKept: the same by a new process that finds the
// fingerprints the last one kept in the home (a CLI command now): every
// bound file is stat'ed, none is read.
func BenchmarkWakeKept(b *testing.B) {
	root := fixtureRepo(b)
	keep := b.TempDir()
	c := checker(root)
	c.KeepFingerprints(keep)
	ms := boundMemories(b, c)
	for b.Loop() {
		c := checker(root)
		c.KeepFingerprints(keep)
		changes, err := c.Check(ctx, ms)
		if err != nil || len(changes) != 0 {
			b.Fatal(err, len(changes))
		}
	}
}

// checker is a checker of root as a check an hour after the fixture was
// written sees it: a file hashed within seconds of its last change is not
// trusted from its stat (see racyWindow), which would make every check in
// the first seconds after the fixture's checkout read every file again.
func checker(root string) *Checker {
	c := NewChecker(root, env)
	c.wall = func() time.Time { return time.Now().Add(time.Hour) }
	return c
}

// BenchmarkWakeAfterCommits: 50 files changed by new commits since the stamp.
func BenchmarkWakeAfterCommits(b *testing.B) {
	root := fixtureRepo(b)
	c := checker(root)
	ms := boundMemories(b, c)
	for i := range 50 {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d/file%04d.go", i%50, i*7))
		os.WriteFile(p, []byte(fmt.Sprintf("changed %d %v\n", i, time.Now())), 0o644)
	}
	cmd := exec.Command("git", "-C", root, "commit", "-qam", "change")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	for b.Loop() {
		changes, err := checker(root).Check(ctx, ms)
		if err != nil || len(changes) == 0 {
			b.Fatal(err, len(changes))
		}
	}
}

// BenchmarkServiceWakeUnchanged is the wake check through a Badger store
// with nothing moved: the project's distinct stamps read from the store
// and compared, no memory read, nothing written. "same-process" is the
// workbench's reload (its checker holds the fingerprints); "new-process"
// is a CLI command (a new checker that finds the fingerprints the last
// one kept in the home).
func BenchmarkServiceWakeUnchanged(b *testing.B) {
	root := fixtureRepo(b)
	keep := b.TempDir()
	c := checker(root)
	c.KeepFingerprints(keep)
	ms := boundMemories(b, c)
	db, err := store.Open(b.TempDir(), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	p, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000be", Name: "bench", Root: root})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]memory.Record, len(ms))
	for i, m := range ms {
		recs[i] = memory.Record{Layer: memory.LayerState, Body: fmt.Sprintf("fact %d", i), Watermarks: m.Watermarks}
	}
	if _, err := db.Import(ctx, p.ID, recs, memory.ActorSystem); err != nil {
		b.Fatal(err)
	}
	s := &Service{St: db, Checker: c, Project: p.ID}
	if err := s.Wake(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("same-process", func(b *testing.B) {
		for b.Loop() {
			if err := s.Wake(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new-process", func(b *testing.B) {
		for b.Loop() {
			c := checker(root)
			c.KeepFingerprints(keep)
			s := &Service{St: db, Checker: c, Project: p.ID}
			if err := s.Wake(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	if n, _ := db.Timeline(ctx, p.ID, 5); len(n) != 1 {
		b.Fatalf("a wake with nothing moved wrote %d events", len(n)-1)
	}
}
