package derive

import (
	"bytes"
	"math"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// Python is read by a careful reader of our own, not a parser library:
// the only pure-Go parser (go-python/gpython) knows Python 3.4 and fails
// a whole file on an f-string, a walrus or a match statement, which most
// files today contain. The reader splits the file into lexemes (strings
// of every quote style and prefix, nested f-string expressions, comments,
// brackets), joins them into logical lines, and uses their indentation to
// find where a definition ends — the same rule the Python tokenizer uses.

func init() {
	register(language{name: "python", exts: []string{".py", ".pyi"}, extract: extractPython})
	readerVersions["python"] = 1 // 1: definitions at any depth
}

// extractPython reads a module's docstring, its top-level classes and
// functions (decorators included), the methods of its top-level classes,
// and its UPPER_CASE constants that carry a comment.
func extractPython(p string, src []byte) ([]Section, error) {
	f := newCodeFile(p, "python", src)
	f.lexPython()
	f.numberLines()
	r := pyReader{f: f}
	r.logicalLines()
	var out []Section
	if s, ok := r.moduleDoc(); ok {
		out = append(out, s)
	}
	r.block(0, len(r.lines), 0, "", false, &out)
	return mergeOverloads(out), nil // @overload stubs, a property's getter and setter
}

// pyLine is one logical line: the code lexemes first..last (comments
// excluded) and the indentation of the physical line it starts on.
type pyLine struct {
	first, last int
	indent      int
}

type pyReader struct {
	f     *codeFile
	lines []pyLine
	// comment[n] is the index of the comment that is alone on physical
	// line n, or -1.
	comment []int
}

// logicalLines groups the lexemes between the lexer's newlines.
func (r *pyReader) logicalLines() {
	f := r.f
	r.comment = make([]int, len(f.lines)+2)
	for i := range r.comment {
		r.comment[i] = -1
	}
	first := -1
	for i, l := range f.lex {
		switch l.kind {
		case lexComment:
			if f.ownLine(i) {
				r.comment[l.line] = i
			}
		case lexNewline:
			if first >= 0 {
				r.lines = append(r.lines, pyLine{first: first, last: i - 1, indent: f.indent(int(f.lex[first].start))})
				first = -1
			}
		default:
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		r.lines = append(r.lines, pyLine{first: first, last: len(f.lex) - 1, indent: f.indent(int(f.lex[first].start))})
	}
}

// code returns the lexemes of logical line j without its comments.
func (r *pyReader) code(j int) []int {
	var ix []int
	for i := r.lines[j].first; i <= r.lines[j].last; i++ {
		if r.f.lex[i].kind != lexComment {
			ix = append(ix, i)
		}
	}
	return ix
}

// stringsOnly says whether logical line j is nothing but string literals
// (a docstring, possibly implicitly concatenated), returning its text.
func (r *pyReader) stringsOnly(j int) (string, bool) {
	var b strings.Builder
	for _, i := range r.code(j) {
		if r.f.lex[i].kind != lexString {
			return "", false
		}
		b.WriteString(pyStringValue(r.f.text(i)))
	}
	return b.String(), true
}

// moduleDoc is the module's docstring: its first statement, when that is a
// string.
func (r *pyReader) moduleDoc() (Section, bool) {
	if len(r.lines) == 0 || r.lines[0].indent != 0 {
		return Section{}, false
	}
	doc, ok := r.stringsOnly(0)
	if !ok {
		return Section{}, false
	}
	f := r.f
	l := r.lines[0]
	return f.section(KindPackage, pyModuleName(f.path), "", cleanDocstring(doc), l.first, l.last), true
}

// pyModuleName is the dotted module name a path stands for
// ("pkg/sub/__init__.py" is "pkg.sub", "src/pkg/mod.py" is "pkg.mod").
func pyModuleName(p string) string {
	p = strings.TrimPrefix(p, "src/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".pyi"), ".py")
	p = strings.TrimSuffix(p, "/__init__")
	if p == "__init__" {
		p = path.Base(path.Dir(p))
	}
	return strings.ReplaceAll(p, "/", ".")
}

// block reads the logical lines lo..hi-1 whose indentation is indent:
// the top level of the module (owner ""), or the body of the class or
// function owner (inClass says which). Definitions in a class are its
// methods and nested classes ("Outer.Inner"), in a function its own
// helpers ("outer.inner"); those in a compound statement's body (if
// TYPE_CHECKING:, try:, with …:) are read as the block's own.
func (r *pyReader) block(lo, hi, indent int, owner string, inClass bool, out *[]Section) {
	f := r.f
	deco := -1 // the first decorator line waiting for its def or class
	for j := lo; j < hi; j++ {
		l := r.lines[j]
		if l.indent != indent {
			continue
		}
		first := l.first
		if f.is(first, "@") {
			if deco < 0 {
				deco = j
			}
			continue
		}
		kw := first
		if f.is(kw, "async") && f.is(kw+1, "def") {
			kw++
		}
		end := j + 1
		for end < hi && r.lines[end].indent > indent {
			end++
		}
		switch {
		case f.is(kw, "def") || f.is(kw, "class"):
			from := j
			if deco >= 0 {
				from = deco
			}
			s := r.definition(from, j, end, kw, owner, inClass)
			*out = append(*out, s)
			if end > j+1 && r.lines[j+1].indent > indent {
				r.block(j+1, end, r.lines[j+1].indent, s.Name, f.is(kw, "class"), out)
			}
			j = end - 1
		case end > j+1 && r.lines[j+1].indent > indent:
			// A compound statement: what its body defines is the block's.
			r.block(j+1, end, r.lines[j+1].indent, owner, inClass, out)
			j = end - 1
		case owner == "" && indent == 0:
			if s, ok := r.constant(j, hi); ok {
				*out = append(*out, s)
			}
		}
		deco = -1
	}
}

// definition is the section of a def or class whose header is logical
// line j (keyword at lexeme kw), its decorators starting at line from and
// its body running to line end-1, defined in owner (a class when
// inClass).
func (r *pyReader) definition(from, j, end, kw int, owner string, inClass bool) Section {
	f := r.f
	name := ""
	if f.kind(kw+1) == lexIdent {
		name = f.text(kw + 1)
	}
	kind := KindFunc
	switch {
	case f.is(kw, "class"):
		kind = KindClass
	case inClass:
		kind = KindMethod
	}
	if owner != "" {
		name = owner + "." + name
	}
	// The header ends at the first colon outside brackets.
	l := r.lines[j]
	colon, depth := l.last+1, 0
	for i := kw; i <= l.last; i++ {
		switch {
		case f.isOpen(i):
			depth++
		case f.isClose(i):
			depth--
		case depth == 0 && f.is(i, ":"):
			colon = i
		}
		if colon <= l.last {
			break
		}
	}
	sig := f.joined(r.lines[j].first, colon)
	doc := ""
	if colon < l.last && f.kind(colon+1) == lexString {
		// def f(): "doc" — a body on the header's line.
		doc = cleanDocstring(pyStringValue(f.text(colon + 1)))
	} else if j+1 < end {
		if d, ok := r.stringsOnly(j + 1); ok {
			doc = cleanDocstring(d)
		}
	}
	first := r.lines[from].first
	if doc == "" {
		if c, d := r.commentAbove(first); c >= 0 {
			first, doc = c, d
		}
	}
	return f.section(kind, name, sig, doc, first, r.lines[end-1].last)
}

// constant reads line j as an UPPER_CASE constant, kept when it carries a
// comment block directly above or a docstring directly below (the Sphinx
// convention). type X = ... (Python 3.12) is kept as a type.
func (r *pyReader) constant(j, hi int) (Section, bool) {
	f := r.f
	l := r.lines[j]
	i := l.first
	if f.is(i, "type") && f.kind(i+1) == lexIdent && (f.is(i+2, "=") || f.is(i+2, "[")) {
		first, doc := i, ""
		if c, d := r.commentAbove(i); c >= 0 {
			first, doc = c, d
		}
		return f.section(KindType, f.text(i+1), f.firstLineOf(i, l.last), doc, first, l.last), true
	}
	if f.kind(i) != lexIdent || !upperName(f.text(i)) {
		return Section{}, false
	}
	if !(f.is(i+1, ":") || (f.is(i+1, "=") && !f.is(i+2, "="))) {
		return Section{}, false
	}
	first, last := i, l.last
	c, doc := r.commentAbove(i)
	if c >= 0 {
		first = c
	} else if j+1 < hi && r.lines[j+1].indent == l.indent {
		if d, ok := r.stringsOnly(j + 1); ok {
			doc, last = cleanDocstring(d), r.lines[j+1].last
		}
	}
	if doc == "" {
		return Section{}, false
	}
	return f.section(KindConst, f.text(i), f.firstLineOf(i, l.last), doc, first, last), true
}

// commentAbove finds the block of whole-line comments that ends on the
// line just above lexeme i, returning its first lexeme and its text, or -1.
func (r *pyReader) commentAbove(i int) (int, string) {
	f := r.f
	n := f.startLine(i) - 1
	first := -1
	for n >= 1 && r.comment[n] >= 0 {
		t := f.text(r.comment[n])
		if n == 1 && strings.HasPrefix(t, "#!") || strings.Contains(t, "-*-") {
			break // a shebang or an encoding line
		}
		first = r.comment[n]
		n--
	}
	if first < 0 {
		return -1, ""
	}
	var lines []string
	for k := first; k < i; k++ {
		if f.lex[k].kind == lexComment {
			t := strings.TrimLeft(f.text(k), "#") // # and Doxygen's ##
			t = strings.TrimPrefix(t, ":")        // Sphinx's #: attribute comments
			lines = append(lines, strings.TrimPrefix(t, " "))
		}
	}
	doc := joinDocLines(lines)
	if doc == "" {
		return -1, ""
	}
	return first, doc
}

// upperName says whether a name is an UPPER_CASE constant's.
func upperName(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// pyStringValue strips a string literal's prefix and quotes; escapes stay
// as written.
func pyStringValue(t string) string {
	i := 0
	for i < len(t) && t[i] != '\'' && t[i] != '"' {
		i++
	}
	t = t[i:]
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(t, q) {
			t = strings.TrimPrefix(t, q)
			return strings.TrimSuffix(t, q)
		}
	}
	return t
}

// cleanDocstring removes a docstring's indentation the way inspect.cleandoc
// does: the first line trimmed, the others dedented by their common indent.
func cleanDocstring(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "\t", "        ")
	}
	margin := -1
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " ")
		if t == "" {
			continue
		}
		if n := len(l) - len(t); margin < 0 || n < margin {
			margin = n
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	for i := 1; i < len(lines); i++ {
		if margin > 0 && len(lines[i]) >= margin {
			lines[i] = lines[i][margin:]
		}
	}
	return joinDocLines(lines)
}

// lexPython splits the file into lexemes, with a lexNewline at the end of
// each logical line (a line break outside brackets, not after a
// backslash), as Python's own tokenizer does.
func (f *codeFile) lexPython() {
	src := f.src
	depth := 0
	code := false // the current logical line has lexemes
	i := f.begin
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 && code {
				f.add(lexNewline, i, i+1)
				code = false
			}
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\\':
			i++ // a line continuation (or a stray backslash)
			if i < len(src) && src[i] == '\r' {
				i++
			}
			if i < len(src) && src[i] == '\n' {
				i++
			}
		case c == '#':
			e := lineEnd(src, i)
			f.add(lexComment, i, e)
			i = e
		case c == '\'' || c == '"':
			e := scanPyString(src, i, i, 0)
			f.add(lexString, i, e)
			code = true
			i = e
		case identByte(c):
			e := i + 1
			for e < len(src) && (identByte(src[e]) || digitByte(src[e])) {
				e++
			}
			if e < len(src) && (src[e] == '\'' || src[e] == '"') && pyPrefix(src[i:e]) {
				e = scanPyString(src, i, e, 0)
				f.add(lexString, i, e)
			} else {
				f.add(lexIdent, i, e)
			}
			code = true
			i = e
		case digitByte(c):
			e := i + 1
			for e < len(src) && (identByte(src[e]) || digitByte(src[e]) || src[e] == '.') {
				e++
			}
			f.add(lexNumber, i, e)
			code = true
			i = e
		default:
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			}
			f.add(lexPunct, i, i+1)
			code = true
			i++
		}
	}
	if code {
		f.add(lexNewline, len(src), len(src))
	}
}

