// Package secrets finds credentials in text so that cairn can refuse to
// store them. Every write path (remember, edit, supersede, import, capture,
// archive reasons) runs Check before anything is written.
//
// What it detects: private key blocks; token formats that announce
// themselves (AWS access key ids, GitHub, GitLab, Slack, Stripe, Google,
// OpenAI, Anthropic, npm tokens, JSON web tokens); URLs with a password in
// them; assignments of a secret-named key (password, secret, token,
// api_key, …) to a value that looks random; and .env lines that set such a
// variable.
//
// What it leaves alone, on purpose: the words themselves ("rotate the
// token"), variable names (GITHUB_TOKEN), references to where a secret is
// kept ($TOKEN, ${DB_PASSWORD}, os.Getenv("TOKEN")), placeholders
// (<your key>, changeme, xxx), commit ids, UUIDs and checksums. Memories
// are engineering notes that talk about secrets all the time; a scanner
// that cried wolf would teach people to work around it. Short low-entropy
// passwords in an assignment (password=hunter2) are not caught: there is
// no way to tell them from an example without guessing.
package secrets

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// ErrSecret is what every refusal of this package matches with errors.Is.
var ErrSecret = errors.New("secret refused")

// Finding is one credential found in a text.
type Finding struct {
	Rule   string // what it looks like, e.g. "AWS access key id"
	Field  string // the field it was found in, as given to Check
	Line   int    // 1-based line within the field
	Column int    // 1-based column in runes
}

// Field names a piece of text to check.
type Field struct{ Name, Text string }

// Error lists what Check found. Its message is one line that never
// repeats the secret.
type Error struct{ Findings []Finding }

func (e *Error) Error() string {
	f := e.Findings[0]
	where := fmt.Sprintf("line %d col %d", f.Line, f.Column)
	if f.Field != "" {
		where = f.Field + " " + where
	}
	more := ""
	if n := len(e.Findings) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Sprintf("refused: %s holds what looks like %s %s%s — nothing was stored; remove the secret and say where it is kept instead (e.g. \"the key in $API_KEY\")",
		where, article(f.Rule), f.Rule, more)
}

// Is makes errors.Is(err, ErrSecret) true.
func (e *Error) Is(target error) bool { return target == ErrSecret }

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an"
	}
	return "a"
}

// Check scans every field and returns nil or an *Error.
func Check(fields ...Field) error {
	var all []Finding
	for _, f := range fields {
		for _, fd := range Scan(f.Text) {
			fd.Field = f.Name
			all = append(all, fd)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &Error{Findings: all}
}

type rule struct {
	name string
	re   *regexp.Regexp
	// group is the submatch that holds the secret value (0: the whole match).
	group int
	// check, when set, must accept the value.
	check func(value string) bool
	// hints: the regexp only runs when one of these appears (lower-cased
	// text when lower is set). Scanning for a literal is far cheaper.
	hints []string
	lower bool
}

// The token formats. Each is anchored on a prefix that ordinary prose does not produce.
var rules = []rule{
	{name: "private key block", hints: []string{"PRIVATE KEY"}, re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{name: "AWS access key id", hints: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA"}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16}\b`)},
	{name: "GitHub token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`)},
	{name: "GitHub token", hints: []string{"github_pat_"}, re: regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{60,255}\b`)},
	{name: "GitLab token", hints: []string{"glpat-"}, re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`)},
	{name: "Slack token", hints: []string{"xox"}, re: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}\b`)},
	{name: "Slack webhook URL", hints: []string{"hooks.slack.com"}, re: regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+`)},
	{name: "Stripe key", hints: []string{"_live_"}, re: regexp.MustCompile(`\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b`)},
	{name: "Google API key", hints: []string{"AIza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
	{name: "Anthropic API key", hints: []string{"sk-ant-"}, re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`)},
	{name: "OpenAI API key", hints: []string{"sk-"}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`), check: func(v string) bool {
		return !strings.HasPrefix(v, "sk-ant-") && hasClasses(v[3:], 2)
	}},
	{name: "npm token", hints: []string{"npm_"}, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{name: "JSON web token", hints: []string{"eyJ"}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}`)},
	{name: "password in a URL", hints: []string{"://"}, re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s/@]+)@[^\s/@]+`), group: 1, check: func(v string) bool {
		return !placeholder(v) && len(v) >= 6
	}},
	{name: "AWS secret access key", hints: []string{"secret"}, lower: true, re: regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b`), group: 1},
}

// secretWords mark a key name as holding a secret in an assignment.
var secretWords = []string{"password", "passwd", "pwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "private_key", "private-key", "auth_key", "credential"}

// An .env line: NAME=value, optionally exported.
var envLine = regexp.MustCompile(`^\s*(?:export\s+)?([A-Z][A-Z0-9_]*(?:KEY|SECRET|TOKEN|PASSWORD|PASS|PWD|CREDENTIAL|CREDENTIALS|AUTH)[A-Z0-9_]*)=(.*)$`)

// Scan returns every finding in text in order of position. Field is empty.
func Scan(text string) []Finding {
	type hit struct {
		off  int
		rule string
	}
	var hits []hit
	taken := map[int]bool{} // offsets already reported, so one secret is one finding
	add := func(off int, name string) {
		for o := off - 2; o <= off+2; o++ {
			if taken[o] {
				return
			}
		}
		taken[off] = true
		hits = append(hits, hit{off, name})
	}
	lowerText := ""
	for _, r := range rules {
		hay := text
		if r.lower {
			if lowerText == "" {
				lowerText = asciiLower(text)
			}
			hay = lowerText
		}
		if !containsAny(hay, r.hints) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2*r.group], m[2*r.group+1]
			if s < 0 {
				continue
			}
			if r.check != nil && !r.check(text[s:e]) {
				continue
			}
			add(m[0], r.name)
		}
	}
	lower := asciiLower(text)
	for _, a := range assignments(text, lower) {
		if secretKey(a.name) && looksRandom(a.value) {
			add(a.off, assignmentRule(a.name))
		}
	}
	off := 0
	for line := range strings.Lines(text) {
		body := strings.TrimRight(line, "\r\n")
		if !strings.Contains(body, "=") {
			off += len(line)
			continue
		}
		if m := envLine.FindStringSubmatchIndex(body); m != nil {
			value := strings.Trim(strings.TrimSpace(body[m[4]:m[5]]), `"'`)
			if len(value) >= 8 && !placeholder(value) && !reference(value) {
				add(off+m[4], ".env secret line")
			}
		}
		off += len(line)
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].off < hits[j].off })
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		line, col := position(text, h.off)
		out = append(out, Finding{Rule: h.rule, Line: line, Column: col})
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

