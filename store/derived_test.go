package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"cairn/memory"
)

func derivedFile(path string, n int, doc string) memory.DerivedFile {
	f := memory.DerivedFile{Path: path, Lang: "go", Stamp: memory.Stamp{Size: int64(len(doc)), ModTime: 1, Hash: "h-" + path}}
	for i := 0; i < n; i++ {
		f.Sections = append(f.Sections, memory.Section{Path: path, Line: i*10 + 1, EndLine: i*10 + 9,
			Kind: memory.SectionFunc, Lang: "go", Name: fmt.Sprintf("F%d", i), Doc: doc})
	}
	f.Outline = memory.Outline{Lang: "go", Sections: n}
	return f
}

// An index run's parts land whole: files read, files gone, files touched,
// the summary and one timeline event after the last part; a re-index
// reads the outlines, not the sections.
func TestUpdateDerived(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	run := memory.DerivedUpdate{
		Changed: []memory.DerivedFile{derivedFile("a/x.go", 2, "does x"), derivedFile("a/y.go", 1, "does y"), derivedFile("ab.go", 1, "ab")},
		More:    true,
	}
	if err := db.UpdateDerived(ctx, testPID, run, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RepoSummary(ctx, testPID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("summary before the last part: %v, want not found", err)
	}
	last := memory.DerivedUpdate{Summary: memory.RepoSummary{Root: "/r", Files: 3, Read: 3, Brief: "a project"}}
	if err := db.UpdateDerived(ctx, testPID, last, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	sum, err := db.RepoSummary(ctx, testPID)
	if err != nil || sum.Brief != "a project" || sum.Files != 3 {
		t.Fatalf("summary = %+v, %v", sum, err)
	}
	under, err := db.DerivedFiles(ctx, testPID, "a")
	if err != nil || len(under) != 2 || under[0].Path != "a/x.go" || len(under[0].Sections) != 2 {
		t.Fatalf(`files under "a" = %+v, %v (want a/x.go and a/y.go, not ab.go)`, under, err)
	}
	outlines, err := db.DerivedOutlines(ctx, testPID)
	if err != nil || len(outlines) != 3 || outlines["a/x.go"].Sections != 2 || outlines["a/x.go"].Stamp.Hash != "h-a/x.go" {
		t.Fatalf("outlines = %+v, %v", outlines, err)
	}
	events, _ := db.Timeline(ctx, testPID, 10)
	if len(events) != 1 || events[0].Kind != memory.EventIndex || !strings.Contains(events[0].Summary, "3 files read") {
		t.Fatalf("timeline = %+v, want one index event", events)
	}

	// A touched file keeps its outline under a new stamp; a gone one goes.
	next := memory.DerivedUpdate{
		Restamped: map[string]memory.Stamp{"a/y.go": {Size: 6, ModTime: 2, Hash: "h-a/y.go"}, "never.go": {Size: 1}},
		Removed:   []string{"ab.go"},
		Summary:   memory.RepoSummary{Files: 2, Gone: 1},
	}
	if err := db.UpdateDerived(ctx, testPID, next, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	outlines, _ = db.DerivedOutlines(ctx, testPID)
	if _, ok := outlines["ab.go"]; ok || len(outlines) != 2 || outlines["a/y.go"].Stamp.ModTime != 2 || outlines["a/y.go"].Sections != 1 {
		t.Fatalf("after restamp and removal: %+v", outlines)
	}
	if all, _ := db.DerivedFiles(ctx, testPID, ""); len(all) != 2 {
		t.Fatalf("files after removal = %d, want 2", len(all))
	}
}

// A run bigger than one transaction is written in several, all of it.
func TestUpdateDerivedBig(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	var u memory.DerivedUpdate
	doc := strings.Repeat("word ", 200)
	for i := 0; i < 3000; i++ {
		u.Changed = append(u.Changed, derivedFile(fmt.Sprintf("pkg%02d/f%04d.go", i%50, i), 3, doc))
	}
	u.Summary = memory.RepoSummary{Files: 3000, Read: 3000}
	if err := db.UpdateDerived(ctx, testPID, u, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	all, err := db.DerivedFiles(ctx, testPID, "")
	if err != nil || len(all) != 3000 {
		t.Fatalf("files = %d, %v; want 3000", len(all), err)
	}
	if events, _ := db.Timeline(ctx, testPID, 10); len(events) != 1 {
		t.Fatalf("events = %d, want one for the whole run", len(events))
	}
}

// A secret in a file is redacted as it is stored; a path that leaves the
// root is refused and nothing is written.
func TestUpdateDerivedRedactsAndRefuses(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	secret := "aws key AKIA" + "IOSFODNN7EXAMPLQ in use"
	f := derivedFile("README.md", 1, "set "+secret)
	f.Outline.Lead = secret
	if err := db.UpdateDerived(ctx, testPID, memory.DerivedUpdate{Changed: []memory.DerivedFile{f}, Summary: memory.RepoSummary{Brief: secret, Read: 1}}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	all, _ := db.DerivedFiles(ctx, testPID, "")
	sum, _ := db.RepoSummary(ctx, testPID)
	out, _ := db.DerivedOutlines(ctx, testPID)
	for _, s := range []string{all[0].Sections[0].Doc, sum.Brief, out["README.md"].Lead} {
		if strings.Contains(s, "IOSFODNN7") {
			t.Fatalf("stored a secret: %q", s)
		}
	}
	for _, bad := range []string{"../x.go", "/etc/passwd", "a//b", "a/./b", ""} {
		err := db.UpdateDerived(ctx, testPID, memory.DerivedUpdate{Changed: []memory.DerivedFile{derivedFile(bad, 1, "x")}}, memory.ActorUser)
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("path %q: err = %v, want invalid", bad, err)
		}
	}
	if all, _ := db.DerivedFiles(ctx, testPID, ""); len(all) != 1 {
		t.Fatalf("a refused run wrote: %d files", len(all))
	}
}
