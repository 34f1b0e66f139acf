package derive

import (
	"path"
	"strings"
)

// TypeScript and JavaScript are read by a reader of our own: no pure-Go
// parser reads TypeScript (esbuild's and typescript-go's parsers are
// internal packages), and goja's parser reads neither TypeScript nor ES
// modules (it fails on the first export). The reader splits the file into
// lexemes — strings, template literals with their nested ${ } expressions,
// regular expressions told from division by the lexeme before them,
// comments — matches brackets, and reads the top-level statements; where a
// statement without a semicolon ends is decided by the line break rules of
// automatic semicolon insertion, simplified.
//
// Declaration files (.d.ts) are read like any TypeScript: hand-written
// ones are the only typed description of a JavaScript library's API, and
// generated ones live in build directories that the walk skips.

func init() {
	register(language{name: "typescript", exts: []string{".ts", ".tsx", ".mts", ".cts"}, extract: extractTypeScript})
	register(language{name: "javascript", exts: []string{".js", ".jsx", ".mjs", ".cjs"}, extract: extractJavaScript})
	readerVersions["typescript"] = 1 // 1: interface members, namespaces' declarations
	readerVersions["javascript"] = 1
}

func extractTypeScript(p string, src []byte) ([]Section, error) {
	return extractJS(p, "typescript", src), nil
}

func extractJavaScript(p string, src []byte) ([]Section, error) {
	return extractJS(p, "javascript", src), nil
}

// extractJS reads a file's @file/@module doc, its top-level functions,
// classes (with their methods), interfaces, type aliases, enums,
// namespaces and const/let/var declarations, exported or not.
func extractJS(p, lang string, src []byte) []Section {
	f := newCodeFile(p, lang, src)
	f.lexJS()
	f.numberLines()
	f.matchBrackets()
	r := jsReader{f: f, fileDoc: -1}
	var out []Section
	if s, ok := r.fileDocSection(); ok {
		out = append(out, s)
	}
	r.statements(0, len(f.lex), &out)
	return mergeOverloads(out)
}

type jsReader struct {
	f       *codeFile
	fileDoc int    // the comment taken as the file's doc, or -1
	ns      string // the namespace being read ("Internal.Util"), "" at the file's top
}

// fileDocSection is the file's own doc: a /** */ among the comments before
// the first statement that says @file, @fileoverview, @module or
// @packageDocumentation.
func (r *jsReader) fileDocSection() (Section, bool) {
	f := r.f
	for i := 0; i < len(f.lex) && (f.lex[i].kind == lexComment || f.lex[i].kind == lexDoc); i++ {
		if f.lex[i].kind != lexDoc {
			continue
		}
		doc := cleanJSDoc(f.text(i))
		name := strings.TrimSuffix(f.path, path.Ext(f.path))
		found := false
		var keep []string
		for _, l := range strings.Split(doc, "\n") {
			tag, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
			switch tag {
			case "@module":
				if rest = strings.TrimSpace(rest); rest != "" {
					name = rest
				}
				found = true
				continue
			case "@file", "@fileoverview", "@fileOverview", "@overview", "@packageDocumentation":
				found = true
				l = rest
			}
			keep = append(keep, l)
		}
		if found {
			r.fileDoc = i
			return f.section(KindPackage, name, "", joinDocLines(keep), i, i), true
		}
	}
	return Section{}, false
}

// statements reads the statements among lexemes lo..hi-1: the file's, or
// a namespace's.
func (r *jsReader) statements(lo, hi int, out *[]Section) {
	f := r.f
	for i := lo; i < hi; {
		if k := f.lex[i].kind; k == lexComment || k == lexDoc {
			i++
			continue
		}
		i = max(r.statement(i, hi, out), i+1) // every statement moves on, whatever the bytes
	}
}

// jsStmt is a statement being read: where it starts (its decorators),
// where its declaration starts after them, its keyword after the
// modifiers (export, declare, async…) and the end of what contains it.
type jsStmt struct {
	i, start, k, hi int
	t               string // the keyword or name at k, "" when it is not a name
}

