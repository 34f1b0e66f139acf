package derive

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

func init() {
	register(language{name: "go", exts: []string{".go"}, extract: extractGo})
	readerVersions["go"] = 2 // 1: unexported functions, methods and types; 2: unexported constants and variables, no build constraint as a doc
}

// extractGo reads a Go file with go/parser (comments kept, no type
// checking): the package doc when the file has one, every function and
// method, exported or not ("Type.Method"; an unexported one is found by
// the words of its name, eventLoop, though the package's surface is what
// is exported), every type (its doc followed by its exported fields or
// methods, with their comments), and const or var groups that declare an
// exported name. A test file gives none: its exported names
// are the test runner's, not the package's. A file that does not parse
// gives what the parser recovered, and the error.
func extractGo(p string, src []byte) ([]Section, error) {
	if strings.HasSuffix(p, "_test.go") {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return nil, err
	}
	g := goReader{fset: fset, src: src}
	var out []Section
	if f.Doc != nil && f.Name != nil {
		out = append(out, Section{
			Kind: KindPackage, Lang: "go", Name: f.Name.Name,
			Line: g.line(f.Doc.Pos()), EndLine: g.line(f.Name.End()),
			Signature: "package " + f.Name.Name,
			Doc:       goDocText(f.Doc),
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if s, ok := g.funcSection(d); ok {
				out = append(out, s)
			}
		case *ast.GenDecl:
			out = append(out, g.genSections(d)...)
		}
	}
	return goSettle(out), err
}

// goSettle drops sections the parser could not place and ends a section no
// earlier than it starts (a declaration cut off by a syntax error has no
// end of its own).
func goSettle(secs []Section) []Section {
	out := secs[:0]
	for _, s := range secs {
		if s.Line < 1 {
			continue
		}
		if s.EndLine < s.Line {
			s.EndLine = s.Line
		}
		out = append(out, s)
	}
	return out
}

type goReader struct {
	fset *token.FileSet
	src  []byte
}

// line is the 1-based line of pos, 0 when pos is not in the file.
func (g goReader) line(pos token.Pos) int {
	if !pos.IsValid() {
		return 0
	}
	return g.fset.Position(pos).Line
}

// text is the source between two positions, "" when they do not lie in
// the file (a parser's recovered node may have none).
func (g goReader) text(from, to token.Pos) string {
	if !from.IsValid() || !to.IsValid() {
		return ""
	}
	a, b := g.fset.Position(from).Offset, g.fset.Position(to).Offset
	if a < 0 || b > len(g.src) || a > b {
		return ""
	}
	return string(g.src[a:b])
}

// restOfLine is the source from pos to the end of its line.
func (g goReader) restOfLine(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	a := g.fset.Position(pos).Offset
	if a < 0 || a > len(g.src) {
		return ""
	}
	rest := g.src[a:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i] // not a copy of the rest of the file for each declaration
	}
	return string(rest)
}

