package derive

import (
	"path"
	"sort"
	"strings"

	"cairn/memory"
	"cairn/secrets"
)

// A file's own words: a file that names what it does — history.go,
// ansi.go, content-type-parser.js — is found by that name even when no
// comment says it. Each code file has one section of its own
// (memory.SectionFile): named by its file name, its doc the file's
// leading comment (a licence passed over), then the words of the names it
// defines and of the identifiers it uses most, split at case and
// underscores ("eventLoop" is "event loop").

// licenceMarks are what a licence header says that a description does not.
var licenceMarks = []string{"copyright", "spdx-license-identifier", "all rights reserved", "permission is hereby granted",
	"licensed under", "license, version", "licence", "gnu general public", "without warranty", "this source code is governed",
	"redistribution and use", "free software", "mit license", "apache license", "the software is provided"}

// isLicence reports a paragraph that is (part of) a licence header.
func isLicence(par string) bool {
	l := strings.ToLower(par)
	for _, m := range licenceMarks {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// skipLicence is a file's or module's doc without the licence it opens
// with: the paragraphs after it, "" when it is nothing but a licence. A
// doc that does not open with one is returned as it is.
func skipLicence(doc string) string {
	pars := strings.Split(strings.TrimSpace(doc), "\n\n")
	if len(pars) == 0 || !isLicence(pars[0]) {
		return doc
	}
	i := 0
	for i < len(pars) && (isLicence(pars[i]) || strings.Trim(pars[i], " \t\n-=*#/") == "") {
		i++
	}
	// A licence's later paragraphs (the warranty's disclaimer, the
	// conditions) do not all name it: pass over those that follow a
	// licence paragraph and read like one ("THE SOFTWARE IS PROVIDED …"
	// is caught above; a list of conditions starts with a number).
	for i < len(pars) && licenceTail(pars[i]) {
		i++
	}
	return strings.TrimSpace(strings.Join(pars[i:], "\n\n"))
}

// licenceTail reports a paragraph that continues a licence: upper case,
// or a numbered condition, or a URL of a licence.
func licenceTail(par string) bool {
	t := strings.TrimSpace(par)
	if t == "" {
		return true
	}
	if strings.ToUpper(t) == t && strings.ToLower(t) != t {
		return true
	}
	l := strings.ToLower(t)
	return strings.HasPrefix(l, "http") && strings.Contains(l, "licen") || len(t) > 1 && t[0] >= '1' && t[0] <= '9' && (t[1] == '.' || t[1] == ')')
}

// codeLangs are the languages whose files get a section of their own
// words, read by a reader of theirs or not.
var codeLangs = map[string]bool{
	"go": true, "python": true, "typescript": true, "javascript": true, "rust": true, "shell": true, "vim": true,
	"c": true, "cpp": true, "java": true, "kotlin": true, "ruby": true, "php": true, "csharp": true, "swift": true,
	"scala": true, "lua": true, "zig": true, "make": true, "protobuf": true,
}

// maxFileWords bounds the words of a file's own section.
const maxFileWords = 80

// wordsScan is how much of a file its most used identifiers are counted
// in: what a file is about shows in its first pages, and the count is the
// costliest part of reading a file's own words.
const wordsScan = 16 << 10

// shellNames are the extensions that name a shell: a question about fish
// asks for config.fish, not config.sh.
var shellNames = map[string]bool{"fish": true, "zsh": true, "bash": true, "nu": true, "ps1": true, "csh": true}

// spokenLangs are the languages a question names by the word cairn
// calls them ("go" and "c" are left out: they are other words too). In a
// repository of one language the word is in every file and weighs
// nothing; where it is rare it finds the file written in it.
var spokenLangs = map[string]bool{"python": true, "ruby": true, "javascript": true, "typescript": true, "rust": true,
	"java": true, "kotlin": true, "php": true, "swift": true, "scala": true, "lua": true, "zig": true, "shell": true}

// moduleExts are the extensions that say which module system a file is
// written for.
var moduleExts = map[string]bool{"cjs": true, "mjs": true, "cts": true, "mts": true}

// configLangs are the languages of configuration files, whose keys say
// what they configure (.golangci.yml's linters, tox.toml's environments):
// each of their words counts, not only those said twice.
var configLangs = map[string]bool{"yaml": true, "toml": true, "dotenv": true}

// toolConfig reports a tool's configuration file: YAML, TOML or a .env
// file at most two directories down; not a test's or a fixture's, not a
// CI workflow (its steps are the project's commands already) and not a
// manifest (read for the project's facts).
func toolConfig(p, lang string) bool {
	if !configLangs[lang] || strings.Count(p, "/") > 2 || strings.HasPrefix(p, ".github/") || memory.TestPath(p) {
		return false
	}
	switch path.Base(p) {
	case "Cargo.toml", "pyproject.toml", "pnpm-lock.yaml", "pnpm-workspace.yaml", "Cargo.lock", "poetry.lock":
		return false
	}
	return true
}

// fileWordsSection is the section of a file's own words; false for a file
// of prose or data, or one with no words.
func fileWordsSection(p, lang string, src []byte, secs []Section) (Section, bool) {
	if !codeLangs[lang] && !toolConfig(p, lang) {
		return Section{}, false
	}
	base := path.Base(p)
	name := strings.TrimSuffix(base, path.Ext(base))
	if name == "" {
		name = base
	}
	lead := ""
	for _, s := range secs {
		if s.Kind == KindPackage && s.Doc != "" {
			lead = s.Doc // what the reader took as the file's doc
			break
		}
	}
	if lead == "" {
		lead = skipLicence(firstComment(src))
	}
	seen := map[string]bool{}
	var words []string
	add := func(w string) {
		if len(words) < maxFileWords && len(w) > 1 && !seen[w] && !codeKeywords[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, w := range splitIdent(strings.NewReplacer("/", " ", ".", " ", "-", " ").Replace(strings.TrimSuffix(p, path.Ext(p)))) {
		add(w)
	}
	// config.fish is fish's, config.sh another shell's; lib/index.cjs is
	// the CommonJS entry.
	if ext := strings.TrimPrefix(path.Ext(p), "."); shellNames[ext] || moduleExts[ext] {
		add(ext)
	}
	if spokenLangs[lang] {
		add(lang) // examples/gum.py answers "an example in Python"
	}
	for _, s := range secs {
		if s.Kind != KindPackage && s.Kind != KindHeading {
			for _, w := range splitIdent(s.Name) {
				add(w)
			}
		}
	}
	if len(words) < maxFileWords {
		least := 2
		if !codeLangs[lang] {
			least = 1 // a tool's configuration
		}
		for _, w := range frequentWords(src[:min(len(src), wordsScan)], least) {
			add(w)
		}
	}
	if lead == "" && len(words) == 0 {
		return Section{}, false
	}
	end := 1 + strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] == '\n' {
		end--
	}
	doc := strings.TrimSpace(lead + "\n\n" + strings.Join(words, " "))
	return Section{Kind: KindFile, Lang: lang, Name: name, Line: 1, EndLine: max(end, 1), Signature: p, Doc: doc}, true
}

// splitIdent splits text into lower-case words at spaces, punctuation,
// underscores and changes of case ("HTTPServer_v2" is "http server v2"),
// as the secret scanner splits a key's name.
func splitIdent(s string) []string { return secrets.Segments(s) }

// frequentWords are the words of the identifiers src uses at least min
// times, most used first (ties in the order they first appear), keywords
// left out. Each distinct identifier is split once.
func frequentWords(src []byte, min int) []string {
	ids := make(map[string]int, len(src)/24)
	idOrder := make([]string, 0, len(src)/24)
	for i := 0; i < len(src); {
		c := src[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			i++
			continue
		}
		j := i
		for j < len(src) && identByte(src[j]) {
			j++
		}
		if j-i >= 3 && j-i <= 64 {
			if n, ok := ids[string(src[i:j])]; ok {
				ids[string(src[i:j])] = n + 1
			} else {
				id := string(src[i:j])
				ids[id] = 1
				idOrder = append(idOrder, id)
			}
		}
		i = j
	}
	count := make(map[string]int, len(idOrder))
	var order []string
	for _, id := range idOrder {
		for _, w := range splitIdent(id) {
			if len(w) < 3 || codeKeywords[w] || w[0] >= '0' && w[0] <= '9' {
				continue
			}
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w] += ids[id]
		}
	}
	var out []string
	for _, w := range order {
		if count[w] >= min {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return count[out[a]] > count[out[b]] })
	return out
}

// codeKeywords are words every file of a language says: its keywords and
// most common names, which tell nothing of what the file is about.
var codeKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`func return if else for range var const type struct interface package import nil true false
	err string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 byte rune bool float32 float64 any map chan go
	defer select case switch default break continue fallthrough goto make new len cap append copy delete panic recover
	def class self cls none lambda pass yield async await from as with try except finally raise assert global nonlocal
	elif while not and or in is del print str dict list tuple set object kwargs args
	function let this super extends implements export undefined null typeof instanceof void static public private protected
	readonly abstract enum declare namespace module require exports prototype constructor number boolean unknown never
	fn pub mut impl trait where use mod crate ref move loop match unsafe dyn box vec option some ok result usize isize
	u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 the to of a an is it be we that then fi do done esac local echo endif
	endfunction endfor endwhile call let exe execute include define ifdef ifndef endif char long short unsigned signed
	sizeof typedef extern inline auto register volatile double float throw throws catch final boolean java org com www http
	https todo fixme xxx get set value values data new test tests`) {
		codeKeywords[w] = true
	}
}

