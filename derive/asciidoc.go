package derive

import (
	"regexp"
	"strings"
)

func init() {
	register(language{name: "asciidoc", exts: []string{".adoc", ".asciidoc", ".asc"}, extract: extractAsciiDoc})
}

// extractAsciiDoc reads an AsciiDoc file: each section title ("= Title",
// "== Section" … "======", or Markdown's "#" form) is a section whose text
// runs to the next title of the same or a higher level, as plain prose —
// attribute entries, comments, attribute lists, block titles' dots and
// inline markup left out, listings kept. A title inside a delimited block
// (a listing, an example, a comment block) is none. Only the structure is
// read: this is no AsciiDoc processor.
func extractAsciiDoc(_ string, src []byte) ([]Section, error) {
	lines := scriptLines(src)
	type title struct {
		name        string
		line, level int
		from        int // the first line of its block attributes ([[anchor]]) above it, else line
	}
	var titles []title
	inBlock := "" // the delimiter of the block the line is in
	for i, l := range lines {
		t := strings.TrimRight(l, " \t")
		if inBlock != "" {
			if t == inBlock {
				inBlock = ""
			}
			continue
		}
		if adocDelimiter(t) {
			inBlock = t
			continue
		}
		if m := adocTitleRe.FindStringSubmatch(t); m != nil && (i == 0 || strings.TrimSpace(lines[i-1]) == "" || adocAttrLine(lines[i-1])) {
			from := i + 1
			for from > 1 && adocAttrLine(lines[from-2]) {
				from--
			}
			titles = append(titles, title{name: adocInline(m[2]), line: i + 1, level: len(m[1]), from: from})
		}
	}
	var out []Section
	for k, t := range titles {
		stop := len(lines)
		for _, next := range titles[k+1:] {
			if next.level <= t.level {
				stop = next.from - 1
				break
			}
		}
		end := stop
		for end > t.line && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		if t.name == "" {
			continue
		}
		out = append(out, Section{Kind: KindHeading, Lang: "asciidoc", Name: t.name, Line: t.line, EndLine: end,
			Doc: adocProse(lines[t.line:stop])})
	}
	return out, nil
}

// adocTitleRe is a section title: one to six "=" (or "#") and a space.
var adocTitleRe = regexp.MustCompile(`^(={1,6}|#{1,6})\s+(\S.*?)(?:\s+=+)?$`)

// adocDelimiter reports a line that opens or closes a delimited block:
// four or more of one of -.=*_+/ (or a Markdown fence).
func adocDelimiter(t string) bool {
	if strings.HasPrefix(t, "```") {
		return true
	}
	if len(t) < 4 || !strings.ContainsRune("-.=*_+/", rune(t[0])) {
		return false
	}
	return strings.Count(t, t[:1]) == len(t)
}

// adocAttrLine reports a block attribute line ([source,go], [[anchor]]).
func adocAttrLine(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]")
}

// adocProse is a section's text as prose.
func adocProse(lines []string) string {
	var b strings.Builder
	comment := false
	for _, l := range lines {
		if b.Len() > 2*DocLimit {
			break
		}
		t := strings.TrimSpace(l)
		if comment {
			comment = t != "////"
			continue
		}
		switch {
		case t == "////":
			comment = true
		case t == "":
			b.WriteByte('\n')
		case strings.HasPrefix(t, "//"), adocAttrLine(t), adocDelimiter(t), adocAttrEntryRe.MatchString(t),
			strings.HasPrefix(t, "include::"), strings.HasPrefix(t, "image::"), strings.HasPrefix(t, "toc::"):
		case adocTitleRe.MatchString(t):
			b.WriteString(adocInline(adocTitleRe.FindStringSubmatch(t)[2]) + "\n")
		case len(t) > 1 && t[0] == '.' && t[1] != '.' && t[1] != ' ':
			b.WriteString(adocInline(t[1:]) + "\n") // a block title
		default:
			b.WriteString(adocInline(t) + "\n")
		}
	}
	return mdTidy(b.String())
}

var (
	adocAttrEntryRe = regexp.MustCompile(`^:!?[\w-]+!?:`)
	// a link or a cross reference with its text: link:url[text], https://x[text], <<id,text>>, xref:id[text]
	adocLinkRe = regexp.MustCompile(`(?:link:|xref:|mailto:|https?://)[^\s\[]*\[([^\]]*)\]|<<[^,>]*,\s*([^>]*)>>|<<([^>]*)>>`)
	adocMarkRe = regexp.MustCompile("\\*\\*|``|[*`#]|\\+\\+\\+|\\{[\\w-]+\\}")
	// emphasis marks at a word's edge (_word_, __word__), not inside one (snake_case)
	adocOpenRe  = regexp.MustCompile(`(^|[^\w])_+(\w)`)
	adocCloseRe = regexp.MustCompile(`(\w)_+([^\w]|$)`)
)

// adocInline is a line of AsciiDoc as plain text.
func adocInline(s string) string {
	s = adocLinkRe.ReplaceAllStringFunc(s, func(m string) string {
		g := adocLinkRe.FindStringSubmatch(m)
		for _, t := range g[1:] {
			if t != "" {
				return t
			}
		}
		return ""
	})
	s = adocMarkRe.ReplaceAllString(s, "")
	s = adocCloseRe.ReplaceAllString(adocOpenRe.ReplaceAllString(s, "$1$2"), "$1$2")
	return strings.Join(strings.Fields(s), " ")
}
