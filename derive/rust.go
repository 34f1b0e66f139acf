package derive

import (
	"strings"
	"unicode/utf8"
)

// Rust is read by a reader of our own: there is no pure-Go Rust parser
// (tree-sitter's needs cgo). Rust's items are easy to delimit once its
// lexemes are right — raw strings r#"…"#, byte and C strings, character
// literals told from lifetimes ('a' from 'a), nested block comments — so
// the reader lexes, matches brackets and reads the items at the top level
// and in impl and trait blocks.

func init() {
	register(language{name: "rust", exts: []string{".rs"}, extract: extractRust})
	readerVersions["rust"] = 1 // 1: items of inline modules
}

// extractRust reads a file's //! doc, its top-level items (fn, struct,
// enum, union, trait, type, const, static, inline mod, macro_rules!) with
// their /// docs and attributes, and the fns of its impl and trait blocks.
func extractRust(p string, src []byte) ([]Section, error) {
	f := newCodeFile(p, "rust", src)
	f.lexRust()
	f.numberLines()
	f.matchBrackets()
	r := rustReader{f: f}
	var out []Section
	if s, ok := r.crateDoc(); ok {
		out = append(out, s)
	}
	r.items(0, len(f.lex), "", &out)
	return out, nil
}

type rustReader struct {
	f   *codeFile
	mod string // the inline module being read ("net::tcp"), "" at the file's top
}

// crateDoc is the file's inner doc: the //! or /*! */ comments at its top.
func (r *rustReader) crateDoc() (Section, bool) {
	f := r.f
	first, last := -1, -1
	var docs []string
	for i := 0; i < len(f.lex); i++ {
		switch {
		case f.lex[i].kind == lexInnerDoc:
			if first < 0 {
				first = i
			}
			last = i
			docs = append(docs, rustDocText(f.text(i)))
			continue
		case f.lex[i].kind == lexComment || f.lex[i].kind == lexDoc:
			continue
		case f.is(i, "#") && f.is(i+1, "!") && f.is(i+2, "["): // an inner attribute
			i = f.skip(i+2) - 1
			continue
		}
		break
	}
	if first < 0 {
		return Section{}, false
	}
	return f.section(KindPackage, rustModuleName(f.path), "", strings.Join(docs, "\n"), first, last), true
}

// rustModuleName is the module path a file stands for: "src/lib.rs" and
// "src/main.rs" are the crate, "src/net/mod.rs" is net, "src/net/tcp.rs"
// is net::tcp.
func rustModuleName(p string) string {
	if i := strings.LastIndex(p, "src/"); i >= 0 {
		p = p[i+len("src/"):]
	}
	p = strings.TrimSuffix(p, ".rs")
	p = strings.TrimSuffix(p, "/mod")
	if p == "lib" || p == "main" {
		return "crate"
	}
	return strings.ReplaceAll(p, "/", "::")
}

// items reads the items among lexemes lo..hi-1. In an impl or trait block
// (owner is its type or trait) only fns are read, as methods.
func (r *rustReader) items(lo, hi int, owner string, out *[]Section) {
	f := r.f
	first := -1 // the first doc or attribute of the item being read
	var docs []string
	for i := lo; i < hi; {
		switch {
		case f.lex[i].kind == lexDoc:
			if first < 0 {
				first = i
			}
			docs = append(docs, rustDocText(f.text(i)))
			i++
			continue
		case f.lex[i].kind == lexComment || f.lex[i].kind == lexInnerDoc:
			i++
			continue
		case f.is(i, "#") && f.is(i+1, "["): // an outer attribute
			if first < 0 {
				first = i
			}
			i = f.skip(i + 1)
			continue
		case f.is(i, "#") && f.is(i+1, "!") && f.is(i+2, "["):
			i = f.skip(i + 2)
			continue
		}
		start := i
		if first < 0 {
			first = i
		}
		end := r.item(start, hi, first, strings.Join(docs, "\n"), owner, out)
		i = max(end+1, start+1)
		first, docs = -1, nil
	}
}

// rustItem is an item being read: its visibility (or keyword) at i, its
// keyword at k, its docs and attributes from first, the end of what
// contains it, and the impl or trait it is in ("" outside one).
type rustItem struct {
	i, k, hi, first int
	doc, owner      string
	kind            Kind
	name            string
}