// goSignature makes a declaration's head one line: spaces collapsed, at
// most goMaxSignature bytes, so a parameter list written over several
// lines still reads as one.
func goSignature(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSuffix(s, " {")
	s = strings.TrimSuffix(s, "{")
	if len(s) > goMaxSignature {
		cut := goMaxSignature
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.TrimSpace(s)
}

// goMaxSignature bounds a signature: the head of a declaration, not its body.
const goMaxSignature = 300

// goDocStart is where a declaration's section begins: its doc comment when it
// has one.
func goDocStart(doc *ast.CommentGroup, pos token.Pos) token.Pos {
	if doc != nil {
		return doc.Pos()
	}
	return pos
}

func (g goReader) funcSection(d *ast.FuncDecl) (Section, bool) {
	if d.Name == nil || d.Name.Name == "_" {
		return Section{}, false
	}
	s := Section{Kind: KindFunc, Lang: "go", Name: d.Name.Name}
	if d.Recv != nil {
		recv := goReceiverType(d.Recv)
		if recv == "" {
			return Section{}, false
		}
		s.Kind, s.Name = KindMethod, recv+"."+d.Name.Name
	}
	end := d.End()
	head := end
	if d.Body != nil {
		head = d.Body.Lbrace
	}
	sig := g.text(d.Pos(), head)
	if sig == "" {
		sig = g.restOfLine(d.Pos()) // a head cut off by a syntax error
	}
	s.Signature = goSignature(sig)
	s.Line, s.EndLine = g.line(goDocStart(d.Doc, d.Pos())), g.line(end)
	s.Doc = goDocText(d.Doc)
	return s, true
}

// goReceiverType is the name of a method's receiver type, without pointer
// or type parameters.
func goReceiverType(fl *ast.FieldList) string {
	if len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// genSections reads a type, const or var declaration. Each exported type
// is a section of its own; a const or var declaration (a group in
// parentheses or a single spec) with exported names is one section
// named by them, its doc the group's comment followed by each exported
// name's own comment.
func (g goReader) genSections(d *ast.GenDecl) []Section {
	switch d.Tok {
	case token.TYPE:
		var out []Section
		for _, spec := range d.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || ts.Name == nil || ts.Name.Name == "_" {
				continue
			}
			doc, from, to := ts.Doc, ts.Pos(), ts.End()
			if !d.Lparen.IsValid() {
				doc, from, to = d.Doc, d.Pos(), d.End()
			} else if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			out = append(out, Section{
				Kind: KindType, Lang: "go", Name: ts.Name.Name,
				Signature: goSignature("type " + goFirstLine(g.text(ts.Pos(), ts.End()))),
				Line:      g.line(goDocStart(doc, from)), EndLine: g.line(to),
				Doc: goDocText(doc) + goMembers(ts.Type),
			})
		}
		return out
	case token.CONST, token.VAR:
		kind := KindConst
		if d.Tok == token.VAR {
			kind = KindVar
		}
		var names []string
		var doc strings.Builder
		doc.WriteString(goDocText(d.Doc))
		first := ""
		for _, spec := range d.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			var mine []string
			for _, n := range vs.Names {
				if n != nil && n.Name != "_" {
					mine = append(mine, n.Name) // unexported too: a default path, a port, a timeout
				}
			}
			if len(mine) == 0 {
				continue
			}
			if first == "" {
				first = goFirstLine(g.text(vs.Pos(), vs.End()))
			}
			names = append(names, mine...)
			c := goDocText(vs.Doc)
			if c == "" {
				c = goDocText(vs.Comment)
			}
			if c = strings.TrimSpace(c); c != "" && d.Lparen.IsValid() {
				doc.WriteString("\n" + strings.Join(mine, ", ") + ": " + c)
			}
		}
		if len(names) == 0 {
			return nil
		}
		sig := d.Tok.String() + " " + first
		if len(names) > 1 || len(d.Specs) > 1 {
			sig += " …"
		}
		return []Section{{
			Kind: kind, Lang: "go", Name: goJoinNames(names),
			Signature: goSignature(sig),
			Line:      g.line(goDocStart(d.Doc, d.Pos())), EndLine: g.line(d.End()),
			Doc: strings.TrimSpace(doc.String()),
		}}
	}
	return nil
}

// goMembers lists a struct's exported fields or an interface's methods
// with their comments, one a line after the type's doc: where a setting
// or an operation is declared is often what a person looks for
// ("RetryPolicy: how a failed request is retried").
func goMembers(t ast.Expr) string {
	var fl *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fl = t.Fields
	case *ast.InterfaceType:
		fl = t.Methods
	}
	if fl == nil {
		return ""
	}
	var b strings.Builder
	for _, f := range fl.List {
		var names []string
		for _, n := range f.Names {
			if n != nil && n.IsExported() {
				names = append(names, n.Name)
			}
		}
		if len(f.Names) == 0 { // an embedded type
			if id := goEmbeddedName(f.Type); id != "" && ast.IsExported(id) {
				names = append(names, id)
			}
		}
		if len(names) == 0 {
			continue
		}
		b.WriteString("\n" + strings.Join(names, ", "))
		c := goDocText(f.Doc)
		if c == "" {
			c = goDocText(f.Comment)
		}
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			b.WriteString(": " + c)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

// goEmbeddedName is the type name of an embedded field (*pkg.T → T).
func goEmbeddedName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// goJoinNames names a group by its names, as many as fit in a short line.
func goJoinNames(names []string) string {
	const max = 120
	s := ""
	for i, n := range names {
		next := n
		if i > 0 {
			next = ", " + n
		}
		if len(s)+len(next) > max {
			return s + ", …"
		}
		s += next
	}
	return s
}

func goFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// goDocText is a comment's text without its markers. go/ast's Text slices
// a block comment as if it were closed, and panics on a file that ends
// inside one ("/*" with no "*/"): such a comment is closed first.
func goDocText(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	safe := cg
	for i, c := range cg.List {
		if strings.HasPrefix(c.Text, "/*") && (len(c.Text) < 4 || !strings.HasSuffix(c.Text, "*/")) {
			if safe == cg {
				safe = &ast.CommentGroup{List: append([]*ast.Comment(nil), cg.List...)}
			}
			safe.List[i] = &ast.Comment{Slash: c.Slash, Text: c.Text + "*/"}
		}
	}
	return strings.TrimSpace(safe.Text())
}
