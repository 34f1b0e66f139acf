package memory

import (
	"context"
	"path"
	"strings"
	"time"
)

// Derived memory: what the repository itself says (DESIGN §2, "two sources
// of truth"). Package derive reads it from the files; the store keeps one
// record per file, bound to the file by its stamp, and a summary of the
// whole repository. It is never written by hand, superseded or forgotten
// one by one, and never enters the verify-first queue: it is as fresh as
// the files, because the wake check re-reads what changed.

// SectionKind says what a section is.
type SectionKind string

// The kinds of section the readers produce.
const (
	SectionHeading SectionKind = "heading" // a Markdown heading and the text under it
	SectionPackage SectionKind = "package" // a package's or module's own doc
	SectionFunc    SectionKind = "func"    // a function
	SectionMethod  SectionKind = "method"  // a function of a type (Go method, class method, impl fn)
	SectionType    SectionKind = "type"    // a type, struct, interface, enum, trait
	SectionClass   SectionKind = "class"   // a class
	SectionConst   SectionKind = "const"   // a constant or a group of them
	SectionVar     SectionKind = "var"     // a variable or a group of them
	SectionMacro   SectionKind = "macro"   // a Rust macro_rules!
	// Recall also finds the project's commands and modules, which come
	// from its summary rather than from one file's sections.
	SectionCommand SectionKind = "command" // a way to build, test or run the project (Facts.Commands)
	SectionModule  SectionKind = "module"  // a directory's summary (RepoSummary.Modules)
	SectionFile    SectionKind = "file"    // a file as a whole: its name and what it defines
)

// Section is one named piece of a file: a heading with its text, or a
// top-level definition with its doc comment.
type Section struct {
	Path    string      `json:"path"`     // slash-separated, relative to the repository root
	Line    int         `json:"line"`     // first line, 1-based (the doc comment's first line when there is one)
	EndLine int         `json:"end_line"` // last line, inclusive
	Kind    SectionKind `json:"kind"`
	Lang    string      `json:"lang"` // "go", "markdown", "python", "typescript", "javascript", "rust"
	// Name is what the section is called: an identifier qualified by its
	// receiver or class ("Client.Do"), or a heading's text.
	Name string `json:"name"`
	// Signature is the definition's first line as written, trimmed
	// ("func (c *Client) Do(req *Request) error"); empty for headings.
	Signature string `json:"signature,omitempty"`
	// Doc is the doc comment or the heading's text, comment markers
	// removed, at most DocLimit bytes (cut at a word).
	Doc string `json:"doc,omitempty"`
}

// DocLimit bounds a section's Doc, so one long README chapter does not
// crowd a recall budget or the index.
const DocLimit = 1200

// Stamp is what a file was when it was read: a stat that still matches
// (size and modification time) means it need not be read again, and the
// hash says whether a file that was touched really changed.
type Stamp struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"` // unix nanoseconds
	Hash    string `json:"hash"`  // hex of a sha256 prefix of the content
	// Reader names the reader and its version that read the file
	// ("go/1"), "" for a file no reader reads: when a reader is added or
	// changes, the files it reads are read again though their content
	// did not change.
	Reader string `json:"reader,omitempty"`
}

// DerivedFile is what one file of the repository says.
type DerivedFile struct {
	Path  string `json:"path"`
	Lang  string `json:"lang,omitempty"`
	Stamp Stamp  `json:"stamp"`
	// Sections in file order.
	Sections []Section `json:"sections,omitempty"`
	// Exported are the names a module summary lists.
	Exported []string `json:"exported,omitempty"`
	// Outline is the file's outline (derive.OutlineOf), stored apart.
	Outline Outline `json:"outline"`
}

// Outline is what a module summary needs of a file, kept apart from its
// sections so that a re-index after a small change reads little: its
// stamp, language, how many sections it has, the names it exports with
// their kinds, its methods by receiver, and its lead (a README's first
// paragraph, a Go package doc's first sentence).
type Outline struct {
	Stamp    Stamp          `json:"stamp"`
	Lang     string         `json:"lang,omitempty"`
	Sections int            `json:"sections"`
	Exported []string       `json:"exported,omitempty"`
	Kinds    []SectionKind  `json:"kinds,omitempty"`   // the kind of each of Exported ("" when it has no section)
	Methods  map[string]int `json:"methods,omitempty"` // methods by receiver
	Lead     string         `json:"lead,omitempty"`
}

// Module summarises one directory or package: what it holds.
type Module struct {
	Path     string   `json:"path"` // a directory, "" for the root
	Files    int      `json:"files"`
	Sections int      `json:"sections"`
	Langs    []string `json:"langs,omitempty"`
	Exported []string `json:"exported,omitempty"` // capped, most important first
	Summary  string   `json:"summary,omitempty"`  // its README's first paragraph, or its package doc's first sentence
}

