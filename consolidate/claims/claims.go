// Package claims reads short facts as claims (words and typed values with
// a polarity) and finds where two of them contradict each other; it also
// parses the values facts hold (quantities, versions, ports, paths). It is
// pure: text in, readings out, no store and no settings.
package claims

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"cairn/internal/lang"
	"cairn/memory"
)

// Conflict says how newer contradicts older.
type Conflict struct {
	Subject string `json:"subject"` // the shared subject in words, e.g. "deploys go through", "api listens on port"
	Old     string `json:"old"`     // older's value, e.g. "ArgoCD", "8080", "v1.4.2", "src/auth.go"
	New     string `json:"new"`     // newer's value
	// How is "number", "version", "port", "path", "not" (X, not Y),
	// "negation" (X / not X) or "value" (a named or quoted value).
	How string `json:"how"`
}

// Reconciliation reads a memory as a handful of short claims, each a list
// of words and values with a polarity, and calls two claims contradictory
// only when they say the same thing word for word except for one value of
// the same kind, or say exactly the same thing with opposite polarity.
// A false contradiction supersedes a true memory without anyone asking, so
// everything uncertain (lists, hedges, "also", a pronoun for a subject, a
// different unit, an elaboration) counts as no contradiction.

// maxClaimSentences bounds how much of a memory is read for claims: facts
// are short, and a long note is not a fact to supersede sentence by sentence.
const maxClaimSentences = 6

// maxClaimWords: a sentence longer than this is prose, not a crisp claim.
const maxClaimWords = 40

// Compare reads older and newer as claims and reports how newer states a
// different value than older for the same subject: the first conflict
// found, one that says "X, not Y" outright before one the values say.
// event: one of them is a dated event, and two events are both true; only a
// measurement taken again (a number with its unit) replaces an earlier one.
func Compare(older, newer string, event bool) (Conflict, bool) {
	if older == newer {
		return Conflict{}, false
	}
	op, np := claimCache.Get(older), claimCache.Get(newer)
	oc, nc := op.claims, np.claims
	if len(oc) == 0 || len(nc) == 0 {
		return Conflict{}, false
	}
	// The contract with the bucketing: a pair whose subject keys neither
	// match nor contain one another is never a contradiction.
	if !wordsMeet(op.words, np.words) {
		return Conflict{}, false
	}
	var found *Conflict
	for i := range nc {
		for j := range oc {
			c, ok := compareClaims(&oc[j], &nc[i])
			if !ok || event && c.How != "number" {
				continue
			}
			if c.How == "not" {
				return c, true // what the text says outright beats what the values say
			}
			if found == nil {
				found = &c
			}
		}
	}
	if found == nil {
		return Conflict{}, false
	}
	return *found, true
}

// KeysMeet reports whether two subject keys are equal, or the words of one
// are all among the other's: the only pairs Compare can find in conflict.
func KeysMeet(a, b string) bool {
	return wordsMeet(strings.Fields(a), strings.Fields(b))
}

// Corrected reads a correction "X, not Y" (or "not Y but X") in text whose
// Y is corrects: what changed, and the wrong claim as a sentence ("port is
// 8080").
func Corrected(text, corrects string) (Conflict, string, bool) {
	for _, cl := range claimCache.Get(text).claims {
		if !cl.fromNot || cl.pos || cl.slotHi <= cl.slotLo {
			continue
		}
		old := rawOf(cl.toks[cl.slotLo:cl.slotHi])
		if !strings.EqualFold(strings.Trim(old, "`\"'"), strings.Trim(corrects, "`\"'")) && !strings.Contains(strings.ToLower(corrects), strings.ToLower(old)) {
			continue
		}
		subject := subjectOf(&cl, cl.slotLo, cl.slotHi)
		if subject == "" || cl.alt == "" {
			continue
		}
		return Conflict{Subject: subject, Old: old, New: cl.alt, How: "not"}, rawOf(cl.toks), true
	}
	return Conflict{}, "", false
}

// ClaimText is the text of a memory that Contradicts reads: its body, with
// the title in front when a person chose one. Bucket memories by
// SubjectKey(ClaimText(m)) so that pairs Contradicts can find share a
// bucket (or one's key holds the other's words).
func ClaimText(m *memory.Memory) string {
	body := strings.TrimSpace(m.Body)
	if body == "" {
		return m.Title
	}
	// A title drawn from the body (memory.DeriveTitle: its first line, cut
	// with "…" when long) says nothing the body does not; this test is
	// cheaper than deriving it again for every comparison.
	if m.Title == "" || strings.HasPrefix(body, strings.TrimSuffix(m.Title, "…")) {
		return m.Body
	}
	return m.Title + "\n" + m.Body
}

// SubjectKey buckets a text by its subject: the normalised text with its
// values (numbers, versions, ports, paths, quoted strings, names in a value's
// place, both sides of "X, not Y", negation words) taken out and stop words
// dropped, stemmed, sorted, joined. Two memories can only contradict each
// other when their keys are equal or one's words contain the other's.
// It returns "" when nothing is left.
func SubjectKey(text string) string {
	return claimsKey(readClaims(text))
}

// claimReading is a text read once: its claims and its subject key. It is
// shared and never changed after it is made.
type claimReading struct {
	claims []claim
	words  []string // its subject key's words, sorted
}

// Cache keeps what texts say, read one way (claims, updates): the pass
// compares each memory with a dozen peers, and reading a text costs more
// than comparing two. A reading is shared and never changed.
type Cache[T any] struct {
	read func(string) T
	mu   sync.Mutex
	m    map[string]T
}

// MaxReadings bounds a cache; when full it starts again (a pass walks the
// store once, so the recent texts are the ones that come back).
const MaxReadings = 16384

// NewCache is a cache of what read says of a text.
func NewCache[T any](read func(string) T) *Cache[T] { return &Cache[T]{read: read} }

var claimCache = NewCache(func(text string) *claimReading {
	cs := readClaims(text)
	return &claimReading{claims: cs, words: strings.Fields(claimsKey(cs))}
})

// Get is what the cache's reader says of text, read at most once while
// the cache holds it.
func (rs *Cache[T]) Get(text string) T {
	rs.mu.Lock()
	r, ok := rs.m[text]
	rs.mu.Unlock()
	if ok {
		return r
	}
	r = rs.read(text)
	rs.mu.Lock()
	if rs.m == nil || len(rs.m) >= MaxReadings {
		rs.m = make(map[string]T, 1024)
	}
	rs.m[strings.Clone(text)] = r
	rs.mu.Unlock()
	return r
}

func claimsKey(cs []claim) string {
	var ws []string
	for i := range cs {
		for k, t := range cs[i].toks {
			if k >= cs[i].slotLo && k < cs[i].slotHi {
				continue
			}
			if t.kind == tkWord && !t.stop && !t.nameValue {
				ws = append(ws, t.key)
			}
		}
	}
	if len(ws) == 0 {
		return ""
	}
	slices.Sort(ws)
	return strings.Join(slices.Compact(ws), " ")
}

// wordsMeet is KeysMeet on the sorted words of two keys.
func wordsMeet(wa, wb []string) bool {
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	for _, w := range wa {
		if _, ok := slices.BinarySearch(wb, w); !ok {
			return false
		}
	}
	return true
}

// ---- claims ----