// jsDecl is what a statement declares.
type jsDecl struct {
	kind Kind
	name string
	body int // the brace that opens its body, or -1
	end  int // its last lexeme
	// sigEnd is where the signature stops (the body's brace, the
	// semicolon); -1 takes the first line, for values.
	sigEnd int
}

// statement reads the statement starting at lexeme i (before hi) and
// returns the index after it.
func (r *jsReader) statement(i, hi int, out *[]Section) int {
	f := r.f
	s := jsStmt{i: i, start: r.skipDecorators(i, hi), hi: hi}
	s.k = s.start
	for s.k < hi && jsModifier(f, s.k) {
		s.k++
	}
	if s.k >= hi {
		return hi
	}
	if f.kind(s.k) == lexIdent {
		s.t = f.text(s.k)
	}
	d, ok := r.declaration(s)
	if !ok {
		return d.end + 1
	}
	d.end = max(d.end, s.k)
	if r.ns != "" {
		d.name = r.ns + "." + d.name // a declaration of a namespace
	}
	*out = append(*out, r.declSection(s, d))
	switch {
	case d.body < 0:
	case d.kind == KindClass:
		r.members(d.body, f.partner[d.body], d.name, false, out)
	case s.t == "interface":
		r.members(d.body, f.partner[d.body], d.name, true, out)
	case s.t == "namespace" || s.t == "module":
		outer := r.ns
		r.ns = d.name
		r.statements(d.body+1, f.partner[d.body], out)
		r.ns = outer
	}
	return d.end + 1
}

// declaration reads what the statement s declares, by its keyword. When
// it declares nothing this reader shows, ok is false and the declaration's
// end is the statement's last lexeme.
func (r *jsReader) declaration(s jsStmt) (d jsDecl, ok bool) {
	f, k, t := r.f, s.k, s.t
	switch {
	case t == "function":
		return r.function(s), true
	case t == "class" && (f.kind(k+1) == lexIdent || f.is(k+1, "{")),
		(t == "interface" || t == "enum") && f.kind(k+1) == lexIdent:
		return r.typeDecl(s), true
	case t == "const" && f.is(k+1, "enum") && f.kind(k+2) == lexIdent:
		body, end := r.declBody(k+2, s.hi)
		return jsDecl{kind: KindType, name: f.text(k + 2), body: body, end: end, sigEnd: bodyOrEnd(f, body, end)}, true
	case t == "type" && f.kind(k+1) == lexIdent && (f.is(k+2, "=") || f.is(k+2, "<")):
		return jsDecl{kind: KindType, name: f.text(k + 1), body: -1, end: r.stmtEnd(k, s.hi), sigEnd: -1}, true
	case (t == "namespace" || t == "module") && (f.kind(k+1) == lexIdent || f.kind(k+1) == lexString):
		return r.namespace(s)
	case (t == "const" || t == "let" || t == "var") && f.kind(k+1) == lexIdent:
		return r.variable(s)
	case jsExportsAssign(f, k):
		return r.commonJSExport(s)
	case jsPrototypeAssign(f, k):
		return r.prototypeMethod(s)
	}
	return r.notDeclaration(s)
}

// notDeclaration passes over a statement that declares nothing.
func (r *jsReader) notDeclaration(s jsStmt) (jsDecl, bool) {
	return jsDecl{end: r.stmtEnd(s.i, s.hi)}, false
}

// declSection is the section of the declaration d: its doc, its
// signature from its first decorator on.
func (r *jsReader) declSection(s jsStmt, d jsDecl) Section {
	f := r.f
	first, doc := r.docAbove(s.i)
	sig := ""
	if d.sigEnd < 0 {
		sig = f.firstLineOf(s.start, d.end)
	} else {
		sig = f.joined(s.start, d.sigEnd)
	}
	return f.section(d.kind, d.name, sig, doc, first, d.end)
}

// function reads function name(…) {…} and function* name, or a
// function called default (export default function).
func (r *jsReader) function(s jsStmt) jsDecl {
	f := r.f
	d := jsDecl{kind: KindFunc, name: "default"}
	n := s.k + 1
	if f.is(n, "*") {
		n++
	}
	if f.kind(n) == lexIdent {
		d.name = f.text(n)
	}
	d.body, d.end = r.declBody(n, s.hi)
	d.sigEnd = bodyOrEnd(f, d.body, d.end)
	return d
}

