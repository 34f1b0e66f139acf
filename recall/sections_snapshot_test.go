package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// countingStore is the real store, counting the files of one project's
// derived memory the engine reads (by prefix: "" is every file, a
// rebuild).
type countingStore struct {
	*store.DB
	pid   string
	mu    sync.Mutex
	reads []string
}

func (c *countingStore) DerivedFiles(ctx context.Context, project, prefix string) ([]memory.DerivedFile, error) {
	c.mu.Lock()
	if project == c.pid {
		c.reads = append(c.reads, prefix)
	}
	c.mu.Unlock()
	return c.DB.DerivedFiles(ctx, project, prefix)
}

func (c *countingStore) read() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reads...)
}

// start is a server's start: an engine on the store that keeps its
// indexes at path, built, with its reads counted.
func (f *fixture) start(t *testing.T, path string) *countingStore {
	t.Helper()
	c := &countingStore{DB: f.db, pid: f.pid}
	f.e = NewEngine(c, nil)
	f.e.Persist(path)
	if err := f.e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

// A server's stop saves the repository sections' index beside the
// memory index, and the next start reads it instead of every section
// again; what changed in the repository meanwhile (a file read again, a
// file gone) is caught up from the store, file by file.
func TestSectionIndexSavedAcrossStarts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.derive(t, repoFiles()...)
	// The summary's commands and modules are sections too, taken afresh
	// from the store at each start, never twice.
	sum := memory.RepoSummary{Files: 3, Facts: memory.Facts{Commands: []memory.Command{{Name: "test", Run: "make test", Recipe: "go test -race ./...", Source: "Makefile:4"}}},
		Modules: []memory.Module{{Path: "net", Files: 1, Sections: 2, Summary: "Retries and backoff for outgoing requests.", Exported: []string{"RetryPolicy"}}}}
	if err := f.db.UpdateDerived(ctx, f.pid, memory.DerivedUpdate{Summary: sum}, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "recall.index")

	c := f.start(t, path)
	built := f.recall(t, "where is the retry policy configured?").Repository
	if len(built) == 0 || built[0].Path != "net/retry.go" {
		t.Fatalf("first start: %+v", built)
	}
	if got := c.read(); len(got) != 1 || got[0] != "" {
		t.Fatalf("the first start reads every file once, read %q", got)
	}
	if err := f.e.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + sectionsSuffix); err != nil {
		t.Fatalf("no saved section index: %v", err)
	}

	// The next start reads no file of the repository: the saved index
	// answers as the built one did.
	c = f.start(t, path)
	if r := f.recall(t, "where is the retry policy configured?").Repository; !reflect.DeepEqual(r, built) {
		t.Fatalf("after a start:\n%+v\nbuilt:\n%+v", r, built)
	}
	if r := f.recall(t, "how do I run the tests").Repository; len(r) == 0 || r[0].Name != "Running the tests" {
		t.Fatalf("after a start, the README's section: %+v", r)
	}
	if got := c.read(); len(got) != 0 {
		t.Fatalf("a start with a saved index read %q again", got)
	}
	if err := f.e.Save(); err != nil {
		t.Fatal(err)
	}

	// The repository is indexed again while no server runs: one file
	// changed, one is gone. The start reads the changed one only.
	u := memory.DerivedUpdate{Changed: []memory.DerivedFile{{Path: "store/db.go", Stamp: memory.Stamp{Hash: "2"}, Lang: "go",
		Sections: []memory.Section{section("store/db.go", 5, memory.SectionFunc, "Compact", "func (db *DB) Compact() error", "Compact rewrites the value log to reclaim space.")}}},
		Removed: []string{"README.md"}, Summary: memory.RepoSummary{Read: 1, Gone: 1}}
	if err := f.db.UpdateDerived(ctx, f.pid, u, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	c = f.start(t, path)
	if r := f.recall(t, "reclaim space in the value log").Repository; len(r) == 0 || r[0].Name != "Compact" {
		t.Fatalf("the changed file's new section is not found: %+v", r)
	}
	if r := f.recall(t, "", func(r *Request) { r.Path = "store/*.go" }).Repository; len(r) != 1 || r[0].Name != "Compact" {
		t.Fatalf("the changed file's old section is still served: %+v", r)
	}
	if r := f.recall(t, "how do I run the tests tmux").Repository; len(r) != 0 && r[0].Path == "README.md" {
		t.Fatalf("a removed file's section is still served: %+v", r)
	}
	if got := c.read(); len(got) != 1 || got[0] != "store/db.go" {
		t.Fatalf("the start read %q, want only the changed file", got)
	}
	if err := f.e.Save(); err != nil {
		t.Fatal(err)
	}
	// And what it caught up with was saved: the next start reads nothing.
	c = f.start(t, path)
	if r := f.recall(t, "reclaim space in the value log").Repository; len(r) == 0 || r[0].Name != "Compact" {
		t.Fatalf("after the catch-up was saved: %+v", r)
	}
	if got := c.read(); len(got) != 0 {
		t.Fatalf("read %q again", got)
	}
}

