package derive

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultSummaryWords is Summary's budget when it is given none: about
// 330 tokens.
const DefaultSummaryWords = 250

// Summary is the short account of a project that `cairn context` puts
// first: what it is (the root README's first paragraph), its language
// and module, the commands to build, test and run it, its entry points
// and its main modules with a line each. It stays within maxWords words
// (counted as strings.Fields does; 0 means DefaultSummaryWords), leaving
// out the smallest modules first and cutting the description last of all
// but its first sentence.
func Summary(f Facts, mods []Module, maxWords int) string {
	if maxWords <= 0 {
		maxWords = DefaultSummaryWords
	}
	var lines []string
	used := 0
	add := func(line string) bool {
		n := len(strings.Fields(line))
		if used+n > maxWords {
			return false
		}
		lines = append(lines, line)
		used += n
		return true
	}

	// What the project is: its README's title and purpose, else its
	// root's summary (a package doc when there is no README).
	what := f.Purpose
	for _, m := range mods {
		if m.Path == "" && what == "" {
			what = m.Summary
		}
	}
	name := orElse(f.Title, f.Name)
	head := name
	if what != "" {
		// The description may have at most half the budget.
		what = cutWords(what, maxWords/2)
		if name == "" || startsWithName(what, name) || startsWithName(what, f.Name) {
			head = what // "cairn is …" needs no "cairn: " before it
		} else {
			head += ": " + what
		}
	}
	if head != "" && !add(head) {
		add(cutWords(head, maxWords))
	}
	if l := languageLine(f); l != "" {
		add(l)
	}
	if cmds := commandLine(f.Commands); cmds != "" {
		if !add("Commands: " + cmds) {
			add(cutWords("Commands: "+cmds, maxWords-used))
		}
	}
	if len(f.EntryPoints) > 0 {
		eps := f.EntryPoints
		if len(eps) > 6 {
			eps = append(eps[:6:6], fmt.Sprintf("and %d more", len(f.EntryPoints)-6))
		}
		add("Entry points: " + strings.Join(eps, ", "))
	}

	main := mainModules(mods)
	if len(main) > 0 && add("Modules:") {
		for _, m := range main {
			if !add(moduleLine(m)) {
				break
			}
		}
		if lines[len(lines)-1] == "Modules:" {
			lines = lines[:len(lines)-1]
		}
	}
	return strings.Join(lines, "\n")
}

// startsWithName reports a description that starts by naming the
// project: "Flask is …" for flask.
func startsWithName(what, name string) bool {
	return name != "" && len(what) > len(name) && strings.EqualFold(what[:len(name)], name) && strings.ContainsRune(" ,:(", rune(what[len(name)]))
}

// languageLine says the language, module and file counts:
// "Go module example.com/x (go 1.22); files: 120 go, 14 markdown".
func languageLine(f Facts) string {
	var b strings.Builder
	if f.Language != "" {
		b.WriteString(langTitle(f.Language))
		if f.Module != "" {
			b.WriteString(" module " + f.Module)
		} else {
			b.WriteString(" project")
		}
		for _, d := range f.Dependencies {
			if d.Name == "go" && d.Source == "go.mod" {
				b.WriteString(" (go " + d.Version + ")")
			}
		}
	}
	type lc struct {
		lang string
		n    int
	}
	var counts []lc
	for l, n := range f.Languages {
		counts = append(counts, lc{l, n})
	}
	sort.Slice(counts, func(i, j int) bool {
		if counts[i].n != counts[j].n {
			return counts[i].n > counts[j].n
		}
		return counts[i].lang < counts[j].lang
	})
	if len(counts) > 5 {
		counts = counts[:5]
	}
	var parts []string
	for _, c := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", c.n, c.lang))
	}
	if len(parts) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("files: " + strings.Join(parts, ", "))
	}
	return b.String()
}