// pyPrefix says whether b is a string prefix: r, u, b, f, t in any case,
// at most two of them.
func pyPrefix(b []byte) bool {
	if len(b) > 2 {
		return false
	}
	for _, c := range b {
		if !strings.ContainsRune("rRuUbBfFtT", rune(c)) {
			return false
		}
	}
	return true
}

// scanPyString returns the end of the string literal whose prefix starts
// at start and whose quote is at q. A single-quoted string ends at the
// line's end when unterminated, a triple-quoted one at the end of the
// file. Expressions in an f-string's braces are skipped with their own
// strings, which may reuse the outer quote (Python 3.12); nest bounds the
// recursion.
func scanPyString(src []byte, start, q, nest int) int {
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	format := nest < 8 && strings.ContainsAny(string(src[start:q]), "fFtT")
	i := q + 1
	if triple {
		i = q + 3
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			i += 2
			if i < len(src) && src[i-1] == '\r' && src[i] == '\n' {
				i++
			}
		case c == quote && (!triple || i+2 < len(src) && src[i+1] == quote && src[i+2] == quote):
			if triple {
				return i + 3
			}
			return i + 1
		case c == '\n' && !triple:
			return i
		case c == '{' && format:
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			i = skipPyExpr(src, i+1, triple, nest)
		default:
			i++
		}
	}
	return len(src)
}

