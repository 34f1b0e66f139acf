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
	for i := 0; i < len(f.lex); {
		if k := f.lex[i].kind; k == lexComment || k == lexDoc {
			i++
			continue
		}
		n := r.statement(i, len(f.lex), &out)
		i = max(n, i+1) // every statement moves on, whatever the bytes
	}
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

// statement reads the statement starting at lexeme i (before hi) and
// returns the index after it.
func (r *jsReader) statement(i, hi int, out *[]Section) int {
	f := r.f
	start := r.skipDecorators(i, hi)
	k := start
	for k < hi && jsModifier(f, k) {
		k++
	}
	if k >= hi {
		return hi
	}
	t := ""
	if f.kind(k) == lexIdent {
		t = f.text(k)
	}
	d, next := r.declaration(t, i, k, hi)
	if next >= 0 {
		return next
	}
	if d.end < k {
		d.end = k
	}
	first, doc := r.docAbove(i)
	sig := ""
	if d.sigEnd < 0 {
		sig = f.firstLineOf(start, d.end)
	} else {
		sig = f.joined(start, d.sigEnd)
	}
	if r.ns != "" {
		d.name = r.ns + "." + d.name // a declaration of a namespace
	}
	*out = append(*out, f.section(d.kind, d.name, sig, doc, first, d.end))
	r.inside(d, t, out)
	return d.end + 1
}

// jsDecl is what a statement declares: its kind and name, its body's
// opening brace (-1: none), its last lexeme, and where its signature
// stops (the body's brace, the semicolon; -1 takes the first line, for
// values).
type jsDecl struct {
	kind              Kind
	name              string
	body, end, sigEnd int
}

func newJSDecl(kind Kind) jsDecl {
	return jsDecl{kind: kind, name: "default", body: -1, end: -1, sigEnd: -1}
}

// declaration reads what the statement at i declares, its keyword t at
// lexeme k; next >= 0 is the index after a statement that declares
// nothing kept (then d is nothing).
func (r *jsReader) declaration(t string, i, k, hi int) (d jsDecl, next int) {
	f := r.f
	switch {
	case t == "function":
		return r.functionDecl(k, hi), -1
	case jsTypeDecl(f, t, k):
		return r.typeDecl(t, k, hi), -1
	case t == "const" && f.is(k+1, "enum") && f.kind(k+2) == lexIdent:
		d = r.bodied(newJSDecl(KindType), k+2, hi)
		d.name = f.text(k + 2)
		return d, -1
	case t == "type" && f.kind(k+1) == lexIdent && (f.is(k+2, "=") || f.is(k+2, "<")):
		d = newJSDecl(KindType)
		d.name, d.end = f.text(k+1), r.stmtEnd(k, hi)
		return d, -1
	case (t == "namespace" || t == "module") && (f.kind(k+1) == lexIdent || f.kind(k+1) == lexString):
		return r.namespaceDecl(i, k, hi)
	case (t == "const" || t == "let" || t == "var") && f.kind(k+1) == lexIdent:
		d = newJSDecl("")
		d.name, d.end = f.text(k+1), r.stmtEnd(k, hi)
		if d.kind, d.sigEnd = r.valueKind(k+2, d.end+1, t); d.kind == "" {
			return d, d.end + 1
		}
		return d, -1
	case (t == "exports" || t == "module" && f.is(k+1, ".") && f.is(k+2, "exports")) && f.is(k+1, "."):
		return r.exportsDecl(t, i, k, hi)
	case jsPrototypeMethod(f, k):
		// A method given to a constructor's prototype: Reply.prototype.send = function …
		d = newJSDecl("")
		d.end = r.stmtEnd(k, hi)
		if d.kind, d.sigEnd = r.valueKind(k+5, d.end+1, ""); d.kind != KindFunc {
			return d, d.end + 1
		}
		d.kind, d.name = KindMethod, t+"."+f.text(k+4)
		return d, -1
	}
	return jsDecl{}, r.stmtEnd(i, hi) + 1
}

// bodied is d with the body that follows lexeme n and the signature
// that stops before it.
func (r *jsReader) bodied(d jsDecl, n, hi int) jsDecl {
	d.body, d.end = r.declBody(n, hi)
	d.sigEnd = bodyOrEnd(r.f, d.body, d.end)
	return d
}

