package derive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"cairn/memory"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
)

// The project's facts are the domain's (memory.Facts): what a
// repository's manifests, build files and CI say about the project — its
// name (package.json, Cargo.toml, pyproject.toml, go.mod, else the
// directory), its main language (the root manifest's, else the most
// common code language), its Go module, its files per language, its
// dependencies (a go.mod's toolchain is the dependency "go"), the
// commands to build, test, run and check it (a convention a manifest
// implies says so in its Source: "go.mod (convention)"), and where its
// programs start.
type (
	Facts      = memory.Facts
	Dependency = memory.Dependency
	Command    = memory.Command
)

// ProjectFacts reads the root's manifests (go.mod, package.json,
// Cargo.toml, pyproject.toml), its Makefile and CI files (GitHub workflow
// run steps; .ci/ and ci/ scripts are named, not read). paths are the
// project's files (from List or Update), relative to root: they give the
// languages and the entry points. A manifest that does not parse gives
// what was read before the error; ProjectFacts never fails.
func ProjectFacts(root string, paths []string) Facts {
	f, _ := projectFacts(root, paths)
	return f
}

// maxNotes bounds the notes an index run gives about files it refused.
const maxNotes = 10

// projectFacts is ProjectFacts with notes on the manifests and build
// files it refused to read: a link out of the repository (a go.mod
// pointing at /dev/zero), a FIFO or a device, a file over the limit. Only
// regular files inside the root are read, and no more of each than the
// limit.
func projectFacts(root string, paths []string) (Facts, []string) {
	f := Facts{Languages: map[string]int{}}
	var notes []string
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	have := map[string]bool{}
	// A lock file is often left out of the paths as generated: it is
	// looked for in the root.
	for _, lock := range []string{"uv.lock"} {
		if fi, err := os.Lstat(filepath.Join(real, lock)); err == nil && fi.Mode().IsRegular() {
			have[lock] = true
		}
	}
	for _, p := range paths {
		have[p] = true
		if l := langOf(p); l != "" {
			f.Languages[l]++
		}
	}
	read := func(name string) ([]byte, bool) {
		b, reason, err := readInRoot(real, name, factsLimit)
		if reason != "" {
			switch n := len(notes); {
			case n < maxNotes:
				notes = append(notes, refusedNote(name, reason))
			case n == maxNotes:
				notes = append(notes, "and more files refused for the same reasons")
			}
		}
		return b, reason == "" && err == nil
	}

	lang := manifestFacts(&f, have, read)
	ciFacts(&f, root, paths, read)
	goEntryPoints(&f, paths, read)
	for _, p := range paths {
		base := path.Base(p)
		if base == "__main__.py" || p == "src/main.rs" || cargoBin(p) {
			f.EntryPoints = append(f.EntryPoints, p)
		}
	}
	// Examples and tests have mains of their own; they are not where the
	// project starts.
	f.EntryPoints = slices.DeleteFunc(f.EntryPoints, notShipped)
	f.EntryPoints = heldEntryPoints(f.EntryPoints, paths, have)
	if readme := rootReadme(paths); readme != "" {
		if b, ok := read(readme); ok {
			f.Title, f.Purpose = readmePurpose(readme, b)
		}
	}
	// A README that opens on something else than what the project is
	// ("An efficient server implies a lower cost of the infrastructure …")
	// gives way to the manifest's one line.
	if d := manifestDescription(read); d != "" && !namesProject(f.Purpose, f.Name, f.Title, filepath.Base(root)) {
		f.Purpose = d
	}

	if lang == "" {
		lang = mainLanguage(f.Languages)
	}
	f.Language = lang
	if f.Name == "" {
		if f.Module != "" {
			f.Name = moduleName(f.Module)
		} else if abs, err := filepath.Abs(root); err == nil {
			f.Name = filepath.Base(abs)
		}
	}
	f.EntryPoints = uniqueSorted(f.EntryPoints)
	return f.Redacted(), notes
}

