package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"cairn/internal/lang"
	"cairn/memory"
)

// Derived memory in recall: the repository's sections answer "where is
// X?" and "how do I run the tests?" beside what was learned. Each
// project's sections have a lexical index of their own, built at the
// first recall that needs it and dropped when the project is indexed again
// (EventIndex): their words must not move the scores of memories, and a
// repository of thousands of files must not weigh on a store of a few
// hundred memories. Scores are absolute like memories' (BM25 over the
// query's own weight), so the two kinds compare; a memory stands first
// when both match equally.

// DerivedSource is what recall reads of derived memory (the store does).
type DerivedSource interface {
	DerivedOutlines(ctx context.Context, project string) (map[string]memory.Outline, error)
	DerivedFiles(ctx context.Context, project, prefix string) ([]memory.DerivedFile, error)
	RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error)
}

// SectionHit is one recalled section of the repository.
type SectionHit struct {
	Source string `json:"source"` // always "derived": what the repository says
	memory.Section
	Project string  `json:"project"`
	Score   float64 `json:"score"`
	Part    Part    `json:"part"` // PartPath when it is in the files asked for, else PartRelevant
	Explain Explain `json:"explain"`
}

// Where is the section as an editor takes it: path:line.
func (h SectionHit) Where() string {
	switch {
	case h.Kind == memory.SectionModule:
		return h.Path + "/"
	case h.Line <= 0:
		return h.Path
	}
	return h.Path + ":" + strconv.Itoa(h.Line)
}

// sectionDocLimit bounds a hit's Doc as recall returns it: where a section
// is and what it is called answer most questions; the file has the rest.
const sectionDocLimit = 320

// Cost of a section hit in tokens, as Cost is of a memory.
func (h SectionHit) Cost() int {
	return (len(h.Path)+len(h.Name)+len(h.Signature)+len(h.Doc))/4 + 8
}

// derivedIndex is one project's sections and their lexical index. It is
// brought up to date in place after an index run: the files whose stamp
// moved are read again, those gone are taken out, so that the first
// recall after a commit reads 50 files, not 5,000.
type derivedIndex struct {
	mu     sync.RWMutex
	secs   []memory.Section // by document number; a removed one is zero
	lex    *lexIndex
	files  map[string]fileDocs // by path
	summ   []int32             // the documents of the summary's commands and modules
	stale  bool                // an index run happened since it was last brought up to date
	hasAny bool
	// names counts the files by the name they go by (nameCounts), nil
	// when the files changed since.
	namesMu sync.Mutex
	names   map[string]int
}

type fileDocs struct {
	stamp memory.Stamp
	docs  []int32
}

// derivedSet keeps the projects' indexes.
type derivedSet struct {
	mu    sync.Mutex
	byPID map[string]*derivedIndex
	// path is where the indexes are saved and read back from
	// (sections_snapshot.go), "" when they are not; loaded says they were
	// read; dirty that one changed since.
	path   string
	loaded bool
	dirty  atomic.Bool
}

// changed marks a project's index out of date: its repository was indexed
// again. The next recall brings it up to date.
func (d *derivedSet) changed(pid string) {
	d.mu.Lock()
	if x := d.byPID[pid]; x != nil {
		x.mu.Lock()
		x.stale = true
		x.mu.Unlock()
	}
	d.mu.Unlock()
}

// sectionTokens are the words a section is found by: its name twice (what
// it is called is what a question names), its path, signature and doc.
func sectionTokens(s memory.Section) []string {
	name := Tokens(s.Name)
	toks := append(name, name...)
	toks = append(toks, Tokens(strings.NewReplacer("/", " ", ".", " ", "_", " ", "-", " ").Replace(s.Path))...)
	toks = append(toks, Tokens(s.Signature)...)
	return append(toks, Tokens(s.Doc)...)
}

// fullRebuild is how many changed files make rebuilding the whole index
// cheaper than reading them one by one.
const fullRebuild = 1000

