package derive

import (
	"html"
	"path"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// purposeWords is how many words the purpose gathers from the README's
// first paragraph before it stops at a sentence's end; purposeMax bounds
// it whatever the sentences.
const (
	purposeWords = 15
	purposeMax   = 60
)

// rootReadme is the README in the root the project's title and purpose
// come from: README.md first, then other spellings (README.rst,
// README.txt, README), then READMEs of a part or in another language
// (README-VIM.md, README.de.md), "" when there is none.
func rootReadme(paths []string) string {
	best, rank := "", 99
	for _, p := range paths {
		if strings.Contains(p, "/") || !isReadme(p) {
			continue
		}
		if r := readmeRank(p); r < rank || r == rank && p < best {
			best, rank = p, r
		}
	}
	return best
}

// readmeRank orders the READMEs of one directory, the one that says what
// it is first: README.md, then other spellings (README.rst, README.txt,
// README), then READMEs of a part or in another language (README-VIM.md,
// README.de.md).
func readmeRank(p string) int {
	base := path.Base(p)
	r := 3
	switch strings.ToLower(path.Ext(base)) {
	case ".md", ".markdown":
		r = 0
	case ".rst":
		r = 1
	case "", ".txt":
		r = 2
	}
	if stem := strings.TrimSuffix(base, path.Ext(base)); !strings.EqualFold(stem, "readme") {
		r += 10 // about a part, or in another language
	}
	return r
}

// readmePurpose is a README's title (its first heading, when it comes
// before the first paragraph of prose) and its purpose: the first
// paragraph of prose — not a row of badges, not HTML, not a GitHub note
// ("> [!TIP]") — cut at the end of the sentence that brings it to
// purposeWords words. A reStructuredText README is read by its own rules.
func readmePurpose(p string, src []byte) (title, purpose string) {
	if strings.EqualFold(path.Ext(p), ".rst") {
		title, purpose = rstPurpose(string(src))
	} else {
		title, purpose = markdownPurpose(src)
	}
	return title, firstSentences(purpose, purposeWords, purposeMax)
}

// readmeHTMLTitle is a title written in HTML anywhere in a README's
// opening block: <h1 align="center">Name</h1>.
var (
	readmeHTMLTitle = regexp.MustCompile(`(?is)<h[12][^>]*>(.*?)</h[12]>`)
	htmlTag         = regexp.MustCompile(`<[^>]*>`)
	// mdShortcutRef is a link by reference, "[WSGI]", whose definition
	// ("[WSGI]: https://…") mdDefuse took out: its label stays.
	mdShortcutRef = regexp.MustCompile(`\[([^\]\[\n!][^\]\[\n]*)\]`)
)

func markdownPurpose(src []byte) (title, purpose string) {
	src = mdDefuse(mdBlankFrontMatter(src))
	pr := mdParsers.Get().(parser.Parser)
	doc := pr.Parse(text.NewReader(src))
	mdParsers.Put(pr)
	var lp leadPicker
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if t := strings.TrimSpace(mdInlineText(h, src)); title == "" && lp.first == nil && h.Level <= 2 && !sectionHeading[strings.ToLower(t)] {
				title = t
			}
			continue
		}
		t, at := proseOf(n, src)
		if hb, ok := n.(*ast.HTMLBlock); ok {
			if m := readmeHTMLTitle.FindStringSubmatch(blockText(hb, src)); title == "" && m != nil {
				title = strings.Join(strings.Fields(htmlTag.ReplaceAllString(m[1], "")), " ")
			}
			if t != "" && t == title {
				title = "" // a tagline (<h2>The Uncompromising Code Formatter</h2>), not a name
			}
		}
		if lp.offer(at, t) {
			break
		}
	}
	_, purpose = lp.lead()
	return title, purpose
}