// item reads the item whose visibility or keyword is at lexeme i (its docs
// and attributes begin at first) and returns its last lexeme. What is not
// an item it knows (a use, a macro call, a stray lexeme) is passed over.
func (r *rustReader) item(i, hi, first int, doc, owner string, out *[]Section) int {
	f := r.f
	k := rustQualifiers(f, rustVisibility(f, i))
	if k >= hi {
		return hi - 1
	}
	it := rustItem{i: i, k: k, hi: hi, first: first, doc: doc, owner: owner}
	if f.kind(k+1) == lexIdent {
		it.name = strings.TrimPrefix(f.text(k+1), "r#")
	}
	if end, done := r.classify(&it, out); done {
		return end
	}
	if it.name == "" || it.name == "_" { // const _: () = …; names nothing
		return r.end(k, hi, it.kind != KindConst)
	}
	return r.declared(it, out)
}

// rustVisibility returns the index after the visibility (pub, pub(crate))
// at k, or k when there is none.
func rustVisibility(f *codeFile, k int) int {
	if f.is(k, "pub") {
		k++
		if f.is(k, "(") {
			k = f.skip(k)
		}
	}
	return k
}

// rustQualifiers returns the index after the qualifiers at k: const fn,
// async, unsafe, extern "C" fn, default, auto trait.
func rustQualifiers(f *codeFile, k int) int {
	for {
		switch {
		case f.is(k, "const") && (f.is(k+1, "fn") || f.is(k+1, "unsafe") || f.is(k+1, "async") || f.is(k+1, "extern")),
			f.is(k, "async") || f.is(k, "unsafe") || f.is(k, "default") || f.is(k, "auto"):
			k++
			continue
		case f.is(k, "extern") && f.kind(k+1) == lexString && f.is(k+2, "fn"), f.is(k, "extern") && f.is(k+1, "fn"):
			k++
			if f.kind(k) == lexString {
				k++
			}
			continue
		}
		return k
	}
}

// classify tells the item by its keyword: it sets the kind (and the name
// where it is not the next lexeme) of an item that has a section, or
// reads to the end of one that is done (done is set): an impl block, a
// macro_rules!, a module in its own file, what is not read.
func (r *rustReader) classify(it *rustItem, out *[]Section) (end int, done bool) {
	f, k, hi := r.f, it.k, it.hi
	switch t := string(f.raw(k)); {
	case f.kind(k) != lexIdent:
		return f.skip(it.i) - 1, true
	case t == "fn":
		it.kind = KindFunc
		if it.owner != "" {
			it.kind, it.name = KindMethod, it.owner+"."+it.name
		}
	case it.owner != "":
		// Associated consts and types are not read; a macro call
		// (serde::forward_to_deserialize_any! { … }) ends at its group.
		return r.end(k, hi, rustMacroCall(f, k)), true
	case rustTypeItem(f, k):
		it.kind = KindType
	case t == "const" || t == "static":
		it.kind = KindConst
		if t == "static" {
			it.kind = KindVar
		}
		if f.is(k+1, "mut") {
			it.name = f.text(k + 2)
		}
	case t == "mod" && it.name != "":
		return r.module(it)
	case t == "macro_rules" && f.is(k+1, "!") && f.kind(k+2) == lexIdent:
		return r.macroRules(*it, out), true
	case t == "impl":
		return r.impl(k, hi, out), true
	default:
		// use, extern crate, a macro call, anything else: to the end of
		// the item.
		return r.end(k, hi, t == "extern" || rustMacroCall(f, k)), true
	}
	return 0, false
}

// rustTypeItem says whether lexeme k starts a struct, enum, trait, type
// alias or union (union is a keyword only before a name and a body).
func rustTypeItem(f *codeFile, k int) bool {
	switch string(f.raw(k)) {
	case "struct", "enum", "trait", "type":
		return true
	case "union":
		return f.kind(k+1) == lexIdent && (f.is(k+2, "{") || f.is(k+2, "<"))
	}
	return false
}

// module tells an inline module (mod m { … }), whose doc may be the //!
// at the top of its body, from a module in its own file (mod m;), which
// it passes over.
func (r *rustReader) module(it *rustItem) (end int, done bool) {
	f, k := r.f, it.k
	if !f.is(k+2, "{") {
		return r.end(k, it.hi, false), true // mod name; — the module is its own file
	}
	it.kind = KindPackage
	if it.doc == "" && f.kind(k+3) == lexInnerDoc {
		// mod m { //! doc }
		var docs []string
		for n := k + 3; f.kind(n) == lexInnerDoc; n++ {
			docs = append(docs, rustDocText(f.text(n)))
		}
		it.doc = strings.Join(docs, "\n")
	}
	return 0, false
}