// A saved section index that is damaged, or written by another version,
// is never read as a wrong index: the sections are read from the store.
func TestSectionIndexDamagedIsBuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t, repoFiles()...)
	path := filepath.Join(t.TempDir(), "recall.index")
	f.start(t, path)
	f.recall(t, "retry policy")
	if err := f.e.Save(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path + sectionsSuffix)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func([]byte) []byte{
		"a flipped byte": func(b []byte) []byte { b[len(b)/2] ^= 0x20; return b },
		"cut short":      func(b []byte) []byte { return b[:len(b)/3] },
		"empty":          func([]byte) []byte { return nil },
		"another version": func(b []byte) []byte {
			b[len(sectionsMagic)] = sectionsVersion + 1
			return b
		},
	} {
		if err := os.WriteFile(path+sectionsSuffix, damage(append([]byte(nil), b...)), 0o600); err != nil {
			t.Fatal(err)
		}
		c := f.start(t, path)
		if r := f.recall(t, "where is the retry policy configured?").Repository; len(r) == 0 || r[0].Path != "net/retry.go" {
			t.Fatalf("%s: %+v", name, r)
		}
		if got := c.read(); len(got) != 1 || got[0] != "" {
			t.Fatalf("%s: the sections were not read from the store: %q", name, got)
		}
	}
}

// BenchmarkSectionsStart33k is a server's start as a recall of the
// repository meets it: an engine on a store of 33,000 sections (3,300
// files of ten), built, then the first question about the repository.
// "built" reads every section from the store and makes their index, as
// every start did before the index was saved; "saved" reads the saved
// index and asks the store which files moved (none).
func BenchmarkSectionsStart33k(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(b.TempDir(), "s"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const pid = "00000000000000aa"
	if _, err := db.EnsureProject(ctx, memory.Project{ID: pid, Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	const files, per = 3300, 10
	for part := 0; part < files; part += 500 {
		var changed []memory.DerivedFile
		for i := part; i < min(part+500, files); i++ {
			p := fmt.Sprintf("pkg%d/%s_%d.go", i%60, prose[r.IntN(len(prose))], i)
			f := memory.DerivedFile{Path: p, Lang: "go", Stamp: memory.Stamp{Size: int64(i), Hash: fmt.Sprint(i)}}
			for j := range per {
				name := fmt.Sprintf("%s%s%d", strings.ToUpper(prose[r.IntN(len(prose))][:1]), prose[r.IntN(len(prose))], j)
				f.Sections = append(f.Sections, memory.Section{Path: p, Line: 1 + j*20, EndLine: 19 + j*20, Kind: memory.SectionFunc, Lang: "go",
					Name: name, Signature: "func " + name + "(ctx context.Context) error", Doc: sentence(r, 12+r.IntN(20))})
			}
			changed = append(changed, f)
		}
		u := memory.DerivedUpdate{Changed: changed, More: part+500 < files}
		if !u.More {
			u.Summary = memory.RepoSummary{Files: files, Sections: files * per}
		}
		if err := db.UpdateDerived(ctx, pid, u, memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), "recall.index")
	start := func(persist bool) {
		e := NewEngine(db, nil)
		if persist {
			e.Persist(path)
		}
		if err := e.Build(ctx); err != nil {
			b.Fatal(err)
		}
		resp, err := e.Recall(ctx, Request{Query: "where is the retry backoff of the queue worker", Projects: []string{pid}})
		if err != nil || len(resp.Repository) == 0 {
			b.Fatalf("no sections: %v %+v", err, resp)
		}
		if persist {
			if err := e.Save(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("built", func(b *testing.B) {
		for b.Loop() {
			start(false)
		}
	})
	start(true) // saves the index
	if _, err := os.Stat(path + sectionsSuffix); err != nil {
		b.Fatal(err)
	}
	b.Run("saved", func(b *testing.B) {
		for b.Loop() {
			start(true)
		}
	})
}
