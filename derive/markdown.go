package derive

import (
	"bytes"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

func init() {
	register(language{name: "markdown", exts: []string{".md", ".markdown", ".mdx"}, extract: extractMarkdown})
}

// mdParsers are goldmark parsers (with GitHub's tables and strikethrough),
// one per goroutine at a time.
var mdParsers = sync.Pool{New: func() any {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
}}

// extractMarkdown reads a Markdown file with goldmark: each top-level
// heading is a section whose text runs to the next heading of the same or
// a higher level (its subsections' text included), as plain text. A
// README also gives its first real paragraph — not a row of badges — as
// a KindPackage section: what its directory's module summary says.
// Front matter (a YAML block between "---" lines at the top) is not text.
func extractMarkdown(p string, src []byte) ([]Section, error) {
	src = mdBlankFrontMatter(src)
	pr := mdParsers.Get().(parser.Parser)
	doc := pr.Parse(text.NewReader(src))
	mdParsers.Put(pr)
	lines := mdLineStarts(src)

	type heading struct {
		node  *ast.Heading
		line  int
		level int
	}
	var heads []heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if off, ok := mdFirstOffset(h); ok {
				heads = append(heads, heading{h, mdLineOf(lines, off), h.Level})
			}
		}
	}
	lastLine := len(lines)
	if len(src) > 0 && src[len(src)-1] == '\n' {
		lastLine-- // the "line" after the final newline is empty
	}

	var out []Section
	if isReadme(p) {
		if s, ok := readmeSummary(p, doc, src, lines); ok {
			out = append(out, s)
		}
	}
	for i, h := range heads {
		name := strings.TrimSpace(mdInlineText(h.node, src))
		if name == "" {
			continue
		}
		// The section ends before the next heading of the same or a higher level.
		var stop ast.Node
		end := lastLine
		for _, next := range heads[i+1:] {
			if next.level <= h.level {
				stop, end = next.node, next.line-1
				break
			}
		}
		end = mdTrimBlankLines(src, lines, h.line, end)
		var b strings.Builder
		for n := h.node.NextSibling(); n != nil && n != stop; n = n.NextSibling() {
			mdBlockText(n, src, &b)
			if b.Len() > 2*DocLimit {
				break // enough to fill the doc; the rest would be cut
			}
		}
		out = append(out, Section{
			Kind: KindHeading, Lang: "markdown", Name: name,
			Line: h.line, EndLine: end,
			Doc: mdTidy(b.String()),
		})
	}
	return out, nil
}

// isReadme reports a README.md, readme.markdown …
func isReadme(p string) bool {
	return strings.HasPrefix(strings.ToLower(path.Base(p)), "readme")
}

// readmeSummary is a README's first paragraph of prose: at least three
// words once links' targets, images and HTML are left out, so a row of
// badges or a logo is passed over. The section is named by the
// document's first-level title, else its directory.
func readmeSummary(p string, doc ast.Node, src []byte, lines []int) (Section, bool) {
	langTitle := ""
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			if langTitle == "" && n.Level == 1 {
				langTitle = strings.TrimSpace(mdInlineText(n, src))
			}
		case *ast.Paragraph:
			t := mdTidy(mdInlineText(n, src))
			if len(strings.Fields(t)) < 3 {
				continue
			}
			off, ok := mdFirstOffset(n)
			if !ok {
				continue
			}
			if langTitle == "" {
				langTitle = path.Base(path.Dir(p))
				if langTitle == "." || langTitle == "/" {
					langTitle = "README"
				}
			}
			last := n.Lines().At(n.Lines().Len() - 1)
			return Section{
				Kind: KindPackage, Lang: "markdown", Name: langTitle,
				Line: mdLineOf(lines, off), EndLine: mdLineOf(lines, max(last.Stop-1, off)),
				Doc: t,
			}, true
		}
	}
	return Section{}, false
}

// mdFirstOffset is where a block's first line begins in the source.
func mdFirstOffset(n ast.Node) (int, bool) {
	if n.Type() != ast.TypeBlock {
		return 0, false
	}
	ls := n.Lines()
	if ls == nil || ls.Len() == 0 {
		return 0, false
	}
	return ls.At(0).Start, true
}

// mdInlineText is the plain text of a block's inline content: text, code
// spans, link labels; not images, not raw HTML.
func mdInlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	mdWriteInline(n, src, &b)
	return b.String()
}

func mdWriteInline(n ast.Node, src []byte, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			switch {
			case c.HardLineBreak():
				b.WriteByte('\n')
			case c.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.RawHTML, *ast.Image:
		default:
			mdWriteInline(c, src, b)
		}
	}
}

// mdBlockText writes a block as plain text: a line per paragraph, list
// item, table row or code line; HTML and rules left out.
func mdBlockText(n ast.Node, src []byte, b *strings.Builder) {
	switch n := n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		ls := n.Lines()
		for i := 0; i < ls.Len(); i++ {
			seg := ls.At(i)
			b.Write(seg.Value(src))
		}
		b.WriteByte('\n')
		return
	case *ast.HTMLBlock, *ast.ThematicBreak:
		return
	}
	if n.Kind() == east.KindTableHeader || n.Kind() == east.KindTableRow {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c != n.FirstChild() {
				b.WriteByte(' ')
			}
			mdWriteInline(c, src, b)
		}
		b.WriteByte('\n')
		return
	}
	if c := n.FirstChild(); c != nil && c.Type() == ast.TypeInline {
		mdWriteInline(n, src, b)
		b.WriteByte('\n')
		if n.Kind() == ast.KindParagraph {
			b.WriteByte('\n') // a blank line ends a paragraph
		}
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		mdBlockText(c, src, b)
	}
}

// mdTidy trims every line's ends and keeps at most one blank line in a row.
func mdTidy(s string) string {
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}

// mdLineStarts are the offsets where each line of src begins.
func mdLineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// mdLineOf is the 1-based line that holds offset off.
func mdLineOf(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// mdTrimBlankLines moves end back over blank lines, not before from.
func mdTrimBlankLines(src []byte, starts []int, from, end int) int {
	for end > from {
		a := starts[end-1]
		b := len(src)
		if end < len(starts) {
			b = starts[end]
		}
		if len(bytes.TrimSpace(src[a:b])) > 0 {
			break
		}
		end--
	}
	return end
}

// mdBlankFrontMatter turns a leading "---" … "---" block into spaces (lines
// kept, so line numbers hold); goldmark would read it as a rule and a
// heading.
func mdBlankFrontMatter(src []byte) []byte {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return src
	}
	rest := src[3:]
	end := -1
	for _, closer := range []string{"\n---\n", "\n---\r\n", "\n...\n"} {
		if i := bytes.Index(rest, []byte(closer)); i >= 0 && (end < 0 || i < end) {
			end = i + len(closer)
		}
	}
	if end < 0 {
		if bytes.HasSuffix(rest, []byte("\n---")) {
			end = len(rest)
		} else {
			return src
		}
	}
	out := bytes.Clone(src)
	for i := 0; i < 3+end; i++ {
		if out[i] != '\n' && out[i] != '\r' {
			out[i] = ' '
		}
	}
	return out
}