// claim is one statement: its words and values in order, with a polarity.
type claim struct {
	toks []ctoken
	pos  bool // affirmed (true) or denied
	// negAt is where the negation stood (index into toks) and negRaw what
	// it said ("not", "no longer", or the antonym as written).
	negAt  int
	negRaw string
	// slotLo..slotHi is the X or Y of "X, not Y" in toks; alt is the other
	// side as written. Empty slot (lo == hi == 0) when not from a pattern.
	slotLo, slotHi int
	alt            string
	fromNot        bool
	initial        bool // toks[0] began the sentence
	hedged         bool // maybe, probably, if …: not a statement of fact
	additive       bool // also, too, as well: adds, does not replace
	command        bool // an instruction: "Run `make test` …"
}

type tkind uint8

const (
	tkWord tkind = iota
	tkPunct
	tkNumber
	tkVersion
	tkPort
	tkAddress // host:port
	tkPath
	tkURL
	tkQuoted // `code` or "quoted"
	tkDate
	tkTime // a time of day, or a size like 80x24: compared as written
	tkCommit
)

func (k tkind) typed() bool { return k >= tkNumber }

// ctoken is one word, value or punctuation mark of a claim.
type ctoken struct {
	raw  string // as written
	low  string // a word as written, lower case (for the word lists)
	key  string // how it compares: a stem, or a value's canonical form
	kind tkind
	at   int  // its place in the sentence
	stop bool // a function word: compared, but not part of the subject
	// name: a named thing (Postgres, ArgoCD) by its spelling; nameValue: a
	// name standing where a value stands (not qualifying a following word).
	name, nameValue bool
	neg             bool    // a negation marker (not, never, no longer)
	antonym         bool    // a word read as "not <key>" (disabled → not enabled)
	comma           bool    // a comma follows: a list may
	num             float64 // a number in its dimension's base unit
	dim, unit       string  // "time", "size"…; the unit as written
}

// readClaims reads the claims of a text.
func readClaims(text string) []claim {
	var out []claim
	var seen []string
	for _, s := range claimSentences(text, maxClaimSentences) {
		s = strings.TrimRight(s, ".!")
		if slices.ContainsFunc(seen, func(o string) bool { return strings.EqualFold(o, s) }) {
			continue // a title that repeats the body's first sentence
		}
		seen = append(seen, s)
		out = append(out, sentenceClaims(s)...)
		// "We deploy with ArgoCD, and the service listens on port 8080"
		// says two things: each clause is a claim of its own too.
		if parts := strings.Split(s, ", and "); len(parts) > 1 {
			for _, p := range parts {
				out = append(out, sentenceClaims(strings.TrimSpace(p))...)
			}
		}
	}
	return out
}

// noStopAbbrevs: abbreviations whose dot does not end a sentence.
var noStopAbbrevs = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "cf": true, "incl": true, "esp": true, "resp": true}

// claimSentences cuts text into sentences: at . ! ? before a space, at ;
// and at line ends, never inside a quoted or `code` span; fenced code and
// questions are left out, list and heading marks dropped.
func claimSentences(text string, max int) []string {
	var out []string
	fence := false
	for ln := range strings.Lines(text) {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || t == "" {
			continue
		}
		t = strings.TrimSpace(strings.TrimLeft(t, "#>"))
		for _, p := range []string{"- ", "* ", "+ ", "• "} {
			t = strings.TrimPrefix(t, p)
		}
		if i := strings.IndexAny(t, ".)"); i > 0 && i <= 3 && i+1 < len(t) && t[i+1] == ' ' && DigitsOnly(t[:i]) {
			t = t[i+2:] // "1. step"
		}
		rs := []rune(t)
		start := 0
		var quote rune
		emit := func(end int) bool {
			s := strings.TrimSpace(string(rs[start:end]))
			start = end + 1
			if s == "" || strings.HasSuffix(s, "?") {
				return false
			}
			out = append(out, s)
			return len(out) >= max
		}
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			if quote != 0 {
				if r == quote || quote == '"' && r == '”' {
					quote = 0
				}
				continue
			}
			switch r {
			case '`', '"', '“':
				quote = r
				if r == '“' {
					quote = '”'
				}
			case ';':
				if emit(i) {
					return out
				}
			case '.', '!', '?':
				if i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
					continue // 1.22, config/app.yaml, e.g.
				}
				w := lastWordOf(rs[start:i])
				if r == '.' && (noStopAbbrevs[strings.ToLower(w)] || len([]rune(w)) == 1 && unicode.IsUpper([]rune(w)[0])) {
					continue
				}
				if r == '?' {
					if emit(i + 1) {
						return out
					}
					continue
				}
				if emit(i) {
					return out
				}
			}
		}
		if start < len(rs) && emit(len(rs)) {
			return out
		}
	}
	return out
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lastWordOf(rs []rune) string {
	i := len(rs)
	for i > 0 && !unicode.IsSpace(rs[i-1]) {
		i--
	}
	return string(rs[i:])
}

func DigitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Word classes. Fillers carry nothing for a claim and are dropped; stop
// words are compared (they shape the frame: "to" is not "from") but are
// not part of the subject.
var (
	FillerWords = lang.WordSet(`a an the now currently still actually really just today presently anymore already
		nowadays indeed do does did basically simply recently finally definitely certainly obviously
		officially again yet ever always`)
	FuncWords = lang.WordSet(`i me my we us our you your they them their it its he him his she her this that these
		those there here be was have will would can could shall should may might must to of in on at by
		for from with through via into onto over under about as than behind after before within without
		across between per and or but nor so which who whom whose what whereFrom when how why all any some
		each every very then only because since while although though until whereas`)
	// interjections open a correction ("No, …", "Actually, …") and say nothing.
	OpenerWords = lang.WordSet(`no nope yes yeah ok okay actually correction update fyi note so well sorry oh hmm
		right wait`)
	// auxiliaries after a name make it the subject ("the search API is …").
	auxWords = lang.WordSet(`be was have will would can could shall should may might must`)
	// vague subjects: two claims about "it" may be about different things.
	vagueWords = lang.WordSet(`it this that they these those he she`)
	// hedges make a claim a guess; conditionals make it not a plain fact.
	hedgeWords = lang.WordSet(`maybe might probably perhaps possibly likely unlikely apparently seemingly seems seem
		appears guess think believe suspect assume hopefully could would should may if unless whether
		usually generally typically normally often sometimes mostly occasionally`)
	// "not just Y", "not always Y": not a denial of Y.
	softNotWords = lang.WordSet(`just only merely simply solely necessarily always all even exactly`)
	// A number after these names a thing (issue 11, step 3, PR 41), it does
	// not measure it.
	IDNounWords = lang.WordSet(`issue issues pr prs ticket tickets bug bugs step steps phase stage bench benchmark section
		chapter item flatLine row page task story epic milestone sprint case rule option figure table example
		lesson number no id adr rfc run build job attempt round`)
	// An instruction that starts with these ("Run `make test`", "Use X")
	// is one of several; a different name or command in it is another
	// instruction, not a correction.
	commandVerbs = lang.WordSet(`run use call set add check avoid prefer try make put keep install build start stop
		open read write see ensure remember commit push pull deploy test lint format update upgrade bump
		pin enable disable configure create delete remove rename move copy`)
	additiveWords = lang.WordSet(`also too additionally plus both either another additional extra`)
	// approximations: "about 40 ms" and "about 38 ms" do not contradict.
	approxWords = lang.WordSet(`about around approximately roughly nearly almost ~ over under least most than less fewer
		upto`)
	// copulas and friends, read as one word each.
	CanonWords = map[string]string{"is": "be", "are": "be", "am": "be", "been": "be", "being": "be",
		"were": "was", "has": "have", "had": "have", "having": "have", "goes": "go", "went": "go",
		"gone": "go", "does": "do", "did": "do", "&": "and"}
	// antonyms read as "not <key>": "the cache is disabled" = "… not enabled".
	antonymWords = map[string]string{"disabled": "enabled", "disable": "enable", "disables": "enables",
		"inactive": "active", "unavailable": "available", "unsupported": "supported", "false": "true",
		"fails": "passes", "failing": "passing", "failed": "passed", "fail": "pass", "forbidden": "allowed",
		"disallowed": "allowed", "absent": "present", "off": "on"}
	VersionWords = lang.WordSet(`version versions release go golang node nodejs python rust java ruby php perl
		postgres postgresql mysql redis kubernetes k8s debian ubuntu alpine llvm clang gcc dotnet kotlin
		swift scala elixir erlang deno bun npm pnpm yarn terraform helm docker`)
)