// directive reports a comment line that speaks to a tool, not a reader:
// Go's //go:build and // +build, //go:generate, //nolint, a linter's or
// a formatter's switch.
func directive(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range []string{"//go:", "// +build", "//nolint", "// eslint-", "/* eslint-", "// @ts-", "// prettier-", "# type:", "# pylint:", "# noqa", "# -*- coding", "# coding"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// firstComment is a file's leading comment block, markers removed: the
// lines of //, #, --, ; or " comments, or a /* … */ block, after a "#!"
// line, directives and blank lines, before the first line of code.
func firstComment(src []byte) string {
	lines := scriptLines(src[:min(len(src), 16<<10)])
	i := 0
	for i < len(lines) && (strings.HasPrefix(lines[i], "#!") || strings.TrimSpace(lines[i]) == "" || directive(lines[i])) {
		i++
	}
	if i == len(lines) {
		return ""
	}
	t := strings.TrimSpace(lines[i])
	if strings.HasPrefix(t, "/*") {
		var b []string
		for ; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			done := strings.Contains(l, "*/")
			l, _, _ = strings.Cut(l, "*/")
			l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(l, "/**"), "/*"), "*")
			b = append(b, strings.TrimSpace(l))
			if done {
				break
			}
		}
		return strings.TrimSpace(joinDocLines(b))
	}
	for _, mark := range []string{"//", "#", "--", ";", `"`} {
		if !strings.HasPrefix(t, mark) || mark == "#" && len(t) > 1 && t[1] != ' ' && t[1] != '#' && t[1] != '!' {
			continue
		}
		j := i
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), mark) {
			j++
		}
		return commentText(lines[i:j], mark+"/!")
	}
	return ""
}
