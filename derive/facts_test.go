package derive

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureFacts reads the facts of a fixture under testdata/facts, with
// its files as List gives them.
func fixtureFacts(t *testing.T, name string) Facts {
	t.Helper()
	root := filepath.Join("testdata", "facts", name)
	entries, _, err := List(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ProjectFacts(root, entryPaths(entries))
}

func TestProjectFactsGo(t *testing.T) {
	f := fixtureFacts(t, "go")
	if f.Name != "shop" || f.Language != "go" || f.Module != "example.com/shop" {
		t.Errorf("name %q language %q module %q", f.Name, f.Language, f.Module)
	}
	wantDeps := []Dependency{
		{Name: "go", Version: "1.22.3", Source: "go.mod"},
		{Name: "github.com/pkg/errors", Version: "v0.9.1", Source: "go.mod"},
		{Name: "golang.org/x/sync", Version: "v0.7.0", Source: "go.mod"},
	}
	if !reflect.DeepEqual(f.Dependencies, wantDeps) {
		t.Errorf("dependencies %+v", f.Dependencies)
	}
	wantCmds := []Command{
		{Name: "build", Run: "go build ./...", Source: "go.mod (convention)"},
		{Name: "test", Run: "go test ./...", Source: "go.mod (convention)"},
		{Name: "build", Run: "make build", Recipe: "$(GO) build -o bin/shop ./cmd/shop", Source: "Makefile:7"},
		{Name: "test", Run: "make test", Recipe: "$(GO) test -race ./...", Source: "Makefile:10"},
		{Name: "lint", Run: "make lint", Recipe: "golangci-lint run", Source: "Makefile:13"},
		{Name: "all", Run: "make all", Source: "Makefile:20"},
		{Name: "release", Run: "make release", Recipe: "goreleaser release --clean", Source: "Makefile:22"},
		{Name: "Unit tests", Run: "go test ./...", Source: ".github/workflows/ci.yml:9"},
		{Name: "test", Run: "go vet ./...; staticcheck ./...", Source: ".github/workflows/ci.yml:10"},
		{Name: "release", Run: "goreleaser release", Source: ".github/workflows/ci.yml:17"},
	}
	if !reflect.DeepEqual(f.Commands, wantCmds) {
		t.Errorf("commands:")
		for _, c := range f.Commands {
			t.Errorf("  %+v", c)
		}
	}
	if want := []string{"cmd/serve", "cmd/tool/main.go", "main.go"}; !reflect.DeepEqual(f.EntryPoints, want) {
		t.Errorf("entry points %q", f.EntryPoints)
	}
	if f.Languages["go"] != 4 || f.Languages["yaml"] != 1 || f.Languages["make"] != 1 {
		t.Errorf("languages %v", f.Languages)
	}
}

func TestProjectFactsNode(t *testing.T) {
	f := fixtureFacts(t, "node")
	if f.Name != "@acme/widgets" || f.Language != "javascript" {
		t.Errorf("name %q language %q", f.Name, f.Language)
	}
	if want := []Dependency{{Name: "react", Version: "^18.2.0", Source: "package.json"}, {Name: "typescript", Version: "~5.4.0", Source: "package.json (dev)"}}; !reflect.DeepEqual(f.Dependencies, want) {
		t.Errorf("dependencies %+v", f.Dependencies)
	}
	want := []Command{
		{Name: "build", Run: "npm run build", Recipe: "tsc -p .", Source: "package.json"},
		{Name: "lint", Run: "npm run lint", Recipe: "eslint src", Source: "package.json"},
		{Name: "test", Run: "npm test", Recipe: "vitest run", Source: "package.json"},
	}
	if !reflect.DeepEqual(f.Commands, want) {
		t.Errorf("commands %+v", f.Commands)
	}
	// dist/index.js is built from src/index.ts: the brief names the source.
	if want := []string{"bin/cli.js", "src/index.ts"}; !reflect.DeepEqual(f.EntryPoints, want) {
		t.Errorf("entry points %q", f.EntryPoints)
	}
}

func TestProjectFactsRust(t *testing.T) {
	f := fixtureFacts(t, "rust")
	if f.Name != "ripper" || f.Language != "rust" {
		t.Errorf("name %q language %q", f.Name, f.Language)
	}
	want := []Dependency{
		{Name: "clap", Version: "4.5", Source: "Cargo.toml"}, {Name: "local", Version: "../local", Source: "Cargo.toml"}, {Name: "serde", Version: "1.0", Source: "Cargo.toml"},
		{Name: "proptest", Version: "1", Source: "Cargo.toml (dev)"},
	}
	if !reflect.DeepEqual(f.Dependencies, want) {
		t.Errorf("dependencies %+v", f.Dependencies)
	}
	var runs []string
	for _, c := range f.Commands {
		runs = append(runs, c.Run+" ["+c.Source+"]")
	}
	if w := []string{"cargo build [Cargo.toml (convention)]", "cargo test [Cargo.toml (convention)]", "cargo run [Cargo.toml (convention)]"}; !reflect.DeepEqual(runs, w) {
		t.Errorf("commands %q", runs)
	}
	// The [[bin]] "ghost" has no src/bin/ghost.rs: it is not named; src/bin/tool/
	// is a binary by its main.rs, and args.rs is a module of it.
	if w := []string{"src/bin/rip.rs", "src/bin/tool/main.rs", "src/main.rs"}; !reflect.DeepEqual(f.EntryPoints, w) {
		t.Errorf("entry points %q", f.EntryPoints)
	}
}

func TestProjectFactsPython(t *testing.T) {
	f := fixtureFacts(t, "python")
	if f.Name != "snake-tool" || f.Language != "python" {
		t.Errorf("name %q language %q", f.Name, f.Language)
	}
	want := []Dependency{
		{Name: "requests", Version: ">=2.31", Source: "pyproject.toml"}, {Name: "click", Version: "", Source: "pyproject.toml"}, {Name: "pytest", Version: ">=8", Source: "pyproject.toml (test)"},
	}
	if !reflect.DeepEqual(f.Dependencies, want) {
		t.Errorf("dependencies %+v", f.Dependencies)
	}
	// pytest among the requirements is how the project is tested.
	if w := []Command{{Name: "test", Run: "pytest", Source: "pyproject.toml (convention)"}, {Name: "snake", Run: "snake", Recipe: "tool.cli:main", Source: "pyproject.toml"}}; !reflect.DeepEqual(f.Commands, w) {
		t.Errorf("commands %+v", f.Commands)
	}
	if w := []string{"src/tool/__main__.py"}; !reflect.DeepEqual(f.EntryPoints, w) {
		t.Errorf("entry points %q", f.EntryPoints)
	}
}

func TestProjectFactsBrokenManifests(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json":             "{not json",
		"Cargo.toml":               "[package\nname=",
		"pyproject.toml":           "= =",
		"go.mod":                   "module\n",
		"Makefile":                 "\t\t\n:\n::\n",
		".github/workflows/ci.yml": "jobs: [\n  - {",
		"a.py":                     "x = 1\n",
	})
	f := ProjectFacts(root, []string{"a.py"})
	if f.Name != filepath.Base(root) || f.Language != "go" {
		t.Errorf("name %q language %q", f.Name, f.Language)
	}
	for _, c := range f.Commands {
		if !strings.HasSuffix(c.Source, "(convention)") {
			t.Errorf("a command from a broken file: %+v", c)
		}
	}
	if f := ProjectFacts(t.TempDir(), nil); f.Language != "" || len(f.Commands) != 0 {
		t.Errorf("an empty directory: %+v", f)
	}
	for mod, want := range map[string]string{"github.com/dgraph-io/badger/v4": "badger", "example.com/v2tool": "v2tool", "cairn": "cairn", "v3": "v3"} {
		if got := moduleName(mod); got != want {
			t.Errorf("moduleName(%q) = %q, want %q", mod, got, want)
		}
	}
}