// index returns pid's derived index, up to date, building it from src the
// first time. A project never indexed has none (nil).
func (d *derivedSet) index(ctx context.Context, src Source, pid string) (*derivedIndex, error) {
	d.mu.Lock()
	if !d.loaded {
		d.loaded = true
		if d.path != "" {
			d.load(d.path)
		}
	}
	x := d.byPID[pid]
	if x == nil {
		x = &derivedIndex{lex: newLexIndex(), files: map[string]fileDocs{}, stale: true}
		if d.byPID == nil {
			d.byPID = map[string]*derivedIndex{}
		}
		d.byPID[pid] = x
	}
	d.mu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stale {
		changed, err := x.update(ctx, src, pid)
		if err != nil {
			return nil, err
		}
		if changed {
			d.dirty.Store(true)
		}
		x.stale = false
	}
	if !x.hasAny {
		return nil, nil
	}
	return x, nil
}

// update brings x up to date with the store: the outlines say which files
// moved since x read them. It reports whether a file was read or dropped.
func (x *derivedIndex) update(ctx context.Context, ds DerivedSource, pid string) (changed bool, err error) {
	outlines, err := ds.DerivedOutlines(ctx, pid)
	if err != nil {
		return false, err
	}
	var moved []string
	for p, o := range outlines {
		if f, ok := x.files[p]; !ok || f.stamp != o.Stamp {
			moved = append(moved, p)
		}
	}
	for p := range x.files {
		if _, ok := outlines[p]; !ok {
			x.drop(p)
			changed = true
		}
	}
	changed = changed || len(moved) > 0
	if len(moved) > fullRebuild || len(x.files) == 0 {
		x.secs, x.lex, x.files, x.summ = nil, newLexIndex(), map[string]fileDocs{}, nil
		files, err := ds.DerivedFiles(ctx, pid, "")
		if err != nil {
			return false, err
		}
		for _, f := range files {
			x.add(f)
		}
	} else {
		sort.Strings(moved)
		for _, p := range moved {
			files, err := ds.DerivedFiles(ctx, pid, p)
			if err != nil {
				return false, err
			}
			x.drop(p)
			for _, f := range files {
				if f.Path == p {
					x.add(f)
				}
			}
		}
	}
	sum, err := ds.RepoSummary(ctx, pid)
	if err != nil && !errors.Is(err, memory.ErrNotFound) {
		return false, err
	}
	for _, n := range x.summ {
		x.lex.remove(n)
		x.secs[n] = memory.Section{}
	}
	x.summ = x.summ[:0]
	for _, s := range summarySections(sum) {
		x.summ = append(x.summ, x.addSection(s))
	}
	x.hasAny = x.lex.live > 0
	return changed, nil
}

func (x *derivedIndex) add(f memory.DerivedFile) {
	fd := fileDocs{stamp: f.Stamp}
	own := false // the reader gave the file a section of its own words
	for _, s := range f.Sections {
		fd.docs = append(fd.docs, x.addSection(s))
		own = own || s.Kind == memory.SectionFile
	}
	if s, ok := fileSection(f); ok && !own {
		fd.docs = append(fd.docs, x.addSection(s))
	}
	x.files[f.Path] = fd
	x.names = nil
}

// maxFileNames bounds the names a file's own section lists.
const maxFileNames = 40

// fileSection is a file as a whole: found by the words of its name
// (content-type-parser.js) and of what it defines, which no one section
// of it holds together. A file with no sections has its name.
func fileSection(f memory.DerivedFile) (memory.Section, bool) {
	base := path.Base(f.Path)
	name := strings.TrimSuffix(base, path.Ext(base))
	var names []string
	for _, s := range f.Sections {
		if s.Kind == memory.SectionPackage || s.Kind == memory.SectionHeading || s.Kind == memory.SectionFile || len(names) == maxFileNames {
			continue
		}
		names = append(names, s.Name)
	}
	if name == "" {
		return memory.Section{}, false
	}
	end := 1
	if n := len(f.Sections); n > 0 {
		end = max(end, f.Sections[n-1].EndLine)
	}
	return memory.Section{Path: f.Path, Line: 1, EndLine: end, Kind: memory.SectionFile, Lang: f.Lang,
		Name: name, Doc: strings.Join(names, ", ")}, true
}

func (x *derivedIndex) addSection(s memory.Section) int32 {
	n := int32(len(x.secs))
	x.secs = append(x.secs, s)
	x.lex.set(n, sectionTokens(s))
	return n
}