// typeDecl reads a class (named, or default), an interface or an enum.
func (r *jsReader) typeDecl(s jsStmt) jsDecl {
	f, k := r.f, s.k
	d := jsDecl{kind: KindType, name: "default"}
	if s.t == "class" {
		d.kind = KindClass
	}
	if f.kind(k+1) == lexIdent && !f.is(k+1, "extends") && !f.is(k+1, "implements") {
		d.name = f.text(k + 1)
	}
	d.body, d.end = r.declBody(k+1, s.hi)
	d.sigEnd = bodyOrEnd(f, d.body, d.end)
	return d
}

// namespace reads namespace A.B { … } or module "name" { … }; without
// a body it declares nothing.
func (r *jsReader) namespace(s jsStmt) (jsDecl, bool) {
	f, k := r.f, s.k
	n := k + 1
	for f.is(n+1, ".") && f.kind(n+2) == lexIdent {
		n += 2
	}
	if !f.is(n+1, "{") {
		return r.notDeclaration(s)
	}
	name := strings.Trim(f.joined(k+1, n+1), `"'`)
	return jsDecl{kind: KindType, name: name, body: n + 1, end: f.partner[n+1], sigEnd: n + 1}, true
}

// variable reads a const, let or var: a function or class when its value
// is one, nothing for a require().
func (r *jsReader) variable(s jsStmt) (jsDecl, bool) {
	f, k := r.f, s.k
	d := jsDecl{name: f.text(k + 1), body: -1, end: r.stmtEnd(k, s.hi)}
	d.kind, d.sigEnd = r.valueKind(k+2, d.end+1, s.t)
	return d, d.kind != ""
}

// jsExportsAssign says whether a CommonJS export starts at lexeme k:
// exports.name = … or module.exports.name = ….
func jsExportsAssign(f *codeFile, k int) bool {
	return (f.is(k, "exports") || f.is(k, "module") && f.is(k+1, ".") && f.is(k+2, "exports")) && f.is(k+1, ".")
}

// commonJSExport reads exports.name = function … or module.exports.name =
// …: a function or a class, else nothing.
func (r *jsReader) commonJSExport(s jsStmt) (jsDecl, bool) {
	f, k := r.f, s.k
	n := k + 2
	if s.t == "module" {
		n = k + 4
	}
	if f.kind(n) != lexIdent || !f.is(n-1, ".") || !f.is(n+1, "=") {
		return r.notDeclaration(s)
	}
	d := jsDecl{name: f.text(n), body: -1, end: r.stmtEnd(k, s.hi)}
	d.kind, d.sigEnd = r.valueKind(n+1, d.end+1, "")
	return d, d.kind == KindFunc || d.kind == KindClass
}

// jsPrototypeAssign says whether lexeme k starts Name.prototype.method =.
func jsPrototypeAssign(f *codeFile, k int) bool {
	return f.kind(k) == lexIdent && f.is(k+1, ".") && f.is(k+2, "prototype") && f.is(k+3, ".") &&
		f.kind(k+4) == lexIdent && f.is(k+5, "=")
}

// prototypeMethod reads a method given to a constructor's prototype:
// Reply.prototype.send = function …, named Reply.send.
func (r *jsReader) prototypeMethod(s jsStmt) (jsDecl, bool) {
	f, k := r.f, s.k
	d := jsDecl{name: s.t + "." + f.text(k+4), body: -1, end: r.stmtEnd(k, s.hi)}
	kind, sigEnd := r.valueKind(k+5, d.end+1, "")
	d.kind, d.sigEnd = KindMethod, sigEnd
	return d, kind == KindFunc
}

// bodyOrEnd is where a declaration's signature stops: before its body,
// or before the semicolon of one without a body.
func bodyOrEnd(f *codeFile, body, end int) int {
	switch {
	case body >= 0:
		return body
	case f.is(end, ";"):
		return end
	}
	return end + 1
}