// sentenceClaims reads one sentence: its words and values, then the
// patterns that make two claims of it ("X, not Y", "not Y but X", "X
// instead of Y"), or a negation that flips it.
func sentenceClaims(s string) []claim {
	toks, command, ok := claimTokens(s)
	if !ok {
		return nil
	}
	negs := 0
	for _, t := range toks {
		if t.neg || t.antonym {
			negs++
		}
	}
	var out []claim
	if c, ok := notPattern(toks); ok {
		if negs > 1 {
			return nil // "X, not Y" with a second negation: too tangled to read
		}
		out = c
	} else if c, ok := insteadPattern(toks); ok {
		if negs > 0 {
			return nil
		}
		out = c
	} else {
		if negs > 1 {
			return nil
		}
		out = []claim{plainClaim(toks)}
	}
	for i := range out {
		c := &out[i]
		if len(c.toks) == 0 {
			return nil
		}
		c.initial = c.toks[0].at == 0
		c.command = command
		settle(c)
	}
	return out
}

// claimTokens reads a sentence's tokens for claims: an opening
// interjection and leading punctuation left out, fillers dropped, names
// marked, an antonym that qualifies the next word read as a word; command
// says the sentence is an instruction. ok is false for a sentence too
// long or too subtle to read.
func claimTokens(s string) (toks []ctoken, command, ok bool) {
	toks = lexClaim(s)
	if len(toks) == 0 || len(toks) > maxClaimWords {
		return nil, false, false
	}
	for i, t := range toks {
		if t.neg && i+1 < len(toks) && softNotWords[toks[i+1].low] {
			return nil, false, false // "not just MySQL" affirms MySQL; too subtle to read
		}
	}
	// "No, actually …": an opening interjection is not a negation.
	for len(toks) >= 2 && toks[0].kind == tkWord && OpenerWords[toks[0].low] && toks[1].kind == tkPunct {
		toks = toks[2:]
	}
	for len(toks) > 0 && toks[0].kind == tkPunct {
		toks = toks[1:]
	}
	// An instruction starts with its verb, after an adverb ("Always run …")
	// but not after an article ("The build command …").
	for _, t := range toks {
		if t.kind == tkWord && FillerWords[t.low] && t.low != "the" && t.low != "a" && t.low != "an" {
			continue
		}
		command = t.kind == tkWord && commandVerbs[t.low]
		break
	}
	kept := toks[:0] // in place: it never overtakes the reading
	for _, t := range toks {
		// Fillers go; so does "do" ("does not listen" = "not listens").
		if t.kind == tkWord && (FillerWords[t.low] || t.key == "do") {
			continue
		}
		t.at = len(kept)
		kept = append(kept, t)
	}
	toks = kept
	markNames(toks)
	// "failing tests", "disabled users": an antonym that qualifies the
	// word after it names a thing; only "tests fail", "is disabled" deny.
	for i := range toks {
		if t := &toks[i]; t.antonym && i+1 < len(toks) && (toks[i+1].kind == tkWord && !toks[i+1].stop && !toks[i+1].neg || toks[i+1].kind.typed()) {
			t.antonym, t.key, t.stop = false, lang.Stem(t.low), FuncWords[t.low]
		}
	}
	return toks, command, true
}

// plainClaim is a sentence read as one claim: its words and values, denied
// where a negation or an antonym stands.
func plainClaim(toks []ctoken) claim {
	c := claim{pos: true, negAt: -1}
	for _, t := range toks {
		switch {
		case t.kind == tkPunct:
			if len(c.toks) > 0 && t.raw == "," {
				c.toks[len(c.toks)-1].comma = true
			}
		case t.neg:
			c.pos, c.negAt, c.negRaw = false, len(c.toks), t.raw
		case t.antonym:
			c.pos, c.negAt, c.negRaw = false, len(c.toks), t.raw
			c.toks = append(c.toks, t)
		default:
			c.toks = append(c.toks, t)
		}
	}
	return c
}

// settle types the values a claim's context decides (a port after "port",
// a version after "Go"), finds names in a value's place, and notes hedges.
func settle(c *claim) {
	ts := c.toks
	for i := range ts {
		t := &ts[i]
		if t.kind == tkWord {
			c.hedged = c.hedged || hedgeWords[t.low]
			c.additive = c.additive || additiveWords[t.low] || t.low == "well" && i > 0 && ts[i-1].low == "as"
			continue
		}
		if t.kind != tkNumber || t.dim != "" || i == 0 {
			continue
		}
		prev := ts[i-1]
		switch {
		case prev.kind == tkWord && IDNounWords[prev.low] && t.num == math.Trunc(t.num) && t.num >= 0:
			t.kind, t.key = tkWord, t.raw // part of the subject's name
		case prev.kind == tkWord && (prev.low == "port" || prev.low == "ports"):
			if n, ok := ParsePort(t.raw); ok {
				t.kind, t.key = tkPort, strconv.Itoa(n)
			}
		case prev.kind == tkWord && (VersionWords[prev.low] || prev.name) && !prev.stop:
			t.kind, t.key = tkVersion, VersionKey(t.raw)
		}
	}
	// A run of names is a value unless it qualifies the word after it
	// ("the Billing service", "Go 1.22") or is the subject of a verb ("the
	// search API is stable").
	for i := 0; i < len(ts); {
		if !ts[i].name {
			i++
			continue
		}
		j := i
		for j < len(ts) && ts[j].name {
			j++
		}
		value := j-i <= 3 && (j == len(ts) || ts[j-1].comma || ts[j].kind == tkWord && ts[j].stop && !auxWords[ts[j].key])
		for k := i; k < j; k++ {
			ts[k].nameValue = value
		}
		i = j
	}
}