func (x *derivedIndex) drop(path string) {
	for _, n := range x.files[path].docs {
		x.lex.remove(n)
		x.secs[n] = memory.Section{}
	}
	delete(x.files, path)
	x.names = nil
}

// summarySections are the project's commands and modules as sections, so
// that "how do I run the tests?" finds the test command where it is
// written (the Makefile's line, the CI step) and "what is in store/?" the
// module.
func summarySections(sum memory.RepoSummary) []memory.Section {
	var out []memory.Section
	for _, c := range sum.Facts.Commands {
		file, line := c.Source, 1
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if n, err := strconv.Atoi(file[i+1:]); err == nil {
				file, line = file[:i], n
			}
		}
		file, _, _ = strings.Cut(file, " (") // "go.mod (convention)"
		doc := "the command to " + c.Name + " the project"
		if c.Recipe != "" {
			doc += ": " + c.Recipe
		}
		out = append(out, memory.Section{Path: file, Line: line, EndLine: line, Kind: memory.SectionCommand,
			Name: c.Name, Signature: c.Run, Doc: doc})
	}
	for _, m := range sum.Modules {
		if m.Path == "" {
			continue // the root is the project, summed up by the briefing
		}
		doc := m.Summary
		if len(m.Exported) > 0 {
			doc = strings.TrimSpace(doc + " Holds " + strings.Join(m.Exported, ", ") + ".")
		}
		out = append(out, memory.Section{Path: m.Path, Line: 0, Kind: memory.SectionModule,
			Name: m.Path, Signature: fmt.Sprintf("%d files, %d sections", m.Files, m.Sections), Doc: doc})
	}
	return out
}

