package secrets

import (
	"encoding/base64"
	"math"
	"strings"
)

// assignments calls found for every `name = value`, `name: value`,
// `name := "value"`, `"name": "value"`, `name => value`, `name == value`
// and Makefile's `name ?= value` whose name says it
// holds a secret and whose value looks random. The span passed is the
// value's. A name/value pair counts as an assignment too: `name:
// API_TOKEN` then `value: …` (Kubernetes env lists, ECS task definitions),
// or key="ApiKey" value="…" in an XML tag.
func assignments(text string, found func(start, end int, rule string)) {
	pairRule, pairEnd := "", -1
	for i := 0; i < len(text); {
		k := strings.IndexAny(text[i:], ":=")
		if k < 0 {
			return
		}
		op := i + k
		next := op + 1
		switch text[op] {
		case ':':
			switch {
			case next < len(text) && text[next] == '=':
				next++
			case next < len(text) && text[next] == ':': // C++ scope, IPv6
				i = next + 1
				continue
			case strings.HasPrefix(text[next:], "//"): // a URL: the URL rule's business
				i = next
				continue
			}
		case '=':
			if op > 0 && strings.IndexByte("=!<>", text[op-1]) >= 0 {
				i = next
				continue
			}
			if next < len(text) && (text[next] == '=' || text[next] == '>') {
				next++
			}
		}
		i = next
		nameEnd := op
		if op > 0 && text[op] == '=' && text[op-1] == '?' {
			nameEnd = op - 1 // Makefile: TOKEN ?= value
		}
		name, prev := nameBefore(text, nameEnd)
		// An upper-case name is an environment variable's, where KEY means
		// a key as it does on an .env line: MAPBOX_KEY = "…".
		rule, strong, ok := secretName(name, constCase(name))
		if !ok && prev != "" { // "API key: …", "access token = …"
			rule, strong, ok = secretName(prev+"_"+name, false)
		}
		if !ok {
			switch pairKey(name) {
			case 'n':
				// name: API_TOKEN: the value of the pair comes next.
				if s, e := valueAfter(text, next); e > s && e-s <= 64 {
					if r, _, ok := secretName(text[s:e], constCase(text[s:e])); ok && !strings.ContainsAny(text[s:e], "/:") {
						pairRule, pairEnd = r, e
					}
				}
			case 'v':
				if pairEnd >= 0 && op-pairEnd <= 256 {
					if s, e := valueAfter(text, next); e > s && looksRandom(text[s:e]) {
						found(s, e, pairRule)
					}
				}
				pairEnd = -1
			}
			continue
		}
		if s, e := valueAfter(text, next); e > s && (looksRandom(text[s:e]) || strong && rule == rulePassword && literalPassword(text, op, next, s, e)) && !basicPlaceholder(text, s, e) {
			found(s, e, rule)
		}
	}
}

// basicPlaceholder: a Basic authorization whose credentials decode to
// user:password with a placeholder password (CLIENT_ID:CLIENT_SECRET).
func basicPlaceholder(text string, s, e int) bool {
	b := strings.TrimRight(text[max(0, s-8):s], " ")
	if len(b) < 5 || !strings.EqualFold(b[len(b)-5:], "basic") {
		return false
	}
	d, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(text[s:e], "="))
	if err != nil {
		return false
	}
	_, pw, ok := strings.Cut(string(d), ":")
	return ok && (placeholder(pw) || constCase(pw) || reference(pw))
}

// pairKey tells the halves of a name/value pair apart: 'n' for the key
// that names the variable (name, key), 'v' for the one that holds its
// value, 0 for neither.
func pairKey(name string) byte {
	switch strings.ToLower(strings.Trim(name, "-_.")) {
	case "name", "key", "id", "variable", "envvar", "env":
		return 'n'
	case "value", "val", "secretvalue", "defaultvalue":
		return 'v'
	}
	return 0
}

