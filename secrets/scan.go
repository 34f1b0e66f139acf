package secrets

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Rule names, as they appear in findings and messages.
const (
	rulePEM       = "private key block"
	ruleAWSKeyID  = "AWS access key id"
	ruleAWSSecret = "AWS secret access key"
	ruleGitHub    = "GitHub token"
	ruleGitLab    = "GitLab token"
	ruleSlack     = "Slack token"
	ruleSlackHook = "Slack webhook URL"
	ruleStripe    = "Stripe key"
	ruleGoogle    = "Google API key"
	ruleOpenAI    = "OpenAI API key"
	ruleAnthropic = "Anthropic API key"
	ruleNPM       = "npm token"
	ruleJWT       = "JSON web token"
	ruleURL       = "password in a URL"
	rulePassword  = "password assignment"
	ruleToken     = "token assignment"
	ruleKey       = "key assignment"
	ruleSecret    = "secret assignment"
	ruleEnv       = ".env secret line"
)

// A pattern is a regular expression for one credential format.
type pattern struct {
	name string
	re   *regexp.Regexp
	// group is the submatch that is the secret itself (0: the whole match);
	// its start is where the finding is reported.
	group int
	// check, when set, must accept the match (m as from FindAllStringSubmatchIndex).
	check func(text string, m []int) bool
	// The expression only runs when one of hints occurs in the text (in
	// the text lower-cased when lower is set): looking for a literal is
	// far cheaper than running an expression over every note.
	hints []string
	lower bool
}

// patterns are tried in this order; when two findings overlap the
// earlier pattern wins, and every pattern wins over the generic
// assignment and .env rules.
var patterns = []pattern{
	{name: rulePEM, hints: []string{"PRIVATE KEY"},
		re:    regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`),
		check: func(text string, m []int) bool { return keyMaterialAfter(text, m[1]) }},
	{name: ruleAWSKeyID, hints: []string{"AKIA", "ASIA"},
		re:    regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
		check: notTokenPlaceholder},
	{name: ruleGitHub, hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re:    regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`),
		check: notTokenPlaceholder},
	{name: ruleGitHub, hints: []string{"github_pat_"},
		re:    regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{50,255}\b`),
		check: notTokenPlaceholder},
	{name: ruleGitLab, hints: []string{"glpat-"},
		re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}`),
		check: func(text string, m []int) bool {
			return notTokenPlaceholder(text, m) && classes(text[m[0]+6:m[1]]) >= 2
		}},
	{name: ruleSlack, hints: []string{"xox"},
		re:    regexp.MustCompile(`\bxox[abprse]-[0-9]+-[A-Za-z0-9\-]{8,}`),
		check: notTokenPlaceholder},
	{name: ruleSlackHook, hints: []string{"hooks.slack.com"},
		re:    regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_]+/[A-Za-z0-9_]+/[A-Za-z0-9_/]{8,}`),
		check: notTokenPlaceholder},
	{name: ruleStripe, hints: []string{"_live_"},
		re:    regexp.MustCompile(`\b[sr]k_live_[A-Za-z0-9]{16,}\b`),
		check: notTokenPlaceholder},
	{name: ruleGoogle, hints: []string{"AIza"},
		re:    regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`),
		check: notTokenPlaceholder},
	{name: ruleAnthropic, hints: []string{"sk-ant-"},
		re:    regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`),
		check: func(text string, m []int) bool { return notTokenPlaceholder(text, m) && mixedAlnum(text[m[0]+7:m[1]]) }},
	// OpenAI keys: sk- followed by base62 (legacy), or sk-proj-, sk-svcacct-,
	// sk-admin- followed by base64url. Requiring upper, lower and digit
	// keeps kebab-case words after "sk-" out.
	{name: ruleOpenAI, hints: []string{"sk-"},
		re: regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`),
		check: func(text string, m []int) bool {
			v := text[m[0]:m[1]]
			return !strings.HasPrefix(v, "sk-ant-") && notTokenPlaceholder(text, m) && mixedAlnum(v[3:])
		}},
	{name: ruleNPM, hints: []string{"npm_"},
		re:    regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`),
		check: notTokenPlaceholder},
	{name: ruleJWT, hints: []string{"eyJ"},
		re: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}`)},
	{name: ruleAWSSecret, hints: []string{"aws_secret", "awssecret", "aws-secret"}, lower: true, group: 1,
		re: regexp.MustCompile(`(?i)aws[_\-]?secret[_\-]?(?:access[_\-]?)?key["'\x60]?\s*(?::=|=>|[:=])\s*["'\x60]?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`),
		check: func(text string, m []int) bool {
			v := text[m[2]:m[3]]
			return !placeholder(v) && classes(v) >= 2
		}},
}

// notTokenPlaceholder rejects the documentation stand-ins for prefixed
// tokens (AKIA…EXAMPLE, ghp_xxxx…). It is narrower than placeholder: a
// random token may well contain "test" or "null" by chance.
func notTokenPlaceholder(text string, m []int) bool {
	l := strings.ToLower(text[m[0]:m[1]])
	for _, w := range []string{"example", "xxxx", "your", "placeholder", "redacted", "0000000000", "..."} {
		if strings.Contains(l, w) {
			return false
		}
	}
	return true
}

// mixedAlnum: upper case, lower case and a digit, as any random base62 or
// base64 string of 20 characters or more has.
func mixedAlnum(v string) bool {
	var up, lo, dg bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		lo = lo || c >= 'a' && c <= 'z'
		dg = dg || c >= '0' && c <= '9'
	}
	return up && lo && dg
}

