package derive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fixtures in testdata/langs were written for these tests; each
// carries the cases a line-based reader gets wrong when careless.

func TestPythonFixture(t *testing.T) {
	want := []string{
		`3-6 package lib.policy || Retry policies for the HTTP client.\n\nBackoff is exponential, with jitter.`,
		`11-12 const MAX_ATTEMPTS | MAX_ATTEMPTS = 5 | How many times a request is tried before giving up.`,
		`16-17 const JITTER | JITTER: float = 0.25 | Seconds added at random to each wait.`,
		`19-20 const RETRY_CODES | RETRY_CODES = (429, 502, 503) | Status codes worth another attempt.`,
		`28-37 func backoff | def backoff(attempt: int, base: float = 0.5) -> float | Seconds to wait before attempt number *attempt*.`,
		`34-36 func backoff.inner | def inner() | A nested function is a section of its own.`,
		`40-62 class Policy | class Policy(Base, metaclass=Meta) | A retry policy.\n\nIt keeps count of attempts.`,
		`48-49 method Policy.__init__ | def __init__(self, limit) |`,
		`51-55 method Policy.allow | async def allow(self, n) | Whether another attempt is allowed.`,
		`57-58 method Policy.name | def name(self) |`,
		`60-62 class Policy.Nested | class Nested |`,
		`61-62 method Policy.Nested.hidden | def hidden(self) |`,
		`65-70 func fetch | async def fetch(url, *, attempts=MAX_ATTEMPTS) |`,
		`73-75 func after | def after() | Found after the f-string and the match.`,
		`79-80 func main | def main() |`, // in the if __name__ == "__main__" block
	}
	checkFixture(t, "policy.py", want)
}

func TestPythonCases(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", nil},
		{"only comments", "# nothing\n# here\n", nil},
		{"one-line docstring in the header", "def f(): 'Doc.'\n",
			[]string{`1-1 func f | def f() | Doc.`}},
		{"single-quoted docstring, prefixes", "class A:\n    u'''Doc\n    more.'''\n",
			[]string{`1-3 class A | class A | Doc\nmore.`}},
		{"concatenated docstring", "def f():\n    'Two ' 'parts.'\n", []string{`1-2 func f | def f() | Two parts.`}},
		{"comment above is the doc when there is no docstring", "x = 1\n# Adds.\n# Twice.\ndef add(a, b):\n    return a + b\n",
			[]string{`2-5 func add | def add(a, b) | Adds.\nTwice.`}},
		{"a blank line cuts the comment off", "# Not mine.\n\ndef f():\n    pass\n", []string{`3-4 func f | def f() |`}},
		{"def in a string is not a def", "S = '''\ndef g():\n    pass\n'''\ndef f():\n    pass\n",
			[]string{`5-6 func f | def f() |`}},
		{"def after an unterminated string", "s = 'oops\ndef f():\n    pass\n", []string{`2-3 func f | def f() |`}},
		{"backslash continuation", "def f(a, \\\n      b):\n    pass\n", []string{`1-3 func f | def f(a, b) |`}},
		{"blank and comment lines inside a body", "def f():\n    a = 1\n\n# stray\n    return a\nX = 2\n",
			[]string{`1-5 func f | def f() |`}},
		{"lowercase constant with a comment is not a constant", "# The answer.\nanswer = 42\n", nil},
		{"comparison is not a constant", "# Check.\nDEBUG == True\n", nil},
		{"type alias", "# A vector.\ntype Vec[T] = list[T]\n", []string{`1-2 type Vec | type Vec[T] = list[T] | A vector.`}},
		{"decorated class with a long signature",
			"@dataclass(frozen=True)\nclass Config(\n    Base,\n    Mixin,\n):\n    \"\"\"Settings.\"\"\"\n    port: int = 8080\n",
			[]string{`1-7 class Config | class Config(Base, Mixin) | Settings.`}},
		{"overloads and a property's setter are one section",
			"@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    \"Either.\"\n" +
				"class A:\n    @property\n    def v(self):\n        \"The value.\"\n    @v.setter\n    def v(self, x):\n        pass\n",
			[]string{`1-6 func f | def f(x: int) -> int | Either.`, `7-13 class A | class A |`, `8-13 method A.v | def v(self) | The value.`}},
		{"unterminated triple quote", "def f():\n    \"\"\"Never closed\n", []string{`1-2 func f | def f() | Never closed`}},
		{"tabs", "class A:\n\tdef m(self):\n\t\tpass\n\tdef n(self):\n\t\tpass\n",
			[]string{`1-5 class A | class A |`, `2-3 method A.m | def m(self) |`, `4-5 method A.n | def n(self) |`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			secs, err := extractPython("m.py", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			compareSections(t, secs, c.want)
		})
	}
}

