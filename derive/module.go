package derive

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"cairn/memory"
)

// Module sums up a directory of the repository (memory.Module): its
// files and sections, its languages by file count (most first), its
// names (at most MaxExported, most important first: types and classes
// with the most methods, then functions, then the rest, each in name
// order), and the first paragraph of its README, else the first
// sentence of its Go package doc.
type Module = memory.Module

// MaxExported bounds Module.Exported.
const MaxExported = 12

// Modules sums up the files by directory, sorted by path:
//   - "" (the root) holds the files directly in the root;
//   - each top-level directory holds every file under it;
//   - a deeper directory is a module of its own when it is a Go package
//     (has .go files), has a README, or has a package manifest (go.mod,
//     package.json, Cargo.toml, pyproject.toml, setup.py); it holds the
//     files under it that no deeper module holds. Other nested
//     directories of any language count only toward their top-level
//     directory and their nearest module above.
//
// Modules sees only files: a manifest or README that no reader reads
// still counts when it is among them.
func Modules(files []File) []Module {
	outlines := make(map[string]memory.Outline, len(files))
	for _, f := range files {
		outlines[f.Path] = OutlineOf(f)
	}
	return ModulesOf(outlines)
}

// OutlineOf is what Modules needs of f, which the store keeps apart from
// its sections so that a re-index sums up the modules without reading
// every file's sections again.
func OutlineOf(f File) memory.Outline {
	// A file's own words (KindFile) are for recall to find the file by;
	// a person browsing sections is not shown them, nor counts them.
	o := memory.Outline{Stamp: f.Stamp, Lang: f.Lang, Exported: f.Exported}
	for _, s := range f.Sections {
		if s.Kind != KindFile {
			o.Sections++
		}
	}
	kinds := map[string]Kind{}
	for _, s := range f.Sections {
		if s.Kind == KindMethod {
			if recv, _, ok := strings.Cut(s.Name, "."); ok {
				if o.Methods == nil {
					o.Methods = map[string]int{}
				}
				o.Methods[recv]++
			}
			continue
		}
		if _, ok := kinds[s.Name]; !ok {
			kinds[s.Name] = s.Kind
		}
		if s.Kind == KindPackage && o.Lead == "" {
			switch {
			case isReadme(f.Path):
				o.Lead = s.Doc
			case s.Lang == "go":
				o.Lead = docSynopsis(s.Doc)
			}
		}
	}
	if len(f.Exported) > 0 {
		o.Kinds = make([]Kind, len(f.Exported))
		for i, n := range f.Exported {
			o.Kinds[i] = kinds[n]
		}
	}
	return o
}

