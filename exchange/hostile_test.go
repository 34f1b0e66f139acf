package exchange

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"cairn/memory"
)

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// aliasBomb is frontmatter in which each level repeats the one below nine
// times: a few hundred bytes that expand to 9^(levels+1) strings when
// "tags" is decoded (six levels cost go-yaml 200 MB, each more nine
// times that). The levels sit under "links", whose keys are free.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("---\nlayer: A\ntitle: t\nlinks:\n  l0: &a0 [" + strings.Repeat(`"lol",`, 8) + `"lol"]` + "\n")
	for i := 1; i <= levels; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "  l%d: &a%d [%s]\n", i, i, strings.Repeat(p+",", 8)+p)
	}
	fmt.Fprintf(&b, "tags: *a%d\n---\nbody\n", levels)
	return b.String()
}

// The parser of frontmatter must never be handed input that costs it far
// more than its size: each of these small files cost go-yaml from 150 MB
// to tens of gigabytes before it was refused. Some are refused before
// parsing; the others are plain syntax or type errors, whose go-yaml
// message (which quotes the source) used to cost the square of the input.
//
// It runs alone, not in parallel: what it measures is every allocation of
// the process, and other tests' would count against its budget.
func TestHostileFrontmatterIsRefusedCheaply(t *testing.T) {
	const budget = 64 << 20
	cases := []struct{ name, in, want string }{
		{"alias bomb", aliasBomb(9), "anchors and aliases"},
		{"merge key", "---\nlayer: A\ntitle: t\nsource:\n  <<: {file: x}\n---\n", "anchors and aliases"},
		{"tag", "---\nlayer: A\ntitle: !!str t\n---\n", "tags"},
		{"huge", "---\nlayer: A\ntitle: t\nref: \"" + strings.Repeat("x", MaxFront) + "\"\n---\n", "over 256 KiB"},
		{"many tokens", "---\nlayer: A\ntitle: t\ntags:\n" + strings.Repeat("- a\n", 40000) + "---\n", "YAML tokens"},
		{"deep flow", "---\nlayer: A\ntitle: t\ntags: " + strings.Repeat("[", 30000) + "\n---\n", "nest deeper"},
		{"document ends", "---\nlayer: A\ntitle: t\n" + strings.Repeat("a: b\n...\n", 6000) + "---\n", "document marker"},
		{"wide nested flow", "---\nlayer: A\ntitle: t\ntags: [" + strings.Repeat("[a],", 5000) + "]\n---\n", "frontmatter line 4: cannot unmarshal"},
		{"commas", "---\nlayer: A\ntitle: t\ntags: [" + strings.Repeat(",", 20000) + "]\n---\n", "frontmatter line 4"},
		{"empty flows", "---\nlayer: A\ntitle: t\ntags: " + strings.Repeat("[]", 10000) + "\n---\n", "frontmatter line 4"},
		{"colons on a line", "---\nlayer: A\ntitle: t\ntags: " + strings.Repeat("a: ", 10000) + "\n---\n", "frontmatter line 4"},
		{"entries on a line", "---\nlayer: A\ntitle: t\ntags: " + strings.Repeat("- ", 20000) + "x\n---\n", "frontmatter line 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.in) > MaxFile {
				t.Fatalf("the case is %d bytes, over MaxFile", len(c.in))
			}
			var err error
			n := allocated(func() { _, err = DecodeMarkdown([]byte(c.in)) })
			if n > budget {
				t.Fatalf("refusing %d bytes allocated %d MiB", len(c.in), n>>20)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %.200v, want one line mentioning %q", err, c.want)
			}
		})
	}
}