func TestPythonModuleName(t *testing.T) {
	for p, want := range map[string]string{
		"pkg/sub/__init__.py": "pkg.sub",
		"src/pkg/mod.py":      "pkg.mod",
		"tool.pyi":            "tool",
	} {
		if got := pyModuleName(p); got != want {
			t.Errorf("pyModuleName(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestPythonLineEndings(t *testing.T) {
	checkLineEndings(t, "policy.py", extractPython)
}

func FuzzPython(f *testing.F) {
	fuzzSeeds(f, "policy.py", "def f(:\n", "'''", "f'{", "f\"{'{'}\"", "class A:\n  @x\n", "\\", "#\r\n", "\xef\xbb\xbf\"\"\"doc\"\"\"",
		"def 0(0\""+strings.Repeat("0", 73)+"\xa2"+strings.Repeat("0", 130))
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, err := extractPython("f.py", src)
		checkInvariants(t, src, secs, err)
	})
}

func BenchmarkPython(b *testing.B) { benchReader(b, "policy.py", extractPython) }

// render writes a section as "line-end kind name | signature | doc" with
// the doc's line breaks as \n, so a table reads one section a line.
func render(s Section) string {
	doc := strings.ReplaceAll(s.Doc, "\n", `\n`)
	out := fmt.Sprintf("%d-%d %s %s | %s | %s", s.Line, s.EndLine, s.Kind, s.Name, s.Signature, doc)
	if s.Kind == KindPackage && s.Signature == "" {
		out = fmt.Sprintf("%d-%d %s %s || %s", s.Line, s.EndLine, s.Kind, s.Name, doc)
	}
	return strings.TrimSpace(out)
}

func compareSections(t *testing.T, secs []Section, want []string) {
	t.Helper()
	var got []string
	for _, s := range secs {
		got = append(got, render(s))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkFixture reads testdata/langs/name with the reader its extension
// names and compares its sections, and checks their path and language.
func checkFixture(t *testing.T, name string, want []string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "langs", name))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := languages[filepath.Ext(name)]
	if !ok {
		t.Fatalf("no reader registered for %s", name)
	}
	secs, err := l.extract("lib/"+name, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.Path != "lib/"+name || s.Lang != l.name {
			t.Errorf("%s: path %q lang %q, want lib/%s %s", s.Name, s.Path, s.Lang, name, l.name)
		}
	}
	compareSections(t, secs, want)
	checkInvariants(t, src, secs, err)
}

// checkLineEndings reads a fixture as written, then with CRLF line
// endings and a byte order mark, then indented with tabs: the sections
// must be the same.
func checkLineEndings(t *testing.T, name string, read extractor) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "langs", name))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := read(name, src)
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...)
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		n := 0
		for strings.HasPrefix(l[n:], "  ") {
			n += 2
		}
		lines[i] = strings.Repeat("\t", n/2) + l[n:]
	}
	tabs := []byte(strings.Join(lines, "\n"))
	for variant, in := range map[string][]byte{"CRLF and BOM": crlf, "tabs": tabs} {
		got, _ := read(name, in)
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: %d sections, want %d", variant, len(got), len(want))
		}
		for i := range want {
			if render(got[i]) != render(want[i]) {
				t.Errorf("%s:\n%s\nwant\n%s", variant, render(got[i]), render(want[i]))
			}
		}
	}
}