// notPattern reads "X, not Y", "X (not Y)", "X and not Y", "X, no longer
// Y" and "not Y but X" as two claims: X affirmed and Y denied.
func notPattern(ts []ctoken) ([]claim, bool) {
	for k, t := range ts {
		if !t.neg || t.antonym {
			continue
		}
		// not Y but X
		ylo, yhi, ok := valueSpan(ts, k+1)
		if ok {
			b := yhi
			if b < len(ts) && ts[b].kind == tkPunct && ts[b].raw == "," {
				b++
			}
			if b < len(ts) && ts[b].kind == tkWord && ts[b].low == "but" {
				if xlo, xhi, ok := valueSpan(ts, b+1); ok && sameLead(ts[ylo:yhi], ts[xlo:xhi]) {
					return expand(ts[:k], ts[xlo:xhi], ts[ylo:yhi], ts[xhi:]), true
				}
			}
		}
		// X, not Y
		if k < 2 || !ok {
			continue
		}
		sep := ts[k-1]
		if !(sep.kind == tkPunct && (sep.raw == "," || sep.raw == "(" || sep.raw == "—") || sep.kind == tkWord && (sep.low == "and" || sep.low == "but")) {
			continue
		}
		rest := yhi
		for rest < len(ts) && ts[rest].kind == tkPunct && (ts[rest].raw == ")" || ts[rest].raw == ",") {
			rest++
		}
		if c, ok := againstY(ts, k-1, ylo, yhi, rest); ok {
			return c, true
		}
	}
	return nil, false
}

// insteadPattern reads "X instead of Y" and "X rather than Y".
func insteadPattern(ts []ctoken) ([]claim, bool) {
	for k := 1; k+1 < len(ts); k++ {
		if !(ts[k].low == "instead" && ts[k+1].low == "of" || ts[k].low == "rather" && ts[k+1].low == "than") {
			continue
		}
		ylo, yhi, ok := valueSpan(ts, k+2)
		if !ok {
			return nil, false
		}
		sep := k
		if ts[sep-1].kind == tkPunct && ts[sep-1].raw == "," {
			sep--
		}
		rest := yhi
		for rest < len(ts) && ts[rest].kind == tkPunct && ts[rest].raw == "," {
			rest++
		}
		return againstY(ts, sep, ylo, yhi, rest)
	}
	return nil, false
}

// againstY finds the X that Y stands against, before ts[sep] (the comma or
// "instead of"), and makes the two claims; rest is where the sentence goes
// on after Y. A lone name or value for Y stands against the nearest one
// like it ("We use Spinnaker for deploys, not ArgoCD"); otherwise X is as
// many words as Y right before the separator ("in prod, not in staging").
func againstY(ts []ctoken, sep, ylo, yhi, rest int) ([]claim, bool) {
	if y := ts[yhi-1]; yhi-ylo == 1 && (y.name || y.kind.typed()) {
		for x := sep - 1; x >= 0 && ts[x].kind != tkPunct && !ts[x].neg; x-- {
			if ts[x].name && y.name || ts[x].kind.typed() && sameFamily(ts[x].kind, y.kind) {
				between := slices.Clone(ts[x+1 : sep])
				return expand(ts[:x], ts[x:x+1], ts[ylo:yhi], append(between, ts[rest:]...)), true
			}
		}
	}
	xhi := sep
	xlo := xhi - (yhi - ylo)
	if xlo < 0 || !plainSpan(ts[xlo:xhi]) {
		return nil, false
	}
	return expand(ts[:xlo], ts[xlo:xhi], ts[ylo:yhi], ts[rest:]), true
}

// valueSpan is the Y after "not": up to two stop words ("through", "in")
// then one to three words or values, up to a stop word or a mark.
func valueSpan(ts []ctoken, i int) (int, int, bool) {
	lo := i
	for i < len(ts) && i-lo < 2 && ts[i].kind == tkWord && ts[i].stop && ts[i].low != "but" {
		i++
	}
	j := i
	for j < len(ts) && j-i < 3 && ts[j].kind != tkPunct && !ts[j].neg && !(ts[j].kind == tkWord && ts[j].stop) {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	if j < len(ts) && j-i == 3 && ts[j].kind != tkPunct && !(ts[j].kind == tkWord && ts[j].stop) {
		return 0, 0, false // longer than a value
	}
	return lo, j, true
}

// sameLead: the stop words that open two spans are the same ("through
// ArgoCD" / "through Spinnaker"), so they stand in the same place.
func sameLead(a, b []ctoken) bool {
	i := 0
	for i < len(a) && i < len(b) && a[i].stop && b[i].stop {
		if a[i].key != b[i].key {
			return false
		}
		i++
	}
	return (i == len(a) || !a[i].stop) && (i == len(b) || !b[i].stop)
}

// sameFamily: two kinds of value that can stand for each other.
func sameFamily(a, b tkind) bool {
	num := func(k tkind) bool { return k == tkNumber || k == tkVersion || k == tkPort }
	return a == b || num(a) && num(b)
}

func plainSpan(ts []ctoken) bool {
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if t.kind == tkPunct || t.neg {
			return false
		}
	}
	return true
}

// expand makes the two claims of a pattern: prefix X suffix affirmed and
// prefix Y suffix denied, X and Y cut to where they differ.
func expand(prefix, x, y, suffix []ctoken) []claim {
	for len(x) > 1 && len(y) > 1 && x[0].key == y[0].key {
		prefix = append(slices.Clip(prefix), x[0])
		x, y = x[1:], y[1:]
	}
	build := func(v []ctoken, pos bool, alt []ctoken) claim {
		c := claim{pos: pos, negAt: -1, fromNot: true}
		for _, t := range prefix {
			if t.kind != tkPunct {
				c.toks = append(c.toks, t)
			}
		}
		c.slotLo = len(c.toks)
		for _, t := range v {
			t.comma = false
			c.toks = append(c.toks, t)
		}
		c.slotHi = len(c.toks)
		for _, t := range suffix {
			if t.kind == tkPunct {
				if t.raw == "," && len(c.toks) > 0 {
					c.toks[len(c.toks)-1].comma = true
				}
				continue
			}
			c.toks = append(c.toks, t)
		}
		c.alt = rawOf(alt)
		if !pos {
			c.negAt, c.negRaw = c.slotLo, "not"
		}
		return c
	}
	return []claim{build(x, true, y), build(y, false, x)}
}

// ---- comparing claims ----

// compareClaims says whether n (newer) contradicts o (older).
func compareClaims(o, n *claim) (Conflict, bool) {
	if o.hedged || n.hedged || vagueSubject(o) || vagueSubject(n) {
		return Conflict{}, false
	}
	if o.pos != n.pos {
		return opposite(o, n)
	}
	if !o.pos || o.additive || n.additive || listed(o) || listed(n) {
		return Conflict{}, false
	}
	if len(o.toks) == len(n.toks) {
		return sameShape(o, n)
	}
	return namesDiffer(o, n)
}

// imperative: an instruction ("Run `make lint`", "Use Redis for …").
func imperative(c *claim) bool { return c.command }

// vagueSubject: a claim about "it" or "they" may be about anything.
func vagueSubject(c *claim) bool {
	return len(c.toks) > 0 && c.toks[0].kind == tkWord && vagueWords[c.toks[0].low]
}

// listed: a claim that lists values ("Postgres and MySQL", "8080, 9090")
// grows or shrinks a list; that is not a changed value.
func listed(c *claim) bool {
	ts := c.toks
	for i := 0; i+1 < len(ts); i++ {
		if !valueLike(ts[i]) {
			continue
		}
		if ts[i].comma && valueLike(ts[i+1]) {
			return true
		}
		if i+2 < len(ts) && ts[i+1].kind == tkWord && (ts[i+1].key == "and" || ts[i+1].low == "or") && valueLike(ts[i+2]) {
			return true
		}
	}
	return false
}

