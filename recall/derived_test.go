package recall

import (
	"context"
	"strings"
	"testing"

	"cairn/memory"
)

func (f *fixture) derive(t *testing.T, files ...memory.DerivedFile) {
	t.Helper()
	u := memory.DerivedUpdate{Changed: files, Summary: memory.RepoSummary{Files: len(files), Read: len(files)}}
	if err := f.db.UpdateDerived(context.Background(), f.pid, u, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
}

func section(path string, line int, kind memory.SectionKind, name, sig, doc string) memory.Section {
	return memory.Section{Path: path, Line: line, EndLine: line + 5, Kind: kind, Lang: "go", Name: name, Signature: sig, Doc: doc}
}

func repoFiles() []memory.DerivedFile {
	return []memory.DerivedFile{
		{Path: "net/retry.go", Lang: "go", Sections: []memory.Section{
			section("net/retry.go", 12, memory.SectionType, "RetryPolicy", "type RetryPolicy struct", "RetryPolicy says how often and how long a failed request is tried again (backoff, attempts)."),
			section("net/retry.go", 40, memory.SectionFunc, "DefaultRetryPolicy", "func DefaultRetryPolicy() RetryPolicy", "DefaultRetryPolicy is three attempts with exponential backoff."),
		}},
		{Path: "README.md", Lang: "markdown", Sections: []memory.Section{
			section("README.md", 20, memory.SectionHeading, "Running the tests", "", "Run make test; it needs tmux and git."),
		}},
		{Path: "store/db.go", Lang: "go", Sections: []memory.Section{
			section("store/db.go", 5, memory.SectionFunc, "Open", "func Open(dir string) (*DB, error)", "Open opens the store in dir."),
		}},
	}
}

// Recall answers "where is X?" from the repository's sections, scoped by
// path where asked, and beside what was learned: a memory that matches as
// well comes first.
func TestRecallFindsDerivedSections(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t, repoFiles()...)
	f.add(t, memory.Memory{Layer: memory.LayerDecision, Title: "Retry policy: three attempts", Body: "We settled the retry policy at three attempts with exponential backoff after the outage."})
	f.build(t)

	resp := f.recall(t, "where is the retry policy configured?")
	if len(resp.Repository) == 0 || resp.Repository[0].Path != "net/retry.go" || resp.Repository[0].Source != "derived" {
		t.Fatalf("repository hits = %+v, want net/retry.go first", resp.Repository)
	}
	if len(resp.Results) == 0 || !strings.Contains(resp.Results[0].Memory.Title, "Retry policy") {
		t.Fatalf("the memory about the retry policy is missing: %v", titles(resp.Results))
	}
	if resp.Nothing {
		t.Fatal("a question the repository answers is not 'nothing known'")
	}

	resp = f.recall(t, "how do I run the tests")
	if len(resp.Repository) == 0 || resp.Repository[0].Path != "README.md" || resp.Repository[0].Name != "Running the tests" {
		t.Fatalf("repository hits = %+v, want the README's section", resp.Repository)
	}

	// A path alone lists the sections of the files it names.
	resp = f.recall(t, "", func(r *Request) { r.Path = "store/*.go" })
	if len(resp.Repository) != 1 || resp.Repository[0].Name != "Open" || resp.Repository[0].Part != PartPath {
		t.Fatalf("path-scoped sections = %+v", resp.Repository)
	}

	// Another project's repository is never served.
	resp = f.recall(t, "retry policy", func(r *Request) { r.Projects = []string{"00000000000000bb"} })
	if len(resp.Repository) != 0 {
		t.Fatalf("project q got p's sections: %+v", resp.Repository)
	}
}

// When a memory and a section answer equally, the memory stands first.
func TestDurableBeforeDerivedOnATie(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t, memory.DerivedFile{Path: "x.go", Sections: []memory.Section{section("x.go", 1, memory.SectionFunc, "", "", "zebra crossing lights")}})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "zebra crossing lights", Body: "zebra crossing lights"})
	f.build(t)
	resp := f.recall(t, "zebra crossing lights", func(r *Request) { r.Limit = 1 })
	if len(resp.Results) != 1 || len(resp.Repository) != 0 {
		t.Fatalf("limit 1 on a tie: results %v, repository %+v; want the memory", titles(resp.Results), resp.Repository)
	}
}

// An index run reaches a running engine: the next recall reads the new
// sections.
func TestEngineFollowsAnIndexRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.build(t)
	events, err := f.db.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go f.e.Follow(ctx, events)
	if got := f.recall(t, "wombat burrow").Repository; len(got) != 0 {
		t.Fatalf("before the index: %+v", got)
	}
	f.derive(t, memory.DerivedFile{Path: "burrow.go", Stamp: memory.Stamp{Hash: "1"}, Sections: []memory.Section{section("burrow.go", 3, memory.SectionFunc, "DigBurrow", "func DigBurrow()", "DigBurrow digs a wombat burrow.")}},
		memory.DerivedFile{Path: "den.go", Stamp: memory.Stamp{Hash: "1"}, Sections: []memory.Section{section("den.go", 1, memory.SectionFunc, "Den", "func Den()", "Den is where the badger sleeps.")}})
	waitFor(t, func() bool {
		r := f.recall(t, "wombat burrow").Repository
		return len(r) > 0 && r[0].Name == "DigBurrow"
	})

	// The next run changes one file and removes the other: the index is
	// brought up to date in place.
	u := memory.DerivedUpdate{Changed: []memory.DerivedFile{{Path: "burrow.go", Stamp: memory.Stamp{Hash: "2"},
		Sections: []memory.Section{section("burrow.go", 3, memory.SectionFunc, "FillBurrow", "func FillBurrow()", "FillBurrow fills an old tunnel with sand.")}}},
		Removed: []string{"den.go"}, Summary: memory.RepoSummary{Read: 1, Gone: 1}}
	if err := f.db.UpdateDerived(ctx, f.pid, u, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		r := f.recall(t, "tunnel sand").Repository
		return len(r) > 0 && r[0].Name == "FillBurrow"
	})
	if r := f.recall(t, "wombat burrow digs").Repository; len(r) != 0 && r[0].Name == "DigBurrow" {
		t.Fatalf("the old section is still served: %+v", r)
	}
	if r := f.recall(t, "badger sleeps den").Repository; len(r) != 0 {
		t.Fatalf("a removed file's section is still served: %+v", r)
	}
}