// manifestFacts reads the manifests (go.mod, Cargo.toml, pyproject.toml,
// package.json) and the build files (a Makefile, a Taskfile, a justfile)
// into f; the language is the first manifest's, "" when there is none.
func manifestFacts(f *Facts, have map[string]bool, read func(string) ([]byte, bool)) (lang string) {
	if b, ok := read("go.mod"); ok {
		lang = "go"
		goModFacts(f, b)
	}
	if b, ok := read("Cargo.toml"); ok {
		lang = orElse(lang, "rust")
		cargoFacts(f, b, have)
	}
	if b, ok := read("pyproject.toml"); ok {
		lang = orElse(lang, "python")
		pyprojectFacts(f, b, have)
	}
	if b, ok := read("package.json"); ok {
		if lang == "" {
			lang = "javascript"
			if f.Languages["typescript"] > f.Languages["javascript"] {
				lang = "typescript"
			}
		}
		packageJSONFacts(f, b)
	}
	for _, mk := range []string{"GNUmakefile", "Makefile", "makefile"} {
		if b, ok := read(mk); ok {
			makefileFacts(f, mk, b)
			break
		}
	}
	for _, tf := range []string{"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"} {
		if b, ok := read(tf); ok {
			taskfileFacts(f, tf, b)
			break
		}
	}
	for _, jf := range []string{"justfile", "Justfile", ".justfile"} {
		if b, ok := read(jf); ok {
			justfileFacts(f, jf, b)
			break
		}
	}
	return lang
}

// factsLimit bounds a manifest or build file the facts are read from.
const factsLimit = 4 * DefaultMaxFileSize

// refusedNote says in one line why a file the facts come from was not read.
func refusedNote(name, reason string) string {
	switch reason {
	case SkipSymlink:
		return name + " is a link out of the repository: not read"
	case SkipSpecial:
		return name + " is not a regular file (a FIFO, a device or a socket): not read"
	case SkipLarge:
		return fmt.Sprintf("%s is over %d MiB: not read", name, factsLimit>>20)
	}
	return name + ": not read"
}

// moduleName is the last element of a module path that is not a major
// version: "badger" for github.com/dgraph-io/badger/v4.
func moduleName(mod string) string {
	base := path.Base(mod)
	if len(base) >= 2 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" && path.Dir(mod) != "." {
		return path.Base(path.Dir(mod))
	}
	return base
}

// langOf names a path's language: its reader's, else by extension.
func langOf(p string) string {
	if l, ok := readerFor(p); ok {
		return l.name
	}
	return langByExt(p)
}

// notCode are languages that do not make a project "a … project".
var notCode = map[string]bool{
	"markdown": true, "json": true, "yaml": true, "toml": true, "text": true, "rst": true, "make": true, "html": true, "css": true,
}

// mainLanguage is the code language with the most files (by name on a tie).
func mainLanguage(langs map[string]int) string {
	best, n := "", 0
	for l, c := range langs {
		if notCode[l] {
			continue
		}
		if c > n || (c == n && l < best) {
			best, n = l, c
		}
	}
	return best
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// goModFacts reads go.mod: the module, the go version, the direct
// requirements (indirect ones are the dependencies' own), and the
// conventional build and test commands.
func goModFacts(f *Facts, b []byte) {
	inRequire := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		indirect := strings.Contains(line, "// indirect")
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if inRequire {
			if fields[0] == ")" {
				inRequire = false
			} else if len(fields) >= 2 && !indirect {
				f.Dependencies = append(f.Dependencies, Dependency{Name: goModUnquote(fields[0]), Version: fields[1], Source: "go.mod"})
			}
			continue
		}
		switch fields[0] {
		case "module":
			if len(fields) >= 2 {
				f.Module = goModUnquote(fields[1])
			}
		case "go":
			if len(fields) >= 2 {
				f.Dependencies = append([]Dependency{{Name: "go", Version: fields[1], Source: "go.mod"}}, f.Dependencies...)
			}
		case "require":
			if len(fields) >= 2 && fields[1] == "(" {
				inRequire = true
			} else if len(fields) >= 3 && !indirect {
				f.Dependencies = append(f.Dependencies, Dependency{Name: goModUnquote(fields[1]), Version: fields[2], Source: "go.mod"})
			}
		}
	}
	f.Commands = append(f.Commands,
		Command{Name: "build", Run: "go build ./...", Source: "go.mod (convention)"},
		Command{Name: "test", Run: "go test ./...", Source: "go.mod (convention)"},
	)
}

func goModUnquote(s string) string { return strings.Trim(s, "\"`") }