func valueLike(t ctoken) bool { return t.kind.typed() || t.name }

// frameWords counts the words of a claim that carry its subject, outside lo..hi.
func frameWords(c *claim, lo, hi int) int {
	n := 0
	for i, t := range c.toks {
		if (i < lo || i >= hi) && t.kind == tkWord && !t.stop {
			n++
		}
	}
	return n
}

// opposite: the same words, one affirmed and one denied.
func opposite(o, n *claim) (Conflict, bool) {
	if len(o.toks) != len(n.toks) {
		return Conflict{}, false
	}
	for i := range o.toks {
		if o.toks[i].key != n.toks[i].key {
			return Conflict{}, false
		}
	}
	switch {
	case !n.pos && n.fromNot: // newer: "X, not Y"; older said Y
		if frameWords(n, n.slotLo, n.slotHi) < 1 {
			return Conflict{}, false
		}
		return Conflict{Subject: subjectOf(n, n.slotLo, n.slotHi), Old: rawOf(o.toks[n.slotLo:n.slotHi]), New: n.alt, How: "not"}, true
	case !o.pos && o.fromNot: // older: "X, not Y"; newer says Y
		if frameWords(o, o.slotLo, o.slotHi) < 1 {
			return Conflict{}, false
		}
		return Conflict{Subject: subjectOf(n, o.slotLo, o.slotHi), Old: o.alt, New: rawOf(n.toks[o.slotLo:o.slotHi]), How: "not"}, true
	}
	if frameWords(o, 0, 0) < 2 {
		return Conflict{}, false
	}
	neg, aff := n, o
	if n.pos {
		neg, aff = o, n
	}
	p := neg.negAt
	if p < 0 || p > len(neg.toks) {
		return Conflict{}, false
	}
	// The words from where the negation stands: "enabled in prod" against
	// "not enabled in prod" (or "disabled in prod").
	affPhrase := rawOf(aff.toks[p:min(p+4, len(aff.toks))])
	negPhrase := rawOf(neg.toks[p:min(p+4, len(neg.toks))])
	if p == len(neg.toks) || !neg.toks[p].antonym {
		negPhrase = strings.TrimSpace(neg.negRaw + " " + negPhrase)
	}
	// The subject is what the negation is about: "cache" in "the cache is
	// (not) enabled in prod"; the whole claim when that leaves nothing.
	subject := subjectOf(aff, p, min(p+4, len(aff.toks)))
	if subject == "" {
		subject = subjectOf(aff, 0, 0)
	}
	c := Conflict{Subject: subject, How: "negation"}
	if neg == n {
		c.Old, c.New = affPhrase, negPhrase
	} else {
		c.Old, c.New = negPhrase, affPhrase
	}
	return c, true
}

// sameShape: two affirmed claims of the same length that differ only in
// values of the same kind, or in one run of names.
func sameShape(o, n *claim) (Conflict, bool) {
	var diffs []int
	for i := range o.toks {
		if o.toks[i].key != n.toks[i].key {
			diffs = append(diffs, i)
		}
	}
	if len(diffs) == 0 {
		return Conflict{}, false
	}
	if o.toks[diffs[0]].nameValue && n.toks[diffs[0]].nameValue {
		lo, hi := diffs[0], diffs[len(diffs)-1]+1
		if hi-lo > 3 {
			return Conflict{}, false
		}
		for i := lo; i < hi; i++ {
			if !o.toks[i].nameValue || !n.toks[i].nameValue {
				return Conflict{}, false
			}
		}
		// Widen to the whole name ("GitHub Actions" → "GitHub Packages").
		for lo > 0 && o.toks[lo-1].nameValue && n.toks[lo-1].nameValue {
			lo--
		}
		for hi < len(o.toks) && o.toks[hi].nameValue && n.toks[hi].nameValue {
			hi++
		}
		return nameConflict(o, n, lo, hi, lo, hi)
	}
	var how, olds, news []string
	for _, i := range diffs {
		a, b := o.toks[i], n.toks[i]
		h, same, ok := compareValues(a, b, i > 0 && (approxWords[o.toks[i-1].low] || approxWords[n.toks[i-1].low]))
		if !ok {
			return Conflict{}, false
		}
		if same {
			continue
		}
		how = append(how, h)
		oa, nb := a.raw, b.raw
		if h == "port" && a.kind == tkAddress {
			oa, nb = portOf(a.raw), portOf(b.raw)
		}
		olds, news = append(olds, oa), append(news, nb)
	}
	if len(how) == 0 {
		return Conflict{}, false
	}
	h := how[0]
	need := 2
	switch h {
	case "version", "port", "path":
		need = 1
	case "value":
		if imperative(o) || imperative(n) {
			return Conflict{}, false // another instruction, not a corrected one
		}
		if k := o.toks[diffs[0]].kind; k != tkDate && k != tkTime {
			need = 1
		}
	}
	lo, hi := diffs[0], diffs[len(diffs)-1]+1
	if frameWords(n, lo, hi) < need {
		return Conflict{}, false
	}
	subject := subjectOf(n, lo, hi)
	if h == "version" && !strings.Contains(subject, "version") && !strings.Contains(subject, "release") {
		subject = strings.TrimSpace(subject + " version")
	}
	return Conflict{Subject: subject, Old: strings.Join(olds, ", "), New: strings.Join(news, ", "), How: h}, true
}

// namesDiffer: claims of different lengths that are the same but for one
// run of names in the same place ("CircleCI" → "GitHub Actions").
func namesDiffer(o, n *claim) (Conflict, bool) {
	p := 0
	for p < len(o.toks) && p < len(n.toks) && o.toks[p].key == n.toks[p].key {
		p++
	}
	s := 0
	for s < len(o.toks)-p && s < len(n.toks)-p && o.toks[len(o.toks)-1-s].key == n.toks[len(n.toks)-1-s].key {
		s++
	}
	ohi, nhi := len(o.toks)-s, len(n.toks)-s
	if ohi-p < 1 || nhi-p < 1 || ohi-p > 3 || nhi-p > 3 {
		return Conflict{}, false
	}
	for _, t := range o.toks[p:ohi] {
		if !t.nameValue {
			return Conflict{}, false
		}
	}
	for _, t := range n.toks[p:nhi] {
		if !t.nameValue {
			return Conflict{}, false
		}
	}
	return nameConflict(o, n, p, ohi, p, nhi)
}

func nameConflict(o, n *claim, olo, ohi, nlo, nhi int) (Conflict, bool) {
	if olo == 0 && (o.initial || n.initial) {
		return Conflict{}, false // a sentence's first word is capitalised anyway
	}
	if imperative(o) || imperative(n) {
		return Conflict{}, false
	}
	if frameWords(n, nlo, nhi) < 2 {
		return Conflict{}, false
	}
	return Conflict{Subject: subjectOf(n, nlo, nhi), Old: rawOf(o.toks[olo:ohi]), New: rawOf(n.toks[nlo:nhi]), How: "value"}, true
}