func TestProjectFactsLanguageByFiles(t *testing.T) {
	f := ProjectFacts(t.TempDir(), []string{"a.py", "b.py", "c.rs", "README.md", "d.md", "e.md"})
	if f.Language != "python" {
		t.Errorf("language %q from %v", f.Language, f.Languages)
	}
}

// FuzzWorkflowRuns: no workflow file makes the facts panic.
func FuzzWorkflowRuns(f *testing.F) {
	f.Add([]byte("jobs:\n  a:\n    steps:\n      - run: x\n"))
	f.Add([]byte("run: |\n  a\n  b\n"))
	f.Add([]byte("- &a {run: x}\n- *a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range workflowRuns("w.yml", b) {
			if c.Run == "" {
				t.Fatalf("an empty command: %+v", c)
			}
		}
		f := Facts{}
		makefileFacts(&f, "Makefile", b)
		goModFacts(&f, b)
		packageJSONFacts(&f, b)
		cargoFacts(&f, b, nil)
		pyprojectFacts(&f, b, nil)
	})
}

// The purpose is the README's, unless its opening paragraph is not about
// the project (it does not name it) and the manifest says in one line
// what the project is.
func TestPurposeFromTheManifestWhenTheReadmeOpensElsewhere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ readme, want string }{
		{"# widgets\n\nA fast server means happy users and a smaller bill.\n", "Small widgets for dashboards."},
		{"A fast server means happy users.\n\nEnter widgets, the dashboard kit.\n", "Small widgets for dashboards."},
		{"Widgets is a kit of dashboard parts.\n", "Widgets is a kit of dashboard parts."},
	} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{
			"README.md":    c.readme,
			"package.json": `{"name": "@acme/widgets", "description": "Small widgets for dashboards."}`,
		})
		if f := ProjectFacts(root, []string{"README.md", "package.json"}); f.Purpose != c.want {
			t.Errorf("README %q: purpose %q, want %q", c.readme, f.Purpose, c.want)
		}
	}
}