// macroRules reads macro_rules! name { … } and returns its last lexeme.
func (r *rustReader) macroRules(it rustItem, out *[]Section) int {
	f, k := r.f, it.k
	end := r.end(k+3, it.hi, true)
	*out = append(*out, f.section(KindMacro, f.text(k+2), f.joined(it.i, k+3), it.doc, it.first, end))
	return end
}

// declared adds the section of an item that has one and reads the items
// inside a trait or an inline module; it returns the item's last lexeme.
func (r *rustReader) declared(it rustItem, out *[]Section) int {
	f, k := r.f, it.k
	body := r.bodyOpen(k, it.hi, it.kind)
	end, sigEnd := body, body
	if body >= 0 {
		end = f.partner[body]
	} else {
		end = r.end(k, it.hi, false)
		sigEnd = end
		if !f.is(end, ";") {
			sigEnd = end + 1
		}
	}
	var sig string
	if it.kind == KindConst || it.kind == KindVar || it.kind == KindType && f.is(k, "type") {
		sig = f.firstLineOf(it.i, end) // the value may run on
	} else {
		sig = f.joined(it.i, sigEnd)
	}
	name := it.name
	if it.owner == "" && r.mod != "" {
		name = r.mod + "::" + name // an item of an inline module
	}
	*out = append(*out, f.section(it.kind, name, sig, it.doc, it.first, end))
	switch {
	case f.is(k, "trait") && body >= 0:
		r.items(body+1, f.partner[body], name, out)
	case it.kind == KindPackage && body >= 0 && !rustTestModule(f, it.first, k):
		// An inline module's items; its tests (#[cfg(test)] mod tests)
		// are the test runner's.
		outer := r.mod
		r.mod = name
		r.items(body+1, f.partner[body], "", out)
		r.mod = outer
	}
	return end
}

// rustTestModule reports a module of tests: named test or tests, or
// marked #[cfg(test)] among the attributes from lexeme first to k.
func rustTestModule(f *codeFile, first, k int) bool {
	if n := f.text(k + 1); n == "test" || n == "tests" {
		return true
	}
	for i := first; i+3 < k; i++ {
		if f.is(i, "cfg") && f.is(i+1, "(") && f.is(i+2, "test") && f.is(i+3, ")") {
			return true
		}
	}
	return false
}

// bodyOpen finds the brace that opens an item's body, or -1 when the item
// ends at a semicolon first (struct S;, struct T(u8);, fn f(); in a
// trait). Consts, statics and type aliases have no body: a brace in their
// value is part of it.
func (r *rustReader) bodyOpen(k, hi int, kind Kind) int {
	f := r.f
	if kind == KindConst || kind == KindVar || f.is(k, "type") {
		return -1
	}
	for j := k; j < hi; j = f.skip(j) {
		switch {
		case f.is(j, "{"):
			return j
		case f.is(j, ";"), f.isClose(j):
			return -1
		}
	}
	return -1
}

// end is the last lexeme of the item starting at k: its semicolon, or
// when braces is set (macro calls, macro_rules!, extern blocks) the
// closing bracket of its first braced group if that comes first.
func (r *rustReader) end(k, hi int, braces bool) int {
	f := r.f
	for j := k; j < hi; {
		switch {
		case f.is(j, ";"):
			return j
		case f.isClose(j):
			return j - 1
		case braces && f.is(j, "{"):
			return min(f.partner[j], hi-1)
		}
		j = f.skip(j)
		if braces && j-1 > k && f.isClose(j-1) && !f.is(j, ";") {
			return j - 1 // m!(…) with no semicolon before the next item
		}
	}
	return hi - 1
}

// rustMacroCall says whether a macro call starts at lexeme k: a path
// (a::b::m) and a !.
func rustMacroCall(f *codeFile, k int) bool {
	for f.kind(k) == lexIdent {
		if f.is(k+1, "!") {
			return true
		}
		if !f.is(k+1, "::") {
			return false
		}
		k += 2
	}
	return false
}