// compareValues compares two values in the same place: how they differ,
// whether they are the same after all (41 ms = 0.041 s), and whether they
// can be compared at all.
func compareValues(a, b ctoken, approximate bool) (how string, same, ok bool) {
	if !a.kind.typed() || !b.kind.typed() {
		return "", false, false
	}
	numeric := func(k tkind) bool { return k == tkNumber || k == tkVersion }
	switch {
	case numeric(a.kind) && numeric(b.kind):
		if a.dim != b.dim || approximate {
			return "", false, false
		}
		if a.kind == tkVersion || b.kind == tkVersion {
			if a.dim != "" {
				return "", false, false
			}
			return "version", VersionKey(a.raw) == VersionKey(b.raw), true
		}
		if a.unit != b.unit && a.dim != "" {
			d := math.Abs(a.num - b.num)
			return "number", d <= 0.03*math.Max(math.Abs(a.num), math.Abs(b.num)), true
		}
		return "number", a.num == b.num, true
	case a.kind != b.kind:
		return "", false, false
	}
	switch a.kind {
	case tkPort:
		return "port", a.key == b.key, true
	case tkAddress:
		ha, _, _ := strings.Cut(a.key, ":")
		hb, _, _ := strings.Cut(b.key, ":")
		if ha == hb {
			return "port", a.key == b.key, true
		}
		return "value", false, true
	case tkPath:
		return "path", a.key == b.key, true
	case tkCommit:
		return "value", strings.HasPrefix(a.key, b.key) || strings.HasPrefix(b.key, a.key), true
	default: // quoted, url, date, time
		return "value", a.key == b.key, true
	}
}

func portOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

func rawOf(ts []ctoken) string {
	var b strings.Builder
	for _, t := range ts {
		if t.kind == tkPunct {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.raw)
	}
	return b.String()
}

// subjectOf says a claim's subject in its own words, without the part
// lo..hi that differs: "p99 latency", "api listens on port", "team uses …
// for sessions".
func subjectOf(c *claim, lo, hi int) string {
	spelled := func(i int) string {
		t := c.toks[i]
		_, size := utf8.DecodeRuneInString(t.raw)
		if i == 0 && c.initial && !t.name && t.kind == tkWord && strings.ToLower(t.raw[size:]) == t.raw[size:] {
			return strings.ToLower(t.raw) // "Deploys" began the sentence; "API" is a name
		}
		return t.raw
	}
	var before, after []string
	for i := range c.toks {
		if c.toks[i].kind == tkPunct || i >= lo && i < hi {
			continue
		}
		if i < lo || hi == lo {
			before = append(before, spelled(i))
		} else {
			after = append(after, spelled(i))
		}
	}
	trimLead := func(ws []string) []string {
		for len(ws) > 0 && (FuncWords[strings.ToLower(ws[0])] || CanonWords[strings.ToLower(ws[0])] != "") {
			ws = ws[1:]
		}
		return ws
	}
	trimTail := func(ws []string) []string {
		for len(ws) > 0 {
			w := strings.ToLower(ws[len(ws)-1])
			if !(CanonWords[w] != "" || vagueWords[w] || w == "be" || w == "was" || w == "have" || w == "will" || w == "and" || w == "or") {
				break
			}
			ws = ws[:len(ws)-1]
		}
		return ws
	}
	before = trimTail(trimLead(before))
	after = trimTail(after)
	if len(before) == 0 {
		after = trimLead(after)
	}
	out := strings.Join(before, " ")
	switch {
	case len(before) > 0 && len(after) > 0:
		out += " … " + strings.Join(after, " ")
	case len(after) > 0:
		out = strings.Join(after, " ")
	}
	if r := []rune(out); len(r) > 60 {
		out = strings.TrimSpace(string(r[:60])) + "…"
	}
	return out
}

// ---- reading words and values ----

// lexClaim splits a sentence into words, values and marks; expands
// contractions; reads negations.
func lexClaim(s string) []ctoken {
	if !plainASCII(s) {
		s = norm.NFKC.String(s)
	}
	out := make([]ctoken, 0, 16)
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '`' || r == '"' || r == '“':
			if t, j, ok := lexQuoted(rs, i); ok {
				out = append(out, t)
				i = j
			} else {
				i++
			}
		case strings.ContainsRune(",;()[]—–…", r) || r == ':' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			out = append(out, ctoken{raw: string(r), key: string(r), kind: tkPunct})
			i++
		default:
			out, i = lexWord(out, rs, i)
		}
	}
	return joinUnits(joinNoLonger(out))
}

// lexQuoted reads a quoted value (`code`, "text", “text”) opening at
// rs[i]: the token and where reading goes on; false when the quote does
// not close soon enough to be one.
func lexQuoted(rs []rune, i int) (ctoken, int, bool) {
	r := rs[i]
	closer := r
	if r == '“' {
		closer = '”'
	}
	j := i + 1
	for j < len(rs) && rs[j] != closer && !(r == '"' && rs[j] == '”') {
		j++
	}
	if j < len(rs) && j-i > 1 && j-i < 200 {
		inner := string(rs[i+1 : j])
		return ctoken{raw: string(rs[i : j+1]), key: memory.Normalize(inner), kind: tkQuoted}, j + 1, true
	}
	return ctoken{}, 0, false
}

// lexWord reads the word starting at rs[i] (a number keeps its thousands
// commas), its trailing stops taken off (a colon kept as punctuation):
// out with it, and where reading goes on.
func lexWord(out []ctoken, rs []rune, i int) ([]ctoken, int) {
	j := i
	for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune(";()[]\"`“”—–…", rs[j]) {
		if rs[j] == ',' && !(j > i && unicode.IsDigit(rs[j-1]) && thousandsGroup(rs[j+1:])) {
			break
		}
		j++
	}
	if j == i {
		return out, i + 1 // a stray closing quote: nothing to read
	}
	w := string(rs[i:j])
	trail := ""
	for w != "" {
		last, size := utf8.DecodeLastRuneInString(w)
		if !strings.ContainsRune(".:!?'’", last) {
			break
		}
		if last == ':' {
			trail = ":"
		}
		w = w[:len(w)-size]
	}
	w = strings.TrimLeft(w, "'’")
	switch {
	case w == "":
	case w == "%" || w == "&" || w == "~" || strings.IndexFunc(w, AlnumRune) >= 0:
		out = appendWord(out, w)
	default: // a dash or slash standing alone
		out = append(out, ctoken{raw: w, key: w, kind: tkPunct})
	}
	if trail != "" {
		out = append(out, ctoken{raw: ":", key: ":", kind: tkPunct})
	}
	return out, j
}

// joinNoLonger makes "no longer" one negation.
func joinNoLonger(out []ctoken) []ctoken {
	merged := out[:0]
	for i := 0; i < len(out); i++ {
		if out[i].kind == tkWord && out[i].key == "no" && i+1 < len(out) && out[i+1].kind == tkWord && out[i+1].key == "longer" {
			merged = append(merged, ctoken{raw: out[i].raw + " " + out[i+1].raw, low: "no longer", key: "not", neg: true})
			i++
			continue
		}
		merged = append(merged, out[i])
	}
	return merged
}