// Dependency is one dependency a manifest names.
type Dependency struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Source  string `json:"source"` // the manifest: "go.mod", "package.json", …
}

// Command is one way to build, test, run or check the project.
type Command struct {
	Name   string `json:"name"`             // build, test, run, lint, … or a target's or script's own name
	Run    string `json:"run"`              // the command line a person types: "make test", "npm run lint", "go test ./..."
	Recipe string `json:"recipe,omitempty"` // what a Makefile target or a package.json script runs
	Source string `json:"source"`           // where it was read, with its line when known: "Makefile:12", "package.json", "go.mod (convention)"
}

// Facts are the project's shape: what it is written in, what it depends
// on, how it is built, tested and run, where it starts.
type Facts struct {
	Name         string         `json:"name,omitempty"`
	Title        string         `json:"title,omitempty"`   // the root README's first heading: "Bubble Tea"
	Purpose      string         `json:"purpose,omitempty"` // the root README's first plain paragraph, its first sentence or two
	Language     string         `json:"language,omitempty"`
	Module       string         `json:"module,omitempty"`
	Languages    map[string]int `json:"languages,omitempty"` // files per language
	Dependencies []Dependency   `json:"dependencies,omitempty"`
	Commands     []Command      `json:"commands,omitempty"`
	EntryPoints  []string       `json:"entry_points,omitempty"`
}

// RepoSummary is the whole repository as last indexed.
type RepoSummary struct {
	Root      string         `json:"root"`
	Head      string         `json:"head,omitempty"` // the git commit checked out when it was indexed
	IndexedAt time.Time      `json:"indexed_at"`
	Files     int            `json:"files"`
	Sections  int            `json:"sections"`
	Skipped   map[string]int `json:"skipped,omitempty"` // why files were not read: "binary": 12, …
	// Read and Gone are what the last run changed: files read again
	// (new or changed) and files removed.
	Read int `json:"read"`
	Gone int `json:"gone"`
	// Excludes are the globs a person excluded from the index.
	Excludes []string `json:"excludes,omitempty"`
	Facts    Facts    `json:"facts"`
	Modules  []Module `json:"modules,omitempty"`
	// Brief is the short text a briefing starts with: what the project is,
	// its commands, its main modules.
	Brief string `json:"brief,omitempty"`
}

// DerivedUpdate is one indexing run's change: files read again, files
// gone, files touched without a change (a new stamp, the same content),
// and the new summary.
type DerivedUpdate struct {
	Changed   []DerivedFile    `json:"changed,omitempty"`
	Removed   []string         `json:"removed,omitempty"`
	Restamped map[string]Stamp `json:"restamped,omitempty"` // path → its new stamp
	Summary   RepoSummary      `json:"summary"`
	// More says more updates of the same run follow (a run of thousands
	// of files is sent in parts): the summary and the timeline event wait
	// for the last part.
	More bool `json:"more,omitempty"`
}

// Empty reports whether u changes no file.
func (u DerivedUpdate) Empty() bool {
	return len(u.Changed) == 0 && len(u.Removed) == 0 && len(u.Restamped) == 0
}

// Deriver is the store's part in derived memory (Store implements it).
type Deriver interface {
	// DerivedOutlines are the outlines of every file of the project's
	// index, by path.
	DerivedOutlines(ctx context.Context, project string) (map[string]Outline, error)
	// UpdateDerived writes an indexing run's change. Sections' text is
	// redacted of secrets as it is stored (a file is what it is: a secret
	// in it is not a reason to refuse the rest).
	UpdateDerived(ctx context.Context, project string, u DerivedUpdate, by Actor) error
	// DerivedFiles are the indexed files under prefix (a directory or a
	// file; "" for all), in path order.
	DerivedFiles(ctx context.Context, project, prefix string) ([]DerivedFile, error)
	// RepoSummary is the project's summary; ErrNotFound before its first index.
	RepoSummary(ctx context.Context, project string) (RepoSummary, error)
}

// TestPath reports a test's file in a repository: under a test or
// fixture directory, or named as one (x_test.go, x.test.js, x.spec.ts, test_x.py, x_tests.rs).
func TestPath(p string) bool {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	for _, d := range []string{"test", "tests", "testdata", "testing", "__tests__", "spec", "fixtures", "e2e"} {
		if strings.HasPrefix(lower, d+"/") || strings.Contains(lower, "/"+d+"/") {
			return true
		}
	}
	return strings.Contains(base, "_test.") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasPrefix(base, "test_") || strings.HasSuffix(strings.TrimSuffix(base, path.Ext(base)), "_tests")
}