// langTitle writes a language's name as people do ("Go", "TypeScript").
func langTitle(s string) string {
	switch s {
	case "javascript":
		return "JavaScript"
	case "typescript":
		return "TypeScript"
	}
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// commandOrder is the order the usual commands are told in.
var commandOrder = []string{"build", "test", "run", "start", "dev", "lint", "check", "fmt", "format", "install", "bench", "ci"}

// commandLine picks the commands a newcomer needs: build, test, run and
// their kind, each from the project's own files (a Makefile, a
// manifest's scripts) before a manifest's convention, and either before
// what a CI script runs.
func commandLine(cmds []Command) string {
	var parts []string
	for _, name := range commandOrder {
		var best *Command
		for i := range cmds {
			c := &cmds[i]
			if c.Name != name {
				continue
			}
			if best == nil || commandRank(*c) < commandRank(*best) {
				best = c
			}
		}
		if best == nil {
			continue
		}
		part := name + ": " + best.Run
		if best.Recipe != "" && best.Recipe != best.Run && len(best.Recipe) <= 60 {
			part += " (" + best.Recipe + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " · ")
}

// commandRank orders where a command was read: 0 the project's own
// files, 1 a manifest's convention, 2 CI (a workflow's step, a ci/ script).
func commandRank(c Command) int {
	switch {
	case strings.HasSuffix(c.Source, "(convention)"):
		return 1
	case strings.HasPrefix(c.Source, ".github/"), strings.HasPrefix(c.Source, ".ci/"), strings.HasPrefix(c.Source, "ci/"):
		return 2
	}
	return 0
}

// mainModules are the root when it holds code (a library's package) and
// the top-level directories, largest first (by sections, then files),
// examples, tests and docs after the code, without test fixtures or
// dot-directories (CI settings).
func mainModules(mods []Module) []Module {
	var out []Module
	for _, m := range mods {
		if m.Path == "" && holdsCode(m) {
			out = append(out, m)
			continue
		}
		if m.Path == "" || strings.Contains(m.Path, "/") || strings.HasPrefix(m.Path, ".") || fixtureDir(m.Path) {
			continue
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := moduleRank(out[i]), moduleRank(out[j]); ri != rj {
			return ri < rj
		}
		if out[i].Sections != out[j].Sections {
			return out[i].Sections > out[j].Sections
		}
		if out[i].Files != out[j].Files {
			return out[i].Files > out[j].Files
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// fixtureDir reports a directory of inputs for the tests or demos,
// however it is spelt: testdata, fixtures, test-files, difftastic's
// sample_files and demo_files.
func fixtureDir(name string) bool {
	switch strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name)) {
	case "testdata", "fixture", "fixtures", "testfixtures", "samplefiles", "testfiles", "testinputs", "demofiles", "examplefiles":
		return true
	}
	return false
}

// holdsCode reports a module whose files are mostly of a programming
// language: a library's root package, not a root of docs and a build
// script.
func holdsCode(m Module) bool {
	return len(m.Langs) > 0 && !notCode[m.Langs[0]]
}

// moduleRank puts the root first, the code next, and what shows or
// checks the code (examples, tests, docs, benchmarks) last.
func moduleRank(m Module) int {
	switch {
	case m.Path == "":
		return 0
	case notShippedDirs[strings.ToLower(m.Path)] || asideDirs[strings.ToLower(m.Path)]:
		return 2
	}
	return 1
}

// asideDirs are top-level directories beside the code, not of it.
var asideDirs = map[string]bool{"doc": true, "docs": true, "bench": true, "benches": true, "benchmark": true, "benchmarks": true, "benchsuite": true, "fuzz": true}

// moduleLine is one module in a line: "- store/ (go, 12 files): The
// store keeps … Names: Store, Open." The root is "./", without its
// summary (the brief's first line says what the project is).
func moduleLine(m Module) string {
	var b strings.Builder
	if m.Path == "" {
		b.WriteString("- ./ (")
		m.Summary = ""
	} else {
		b.WriteString("- " + m.Path + "/ (")
	}
	if len(m.Langs) > 0 {
		b.WriteString(m.Langs[0] + ", ")
	}
	if m.Files == 1 {
		b.WriteString("1 file)")
	} else {
		fmt.Fprintf(&b, "%d files)", m.Files)
	}
	if m.Summary != "" {
		b.WriteString(": " + cutWords(docSynopsis(Synopsis(m)), 20))
	}
	if len(m.Exported) > 0 {
		names := m.Exported
		if len(names) > 4 {
			names = names[:4]
		}
		b.WriteString(" Names: " + strings.Join(names, ", ") + ".")
	}
	return b.String()
}

// Synopsis is a module's summary as a line about it reads: without the
// "Package store " a Go package doc starts with, which the module's path
// already says.
func Synopsis(m Module) string {
	name := m.Path[strings.LastIndexByte(m.Path, '/')+1:]
	return strings.TrimPrefix(m.Summary, "Package "+name+" ")
}

// cutWords keeps the first n words of s, marked with "…" when cut.
func cutWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	if n <= 0 {
		return ""
	}
	return strings.Join(words[:n], " ") + "…"
}
