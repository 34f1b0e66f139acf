package recall

import (
	"context"
	"fmt"
	"path"
	"slices"
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

// "Where is X?" ranks the code that does X above the doc that explains
// it, a test or an example of it, and a file's own names above its
// private helpers'; "how do I …?" still finds the doc first.
func TestWhereRanksTheCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	doc := func(p string, line int, name, text string) memory.Section {
		s := section(p, line, memory.SectionHeading, name, "", text)
		s.Lang = "markdown"
		return s
	}
	f.derive(t,
		memory.DerivedFile{Path: "lib/content-type-parser.js", Lang: "javascript", Sections: []memory.Section{
			{Path: "lib/content-type-parser.js", Line: 1, EndLine: 300, Kind: memory.SectionFile, Lang: "javascript", Name: "content-type-parser",
				Signature: "lib/content-type-parser.js", Doc: "lib content type parser body parse request add parser"},
		}},
		memory.DerivedFile{Path: "docs/Reference/ContentTypeParser.md", Lang: "markdown", Sections: []memory.Section{
			doc("docs/Reference/ContentTypeParser.md", 3, "Content-Type Parser", "Fastify parses the request body by its content type; add your own content type parser."),
		}},
		memory.DerivedFile{Path: "test/content-type-parser.test.js", Lang: "javascript", Sections: []memory.Section{
			{Path: "test/content-type-parser.test.js", Line: 1, EndLine: 90, Kind: memory.SectionFile, Lang: "javascript", Name: "content-type-parser.test",
				Signature: "test/content-type-parser.test.js", Doc: "test content type parser body parse request parser parser"},
		}},
		memory.DerivedFile{Path: "examples/parser.js", Lang: "javascript", Sections: []memory.Section{
			{Path: "examples/parser.js", Line: 1, EndLine: 20, Kind: memory.SectionFile, Lang: "javascript", Name: "parser",
				Signature: "examples/parser.js", Doc: "examples parser content type body parse request"},
		}},
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are request bodies parsed according to their content type?": "lib/content-type-parser.js", // the code
		"how do I add my own content type parser?":                         "docs/Reference/ContentTypeParser.md",
		"where is the content type parser documented?":                     "docs/Reference/ContentTypeParser.md",
	})
}