// nameBefore returns the key name that ends just before the operator at op
// (past spaces, a closing quote, escaped or not, markdown emphasis or a
// bracket), and the
// word before it when only a space separates them.
func nameBefore(text string, op int) (name, prev string) {
	j := op
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	for n := 0; n < 4 && j > 0 && strings.IndexByte("\"'`*]\\", text[j-1]) >= 0; n++ {
		j--
	}
	end := j
	for j > 0 && end-j < 96 && nameByte(text[j-1]) {
		j--
	}
	if j == end || j > 0 && nameByte(text[j-1]) { // nothing, or too long to be a key
		return "", ""
	}
	name = text[j:end]
	if j >= 2 && text[j-1] == ' ' && nameByte(text[j-2]) {
		pe, ps := j-1, j-1
		for ps > 0 && pe-ps < 32 && nameByte(text[ps-1]) {
			ps--
		}
		prev = text[ps:pe]
	}
	return name, prev
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// valueAfter returns the span of the value that starts at i: past spaces,
// an authorization scheme (Bearer, Basic, Token) and an opening quote, up to
// the first space, quote or separator, at most 512 bytes.
func valueAfter(text string, i int) (int, int) {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	i = pastScheme(text, i)
	if i+1 < len(text) && text[i] == '\\' && (text[i+1] == '"' || text[i+1] == '\'') {
		i++ // an escaped quote: JSON inside a string
	}
	if i < len(text) && strings.IndexByte("\"'`", text[i]) >= 0 {
		i = pastScheme(text, i+1) // "Authorization": "Bearer …"
	}
	e := i
	for e < len(text) && e-i < 512 && strings.IndexByte(" \t\r\n\"'`,;|&)]}<>", text[e]) < 0 {
		if text[e] >= 0x80 { // secrets are ASCII; this is a curly quote or prose
			break
		}
		if text[e] == '\\' && e+1 < len(text) && strings.IndexByte("nrt\"'", text[e+1]) >= 0 {
			break // an escape in a string literal ends the value
		}
		e++
	}
	for e > i && strings.IndexByte(".:\\=", text[e-1]) >= 0 {
		e-- // sentence punctuation, base64 padding: neither makes a value random
	}
	return i, e
}

// pastScheme skips an authorization scheme (Bearer, Basic, Token) at i.
func pastScheme(text string, i int) int {
	for _, scheme := range []string{"bearer ", "basic ", "token ", "digest ", "ssws "} {
		if len(text)-i > len(scheme) && strings.EqualFold(text[i:i+len(scheme)], scheme) {
			i += len(scheme)
			for i < len(text) && text[i] == ' ' {
				i++
			}
			break
		}
	}
	return i
}

// envLines calls found for every line that is exactly NAME=value
// (optionally after "export ") with a secret-sounding upper-case NAME and a
// value that is neither a placeholder nor a reference.
func envLines(text string, found func(start, end int)) {
	for off := 0; off < len(text); {
		end, next := len(text), len(text)
		if nl := strings.IndexByte(text[off:], '\n'); nl >= 0 {
			end, next = off+nl, off+nl+1
		}
		if strings.IndexByte(text[off:end], '=') >= 0 || strings.IndexByte(text[off:end], ' ') >= 0 && spaceSetter(text[off:end]) {
			if s, e, ok := envLine(text, off, end); ok {
				found(s, e)
			}
		}
		off = next
	}
}

// envLine reads the .env-style line text[i:end]: where the value of a
// secret-sounding NAME=value on it is, if it is one.
func envLine(text string, i, end int) (int, int, bool) {
	ns, ne, vs, ok := envName(text, i, end)
	if !ok {
		return 0, 0, false
	}
	_, strong, ok := secretName(text[ns:ne], true)
	if !ok {
		return 0, 0, false
	}
	vs, ve, ok := envValue(text, vs, end)
	if !ok || !envSecret(text[vs:ve], strong) {
		return 0, 0, false
	}
	return vs, ve, true
}

// envName reads the NAME of text[i:end] after any setter word: where it
// starts and ends, and where its value starts (after the '=', or the
// spaces of a setter that takes NAME value).
func envName(text string, i, end int) (ns, ne, vs int, ok bool) {
	for i < end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	spaced := false // the value may follow the name after a space
	for _, st := range setters {
		if strings.HasPrefix(text[i:end], st.word) {
			spaced = st.spaced
			i += len(st.word)
			for i < end && text[i] == ' ' {
				i++
			}
			break
		}
	}
	ns = i
	for i < end && (text[i] >= 'A' && text[i] <= 'Z' || text[i] >= '0' && text[i] <= '9' || text[i] == '_') {
		i++
	}
	if i == ns || i >= end || text[ns] >= '0' && text[ns] <= '9' {
		return 0, 0, 0, false
	}
	vs = i + 1
	switch {
	case text[i] == '=':
	case spaced && text[i] == ' ':
		for vs < end && text[vs] == ' ' {
			vs++
		}
	default:
		return 0, 0, 0, false
	}
	return ns, i, vs, true
}

// envValue is where the value from vs to the line's end is: without
// trailing blanks, inside its quotes, or before a trailing comment; not
// one when it holds blanks (prose, not an assignment).
func envValue(text string, vs, end int) (int, int, bool) {
	ve := end
	for ve > vs && strings.IndexByte(" \t\r", text[ve-1]) >= 0 {
		ve--
	}
	if ve-vs >= 2 && (text[vs] == '"' || text[vs] == '\'') && text[ve-1] == text[vs] {
		return vs + 1, ve - 1, true
	}
	if h := strings.Index(text[vs:ve], " #"); h >= 0 { // trailing comment
		ve = vs + h
		for ve > vs && (text[ve-1] == ' ' || text[ve-1] == '\t') {
			ve--
		}
	}
	if strings.ContainsAny(text[vs:ve], " \t") {
		return 0, 0, false
	}
	return vs, ve, true
}

// literalPassword reports a password written as a literal — a value
// set tight to its name (password=hunter2hunter2X) or quoted
// (password: "correct horse") — that people choose as words, so that it
// need not look random: anything but a placeholder, a reference to where
// it lives, or a name of a variable. The operator is at op, the value
// from s to e (next is just past the operator).
func literalPassword(text string, op, next, s, e int) bool {
	v := text[s:e]
	quoted := s > 0 && strings.IndexByte("\"'`", text[s-1]) >= 0
	tight := text[op] == '=' && op > 0 && text[op-1] != ' ' && s == next
	if !quoted && !tight {
		return false
	}
	return envSecret(v, true) && !strings.ContainsAny(v, "()[]{}")
}

// envSecret reports whether v, the value of a secret-sounding name (strong:
// one that says so strongly), looks like a secret.
func envSecret(v string, strong bool) bool {
	if len(v) < 8 || placeholder(v) || reference(v) || identLike(v) || constCase(v) || camelIdent(v) {
		return false
	}
	// Under a name that only says KEY, AUTH, PASS or PWD (CACHE_KEY,
	// SSH_AUTH_MODE), words joined by separators are configuration, not a
	// secret: users:v2:list, keycloak-internal, 0x3F2A9C1D.
	return strong || !(strings.ContainsAny(v, "-_./:") || strings.HasPrefix(v, "0x")) || !wordish(v)
}

// setters are the words that may come before NAME=value on an .env-style
// line: the shell's export, a Dockerfile's ENV and ARG, csh's setenv,
// fish's set -x, cmd.exe's set. ENV, setenv and set -x also take NAME value.
var setters = []struct {
	word   string
	spaced bool
}{{"export ", false}, {"ENV ", true}, {"ARG ", false}, {"setenv ", true}, {"set -gx ", true}, {"set -x ", true}, {"set ", false}}

// spaceSetter: a line that may set a variable without an '='.
func spaceSetter(line string) bool {
	line = strings.TrimLeft(line, " \t")
	return strings.HasPrefix(line, "ENV ") || strings.HasPrefix(line, "setenv ") || strings.HasPrefix(line, "set -")
}

// Words that make a key name hold a secret wherever they appear in it
// (matched with separators removed, so api_key, api-key and apiKey agree).
var strongWords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey", "signingkey", "encryptionkey", "masterkey", "authkey", "accountkey", "credential", "authorization"}

// Words that do only as a whole segment of the name (dbPass, x-auth, but not
// bypass, author or compass). key counts only in .env names.
var weakWords = map[string]bool{"auth": true, "oauth": true, "pwd": true, "pass": true, "pw": true}

// Words inside which a strong word means something else.
var falseFriends = []string{"tokeniz", "secretar", "passwordless"}

// A name whose last segment is one of these is about a secret, not one:
// token_url, passwordHash, secret_name, TOKEN_TTL, max_tokens.
var benignLast = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`id ids name names path file filename files dir url uri endpoint host
		hostname port ttl expiry expires expiration exp lifetime timeout age length len size count max
		min limit type kind mode format version field fields header headers policy prompt reset hash
		hashed digest salt algorithm alg provider issuer audience scope scopes method strategy backend
		store manager service enabled enable disabled required env var ref hint label prefix suffix
		rotation regex pattern user username usage location source tokens index idx param params arg
		flag option options config error err status valid validator generator check cache schema
		template style color width budget rate threshold`) {
		benignLast[w] = true
	}
}