// urlPasswords calls found for the password of every
// scheme://user:password@host in text (the user may be empty, as in
// redis://:password@host), unless the password is a placeholder, a
// reference, the user's name again (postgres:postgres) or a well-known
// default, or the host is a documentation one. It is written out rather
// than a regular expression because an expression without a literal
// prefix would be tried at every position of every note.
func urlPasswords(text string, found func(start, end int)) {
	for i := 0; ; {
		k := strings.Index(text[i:], "://")
		if k < 0 {
			return
		}
		sep := i + k
		i = sep + 3
		s := sep
		for s > 0 && sep-s < 32 && schemeByte(text[s-1]) {
			s--
		}
		if s == sep || !isLetter(text[s]) {
			continue
		}
		// userinfo runs to the '@'; no '/', space or quote on the way.
		at := i
		for at < len(text) && at-i < 256 && strings.IndexByte("@/ \t\r\n\"'<>`", text[at]) < 0 {
			at++
		}
		if at >= len(text) || text[at] != '@' {
			continue
		}
		colon := strings.IndexByte(text[i:at], ':')
		if colon < 0 {
			continue
		}
		user, pw := text[i:i+colon], text[i+colon+1:at]
		if u, err := url.PathUnescape(pw); err == nil {
			pw = u // p%40ssword is p@ssword
		}
		he := at + 1
		for he < len(text) && strings.IndexByte("/?#: \t\r\n\"'<>`", text[he]) < 0 {
			he++
		}
		host := strings.ToLower(text[at+1 : he])
		if host == "" || len(pw) < 4 || pw == user || placeholder(pw) || reference(pw) ||
			placeholder(host) || host == "host" || host == "hostname" {
			continue
		}
		found(i+colon+1, at)
	}
}

func schemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// keyMaterialAfter reports whether a private key header at end is followed
// by key material (a base64 run, or a PEM/PGP header line), allowing for the
// ways a key gets quoted: escaped newlines in JSON, quote marks, "> " and
// "# " prefixes, string concatenation. A header mentioned in prose, or a
// key shown as "MIIE...", is not a key.
func keyMaterialAfter(text string, end int) bool {
	i, limit := end, min(len(text), end+256)
	for i < limit {
		c := text[i]
		if c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r') {
			i += 2
			continue
		}
		if strings.IndexByte(" \t\r\n\"'`>#*+,;", c) < 0 {
			break
		}
		i++
	}
	rest := text[i:]
	for _, h := range []string{"Proc-Type:", "DEK-Info:", "Version:", "Comment:", "Hash:", "Charset:"} {
		if strings.HasPrefix(rest, h) {
			return true
		}
	}
	n := 0
	for n < len(rest) && n < 16 && isBase64(rest[n]) {
		n++
	}
	return n >= 16
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// A hit is a finding before it has a line and column: the byte span of the
// secret, and the priority of the rule that found it (lower wins).
type hit struct {
	start, end, prio int
	rule             string
}

// Priorities of the rules that are not patterns.
const (
	prioURL    = 999
	prioEnv    = 1000 // an .env line is more telling than an assignment
	prioAssign = 1001
)

// Scan returns every finding in text (Field left empty), in order of
// position. A secret that several rules recognise is reported once, under
// the most specific rule.
func Scan(text string) []Finding {
	var hits []hit
	add := func(start, end, prio int, rule string) {
		if end > start {
			hits = append(hits, hit{start, end, prio, rule})
		}
	}
	lower := ""
	for p, pt := range patterns {
		hay := text
		if pt.lower {
			if lower == "" {
				lower = asciiLower(text)
			}
			hay = lower
		}
		if !containsAny(hay, pt.hints) {
			continue
		}
		for _, m := range pt.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2*pt.group], m[2*pt.group+1]
			if s < 0 || pt.check != nil && !pt.check(text, m) {
				continue
			}
			add(s, e, p, pt.name)
		}
	}
	urlPasswords(text, func(s, e int) { add(s, e, prioURL, ruleURL) })
	assignments(text, func(s, e int, rule string) { add(s, e, prioAssign, rule) })
	envLines(text, func(s, e int) { add(s, e, prioEnv, ruleEnv) })
	if len(hits) == 0 {
		return nil
	}
	return locate(text, dedupe(hits))
}

// dedupe keeps, of overlapping hits, the one of the best priority (then the
// earliest), and returns the kept hits in order of position.
func dedupe(hits []hit) []hit {
	if len(hits) == 1 {
		return hits
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].prio != hits[j].prio {
			return hits[i].prio < hits[j].prio
		}
		return hits[i].start < hits[j].start
	})
	// kept is sorted by position and free of overlaps, so its ends are
	// sorted too.
	kept := make([]hit, 0, len(hits))
	for _, h := range hits {
		i := sort.Search(len(kept), func(i int) bool { return kept[i].end > h.start })
		if i < len(kept) && kept[i].start < h.end {
			continue
		}
		kept = append(kept, hit{})
		copy(kept[i+1:], kept[i:])
		kept[i] = h
	}
	return kept
}

// locate turns sorted hits into findings with 1-based lines and rune columns,
// in one pass over the text.
func locate(text string, hits []hit) []Finding {
	out := make([]Finding, 0, len(hits))
	line, col, pos := 1, 1, 0
	for _, h := range hits {
		for pos < h.start {
			r, size := utf8.DecodeRuneInString(text[pos:])
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			pos += size
		}
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
