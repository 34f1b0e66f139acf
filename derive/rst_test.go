package derive

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// readFixture reads a file of testdata/langs.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "langs", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestExtractRST(t *testing.T) {
	t.Parallel()
	got, _ := extractRST("docs/guide.rst", readFixture(t, "guide.rst"))
	expectSections(t, "guide.rst", got, []wantSection{
		{KindHeading, "Handling App Errors", 3, 53, "", "Applications fail, servers fail. Register an errorhandler or read\nthe error docs for abort.\n\nHandlers are looked up by code first.\n\nError Logging Tools\n\nSending error mails."},
		{KindHeading, "Error Logging Tools", 15, 33, "", "Sending error mails.\n\npython\n\napp = Flask(__name__)\n\nRegistering"},
		{KindHeading, "Registering", 27, 33, "", "Register handlers with a decorator:\n\n@app.errorhandler(404)"},
		{KindHeading, "Custom Pages", 35, 40, "", "Show a page of your own.\nNot a title: the line above is text"},
		{KindHeading, "Short underline, still a title", 42, 46, "", "An indented line"},
		{KindHeading, "Next Chapter", 48, 53, "", "Last words."},
	})
	if d := got[0].Doc; strings.Contains(d, "is not text") || strings.Contains(d, "tip") || strings.Contains(d, "----") || strings.Contains(d, "_guide") {
		t.Errorf("a comment, a directive's option or a link target read as text: %q", d)
	}
}

// rstScript prints, for each file it is given that docutils reads without
// a severe error (an unknown directive is only an error), its section titles and the lines of their underlines.
const rstScript = `
import sys, json
import docutils.frontend, docutils.utils, docutils.parsers.rst, docutils.nodes as n
settings = docutils.frontend.get_default_settings(docutils.parsers.rst.Parser)
settings.report_level = 5
settings.halt_level = 5
for p in sys.argv[1:]:
    try:
        src = open(p, encoding="utf-8").read()
    except Exception:
        continue
    doc = docutils.utils.new_document(p, settings)
    docutils.parsers.rst.Parser().parse(src, doc)
    if any(m["level"] >= 4 for m in doc.findall(n.system_message)):
        continue
    out = [{"name": s.next_node(n.title).astext(), "line": s.next_node(n.title).line} for s in doc.findall(n.section)]
    print(json.dumps({"path": p, "titles": out}))
`

// TestRSTAgainstDocutils compares the titles the reader finds with what
// docutils, reStructuredText's own parser, makes sections of: the
// fixture and the .rst files of the Python installation's packages and of
// /usr/share/doc (at most 400; not awscli's thousands of one-title
// examples), when python3 has docutils.
func TestRSTAgainstDocutils(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if exec.Command(py, "-c", "import docutils").Run() != nil {
		t.Skip("python3 has no docutils")
	}
	files := []string{"testdata/langs/guide.rst"}
	roots := []string{"/usr/share/doc"}
	if out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output(); err == nil {
		roots = append(roots, strings.TrimSpace(string(out)))
	}
	var found []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rst") && !strings.Contains(p, "/awscli/examples/") {
				found = append(found, p)
			}
			return nil
		})
	}
	{
		sort.Strings(found)
		if len(found) > 400 {
			step := len(found) / 400
			for i := 0; i < 400; i++ {
				found[i] = found[i*step]
			}
			found = found[:400]
		}
		files = append(files, found...)
	}
	ref, err := exec.Command(py, append([]string{"-c", rstScript}, files...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	compared, titles, bad := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(ref)), "\n") {
		var f struct {
			Path   string
			Titles []struct {
				Name string
				Line int
			}
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		secs, _ := extractRST(f.Path, src)
		checkSectionBounds(t, secs, src)
		compared++
		titles += len(f.Titles)
		for i := 0; i < len(f.Titles) || i < len(secs); i++ {
			var w struct {
				Name string
				Line int
			}
			var g Section
			if i < len(f.Titles) {
				w = f.Titles[i]
			}
			if i < len(secs) {
				g = secs[i]
			}
			if norm(g.Name) != norm(w.Name) || (g.Line != w.Line-1 && g.Line != w.Line-2) {
				if bad++; bad <= 10 {
					t.Errorf("%s: title %d: got %q at %d, docutils says %q underlined at %d", f.Path, i, g.Name, g.Line, w.Name, w.Line)
				}
				break
			}
		}
	}
	if compared == 0 {
		t.Fatal("docutils read none of the files")
	}
	t.Logf("%d files, %d titles, %d files differ", compared, titles, bad)
}

// FuzzExtractRST: no input makes the reader panic, and every section lies
// within the file.
func FuzzExtractRST(f *testing.F) {
	f.Add([]byte("Title\n=====\n\ntext\n"))
	f.Add([]byte("===\nA\n===\n\n.. note::\n  :x:\n\n  y\n"))
	f.Add([]byte("A\n-\n\nB\n~\n\r\n\xff"))
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, _ := extractRST("f.rst", src)
		checkSectionBounds(t, secs, src)
	})
}