// secretName reports whether a key name says it holds a secret, which
// kind of assignment that makes it, and whether it says so strongly (a
// word like password or token, rather than only key, auth, pass or pwd).
func secretName(name string, env bool) (rule string, strong, ok bool) {
	segs := Segments(name)
	if len(segs) == 0 || benignLast[segs[len(segs)-1]] {
		return "", false, false
	}
	compact := strings.Join(segs, "")
	for _, f := range falseFriends {
		if strings.Contains(compact, f) {
			compact = strings.ReplaceAll(compact, f, "")
		}
	}
	for _, w := range strongWords {
		if strings.Contains(compact, w) {
			strong = true
			break
		}
	}
	ok = strong
	for _, s := range segs {
		if ok {
			break
		}
		ok = weakWords[s] || env && s == "key"
	}
	switch {
	case !ok:
		return "", false, false
	case strings.Contains(compact, "pass") || strings.Contains(compact, "pwd") || segs[len(segs)-1] == "pw":
		rule = rulePassword
	case strings.Contains(compact, "token") || strings.Contains(compact, "auth"):
		rule = ruleToken
	case strings.Contains(compact, "key"):
		rule = ruleKey
	default:
		rule = ruleSecret
	}
	return rule, strong, true
}

// Segments splits a name at separators and camelCase humps, lower-cased
// ("passwordHash" is password, hash; "APIKey" is api, key). Derived memory
// splits identifiers into words with it too.
func Segments(name string) []string {
	var segs []string
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			segs = append(segs, strings.ToLower(name[start:i]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum {
			flush(i)
			continue
		}
		if start >= 0 && c >= 'A' && c <= 'Z' {
			p := name[i-1]
			nextLower := i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z'
			if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || p >= 'A' && p <= 'Z' && nextLower {
				flush(i) // passwordHash, APIKey
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return segs
}

// looksRandom is what an assigned value must be to count as a secret: long
// enough, mixed, high in entropy, and not a placeholder, a reference to
// where the secret lives, or an identifier.
func looksRandom(v string) bool {
	if len(v) < 8 || placeholder(v) || reference(v) || identLike(strings.TrimLeft(v, "+*&!")) || wordish(v) {
		return false
	}
	c := classes(v)
	if c < 2 {
		return false
	}
	e := entropy(v)
	if len(v) >= 12 {
		return e >= 3.0
	}
	return c >= 3 && e >= 2.5
}

// reference is a value that names where a secret lives rather than being one.
func reference(v string) bool {
	l := strings.ToLower(v)
	for _, p := range []string{"$", "%", "{{", "<", "@", "os.getenv", "os.environ", "process.env", "env(", "env.", "env[", "getenv", "secrets.", "vault:", "file:", "op://", "arn:", "urn:", "ref+", "/", "./", "../", "~/"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	// a URL, or code: a call, an index, a literal
	return strings.Contains(l, "://") || strings.ContainsAny(l, "()[]{}")
}

var placeholderWords = []string{"changeme", "change_me", "change-me", "example", "placeholder", "dummy", "redacted", "your", "xxx", "***", "...", "…", "sample", "fake", "password", "passwd", "secret", "insert", "replace", "todo", "tbd", "fixme", "none", "null", "test", "notreal", "not-real", "not_real", "not-a-real", "_here", "-here"}

// Well-known defaults and examples: a note that quotes them teaches, it
// does not leak.
var defaults = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`password passwd secret admin root guest postgres mysql letmein qwerty
		default token apikey pass pwd user username foobar abc123 123456 p@ssw0rd passw0rd password1
		password123 s3cr3t hunter2 mysecretpassword supersecret secret123 disabled enabled required
		optional internal external insecure asdf asdfasdf asdfgh qwer foo bar baz foobar`) {
		defaults[w] = true
	}
}

// placeholder is a value that stands in for a secret in documentation.
func placeholder(v string) bool {
	l := strings.ToLower(v)
	if defaults[l] || strings.HasPrefix(l, "<") || strings.HasSuffix(l, ">") {
		return true
	}
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	// one character repeated (00000000), or a run (12345678, abcdefgh)
	same, run := true, true
	for i := 1; i < len(l); i++ {
		same = same && l[i] == l[0]
		run = run && l[i] == l[i-1]+1
	}
	return same || run
}

// identLike is a dotted chain of identifiers: cfg.ClientSecret,
// var.db_password. A long part that does not read as words makes it a
// token instead (a Vault token is s. and 24 random characters).
func identLike(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if p == "" || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z' || p[0] == '_') {
			return false
		}
		if len(p) >= 16 && !strings.Contains(p, "_") && mixedAlnum(p) && caseBalanced(p) && !wordish(p) {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !identByte(p[i]) {
				return false
			}
		}
	}
	return true
}

func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// wordish is a value made of words and numbers: GITHUB_TOKEN, us-east-1,
// passwordFromVault, encryptionKey1024, saml2, -0x3f87. Each part between
// separators must read as words: camelCase humps mostly of three letters
// or more, short digit runs between them, few capitals. Random strings
// break up into one- and two-letter humps, or flip case too often.
func wordish(v string) bool {
	v = strings.TrimLeft(v, "+-*&!")
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("-_./:", r) }) {
		if !wordPart(p) {
			return false
		}
	}
	return true
}