type assign struct {
	name, value string
	off         int // byte offset of the value
}

// assignments finds `name = value`, `name: value`, `name := "value"` and
// `"name": "value"` where name contains a secret word. lower is text
// lower-cased (same byte offsets for ASCII names).
func assignments(text, lower string) []assign {
	var out []assign
	seen := map[int]bool{}
	for _, w := range secretWords {
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			i += from
			from = i + len(w)
			start, end := i, i+len(w)
			for start > 0 && identByte(text[start-1]) {
				start--
			}
			for end < len(text) && identByte(text[end]) {
				end++
			}
			if seen[start] {
				continue
			}
			seen[start] = true
			j := end
			if j < len(text) && (text[j] == '"' || text[j] == '\'') {
				j++
			}
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			switch {
			case strings.HasPrefix(text[j:], ":="):
				j += 2
			case j < len(text) && (text[j] == '=' || text[j] == ':'):
				j++
			default:
				continue
			}
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j < len(text) && strings.IndexByte("\"'`", text[j]) >= 0 {
				j++
			}
			k := j
			for k < len(text) && strings.IndexByte(" \t\r\n\"'`,;", text[k]) < 0 {
				k++
			}
			if k > j {
				out = append(out, assign{name: text[start:end], value: text[j:k], off: j})
			}
		}
	}
	return out
}

func identByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
}

func assignmentRule(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "pass") || strings.Contains(n, "pwd"):
		return "password assignment"
	case strings.Contains(n, "token"):
		return "token assignment"
	case strings.Contains(n, "key"):
		return "key assignment"
	}
	return "secret assignment"
}

// secretKey rejects names that merely contain a secret word inside a
// longer identifier about something else (passwordHash, tokenizer).
func secretKey(name string) bool {
	n := strings.ToLower(name)
	for _, benign := range []string{"hash", "tokenizer", "tokenize", "tokens", "length", "len", "field", "policy", "prompt", "reset", "expiry", "expires", "ttl", "count", "type", "name", "url", "file", "path", "header", "id"} {
		if strings.HasSuffix(n, benign) || strings.HasSuffix(n, "_"+benign) {
			return false
		}
	}
	return true
}

// looksRandom is the test a value must pass to count as a secret in an
// assignment: long enough, mixed, high entropy, and not a placeholder or
// a reference to where the secret lives.
func looksRandom(v string) bool {
	v = strings.Trim(v, `"'`+"`")
	if len(v) < 8 || placeholder(v) || reference(v) {
		return false
	}
	if !hasClasses(v, 2) {
		return false
	}
	e := entropy(v)
	if len(v) >= 20 {
		return e >= 3.0
	}
	return e >= 2.8 && hasClasses(v, 3)
}

// reference is a value that names where a secret lives rather than being one.
func reference(v string) bool {
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "<") {
		return true
	}
	for _, p := range []string{"os.getenv", "os.environ", "process.env", "env(", "env.", "getenv", "secrets.", "vault:", "file:", "/", "./", "~/"} {
		if strings.HasPrefix(strings.ToLower(v), p) {
			return true
		}
	}
	return strings.HasSuffix(v, "(") || strings.HasSuffix(v, ")")
}

var placeholderWords = []string{"changeme", "change_me", "example", "placeholder", "dummy", "redacted", "your_", "your-", "yourtoken", "yourkey", "xxxx", "****", "....", "test123", "sample", "fake", "none", "null", "todo", "insert", "replace"}

func placeholder(v string) bool {
	l := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	// one character repeated (xxxxxxxx, 00000000)
	if r, _ := utf8.DecodeRuneInString(l); strings.Count(l, string(r)) == utf8.RuneCountInString(l) {
		return true
	}
	return strings.HasPrefix(v, "<") || strings.HasSuffix(v, ">")
}

// hasClasses reports whether v mixes at least n of: lower, upper, digit, symbol.
func hasClasses(v string, n int) bool {
	var lower, upper, digit, other bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		default:
			other = true
		}
	}
	c := 0
	for _, b := range []bool{lower, upper, digit, other} {
		if b {
			c++
		}
	}
	return c >= n
}

// entropy is the Shannon entropy of v in bits per character.
func entropy(v string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range v {
		counts[r]++
		n++
	}
	var e float64
	for _, c := range counts {
		p := float64(c) / float64(n)
		e -= p * math.Log2(p)
	}
	return e
}

// position turns a byte offset into a 1-based line and rune column.
func position(text string, off int) (int, int) {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}