// packageJSONFacts reads package.json: name, scripts (run with npm run),
// dependencies, and the bin and main files as entry points.
func packageJSONFacts(f *Facts, b []byte) {
	var pj struct {
		Name            string            `json:"name"`
		Main            string            `json:"main"`
		Bin             json.RawMessage   `json:"bin"`
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return
	}
	if f.Name == "" {
		f.Name = pj.Name
	}
	for _, name := range sortedMapKeys(pj.Scripts) {
		run := "npm run " + name
		if name == "test" || name == "start" {
			run = "npm " + name
		}
		f.Commands = append(f.Commands, Command{Name: name, Run: run, Recipe: pj.Scripts[name], Source: "package.json"})
	}
	for _, name := range sortedMapKeys(pj.Dependencies) {
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: pj.Dependencies[name], Source: "package.json"})
	}
	for _, name := range sortedMapKeys(pj.DevDependencies) {
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: pj.DevDependencies[name], Source: "package.json (dev)"})
	}
	if pj.Main != "" {
		f.EntryPoints = append(f.EntryPoints, manifestPath(pj.Main))
	}
	var one string
	var many map[string]string
	if json.Unmarshal(pj.Bin, &one) == nil && one != "" {
		f.EntryPoints = append(f.EntryPoints, manifestPath(one))
	} else if json.Unmarshal(pj.Bin, &many) == nil {
		for _, name := range sortedMapKeys(many) {
			f.EntryPoints = append(f.EntryPoints, manifestPath(many[name]))
		}
	}
}

// manifestPath makes a manifest's "./bin/x.js" the slash path "bin/x.js".
func manifestPath(p string) string {
	return strings.TrimPrefix(path.Clean(strings.TrimPrefix(p, "./")), "/")
}

// cargoFacts reads Cargo.toml: the package name, dependencies (a version
// string, or a table with a version, a path or a git URL), [[bin]] files,
// and the conventional cargo commands.
func cargoFacts(f *Facts, b []byte, have map[string]bool) {
	var c struct {
		Package struct {
			Name string `toml:"name"`
		} `toml:"package"`
		Dependencies    map[string]any `toml:"dependencies"`
		DevDependencies map[string]any `toml:"dev-dependencies"`
		Bin             []struct {
			Name string `toml:"name"`
			Path string `toml:"path"`
		} `toml:"bin"`
	}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return
	}
	if f.Name == "" {
		f.Name = c.Package.Name
	}
	for _, name := range sortedMapKeys(c.Dependencies) {
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: cargoVersion(c.Dependencies[name]), Source: "Cargo.toml"})
	}
	for _, name := range sortedMapKeys(c.DevDependencies) {
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: cargoVersion(c.DevDependencies[name]), Source: "Cargo.toml (dev)"})
	}
	for _, bin := range c.Bin {
		p := bin.Path
		if p == "" && bin.Name != "" {
			p = "src/bin/" + bin.Name + ".rs"
		}
		if p != "" {
			f.EntryPoints = append(f.EntryPoints, manifestPath(p))
		}
	}
	f.Commands = append(f.Commands,
		Command{Name: "build", Run: "cargo build", Source: "Cargo.toml (convention)"},
		Command{Name: "test", Run: "cargo test", Source: "Cargo.toml (convention)"},
	)
	if have["src/main.rs"] || len(c.Bin) > 0 {
		f.Commands = append(f.Commands, Command{Name: "run", Run: "cargo run", Source: "Cargo.toml (convention)"})
	}
}

func cargoVersion(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for _, k := range []string{"version", "path", "git"} {
			if s, ok := v[k].(string); ok {
				return s
			}
		}
		if ws, ok := v["workspace"].(bool); ok && ws {
			return "workspace"
		}
	}
	return ""
}

// pyprojectFacts reads pyproject.toml: PEP 621's [project] (name,
// dependencies, optional ones, scripts) or Poetry's [tool.poetry].
func pyprojectFacts(f *Facts, b []byte, have map[string]bool) {
	var p struct {
		BuildSystem struct {
			Requires []string `toml:"requires"`
			Backend  string   `toml:"build-backend"`
		} `toml:"build-system"`
		// DependencyGroups are PEP 735's; a group may include another
		// ({include-group = "x"}), hence any.
		DependencyGroups map[string][]any `toml:"dependency-groups"`
		Project          struct {
			Name                 string              `toml:"name"`
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
			Scripts              map[string]string   `toml:"scripts"`
		} `toml:"project"`
		Tool struct {
			Poetry struct {
				Name            string            `toml:"name"`
				Dependencies    map[string]any    `toml:"dependencies"`
				DevDependencies map[string]any    `toml:"dev-dependencies"`
				Scripts         map[string]string `toml:"scripts"`
			} `toml:"poetry"`
			Pytest any `toml:"pytest"`
		} `toml:"tool"`
	}
	if _, err := toml.Decode(string(b), &p); err != nil {
		return
	}
	if f.Name == "" {
		f.Name = orElse(p.Project.Name, p.Tool.Poetry.Name)
	}
	for _, d := range p.Project.Dependencies {
		name, version := splitRequirement(d)
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: version, Source: "pyproject.toml"})
	}
	for _, group := range sortedMapKeys(p.Project.OptionalDependencies) {
		for _, d := range p.Project.OptionalDependencies[group] {
			name, version := splitRequirement(d)
			f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: version, Source: "pyproject.toml (" + group + ")"})
		}
	}
	for _, name := range sortedMapKeys(p.Tool.Poetry.Dependencies) {
		if name == "python" {
			continue
		}
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: cargoVersion(p.Tool.Poetry.Dependencies[name]), Source: "pyproject.toml"})
	}
	for _, name := range sortedMapKeys(p.Tool.Poetry.DevDependencies) {
		f.Dependencies = append(f.Dependencies, Dependency{Name: name, Version: cargoVersion(p.Tool.Poetry.DevDependencies[name]), Source: "pyproject.toml (dev)"})
	}
	pythonConventions(f, p.BuildSystem.Backend != "" || len(p.BuildSystem.Requires) > 0,
		p.Tool.Pytest != nil || hasPytest(p.Project.OptionalDependencies) || hasPytest(p.DependencyGroups), have)
	scripts := p.Project.Scripts
	if len(scripts) == 0 {
		scripts = p.Tool.Poetry.Scripts
	}
	for _, name := range sortedMapKeys(scripts) {
		// A console script: the command is its name once installed.
		f.Commands = append(f.Commands, Command{Name: name, Run: name, Recipe: scripts[name], Source: "pyproject.toml"})
	}
}

