package derive

import (
	"strings"
)

func init() {
	exts := make([]string, 0, 10)
	for s := '1'; s <= '9'; s++ {
		exts = append(exts, "."+string(s))
	}
	register(language{name: "man", exts: append(exts, ".man"), extract: extractRoff})
}

// extractRoff reads a manual page written in roff, with the man macros
// (.TH, .SH, .SS) or mdoc's (.Dt, .Sh, .Ss): the page is a section named
// for what it is ("hyperfine(1) manual page") with its NAME line as text,
// and each section and subsection is one, its text the page's words with
// the requests, font escapes and comments left out (NAME is the page's
// own text, not a section of its own: a question of names is not about
// it). A file with such an
// extension that is not roff (a rotated log, a numbered copy) yields
// nothing. Only the structure is read: this is no roff formatter.
func extractRoff(_ string, src []byte) ([]Section, error) {
	lines := scriptLines(src)
	if !isRoff(lines) {
		return nil, nil
	}
	type head struct {
		name  string
		line  int // 1-based
		level int // 0 the page, 1 a section, 2 a subsection
	}
	var heads []head
	for i, l := range lines {
		name, args := roffRequest(l)
		switch name {
		case "TH", "Dt":
			if len(args) > 0 {
				title := strings.ToLower(args[0])
				if len(args) > 1 {
					title += "(" + args[1] + ")"
				}
				heads = append(heads, head{title + " manual page", i + 1, 0})
			}
		case "SH", "Sh":
			heads = append(heads, head{strings.Join(args, " "), i + 1, 1})
		case "SS", "Ss":
			heads = append(heads, head{strings.Join(args, " "), i + 1, 2})
		}
	}
	var out []Section
	for k, h := range heads {
		if h.name == "" || h.level == 1 && strings.EqualFold(h.name, "NAME") {
			continue // the page's own section says its NAME
		}
		stop := len(lines)
		for _, next := range heads[k+1:] {
			if next.level <= h.level {
				stop = next.line - 1
				break
			}
		}
		doc := roffProse(lines[h.line:stop])
		if h.level == 0 {
			doc = roffPageName(lines, h.line)
		}
		out = append(out, Section{Kind: KindHeading, Lang: "man", Name: h.name, Line: h.line, EndLine: max(stop, h.line), Doc: cutDoc(doc)})
	}
	return out, nil
}

// isRoff says whether a file's first lines are roff's: a comment or a
// page's title request.
func isRoff(lines []string) bool {
	for _, l := range lines[:min(len(lines), 40)] {
		if strings.HasPrefix(l, `.\"`) || strings.HasPrefix(l, `'\"`) {
			continue
		}
		if name, _ := roffRequest(l); name == "TH" || name == "Dd" || name == "Dt" {
			return true
		}
	}
	return false
}

// roffPageName is the text of the page's NAME section ("hyperfine -
// command-line benchmarking tool"), what the page is about.
func roffPageName(lines []string, from int) string {
	for i := from; i < len(lines); i++ {
		name, args := roffRequest(lines[i])
		if (name == "SH" || name == "Sh") && len(args) > 0 && strings.EqualFold(args[0], "NAME") {
			j := i + 1
			for j < len(lines) {
				if n, _ := roffRequest(lines[j]); n == "SH" || n == "Sh" {
					break
				}
				j++
			}
			return roffProse(lines[i+1 : j])
		}
	}
	return ""
}

// roffRequest is a control line's request and its arguments (quoted
// arguments kept whole), or "" for a text line.
func roffRequest(l string) (string, []string) {
	if l == "" || l[0] != '.' && l[0] != '\'' {
		return "", nil
	}
	rest := strings.TrimLeft(l[1:], " \t")
	if strings.HasPrefix(rest, `\"`) {
		return "", nil // a comment
	}
	name, rest, _ := strings.Cut(rest, " ")
	var args []string
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '"' {
			arg, after, _ := strings.Cut(rest[1:], `"`)
			args = append(args, roffText(arg))
			rest = after
			continue
		}
		arg, after, _ := strings.Cut(rest, " ")
		if t := roffText(arg); t != "" {
			args = append(args, t)
		}
		rest = after
	}
	return name, args
}

// roffTextRequests are the requests whose arguments are the page's words
// (fonts of the man macros, mdoc's inline macros).
var roffTextRequests = map[string]bool{
	"B": true, "I": true, "BR": true, "RB": true, "BI": true, "IB": true, "IR": true, "RI": true, "SM": true, "SB": true,
	"IP": true, "Nm": true, "Nd": true, "Fl": true, "Ar": true, "Op": true, "Cm": true, "Pa": true, "Ev": true,
	"It": true, "Dl": true, "Xr": true, "Em": true, "Sy": true, "Li": true, "Va": true, "Ic": true, "Ql": true, "Dq": true, "Sq": true,
}

// roffProse is the words of lines: text lines and the arguments of the
// requests that carry words, escapes undone.
func roffProse(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		var text string
		if name, args := roffRequest(l); name != "" {
			if !roffTextRequests[name] {
				continue
			}
			text = strings.Join(args, " ")
		} else if l != "" && l[0] != '.' && l[0] != '\'' {
			text = roffText(l)
		}
		if text = strings.TrimSpace(text); text != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(text)
		}
		if b.Len() > 4*DocLimit {
			break
		}
	}
	return b.String()
}

// roffEscapes are the escapes a page's words are written with.
var roffEscapes = strings.NewReplacer(
	`\-`, "-", `\(em`, "—", `\(en`, "–", `\(aq`, "'", `\(dq`, `"`, `\(lq`, `"`, `\(rq`, `"`, `\(bu`, "•",
	`\(co`, "©", `\e`, `\`, `\&`, "", `\|`, "", `\^`, "", `\ `, " ", `\~`, " ", `\0`, " ", `\c`, "",
	`\fB`, "", `\fI`, "", `\fR`, "", `\fP`, "", `\f(CW`, "", `\f(CR`, "", `\fC`, "", `\f[]`, "", `\f[B]`, "", `\f[I]`, "", `\f[R]`, "", `\f[C]`, "", `\f[CR]`, "",
)

// roffText is one line's words: a trailing comment cut, escapes undone.
func roffText(l string) string {
	if i := strings.Index(l, `\"`); i >= 0 {
		l = l[:i]
	}
	return roffEscapes.Replace(l)
}