// proseOf is a block's text when it is prose a README's lead can be, and
// the block its lines are read from: a paragraph of three words or more
// once images, badges and HTML are gone, not a GitHub note and not a row
// of links set apart by bars ("Doc | Wiki | #lf:matrix.org (with IRC
// bridge)", the README's menu); a paragraph written in HTML (<p
// align="center">Promise based HTTP client …</p>); a quote's first
// paragraph ("> Ky is a tiny and elegant HTTP client …"). "" otherwise.
func proseOf(n ast.Node, src []byte) (string, ast.Node) {
	switch n := n.(type) {
	case *ast.HTMLBlock:
		return htmlProse(blockText(n, src)), n
	case *ast.Blockquote:
		if c, ok := n.FirstChild().(*ast.Paragraph); ok {
			return proseOf(c, src)
		}
	case *ast.Paragraph:
		t := mdTidy(mdShortcutRef.ReplaceAllString(mdInlineText(n, src), "$1"))
		if len(strings.Fields(t)) < 3 || strings.HasPrefix(t, "[!") || onlyLinks(n, src) || strings.Count(t, " | ") >= 2 {
			return "", n
		}
		return strings.Join(strings.Fields(t), " "), n
	}
	return "", n
}

// leadPicker chooses a README's lead among its first paragraphs of prose:
// the first, unless one of the next few says what the project is where
// the first does not (a sponsor's plea, a word's etymology). The
// project's purpose and the root module's summary are both its lead.
type leadPicker struct {
	first, pick         ast.Node
	firstText, pickText string
	seen                int
}

// offer reads one block and its prose ("" for none): true once the lead
// is chosen.
func (lp *leadPicker) offer(n ast.Node, t string) bool {
	if t == "" {
		return false
	}
	lp.seen++
	if lp.first == nil {
		lp.first, lp.firstText = n, t
	}
	if m := selfDescription.FindStringSubmatch(t); m != nil && !notASubject[strings.ToLower(m[1])] {
		lp.pick, lp.pickText = n, t
		return true
	}
	return lp.seen >= purposeLook
}

// lead is the chosen paragraph and its text: nil and "" when the README
// has no prose.
func (lp *leadPicker) lead() (ast.Node, string) {
	if lp.pick != nil {
		return lp.pick, lp.pickText
	}
	return lp.first, lp.firstText
}

// sectionHeading are the headings of a README's sections, never the
// project's name ("## About" over what croc is).
var sectionHeading = map[string]bool{"about": true, "overview": true, "introduction": true, "intro": true, "description": true,
	"summary": true, "features": true, "contents": true, "table of contents": true, "installation": true, "install": true,
	"usage": true, "getting started": true, "sponsors": true, "what is it?": true, "what is this?": true}

// purposeLook is how many paragraphs of prose a README's purpose is
// looked for in.
const purposeLook = 4

// selfDescription is a paragraph that says what a thing is: "croc is a
// tool …", "lf (as in "list files") is a terminal file manager", "Werkzeug is a comprehensive WSGI library", "Black is the
// uncompromising …".
var selfDescription = regexp.MustCompile(`^\W*([\pL\d][\pL\d._-]*)\W*(?:\s*\([^)]*\))?\s+(?:is|are)\s+(?:a|an|the|one)\s`)

// notASubject are the words that open "… is a" without naming a thing.
var notASubject = map[string]bool{"there": true, "it": true, "this": true, "that": true, "these": true, "those": true,
	"here": true, "which": true, "what": true, "who": true, "below": true, "above": true}

// blockText is a block's lines as written.
func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// htmlProse is the first paragraph of prose written in HTML
// (<p align="center">A cat(1) clone with …</p>): its text without links,
// tags or entities, three words or more and not an introduction to what
// follows ("Special thanks to:"), outside tables (sponsors' slogans); ""
// when there is none.
func htmlProse(raw string) string {
	raw = htmlTable.ReplaceAllString(htmlComment.ReplaceAllString(raw, ""), "")
	raw = htmlFigure.ReplaceAllString(raw, "") // a caption says what a picture shows
	// A paragraph, else a tagline under the title (<h3>Move fast and
	// break nothing.</h3>).
	for _, re := range []*regexp.Regexp{htmlPara, htmlTagline} {
		for _, m := range re.FindAllStringSubmatch(raw, -1) {
			t := html.UnescapeString(htmlTag.ReplaceAllString(htmlAnchor.ReplaceAllString(m[1], " "), " "))
			// The links' separators stay when the links go ("… Node.js |").
			t = strings.TrimRight(strings.Join(strings.Fields(t), " "), " |·•/-–—")
			if len(strings.Fields(t)) >= 3 && !strings.HasSuffix(t, ":") {
				return t
			}
		}
	}
	return ""
}