// valueKind is the kind of a const/let/var whose initializer (after its
// name and type) lies in lexemes from..to-1, and where its signature
// stops: a function when it is an arrow or function expression (the
// signature runs to the arrow or the body), a class for a class
// expression, nothing for a require() (an import by another name).
func (r *jsReader) valueKind(from, to int, decl string) (Kind, int) {
	f := r.f
	eq := -1
	for i := from; i < to; i = f.skip(i) {
		if f.is(i, "=") {
			eq = i
			break
		}
	}
	if eq >= 0 {
		v := f.nextCode(eq+1, to)
		if f.is(v, "require") && f.is(v+1, "(") {
			return "", -1
		}
		if f.is(v, "function") || f.is(v, "async") && f.is(v+1, "function") {
			body, end := r.declBody(v, to)
			return KindFunc, bodyOrEnd(f, body, end)
		}
		if a := r.arrow(v, to); a >= 0 {
			return KindFunc, a + 1
		}
		if f.is(v, "class") {
			return KindClass, -1
		}
	}
	if decl == "const" {
		return KindConst, -1
	}
	return KindVar, -1
}

// arrow returns the index of the => when an arrow function starts at
// lexeme i (x => …, (…) => …, (…): T => …, async …, <T>(…) => …), or -1.
func (r *jsReader) arrow(i, hi int) int {
	f := r.f
	if f.is(i, "async") {
		i++
	}
	if f.is(i, "<") {
		for i < hi && !f.is(i, "(") && !f.is(i, ";") {
			i = f.skip(i)
		}
	}
	switch {
	case f.kind(i) == lexIdent:
		if f.is(i+1, "=>") {
			return i + 1
		}
	case f.is(i, "("):
		n := f.skip(i)
		if f.is(n, "=>") {
			return n
		}
		if f.is(n, ":") { // a return type, then the arrow
			for ; n < hi; n = f.skip(n) {
				if f.is(n, "=>") {
					return n
				}
				if f.is(n, ";") || f.is(n, "=") {
					break
				}
			}
		}
	}
	return -1
}

// members reads the methods of the class or interface whose body is the
// brackets open..close, and an interface's properties too.
func (r *jsReader) members(open, close int, class string, iface bool, out *[]Section) {
	f := r.f
	for i := open + 1; i < close; {
		if k := f.lex[i].kind; k == lexComment || k == lexDoc || f.is(i, ";") || f.is(i, ",") {
			i++
			continue
		}
		k := r.skipDecorators(i, close)
		for k < close && jsMemberModifier(f, k) {
			k++
		}
		if f.is(k, "static") && f.is(k+1, "{") { // a static block
			i = f.skip(k + 1)
			continue
		}
		name := ""
		n := k + 1
		switch {
		case f.kind(k) == lexIdent || f.kind(k) == lexNumber:
			name = f.text(k)
		case f.kind(k) == lexString:
			name = strings.Trim(f.text(k), "\"'`")
		case f.is(k, "["):
			n = f.skip(k)
			name = f.joined(k, n)
		default:
			i = f.skip(k)
			continue
		}
		if f.is(n, "?") || f.is(n, "!") {
			n++
		}
		var end, sigEnd int
		method := false
		switch {
		case f.is(n, "(") || f.is(n, "<"):
			method = true
			var body int
			body, end = r.declBody(n, close)
			sigEnd = bodyOrEnd(f, body, end)
		case f.is(n, "="):
			end = r.stmtEnd(n, close)
			v := f.nextCode(n+1, close)
			if a := r.arrow(v, end+1); a >= 0 {
				method, sigEnd = true, a+1
			} else if f.is(v, "function") || f.is(v, "async") && f.is(v+1, "function") {
				body, e := r.declBody(v, end+1)
				method, sigEnd = true, bodyOrEnd(f, body, e)
			}
		default:
			end = r.stmtEnd(n, close)
		}
		if end >= close {
			end = close - 1
		}
		if end < k {
			end = k
		}
		switch {
		case method:
			first, doc := r.docAbove(i)
			start := r.skipDecorators(i, close)
			sig := f.joined(start, sigEnd)
			*out = append(*out, f.section(KindMethod, class+"."+name, sig, doc, first, end))
		case iface:
			// An interface's property: what a setting or a field is
			// called is often what a person looks for.
			first, doc := r.docAbove(i)
			*out = append(*out, f.section(KindVar, class+"."+name, f.firstLineOf(r.skipDecorators(i, close), end), doc, first, end))
		}
		i = end + 1
	}
}

