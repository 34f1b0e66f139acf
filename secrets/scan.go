package secrets

import (
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

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
		if host == "" || len(pw) < 4 || pw == user || placeholder(pw) || reference(pw) || docHost(host) {
			continue
		}
		found(i+colon+1, at)
	}
}

// docHost reports whether a URL's host is one documentation uses: the
// reserved example domains (RFC 2606) and the words that stand for a host.
// A real-looking password to any other host — postgres, testdb.internal,
// localhost — is a password, whatever the host is called.
func docHost(host string) bool {
	switch host {
	case "host", "hostname", "your-host", "yourhost", "server", "example":
		return true
	}
	for _, d := range []string{"example.com", "example.org", "example.net"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return strings.HasSuffix(host, ".example") || strings.HasSuffix(host, ".invalid")
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
	prioShape  = 998 // netrc entries, command-line passwords, XML elements, call arguments
	prioURL    = 999
	prioEnv    = 1000 // an .env line is more telling than an assignment
	prioAssign = 1001
)

// Scan returns every finding in text (Field left empty), in order of
// position. A secret that several rules recognise is reported once, under
// the most specific rule.
func Scan(text string) []Finding {
	hits := scanHits(text)
	if len(hits) == 0 {
		return nil
	}
	return locate(text, hits)
}

// scanHits is every secret's byte span in text, without overlaps, in order
// of position.
func scanHits(text string) []hit {
	var hits []hit
	add := func(start, end, prio int, rule string) {
		if end > start {
			hits = append(hits, hit{start, end, prio, rule})
		}
	}
	var need triggers
	var buf [8]candidate
	cands := findLiterals(text, &need, buf[:0])
	for _, c := range cands {
		pt := &patterns[c.pat]
		w := text[c.pos:min(len(text), c.pos+pt.window())]
		m := pt.re().FindStringSubmatchIndex(w)
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += c.pos
			}
		}
		pt.report(text, m, c.pat, add)
	}
	for p := range patterns {
		pt := &patterns[p]
		if !pt.mid || !need.has(p) {
			continue
		}
		for _, m := range pt.re().FindAllStringSubmatchIndex(text, -1) {
			pt.report(text, m, p, add)
		}
	}
	for s, sc := range scanners {
		if need.has(len(patterns) + s) {
			sc.run(text, func(start, end int, rule string) { add(start, end, prioShape, rule) })
		}
	}
	urlPasswords(text, func(s, e int) { add(s, e, prioURL, ruleURL) })
	assignments(text, func(s, e int, rule string) { add(s, e, prioAssign, rule) })
	envLines(text, func(s, e int) { add(s, e, prioEnv, ruleEnv) })
	if len(hits) == 0 {
		return nil
	}
	return dedupe(hits)
}

// report adds the hit for match m of pattern p, if its check accepts it.
func (pt *pattern) report(text string, m []int, p int, add func(start, end, prio int, rule string)) {
	s, e := m[2*pt.group], m[2*pt.group+1]
	if s < 0 || pt.check != nil && !pt.check(text, m) {
		return
	}
	add(s, e, p, pt.name)
}

// dedupe keeps, of overlapping hits, the one of the best priority (then the
// earliest), and returns the kept hits in order of position.
func dedupe(hits []hit) []hit {
	if len(hits) == 1 {
		return hits
	}
	// Token formats all rank alike, and of two that overlap the one that
	// starts first wins: a prefix inside a longer token (…=sk-… in an
	// Atlassian token) is part of it. Then the earlier pattern wins.
	rank := func(h hit) int { return min(h.prio, prioShape-1) }
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if a.start != b.start {
			return a.start < b.start
		}
		return a.prio < b.prio
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