// joinUnits makes a number and its unit one value: "41 ms", "5k rps", "40 %".
func joinUnits(out []ctoken) []ctoken {
	merged := out[:0]
	for i := 0; i < len(out); i++ {
		t := out[i]
		if t.kind == tkNumber && t.unit == "" && i+1 < len(out) && out[i+1].kind == tkWord {
			if u, ok := measureUnits[out[i+1].low]; ok {
				t.raw += " " + out[i+1].raw
				t.unit, t.dim, t.num = out[i+1].low, u.dim, t.num*u.factor
				t.key = NumberKey(t.num, t.dim)
				i++
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// thousandsGroup: the digits after a comma in 1,000.
func thousandsGroup(rs []rune) bool {
	if len(rs) < 3 {
		return false
	}
	for _, r := range rs[:3] {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return len(rs) == 3 || !unicode.IsDigit(rs[3])
}

// appendWord reads one written word onto ts: contractions become two
// words ("isn't" → is not), a possessive its owner, and the rest is typed.
func appendWord(ts []ctoken, w string) []ctoken {
	w = strings.ReplaceAll(w, "’", "'")
	low := strings.ToLower(w)
	if low == "cannot" {
		return append(ts, plainWord("can"), negWord("not"))
	}
	if i := strings.Index(low, "'"); i > 0 {
		base, tail := w[:i], low[i:]
		if strings.HasSuffix(low, "n't") {
			base, tail = w[:len(w)-3], "n't"
		}
		switch tail {
		case "n't":
			switch strings.ToLower(base) {
			case "ca":
				base = "can"
			case "wo":
				base = "will"
			case "sha":
				base = "shall"
			}
			return append(ts, plainWord(base), negWord("not"))
		case "'re":
			return append(ts, plainWord(base), plainWord("are"))
		case "'ve":
			return append(ts, plainWord(base), plainWord("have"))
		case "'ll":
			return append(ts, plainWord(base), plainWord("will"))
		case "'m":
			return append(ts, plainWord(base), plainWord("am"))
		case "'d":
			return append(ts, plainWord(base), plainWord("would"))
		case "'s":
			switch strings.ToLower(base) {
			case "it", "that", "there", "here", "what", "who", "he", "she", "where", "how":
				return append(ts, plainWord(base), plainWord("is"))
			}
			return append(ts, readValue(base))
		}
		if strings.HasSuffix(low, "s'") {
			return append(ts, readValue(w[:len(w)-1]))
		}
	}
	return append(ts, readValue(w))
}

func negWord(raw string) ctoken { return ctoken{raw: raw, low: "not", key: "not", neg: true} }

func AlnumRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// plainWord makes a word token: canonical for copulas, stemmed otherwise.
func plainWord(raw string) ctoken {
	low := strings.ToLower(raw)
	switch low {
	case "not", "never":
		return negWord(raw)
	}
	t := ctoken{raw: raw, low: low, kind: tkWord}
	if a, ok := antonymWords[low]; ok {
		t.antonym = true
		low = a
	}
	if c, ok := CanonWords[low]; ok {
		low = c
	}
	t.key = lang.Stem(low)
	t.stop = FuncWords[low] || FuncWords[t.key]
	return t
}

// readValue reads a written word as a value when it is one.
func readValue(raw string) ctoken {
	if onlyLetters(raw) {
		return plainWord(raw) // most words: no value is spelt with letters alone
	}
	low := strings.ToLower(raw)
	switch {
	case strings.Contains(low, "://"):
		return ctoken{raw: raw, key: strings.TrimRight(low, "/"), kind: tkURL}
	case dateLike(low):
		return ctoken{raw: raw, key: low, kind: tkDate}
	case clockLike(low):
		return ctoken{raw: raw, key: low, kind: tkTime}
	case dimsLike(low):
		return ctoken{raw: raw, key: low, kind: tkTime}
	}
	if strings.HasPrefix(low, ":") {
		if n, ok := ParsePort(low[1:]); ok {
			return ctoken{raw: raw, key: strconv.Itoa(n), kind: tkPort}
		}
	}
	if host, port, ok := splitAddress(low); ok {
		return ctoken{raw: raw, key: host + ":" + strconv.Itoa(port), kind: tkAddress}
	}
	if v, ok := ParseVersion(raw); ok && (low[0] == 'v' || strings.Count(low, ".") >= 2) {
		return ctoken{raw: raw, key: v, kind: tkVersion}
	}
	if q, ok := ParseQuantity(raw); ok {
		return ctoken{raw: raw, key: NumberKey(q.Value, q.Dim), kind: tkNumber, num: q.Value, dim: q.Dim, unit: q.Unit}
	}
	if CommitLike(low) {
		return ctoken{raw: raw, key: low, kind: tkCommit}
	}
	if LooksLikePath(raw) {
		return ctoken{raw: raw, key: PathKey(raw), kind: tkPath}
	}
	return plainWord(raw)
}

func onlyLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// markNames finds names by their spelling: a capital inside the word
// (ArgoCD, GitHub, gRPC), or a capital first letter (Postgres, NATS, S3)
// anywhere but at the start of a sentence — unless the sentence is in
// Title Case, where capitals say nothing. UPPER_SNAKE words are
// identifiers (flags, variables), never values. Whether a name stands in
// a value's place is settled per claim.
func markNames(ts []ctoken) {
	var caps, all int
	first := -1
	for i, t := range ts {
		if t.kind != tkWord {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		all++
		if r, _ := utf8.DecodeRuneInString(t.raw); unicode.IsUpper(r) {
			caps++
		}
	}
	title := all >= 2 && caps*2 > all
	for i := range ts {
		t := &ts[i]
		if t.kind != tkWord || t.stop || t.neg || t.antonym {
			continue
		}
		if strings.ContainsRune(t.raw, '_') {
			continue
		}
		inner, lower, upperFirst, letters := false, false, false, 0
		for k, r := range t.raw {
			if unicode.IsLetter(r) {
				letters++
			}
			switch {
			case unicode.IsLower(r):
				lower = true
			case unicode.IsUpper(r):
				if k == 0 {
					upperFirst = true
				} else if lower {
					inner = true
				}
			}
		}
		caps := upperFirst && !lower && letters >= 1 && len(t.raw) >= 2 // NATS, GCS, S3
		t.name = inner || (upperFirst && lower || caps) && i != first && !title
	}
}

// ---- values ----

// Quantity is a number with its unit, in the unit's base (seconds, bytes).
type Quantity struct {
	Value float64 // in the base unit of Dim
	Dim   string  // "time", "size", "percent", "rate", "times"; "" for a bare number
	Unit  string  // the unit as written, lower case ("ms", "gb")
}

type unitDef struct {
	dim    string
	factor float64
}

// measureUnits maps a unit as written to its dimension and factor to the base.
var measureUnits = map[string]unitDef{
	"ns": {"time", 1e-9}, "us": {"time", 1e-6}, "µs": {"time", 1e-6}, "μs": {"time", 1e-6},
	"ms": {"time", 1e-3}, "s": {"time", 1}, "sec": {"time", 1}, "secs": {"time", 1},
	"second": {"time", 1}, "seconds": {"time", 1}, "min": {"time", 60}, "mins": {"time", 60},
	"minute": {"time", 60}, "minutes": {"time", 60}, "h": {"time", 3600}, "hr": {"time", 3600},
	"hrs": {"time", 3600}, "hour": {"time", 3600}, "hours": {"time", 3600}, "day": {"time", 86400},
	"days": {"time", 86400}, "week": {"time", 604800}, "weeks": {"time", 604800},
	"b": {"size", 1}, "byte": {"size", 1}, "bytes": {"size", 1}, "kb": {"size", 1e3}, "kib": {"size", 1 << 10},
	"mb": {"size", 1e6}, "mib": {"size", 1 << 20}, "gb": {"size", 1e9}, "gib": {"size", 1 << 30},
	"tb": {"size", 1e12}, "tib": {"size", 1 << 40},
	"%": {"percent", 1}, "percent": {"percent", 1},
	"rps": {"rate", 1}, "qps": {"rate", 1}, "req/s": {"rate", 1}, "ops/s": {"rate", 1},
	"x": {"times", 1},
}

// ParseQuantity reads a number with an optional unit written onto it:
// "41", "-3", "+229%", "1,000", "0.75", "5k", "41ms", "2GB", "3x". A unit
// written as the next word ("41 ms") is joined by the caller.
func ParseQuantity(s string) (Quantity, bool) {
	low := strings.ToLower(strings.TrimSpace(s))
	i := 0
	if i < len(low) && (low[i] == '-' || low[i] == '+') {
		i++
	}
	start, dot := i, false
	var digits strings.Builder
	digits.WriteString(low[:i])
	for i < len(low) {
		c := low[i]
		switch {
		case c >= '0' && c <= '9':
			digits.WriteByte(c)
		case c == '.' && !dot && i > start && i+1 < len(low) && low[i+1] >= '0' && low[i+1] <= '9':
			dot = true
			digits.WriteByte(c)
		case c == ',' && !dot && i > start && thousandsGroup([]rune(low[i+1:])):
			// 1,000: a thousands separator
		default:
			return quantityUnit(digits.String(), low[i:], i > start)
		}
		i++
	}
	return quantityUnit(digits.String(), "", i > start)
}

func quantityUnit(digits, suffix string, any bool) (Quantity, bool) {
	if !any {
		return Quantity{}, false
	}
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return Quantity{}, false
	}
	switch suffix {
	case "":
		return Quantity{Value: v}, true
	case "k":
		return Quantity{Value: v * 1e3}, true
	}
	if u, ok := measureUnits[suffix]; ok {
		return Quantity{Value: v * u.factor, Dim: u.dim, Unit: suffix}, true
	}
	return Quantity{}, false
}

func NumberKey(v float64, dim string) string {
	return strconv.FormatFloat(v, 'g', 8, 64) + dim
}

// ParseVersion reads a version: v1, v0.6.1, 1.22, 1.2.3-rc1, v2.0.0+build.
// It returns the canonical form: no "v", no trailing ".0" beyond the first
// dot (1.22.0 = 1.22, v2.0.0 = 2.0), lower case.
func ParseVersion(s string) (string, bool) {
	low := strings.ToLower(strings.TrimSpace(s))
	body := strings.TrimPrefix(low, "v")
	core, pre, _ := strings.Cut(body, "-")
	if i := strings.IndexByte(core, '+'); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	if len(parts) == 0 || len(parts) > 5 {
		return "", false
	}
	for _, p := range parts {
		if !DigitsOnly(p) || len(p) > 9 {
			return "", false
		}
	}
	if len(parts) == 1 && body == low {
		return "", false // a bare integer is a number, not a version
	}
	if pre != "" && strings.IndexFunc(pre, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.') }) >= 0 {
		return "", false
	}
	return VersionKey(s), true
}

func VersionKey(s string) string {
	low := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "v")
	core, pre, hasPre := strings.Cut(low, "-")
	if i := strings.IndexByte(core, '+'); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	for len(parts) > 2 && parts[len(parts)-1] == "0" {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if n, err := strconv.Atoi(p); err == nil {
			parts[i] = strconv.Itoa(n)
		}
	}
	out := strings.Join(parts, ".")
	if hasPre {
		out += "-" + pre
	}
	return out
}

// ParsePort reads a TCP/UDP port number, 1 to 65535.
func ParsePort(s string) (int, bool) {
	if !DigitsOnly(s) || len(s) > 5 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, false
	}
	return n, true
}

// splitAddress reads host:port (localhost:5432, db.internal:6379,
// 10.0.0.1:8080).
func splitAddress(s string) (string, int, bool) {
	host, port, ok := strings.Cut(s, ":")
	if !ok || host == "" || strings.Contains(port, ":") {
		return "", 0, false
	}
	n, ok := ParsePort(port)
	if !ok {
		return "", 0, false
	}
	letter := false
	for _, r := range host {
		switch {
		case r >= 'a' && r <= 'z':
			letter = true
		case r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_':
		default:
			return "", 0, false
		}
	}
	if !letter && strings.Count(host, ".") != 3 {
		return "", 0, false // 10:30 is a time, not an address
	}
	return host, n, true
}

func dateLike(s string) bool {
	if len(s) < 10 {
		return false
	}
	d := s[:10]
	return DigitsOnly(d[:4]) && d[4] == '-' && DigitsOnly(d[5:7]) && d[7] == '-' && DigitsOnly(d[8:10]) &&
		(len(s) == 10 || s[10] == 't' || s[10] == ' ')
}

// clockLike: a time of day, 9:30, 14:05:59, 9:30pm.
func clockLike(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "am"), "pm")
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || !DigitsOnly(parts[0]) || len(parts[0]) > 2 {
		return false
	}
	for _, p := range parts[1:] {
		if !DigitsOnly(p) || len(p) != 2 {
			return false
		}
	}
	return true
}

// dimsLike: a size written width by height, 80x24, 1920x1080.
func dimsLike(s string) bool {
	w, h, ok := strings.Cut(s, "x")
	return ok && DigitsOnly(w) && DigitsOnly(h) && len(w) <= 5 && len(h) <= 5
}

// CommitLike: 7 to 40 hexadecimal digits with at least one digit and one
// letter (a word like "deadbeef" or a number like "1234567" is not one).
func CommitLike(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// pathExts are the extensions that make "name.ext" a file rather than a
// word with a dot in it.
var pathExts = lang.WordSet(`go mod sum yaml yml toml json jsonl md markdown txt rst py pyi js mjs cjs ts tsx jsx rs c h
	cc cpp cxx hpp java kt kts rb sh bash zsh fish sql env ini cfg conf config lock html htm css scss sass
	less xml csv tsv proto tf tfvars hcl lua swift php pl ex exs erl hs ml nix gradle bzl bazel cmake mk
	vim el svelte vue dart zig log pem crt service socket timer plist gitignore dockerignore editorconfig
	npmrc nvmrc tmpl tpl j2 graphql gql wasm so dll exe bin db sqlite ipynb r scala clj`)

// LooksLikePath reports whether s is written as a file or directory path:
// it starts with / ./ ../ or ~/, ends with /, has two slashes or more, or
// ends in a known file extension (app.yaml, config/app.yaml, go.mod).
func LooksLikePath(s string) bool {
	if s == "" || strings.Contains(s, "://") || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/") {
		return len(s) > 2
	}
	letter := strings.IndexFunc(s, unicode.IsLetter) >= 0
	if !letter {
		return false
	}
	if strings.Contains(s, "/") && (strings.HasSuffix(s, "/") || strings.Count(s, "/") >= 2) {
		return true
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 || dot == len(base)-1 {
		return false
	}
	if dot == 0 {
		return pathExts[strings.ToLower(base[1:])] // .env, .gitignore
	}
	return pathExts[strings.ToLower(base[dot+1:])]
}

func PathKey(s string) string {
	s = strings.TrimPrefix(s, "./")
	if len(s) > 1 {
		s = strings.TrimSuffix(s, "/")
	}
	return s
}