// functionDecl is function NAME (or function* NAME) at k.
func (r *jsReader) functionDecl(k, hi int) jsDecl {
	f := r.f
	n := k + 1
	if f.is(n, "*") {
		n++
	}
	d := newJSDecl(KindFunc)
	if f.kind(n) == lexIdent {
		d.name = f.text(n)
	}
	return r.bodied(d, n, hi)
}

// jsTypeDecl reports a class (named or not), an interface or an enum at k.
func jsTypeDecl(f *codeFile, t string, k int) bool {
	return t == "class" && (f.kind(k+1) == lexIdent || f.is(k+1, "{")) ||
		(t == "interface" || t == "enum") && f.kind(k+1) == lexIdent
}

// typeDecl is the class, interface or enum t at k.
func (r *jsReader) typeDecl(t string, k, hi int) jsDecl {
	f := r.f
	d := newJSDecl(KindType)
	if t == "class" {
		d.kind = KindClass
	}
	if f.kind(k+1) == lexIdent && !f.is(k+1, "extends") && !f.is(k+1, "implements") {
		d.name = f.text(k + 1)
	}
	return r.bodied(d, k+1, hi)
}

// namespaceDecl is namespace A.B.C { … } (or module "name" { … }) at k;
// one without a body declares nothing kept.
func (r *jsReader) namespaceDecl(i, k, hi int) (jsDecl, int) {
	f := r.f
	n := k + 1
	for f.is(n+1, ".") && f.kind(n+2) == lexIdent {
		n += 2
	}
	if !f.is(n+1, "{") {
		return jsDecl{}, r.stmtEnd(i, hi) + 1
	}
	d := newJSDecl(KindType)
	d.name = strings.Trim(f.joined(k+1, n+1), `"'`)
	d.body, d.end, d.sigEnd = n+1, f.partner[n+1], n+1
	return d, -1
}

// exportsDecl is CommonJS's exports.name = function … (or
// module.exports.name = …) at k: a function or a class, else nothing kept.
func (r *jsReader) exportsDecl(t string, i, k, hi int) (jsDecl, int) {
	f := r.f
	n := k + 2
	if t == "module" {
		n = k + 4
	}
	if f.kind(n) != lexIdent || !f.is(n-1, ".") || !f.is(n+1, "=") {
		return jsDecl{}, r.stmtEnd(i, hi) + 1
	}
	d := newJSDecl("")
	d.name, d.end = f.text(n), r.stmtEnd(k, hi)
	if d.kind, d.sigEnd = r.valueKind(n+1, d.end+1, ""); d.kind != KindFunc && d.kind != KindClass {
		return d, d.end + 1
	}
	return d, -1
}

// jsPrototypeMethod reports NAME.prototype.METHOD = at k.
func jsPrototypeMethod(f *codeFile, k int) bool {
	return f.kind(k) == lexIdent && f.is(k+1, ".") && f.is(k+2, "prototype") && f.is(k+3, ".") &&
		f.kind(k+4) == lexIdent && f.is(k+5, "=")
}

// inside reads what a declaration's body holds: a class's or an
// interface's members, a namespace's statements.
func (r *jsReader) inside(d jsDecl, t string, out *[]Section) {
	f := r.f
	switch {
	case d.body < 0:
	case d.kind == KindClass:
		r.members(d.body, f.partner[d.body], d.name, false, out)
	case t == "interface":
		r.members(d.body, f.partner[d.body], d.name, true, out)
	case t == "namespace" || t == "module":
		outer := r.ns
		r.ns = d.name
		for j := d.body + 1; j < f.partner[d.body]; {
			if k := f.lex[j].kind; k == lexComment || k == lexDoc {
				j++
				continue
			}
			j = max(r.statement(j, f.partner[d.body], out), j+1)
		}
		r.ns = outer
	}
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
	x := &jsLexer{f: f, src: f.src}
	i := f.begin
	if i+1 < len(x.src) && x.src[i] == '#' && x.src[i+1] == '!' {
		i = lineEnd(x.src, i) // a shebang
	}
	for i < len(x.src) {
		if n := len(x.tmpl); n > 0 && x.tmpl[n-1] < 0 {
			i = x.templateText(i)
			continue
		}
		i = x.token(i)
	}
	if len(x.tmpl) > 0 {
		f.add(lexString, x.tmplStart, len(x.src)) // an unterminated template
	}
}