// skipDecorators returns the index after the decorators (@name,
// @a.b(args)) starting at i.
func (r *jsReader) skipDecorators(i, hi int) int {
	f := r.f
	for i < hi && f.is(i, "@") && f.kind(i+1) == lexIdent {
		i += 2
		for f.is(i, ".") && f.kind(i+1) == lexIdent {
			i += 2
		}
		if f.is(i, "(") {
			i = f.skip(i)
		}
		i = f.nextCode(i, hi)
	}
	return i
}

// jsModifier says whether lexeme i modifies a top-level declaration.
func jsModifier(f *codeFile, i int) bool {
	switch string(f.raw(i)) {
	case "export", "declare", "abstract":
		return f.kind(i) == lexIdent
	case "default":
		return f.is(i-1, "export")
	case "async":
		return f.is(i+1, "function")
	}
	return false
}

// jsMemberModifier says whether lexeme i modifies a class member rather
// than naming it (get() {} is a method called get).
func jsMemberModifier(f *codeFile, i int) bool {
	switch string(f.raw(i)) {
	case "*":
		return true
	case "public", "private", "protected", "static", "readonly", "abstract", "override",
		"declare", "async", "accessor", "get", "set":
	default:
		return false
	}
	if f.kind(i) != lexIdent || i+1 >= len(f.lex) || f.startLine(i+1) != f.startLine(i) {
		return false
	}
	n := i + 1
	return f.kind(n) == lexIdent || f.kind(n) == lexString || f.kind(n) == lexNumber ||
		f.is(n, "[") || f.is(n, "*") || f.is(n, "{") && f.is(i, "static")
}

// declBody finds the body of the declaration whose name or parameters
// start at i: the brace that opens it and the lexeme that ends the
// declaration. Braces inside a type (a return type { a: T }, a generic
// argument) are not the body. A declaration without a body (an overload,
// an abstract method, a declare) ends at its semicolon or line break:
// body is then -1.
func (r *jsReader) declBody(i, hi int) (body, end int) {
	f := r.f
	angle := 0
	prev := -1
	for j := i; j < hi; {
		switch {
		case f.lex[j].kind == lexComment || f.lex[j].kind == lexDoc:
			j++
			continue
		case f.is(j, "<"):
			angle++
		case f.is(j, ">") && angle > 0:
			angle--
		case f.is(j, "{"):
			if angle == 0 && !jsTypeContext(f, prev) {
				return j, f.partner[j]
			}
			prev = f.partner[j]
			j = f.skip(j)
			if angle == 0 && r.lineEnds(prev, hi) && !f.is(f.nextCode(j, hi), "{") {
				return -1, prev
			}
			continue
		case f.isOpen(j):
			prev = f.partner[j]
			j = f.skip(j)
			if angle == 0 && r.lineEnds(prev, hi) && !f.is(f.nextCode(j, hi), "{") {
				return -1, prev
			}
			continue
		case f.isClose(j):
			return -1, j - 1 // the container's end: the declaration is cut short
		case angle == 0 && f.is(j, ";"):
			return -1, j
		}
		if angle == 0 && r.lineEnds(j, hi) && !f.is(f.nextCode(j+1, hi), "{") {
			return -1, j
		}
		prev = j
		j++
	}
	return -1, hi - 1
}

// jsTypeContext says whether a { after lexeme prev starts an object type
// rather than a body: after a colon, a type operator or an arrow.
func jsTypeContext(f *codeFile, prev int) bool {
	if prev < 0 {
		return false
	}
	switch string(f.raw(prev)) {
	case ":", "|", "&", ",", "=>", "<", "=", "?", "keyof", "typeof", "extends", "is", "as", "satisfies":
		return true
	}
	return false
}

