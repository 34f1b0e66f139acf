package derive

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// indexTree reads trees written into a temporary directory as cairn
// index does (List, the readers, the facts, the modules) and returns the
// facts and modules.
func indexTree(t *testing.T, trees ...map[string]string) (Facts, []Module) {
	t.Helper()
	root := t.TempDir()
	for _, tree := range trees {
		writeTree(t, root, tree)
	}
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, f := range d.Changed {
		ps = append(ps, f.Path)
	}
	return ProjectFacts(root, ps), Modules(d.Changed)
}

// briefOf is a tree's facts and brief.
func briefOf(t *testing.T, tree map[string]string) (Facts, string) {
	t.Helper()
	f, mods := indexTree(t, tree)
	return f, Summary(f, mods, 0)
}

// commandRuns are the commands of a brief's "Commands:" line.
func commandRuns(t *testing.T, brief string) string {
	t.Helper()
	for _, l := range strings.Split(brief, "\n") {
		if rest, ok := strings.CutPrefix(l, "Commands: "); ok {
			return rest
		}
	}
	t.Fatalf("no commands in the brief:\n%s", brief)
	return ""
}

// A Go library whose package is the root, with example programs beside
// it, as bubbletea is: the root is the first module, the examples' mains
// are not where the project starts, the README's title and purpose open
// the brief past its logo and badges.
func TestBriefGoLibraryAtRoot(t *testing.T) {
	t.Parallel()
	tree := map[string]string{
		"go.mod": "module charm.land/teacup/v2\n\ngo 1.24\n",
		"README.md": "# Tea Cup\n\n<p>\n  <img src=\"logo.png\" width=\"350\"><br>\n  <a href=\"https://x\"><img src=\"https://img.shields.io/badge.svg\"></a>\n</p>\n\n" +
			"The fun way to build terminal apps. A Go framework based on The Elm Architecture. It is well-suited for apps of any size.\n\n> [!TIP]\n> Upgrading? Read the guide.\n",
		"tea.go":                       "// Package tea runs terminal programs.\npackage tea\n\n// Program runs a model.\ntype Program struct{}\n\n// Run runs it.\nfunc (p *Program) Run() error { return nil }\n",
		"key.go":                       "package tea\n\n// KeyMsg is a key press.\ntype KeyMsg struct{}\n",
		"screen.go":                    "package tea\n\n// Screen is the screen.\ntype Screen struct{}\n",
		"examples/chat/main.go":        "package main\n\nfunc main() {}\n",
		"examples/timer/main.go":       "package main\n\nfunc main() {}\n",
		"examples/README.md":           "# Examples\n\nPrograms that show how to use the library.\n",
		"tutorials/basics/main.go":     "package main\n\nfunc main() {}\n",
		"internal/test/helper/main.go": "package main\n\nfunc main() {}\n",
		"cmd/teactl/main.go":           "package main\n\nfunc main() {}\n",
	}
	f, brief := briefOf(t, tree)
	if f.Title != "Tea Cup" || f.Purpose != "The fun way to build terminal apps. A Go framework based on The Elm Architecture." {
		t.Errorf("title %q purpose %q", f.Title, f.Purpose)
	}
	if want := []string{"cmd/teactl/main.go"}; !reflect.DeepEqual(f.EntryPoints, want) {
		t.Errorf("entry points %q, want %q", f.EntryPoints, want)
	}
	if first := strings.SplitN(brief, "\n", 2)[0]; first != "Tea Cup: The fun way to build terminal apps. A Go framework based on The Elm Architecture." {
		t.Errorf("first line %q", first)
	}
	_, mods, ok := strings.Cut(brief, "Modules:\n")
	if !ok {
		t.Fatalf("no modules:\n%s", brief)
	}
	lines := strings.Split(mods, "\n")
	if !strings.HasPrefix(lines[0], "- ./ (go, 5 files) Names: Program,") {
		t.Errorf("the root package is not the first module:\n%s", brief)
	}
	// The code before the examples that show it.
	if i, j := strings.Index(mods, "- cmd/"), strings.Index(mods, "- examples/"); i < 0 || j < 0 || i > j {
		t.Errorf("modules in the wrong order:\n%s", mods)
	}
	if strings.Contains(brief, "[!TIP]") || strings.Contains(brief, "img") {
		t.Errorf("a note or HTML in the brief:\n%s", brief)
	}
}