// jsLexer is the state of lexJS: the template literals open around the
// scanner and the last lexeme that is not a comment.
type jsLexer struct {
	f   *codeFile
	src []byte
	// tmpl holds, for each template literal open around the scanner, the
	// depth of braces inside its current ${ } expression, or -1 while in
	// its text.
	tmpl      []int
	tmplStart int
	// The last lexeme that is not a comment tells a regular expression
	// from a division.
	prevKind lexKind
	prevText []byte
}

// emit adds a lexeme (none inside a template: the template is one) and
// remembers it as the last unless it is a comment.
func (x *jsLexer) emit(k lexKind, s, e int) {
	if len(x.tmpl) == 0 {
		x.f.add(k, s, e)
	}
	if k != lexComment && k != lexDoc {
		x.prevKind, x.prevText = k, x.src[s:e]
	}
}

// templateText reads one step of a template's text at i: an escape, the
// closing backquote, the start of a ${ } expression, or a character.
func (x *jsLexer) templateText(i int) int {
	src, n := x.src, len(x.tmpl)
	switch {
	case src[i] == '\\':
		return i + 2
	case src[i] == '`':
		i++
		x.tmpl = x.tmpl[:n-1]
		if len(x.tmpl) == 0 {
			x.f.add(lexString, x.tmplStart, i)
		}
		x.prevKind, x.prevText = lexString, src[i-1:i]
		return i
	case src[i] == '$' && i+1 < len(src) && src[i+1] == '{':
		x.tmpl[n-1] = 0
		x.prevKind, x.prevText = lexPunct, src[i+1:i+2]
		return i + 2
	}
	return i + 1
}

// token reads the lexeme (or the blank) at i and returns where it ends.
func (x *jsLexer) token(i int) int {
	src := x.src
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		return i + 1
	case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
		return x.comment(i)
	case c == '/' && jsRegexAllowed(x.prevKind, x.prevText):
		return x.quoted(i, scanJSRegex(src, i))
	case c == '\'' || c == '"':
		return x.quoted(i, scanJSString(src, i))
	case c == '`':
		if len(x.tmpl) == 0 {
			x.tmplStart = i
		}
		if len(x.tmpl) >= 64 { // absurd nesting: read the rest as text
			return len(src)
		}
		x.tmpl = append(x.tmpl, -1)
		return i + 1
	case identByte(c) || c == '$' || c == '#' && i+1 < len(src) && identByte(src[i+1]):
		e := i + 1
		for e < len(src) && (identByte(src[e]) || digitByte(src[e]) || src[e] == '$') {
			e++
		}
		x.emit(lexIdent, i, e)
		return e
	case digitByte(c) || c == '.' && i+1 < len(src) && digitByte(src[i+1]):
		e := i + 1
		for e < len(src) && (identByte(src[e]) || digitByte(src[e]) || src[e] == '.') {
			e++
		}
		x.emit(lexNumber, i, e)
		return e
	}
	return x.punct(i)
}

// comment reads a // or /* */ comment at i; a /** */ one is a doc.
func (x *jsLexer) comment(i int) int {
	src := x.src
	if src[i+1] == '/' {
		e := lineEnd(src, i)
		x.emit(lexComment, i, e)
		return e
	}
	e := i + 2
	for e < len(src) && !(src[e] == '*' && e+1 < len(src) && src[e+1] == '/') {
		e++
	}
	e = min(e+2, len(src))
	k := lexComment
	if e-i > 4 && src[i+2] == '*' {
		k = lexDoc
	}
	x.emit(k, i, e)
	return e
}

// quoted emits the string or regular expression from i to e, or, when it
// found no end (e < 0), the opening mark alone as punctuation.
func (x *jsLexer) quoted(i, e int) int {
	if e < 0 {
		x.emit(lexPunct, i, i+1)
		return i + 1
	}
	x.emit(lexString, i, e)
	return e
}

// punct reads punctuation at i (=>, ?., ++, --, ... as one), keeping the
// braces of a template's ${ } expression counted: its closing brace goes
// back to the template's text.
func (x *jsLexer) punct(i int) int {
	src, c := x.src, x.src[i]
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
	if n := len(x.tmpl); n > 0 {
		switch c {
		case '{':
			x.tmpl[n-1]++
		case '}':
			if x.tmpl[n-1] == 0 {
				x.tmpl[n-1] = -1 // back to the template's text
				return i + 1
			}
			x.tmpl[n-1]--
		}
	}
	x.emit(lexPunct, i, e)
	return e
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
