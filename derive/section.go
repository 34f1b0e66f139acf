// Package derive reads what a repository says about itself — sections of
// code and docs, a summary per module, the project's commands and
// dependencies — without a language model and without cgo (DESIGN §2,
// "two sources of truth"). It is pure: it reads files and returns values;
// the store keeps them and the wake check decides when to read again.
package derive

// Kind says what a section is.
type Kind string

// The kinds of section the readers produce.
const (
	KindHeading Kind = "heading" // a Markdown heading and the text under it
	KindPackage Kind = "package" // a package's or module's own doc
	KindFunc    Kind = "func"    // a function
	KindMethod  Kind = "method"  // a function of a type (Go method, class method, impl fn)
	KindType    Kind = "type"    // a type, struct, interface, enum, trait
	KindClass   Kind = "class"   // a class
	KindConst   Kind = "const"   // a constant or a group of them
	KindVar     Kind = "var"     // a variable or a group of them
	KindMacro   Kind = "macro"   // a Rust macro_rules!
)

// Section is one named piece of a file: a heading with its text, or a
// top-level definition with its doc comment.
type Section struct {
	Path    string `json:"path"`     // slash-separated, relative to the repository root
	Line    int    `json:"line"`     // first line, 1-based (the doc comment's first line when there is one)
	EndLine int    `json:"end_line"` // last line, inclusive
	Kind    Kind   `json:"kind"`
	Lang    string `json:"lang"` // "go", "markdown", "python", "typescript", "javascript", "rust"
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