var (
	htmlPara    = regexp.MustCompile(`(?is)<p\b[^>]*>(.*?)</p>`)
	htmlAnchor  = regexp.MustCompile(`(?is)<a\b[^>]*>.*?</a>`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	htmlFigure  = regexp.MustCompile(`(?is)<figure\b.*?(?:</figure>|\z)`)
	htmlTagline = regexp.MustCompile(`(?is)<h[23]\b[^>]*>(.*?)</h[23]>`)
	// htmlTable is a table to its end (or the block's): in a README's
	// opening, sponsors' logos and their slogans.
	htmlTable = regexp.MustCompile(`(?is)<table\b.*?(?:</table>|\z)`)
)

// onlyLinks reports a paragraph that is nothing but links (a sponsor's
// "[Available for macOS, Linux & Windows](…)", a row of site links):
// what it says is about somewhere else.
func onlyLinks(n ast.Node, src []byte) bool {
	raw := blockText(n, src)
	if !mdLink.MatchString(raw) {
		return false
	}
	rest := htmlTag.ReplaceAllString(mdLink.ReplaceAllString(mdImage.ReplaceAllString(raw, ""), ""), "")
	return strings.Trim(rest, " \t\n|·•-–—,") == ""
}

// rstRule reports a reStructuredText section adornment of three
// characters or more (rstAdornment reads which character).
func rstRule(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) >= 3 && rstAdornment(l) != 0
}

// rstInline is reStructuredText inline markup: a link `text <url>`_ (its
// text kept), a role :role:`text`, literals “x“, emphasis, references.
var (
	rstLink  = regexp.MustCompile("`([^`<]+?)\\s*<[^>]*>`_{1,2}")
	rstRole  = regexp.MustCompile(":[a-z:+-]+:`([^`]*)`")
	rstMarks = regexp.MustCompile("``|`_{0,2}|\\*\\*|\\|[^|\\s][^|]*\\|_{0,2}")
)

// rstPurpose reads a reStructuredText README: the title is the first
// line with an adornment below it; the purpose is the first paragraph
// that is not a directive (".. image::" and its options), a substitution
// row of badges (|build| |docs|), an indented block or a field list.
func rstPurpose(src string) (title, purpose string) {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var para []string
	inDirective := false
	flush := func() string {
		t := strings.Join(strings.Fields(rstPlain(strings.Join(para, " "))), " ")
		para = para[:0]
		if len(strings.Fields(t)) < 3 {
			return ""
		}
		return t
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		switch {
		case l == "":
			inDirective = false
			if t := flush(); t != "" {
				return title, t
			}
			continue
		case inDirective || l[0] == ' ' || l[0] == '\t':
			continue // a directive's options, a quote or a code block
		case strings.HasPrefix(l, ".. "):
			inDirective = true
			continue
		case rstRule(l):
			continue // an overline, or an underline already read
		}
		if i+1 < len(lines) && rstRule(lines[i+1]) && len(para) == 0 {
			if title == "" {
				title = rstPlain(strings.TrimSpace(l))
			}
			i++
			continue
		}
		if strings.HasPrefix(l, ":") || strings.HasPrefix(l, "|") {
			continue // a field list, a row of substitutions
		}
		para = append(para, l)
	}
	return title, flush()
}

// rstPlain is a reStructuredText line without its inline markup.
func rstPlain(s string) string {
	s = rstLink.ReplaceAllString(s, "$1")
	s = rstRole.ReplaceAllString(s, "$1")
	return rstMarks.ReplaceAllString(s, "")
}

// firstSentences is s up to the end of the sentence that brings it to
// words words, and no more than max words (cut with "…").
func firstSentences(s string, words, max int) string {
	fields := strings.Fields(s)
	n := 0
	for i, w := range fields {
		n++
		if n >= words && sentenceEnd(w) && i+1 < len(fields) {
			fields = fields[:i+1]
			break
		}
	}
	return cutWords(strings.Join(fields, " "), max)
}

// sentenceEnd reports a word that ends a sentence: "apps." but not
// "e.g." or "etc." in the middle of one.
func sentenceEnd(w string) bool {
	w = strings.TrimRight(w, ")\"'’”")
	if w == "" {
		return false
	}
	switch strings.ToLower(w) {
	case "e.g.", "i.e.", "etc.", "vs.", "cf.":
		return false
	}
	last := w[len(w)-1]
	return last == '.' || last == '!' || last == '?'
}