// recallDerived scores the sections of the request's projects: the
// query's words (BM25 over the query's weight, refined by the built-in
// vector as memories are) and the path asked for.
func (e *Engine) recallDerived(ctx context.Context, req Request, qtoks []string, qvec []float32) []*SectionHit {
	var out []*SectionHit
	for _, pid := range req.Projects {
		x, err := e.derived.index(ctx, e.src, pid)
		if err != nil || x == nil {
			continue
		}
		x.mu.RLock()
		hits := map[int32]*SectionHit{}
		if len(qtoks) > 0 {
			mass := x.lex.mass(qtoks)
			if mass > 0 {
				var words []string
				for i, s := range x.lex.searchWeighted(withKin(req.Query, qtoks), sectionCandidates, func(int32) bool { return true }) {
					h := &SectionHit{Source: "derived", Section: x.secs[s.doc], Project: pid, Part: PartRelevant}
					h.Explain.Lexical, h.Explain.LexicalRnk = s.score, i+1
					h.Explain.Relevance = lexWeight * s.score / mass
					h.Explain.answers = s.score / mass
					if qvec != nil {
						words = x.lex.appendWords(words[:0], s.doc)
						h.Explain.Vector = cosine(qvec, NewHashed().fromTokens(words))
						h.Explain.Relevance += vecWeight * max(h.Explain.Vector, 0)
						h.Explain.answers += vecWeight * max(h.Explain.Vector, 0)
					}
					hits[s.doc] = h
				}
			}
		}
		if req.Path != "" {
			for n, s := range x.secs {
				if s.Path == "" || (s.Kind == memory.SectionFile && len(qtoks) == 0) || MatchPath(req.Path, []string{s.Path}) == "" {
					continue
				}
				h, ok := hits[int32(n)]
				if !ok {
					if len(qtoks) > 0 {
						continue // in the files asked for, but not about the question
					}
					h = &SectionHit{Source: "derived", Section: s, Project: pid, Explain: Explain{Relevance: 1}}
					hits[int32(n)] = h
				}
				h.Part, h.Explain.Path = PartPath, s.Path
			}
		}
		counts := x.nameCounts()
		x.mu.RUnlock()
		out = append(out, weighSections(hits, req.Query, qtoks, counts)...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	// A question about where something is wants files: a few sections
	// of one file, then the next file (what a path asked for is kept).
	// Of the copies of one page kept for each version of the docs
	// (website/src/latest/… and website/src/next/…, versioned_docs/
	// version-10.x/…), the best answers for all: a second copy is the
	// same answer again.
	// So is a section another file holds word for word (the manual pages
	// http.1 and https.1, a page copied into a package's docs).
	perFile, copyOf, said := map[string]int{}, map[string]string{}, map[string]bool{}
	return slices.DeleteFunc(out, func(h *SectionHit) bool {
		if h.Part == PartPath {
			return false
		}
		key := versionless(h.Path)
		if first, ok := copyOf[key]; ok && first != h.Path {
			return true
		}
		if len(h.Doc) >= minCopyDoc {
			text := h.Name + "\x00" + h.Doc
			if said[text] {
				return true
			}
			said[text] = true
		}
		copyOf[key] = h.Path
		perFile[h.Path]++
		return perFile[h.Path] > sectionsPerFile
	})
}

// minCopyDoc is how long a section's text must be for a section of
// another file with the same name and text to be its copy: short ones
// ("Returns the value.") are said of many things.
const minCopyDoc = 60

// versionless is a path without its directories that name a version of
// the docs (latest, next, stable, version-10.x, v2, 3.x), so that the
// copies of one page share it.
func versionless(p string) string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for i, d := range parts {
		switch {
		case i == len(parts)-1:
		case versionDir.MatchString(d):
			continue
		case d == "versioned_docs" || d == "versioned-docs":
			d = "docs" // Docusaurus: docs/ is the newest, versioned_docs/version-N/ the others
		}
		out = append(out, d)
	}
	return strings.Join(out, "/")
}

var versionDir = regexp.MustCompile(`^(?:latest|next|stable|current|version-[0-9][0-9a-z.x-]*|v[0-9]+(?:\.[0-9x]+)*|[0-9]+\.(?:[0-9]+|x)(?:\.[0-9x]+)*)$`)

// weighSections puts the priors on a project's section hits for the
// question q (what it asks for, the files it names) and gives them their
// final scores; counts are the project's files by the name they go by.
func weighSections(hits map[int32]*SectionHit, q string, qtoks []string, counts map[string]int) []*SectionHit {
	ask := asking{code: asksWhereCode(q), docs: asksDocs(q), types: asksTypes(q), tsTypes: asksTypeScript(q), command: asksCommand(q), platform: asksPlatform(q), tests: asksTests(q)}
	asked := withKin(q, qtoks) // a file named by a kin of a question's word is named less
	named := map[string]float64{}
	out := make([]*SectionHit, 0, len(hits))
	for _, h := range hits {
		h.Explain.Trust = 1 // as fresh as the files: the wake check re-reads what moved
		if h.Part != PartPath {
			h.Explain.Relevance *= sectionPrior(h.Section, ask)
			f, ok := named[h.Path]
			if !ok {
				// A name many files share (access_token.go in five
				// packages) tells them apart less than one file's own.
				f = nameShare(h.Path, asked) / math.Sqrt(float64(max(1, counts[strings.ToLower(fileName(h.Path))])))
				named[h.Path] = f
			}
			h.Explain.Relevance *= 1 + nameWeight*f
			// A file the question names is something the repository
			// has: the answer is known, though the question's other
			// words are not the file's.
			h.Explain.answers *= 1 + nameWeight*f
		}
		h.Explain.Final = h.Explain.Relevance
		h.Score = h.Explain.Final
		if len(h.Doc) > sectionDocLimit {
			h.Doc = cutAtWord(h.Doc, sectionDocLimit)
		}
		out = append(out, h)
	}
	return out
}

// sectionCandidates is how many sections the lexical search passes to the
// priors: more than for memories, since what a prior lifts (a file the
// question names, a declaration file asked for) may share only common
// words with the question.
const sectionCandidates = 300

// sectionsPerFile is how many sections of one file a recall returns.
const sectionsPerFile = 2

// asking is what a question asks for: where some code is, where
// something is documented, or types.
type asking struct {
	code, docs, types bool
	tsTypes           bool // TypeScript's types by name: a declaration file is the answer
	command           bool // how to run, build or test: a command the project defines
	platform          bool // names an operating system: its files are the answer, not variants
	tests             bool // asks where tests are: a test is the answer, not below the code
}

// sectionPrior weighs a section by what it is and where it lives, for a
// question that asks where some code is (code) or not: the code a
// "where is …" question is about stands above a doc that explains or
// mentions it, what a file defines for its own use a little below what
// it offers, and tests, examples and vendored copies below the code they
// exercise.
func sectionPrior(s memory.Section, ask asking) float64 {
	w := pathPrior(s.Path)
	if ask.code && docSection(s) {
		w *= whereDocWeight
	}
	if ask.docs && !docSection(s) {
		w *= whereDocWeight
	}
	switch {
	case ask.tsTypes && declarationPath(s.Path):
		w /= declarationWeight
	case !ask.types && declarationPath(s.Path):
		w *= declarationWeight
	}
	if ask.command {
		switch {
		case s.Kind == memory.SectionCommand:
			w *= commandWeight
		case memory.TestPath(s.Path):
			w *= declarationWeight // a test is what is run, not how
		}
	}
	if ask.tests && !ask.command && memory.TestPath(s.Path) {
		w /= pathPrior(s.Path) // "where are the tests of …": the test is the answer
	}
	if platformVariant(s.Path) && !ask.platform {
		w *= platformWeight
	}
	if privateName(s) {
		w *= privateWeight
	}
	return w
}

// The weights of sectionPrior.
const (
	whereDocWeight = 0.6  // a doc's section, when the question asks where code is
	privateWeight  = 0.92 // a name its language keeps to its file or package
	// declarationWeight weighs a TypeScript declaration file (index.d.ts)
	// when the question does not ask for types: it describes the code,
	// which is where the thing is done.
	declarationWeight = 0.7
	// platformWeight weighs one platform's variant of a file
	// (terminal_windows.go, result_x86.go): the file without the suffix
	// holds what they share.
	platformWeight = 0.85
	// commandWeight weighs a command the project defines (a Makefile's
	// target, a package.json script, a CI step) for a question of how to
	// run, build or test it.
	commandWeight = 1.5
	// nameWeight is what a file gains when the question says its name:
	// up to 1+nameWeight times for a file whose every name word the
	// question holds (history.go for "where is the history kept?").
	nameWeight = 0.6
)

// asksTypes reports a question about types or declarations ("where are
// the TypeScript types of the reply?"), which a declaration file answers.
func asksTypes(q string) bool {
	for _, w := range questionWords(q) {
		switch w {
		case "type", "types", "typescript", "typing", "typings", "declaration", "declarations", "declared", "interface", "interfaces", "signature", "signatures":
			return true
		}
	}
	return false
}

// asksTypeScript reports a question about TypeScript's types by name
// ("where are the TypeScript types of the reply?", "where are the
// typings?"): a declaration file is the answer, above the code it
// describes.
func asksTypeScript(q string) bool {
	q = strings.ToLower(q)
	return strings.Contains(q, "typescript") || strings.Contains(q, "typings") || strings.Contains(q, ".d.ts") ||
		strings.Contains(q, "type declaration") || strings.Contains(q, "type definition")
}

// asksCommand reports a question of how to run, build, test, lint,
// install or release the project ("how do I run the tests?").
func asksCommand(q string) bool {
	words := questionWords(q)
	how := false
	for i, w := range words {
		switch w {
		case "how", "command", "commands":
			how = true
		case "run", "build", "test", "tests", "lint", "install", "release", "publish", "deploy", "compile", "format", "bench", "benchmarks":
			if how && i > 0 {
				return true
			}
		}
	}
	return false
}

// declarationPath names a TypeScript declaration file, or a file of types
// alone by its name or its directory.
func declarationPath(p string) bool {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	if strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".d.cts") || strings.HasSuffix(base, ".d.mts") {
		return true
	}
	// A TypeScript file of types alone by its name: types.ts, types.wrangler.ts,
	// foo.types.ts, or any file under a types/ directory.
	if !strings.HasSuffix(base, ".ts") && !strings.HasSuffix(base, ".mts") && !strings.HasSuffix(base, ".cts") {
		return false
	}
	return base == "types.ts" || strings.HasPrefix(base, "types.") || strings.Contains(base, ".types.") ||
		strings.HasPrefix(lower, "types/") || strings.Contains(lower, "/types/")
}