// impl reads the fns of the impl block whose keyword is at k and returns
// its last lexeme. The methods are named after the implementing type:
// impl<T> fmt::Display for Wrapper<T> gives Wrapper.fmt.
func (r *rustReader) impl(k, hi int, out *[]Section) int {
	f := r.f
	body := -1
	angle, forAt := 0, -1
	for j := k + 1; j < hi; {
		switch {
		case f.is(j, "<"):
			angle++
		case f.is(j, ">") && angle > 0:
			angle--
		case angle == 0 && f.is(j, "for"):
			forAt = j
		case angle == 0 && (f.is(j, "where") || f.is(j, "{")):
			body = j
		case f.is(j, ";") || f.isClose(j):
			return j
		}
		if body >= 0 {
			break
		}
		j = f.skip(j)
	}
	if body < 0 {
		return hi - 1
	}
	from := k + 1
	if forAt >= 0 {
		from = forAt + 1
	} else if f.is(from, "<") { // impl<T> Type<T>: skip the impl's generics
		for n, d := from, 0; n < body; n++ {
			if f.is(n, "<") {
				d++
			} else if f.is(n, ">") {
				if d--; d == 0 {
					from = n + 1
					break
				}
			}
		}
	}
	owner := rustTypeName(f, from, body)
	for body < hi && !f.is(body, "{") {
		body = f.skip(body)
	}
	if body >= hi {
		return hi - 1
	}
	r.items(body+1, f.partner[body], owner, out)
	return f.partner[body]
}

// rustTypeName is the name of the type written in lexemes from..to-1: the
// last segment of its path, without references, lifetimes and generic
// arguments (&'a mut std::vec::Vec<T> is Vec).
func rustTypeName(f *codeFile, from, to int) string {
	name := ""
	for i := from; i < to; i++ {
		switch {
		case f.is(i, "<"), f.is(i, "where"), f.is(i, "{"):
			if name != "" {
				return name
			}
		case f.kind(i) == lexIdent && !strings.HasPrefix(f.text(i), "'"):
			switch t := string(f.raw(i)); t {
			case "mut", "dyn", "const", "unsafe":
			default:
				name = strings.TrimPrefix(t, "r#")
			}
		case f.is(i, "::"), f.is(i, "&"), f.is(i, "*"), f.is(i, "!"):
		default:
			if name != "" {
				return name
			}
			if f.isOpen(i) { // impl [T], impl (A, B): the type as written
				return f.joined(i, f.skip(i))
			}
		}
	}
	return name
}

// rustDocText strips a doc comment's markers: ///, //!, /** */, /*! */.
func rustDocText(t string) string {
	if strings.HasPrefix(t, "/*") {
		return cleanBlockComment(t)
	}
	t = strings.TrimPrefix(t, "//")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "/"), "!")
	return strings.TrimRight(strings.TrimPrefix(t, " "), " \t\r")
}

// lexRust splits Rust into lexemes. Block comments nest; a quote is a
// character literal when a character (or an escape) and a closing quote
// follow, else a lifetime or label ('a, 'static).
func (f *codeFile) lexRust() {
	src := f.src
	i := f.begin
	if i+2 < len(src) && src[i] == '#' && src[i+1] == '!' && src[i+2] != '[' {
		i = lineEnd(src, i) // a shebang
	}
	for i < len(src) {
		if spaceByte(src[i]) {
			i++
			continue
		}
		e, k := rustLexeme(src, i)
		f.add(k, i, e)
		i = e
	}
}

// rustLexeme reads the lexeme that starts at i, not a space: its end and
// kind, each kind by its scanner.
func rustLexeme(src []byte, i int) (int, lexKind) {
	c := src[i]
	switch {
	case c == '/' && i+1 < len(src) && src[i+1] == '/':
		return rustLineComment(src, i)
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		return rustBlockComment(src, i)
	case c == '"':
		return scanRustString(src, i+1), lexString
	case c == '\'':
		return scanRustQuote(src, i)
	case identByte(c):
		if e, ok := rustPrefixedLiteral(src, i); ok {
			return e, lexString
		}
		return rustIdent(src, i), lexIdent
	case digitByte(c):
		return rustNumber(src, i), lexNumber
	}
	return rustPunct(src, i), lexPunct
}

// rustLineComment reads a // comment: //! is an inner doc, /// an outer
// one (//// is not).
func rustLineComment(src []byte, i int) (int, lexKind) {
	e := lineEnd(src, i)
	switch {
	case e-i >= 3 && src[i+2] == '!':
		return e, lexInnerDoc
	case e-i >= 3 && src[i+2] == '/' && (e-i == 3 || src[i+3] != '/'):
		return e, lexDoc
	}
	return e, lexComment
}