// What cairn itself writes, and ordinary hand-written frontmatter, still
// pass the guard.
func TestOrdinaryFrontmatterPasses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"---\nlayer: A\ntitle: a[b] {c} & *d !e\ntags: [x, y]\nsource: {file: a.go, line: 3}\n---\nbody",
		"---\nlayer: B\ntitle: t # a comment\nwatermarks: [{kind: file, target: a.go, state: intact}]\nlinks: {because: [\"[[01JD0000000000000000000AAA]]\"]}\n---\n",
		"---\nlayer: A\ntitle: |\n  one line\n---\n",
	} {
		if _, err := DecodeMarkdown([]byte(in)); err != nil {
			t.Errorf("%v\n%s", err, in)
		}
	}
	// A memory with many links is written and read back.
	r := memory.Record{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Title: "t", Body: "b"}
	for i := range 2000 {
		r.Edges = append(r.Edges, memory.RecordEdge{Kind: memory.EdgeEvidence, To: fmt.Sprintf("01JD%022d", i), Weight: 0.5})
	}
	b, err := EncodeMarkdown(r)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := DecodeMarkdown(b); err != nil || len(back.Edges) != 2000 {
		t.Fatalf("%d links: %v", len(back.Edges), err)
	}
	// One with more links than import would read is refused at export.
	for i := range 6000 {
		r.Edges = append(r.Edges, memory.RecordEdge{Kind: memory.EdgeEvidence, To: fmt.Sprintf("01JE%022d", i), Weight: 0.5})
	}
	if _, err := EncodeMarkdown(r); err == nil || !strings.Contains(err.Error(), "JSON Lines") {
		t.Fatalf("export of a memory import would refuse: %v", err)
	}
}

func TestDecodeMarkdownRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"---\nlayer: A\ntitle: \"\xff\"\n---\n", "---\nlayer: A\ntitle: t\n---\nbo\xc3dy"} {
		_, err := DecodeMarkdown([]byte(in))
		if err == nil || !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%q: err = %v", in, err)
		}
	}
}

// endless is a reader that never ends, like /dev/zero, and counts what
// was taken from it.
type endless struct {
	prefix string
	n      int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n < int64(len(e.prefix)) {
			p[i] = e.prefix[e.n]
		} else {
			p[i] = 'a'
		}
		e.n++
	}
	return len(p), nil
}

func TestReadJSONLRefusesHostileLines(t *testing.T) {
	t.Parallel()
	good := `{"layer":"A","body":"ok"}` + "\n"
	t.Run("endless line", func(t *testing.T) {
		r := &endless{prefix: good + `{"layer":"A","body":"`}
		_, err := ReadJSONL(r)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "16 MiB") {
			t.Fatalf("err = %v", err)
		}
		if r.n > MaxLine+1<<20 {
			t.Fatalf("read %d bytes to refuse a line", r.n)
		}
	})
	cases := []struct {
		name, in string
		line     int
		want     string
	}{
		{"deep nesting", good + `{"layer":"A","body":"x","edges":` + strings.Repeat("[", 100000) + "\n", 2, "malformed JSON"},
		{"deep nesting in an unknown field", `{"layer":"A","body":"x","x":` + strings.Repeat(`{"a":`, 50000) + "1" + strings.Repeat("}", 50000) + "}", 1, "JSON"},
		{"invalid UTF-8", good + good + `{"layer":"A","body":"caf` + "\xe9" + `"}`, 3, fmt.Sprintf("not valid UTF-8 (byte %d)", len(`{"layer":"A","body":"caf`))},
		{"array", good + `[{"layer":"A","body":"x"}]`, 2, "not a JSON object"},
		{"string", `"layer"`, 1, "not a JSON object"},
		{"number", good + "\n  7", 3, "not a JSON object"},
		{"null", `null`, 1, "not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := ReadJSONL(strings.NewReader(c.in))
			var le *LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.want) || recs != nil {
				t.Fatalf("err = %v, want line %d mentioning %q", err, c.line, c.want)
			}
		})
	}
}

// needDevZero returns /dev/zero, which every Linux system has.
func needDevZero(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/zero"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("/dev/zero is missing or not a device: %v", err)
		}
		t.Skip("/dev/zero is missing: cannot test reading a device")
	}
	return "/dev/zero"
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