func TestSectionPrior(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"where is the retry policy configured?":   true,
		"Where's the event loop?":                 true,
		"which function parses the flags?":        true,
		"how do I run the tests?":                 false,
		"where is the retry policy documented?":   false,
		"which files are skipped without a flag?": false,
		"in what order do hooks run?":             false,
	} {
		if got := asksWhereCode(q); got != want {
			t.Errorf("asksWhereCode(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"where are the TypeScript types of the reply object?": true,
		"where are the type declarations?":                    true,
		"where are the interceptors stored?":                  false,
		"how do I type a command?":                            true, // a word, not a meaning: declarations only lose their penalty
	} {
		if got := asksTypes(q); got != want {
			t.Errorf("asksTypes(%q) = %v, want %v", q, got, want)
		}
	}
	decl := memory.Section{Kind: memory.SectionMethod, Lang: "typescript", Name: "Manager.use", Path: "types/index.d.cts"}
	if sectionPrior(decl, asking{code: true, types: false}) >= 1 || sectionPrior(decl, asking{code: true, types: true}) != 1 {
		t.Errorf("a declaration: %v when types are not asked for, %v when they are; want under 1, 1", sectionPrior(decl, asking{code: true, types: false}), sectionPrior(decl, asking{code: true, types: true}))
	}
	code := memory.Section{Kind: memory.SectionFunc, Lang: "go", Name: "Program.Send", Path: "tea.go"}
	private := memory.Section{Kind: memory.SectionMethod, Lang: "go", Name: "Program.eventLoop", Path: "tea.go"}
	pyPrivate := memory.Section{Kind: memory.SectionFunc, Lang: "python", Name: "_prepare", Path: "app.py"}
	dunder := memory.Section{Kind: memory.SectionMethod, Lang: "python", Name: "Config.__init__", Path: "config.py"}
	heading := memory.Section{Kind: memory.SectionHeading, Lang: "markdown", Name: "Events", Path: "docs/events.md"}
	if !(sectionPrior(code, asking{code: true, types: false}) > sectionPrior(private, asking{code: true, types: false}) && sectionPrior(private, asking{code: true, types: false}) > sectionPrior(heading, asking{code: true, types: false})) {
		t.Errorf("for a where question: exported %v, private %v, doc %v; want them in that order", sectionPrior(code, asking{code: true, types: false}), sectionPrior(private, asking{code: true, types: false}), sectionPrior(heading, asking{code: true, types: false}))
	}
	if sectionPrior(heading, asking{code: false, types: false}) != 1 || sectionPrior(pyPrivate, asking{code: false, types: false}) >= 1 || sectionPrior(dunder, asking{code: false, types: false}) != 1 {
		t.Errorf("a doc %v, _prepare %v, __init__ %v: want 1, below 1, 1", sectionPrior(heading, asking{code: false, types: false}), sectionPrior(pyPrivate, asking{code: false, types: false}), sectionPrior(dunder, asking{code: false, types: false}))
	}
	for p, want := range map[string]float64{
		"lib/reply.js": 1, "test/reply.test.js": 0.7, "pkg/x_test.go": 0.7, "examples/chat/main.go": 0.8,
		"vendor/github.com/x/y.go": 0.7, "third_party/zlib/inflate.c": 0.7, "CHANGELOG.md": 0.7, "benches/search.rs": 0.8,
	} {
		if got := pathPrior(p); got != want {
			t.Errorf("pathPrior(%s) = %v, want %v", p, got, want)
		}
	}
}

// wantFirst asks f each question and wants the path given first.
func wantFirst(t *testing.T, f *fixture, want map[string]string) {
	t.Helper()
	for q, p := range want {
		if got := firstPath(t, f, q); got != p {
			t.Errorf("%q: %s first, want %s", q, got, p)
		}
	}
}

// codeFile is a file of lang with one section at line 3, without a
// signature.
func codeFile(lang, p string, kind memory.SectionKind, name, doc string) memory.DerivedFile {
	return fileOf(p, lang, 3, kind, name, "", doc)
}

// fileOf is a derived file of one section.
func fileOf(p, lang string, line int, kind memory.SectionKind, name, sig, doc string) memory.DerivedFile {
	return memory.DerivedFile{Path: p, Lang: lang, Sections: []memory.Section{
		{Path: p, Line: line, EndLine: line + 30, Kind: kind, Lang: lang, Name: name, Signature: sig, Doc: doc}}}
}

// firstPath asks f and returns the path of the first section.
func firstPath(t *testing.T, f *fixture, q string) string {
	t.Helper()
	resp := f.recall(t, q)
	if len(resp.Repository) == 0 {
		t.Fatalf("%q: no section", q)
	}
	return resp.Repository[0].Path
}

// A library's TypeScript declarations describe its JavaScript: "where
// are … kept?" is answered by the code, "where are the types of …?" by
// the declarations.
func TestWhereRanksCodeAboveItsDeclarations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		fileOf("lib/core/Manager.js", "javascript", 5, memory.SectionClass, "Manager", "class Manager",
			"Holds the handlers added for a request or a response."),
		fileOf("index.d.ts", "typescript", 480, memory.SectionMethod, "Manager.use", "use(onFulfilled?: (value: V) => V): number",
			"Adds a handler for a request or a response; the handlers are kept in order."),
		// A TypeScript file of types alone (types.ts, under types/) is a
		// declaration too, however well its interfaces are described.
		fileOf("src/runtime/env.ts", "typescript", 12, memory.SectionFunc, "applyEnv", "",
			"Maps the environment onto the runtime config."),
		fileOf("src/types/config.ts", "typescript", 40, memory.SectionType, "RuntimeConfig", "",
			"Environment variables are mapped onto keys of the runtime config."),
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are the request and response handlers kept?":               "lib/core/Manager.js",
		"where are the types of the request and response handlers kept?":  "index.d.ts",
		"where are environment variables mapped onto the runtime config?": "src/runtime/env.ts",
	})
}