// skipPyExpr skips an f-string replacement field from just after its
// opening brace to just after its closing one.
func skipPyExpr(src []byte, i int, triple bool, nest int) int {
	depth := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' && !triple:
			return i
		case c == '\'' || c == '"':
			i = scanPyString(src, i, i, nest+1)
			continue
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '}':
			if depth == 0 {
				return i + 1
			}
			depth--
		}
		i++
	}
	return i
}

// The rest of this file is shared by the line-based readers (python.go,
// typescript.go, rust.go): a file split into lexemes, brackets matched,
// line numbers, signatures joined from lexemes and docs cleaned.

// lexKind is what a lexeme is.
type lexKind uint8

const (
	lexIdent    lexKind = iota + 1 // a name or keyword (a Rust lifetime too)
	lexNumber                      // a number
	lexString                      // a string, character, template or regular expression literal
	lexPunct                       // an operator or a bracket
	lexComment                     // a comment that documents nothing by its form
	lexDoc                         // an outer doc comment: /** */, ///
	lexInnerDoc                    // an inner doc comment: //!, /*! */ (Rust)
	lexNewline                     // the end of a logical line (Python)
)

// lexeme is a span of the source and the lines it starts and ends on,
// in 32 bits: a file has tens of thousands of lexemes, and the walk reads
// no file near 2 GiB.
type lexeme struct {
	kind          lexKind
	start, end    int32
	line, endLine int32
}