func TestReadJSONLFileRefusesSpecialAndHugeFiles(t *testing.T) {
	t.Parallel()
	zero := needDevZero(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.jsonl")
	os.Symlink(zero, link)
	fifo := filepath.Join(dir, "fifo.jsonl")
	mkfifo(t, fifo)
	huge := filepath.Join(dir, "huge.jsonl")
	if err := os.WriteFile(huge, []byte(`{"layer":"A","body":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Sparse: a size over the limit without writing a gigabyte.
	if err := os.Truncate(huge, MaxImport+1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{zero, "is a device"}, {link, "is a device"}, {fifo, "is a FIFO"}, {dir, "is a directory"}, {huge, "over 1 GiB"},
	} {
		_, _, err := ReadJSONLFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.path, err, c.want)
		}
	}
}

// A FIFO swapped in after the check is opened without waiting for a
// writer, and refused.
func TestOpenRegularDoesNotBlockOnAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "swapped.md")
	mkfifo(t, fifo)
	f, _, err := openRegular(func(flag int) (*os.File, error) { return os.OpenFile(fifo, flag, 0) }, hintDirEntry)
	if err == nil {
		f.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Fatalf("err = %v", err)
	}
}

func writeMemoryFile(t *testing.T, path, title string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte("---\nlayer: A\ntitle: "+title+"\n---\nbody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadMarkdownRefusesHostileEntries(t *testing.T) {
	t.Parallel()
	zero := needDevZero(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	writeMemoryFile(t, outside, "from outside")
	cases := []struct {
		name  string
		plant func(t *testing.T, dir string)
		want  string
	}{
		{"symlink to /dev/zero", func(t *testing.T, dir string) { os.Symlink(zero, filepath.Join(dir, "A-state", "z.md")) }, "outside the import directory"},
		{"FIFO", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, "A-state", "f.md")) }, "is a FIFO"},
		{"symlink to a FIFO inside", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "fifo"))
			os.Symlink("../fifo", filepath.Join(dir, "A-state", "f.md"))
		}, "is a FIFO"},
		{"symlink out", func(t *testing.T, dir string) { os.Symlink(outside, filepath.Join(dir, "A-state", "s.md")) }, "outside the import directory"},
		{"relative symlink out", func(t *testing.T, dir string) {
			rel, _ := filepath.Rel(filepath.Join(dir, "A-state"), outside)
			os.Symlink(rel, filepath.Join(dir, "A-state", "s.md"))
		}, "outside the import directory"},
		{"dangling symlink", func(t *testing.T, dir string) { os.Symlink("nothing", filepath.Join(dir, "A-state", "s.md")) }, "leads nowhere"},
		{"too big", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "A-state", "big.md")
			writeMemoryFile(t, p, "big")
			os.Truncate(p, MaxFile+1)
		}, "over the 4 MiB"},
		{"alias bomb", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "A-state", "bomb.md"), []byte(aliasBomb(9)), 0o600)
		}, "anchors and aliases"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeMemoryFile(t, filepath.Join(dir, "A-state", "good.md"), "good")
			c.plant(t, dir)
			recs, files, err := ReadMarkdownFiles(dir)
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.Path, "A-state"+string(filepath.Separator)) || !strings.Contains(err.Error(), c.want) || recs != nil || files != nil {
				t.Fatalf("err = %v, want one naming the file and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("more than one line: %q", err)
			}
		})
	}
}

func TestReadMarkdownFollowsLinksInside(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "real")
	writeMemoryFile(t, filepath.Join(dir, "notes", "a.txt"), "linked")
	os.MkdirAll(filepath.Join(dir, "A-state"), 0o700)
	if err := os.Symlink(filepath.Join("..", "notes", "a.txt"), filepath.Join(dir, "A-state", "a.md")); err != nil {
		t.Fatal(err)
	}
	// The import directory may itself be reached through a link.
	via := filepath.Join(base, "via")
	os.Symlink(dir, via)
	for _, d := range []string{dir, via} {
		recs, files, err := ReadMarkdownFiles(d)
		if err != nil || len(recs) != 1 || recs[0].Title != "linked" || files[0] != filepath.Join("A-state", "a.md") {
			t.Fatalf("%s: %v %v %+v", d, err, files, recs)
		}
	}
}

func TestReadMarkdownPathMustBeAFileOrDirectory(t *testing.T) {
	t.Parallel()
	zero := needDevZero(t)
	fifo := filepath.Join(t.TempDir(), "in")
	mkfifo(t, fifo)
	for _, c := range []struct{ path, want string }{{zero, "is a device"}, {fifo, "is a FIFO"}} {
		if _, _, err := ReadMarkdownFiles(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.path, err, c.want)
		}
	}
	// One memory file named on its own is read.
	one := filepath.Join(t.TempDir(), "one.md")
	writeMemoryFile(t, one, "single")
	if recs, files, err := ReadMarkdownFiles(one); err != nil || len(recs) != 1 || files[0] != "one.md" {
		t.Fatalf("%v %v", err, files)
	}
}

func TestWriteMarkdownIsPrivateAndFollowsNoLinks(t *testing.T) {
	t.Parallel()
	recs := []memory.Record{
		{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Title: "private", Body: "the password rotation plan\n"},
		{ID: "01JD0000000000000000000BBB", Layer: memory.LayerEpisode, Title: "bench", Body: "-4 %"},
	}
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	elsewhere := filepath.Join(base, "elsewhere")
	os.Mkdir(elsewhere, 0o755)

	dir := filepath.Join(base, "out")
	os.MkdirAll(filepath.Join(dir, "D-decision"), 0o700)
	// A link planted where a file will be written, and one where a layer
	// directory will be.
	os.Symlink(victim, filepath.Join(dir, FileName(recs[0])))
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("export wrote through a planted link: %q", b)
	}
	for _, p := range []string{FileName(recs[0]), FileName(recs[1])} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, err, fi.Mode())
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "C-episode")); fi.Mode().Perm() != 0o700 {
		t.Fatalf("layer directory mode %v", fi.Mode())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".*")); len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}

	fresh := filepath.Join(base, "fresh", "notes")
	if err := WriteMarkdown(fresh, recs); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("export directory mode %v", fi.Mode())
	}

	layerLink := filepath.Join(base, "layerlink")
	os.Mkdir(layerLink, 0o700)
	os.Symlink(elsewhere, filepath.Join(layerLink, "C-episode"))
	if err := WriteMarkdown(layerLink, recs); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("layer directory link: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(elsewhere, link)
	if err := WriteMarkdown(link, recs); err == nil || !strings.Contains(err.Error(), "symbolic link to "+elsewhere) {
		t.Fatalf("export directory link: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("wrote through a link into %s: %v", elsewhere, ents)
	}
}

// A directory the walk cannot read (here: a path longer than the system
// takes, made through os.Root) refuses the import on one line that names
// where, whether it is among the notes or under a hidden directory that is
// only counted.
func TestReadVaultNamesWhatItCannotWalk(t *testing.T) {
	t.Parallel()
	for _, top := range []string{"notes", ".trash"} {
		dir := t.TempDir()
		writeMemoryFile(t, filepath.Join(dir, "a.md"), "fine")
		r, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		name := top
		for range 18 { // 18 names of 250 bytes: past PATH_MAX
			if err := r.Mkdir(name, 0o700); err != nil {
				r.Close()
				t.Fatal(err)
			}
			sub, err := r.OpenRoot(name)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			r, name = sub, strings.Repeat("d", 250)
		}
		r.Close()
		_, err = ReadVault(dir)
		if err == nil || !strings.HasPrefix(err.Error(), top) || !strings.HasSuffix(err.Error(), ": file name too long") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %.120v…", top, err)
		}
	}
}