// asksPlatform reports a question that names an operating system ("the
// default socket on linux and mac"): the files kept for one are what it
// asks about.
func asksPlatform(q string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if platformSuffixes[w] || w == "mac" {
			return true
		}
	}
	return false
}

// platformSuffixes end the names of files kept for one operating system
// or processor (Go's build suffixes and their like elsewhere).
var platformSuffixes = map[string]bool{
	"windows": true, "linux": true, "darwin": true, "freebsd": true, "openbsd": true, "netbsd": true, "dragonfly": true,
	"solaris": true, "illumos": true, "aix": true, "plan9": true, "android": true, "ios": true, "unix": true, "posix": true,
	"win32": true, "nt": true, "macos": true, "wasm": true, "amd64": true, "arm64": true, "386": true, "x86": true,
	"riscv64": true, "others": true,
}

// platformVariant reports a file kept for one platform (light_unix.go,
// result_others.go).
func platformVariant(p string) bool {
	name, _, _ := strings.Cut(path.Base(p), ".")
	i := strings.LastIndexByte(name, '_')
	return i > 0 && platformSuffixes[strings.ToLower(name[i+1:])]
}

// genericNames say what a file is, not what it is about: such a file is
// named by its directory (lib/adapters/README.md is about adapters).
// So is a file named for the tool that reads it (make.bat, setup.py,
// conftest.py): "how do I make my own …" does not ask about make.
var genericNames = map[string]bool{"index": true, "readme": true, "mod": true, "__init__": true, "init": true, "package": true,
	"make": true, "makefile": true, "setup": true, "conftest": true, "dockerfile": true, "rakefile": true, "justfile": true,
	"noxfile": true, "tox": true, "gulpfile": true, "gruntfile": true, "jakefile": true}

