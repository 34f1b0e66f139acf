package derive

import (
	"path"
	"regexp"
	"strings"
)

func init() {
	register(language{name: "shell", exts: []string{".sh", ".bash", ".zsh", ".ksh"}, extract: extractShell})
	register(language{name: "vim", exts: []string{".vim"}, extract: extractVim})
}

// scriptLines splits a file into lines without their ends ("\n" or
// "\r\n"), no empty line after the last one.
func scriptLines(src []byte) []string {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// commentAbove is the comment block that ends just above line i (0-based)
// in a language whose comments start with mark: its first line (0-based)
// and its text, markers removed. A blank line ends it.
func commentAbove(lines []string, i int, mark string) (int, string) {
	j := i
	for j > 0 {
		t := strings.TrimSpace(lines[j-1])
		if !strings.HasPrefix(t, mark) || strings.HasPrefix(t, "#!") {
			break
		}
		j--
	}
	if j == i {
		return i, ""
	}
	return j, commentText(lines[j:i], mark)
}

// commentText is the text of comment lines, the characters of their
// marker (cut) taken off each line's start, joined as a doc comment is.
func commentText(lines []string, cut string) string {
	var doc []string
	for _, l := range lines {
		doc = append(doc, strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), cut)))
	}
	return strings.TrimSpace(joinDocLines(doc))
}

// leadingComment is a script's first comment block, after a "#!" line:
// what the file says it is. A licence that opens it is passed over (see
// skipLicence).
func leadingComment(lines []string, mark string) (from, to int, doc string) {
	i := 0
	for i < len(lines) && (strings.HasPrefix(lines[i], "#!") || strings.TrimSpace(lines[i]) == "" ||
		mark == `"` && strings.HasPrefix(strings.TrimSpace(lines[i]), "vim9script")) {
		i++
	}
	for {
		j := i
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), mark) {
			j++
		}
		if j == i {
			return 0, 0, ""
		}
		block := commentText(lines[i:j], mark)
		if doc := skipLicence(block); doc != "" || !isLicence(block) {
			return i + 1, j, doc
		}
		// A licence alone: the description may be the next block.
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		i = j
	}
}

// shellFuncRe is a shell function's head: "name() {", "name () (",
// "function name {", "function name() {".
var shellFuncRe = regexp.MustCompile(`^(\s*)(?:function\s+([\w.:@+-]+)\s*(?:\(\s*\))?|([A-Za-z_][\w.:@+-]*)\s*\(\s*\))\s*(\{|\(|$)`)

// extractShell reads a shell script: its leading comment (after the "#!"
// line, a licence passed over) as the file's doc, and each function —
// "f() {", "function f", at any depth — with the comment above it. A
// function ends at the first closing brace at its own indentation (as
// scripts are written), else where it starts.
func extractShell(p string, src []byte) ([]Section, error) {
	lines := scriptLines(src)
	var out []Section
	if from, to, doc := leadingComment(lines, "#"); doc != "" {
		out = append(out, Section{Kind: KindPackage, Name: scriptName(p), Line: from, EndLine: to, Doc: doc})
	}
	inHeredoc := ""
	for i, l := range lines {
		if inHeredoc != "" {
			if strings.TrimLeft(l, "\t") == inHeredoc {
				inHeredoc = ""
			}
			continue
		}
		if m := shellHeredocRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			inHeredoc = m[1]
		}
		m := shellFuncRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := m[2] + m[3]
		switch name {
		case "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case", "esac", "in", "select", "time":
			continue
		}
		if m[2] == "" && m[4] == "" {
			// "name()" alone on a line: its body opens on the next.
			if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "{") && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "(") {
				continue
			}
		}
		first, doc := commentAbove(lines, i, "#")
		end := i
		indent := m[1]
		for k := i; k < len(lines); k++ {
			t := strings.TrimRight(lines[k], " \t;")
			if k > i && strings.HasPrefix(t, indent) && (strings.TrimSpace(t) == "}" || strings.TrimSpace(t) == ")") && len(t)-len(strings.TrimLeft(t, " \t")) == len(indent) {
				end = k
				break
			}
			if k == i && (strings.HasSuffix(t, "}") || strings.HasSuffix(t, ")")) && strings.Count(t, "{") <= strings.Count(t, "}") && m[4] == "{" {
				break // one line: f() { …; }
			}
		}
		out = append(out, Section{Kind: KindFunc, Name: name, Line: first + 1, EndLine: end + 1,
			Signature: clipSignature(strings.TrimSpace(l)), Doc: doc})
	}
	return out, nil
}

// shellHeredocRe is a here-document's start: <<EOF, <<-'EOF', << "END".
var shellHeredocRe = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_]\w*)['"]?`)

// scriptName names a script's own section: its file name.
func scriptName(p string) string {
	base := path.Base(p)
	return strings.TrimSuffix(base, path.Ext(base))
}

// vimFuncRe is a Vim script function's head: "function! s:Name(args)",
// "fu Name()", "def Name(): type" (Vim9); vimEndRe its end.
var (
	vimFuncRe = regexp.MustCompile(`^\s*(?:export\s+)?(?:fu|fun|func|funct|functi|functio|function|def)(!?)\s+([\w:#.<>{}]+)\s*\(`)
	vimEndRe  = regexp.MustCompile(`^\s*(?:endf|endfu|endfun|endfunc|endfunct|endfuncti|endfunctio|endfunction|enddef)\b`)
	// vimHeredocRe opens a block of another language's code or of text:
	// "python3 << EOF", "ruby << RUBYEOF", "let lines =<< trim END".
	vimHeredocRe = regexp.MustCompile(`^\s*(?:(?:py|pyt|pyth|pytho|python|python3|py3|pyx|pythonx|rub|ruby|perl|pe|lua|mz|mzscheme|tcl)\s*<<|.*=<<)\s*(?:trim\s+)?(\S*)\s*$`)
)

// extractVim reads a Vim script: its leading comment as the file's doc,
// and each function ("function!", "fu", Vim9's "def") with the comment
// above it ('"' or Vim9's '#'), to its "endfunction" or "enddef".
func extractVim(p string, src []byte) ([]Section, error) {
	lines := scriptLines(src)
	var out []Section
	if from, to, doc := leadingComment(lines, `"`); doc != "" {
		out = append(out, Section{Kind: KindPackage, Name: scriptName(p), Line: from, EndLine: to, Doc: doc})
	}
	for i := 0; i < len(lines); i++ {
		if h := vimHeredocRe.FindStringSubmatch(lines[i]); h != nil {
			marker := h[1]
			if marker == "" {
				marker = "."
			}
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != marker; i++ {
			}
			continue
		}
		m := vimFuncRe.FindStringSubmatch(lines[i])
		if m == nil || strings.ContainsAny(m[2], ".[{") {
			continue // a dictionary's function is made when the script runs, nameless
		}
		first, doc := commentAbove(lines, i, `"`)
		if doc == "" {
			first, doc = commentAbove(lines, i, "#")
		}
		end := i
		for k := i + 1; k < len(lines); k++ {
			if vimEndRe.MatchString(lines[k]) {
				end = k
				break
			}
			if vimFuncRe.MatchString(lines[k]) {
				break // no end of its own: a broken file
			}
		}
		out = append(out, Section{Kind: KindFunc, Name: m[2], Line: first + 1, EndLine: end + 1,
			Signature: clipSignature(strings.TrimSpace(lines[i])), Doc: doc})
		i = max(i, end)
	}
	return out, nil
}