// checkInvariants asserts what holds for any input: no error, sections in
// file order, lines inside the file, docs within DocLimit, signatures
// bounded, and all text valid UTF-8.
func checkInvariants(t *testing.T, src []byte, secs []Section, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("error: %v", err)
	}
	lines := bytes.Count(src, []byte("\n")) + 1
	prev := 0
	for _, s := range secs {
		if s.Line < 1 || s.EndLine < s.Line || s.EndLine > lines {
			t.Fatalf("%s %q: lines %d-%d outside 1-%d", s.Kind, s.Name, s.Line, s.EndLine, lines)
		}
		if s.Line < prev {
			t.Fatalf("%s %q at line %d comes after line %d", s.Kind, s.Name, s.Line, prev)
		}
		prev = s.Line
		if len(s.Doc) > DocLimit || len(s.Signature) > sigLimit+len("…") {
			t.Fatalf("%s %q: doc %d bytes, signature %d bytes", s.Kind, s.Name, len(s.Doc), len(s.Signature))
		}
		if !utf8.ValidString(s.Name) || !utf8.ValidString(s.Doc) || !utf8.ValidString(s.Signature) {
			t.Fatalf("%s %q: invalid UTF-8", s.Kind, s.Name)
		}
		if s.Kind == "" {
			t.Fatalf("section %q without a kind", s.Name)
		}
	}
}

// fuzzSeeds adds a fixture and some broken fragments as seeds.
func fuzzSeeds(f *testing.F, fixture string, seeds ...string) {
	src, err := os.ReadFile(filepath.Join("testdata", "langs", fixture))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(src)
	f.Add(src[:len(src)/2])
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

// benchReader reads a fixture repeated to about 2,000 lines.
func benchReader(b *testing.B, fixture string, read extractor) {
	src, err := os.ReadFile(filepath.Join("testdata", "langs", fixture))
	if err != nil {
		b.Fatal(err)
	}
	var big []byte
	for bytes.Count(big, []byte("\n")) < 2000 {
		big = append(big, src...)
	}
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read("bench"+filepath.Ext(fixture), big); err != nil {
			b.Fatal(err)
		}
	}
}

// realFiles lists the files with extension ext in a module the build
// already downloaded (Badger's dependency flatbuffers carries Python,
// TypeScript and Rust sources); the test is skipped when it is not there.
func realFiles(t *testing.T, ext string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/flatbuffers").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skip("flatbuffers is not in the module cache")
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no %s files in %s", ext, dir)
	}
	return files
}

// readReal reads every real file with extension ext, checks the
// invariants on each, and returns the sections by name ("file: Name").
func readReal(t *testing.T, ext string, read extractor) map[string]Section {
	t.Helper()
	all := map[string]Section{}
	for _, p := range realFiles(t, ext) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		secs, err := read(p, src)
		checkInvariants(t, src, secs, err)
		for _, s := range secs {
			all[filepath.Base(p)+": "+s.Name] = s
		}
	}
	return all
}

func TestPythonRealFiles(t *testing.T) {
	all := readReal(t, ".py", extractPython)
	s, ok := all["builder.py: Builder.StartObject"]
	if !ok || s.Kind != KindMethod || !strings.HasPrefix(s.Doc, "StartObject initializes bookkeeping") ||
		s.Signature != "def StartObject(self, numfields)" {
		t.Errorf("builder.py: Builder.StartObject = %+v", s)
	}
	if s, ok := all["builder.py: vtableEqual"]; !ok || s.Kind != KindFunc {
		t.Errorf("builder.py: vtableEqual = %+v", s)
	}
}