// pythonConventions are the commands a pyproject.toml implies: a build
// system builds with "python -m build", pytest's settings or a pytest
// requirement test with "pytest"; run through uv when the project locks
// with uv (uv.lock), through tox's own "tox" when only tox.ini is there.
func pythonConventions(f *Facts, build, pytest bool, have map[string]bool) {
	const src = "pyproject.toml (convention)"
	uv := have["uv.lock"]
	if build {
		run := "python -m build"
		if uv {
			run = "uv build"
		}
		f.Commands = append(f.Commands, Command{Name: "build", Run: run, Source: src})
	}
	switch {
	case pytest && uv:
		f.Commands = append(f.Commands, Command{Name: "test", Run: "uv run pytest", Source: src})
	case pytest:
		f.Commands = append(f.Commands, Command{Name: "test", Run: "pytest", Source: src})
	case have["tox.ini"]:
		f.Commands = append(f.Commands, Command{Name: "test", Run: "tox", Source: "tox.ini (convention)"})
	}
}

// hasPytest reports a requirement on pytest among groups of requirements.
func hasPytest[V any](groups map[string][]V) bool {
	for _, reqs := range groups {
		for _, r := range reqs {
			if s, ok := any(r).(string); ok {
				if name, _ := splitRequirement(s); strings.EqualFold(name, "pytest") {
					return true
				}
			}
		}
	}
	return false
}

// splitRequirement splits a PEP 508 requirement ("requests[socks]>=2.31;
// python_version>'3.8'") into its name and the rest.
func splitRequirement(r string) (name, version string) {
	r = strings.TrimSpace(r)
	if i := strings.IndexByte(r, ';'); i >= 0 {
		r = strings.TrimSpace(r[:i])
	}
	i := strings.IndexAny(r, "[<>=!~ (@")
	if i < 0 {
		return r, ""
	}
	name, rest := r[:i], r[i:]
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			rest = rest[j+1:]
		}
	}
	return name, strings.Trim(strings.TrimSpace(rest), "()")
}

// makefileFacts reads a Makefile's explicit targets (not pattern rules,
// not special .TARGETS, not variables) with the first line of each
// recipe that does something (not an echo), @ and - prefixes removed.
func makefileFacts(f *Facts, name string, b []byte) {
	lines := strings.Split(string(b), "\n")
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		if line == "" || line[0] == '\t' || line[0] == ' ' || line[0] == '#' {
			continue
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		rest := line[colon+1:]
		// Not an assignment (":=", "::=") and not a variable reference.
		if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=") || strings.ContainsAny(line[:colon], "=$%") {
			continue
		}
		if strings.HasPrefix(line, "export ") || strings.HasPrefix(line, "include ") || strings.HasPrefix(line, "ifeq") {
			continue
		}
		recipe := ""
		if j := strings.IndexByte(rest, ';'); j >= 0 {
			recipe = strings.TrimSpace(rest[j+1:])
		}
		for j := i + 1; recipe == "" && j < len(lines); j++ {
			l := strings.TrimRight(lines[j], "\r")
			if !strings.HasPrefix(l, "\t") {
				if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
					continue
				}
				break
			}
			recipe = strings.TrimLeft(strings.TrimSpace(l), "@-+")
			recipe = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(recipe), "\\"))
			if strings.HasPrefix(recipe, "echo ") || strings.HasPrefix(recipe, "printf ") {
				recipe = "" // what it says, not what it does: read on
			}
		}
		// "$$" is how a recipe writes the shell's "$".
		recipe = strings.ReplaceAll(recipe, "$$", "$")
		for _, target := range strings.Fields(line[:colon]) {
			if strings.HasPrefix(target, ".") || seen[target] {
				continue
			}
			seen[target] = true
			f.Commands = append(f.Commands, Command{
				Name: target, Run: "make " + target, Recipe: recipe,
				Source: fmt.Sprintf("%s:%d", name, i+1),
			})
		}
	}
}