// A Python project as flask is: a build system, pytest's settings and a
// uv lock give the build and test commands; the CI's build step that only
// hands a variable to the runner is no command; the README's reference
// links read as their labels.
func TestBriefPythonProject(t *testing.T) {
	t.Parallel()
	tree := map[string]string{
		"pyproject.toml": "[project]\nname = \"Flask\"\ndependencies = [\"werkzeug>=3\"]\n\n[build-system]\nrequires = [\"flit_core<4\"]\nbuild-backend = \"flit_core.buildapi\"\n\n" +
			"[dependency-groups]\ndev = [\"tox\", {include-group = \"tests\"}]\ntests = [\"pytest\"]\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
		"uv.lock": "version = 1\n",
		"README.md": "<div align=\"center\"><img src=\"flask-name.svg\" alt=\"\" height=\"150\"></div>\n\n# Flask\n\n" +
			"Flask is a lightweight [WSGI] web application framework. It is designed\nto make getting started quick and easy. It began as a wrapper.\n\n[WSGI]: https://wsgi.readthedocs.io/\n",
		"src/flask/__init__.py": "from .app import Flask\n",
		"src/flask/__main__.py": "from .cli import main\nmain()\n",
		"src/flask/app.py":      "class Flask:\n    \"\"\"The app.\"\"\"\n",
		"tests/__main__.py":     "print(1)\n",
		".github/workflows/publish.yaml": "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n" +
			"      - run: echo \"SOURCE_DATE_EPOCH=$(git log -1 --pretty=%ct)\" >> $GITHUB_ENV\n      - run: uv build\n" +
			"  tests:\n    steps:\n      - run: |\n          export CI=1\n          echo \"dir=x\" >> \"$GITHUB_OUTPUT\"\n          uv run tox run\n",
	}
	f, brief := briefOf(t, tree)
	for _, c := range f.Commands {
		if strings.Contains(c.Run, "GITHUB_") || strings.Contains(c.Run, "export ") {
			t.Errorf("a line that only sets a variable is a command: %+v", c)
		}
	}
	if got, want := commandRuns(t, brief), "build: uv build · test: uv run pytest"; got != want {
		t.Errorf("commands %q, want %q\n%s", got, want, brief)
	}
	if want := []string{"src/flask/__main__.py"}; !reflect.DeepEqual(f.EntryPoints, want) {
		t.Errorf("entry points %q, want %q", f.EntryPoints, want)
	}
	if !strings.HasPrefix(brief, "Flask is a lightweight WSGI web application framework. It is designed to make getting started quick and easy.\n") {
		t.Errorf("brief starts:\n%s", brief)
	}
	// Without a lock file or a build system, pytest runs by itself and
	// the build is what CI runs, as nothing else says how.
	delete(tree, "uv.lock")
	tree["pyproject.toml"] = "[project]\nname = \"flask\"\n\n[project.optional-dependencies]\ntest = [\"pytest>=8\"]\n"
	if _, brief := briefOf(t, tree); commandRuns(t, brief) != "build: uv build · test: pytest" {
		t.Errorf("without uv:\n%s", brief)
	}
}

// The Makefile's and the manifest's commands come before what CI runs,
// whatever CI names its jobs.
func TestBriefCommandsBeforeCI(t *testing.T) {
	t.Parallel()
	_, brief := briefOf(t, map[string]string{
		"go.mod":   "module example.com/tool\n\ngo 1.22\n",
		"main.go":  "package main\n\nfunc main() {}\n",
		"Makefile": "test:\n\tgo test -race ./...\n",
		".github/workflows/ci.yml": "jobs:\n  build:\n    steps:\n      - run: go build -trimpath ./...\n" +
			"  test:\n    steps:\n      - run: go test -count=1 ./...\n  lint:\n    steps:\n      - run: golangci-lint run\n",
		"ci/run":          "#!/bin/sh\nmake test\n",
		"ci/install-deps": "#!/bin/sh\napt-get install x\n",
	})
	want := "build: go build ./... · test: make test (go test -race ./...) · lint: golangci-lint run · ci: ./ci/run"
	if got := commandRuns(t, brief); got != want {
		t.Errorf("commands\n got %q\nwant %q", got, want)
	}
}

func TestOnlySets(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		`echo "SOURCE_DATE_EPOCH=$(git log -1 --pretty=%ct)" >> $GITHUB_ENV`: true,
		`echo "version=1.2" >> "$GITHUB_OUTPUT"`:                             true,
		`echo "$HOME/.local/bin" >> ${GITHUB_PATH}`:                          true,
		`export GOFLAGS=-mod=mod`:                                            true,
		`export A=1 B`:                                                       true,
		`CGO_ENABLED=0`:                                                      true,
		`set -euo pipefail`:                                                  true,
		`echo Building`:                                                      true,
		`npm i -fg corepack && corepack enable`:                              true,
		`sudo apt-get install -y libsqlite3-dev`:                             true,
		`go install honnef.co/go/tools/cmd/staticcheck@latest`:               true,
		`npm ci && npm test`:                                                 false,
		`pip install -e .`:                                                   false,
		`CGO_ENABLED=0 go build ./...`:                                       false,
		`go test ./...`:                                                      false,
		`echo "[tool]" > setup.cfg`:                                          false,
		`echo y | sdkmanager --install x`:                                    false,
		`exporter --run`:                                                     false,
		`echo "::group::tests"; go test ./...`:                               false,
	} {
		if got := onlySets(line); got != want {
			t.Errorf("onlySets(%q) = %v, want %v", line, got, want)
		}
	}
	if got := shellLine("export CI=1\necho \"x=1\" >> $GITHUB_ENV\n"); got != "" {
		t.Errorf("a step that only sets variables gives %q", got)
	}
}