// stmtEnd is the last lexeme of the statement starting at i: its
// semicolon, or the lexeme before a line break that ends it (the line
// does not end in an operator and the next does not start with one).
func (r *jsReader) stmtEnd(i, hi int) int {
	f := r.f
	for j := i; j < hi; {
		if f.isClose(j) && f.partner[j] < i {
			return j - 1 // a closer of an enclosing bracket
		}
		if f.is(j, ";") {
			return j
		}
		last := j
		if f.isOpen(j) {
			last = f.partner[j]
			if last >= hi {
				return hi - 1
			}
		}
		if r.lineEnds(last, hi) {
			return last
		}
		j = f.nextCode(last+1, hi)
	}
	return hi - 1
}

// lineEnds says whether a statement may end after lexeme j: the next code
// is on a later line, j does not ask for more, and the next does not go
// on with an operator.
func (r *jsReader) lineEnds(j, hi int) bool {
	f := r.f
	n := f.nextCode(j+1, hi)
	if n >= hi {
		return true
	}
	if f.startLine(n) <= f.endLine(j) {
		return false
	}
	if f.kind(j) == lexPunct {
		switch string(f.raw(j)) {
		case ")", "]", "}", ";", "++", "--", "!":
		default:
			return false
		}
	}
	switch string(f.raw(n)) {
	case ".", "?.", "?", ":", "=", ",", "|", "&", "*", "%", "=>", ">", "^", "/", "+", "-",
		"as", "satisfies", "instanceof", "in", "extends", "implements":
		return false
	}
	return true
}

// docAbove finds the doc of the declaration starting at lexeme i: the
// /** */ or the block of comments that ends on the line just above it (or
// on its own line), each alone on its line. Linter and compiler
// directives (eslint-disable, @ts-ignore…) are not doc.
func (r *jsReader) docAbove(i int) (first int, doc string) {
	f := r.f
	first = i
	k := i - 1
	if k < 0 || k == r.fileDoc || (f.lex[k].kind != lexComment && f.lex[k].kind != lexDoc) {
		return first, ""
	}
	if f.endLine(k) < f.startLine(i)-1 || !f.ownLine(k) {
		return first, ""
	}
	if f.lex[k].kind == lexDoc || strings.HasPrefix(f.text(k), "/*") {
		doc = cleanJSDoc(f.text(k))
		if doc != "" {
			first = k
		}
		return first, doc
	}
	top := k
	for top-1 >= 0 && top-1 != r.fileDoc && f.lex[top-1].kind == lexComment &&
		strings.HasPrefix(f.text(top-1), "//") && f.ownLine(top-1) && f.endLine(top-1) == f.startLine(top)-1 {
		top--
	}
	var lines []string
	for c := top; c <= k; c++ {
		t := strings.TrimPrefix(f.text(c), "//")
		if jsDirective(t) {
			continue
		}
		lines = append(lines, strings.TrimPrefix(t, " "))
	}
	doc = joinDocLines(lines)
	if doc != "" {
		first = top
	}
	return first, doc
}