// codeFile is a file as the line-based readers see it.
type codeFile struct {
	path, lang string
	src        []byte
	begin      int   // where the text starts, after a byte order mark
	lines      []int // the offset where each line starts
	lex        []lexeme
	partner    []int // for a bracket, the index of its partner (the end of the file when unclosed); else -1
}

func newCodeFile(p, lang string, src []byte) *codeFile {
	if len(src) > math.MaxInt32 {
		src = src[:math.MaxInt32] // offsets are 32 bits; the rest is not read
	}
	f := &codeFile{path: p, lang: lang, src: src, lines: []int{0}}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		f.begin = 3
	}
	for i, c := range src {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	f.lex = make([]lexeme, 0, len(src)/4) // dense code has a lexeme every four bytes
	return f
}

// numberLines sets each lexeme's lines, walking lexemes and line starts
// together once the lexer is done.
func (f *codeFile) numberLines() {
	n := 0 // index into f.lines of the line holding the offset
	at := func(off int) int32 {
		for n+1 < len(f.lines) && f.lines[n+1] <= off {
			n++
		}
		return int32(n + 1)
	}
	for i := range f.lex {
		l := &f.lex[i]
		l.line = at(int(l.start))
		last := int(l.start)
		if l.end > l.start {
			last = int(l.end) - 1
		}
		l.endLine = at(last)
	}
}

func (f *codeFile) add(k lexKind, start, end int) {
	f.lex = append(f.lex, lexeme{kind: k, start: int32(start), end: int32(end)})
}

// text is lexeme i as written, "" when i is out of range.
func (f *codeFile) text(i int) string {
	if i < 0 || i >= len(f.lex) {
		return ""
	}
	return string(f.src[f.lex[i].start:f.lex[i].end])
}

