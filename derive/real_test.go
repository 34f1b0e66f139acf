package derive

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// findSection is the section of path named name, if any.
func findSection(files []File, path, name string) (Section, bool) {
	for _, f := range files {
		if f.Path != path {
			continue
		}
		for _, s := range f.Sections {
			if s.Name == name {
				return s, true
			}
		}
	}
	return Section{}, false
}

// TestIndexThisRepository reads cairn's own repository as `cairn index`
// will, and looks for what a person would ask about.
func TestIndexThisRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not run from the repository")
	}
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changed) < 100 {
		t.Fatalf("only %d files read", len(d.Changed))
	}
	for _, c := range []struct{ path, name, kind, doc string }{
		{"derive/update.go", "Update", "func", "Update reads what changed"},
		{"derive/section.go", "Section", "type", "Section is one named piece"},
		{"derive/section.go", "derive", "package", "Package derive reads what a repository says"},
		{"docs/speed.md", "Speed", "heading", "Measured on this project's machine"},
		{"README.md", "cairn", "package", "cairn is long-term memory"},
	} {
		s, ok := findSection(d.Changed, c.path, c.name)
		if !ok {
			t.Errorf("no section %q in %s", c.name, c.path)
			continue
		}
		if string(s.Kind) != c.kind || !strings.HasPrefix(s.Doc, c.doc) || s.Line < 1 {
			t.Errorf("%s %q: %s at %d, doc %.60q", c.path, c.name, s.Kind, s.Line, s.Doc)
		}
	}
	for _, f := range d.Changed {
		if f.Err != "" {
			t.Errorf("%s: %s", f.Path, f.Err)
		}
		if f.Path == "go.sum" || strings.HasPrefix(f.Path, ".git/") {
			t.Errorf("%s listed", f.Path)
		}
	}
	var ps []string
	for _, f := range d.Changed {
		ps = append(ps, f.Path)
	}
	facts := ProjectFacts(root, ps)
	if facts.Module != "cairn" || facts.Language != "go" {
		t.Errorf("facts %+v", facts)
	}
	if s := Summary(facts, Modules(d.Changed), 0); !strings.Contains(s, "test: make test") || !strings.Contains(s, "- store/") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestIndexBadgerSource reads the source of a real dependency from the
// module cache (not a git repository: the walk) and finds what its users
// look up. It asks the go command for the directory with the network off
// and skips when the module is not in the cache.
func TestIndexBadgerSource(t *testing.T) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/dgraph-io/badger/v4")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("badger is not in the module cache: %v", err)
	}
	d, err := Update(context.Background(), dir, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, name, kind, doc string }{
		{"txn.go", "DB.NewTransaction", "method", "NewTransaction creates a new transaction."},
		{"db.go", "Open", "func", "Open returns a new DB object."},
		{"db.go", "DB", "type", "DB provides the various functions required to interact with Badger."},
		{"options.go", "DefaultOptions", "func", "DefaultOptions sets a list of recommended options"},
		{"README.md", "Getting Started", "heading", ""},
	} {
		s, ok := findSection(d.Changed, c.path, c.name)
		if !ok {
			t.Errorf("no section %q in %s", c.name, c.path)
			continue
		}
		if string(s.Kind) != c.kind || !strings.HasPrefix(s.Doc, c.doc) {
			t.Errorf("%s %q: %s, doc %.80q", c.path, c.name, s.Kind, s.Doc)
		}
	}
	if s, ok := findSection(d.Changed, "txn.go", "DB.NewTransaction"); ok && s.Signature != "func (db *DB) NewTransaction(update bool) *Txn" {
		t.Errorf("signature %q", s.Signature)
	}
	mods := Modules(d.Changed)
	for _, m := range mods {
		if m.Path == "" && !strings.Contains(m.Summary, "key-value") {
			t.Errorf("badger's root module says %q", m.Summary)
		}
	}
}