func TestReadmePurpose(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, src, title, purpose string
	}{
		{
			name: "setext title, badges after", file: "README.md",
			src:   "ripgrep (rg)\n------------\nripgrep is a line-oriented search tool that recursively searches the current\ndirectory for a regex pattern. By default, ripgrep will respect gitignore rules.\n\n[![Build status](https://x/badge.svg)](https://x)\n",
			title: "ripgrep (rg)", purpose: "ripgrep is a line-oriented search tool that recursively searches the current directory for a regex pattern.",
		},
		{
			name: "purpose in a quote under HTML", file: "readme.md",
			src:   "<div align=\"center\">\n\t<img src=\"logo.svg\" alt=\"ky\">\n</div>\n\n> Ky is a tiny and elegant HTTP client based on the [Fetch API](https://x)\n\n[![Coverage](https://x.svg)](https://x)\n\nKy targets modern browsers.\n\n## Install\n",
			title: "", purpose: "Ky is a tiny and elegant HTTP client based on the Fetch API",
		},
		{
			name: "HTML title", file: "README.md",
			src:   "<h1 align=\"center\">\n  <b>fzy</b>\n</h1>\n\n<p align=\"center\">badges</p>\n\nA fast, simple fuzzy text selector for the terminal with an advanced scoring algorithm.\n",
			title: "fzy", purpose: "A fast, simple fuzzy text selector for the terminal with an advanced scoring algorithm.",
		},
		{
			name: "reStructuredText", file: "README.rst",
			src:   ".. image:: https://x/logo.png\n    :alt: logo\n    :align: center\n\n|build| |docs|\n\n=====\nClick\n=====\n\nClick is a Python package for creating beautiful command line interfaces\nin a composable way with as little code as necessary. It is the\n\"Command Line Interface Creation Kit\". See `the docs <https://click.x>`_.\n\nInstalling\n----------\n",
			title: "Click", purpose: "Click is a Python package for creating beautiful command line interfaces in a composable way with as little code as necessary.",
		},
		{
			name: "a sponsor's links before the title", file: "README.md",
			src:   "<div align=\"center\">\n<sup>Thanks to:</sup>\n</div>\n\n### [Acme, the cloud for tools](https://acme.example)\n[Runs on macOS, Linux and Windows](https://acme.example) · [Docs](https://acme.example/docs)<br>\n\n# lsx\n\nA friendlier file lister for the terminal.\n",
			title: "lsx", purpose: "A friendlier file lister for the terminal.",
		},
		{
			name: "purpose in an HTML paragraph after a sponsors' table", file: "README.md",
			src:   "<h3 align=\"center\">Sponsors</h3><table><tr><td><a href=\"https://s.example\"><img src=\"s.png\"> Become a sponsor</a> <p align=\"center\">Fast payments for every online shop</p></td></tr></table>\n\n<!--<div>marker</div>-->\n<p align=\"center\">A small HTTP client for browsers &amp; servers</p>\n\n<p align=\"center\"><a href=\"https://w.example\"><b>Website</b></a> • <a href=\"https://d.example\"><b>Docs</b></a></p>\n\nTable of Contents: see below.\n",
			title: "", purpose: "A small HTTP client for browsers & servers",
		},
		{
			name: "a tagline under an HTML title, a figure's caption skipped", file: "README.md",
			src:   "<div align=\"center\">\n  <h1>rpcx</h1>\n  <h3>Typed calls.<br />Nothing to generate.</h3>\n  <figure>\n    <img src=\"demo.gif\" />\n    <figcaption><p>The client above imports only types from the server.</p></figcaption>\n  </figure>\n</div>\n\n## Install\n",
			title: "rpcx", purpose: "Typed calls. Nothing to generate.",
		},
		{
			name: "a tagline above its links' separators", file: "README.md",
			src:   "<h1 align=\"center\"><img alt=\"rx\" src=\"logo.svg\"></h1>\n\n<p align=\"center\">\nRun eXtended: the easiest way to run scripts\n<br><br>\n<a href=\"https://d.example\">Documentation</a>&nbsp;&nbsp;|&nbsp;&nbsp;<a href=\"https://g.example\">Getting started →</a>\n</p>\n",
			title: "", purpose: "Run eXtended: the easiest way to run scripts",
		},
		{
			name: "a tagline as the only heading, the name in a logo", file: "README.md",
			src:   "[![Fmt Logo](https://x/logo.png)](https://x)\n\n<h2 align=\"center\">The Unbending Code Formatter</h2>\n\n<p align=\"center\">\n<a href=\"https://x\"><img alt=\"Status\" src=\"https://x.svg\"></a>\n</p>\n",
			title: "", purpose: "The Unbending Code Formatter",
		},
		{
			name: "a sponsor's plea first, what the project is after it", file: "README.md",
			src:   "<p align=\"center\"><img src=\"logo.jpg\" alt=\"tx\"></p>\n<p align=\"center\">\n  <strong>This project's future depends on community support. <a href=\"https://s.example\">Become a sponsor today</a>.</strong>\n</p>\n\n## About\n\n`tx` is a tool that lets any two computers transfer files securely.\n",
			title: "", purpose: "tx is a tool that lets any two computers transfer files securely.",
		},
		{
			name: "an etymology first", file: "README.md",
			src:   "# Zeug\n\n*zeug* German noun: \"stuff\". Etymology: unknown.\n\nZeug is a comprehensive toolkit for web servers.\n",
			title: "Zeug", purpose: "Zeug is a comprehensive toolkit for web servers.",
		},
		{
			name: "a row of links first, the name explained in brackets", file: "README.md",
			src:   "# LX\n\n[Doc](doc.md)\n| [Wiki](https://w.example)\n| [#lx:matrix.org](https://m.example) (with IRC bridge)\n\n`lx` (as in \"list x\") is a terminal file manager written in Go.\n",
			title: "LX", purpose: "lx (as in \"list x\") is a terminal file manager written in Go.",
		},
		{
			name: "only a heading", file: "README.md", src: "# tool\n\n```sh\ntool --help\n```\n", title: "tool", purpose: "",
		},
	} {
		title, purpose := readmePurpose(c.file, []byte(c.src))
		if title != c.title || purpose != c.purpose {
			t.Errorf("%s:\n title %q, want %q\n purpose %q\n    want %q", c.name, title, c.title, purpose, c.purpose)
		}
	}
	if got := rootReadme([]string{"docs/README.md", "README.rst", "README.md", "README"}); got != "README.md" {
		t.Errorf("root README %q", got)
	}
	// A README of a part or in another language sorts before README.md
	// ("-" and "." before "m") and is not what the project is.
	for _, ps := range [][]string{{"README-VIM.md", "README.md"}, {"README.de.md", "README.rst"}, {"README-VIM.md", "README"}} {
		if got := rootReadme(ps); got != ps[1] {
			t.Errorf("root README of %q: %q", ps, got)
		}
	}
	if got := rootReadme([]string{"README-VIM.md"}); got != "README-VIM.md" {
		t.Errorf("the only README: %q", got)
	}
}