// astScript lists, for each Python file under a directory, the functions,
// classes and methods at any depth (in classes, in functions, in the
// bodies of if, try, with, for, while and match) as Python's own parser
// sees them: name, kind, first line (the first decorator's),
// last line and the docstring's first line (empty when the docstring has
// escapes, which the reader keeps as written). Consecutive definitions of
// one name (overloads, a property's setter) are merged, as the reader
// merges them.
const astScript = `
import ast, json, os, sys, warnings
warnings.simplefilter("ignore")
def defs(lines, body, prefix, in_class, out):
    for n in body:
        if isinstance(n, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())):
            subs = list(n.body)
            for h in getattr(n, "handlers", []):
                subs += h.body
            subs += getattr(n, "orelse", []) + getattr(n, "finalbody", [])
            defs(lines, subs, prefix, in_class, out)
            continue
        if hasattr(ast, "Match") and isinstance(n, ast.Match):
            defs(lines, [s for c in n.cases for s in c.body], prefix, in_class, out)
            continue
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        kind = "class" if isinstance(n, ast.ClassDef) else ("method" if in_class else "func")
        start = min([n.lineno] + [d.lineno for d in n.decorator_list])
        doc = ast.get_docstring(n) or ""
        seg = "\n".join(lines[n.body[0].lineno - 1:n.body[0].end_lineno]) if doc else ""
        first = doc.strip().split("\n")[0].strip() if doc and "\\" not in seg else ""
        d = {"name": prefix + n.name, "kind": kind, "line": start, "end": n.end_lineno, "doc": first}
        if out and out[-1]["name"] == d["name"] and out[-1]["kind"] == kind:
            out[-1]["end"] = d["end"]
            out[-1]["doc"] = out[-1]["doc"] or first
        else:
            out.append(d)
        defs(lines, n.body, prefix + n.name + ".", kind == "class", out)
for dp, dn, fn in os.walk(sys.argv[1]):
    dn[:] = sorted(d for d in dn if d not in ("site-packages", "dist-packages", "test", "tests"))
    for f in sorted(fn):
        if not f.endswith(".py"):
            continue
        p = os.path.join(dp, f)
        try:
            src = open(p, "rb").read()
            tree = ast.parse(src)
        except Exception:
            continue
        out = []
        defs(src.decode("utf-8", "replace").split("\n"), tree.body, "", False, out)
        print(json.dumps({"path": p, "defs": out}))
`

// TestPythonAgainstAST reads Python's own standard library (without its
// test suite, for time) and compares every definition with what Python's
// parser says: none missing, none invented, the same lines and
// docstrings.
func TestPythonAgainstAST(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole standard library")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		t.Skip("python3 does not say where its library is")
	}
	stdlib := strings.TrimSpace(string(out))
	ref, err := exec.Command(py, "-c", astScript, stdlib).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	type def struct {
		Name, Kind, Doc string
		Line, End       int
	}
	files, defs, bad := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(ref)), "\n") {
		var f struct {
			Path string
			Defs []def
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		secs, err := extractPython(f.Path, src)
		checkInvariants(t, src, secs, err)
		var got []def
		for _, s := range secs {
			if s.Kind == KindFunc || s.Kind == KindClass || s.Kind == KindMethod {
				got = append(got, def{Name: s.Name, Kind: string(s.Kind), Line: s.Line, End: s.EndLine, Doc: s.Doc})
			}
		}
		files++
		defs += len(f.Defs)
		for i := 0; i < len(f.Defs) || i < len(got); i++ {
			var w, g def
			if i < len(f.Defs) {
				w = f.Defs[i]
			}
			if i < len(got) {
				g = got[i]
			}
			// Without a docstring the reader may take the comment above
			// as the doc, and start there.
			startOK := g.Line == w.Line || w.Doc == "" && g.Line < w.Line && g.Doc != ""
			if g.Name != w.Name || g.Kind != w.Kind || g.End != w.End || !startOK || !strings.HasPrefix(g.Doc, w.Doc) {
				if bad++; bad <= 10 {
					t.Errorf("%s: got %+v, Python says %+v", f.Path, g, w)
				}
				break
			}
		}
	}
	if files < 100 {
		t.Fatalf("only %d files in %s", files, stdlib)
	}
	t.Logf("%d files, %d definitions, %d files differ", files, defs, bad)
}