// rootDirs hold a project's code without naming a subject.
var rootDirs = map[string]bool{"": true, ".": true, "src": true, "lib": true, "pkg": true, "internal": true, "source": true, "docs": true, "doc": true}

// nameShare is the share of the words of a file's name (its base name
// before the first dot, less numbers, or its directory's for an index, a
// README or a mod.rs, or when the directory's name ends with the file's:
// trie-router/router.ts) that the question's words hold: 1 for history.go asked about
// "history", ½ for InterceptorManager.js asked about interceptors; a word
// of the name that is a kin of a question's word holds its weight (asked).
func nameShare(p string, asked map[string]float64) float64 {
	name := fileName(p)
	var words int
	var held float64
	for _, part := range split(lang.Fold(name)) {
		part = american(strings.ToLower(part)) // as Tokens reads the question
		if stopWords[part] || len(part) < 2 || isDigit(part) {
			continue
		}
		words++
		held += asked[lang.Stem(part)]
	}
	if words == 0 {
		return 0
	}
	return held / float64(words)
}

// fileName is the name a file is known by: its base name before the
// first dot, or its directory's for an index, a README or a mod.rs, or
// when the directory's name ends with the file's (trie-router/router.ts);
// "" for an index in the root or a source root.
func fileName(p string) string {
	dir, base := path.Split(p)
	name, _, _ := strings.Cut(base, ".")
	parent := path.Base(strings.TrimSuffix(dir, "/"))
	switch {
	case genericNames[strings.ToLower(name)]:
		dir = strings.TrimSuffix(dir, "/")
		if rootDirs[strings.ToLower(dir)] || rootDirs[strings.ToLower(parent)] {
			return ""
		}
		return parent
	case dir != "" && len(parent) > len(name) && strings.HasSuffix(strings.ToLower(parent), strings.ToLower(name)):
		// router/trie-router/router.ts: the directory says which router.
		return parent
	}
	return name
}

// nameCounts is how many of the index's files go by each name
// (fileName, case folded), kept until the files change.
func (x *derivedIndex) nameCounts() map[string]int {
	x.namesMu.Lock()
	defer x.namesMu.Unlock()
	if x.names == nil {
		x.names = make(map[string]int, len(x.files))
		for p := range x.files {
			x.names[strings.ToLower(fileName(p))]++
		}
	}
	return x.names
}

// asksWhereCode reports a question that asks where something is in the
// code ("where is the retry policy configured?", "which file parses
// flags?"), not how to do something or where a doc says it.
func asksWhereCode(q string) bool {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
	})
	where := false
	for i, w := range words {
		switch w {
		case "where", "where's":
			where = true
		case "function", "functions", "method", "class", "type", "struct", "code", "implemented", "implementation", "defined", "declared":
			if i > 0 && (words[i-1] == "which" || words[i-1] == "what") {
				where = true
			}
		case "doc", "docs", "documented", "documentation", "guide", "tutorial", "explained", "described", "readme", "faq", "changelog", "manual":
			return false
		}
	}
	return where
}