// A Taskfile's tasks and a justfile's recipes are the project's own
// commands, told before the manifest's convention: "task test", "just
// build", each with the shell line it runs.
func TestCommandsFromTaskfileAndJustfile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod": "module example.com/tool\n\ngo 1.22\n",
		"Taskfile.yml": "version: '3'\n\nvars:\n  PKG: ./...\n\ntasks:\n  test:\n    desc: Run the tests\n    cmds:\n      - echo testing\n      - go test -race {{.PKG}}\n\n" +
			"  lint:\n    cmd: golangci-lint run\n\n  release:\n    cmds:\n      - task: test\n      - cmd: goreleaser release\n",
		"justfile": "set shell := [\"bash\", \"-c\"]\nversion := \"1.0\"\n\n# build it\n@build *args:\n    echo building\n    cargo build {{args}}\n\n_helper:\n    true\n\n[group('checks')]\ncheck: build\n    cargo clippy\n",
	})
	f := ProjectFacts(root, []string{"Taskfile.yml", "go.mod", "justfile"})
	var got []string
	for _, c := range f.Commands {
		if !strings.HasSuffix(c.Source, "(convention)") {
			got = append(got, c.Name+" = "+c.Run+" ("+c.Recipe+") "+c.Source)
		}
	}
	want := []string{
		"test = task test (go test -race {{.PKG}}) Taskfile.yml:7",
		"lint = task lint (golangci-lint run) Taskfile.yml:13",
		"release = task release (goreleaser release) Taskfile.yml:16",
		"build = just build (cargo build {{args}}) justfile:5",
		"check = just check (cargo clippy) justfile:13",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if line := commandLine(f.Commands); !strings.Contains(line, "build: just build") || !strings.Contains(line, "test: task test") {
		t.Errorf("the brief's commands %q: want the project's own before go's convention", line)
	}
}