// A file whose name is the question's subject stands above files that
// mention its words; a platform's variant of a file a little below it.
func TestWhereRanksTheFileNamedByTheQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		codeFile("javascript", "lib/core/InterceptorManager.js", memory.SectionClass, "InterceptorManager", "Keeps the request or response functions added with use, in order."),
		codeFile("javascript", "lib/core/Axios.js", memory.SectionMethod, "Axios.request", "Sends a request through the request and response interceptors."),
	)
	f.build(t)
	if got := firstPath(t, f, "where are the request and response interceptors kept?"); got != "lib/core/InterceptorManager.js" {
		t.Errorf("interceptors: %s first, want the file named so", got)
	}

	asked := weights(Tokens("how do I make the request interceptors and the unicode 16 tables?"))
	for p, want := range map[string]float64{
		"lib/core/InterceptorManager.js": 0.5, "src/history.go": 0, "lib/interceptors/index.js": 1, "src/index.js": 0,
		"rich/_unicode_data/unicode16-0-0.py": 1, "docs/README.md": 0, "tables.rs": 1, "test/interceptor.test.js": 1,
		"make.bat": 0, "docs/make.bat": 0, "Makefile": 0, "src/make_tables.py": 1,
	} {
		if got := nameShare(p, asked); got != want {
			t.Errorf("nameShare(%s) = %v, want %v", p, got, want)
		}
	}
	for p, want := range map[string]bool{
		"src/terminal_windows.go": true, "src/result_x86.go": true, "src/tui/light_unix.go": true, "src/result.go": false,
		"src/read_others.go": true, "src/protocol_test.go": false, "rich/_windows.py": false, "src/color_tables.rs": false,
	} {
		if got := platformVariant(p); got != want {
			t.Errorf("platformVariant(%s) = %v, want %v", p, got, want)
		}
	}
}

// A question that names a directory or a file the repository has is
// answered by it, though most of its words are not the file's; one that
// names nothing the repository has stays unknown.
func TestNamedFileIsKnown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	readme := func(p, text string) memory.DerivedFile {
		return fileOf(p, "markdown", 1, memory.SectionHeading, "axios // "+path.Base(path.Dir(p)), "", text)
	}
	f.derive(t,
		readme("lib/helpers/README.md", "The modules found in helpers/ should be generic modules, not specific to the domain logic of axios."),
		readme("lib/core/README.md", "The modules found in core/ should be modules specific to the domain logic of axios."),
		fileOf("lib/axios.js", "javascript", 3, memory.SectionFunc, "createInstance", "", "Creates an instance of Axios with its defaults."),
	)
	f.build(t)
	resp := f.recall(t, "what sort of module truly belongs in the helpers folder rather than anywhere else nearby?")
	if resp.Nothing || len(resp.Repository) == 0 || resp.Repository[0].Path != "lib/helpers/README.md" {
		t.Errorf("helpers: nothing known %v, %d sections; want lib/helpers/README.md first", resp.Nothing, len(resp.Repository))
	}
	if resp := f.recall(t, "where is the kubernetes operator reconciled?"); !resp.Nothing || len(resp.Repository) > 0 {
		t.Errorf("kubernetes: nothing known %v, %d sections; want nothing known", resp.Nothing, len(resp.Repository))
	}
	// A where question that nothing answers well is shown the places
	// that come near it, marked weak, as grep would show them.
	resp = f.recall(t, "where are third-party wrappers around the instance defaults catalogued for newcomers?")
	if resp.Nothing || !resp.Weak || len(resp.Repository) == 0 || resp.Repository[0].Path != "lib/axios.js" {
		t.Errorf("weak places: nothing known %v, weak %v, %d sections; want lib/axios.js, weak", resp.Nothing, resp.Weak, len(resp.Repository))
	}
	// So is a question of how the project does something or whether it
	// has something.
	for _, q := range []string{"how are third-party wrappers around the instance defaults catalogued?", "are there third-party wrappers around the instance defaults?"} {
		if resp := f.recall(t, q); resp.Nothing || !resp.Weak || len(resp.Repository) == 0 {
			t.Errorf("%q: nothing known %v, weak %v, %d sections; want weak places", q, resp.Nothing, resp.Weak, len(resp.Repository))
		}
	}
	// The same words, not asked where: nothing known.
	if resp := f.recall(t, "third-party wrappers around the instance defaults catalogued for newcomers"); !resp.Nothing || len(resp.Repository) > 0 {
		t.Errorf("not a where question: nothing known %v, %d sections; want nothing known", resp.Nothing, len(resp.Repository))
	}
}