// taskfileFacts reads a Taskfile (go-task): each task under "tasks:" is
// a command, "task NAME", its recipe its cmd or the first of its cmds
// that is a shell line (not a call of another task, not an echo), with
// the line of its name.
func taskfileFacts(f *Facts, name string, b []byte) {
	// A YAML library's panic on odd input leaves the facts without this
	// file's tasks, not the caller without facts.
	defer func() { _ = recover() }()
	file, err := yamlparser.ParseBytes(b, 0)
	if err != nil || file == nil || len(file.Docs) == 0 || file.Docs[0] == nil {
		return
	}
	for _, kv := range yamlPairs(file.Docs[0].Body) {
		if yamlKey(kv) != "tasks" {
			continue
		}
		for _, task := range yamlPairs(kv.Value) {
			c := Command{Name: yamlKey(task), Source: name}
			if c.Name == "" {
				continue
			}
			c.Run = "task " + c.Name
			if task.Key != nil && task.Key.GetToken() != nil {
				c.Source = fmt.Sprintf("%s:%d", name, task.Key.GetToken().Position.Line)
			}
			for _, field := range yamlPairs(task.Value) {
				switch yamlKey(field) {
				case "cmd":
					c.Recipe = orElse(c.Recipe, shellLine(yamlScalar(field.Value)))
				case "cmds":
					seq, _ := field.Value.(*ast.SequenceNode)
					for i := 0; seq != nil && i < len(seq.Values) && c.Recipe == ""; i++ {
						line := yamlScalar(seq.Values[i]) // a map ({task: …}, {cmd: …}) is no scalar
						for _, kv := range yamlPairs(seq.Values[i]) {
							if yamlKey(kv) == "cmd" {
								line = yamlScalar(kv.Value)
							}
						}
						c.Recipe = shellLine(line)
					}
				}
			}
			f.Commands = append(f.Commands, c)
		}
	}
}

// yamlPairs are a mapping node's key-value pairs (a one-pair mapping may
// come as the pair itself); none for another node.
func yamlPairs(n ast.Node) []*ast.MappingValueNode {
	switch n := n.(type) {
	case *ast.MappingNode:
		if n != nil {
			return slices.DeleteFunc(slices.Clone(n.Values), func(kv *ast.MappingValueNode) bool { return kv == nil })
		}
	case *ast.MappingValueNode:
		if n != nil {
			return []*ast.MappingValueNode{n}
		}
	case *ast.TagNode:
		if n != nil {
			return yamlPairs(n.Value)
		}
	}
	return nil
}

// justRecipe is a justfile recipe's first line: its name (a leading @
// quiets it), its parameters, a colon that is not ":=".
var justRecipe = regexp.MustCompile(`^@?([A-Za-z][A-Za-z0-9_-]*)(?:\s+[^:=]*)?:(?:[^=]|$)`)

// justfileFacts reads a justfile: each recipe is a command, "just NAME",
// its recipe its first shell line that does work (not an echo, not an
// assignment); a recipe whose name begins with "_" is a helper, and the
// pattern does not take it.
func justfileFacts(f *Facts, name string, b []byte) {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		m := justRecipe.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(l, "set ") || strings.HasPrefix(l, "alias ") || strings.HasPrefix(l, "export ") {
			continue
		}
		recipe := ""
		for j := i + 1; j < len(lines) && recipe == ""; j++ {
			sub := strings.TrimRight(lines[j], "\r")
			if sub == "" || sub[0] != ' ' && sub[0] != '\t' {
				break
			}
			recipe = shellLine(strings.TrimLeft(strings.TrimSpace(sub), "@-"))
		}
		f.Commands = append(f.Commands, Command{Name: m[1], Run: "just " + m[1], Recipe: recipe, Source: fmt.Sprintf("%s:%d", name, i+1)})
	}
}

