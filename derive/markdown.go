package derive

import (
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

func init() {
	register(language{name: "markdown", exts: []string{".md", ".markdown", ".mdx"}, extract: extractMarkdown})
	readerVersions["markdown"] = 2 // 1: HTML headings; 2: a README's summary is its lead (leadPicker), as the purpose is
}

// mdParsers are goldmark parsers (with GitHub's tables), one per goroutine
// at a time. They leave out what goldmark reads in quadratic time on
// hostile input and a plain text does not need: its link parser (a line
// of "[a](" … without a closing parenthesis took minutes), its emphasis
// (a paragraph of mixed "*a_b*c_d**" … too) and its link reference
// definitions (thousands of "[a]: b" lines). A link's label is taken from
// the text by mdLinkText (RE2, linear), emphasis markers are dropped by
// mdPlain, definitions are blanked by mdDefuse, which also bounds how
// deep block quotes and lists nest on one line (a line of ">" … opened a
// million).
var mdParsers = sync.Pool{New: func() any {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(
			util.Prioritized(parser.NewCodeSpanParser(), 100),
			util.Prioritized(parser.NewAutoLinkParser(), 300),
			util.Prioritized(parser.NewRawHTMLParser(), 400),
		),
		parser.WithParagraphTransformers(util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
}}

// mdMaxNest bounds the block quotes and list items a line opens; deeper
// markers are read as spaces.
const mdMaxNest = 16

// mdDefuse returns src with what goldmark would read slowly taken out,
// byte for byte in place (lines and offsets kept): link reference
// definitions become spaces (they are no text), and a line's block-quote
// markers past mdMaxQuotes become spaces.
func mdDefuse(src []byte) []byte {
	var out []byte
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		line := src[start:end]
		blank := mdRefDef.Match(line)
		nest := 0
		for i := 0; i < len(line) && !blank; i++ {
			c := line[i]
			marker := c == '>' || (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t')
			if marker {
				nest++
				if nest > mdMaxNest {
					if out == nil {
						out = bytes.Clone(src)
					}
					out[start+i] = ' '
				}
				continue
			}
			if c != ' ' && c != '\t' {
				break
			}
		}
		if blank {
			if out == nil {
				out = bytes.Clone(src)
			}
			for i := start; i < end; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		}
		start = end + 1
	}
	if out == nil {
		return src
	}
	return out
}

// mdRefDef is a line that defines a link reference: "[label]: target".
var mdRefDef = regexp.MustCompile(`^ {0,3}(?:> ?)*\[[^\]]{1,999}\]:`)

// mdLinks are inline links and images in text as written (goldmark's own
// link parser is left out): an image goes, a link becomes its label.
var (
	mdImage = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)
	mdLink  = regexp.MustCompile(`\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])`)
)

// mdLinkText turns the links of a text into their labels and drops its
// images (a badge, a linked image, goes whole).
func mdLinkText(s string) string {
	if !strings.Contains(s, "](") && !strings.Contains(s, "][") {
		return s
	}
	s = mdImage.ReplaceAllString(s, "")
	return mdLink.ReplaceAllString(s, "$1")
}

// extractMarkdown reads a Markdown file with goldmark: each top-level
// heading is a section whose text runs to the next heading of the same or
// a higher level (its subsections' text included), as plain text. A
// README also gives its first real paragraph — not a row of badges — as
// a KindPackage section: what its directory's module summary says.
// Front matter (a YAML block between "---" lines at the top) is not text.
func extractMarkdown(p string, src []byte) ([]Section, error) {
	src = mdDefuse(mdBlankFrontMatter(src))
	pr := mdParsers.Get().(parser.Parser)
	doc := pr.Parse(text.NewReader(src))
	mdParsers.Put(pr)
	lines := mdLineStarts(src)

	type heading struct {
		node  ast.Node
		line  int
		level int
		name  string
	}
	var heads []heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch h := n.(type) {
		case *ast.Heading:
			if off, ok := mdFirstOffset(h); ok {
				heads = append(heads, heading{h, mdLineOf(lines, off), h.Level, strings.TrimSpace(mdInlineText(h, src))})
			}
		case *ast.HTMLBlock:
			// A heading written in HTML (<h3 name="config">Does it …?</h3>),
			// as FAQs do to give each question an anchor.
			if level, name, ok := mdHTMLHeading(mdBlockSource(h, src)); ok {
				if off, ok := mdFirstOffset(h); ok {
					heads = append(heads, heading{h, mdLineOf(lines, off), level, name})
				}
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
		name := h.name
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
			Doc: mdTidy(mdLinkText(b.String())),
		})
	}
	return out, nil
}

