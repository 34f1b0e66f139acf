package derive

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

func init() {
	register(language{name: "rst", exts: []string{".rst", ".rest"}, extract: extractRST})
}

// extractRST reads a reStructuredText file: each section title is a
// section whose text runs to the next title of the same or a higher level
// (its subsections' included), as plain prose — directives' arguments
// and options, comments and markup left out, code kept. A title is a line
// of text under a blank line (or the file's start), underlined — and
// perhaps overlined — with one punctuation character repeated, at least
// as long as the text or four long; its level is the order in which its
// adornment style (character, overlined or not) first appears, as
// docutils reads it. Only the structure is read: this is no RST parser.
func extractRST(_ string, src []byte) ([]Section, error) {
	lines := scriptLines(src)
	type title struct {
		name        string
		line, level int // line 1-based, of the overline when there is one
		body        int // the 0-based index of the first line after the title
	}
	var titles []title
	var styles []string
	blank := func(i int) bool { return i < 0 || strings.TrimSpace(lines[i]) == "" }
	for i := 0; i+1 < len(lines); i++ {
		text := lines[i]
		if blank(i) || !blank(i-1) && !(i > 0 && rstAdornment(lines[i-1]) != 0 && blank(i-2)) {
			continue
		}
		under := rstAdornment(lines[i+1])
		if under == 0 || rstAdornment(text) != 0 {
			continue
		}
		over := i > 0 && rstAdornment(lines[i-1]) == under && blank(i-2)
		name := strings.TrimSpace(text)
		width := utf8.RuneCountInString(strings.TrimRight(text, " \t"))
		ulen := len(strings.TrimRight(lines[i+1], " \t"))
		if !over && (text[0] == ' ' || text[0] == '\t') {
			continue // an indented line is a block quote's, not a title
		}
		if ulen < width && ulen < 4 {
			continue
		}
		style := string(under)
		first := i + 1
		if over {
			style = "over" + style
			first = i
		}
		level := 0
		for j, s := range styles {
			if s == style {
				level = j + 1
			}
		}
		if level == 0 {
			styles = append(styles, style)
			level = len(styles)
		}
		titles = append(titles, title{name: rstInline(name), line: first, level: level, body: i + 2})
		i++ // the underline is no title's text
	}
	var out []Section
	for k, t := range titles {
		end := len(lines)
		stop := len(lines)
		for _, next := range titles[k+1:] {
			if next.level <= t.level {
				end, stop = next.line-1, next.line-1
				break
			}
		}
		for end > t.line && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		if t.name == "" {
			continue
		}
		out = append(out, Section{Kind: KindHeading, Lang: "rst", Name: t.name, Line: t.line, EndLine: max(end, t.line),
			Doc: rstProse(lines[min(t.body, stop):stop])})
	}
	return out, nil
}

// rstAdornment is the character a line repeats when it is a section
// adornment (one punctuation character, nothing else), else 0.
func rstAdornment(l string) byte {
	l = strings.TrimRight(l, " \t")
	if l == "" {
		return 0
	}
	c := l[0]
	if !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(c)) {
		return 0
	}
	for i := 1; i < len(l); i++ {
		if l[i] != c {
			return 0
		}
	}
	return c
}

// rstDirectiveRe is a directive's head: ".. note::", ".. code-block:: python".
var rstDirectiveRe = regexp.MustCompile(`^\.\.\s+[\w:+.-]+::(\s|$)`)

// rstProse is a section's text as prose: paragraphs, notes and code, with
// directives' arguments but not their options, without comments, link
// targets, titles' adornments or inline markup; at most a doc's worth.
func rstProse(lines []string) string {
	var b strings.Builder
	const (
		keep    = iota
		options // under a directive's head: its options (":linenos:") are no text
		comment // under a comment: nothing indented is text
	)
	mode, under := keep, 0
	for _, l := range lines {
		if b.Len() > 2*DocLimit {
			break
		}
		t := strings.TrimSpace(l)
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if t != "" && mode != keep {
			switch {
			case ind <= under:
				mode = keep
			case mode == comment || strings.HasPrefix(t, ":"):
				continue
			default:
				mode = keep // the directive's content
			}
		}
		switch {
		case t == "":
			b.WriteByte('\n')
		case rstAdornment(t) != 0 && len(t) > 1:
		case rstDirectiveRe.MatchString(t):
			mode, under = options, ind
			_, arg, _ := strings.Cut(t, "::")
			if arg = strings.TrimSpace(arg); arg != "" {
				b.WriteString(rstInline(arg) + "\n")
			}
		case t == ".." || strings.HasPrefix(t, ".. "):
			mode, under = comment, ind // a comment, a link target or a substitution
		default:
			b.WriteString(rstInline(t) + "\n")
		}
	}
	return mdTidy(b.String())
}

// rstRoleRe is an interpreted text with a role, :func:`name` or
// `text <target>`_; rstMarkRe the marks of emphasis, literals and links.
var (
	rstLinkRe = regexp.MustCompile("`([^`<]*?)\\s*<[^`>]*>`__?")
	rstRoleRe = regexp.MustCompile(":[A-Za-z][\\w:+.-]*:`~?!?([^`]*)`")
	rstMarkRe = regexp.MustCompile("``|`_{0,2}|\\*\\*|\\|")
)

// rstInline is a line of RST as plain text.
func rstInline(s string) string {
	s = rstLinkRe.ReplaceAllString(s, "$1")
	s = rstRoleRe.ReplaceAllStringFunc(s, func(m string) string {
		t := rstRoleRe.FindStringSubmatch(m)[1]
		if i := strings.Index(t, " <"); i > 0 && strings.HasSuffix(t, ">") {
			t = t[:i] // :doc:`the guide <guide>`
		}
		return t
	})
	s = rstMarkRe.ReplaceAllString(s, "")
	if strings.HasSuffix(s, "::") {
		s = strings.TrimSuffix(s, ":") // "Example::" introduces a literal block: "Example:"
	}
	return strings.TrimSpace(s)
}