// ModulesOf is Modules of the files' outlines, by path.
func ModulesOf(files map[string]memory.Outline) []Module {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	nested := map[string]bool{}
	for _, p := range paths {
		dir := path.Dir(p)
		if dir == "." || !strings.Contains(dir, "/") {
			continue
		}
		base := path.Base(p)
		if strings.HasSuffix(base, ".go") || isReadme(base) || manifests[base] {
			nested[dir] = true
		}
	}

	acc := map[string]*moduleAcc{}
	get := func(p string) *moduleAcc {
		a := acc[p]
		if a == nil {
			a = &moduleAcc{langs: map[string]int{}}
			acc[p] = a
		}
		return a
	}
	for _, p := range paths {
		f := files[p]
		dir := path.Dir(p)
		if dir == "." {
			get("").add(p, f, true)
			continue
		}
		top, _, _ := strings.Cut(dir, "/")
		get(top).add(p, f, dir == top)
		// The nearest nested module above the file, if any.
		for d := dir; strings.Contains(d, "/"); d = path.Dir(d) {
			if nested[d] {
				get(d).add(p, f, d == dir)
				break
			}
		}
	}

	out := make([]Module, 0, len(acc))
	for p, a := range acc {
		out = append(out, a.module(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// translatedReadme reports a README in another language (README-ja.md,
// README.zh-CN.md, README_pt-BR.md): a module of translations is not
// summed up in one of them.
func translatedReadme(p string) bool {
	return translated.MatchString(strings.TrimSuffix(path.Base(p), path.Ext(p)))
}

var translated = regexp.MustCompile(`(?i)^readme[-_.][a-z]{2}([-_][a-z]{2,4})?$`)

// manifests are the files that make a directory a package of its own.
var manifests = map[string]bool{
	"go.mod": true, "package.json": true, "Cargo.toml": true, "pyproject.toml": true, "setup.py": true,
}

type moduleAcc struct {
	files, sections int
	langs           map[string]int
	readme, godoc   string
	readmeRank      int // of readme (readmeRank): a better README replaces it
	names           []rankedName
	index           map[string]int // names by name
	methods         map[string]int // methods by receiver, from any file
}

// rankedName is an exported name with what ranks it.
type rankedName struct {
	name    string
	rank    int // 0 types and classes, 1 functions, 2 the rest
	methods int // a type's methods: the more, the more central
}

// add counts a file toward the module; direct says it lies in the
// module's own directory (a README or package doc deeper down does not
// speak for the module).
func (a *moduleAcc) add(p string, f memory.Outline, direct bool) {
	a.files++
	a.sections += f.Sections
	if f.Lang != "" {
		a.langs[f.Lang]++
	}
	if direct && f.Lead != "" {
		switch {
		case isReadme(p) && !translatedReadme(p) && (a.readme == "" || readmeRank(p) < a.readmeRank):
			a.readme, a.readmeRank = f.Lead, readmeRank(p)
		case f.Lang == "go" && a.godoc == "":
			a.godoc = f.Lead
		}
	}
	if a.index == nil {
		a.index = map[string]int{}
	}
	for i, n := range f.Exported {
		if _, ok := a.index[n]; ok {
			continue
		}
		a.index[n] = len(a.names)
		r := rankedName{name: n, rank: 2}
		var k Kind
		if i < len(f.Kinds) {
			k = f.Kinds[i]
		}
		switch k {
		case KindType, KindClass:
			r.rank = 0
		case KindFunc, KindMacro:
			r.rank = 1
		}
		a.names = append(a.names, r)
	}
	// A type's methods may lie in other files of the package than the
	// type: they are added up, and matched to names at the end.
	if a.methods == nil {
		a.methods = map[string]int{}
	}
	for recv, n := range f.Methods {
		a.methods[recv] += n
	}
}

func (a *moduleAcc) module(p string) Module {
	m := Module{Path: p, Files: a.files, Sections: a.sections}
	for l := range a.langs {
		m.Langs = append(m.Langs, l)
	}
	sort.Slice(m.Langs, func(i, j int) bool {
		li, lj := m.Langs[i], m.Langs[j]
		if a.langs[li] != a.langs[lj] {
			return a.langs[li] > a.langs[lj]
		}
		return li < lj
	})
	for i := range a.names {
		a.names[i].methods = a.methods[a.names[i].name]
	}
	sort.Slice(a.names, func(i, j int) bool {
		x, y := a.names[i], a.names[j]
		if x.rank != y.rank {
			return x.rank < y.rank
		}
		if x.methods != y.methods {
			return x.methods > y.methods
		}
		return x.name < y.name
	})
	for i := 0; i < len(a.names) && i < MaxExported; i++ {
		m.Exported = append(m.Exported, a.names[i].name)
	}
	m.Summary = a.readme
	if m.Summary == "" {
		m.Summary = a.godoc
	}
	return m
}

// docSynopsis is a doc's first sentence: up to the first period that
// is followed by a space or the end, as go doc's synopsis reads it.
func docSynopsis(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && (i+1 == len(s) || s[i+1] == ' ') {
			// "e.g. " and "i.e. " are not the end of a sentence.
			if i >= 3 && (s[i-3:i] == "e.g" || s[i-3:i] == "i.e") {
				continue
			}
			return s[:i+1]
		}
	}
	return s
}