// jsDirective says whether a line comment speaks to a tool, not a reader.
func jsDirective(t string) bool {
	t = strings.TrimSpace(t)
	for _, p := range []string{"eslint", "@ts-", "prettier-ignore", "istanbul ", "c8 ", "tslint:", "#region", "#endregion", "/ <reference", "biome-ignore", "deno-lint"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// cleanJSDoc strips a JSDoc's markers and turns {@link X} into X.
func cleanJSDoc(t string) string {
	s := cleanBlockComment(t)
	for {
		a := strings.Index(s, "{@link")
		if a < 0 {
			break
		}
		b := strings.IndexByte(s[a:], '}')
		if b < 0 {
			break
		}
		inner := strings.TrimSpace(s[a+1 : a+b])
		_, target, _ := strings.Cut(inner, " ")
		if _, label, ok := strings.Cut(target, "|"); ok {
			target = label
		}
		s = s[:a] + strings.TrimSpace(target) + s[a+b+1:]
	}
	return s
}

// mergeOverloads joins consecutive sections of the same function or
// method (TypeScript overloads, a getter and its setter) into one: the
// first signature, the first doc.
func mergeOverloads(secs []Section) []Section {
	out := secs[:0]
	for _, s := range secs {
		if n := len(out); n > 0 && (s.Kind == KindFunc || s.Kind == KindMethod) &&
			out[n-1].Kind == s.Kind && out[n-1].Name == s.Name && out[n-1].EndLine <= s.Line {
			out[n-1].EndLine = s.EndLine
			if out[n-1].Doc == "" {
				out[n-1].Doc = s.Doc
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// lexJS splits JavaScript or TypeScript into lexemes. A template literal
// is one lexeme, its ${ } expressions skipped with their own strings,
// templates and braces. A quote that finds no partner on its line is a
// lone punctuation mark, not a string, so an apostrophe in JSX text
// (<p>Don't</p>) costs nothing.
func (f *codeFile) lexJS() {
	l := jsLexer{f: f, src: f.src, i: f.begin}
	if l.i+1 < len(l.src) && l.src[l.i] == '#' && l.src[l.i+1] == '!' {
		l.i = lineEnd(l.src, l.i) // a shebang
	}
	for l.i < len(l.src) {
		if n := len(l.tmpl); n > 0 && l.tmpl[n-1] < 0 {
			l.templateText()
			continue
		}
		l.token()
	}
	if len(l.tmpl) > 0 {
		f.add(lexString, l.tmplStart, len(l.src)) // an unterminated template
	}
}

// jsLexer is lexJS's place in a file.
type jsLexer struct {
	f   *codeFile
	src []byte
	i   int // the next byte to read
	// tmpl holds, for each template literal open around the scanner, the
	// depth of braces inside its current ${ } expression, or -1 while in
	// its text.
	tmpl      []int
	tmplStart int // where the outermost open template starts
	// The last lexeme that is not a comment tells a regular expression
	// from a division.
	prevKind lexKind
	prevText []byte
}

// emit records the lexeme src[s:e] (unless it lies inside a template,
// which is one lexeme) and moves on to e.
func (l *jsLexer) emit(k lexKind, s, e int) {
	if len(l.tmpl) == 0 {
		l.f.add(k, s, e)
	}
	if k != lexComment && k != lexDoc {
		l.prevKind, l.prevText = k, l.src[s:e]
	}
	l.i = e
}

// next is the byte after the one being read, or 0 at the end.
func (l *jsLexer) next() byte {
	if l.i+1 < len(l.src) {
		return l.src[l.i+1]
	}
	return 0
}

// token reads the lexeme (or the space) that starts at i, outside a
// template's text: each kind has its scanner.
func (l *jsLexer) token() {
	c := l.src[l.i]
	switch {
	case spaceByte(c):
		l.i++
	case c == '/' && l.next() == '/':
		l.emit(lexComment, l.i, lineEnd(l.src, l.i))
	case c == '/' && l.next() == '*':
		l.blockComment()
	case c == '/' && jsRegexAllowed(l.prevKind, l.prevText):
		l.literal(scanJSRegex(l.src, l.i))
	case c == '\'' || c == '"':
		l.literal(scanJSString(l.src, l.i))
	case c == '`':
		l.templateOpen()
	case identByte(c) || c == '$' || c == '#' && identByte(l.next()):
		l.ident()
	case digitByte(c) || c == '.' && digitByte(l.next()):
		l.number()
	default:
		l.punct()
	}
}

// blockComment reads a /* */ comment, a /** */ doc when it has text.
func (l *jsLexer) blockComment() {
	src, i := l.src, l.i
	e := i + 2
	for e < len(src) && !(src[e] == '*' && e+1 < len(src) && src[e+1] == '/') {
		e++
	}
	e = min(e+2, len(src))
	k := lexComment
	if e-i > 4 && src[i+2] == '*' {
		k = lexDoc
	}
	l.emit(k, i, e)
}

// literal reads a string or regular expression that ends at e, or a lone
// punctuation mark when it does not end (e < 0).
func (l *jsLexer) literal(e int) {
	if e < 0 {
		l.emit(lexPunct, l.i, l.i+1)
		return
	}
	l.emit(lexString, l.i, e)
}

// ident reads a name, a keyword or a #private name.
func (l *jsLexer) ident() {
	e := l.i + 1
	for e < len(l.src) && (identByte(l.src[e]) || digitByte(l.src[e]) || l.src[e] == '$') {
		e++
	}
	l.emit(lexIdent, l.i, e)
}

// number reads a number, its digits, letters and dots.
func (l *jsLexer) number() {
	e := l.i + 1
	for e < len(l.src) && (identByte(l.src[e]) || digitByte(l.src[e]) || l.src[e] == '.') {
		e++
	}
	l.emit(lexNumber, l.i, e)
}

// templateOpen enters a template literal at its backquote.
func (l *jsLexer) templateOpen() {
	if len(l.tmpl) == 0 {
		l.tmplStart = l.i
	}
	if len(l.tmpl) >= 64 { // absurd nesting: read the rest as text
		l.i = len(l.src)
		return
	}
	l.tmpl = append(l.tmpl, -1)
	l.i++
}

// templateText reads a template's text up to its end or the next ${.
func (l *jsLexer) templateText() {
	src, i, n := l.src, l.i, len(l.tmpl)
	switch {
	case src[i] == '\\':
		l.i += 2
	case src[i] == '`':
		l.i++
		l.tmpl = l.tmpl[:n-1]
		if len(l.tmpl) == 0 {
			l.f.add(lexString, l.tmplStart, l.i)
		}
		l.prevKind, l.prevText = lexString, src[i:i+1]
	case src[i] == '$' && l.next() == '{':
		l.tmpl[n-1] = 0
		l.prevKind, l.prevText = lexPunct, src[i+1:i+2]
		l.i += 2
	default:
		l.i++
	}
}

// punct reads an operator or a bracket; a brace inside a template's ${ }
// counts its depth, and the } that closes the ${ } goes back to the text.
func (l *jsLexer) punct() {
	src, i := l.src, l.i
	e := i + 1
	if i+1 < len(src) {
		switch string(src[i : i+2]) {
		case "=>", "?.", "++", "--":
			e = i + 2
		case "..":
			if i+2 < len(src) && src[i+2] == '.' {
				e = i + 3
			}
		}
	}
	if n := len(l.tmpl); n > 0 {
		switch src[i] {
		case '{':
			l.tmpl[n-1]++
		case '}':
			if l.tmpl[n-1] == 0 {
				l.tmpl[n-1] = -1 // back to the template's text
				l.i++
				return
			}
			l.tmpl[n-1]--
		}
	}
	l.emit(lexPunct, i, e)
}

// spaceByte says whether c is white space between lexemes.
func spaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// jsRegexAllowed says whether a / after the given lexeme starts a regular
// expression: after an operator or a keyword that expects an expression,
// not after a value. After < it is a JSX closing tag (</div>).
func jsRegexAllowed(k lexKind, t []byte) bool {
	switch k {
	case 0:
		return true
	case lexPunct:
		switch string(t) {
		case ")", "]", "}", "<", "++", "--":
			return false
		}
		return true
	case lexIdent:
		switch string(t) {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
			"case", "do", "else", "yield", "await":
			return true
		}
	}
	return false
}

// scanJSRegex returns the end of the regular expression at i (flags
// included), or -1 when it does not end on its line.
func scanJSRegex(src []byte, i int) int {
	class := false
	for e := i + 1; e < len(src); e++ {
		switch src[e] {
		case '\\':
			e++
		case '\n':
			return -1
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				e++
				for e < len(src) && (identByte(src[e]) || digitByte(src[e])) {
					e++
				}
				return e
			}
		}
	}
	return -1
}

// scanJSString returns the end of the string at i, or -1 when it does not
// end on its line (a backslash before the line break continues it).
func scanJSString(src []byte, i int) int {
	q := src[i]
	for e := i + 1; e < len(src); e++ {
		switch src[e] {
		case '\\':
			e++
			if e+1 < len(src) && src[e] == '\r' && src[e+1] == '\n' {
				e++
			}
		case '\n':
			return -1
		case q:
			return e + 1
		}
	}
	return -1
}
