package derive

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) this process and the
// children it waited for (git) have used: beside the wall time, what a
// run costs on a machine others are using too.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// genRepo writes a repository of n files in a realistic mix — 60 % Go,
// 14 % Markdown, 12 % Python, 10 % TypeScript, 4 % JSON and YAML — in
// nested directories, adds it to git and dates every file an hour back.
// It returns the root and the paths of the Go and Markdown files (what
// a change touches).
func genRepo(b *testing.B, n int) (string, []string) {
	b.Helper()
	isolateGit(b)
	root := b.TempDir()
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("request retry policy store index cache token budget recall memory trust watermark " +
		"module section reader parser server client config option handler queue worker batch stamp hash file path " +
		"commit branch merge build test run lint format deploy release version schema migrate query result error")
	sentence := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = words[rng.Intn(len(words))]
		}
		return strings.Join(ws, " ")
	}
	ident := func() string {
		w1, w2 := words[rng.Intn(len(words))], words[rng.Intn(len(words))]
		return strings.ToUpper(w1[:1]) + w1[1:] + strings.ToUpper(w2[:1]) + w2[1:]
	}
	var editable []string
	old := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		dir := fmt.Sprintf("pkg%02d/sub%d", i%40, (i/40)%5)
		var name, body string
		switch r := i % 50; {
		case r < 30:
			name = fmt.Sprintf("%s/file%d.go", dir, i)
			var sb strings.Builder
			fmt.Fprintf(&sb, "// Package sub handles %s.\npackage sub\n\nimport \"fmt\"\n\n", sentence(12))
			for d := 0; d < 12+rng.Intn(12); d++ {
				id := ident()
				fmt.Fprintf(&sb, "// %s%d %s.\n// It %s.\ntype %s%d struct {\n\tName string\n\tCount int\n}\n\n", id, d, sentence(10), sentence(14), id, d)
				fmt.Fprintf(&sb, "// Do%d %s.\nfunc (x *%s%d) Do%d(a, b int) (int, error) {\n\tif a > b {\n\t\treturn 0, fmt.Errorf(\"%s\")\n\t}\n\treturn a + b, nil\n}\n\n", d, sentence(12), id, d, d, sentence(4))
				fmt.Fprintf(&sb, "func helper%d(s string) string {\n\treturn s + %q\n}\n\n", d, sentence(3))
			}
			body = sb.String()
		case r < 37:
			name = fmt.Sprintf("%s/doc%d.md", dir, i)
			var sb strings.Builder
			fmt.Fprintf(&sb, "# %s\n\n%s.\n\n", sentence(3), sentence(40))
			for h := 0; h < 4+rng.Intn(6); h++ {
				fmt.Fprintf(&sb, "## %s\n\n%s.\n\n- %s\n- %s\n\n```sh\nmake %s\n```\n\n", sentence(3), sentence(60), sentence(8), sentence(8), words[rng.Intn(len(words))])
			}
			body = sb.String()
		case r < 43:
			name = fmt.Sprintf("%s/mod%d.py", dir, i)
			var sb strings.Builder
			fmt.Fprintf(&sb, "\"\"\"%s.\"\"\"\n\nimport os\n\n", sentence(10))
			for d := 0; d < 10; d++ {
				fmt.Fprintf(&sb, "def %s_%d(a, b):\n    \"\"\"%s.\"\"\"\n    return a + b\n\n\nclass C%d:\n    \"\"\"%s.\"\"\"\n\n    def m(self):\n        return %d\n\n\n", words[rng.Intn(len(words))], d, sentence(10), d, sentence(8), d)
			}
			body = sb.String()
		case r < 48:
			name = fmt.Sprintf("%s/comp%d.ts", dir, i)
			var sb strings.Builder
			for d := 0; d < 10; d++ {
				fmt.Fprintf(&sb, "/** %s. */\nexport function f%d(a: number, b: number): number {\n  return a + b;\n}\n\n/** %s. */\nexport interface I%d {\n  name: string;\n}\n\n", sentence(10), d, sentence(8), d)
			}
			body = sb.String()
		case r == 48:
			name = fmt.Sprintf("%s/data%d.json", dir, i)
			body = fmt.Sprintf("{\"name\": %q, \"count\": %d}\n", sentence(3), i)
		default:
			name = fmt.Sprintf("%s/conf%d.yaml", dir, i)
			body = fmt.Sprintf("name: %s\nitems:\n  - %s\n", sentence(2), sentence(3))
		}
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			b.Fatal(err)
		}
		if strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") {
			editable = append(editable, name)
		}
	}
	runGit(b, root, "init", "-q")
	runGit(b, root, "add", "-A")
	runGit(b, root, "commit", "-qm", "generated")
	return root, editable
}

// BenchmarkUpdateCold5000 reads a 5,000-file repository with no stamps:
// git ls-files, a stat, a read, a hash and the readers for every file
// (the page cache is warm after the first iteration).
func BenchmarkUpdateCold5000(b *testing.B) {
	root, _ := genRepo(b, 5000)
	ctx := context.Background()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		d, err := Update(ctx, root, Options{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Changed) != 5000 {
			b.Fatalf("read %d files", len(d.Changed))
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkUpdateAfter50 re-reads the repository after 50 of its files
// changed (as after a commit): git ls-files and a stat for every file,
// a read, a hash and the readers for the 50.
func BenchmarkUpdateAfter50(b *testing.B) {
	root, editable := genRepo(b, 5000)
	ctx := context.Background()
	d, err := Update(ctx, root, Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	prev := stampsOf(nil, d)
	base := time.Now().Add(-50 * time.Minute)
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		edit50(b, root, editable, i, base)
		b.StartTimer()
		before := cpuTime()
		d, err := Update(ctx, root, Options{}, prev)
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - before
		b.StopTimer()
		if len(d.Changed) != 50 || d.Unchanged != 4950 {
			b.Fatalf("changed %d, unchanged %d", len(d.Changed), d.Unchanged)
		}
		prev = stampsOf(prev, d)
		b.StartTimer()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkUpdateThisRepository reads cairn's own repository cold, and
// again with nothing changed.
func BenchmarkUpdateThisRepository(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var prev map[string]Stamp
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			d, err := Update(ctx, root, Options{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			prev = stampsOf(nil, d)
			b.ReportMetric(float64(len(d.Changed)), "files")
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Update(ctx, root, Options{}, prev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// edit50 appends a line to the i-th round's 50 editable files and dates
// them a second apart from base, as a commit touching them would.
func edit50(b *testing.B, root string, editable []string, i int, base time.Time) {
	b.Helper()
	for k := 0; k < 50; k++ {
		full := filepath.Join(root, filepath.FromSlash(editable[(i*50+k)%len(editable)]))
		f, err := os.OpenFile(full, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\n// edit %d\n", i)
		f.Close()
		when := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(full, when, when); err != nil {
			b.Fatal(err)
		}
	}
}