// mdHTMLHeadingRe is an HTML block that opens with a heading element:
// its level and what it holds, up to its closing tag.
var mdHTMLHeadingRe = regexp.MustCompile(`(?is)^\s*<h([1-6])(?:\s[^>]*)?>(.*?)</h([1-6])\s*>`)

// mdTagRe is an HTML tag or comment, left out of a heading's text.
var mdTagRe = regexp.MustCompile(`(?s)<!--.*?-->|<[^>]*>`)

// mdHTMLHeading reads an HTML block that is a heading: <h2>Title</h2>,
// <h3 name="x">\nTitle\n</h3>, its text without the tags inside it (an
// <a name> anchor) and with entities for <, >, & and quotes read.
func mdHTMLHeading(block []byte) (level int, name string, ok bool) {
	m := mdHTMLHeadingRe.FindSubmatch(block)
	if m == nil || m[1][0] != m[3][0] {
		return 0, "", false
	}
	t := mdTagRe.ReplaceAllString(string(m[2]), " ")
	t = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ").Replace(t)
	t = strings.Join(strings.Fields(t), " ")
	return int(m[1][0] - '0'), t, t != ""
}

// mdBlockSource is a block's lines as written.
func mdBlockSource(n ast.Node, src []byte) []byte {
	var b []byte
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b = append(b, seg.Value(src)...)
	}
	return b
}

// isReadme reports a README.md, readme.markdown …
func isReadme(p string) bool {
	return strings.HasPrefix(strings.ToLower(path.Base(p)), "readme")
}

// readmeSummary is a README's lead (leadPicker: its first paragraph of
// prose, or the one a little further that says what the project is), so
// a row of badges, a logo or a menu of links is passed over; a paragraph
// written in HTML or quoted counts. The section is named by the
// document's first-level title, else its directory.
func readmeSummary(p string, doc ast.Node, src []byte, lines []int) (Section, bool) {
	langTitle := ""
	var lp leadPicker
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if langTitle == "" && lp.first == nil && h.Level == 1 {
				langTitle = strings.TrimSpace(mdInlineText(h, src))
			}
			continue
		}
		t, at := proseOf(n, src)
		if _, ok := mdFirstOffset(at); !ok {
			continue
		}
		if lp.offer(at, t) {
			break
		}
	}
	n, t := lp.lead()
	if n == nil {
		return Section{}, false
	}
	off, _ := mdFirstOffset(n)
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
	return mdLinkText(b.String())
}

func mdWriteInline(n ast.Node, src []byte, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(mdPlain(c.Segment.Value(src)))
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

// mdPlain is a text without its emphasis markers: a run of up to three
// "*" or "_", or "~~", goes unless spaces stand on both sides of it
// ("5 * 3") or, for "_", letters or digits do (snake_case). One pass.
func mdPlain(t []byte) []byte {
	if !bytes.ContainsAny(t, "*_~") {
		return t
	}
	out := make([]byte, 0, len(t))
	for i := 0; i < len(t); {
		c := t[i]
		if c != '*' && c != '_' && c != '~' {
			out = append(out, c)
			i++
			continue
		}
		j := i
		for j < len(t) && t[j] == c {
			j++
		}
		var before, after byte = ' ', ' '
		if i > 0 {
			before = t[i-1]
		}
		if j < len(t) {
			after = t[j]
		}
		keep := j-i > 3 || c == '~' && j-i != 2 ||
			mdSpace(before) && mdSpace(after) ||
			c == '_' && mdWordByte(before) && mdWordByte(after)
		if keep {
			out = append(out, t[i:j]...)
		}
		i = j
	}
	return out
}

func mdSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func mdWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
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