// A newcomer asks in their words, the code answers in its own: "combined"
// finds merger.go, "checked" the validator, "options" the config file —
// below a file that says the question's own word.
func TestWhereFindsTheFileByItsKin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		codeFile("go", "src/merger.go", memory.SectionFunc, "Merger.mergedGet", "Returns the item at an index of the merged partial lists."),
		codeFile("go", "src/result.go", memory.SectionFunc, "sortResults", "Sorts the partial lists by rank."),
		codeFile("go", "src/matcher.go", memory.SectionFunc, "Matcher.scan", "Splits the items into slices and searches them in parallel."),
		codeFile("go", "lib/config_validator.go", memory.SectionFunc, "validateConfig", "Validates the server config."),
		codeFile("go", "lib/server.go", memory.SectionFunc, "createServer", "Creates the server and listens on its port."),
		fileOf("site/utils/meta.py", "python", 3, memory.SectionFunc, "get_data", "", "Reads the YAML header of a document."),
		fileOf("site/structure/pages.py", "python", 3, memory.SectionMethod, "Page.read_source", "", "Reads the markdown source of a page and its title."),
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are the partial lists of the parallel search combined?": "src/merger.go",
		"where are the options checked?":                               "lib/config_validator.go",
		"where are the partial lists sorted?":                          "src/result.go",
		"where is the metadata read?":                                  "site/utils/meta.py", // a short form
	})
}

// A question that names TypeScript's types is answered by the declaration
// file, though 150 docs hold more of the question's words than it does
// (the lexical search passes enough sections for the priors to lift it);
// a question of how to run the tests by the command the project defines,
// not by the tests.
func TestWhereTypeScriptTypesAndHowToRunTests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := []memory.DerivedFile{
		fileOf("lib/reply.js", "javascript", 20, memory.SectionFunc, "Reply.send", "", "Sends the reply object to the client."),
		fileOf("types/reply.d.ts", "typescript", 30, memory.SectionType, "FastReply", "interface FastReply", "The reply object's methods and types."),
		fileOf("reply_test.go", "go", 10, memory.SectionFunc, "TestReplyRunsTests", "", "Tests that the reply runs."),
		fileOf("Makefile", "make", 4, memory.SectionCommand, "test", "make test", "go test -race ./..."),
	}
	for i := range 150 {
		files = append(files, fileOf(fmt.Sprintf("docs/guide%03d.md", i), "markdown", 1, memory.SectionHeading, "TypeScript guide",
			"", "TypeScript reply types: the reply object in TypeScript."))
	}
	f.derive(t, files...)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are the TypeScript types of the reply object?": "types/reply.d.ts",
		"how do I run the tests?":                             "Makefile",
	})
}

