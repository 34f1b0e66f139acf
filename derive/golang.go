package derive

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

func init() {
	register(language{name: "go", exts: []string{".go"}, extract: extractGo})
}

// extractGo reads a Go file with go/parser (comments kept, no type
// checking): the package doc when the file has one, and every exported
// top-level declaration with its doc comment — functions, methods of
// exported types ("Type.Method"), types, and const or var groups that
// declare an exported name. A test file gives none: its exported names
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
			Doc:       f.Doc.Text(),
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
	return out, err
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

// signature makes a declaration's head one line: spaces collapsed, at
// most maxSignature bytes, so a parameter list written over several
// lines still reads as one.
func signature(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSuffix(s, " {")
	s = strings.TrimSuffix(s, "{")
	if len(s) > maxSignature {
		cut := maxSignature
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.TrimSpace(s)
}

// maxSignature bounds a signature: the head of a declaration, not its body.
const maxSignature = 300

// start is where a declaration's section begins: its doc comment when it
// has one.
func start(doc *ast.CommentGroup, pos token.Pos) token.Pos {
	if doc != nil {
		return doc.Pos()
	}
	return pos
}

func (g goReader) funcSection(d *ast.FuncDecl) (Section, bool) {
	if d.Name == nil || !d.Name.IsExported() {
		return Section{}, false
	}
	s := Section{Kind: KindFunc, Lang: "go", Name: d.Name.Name}
	if d.Recv != nil {
		recv := receiverType(d.Recv)
		if recv == "" || !ast.IsExported(recv) {
			return Section{}, false // a method of an unexported type is not part of the package's surface
		}
		s.Kind, s.Name = KindMethod, recv+"."+d.Name.Name
	}
	end := d.End()
	head := end
	if d.Body != nil {
		head = d.Body.Lbrace
	}
	s.Signature = signature(g.text(d.Pos(), head))
	s.Line, s.EndLine = g.line(start(d.Doc, d.Pos())), g.line(end)
	s.Doc = d.Doc.Text()
	return s, true
}

// receiverType is the name of a method's receiver type, without pointer
// or type parameters.
func receiverType(fl *ast.FieldList) string {
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
			if !ok || ts.Name == nil || !ts.Name.IsExported() {
				continue
			}
			doc, from, to := ts.Doc, ts.Pos(), ts.End()
			if !d.Lparen.IsValid() {
				doc, from, to = d.Doc, d.Pos(), d.End()
			} else if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			kind := KindType
			out = append(out, Section{
				Kind: kind, Lang: "go", Name: ts.Name.Name,
				Signature: signature("type " + firstLine(g.text(ts.Pos(), ts.End()))),
				Line:      g.line(start(doc, from)), EndLine: g.line(to),
				Doc: doc.Text(),
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
		doc.WriteString(d.Doc.Text())
		first := ""
		for _, spec := range d.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			var mine []string
			for _, n := range vs.Names {
				if n != nil && n.IsExported() {
					mine = append(mine, n.Name)
				}
			}
			if len(mine) == 0 {
				continue
			}
			if first == "" {
				first = firstLine(g.text(vs.Pos(), vs.End()))
			}
			names = append(names, mine...)
			c := vs.Doc.Text()
			if c == "" {
				c = vs.Comment.Text()
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
			Kind: kind, Lang: "go", Name: joinNames(names),
			Signature: signature(sig),
			Line:      g.line(start(d.Doc, d.Pos())), EndLine: g.line(d.End()),
			Doc: doc.String(),
		}}
	}
	return nil
}

// joinNames names a group by its names, as many as fit in a short line.
func joinNames(names []string) string {
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