// raw is lexeme i's bytes, nil when i is out of range; switch
// string(f.raw(i)) compares without copying.
func (f *codeFile) raw(i int) []byte {
	if i < 0 || i >= len(f.lex) {
		return nil
	}
	return f.src[f.lex[i].start:f.lex[i].end]
}

// is says whether lexeme i is written s (and exists).
func (f *codeFile) is(i int, s string) bool {
	return i >= 0 && i < len(f.lex) && string(f.src[f.lex[i].start:f.lex[i].end]) == s
}

// kind is lexeme i's kind, 0 when out of range.
func (f *codeFile) kind(i int) lexKind {
	if i < 0 || i >= len(f.lex) {
		return 0
	}
	return f.lex[i].kind
}

func (f *codeFile) isOpen(i int) bool {
	return f.kind(i) == lexPunct && (f.is(i, "(") || f.is(i, "[") || f.is(i, "{"))
}

func (f *codeFile) isClose(i int) bool {
	return f.kind(i) == lexPunct && (f.is(i, ")") || f.is(i, "]") || f.is(i, "}"))
}

// lineOf is the 1-based line of a byte offset.
func (f *codeFile) lineOf(off int) int {
	return sort.Search(len(f.lines), func(n int) bool { return f.lines[n] > off })
}

// startLine and endLine are the first and last lines of lexeme i.
func (f *codeFile) startLine(i int) int { return int(f.lex[i].line) }

func (f *codeFile) endLine(i int) int { return int(f.lex[i].endLine) }