// A question names in words what code calls by its acronym ("server-sent
// events" is sse.ts), and of files of one name the directory says which
// (reg-exp-router/router.ts is the regular expression router).
func TestWhereAcronymsAndDirectoryNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		codeFile("typescript", "src/helper/streaming/sse.ts", memory.SectionFunc, "streamSSE", "Writes each message to the stream as it comes."),
		codeFile("typescript", "src/helper/streaming/text.ts", memory.SectionFunc, "streamText", "Writes text events to the stream as they come."),
		codeFile("typescript", "src/router/reg-exp-router/router.ts", memory.SectionClass, "RegExpRouter", "Matches every route at once."),
		codeFile("typescript", "src/router/trie-router/router.ts", memory.SectionClass, "TrieRouter", "Matches routes by walking a tree of path parts."),
		codeFile("typescript", "src/router/linear-router/router.ts", memory.SectionClass, "LinearRouter", "Matches routes one by one in order."),
		codeFile("typescript", "src/signals.ts", memory.SectionFunc, "handleSignals", "Cancels the tasks; the third one exits."),
		codeFile("typescript", "src/stop.ts", memory.SectionFunc, "stopTasks", "Stops the tasks that run for too long."),
		codeFile("go", "spin/pty.go", memory.SectionFunc, "openPty", "Opens one for the command."),
		codeFile("go", "spin/command.go", memory.SectionFunc, "runCommand", "Runs the command under the spinner in a terminal."),
		codeFile("rust", "src/helpers/toc.rs", memory.SectionFunc, "render", "Renders the chapters of a page as a list."),
		codeFile("rust", "src/helpers/page.rs", memory.SectionFunc, "render_page", "Renders the contents of each chapter."),
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where is the pseudo terminal opened for the command?":     "spin/pty.go",
		"where is the table of contents built?":                    "src/helpers/toc.rs",
		"where are server-sent events streamed?":                   "src/helper/streaming/sse.ts",
		"where is the router that uses a regular expression?":      "src/router/reg-exp-router/router.ts",
		"where is the router that walks a tree of the path parts?": "src/router/trie-router/router.ts",
		"where do the tasks end after I press Ctrl+C three times?": "src/signals.ts",
	})
}

// Two words a question says side by side are one word in code ("go get"
// is goget.go), and a name that many files go by (access_token.go in
// five packages) tells them apart less than one file's own name.
func TestWhereJoinedWordsAndSharedNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := []memory.DerivedFile{
		codeFile("go", "pkg/web/goget.go", memory.SectionFunc, "serveMeta", "Answers the go tool about import paths."),
		codeFile("go", "pkg/git/tag.go", memory.SectionFunc, "listTags", "Lists the tags of a repository with their meta data."),
		codeFile("go", "pkg/web/auth.go", memory.SectionFunc, "checkRequest", "Checks the token an http request carries."),
	}
	for _, dir := range []string{"proto", "store", "store/database", "db/models", "backend"} {
		files = append(files, codeFile("go", "pkg/"+dir+"/access_token.go", memory.SectionType, "AccessToken", "An access token of a user."))
	}
	f.derive(t, files...)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where is the go get meta tag served?":                  "pkg/web/goget.go",
		"where are the access tokens of http requests checked?": "pkg/web/auth.go",
	})
}

// Code names a thing by what it does: "loaded" finds the loader; a
// question of how to build the project is not about a builder.
func TestWhereAgentNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		codeFile("go", "pkg/commands/commit_loader.go", memory.SectionFunc, "GetCommits", "Runs git log and returns what it printed."),
		codeFile("go", "pkg/gui/commits.go", memory.SectionFunc, "renderCommits", "Shows the commits in a list."),
		codeFile("go", "src/assets/build_assets.rs", memory.SectionFunc, "build_syntax_set_builder", "Builds the syntax set with a builder."),
		fileOf("Makefile", "make", 4, memory.SectionCommand, "build", "make build", "cargo build --locked"),
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are the commits loaded?": "pkg/commands/commit_loader.go",
		"how do I build it?":            "Makefile",
	})
}