// ciScripts are the names of a ci/ directory's scripts that run the
// checks (ci/run, .ci/test.sh); others there are its helpers
// (ci/ubuntu-install-packages, ci/utils.sh).
var ciScripts = map[string]bool{"run": true, "ci": true, "test": true, "tests": true, "check": true, "build": true, "all": true}

// ciFacts reads GitHub workflows' run steps and names the CI scripts of
// a .ci/ or ci/ directory (they are the command CI runs, not read).
func ciFacts(f *Facts, root string, paths []string, read func(string) ([]byte, bool)) {
	var workflows []string
	for _, p := range paths {
		if strings.HasPrefix(p, ".github/workflows/") && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			workflows = append(workflows, p)
		}
		dir := path.Dir(p)
		if (dir == ".ci" || dir == "ci") && ciScripts[strings.TrimSuffix(path.Base(p), path.Ext(p))] {
			f.Commands = append(f.Commands, Command{Name: "ci", Run: "./" + p, Source: p})
		}
	}
	if len(workflows) == 0 {
		// The paths may come from a walk or a caller that left them out.
		if ents, err := os.ReadDir(filepath.Join(root, ".github", "workflows")); err == nil {
			for _, e := range ents {
				if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".yaml")) {
					workflows = append(workflows, ".github/workflows/"+n)
				}
			}
		}
	}
	sort.Strings(workflows)
	for _, w := range workflows {
		if b, ok := read(w); ok {
			f.Commands = append(f.Commands, workflowRuns(w, b)...)
		}
	}
}

// workflowRuns are the run steps of a GitHub workflow, in file order,
// named by the step's name (else its job's) with the line of the run key.
// A multi-line run is given whole, lines joined with "; ".
func workflowRuns(p string, b []byte) (out []Command) {
	// A YAML library's panic on odd input leaves the facts without this
	// file's steps, not the caller without facts.
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	file, err := yamlparser.ParseBytes(b, 0)
	if err != nil || file == nil {
		return nil
	}
	// visit walks the document; job is the job a node lies in, key the
	// mapping key it is the value of ("jobs" names the jobs below it).
	var visit func(n ast.Node, job, key string)
	visit = func(n ast.Node, job, key string) {
		switch n := n.(type) {
		case *ast.DocumentNode:
			if n != nil {
				visit(n.Body, job, "")
			}
		case *ast.MappingValueNode:
			if n == nil {
				return
			}
			// A one-pair mapping may come as the pair itself.
			visit(&ast.MappingNode{Values: []*ast.MappingValueNode{n}}, job, key)
		case *ast.MappingNode:
			if n == nil {
				return
			}
			stepName, run, line := "", "", 0
			for _, kv := range n.Values {
				if kv == nil {
					continue
				}
				switch yamlKey(kv) {
				case "name":
					stepName = yamlScalar(kv.Value)
				case "run":
					run = yamlScalar(kv.Value)
					if kv.Key != nil && kv.Key.GetToken() != nil {
						line = kv.Key.GetToken().Position.Line
					}
				}
			}
			if run = shellLine(run); run != "" {
				out = append(out, Command{Name: orElse(stepName, job), Run: run, Source: fmt.Sprintf("%s:%d", p, line)})
			}
			for _, kv := range n.Values {
				if kv == nil {
					continue
				}
				k := yamlKey(kv)
				j := job
				if key == "jobs" {
					j = k
				}
				visit(kv.Value, j, k)
			}
		case *ast.SequenceNode:
			if n != nil {
				for _, v := range n.Values {
					visit(v, job, "")
				}
			}
		case *ast.TagNode:
			if n != nil {
				visit(n.Value, job, key)
			}
		case *ast.AnchorNode:
			if n != nil {
				visit(n.Value, job, key)
			}
		}
	}
	for _, d := range file.Docs {
		visit(d, "", "")
	}
	return out
}

func yamlKey(kv *ast.MappingValueNode) string {
	if kv == nil || kv.Key == nil {
		return ""
	}
	return yamlScalar(kv.Key)
}

// yamlScalar is a node's text when it is a scalar (a plain, quoted or
// literal string), else "".
func yamlScalar(n ast.Node) string {
	switch n := n.(type) {
	case *ast.StringNode:
		if n != nil {
			return n.Value
		}
	case *ast.LiteralNode:
		if n != nil && n.Value != nil {
			return n.Value.Value
		}
	case *ast.MappingKeyNode:
		if n != nil {
			return yamlScalar(n.Value)
		}
	}
	return ""
}