// ownLine says whether nothing but blanks comes before lexeme i on its line.
func (f *codeFile) ownLine(i int) bool {
	s := int(f.lex[i].start)
	for k := s - 1; k >= f.begin && f.src[k] != '\n'; k-- {
		if c := f.src[k]; c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// indent is the column of offset off (a tab moves to the next multiple of
// eight, as Python counts).
func (f *codeFile) indent(off int) int {
	n := f.lines[f.lineOf(off)-1]
	if n < f.begin {
		n = f.begin
	}
	col := 0
	for ; n < off; n++ {
		switch f.src[n] {
		case '\t':
			col = col/8*8 + 8
		case '\f':
			col = 0
		default:
			col++
		}
	}
	return col
}

// matchBrackets pairs the brackets. A closer that matches nothing is left
// alone; one that matches an opener further down the stack closes the
// brackets left open above it (at itself); openers never closed extend to
// the last lexeme.
func (f *codeFile) matchBrackets() {
	f.partner = make([]int, len(f.lex))
	var stack []int
	for i := range f.lex {
		f.partner[i] = -1
		if f.lex[i].kind != lexPunct {
			continue
		}
		switch c := f.src[f.lex[i].start]; c {
		case '(', '[', '{':
			if f.lex[i].end-f.lex[i].start == 1 {
				stack = append(stack, i)
			}
		case ')', ']', '}':
			open := byte('(')
			switch c {
			case ']':
				open = '['
			case '}':
				open = '{'
			}
			k := len(stack) - 1
			for k >= 0 && f.src[f.lex[stack[k]].start] != open {
				k--
			}
			if k < 0 {
				continue
			}
			for _, o := range stack[k:] {
				f.partner[o] = i
			}
			f.partner[i] = stack[k]
			stack = stack[:k]
		}
	}
	for _, o := range stack {
		f.partner[o] = len(f.lex) - 1
	}
}

// skip returns the index after lexeme i, jumping over a bracketed group
// when i opens one.
func (f *codeFile) skip(i int) int {
	if f.isOpen(i) && f.partner[i] > i {
		return f.partner[i] + 1
	}
	return i + 1
}

// nextCode is the first lexeme at or after i, before hi, that is not a
// comment; hi when there is none.
func (f *codeFile) nextCode(i, hi int) int {
	for i < hi && i < len(f.lex) && (f.lex[i].kind == lexComment || f.lex[i].kind == lexDoc || f.lex[i].kind == lexInnerDoc) {
		i++
	}
	if i > hi {
		return hi
	}
	return i
}

// joined is the source of lexemes a..b-1 without comments (stopping
// once it is far longer than a signature may be), each run of blanks made
// one space; a line break just inside a bracket, and a
// trailing comma before it, are dropped, so a multi-line signature reads
// as one line ("fn f(a: u8, b: u8) -> u8").
func (f *codeFile) joined(a, b int) string {
	var sb strings.Builder
	prev := -1
	for i := a; i < b && i < len(f.lex); i++ {
		l := f.lex[i]
		if l.kind == lexComment || l.kind == lexDoc || l.kind == lexInnerDoc || l.kind == lexNewline {
			continue
		}
		if prev >= 0 && l.start > f.lex[prev].end {
			gap := f.src[f.lex[prev].end:l.start]
			broken := bytes.IndexByte(gap, '\n') >= 0
			switch {
			case broken && f.isClose(i):
				s := strings.TrimSuffix(sb.String(), ",")
				sb.Reset()
				sb.WriteString(s)
			case broken && f.isOpen(prev):
			default:
				sb.WriteByte(' ')
			}
		}
		if t := f.src[l.start:l.end]; l.kind == lexString && bytes.ContainsAny(t, " \t\r\n") {
			sb.WriteString(strings.Join(strings.Fields(string(t)), " ")) // a string with blanks
		} else {
			sb.Write(t)
		}
		prev = i
		if sb.Len() > 4*sigLimit {
			break
		}
	}
	// A trailing comma before a body (Rust's where clauses) reads as noise.
	return strings.TrimSuffix(sb.String(), ",")
}

// firstLineOf is the first line of the definition made of lexemes a..b,
// without comments: the signature of a constant, whose value may run on.
func (f *codeFile) firstLineOf(a, b int) string {
	line := f.startLine(a)
	e := a
	for i := a; i <= b && i < len(f.lex) && f.startLine(i) == line; i++ {
		if k := f.lex[i].kind; k != lexComment && k != lexDoc && k != lexInnerDoc && k != lexNewline {
			e = i
		}
	}
	return f.joined(a, e+1)
}

// section builds a Section spanning lexemes first..last.
func (f *codeFile) section(k Kind, name, sig, doc string, first, last int) Section {
	if last < first {
		last = first
	}
	return Section{
		Path:      f.path,
		Line:      f.startLine(first),
		EndLine:   f.endLine(last),
		Kind:      k,
		Lang:      f.lang,
		Name:      strings.ToValidUTF8(name, "\uFFFD"),
		Signature: clipSignature(strings.ToValidUTF8(sig, "\uFFFD")),
		Doc:       clipDoc(strings.ToValidUTF8(doc, "\uFFFD")),
	}
}

// sigLimit bounds a signature joined from several lines.
const sigLimit = 200

// clipSignature cuts a signature to sigLimit bytes at a rune boundary,
// marked with "…".
func clipSignature(s string) string {
	if len(s) <= sigLimit {
		return s
	}
	cut := sigLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// clipDoc bounds a doc to DocLimit bytes, cut at a word when there is one
// in its second half, marked with "…".
func clipDoc(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= DocLimit {
		return s
	}
	const ell = "…"
	cut := DocLimit - len(ell)
	for cut > DocLimit/2 && s[cut] != ' ' && s[cut] != '\n' && s[cut] != '\t' {
		cut--
	}
	if cut <= DocLimit/2 {
		cut = DocLimit - len(ell)
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + ell
}

// joinDocLines joins a doc's lines, trailing blanks and leading and
// trailing empty lines removed.
func joinDocLines(lines []string) string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// cleanBlockComment strips /** */-style markers: the opening and closing
// marks and each line's leading " * ".
func cleanBlockComment(t string) string {
	t = strings.TrimPrefix(t, "/*")
	t = strings.TrimLeft(t, "*!")
	t = strings.TrimSuffix(t, "*/")
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		s := strings.TrimLeft(l, " \t\r")
		if strings.HasPrefix(s, "*") {
			s = strings.TrimPrefix(strings.TrimPrefix(s, "*"), " ")
		} else if i > 0 {
			s = strings.TrimRight(l, " \t\r")
			s = strings.TrimPrefix(s, " ")
		}
		lines[i] = s
	}
	return joinDocLines(lines)
}

// lineEnd is the offset of the line break at or after i (or the end).
func lineEnd(src []byte, i int) int {
	for i < len(src) && src[i] != '\n' {
		i++
	}
	return i
}

// identByte says whether c can start a name: ASCII letters, _ and any
// byte of a multi-byte UTF-8 sequence (names in other scripts).
func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func digitByte(c byte) bool { return c >= '0' && c <= '9' }