// questionWords are a question's words in lower case, split at anything
// but the letters a to z: what the asks* readers look for.
func questionWords(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return r < 'a' || r > 'z' })
}

// asksTests reports a question about the project's tests ("where are
// the tests that check …", "the shared test setup"), which a test file
// answers rather than the code it exercises.
func asksTests(q string) bool {
	for _, w := range questionWords(q) {
		switch w {
		case "tests", "fixtures", "specs":
			return true
		}
	}
	return false
}

// asksHow reports a question of how or why the project does something or
// whether it has something ("how are the release binaries built?", "how
// does the ranking work?", "why does it use esbuild?", "are there examples
// in Python?"): when nothing
// answers it well, the places that come near it are still where to look.
func asksHow(q string) bool {
	words := questionWords(q)
	if len(words) < 3 {
		return false
	}
	switch words[0] + " " + words[1] {
	case "how are", "how is", "how does", "how do", "are there", "is there", "why does", "why do", "why is", "why are":
		return true
	}
	return false
}

// asksDocs reports a question that asks for a document: "where is the
// parser documented?", "where is it explained how …?", "what is a link
// and how do links chain?". The code it is about answers it less than
// the prose does.
func asksDocs(q string) bool {
	words := questionWords(q)
	if len(words) > 2 && words[0] == "what" && (words[1] == "is" || words[1] == "are") && (words[2] == "a" || words[2] == "an") {
		return true // what a thing is: a concept the docs explain
	}
	for _, w := range words {
		switch w {
		case "documented", "documentation", "docs", "explained", "described", "guide", "tutorial", "readme", "faq", "manual":
			return true
		}
	}
	return false
}

// docLangs are the languages of prose.
var docLangs = map[string]bool{"markdown": true, "rst": true, "asciidoc": true, "text": true, "man": true}

// docSection reports a section of prose: a heading of a document or a
// document's own summary.
func docSection(s memory.Section) bool {
	return s.Kind == memory.SectionHeading || docLangs[s.Lang]
}

// privateName reports a definition its language keeps private: a Go name
// in lower case, a Python or JavaScript name with a leading underscore
// (a method's own name, after its type's).
func privateName(s memory.Section) bool {
	switch s.Kind {
	case memory.SectionFunc, memory.SectionMethod, memory.SectionType, memory.SectionClass, memory.SectionConst, memory.SectionVar:
	default:
		return false
	}
	name := s.Name[strings.LastIndexByte(s.Name, '.')+1:]
	if name == "" {
		return false
	}
	switch s.Lang {
	case "go":
		return name[0] < 'A' || name[0] > 'Z'
	case "python", "javascript", "typescript":
		return name[0] == '_' && !strings.HasSuffix(name, "__")
	}
	return false
}

// pathPrior weighs where a section lives: a test, an example, a vendored
// copy or a benchmark, or the history of changes (a changelog, release
// notes), says less of what the code is now than the code and its docs
// do.
func pathPrior(p string) float64 {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	in := func(dirs ...string) bool {
		for _, d := range dirs {
			if strings.HasPrefix(lower, d+"/") || strings.Contains(lower, "/"+d+"/") {
				return true
			}
		}
		return false
	}
	switch {
	case strings.HasPrefix(base, "changelog") || strings.HasPrefix(base, "changes") || strings.HasPrefix(base, "history") ||
		strings.HasPrefix(base, "news") || strings.Contains(base, "release-notes") || strings.Contains(base, "release_notes"):
		return 0.7
	case in("vendor", "third_party", "third-party", "thirdparty", "node_modules", "external", "extern"):
		return 0.7
	case memory.TestPath(p):
		return 0.7
	case in("examples", "example", "_examples", "samples", "sample", "demo", "demos", "benches", "bench", "benchmarks", "benchmark"):
		return 0.8
	}
	return 1
}

// cutAtWord cuts s to at most n bytes at a word, marking the cut.
func cutAtWord(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexAny(s[:n], " \n\t")
	if cut < n/2 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut-- // not inside a character
		}
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