// shellLine joins a multi-line shell step into one line, without the
// lines that only set variables or say something: "" when nothing is left.
func shellLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !onlySets(l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// shellAssign is a line that only assigns shell variables: "X=1",
// "export X=1 Y=2", "export X", "set -euo pipefail".
var shellAssign = regexp.MustCompile(`^(?:(?:export|declare|readonly|local)\s+[A-Za-z_][A-Za-z0-9_]*(?:=\S*)?(?:\s+[A-Za-z_][A-Za-z0-9_]*(?:=\S*)?)*|[A-Za-z_][A-Za-z0-9_]*=\S*(?:\s+[A-Za-z_][A-Za-z0-9_]*=\S*)*|set\s+[-+][a-zA-Z]+(?:\s+\S+)?)\s*;?$`)

// onlySets reports a CI line that does no work of its own: it sets a
// variable (an assignment, export, set -e), hands one to the CI runner
// (echo … >> $GITHUB_ENV, $GITHUB_OUTPUT, $GITHUB_PATH, the step
// summary), or prints a message.
func onlySets(l string) bool {
	if shellAssign.MatchString(l) || onlyTools(l) {
		return true
	}
	fields := strings.Fields(l)
	if len(fields) == 0 {
		return true
	}
	if fields[0] != "echo" && fields[0] != "printf" {
		return false
	}
	// What the echo says runs no command unless it writes a file of the
	// project's ("echo x > conf.ini"), pipes into one or is followed by one.
	i := strings.LastIndex(l, ">")
	if i < 0 {
		return !strings.ContainsAny(l, "|;&")
	}
	target := strings.Trim(strings.TrimSpace(l[i+1:]), `"'{}$`)
	return strings.HasPrefix(target, "GITHUB_") || strings.HasPrefix(target, "{GITHUB_")
}

// toolSetup is a command that readies the CI machine, not the project: a
// package manager or tool installed for the whole machine.
var toolSetup = regexp.MustCompile(`^(?:sudo\s+)?(?:npm\s+(?:i|install)\s+(?:\S+\s+)*-[a-z]*g[a-z]*\b.*|corepack\s+(?:enable|prepare)\b.*|cargo\s+(?:install|binstall)\s.*|go\s+install\s.*|apt(?:-get)?\s+(?:-\S+\s+)*(?:update|install)\b.*|brew\s+(?:install|update)\b.*|rustup\s.*|pipx\s+install\s.*|python3?\s+-m\s+pip\s+install\s+(?:-U|--upgrade)\s+pip\b.*|pip3?\s+install\s+(?:-U|--upgrade)\s+pip\b.*)$`)

// onlyTools reports a CI line every command of which readies the machine
// ("npm i -fg corepack && corepack enable"): not a command of the
// project's.
func onlyTools(l string) bool {
	parts := strings.FieldsFunc(strings.ReplaceAll(l, "&&", ";"), func(r rune) bool { return r == ';' })
	for _, p := range parts {
		if !toolSetup.MatchString(strings.TrimSpace(p)) {
			return false
		}
	}
	return len(parts) > 0
}

// notShippedDirs are directories of programs that are not the project's
// own: its examples, tutorials, tests and their fixtures.
var notShippedDirs = map[string]bool{
	"example": true, "examples": true, "_example": true, "_examples": true,
	"sample": true, "samples": true, "tutorial": true, "tutorials": true,
	"test": true, "tests": true, "testdata": true, "testing": true, "__tests__": true,
}

// notShipped reports a path under an example's or a test's directory.
// manifestDescription is the one line a package manifest says the
// project is: package.json's, Cargo.toml's [package] or pyproject.toml's
// [project] description.
func manifestDescription(read func(string) ([]byte, bool)) string {
	if b, ok := read("package.json"); ok {
		var pj struct{ Description string }
		if json.Unmarshal(b, &pj) == nil && pj.Description != "" {
			return firstSentences(pj.Description, purposeWords, purposeMax)
		}
	}
	for _, name := range []string{"Cargo.toml", "pyproject.toml"} {
		b, ok := read(name)
		if !ok {
			continue
		}
		var m struct {
			Package struct{ Description string }
			Project struct{ Description string }
		}
		if _, err := toml.Decode(string(b), &m); err == nil {
			if d := strings.Join(strings.Fields(m.Package.Description+" "+m.Project.Description), " "); d != "" {
				return firstSentences(d, purposeWords, purposeMax)
			}
		}
	}
	return ""
}

// namesProject reports a purpose that names the project it is about
// ("Flask is a lightweight …", "HTTPie (pronounced …) is …").
func namesProject(purpose string, names ...string) bool {
	lower := strings.ToLower(purpose)
	for _, n := range names {
		n = path.Base(strings.ToLower(strings.TrimSpace(n))) // @scope/name, a module path
		if len(n) >= 2 && strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

// cargoBin reports a binary Cargo finds by itself: src/bin/NAME.rs or
// src/bin/NAME/main.rs (the other files of src/bin/NAME/ are its modules).
func cargoBin(p string) bool {
	rest, ok := strings.CutPrefix(p, "src/bin/")
	if !ok || !strings.HasSuffix(p, ".rs") {
		return false
	}
	dir, file := path.Split(rest)
	return dir == "" || !strings.Contains(strings.TrimSuffix(dir, "/"), "/") && file == "main.rs"
}

// heldEntryPoints are the entry points the repository holds: a file or a
// directory of it as they are, a build output a manifest names
// (package.json's "main": "dist/cjs/index.js") as the source it is built
// from (src/index.ts), and nothing for a file it does not have (a [[bin]]
// whose src/bin/NAME.rs was never written): a newcomer opens what the
// brief names.
func heldEntryPoints(eps, paths []string, have map[string]bool) []string {
	out := eps[:0]
	for _, p := range eps {
		if have[p] || slices.ContainsFunc(paths, func(q string) bool { return strings.HasPrefix(q, p+"/") }) {
			out = append(out, p)
			continue
		}
		if src := builtFrom(p, have); src != "" {
			out = append(out, src)
		}
	}
	return out
}

// builtFrom is the source a build output was made from, when the
// repository holds it: dist/cjs/index.js from src/index.ts or index.ts.
func builtFrom(p string, have map[string]bool) string {
	rest := p
	for _, suffix := range []string{".d.ts", ".js", ".cjs", ".mjs"} {
		if strings.HasSuffix(rest, suffix) {
			rest = strings.TrimSuffix(rest, suffix)
			break
		}
	}
	if rest == p {
		return ""
	}
	if out, tail, ok := strings.Cut(rest, "/"); ok && builtDirs[out] {
		rest = tail
		if format, tail, ok := strings.Cut(rest, "/"); ok && builtFormats[format] {
			rest = tail
		}
	}
	for _, dir := range []string{"src/", ""} {
		for _, ext := range []string{".ts", ".tsx", ".mts", ".js", ".mjs"} {
			if c := dir + rest + ext; have[c] && c != p {
				return c
			}
		}
	}
	return ""
}

// builtDirs are where a JavaScript build writes; builtFormats the
// module formats it writes each in.
var (
	builtDirs    = map[string]bool{"dist": true, "build": true, "lib": true, "out": true}
	builtFormats = map[string]bool{"cjs": true, "esm": true, "es": true, "umd": true, "mjs": true, "node": true, "browser": true, "types": true}
)

func notShipped(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if notShippedDirs[strings.ToLower(d)] {
			return true
		}
	}
	return false
}

// goEntryPoints are main.go files of package main, and the directories
// cmd/NAME of a package main without a main.go; not under testdata
// (fixtures, which the go tool ignores too).
func goEntryPoints(f *Facts, paths []string, read func(string) ([]byte, bool)) {
	cmdDirs := map[string]string{} // cmd/NAME → a Go file in it
	mains := map[string]bool{}
	for _, p := range paths {
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/") {
			continue
		}
		dir := path.Dir(p)
		if path.Base(p) == "main.go" {
			if b, ok := read(p); ok && goPackageName(b) == "main" {
				f.EntryPoints = append(f.EntryPoints, p)
				mains[dir] = true
			}
			continue
		}
		if path.Dir(dir) == "cmd" || strings.HasSuffix(path.Dir(dir), "/cmd") {
			if _, ok := cmdDirs[dir]; !ok {
				cmdDirs[dir] = p
			}
		}
	}
	for dir, p := range cmdDirs {
		if mains[dir] {
			continue
		}
		if b, ok := read(p); ok && goPackageName(b) == "main" {
			f.EntryPoints = append(f.EntryPoints, dir)
		}
	}
}

// goPackageName is the name in a Go file's package clause, found without
// parsing the rest.
func goPackageName(b []byte) string {
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if inBlock {
			if i := strings.Index(line, "*/"); i >= 0 {
				inBlock = false
				line = strings.TrimSpace(line[i+2:])
			} else {
				continue
			}
		}
		if strings.HasPrefix(line, "/*") {
			if !strings.Contains(line[2:], "*/") {
				inBlock = true
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "package" {
			return fields[1]
		}
		return ""
	}
	return ""
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