// rustBlockComment reads a /* */ comment: /*! */ is an inner doc, /** */
// an outer one (/*** is not).
func rustBlockComment(src []byte, i int) (int, lexKind) {
	e := scanRustBlockComment(src, i)
	switch {
	case e-i > 4 && src[i+2] == '!':
		return e, lexInnerDoc
	case e-i > 4 && src[i+2] == '*' && src[i+3] != '*':
		return e, lexDoc
	}
	return e, lexComment
}

// rustIdent returns the end of the name at i, a raw identifier (r#type)
// included.
func rustIdent(src []byte, i int) int {
	e := i + 1
	if src[i] == 'r' && e+1 < len(src) && src[e] == '#' && identByte(src[e+1]) {
		e += 2
	}
	for e < len(src) && (identByte(src[e]) || digitByte(src[e])) {
		e++
	}
	return e
}

// rustNumber returns the end of the number at i: its digits, letters
// (suffixes, hex digits) and a dot before a digit (1.5, not 1..2).
func rustNumber(src []byte, i int) int {
	e := i + 1
	for e < len(src) && (identByte(src[e]) || digitByte(src[e]) || src[e] == '.' && e+1 < len(src) && digitByte(src[e+1])) {
		e++
	}
	return e
}

// rustPunct returns the end of the operator or bracket at i: ::, -> and
// => are one lexeme.
func rustPunct(src []byte, i int) int {
	if i+1 < len(src) {
		switch string(src[i : i+2]) {
		case "::", "->", "=>":
			return i + 2
		}
	}
	return i + 1
}

// rustPrefixedLiteral reads a literal with a prefix at i: b"…", br"…",
// r#"…"#, c"…", cr#"…"#, b'x'. It returns false when i starts a name.
func rustPrefixedLiteral(src []byte, i int) (int, bool) {
	j := i
	if j < len(src) && (src[j] == 'b' || src[j] == 'c') {
		j++
	}
	raw := j < len(src) && src[j] == 'r'
	if raw {
		j++
	}
	if j == i {
		return 0, false
	}
	if raw {
		hashes := 0
		for j < len(src) && src[j] == '#' {
			hashes++
			j++
		}
		if j >= len(src) || src[j] != '"' {
			return 0, false
		}
		// The string ends at a quote followed by as many hashes.
		for e := j + 1; e < len(src); e++ {
			if src[e] != '"' {
				continue
			}
			n := 0
			for n < hashes && e+1+n < len(src) && src[e+1+n] == '#' {
				n++
			}
			if n == hashes {
				return e + 1 + n, true
			}
		}
		return len(src), true
	}
	switch {
	case j < len(src) && src[j] == '"':
		return scanRustString(src, j+1), true
	case src[i] == 'b' && j < len(src) && src[j] == '\'':
		e, k := scanRustQuote(src, j)
		if k == lexString {
			return e, true
		}
	}
	return 0, false
}

// scanRustString returns the end of a string whose text starts at i
// (strings may span lines), or the end of the file.
func scanRustString(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return len(src)
}

// scanRustQuote reads what starts with the quote at i: a character
// literal ('x', '\n', '\u{1F600}', an escaped quote) or a lifetime or
// label ('a).
func scanRustQuote(src []byte, i int) (int, lexKind) {
	if i+1 < len(src) && src[i+1] == '\\' {
		for e := i + 3; e < len(src) && e < i+16; e++ {
			if src[e] == '\'' {
				return e + 1, lexString
			}
			if src[e] == '\n' {
				break
			}
		}
		return i + 1, lexPunct
	}
	if i+1 < len(src) {
		_, n := utf8.DecodeRune(src[i+1:])
		if e := i + 1 + n; e < len(src) && src[e] == '\'' && src[i+1] != '\n' {
			return e + 1, lexString
		}
	}
	e := i + 1
	for e < len(src) && (identByte(src[e]) || digitByte(src[e])) {
		e++
	}
	if e == i+1 {
		return e, lexPunct // a lone quote
	}
	return e, lexIdent
}

// scanRustBlockComment returns the end of the block comment at i; Rust's
// block comments nest.
func scanRustBlockComment(src []byte, i int) int {
	depth := 0
	for e := i; e+1 < len(src); {
		switch {
		case src[e] == '/' && src[e+1] == '*':
			depth++
			e += 2
		case src[e] == '*' && src[e+1] == '/':
			depth--
			e += 2
			if depth == 0 {
				return e
			}
		default:
			e++
		}
	}
	return len(src)
}
