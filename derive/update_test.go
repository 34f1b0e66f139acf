package derive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// stampsOf folds a Delta into the stamps a caller keeps.
func stampsOf(prev map[string]Stamp, d Delta) map[string]Stamp {
	next := map[string]Stamp{}
	for p, s := range prev {
		next[p] = s
	}
	for _, p := range d.Removed {
		delete(next, p)
	}
	for _, f := range d.Changed {
		next[f.Path] = f.Stamp
	}
	for p, s := range d.Restamped {
		next[p] = s
	}
	return next
}

func changedPaths(d Delta) []string {
	var out []string
	for _, f := range d.Changed {
		out = append(out, f.Path)
	}
	return out
}

func restampedPaths(d Delta) []string {
	var out []string
	for p := range d.Restamped {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func TestUpdateIncremental(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.go":     "// Package a is the first.\npackage a\n\n// Hello greets.\nfunc Hello() {}\n",
		"b.md":     "# B\n\nAbout b.\n",
		"c.go":     "package a\n\n// C is c.\nconst C = 1\n",
		"e.md":     "# E\n",
		"keep.txt": "plain\n",
	})
	runGit(t, root, "init", "-q")
	ctx := context.Background()

	d, err := Update(ctx, root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedPaths(d); !reflect.DeepEqual(got, []string{"a.go", "b.md", "c.go", "e.md", "keep.txt"}) {
		t.Fatalf("first run changed %q", got)
	}
	if d.Unchanged != 0 || len(d.Restamped) != 0 || len(d.Removed) != 0 {
		t.Fatalf("first run: %+v", d)
	}
	a := d.Changed[0]
	if a.Lang != "go" || len(a.Sections) != 3 || a.Sections[1].Name != "Hello" || a.Sections[2].Kind != KindFile || !reflect.DeepEqual(a.Exported, []string{"Hello"}) {
		t.Errorf("a.go read as %+v", a)
	}
	if a.Hash == "" || len(a.Hash) != 16 || a.Size == 0 || a.ModTime == 0 {
		t.Errorf("a.go stamped %+v", a.Stamp)
	}
	if k := d.Changed[4]; k.Lang != "text" || len(k.Sections) != 0 {
		t.Errorf("a file no reader reads: %+v", k)
	}
	prev := stampsOf(nil, d)

	// Nothing moved: nothing is read.
	d, err = Update(ctx, root, Options{}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if d.Unchanged != 5 || len(d.Changed) != 0 || len(d.Restamped) != 0 || len(d.Removed) != 0 {
		t.Fatalf("unchanged run: %+v", d)
	}

	// Change a.go, touch b.md (same content), rename c.go to d.go, delete e.md.
	later := time.Now().Add(-30 * time.Minute)
	writeTree(t, root, map[string]string{"a.go": "package a\n\n// Bye parts.\nfunc Bye() {}\n"})
	mustOK(t, os.Chtimes(filepath.Join(root, "a.go"), later, later))
	mustOK(t, os.Chtimes(filepath.Join(root, "b.md"), later, later))
	mustOK(t, os.Rename(filepath.Join(root, "c.go"), filepath.Join(root, "d.go")))
	mustOK(t, os.Remove(filepath.Join(root, "e.md")))
	d, err = Update(ctx, root, Options{}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedPaths(d); !reflect.DeepEqual(got, []string{"a.go", "d.go"}) {
		t.Errorf("changed %q", got)
	}
	if got := restampedPaths(d); !reflect.DeepEqual(got, []string{"b.md"}) {
		t.Errorf("restamped %q", got)
	}
	if s := d.Restamped["b.md"]; s.Hash != prev["b.md"].Hash || s.ModTime != later.UnixNano() {
		t.Errorf("b.md restamped %+v (was %+v)", s, prev["b.md"])
	}
	if !reflect.DeepEqual(d.Removed, []string{"c.go", "e.md"}) {
		t.Errorf("removed %q", d.Removed)
	}
	if d.Unchanged != 1 {
		t.Errorf("unchanged %d, want 1 (keep.txt)", d.Unchanged)
	}
	if got := d.Changed[0].Sections; len(got) != 2 || got[0].Name != "Bye" || got[1].Kind != KindFile {
		t.Errorf("a.go now has %+v", got)
	}
	prev = stampsOf(prev, d)

	// A file that turns binary is removed and counted as skipped.
	writeTree(t, root, map[string]string{"keep.txt": "now\x00binary"})
	d, err = Update(ctx, root, Options{}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Removed, []string{"keep.txt"}) || d.Skipped[SkipBinary] != 1 || len(d.Changed) != 0 {
		t.Errorf("turned binary: %+v", d)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestUpdateRecentFileIsHashedAgain(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"now.md": "# Now\n", "old.md": "# Old\n"})
	// A modification time in the clock's current tick (here: ahead of
	// it) cannot tell a later write in the same tick apart.
	soon := time.Now().Add(time.Hour)
	mustOK(t, os.Chtimes(filepath.Join(root, "now.md"), soon, soon))
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Changed[0].Path != "now.md" || d.Changed[0].ModTime != 0 || d.Changed[1].ModTime == 0 {
		t.Fatalf("stamps %+v / %+v", d.Changed[0].Stamp, d.Changed[1].Stamp)
	}
	d, err = Update(context.Background(), root, Options{}, stampsOf(nil, d))
	if err != nil {
		t.Fatal(err)
	}
	if d.Unchanged != 1 || len(d.Changed) != 0 || len(d.Restamped) != 1 {
		t.Errorf("second run: %+v", d)
	}
}

func TestUpdateFileVanishedBeforeRead(t *testing.T) {
	root := t.TempDir()
	r := readEntry(root, "listed-then-deleted.go", Options{})
	if !r.gone {
		t.Errorf("a file gone before its read: %+v", r)
	}
	// And through Update: a stamp for a file that is not there is Removed.
	d, err := Update(context.Background(), root, Options{}, map[string]Stamp{"x.go": {Size: 1, ModTime: 1, Hash: "00"}})
	if err != nil || !reflect.DeepEqual(d.Removed, []string{"x.go"}) {
		t.Errorf("%+v %v", d, err)
	}
}

func TestUpdateReaderFailuresStayInTheirFile(t *testing.T) {
	register(language{name: "boom", exts: []string{".boom"}, extract: func(string, []byte) ([]Section, error) {
		panic("reader bug")
	}})
	register(language{name: "half", exts: []string{".half"}, extract: func(p string, src []byte) ([]Section, error) {
		return []Section{{Kind: KindFunc, Name: "first", Line: 1, EndLine: 1, Doc: strings.Repeat("word ", 400)}}, errors.New("line 2: unexpected token")
	}})
	t.Cleanup(func() { delete(languages, ".boom"); delete(languages, ".half") })
	root := t.TempDir()
	writeTree(t, root, map[string]string{"x.boom": "x", "y.half": "y", "z.md": "# Z\n"})
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changed) != 3 {
		t.Fatalf("changed %q", changedPaths(d))
	}
	x, y, z := d.Changed[0], d.Changed[1], d.Changed[2]
	if x.Lang != "boom" || x.Sections != nil || !strings.Contains(x.Err, "reader bug") || x.Hash == "" {
		t.Errorf("a reader's panic: %+v", x)
	}
	if y.Err != "line 2: unexpected token" || len(y.Sections) != 1 || y.Sections[0].Path != "y.half" || y.Sections[0].Lang != "half" {
		t.Errorf("a reader's error: %+v", y)
	}
	if doc := y.Sections[0].Doc; len(doc) > DocLimit || !strings.HasSuffix(doc, "word…") {
		t.Errorf("a long doc is cut at a word: %d bytes, ends %q", len(doc), doc[len(doc)-10:])
	}
	if len(z.Sections) != 1 || z.Err != "" {
		t.Errorf("the other files are read: %+v", z)
	}
}

func TestUpdateDeterministicOrder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 200; i++ {
		files[filepath.ToSlash(filepath.Join(string(rune('a'+i%7)), strings.Repeat("x", i%13+1)+".md"))] = "# T\n"
	}
	writeTree(t, root, files)
	var first []string
	for run := 0; run < 3; run++ {
		d, err := Update(context.Background(), root, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := changedPaths(d)
		if !sort.StringsAreSorted(got) || len(got) != len(files) {
			t.Fatalf("run %d: %d files, sorted %v", run, len(got), sort.StringsAreSorted(got))
		}
		if run == 0 {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Fatal("two runs differ")
		}
	}
}

func TestReaderForLongestExtension(t *testing.T) {
	register(language{name: "dts", exts: []string{".d.ts"}})
	register(language{name: "ts", exts: []string{".ts"}})
	t.Cleanup(func() { delete(languages, ".d.ts"); delete(languages, ".ts") })
	for p, wantSection := range map[string]string{"a/b.d.ts": "dts", "a/b.ts": "ts", "README.MD": "markdown", "x.go": "go"} {
		if l, ok := readerFor(p); !ok || l.name != wantSection {
			t.Errorf("readerFor(%q) = %q, want %q", p, l.name, wantSection)
		}
	}
	if _, ok := readerFor("Makefile"); ok {
		t.Error("a Makefile has a reader")
	}
}

func TestCutDoc(t *testing.T) {
	long := strings.Repeat("ab ", 1000)
	if got := cutDoc(long); len(got) > DocLimit || !strings.HasSuffix(got, "ab…") {
		t.Errorf("cut to %d bytes: …%q", len(got), got[len(got)-8:])
	}
	word := strings.Repeat("é", 1000) // one long word of two-byte runes
	got := cutDoc(word)
	if len(got) > DocLimit || !strings.HasSuffix(got, "é…") {
		t.Errorf("a long word cut to %d bytes: …%q", len(got), got[len(got)-8:])
	}
	if cutDoc("  short  ") != "short" {
		t.Error("short docs are only trimmed")
	}
}

func TestUpdateNewReaderRereadsItsFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.zz": "zz data\n", "b.md": "# B\n"})
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := stampsOf(nil, d)
	if prev["a.zz"].Reader != "" || prev["b.md"].Reader == "" {
		t.Fatalf("stamps %+v", prev)
	}
	// A reader for .zz lands: a.zz is read again, b.md is not.
	register(language{name: "zz", exts: []string{".zz"}, extract: func(string, []byte) ([]Section, error) {
		return []Section{{Kind: KindFunc, Name: "Z", Line: 1, EndLine: 1}}, nil
	}})
	t.Cleanup(func() { delete(languages, ".zz") })
	d, err = Update(context.Background(), root, Options{}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedPaths(d); !reflect.DeepEqual(got, []string{"a.zz"}) || len(d.Changed[0].Sections) != 1 || d.Unchanged != 1 {
		t.Fatalf("after a new reader: changed %q, unchanged %d", got, d.Unchanged)
	}
	// Its next version reads it again too.
	prev = stampsOf(prev, d)
	readerVersions["zz"] = 2
	t.Cleanup(func() { delete(readerVersions, "zz") })
	d, err = Update(context.Background(), root, Options{}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedPaths(d); !reflect.DeepEqual(got, []string{"a.zz"}) || d.Changed[0].Reader != fmt.Sprintf("zz/2.%d", formatVersion) {
		t.Fatalf("after a new version: changed %q", got)
	}
}

func TestUpdateCancelled(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.md": "# A\n", "b.md": "# B\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Update(ctx, root, Options{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled update: %v", err)
	}
}

// A file read, written as JSON (what the store or `cairn index --json`
// keeps) and read back, is the same file.
func TestFileJSONRoundTrip(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goClient, "README.md": readmeFixture})
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Changed {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var back File
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, f) {
			t.Errorf("%s: %+v\nread back as %+v", f.Path, f, back)
		}
		if !strings.Contains(string(b), `"mtime":`) || !strings.Contains(string(b), `"sections":[`) {
			t.Errorf("%s as JSON: %s", f.Path, b)
		}
	}
}