func wordPart(p string) bool {
	if len(p) > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') { // a hex literal
		return len(p) <= 18
	}
	numbers, words, short, acronyms, lower, wordLetters := 0, 0, 0, 0, 0, 0
	for i := 0; i < len(p); {
		c := p[i]
		j := i
		switch {
		case c >= '0' && c <= '9':
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			numbers++
			if i > 0 && (j-i > 4 || j < len(p) && !(p[j] >= 'A' && p[j] <= 'Z')) {
				return false // a number inside letters, other than saml2, oauth2Token
			}
		case isLetter(c):
			// capitals, then lower case: an acronym and a word (HTTPServer),
			// a word (Token, saml) or an acronym alone (JSON)
			k := i
			for k < len(p) && p[k] >= 'A' && p[k] <= 'Z' {
				k++
			}
			j = k
			for j < len(p) && p[j] >= 'a' && p[j] <= 'z' {
				j++
			}
			lower += j - k
			start := i
			if j > k && k-i > 1 {
				acronyms++
				start = k - 1
			} else if j == k {
				acronyms++
				break
			}
			if consonantRun(p[start:j]) > 4 {
				return false // not a word: jgkxvbt
			}
			if i == 0 && j == 1 && j < len(p) { // the x of xAuth, the i of iPhone
				break
			}
			words++
			wordLetters += j - start
			if j-start < 3 {
				short++
			}
		default:
			return false
		}
		i = j
	}
	if numbers > 1 { // digits sprinkled among letters
		return false
	}
	if lower == 0 { // CONST_CASE, 2024, AES256
		return true
	}
	if len(p) <= 4 { // fp, iOS, Key
		return true
	}
	return short*3 <= words && acronyms*2 <= words+1 && wordLetters*2 >= words*7
}

// consonantRun is the longest run of consonants in w.
func consonantRun(w string) int {
	run, longest := 0, 0
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			run = 0
		default:
			run++
			longest = max(longest, run)
		}
	}
	return longest
}

// constCase is an upper-case identifier, the name of another variable.
func constCase(v string) bool {
	letters, digits, under := 0, 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9':
			digits++
		case c == '_':
			under = true
		default:
			return false
		}
	}
	return letters > 0 && (digits == 0 || under)
}

// camelIdent is a letters-only camelCase identifier: passwordFromVault.
func camelIdent(v string) bool {
	upper := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
		default:
			return false
		}
	}
	return upper > 0 && upper*4 <= len(v) && v[0] >= 'a' && v[0] <= 'z'
}

// classes counts which of lower case, upper case, digits and other
// characters v uses.
func classes(v string) int {
	var lo, up, dg, ot int
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			lo = 1
		case c >= 'A' && c <= 'Z':
			up = 1
		case c >= '0' && c <= '9':
			dg = 1
		default:
			ot = 1
		}
	}
	return lo + up + dg + ot
}

// entropy is the Shannon entropy of v's bytes in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	n := float64(len(v))
	var e float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			e -= p * math.Log2(p)
		}
	}
	return e
}