// Of the copies of one page kept for each version of the docs, the best
// answers for all: the others do not take the next places.
func TestWhereOneCopyOfAVersionedPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	md := func(p string) memory.DerivedFile {
		return fileOf(p, "markdown", 1, memory.SectionHeading, "Authorization", "", "Check that a user may call a procedure before it runs.")
	}
	f.derive(t,
		md("www/docs/server/authorization.md"),
		md("www/versioned_docs/version-10.x/server/authorization.md"),
		md("website/src/latest/docs/authorization.md"),
		md("website/src/next/docs/authorization.md"),
		fileOf("src/middleware.go", "go", 3, memory.SectionFunc, "authorize", "", "Checks a user's role."),
	)
	f.build(t)
	resp := f.recall(t, "how do I check that a user may call a procedure?")
	var paths []string
	for _, h := range resp.Repository {
		paths = append(paths, h.Path)
	}
	www, site := 0, 0
	for _, p := range paths {
		switch {
		case strings.HasPrefix(p, "www/"):
			www++
		case strings.HasPrefix(p, "website/"):
			site++
		}
	}
	if www != 1 || site != 1 {
		t.Errorf("copies of a versioned page: %q; want one of www/ and one of website/", paths)
	}
	for p, want := range map[string]string{
		"www/versioned_docs/version-10.x/server/a.md": "www/docs/server/a.md",
		"website/src/next/docs/a.md":                  "website/src/docs/a.md",
		"docs/v2/a.md":                                "docs/a.md",
		"src/v2/next.go":                              "src/next.go",
		"internal/latest.go":                          "internal/latest.go",
	} {
		if got := versionless(p); got != want {
			t.Errorf("versionless(%s) = %s, want %s", p, got, want)
		}
	}
}

// A section another file holds word for word (http.1 and https.1, one
// manual page under two names) is one answer: the copy does not take
// the next place.
func TestWhereOneCopyOfAPageWordForWord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	text := "Send a request with a timeout in seconds; the request fails when no answer comes in time."
	man := func(p string) memory.DerivedFile {
		return fileOf(p, "man", 40, memory.SectionHeading, "TIMEOUTS", "", text)
	}
	f.derive(t, man("extras/man/http.1"), man("extras/man/https.1"),
		fileOf("docs/README.md", "markdown", 900, memory.SectionHeading, "Timeouts", "", "Pass --timeout to give up on a slow server."),
		fileOf("httpie/client.py", "python", 12, memory.SectionFunc, "send_request", "", "Sends the request with its timeout."))
	f.build(t)
	resp := f.recall(t, "where is the request timeout explained?")
	var paths []string
	for _, h := range resp.Repository {
		paths = append(paths, h.Path)
	}
	if slices.Contains(paths, "extras/man/http.1") == slices.Contains(paths, "extras/man/https.1") {
		t.Errorf("two copies of one page, or none: %q; want one of http.1 and https.1", paths)
	}
	if !slices.Contains(paths, "docs/README.md") {
		t.Errorf("the other answers: %q", paths)
	}
}

// A question names an operating system in its own words, however they
// stem ("windows" is no platform word once stemmed).
func TestAsksPlatform(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"where is the default docker socket path for linux and mac defined?": true,
		"how is the console set up on Windows?":                              true,
		"where is the retry policy configured?":                              false,
	} {
		if got := asksPlatform(q); got != want {
			t.Errorf("asksPlatform(%q) = %v, want %v", q, got, want)
		}
	}
}

// A question for the tests is answered by the tests, not ranked below the
// code they exercise as a "where is" question's tests are.
func TestWhereTheTestsAreAsked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.derive(t,
		codeFile("python", "src/csvtools/sniff.py", memory.SectionFunc, "detect_delimiter", "Checks the first lines of CSV files for the delimiter: its detection."),
		codeFile("python", "tests/sniffing.py", memory.SectionFunc, "sniffs", "Checks the delimiter detection of CSV files."),
	)
	f.build(t)
	wantFirst(t, f, map[string]string{
		"where are the tests that check the delimiter detection of CSV files?": "tests/sniffing.py",
		"where is the delimiter of a CSV file detected?":                       "src/csvtools/sniff.py",
	})
}

// "Settings" is what code calls config: the kin a question's word brings
// (its stem is the verb "set", so it has no group of its own).
func TestSettingsAreConfig(t *testing.T) {
	t.Parallel()
	q := "where are the settings read from the environment?"
	kin := withKin(q, Tokens(q))
	for _, w := range Tokens("config configuration") {
		if kin[w] <= 0 {
			t.Errorf("%q brings %q at %.2f, want it weighed: %v", q, w, kin[w], kin)
		}
	}
}