// FuzzReadmePurpose: no README makes the facts panic, and the purpose
// stays within its words.
func FuzzReadmePurpose(f *testing.F) {
	f.Add("# T\n\n<p>x</p>\n\n> [!NOTE]\n> n\n\nA purpose of some words. And more.\n", false)
	f.Add("=====\nT\n=====\n\n.. image:: x\n   :alt: y\n\n|a| |b|\n\nText `x <y>`_ here.\n", true)
	f.Fuzz(func(t *testing.T, src string, rst bool) {
		name := "README.md"
		if rst {
			name = "README.rst"
		}
		_, purpose := readmePurpose(name, []byte(src))
		if n := len(strings.Fields(purpose)); n > purposeMax {
			t.Fatalf("a purpose of %d words", n)
		}
	})
}

// A directory of inputs for the tests or demos is no module of the brief,
// however it is spelt (difftastic's sample_files is its largest directory
// of Rust, demo_files another).
func TestBriefLeavesOutTestInputs(t *testing.T) {
	t.Parallel()
	tree := map[string]string{
		"Cargo.toml":  "[package]\nname = \"difft\"\nversion = \"0.1.0\"\n",
		"src/main.rs": "//! Structural diff.\nfn main() {}\n",
		"src/diff.rs": "/// Diffs two trees.\npub fn diff() {}\n",
	}
	for _, dir := range []string{"sample_files", "test-files", "fixtures", "demo_files"} {
		for i := range 4 {
			tree[dir+"/case_"+string(rune('a'+i))+".rs"] = "fn sample() { let x = 1; }\n"
		}
	}
	_, brief := briefOf(t, tree)
	if !strings.Contains(brief, "Modules:") || !strings.Contains(brief, "src") {
		t.Fatalf("no modules, or not src:\n%s", brief)
	}
	for _, dir := range []string{"sample_files", "test-files", "fixtures", "demo_files"} {
		if strings.Contains(brief, dir) {
			t.Errorf("%s is a module of the brief:\n%s", dir, brief)
		}
	}
}
