// Package derive reads what a repository says about itself — sections of
// code and docs, a summary per module, the project's commands and
// dependencies — without a language model and without cgo (DESIGN §2,
// "two sources of truth"). It is pure: it reads files and returns values;
// the store keeps them and the wake check decides when to read again.
package derive

import "cairn/memory"

// The section types are the domain's (memory.Section): the store keeps
// what the readers return as it is.
type (
	// Kind says what a section is.
	Kind = memory.SectionKind
	// Section is one named piece of a file.
	Section = memory.Section
)

// The kinds of section the readers produce.
const (
	KindHeading = memory.SectionHeading
	KindPackage = memory.SectionPackage
	KindFunc    = memory.SectionFunc
	KindMethod  = memory.SectionMethod
	KindType    = memory.SectionType
	KindClass   = memory.SectionClass
	KindConst   = memory.SectionConst
	KindVar     = memory.SectionVar
	KindMacro   = memory.SectionMacro
	KindFile    = memory.SectionFile // a file's own words (fileWordsSection)
)

// DocLimit bounds a section's Doc (see memory.DocLimit).
const DocLimit = memory.DocLimit

// extractor reads the sections of one file. path is relative to the root
// and slash-separated; src is the whole file. It never panics on any
// input: a file it cannot read yields what it could read and an error.
type extractor func(path string, src []byte) ([]Section, error)

// language is a reader for the files whose name ends with one of exts.
type language struct {
	name    string
	exts    []string
	extract extractor
}

// languages are the readers, registered by the file of each language
// (register in its init), looked up by file extension.
var languages = map[string]language{}

func register(l language) {
	for _, e := range l.exts {
		languages[e] = l
	}
}
