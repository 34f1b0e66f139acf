package update

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"cairn/consolidate/claims"
	"cairn/internal/lang"
	"cairn/memory"
)

// Paraphrases (issue 26). The near-duplicate search by signature bands
// (nearest) sees two texts as one only when they share three words in
// four. Agents say one fact many ways: "Dialyzer PLT building is slow on
// first run (2+ minutes)" and "First `mix dialyzer` run takes 2-3 min
// building PLT — expected". Here each text is read into a canonical form —
// markdown and backticks stripped, words stemmed (lang.Stem), abbreviations
// written out, numbers read as quantities with their units — and two texts
// whose canonical words overlap enough are proposed for a merge, unless
// something tells them apart: a value, a name or a path one has and the
// other lacks, a negation, another environment, package or task
// (OtherThings), a rule against a fact, or one word swapped for another.
// A person accepts the merge; nothing is folded without one.

// paraMinShared and paraMinJaccard are how much two canonical word sets
// must share: at least three words (two when a value or a name matches
// too), and half of all their words.
const (
	paraMinShared  = 3
	paraMinJaccard = 0.5
)

// ParaRare and ParaTop bound one search: the candidates come through the
// rarest words of the text (at most ParaRare postings, each at most
// maxPosting/8 long), and at most ParaTop of them are read whole.
const (
	ParaRare = 6
	ParaTop  = 16
)

// paraReading is a text read for paraphrase.
type paraReading struct {
	words    []string  // canonical content words (stems, names), sorted, unique
	seq      []string  // the same words in the order they come
	names    []string  // identifiers, paths, versions, flags, sorted, unique
	vals     []paraVal // quantities
	neg      bool      // a negation
	negOn    []string  // the first content word after each negation, sorted
	rule     bool      // says what to do (always, never, must, an imperative)
	poles    []int     // the sides of paraPoles it takes, sorted, unique
	envs     []string  // the environments it names (staging, production, …), sorted
	expanded string    // the text with abbreviations written out (for OtherThings)
}

// paraVal is a quantity: lo..hi (hi is +Inf for "2+"), with its unit.
type paraVal struct {
	lo, hi float64
	unit   string
}

// shortForms are abbreviations and spellings written out, so that both
// forms read as one word. Each is a short form or a variant that, in a
// project's notes, means its long form and nothing else: "db" is always a
// database, "k8s" Kubernetes, "repo" a repository. Ambiguous ones are left
// out ("auth" is authentication or authorisation; "ci" is no abbreviation
// of anything a note would spell out). Paraphrases and updates read them
// alike (uShortWords is this table stemmed).
var shortForms = map[string]string{
	"db": "database", "dbs": "databases",
	"prod": "production", "prd": "production",
	"dev":  "development",
	"repo": "repository", "repos": "repositories",
	"config": "configuration", "configs": "configurations", "cfg": "configuration", "conf": "configuration",
	"env": "environment", "envs": "environments",
	"dep": "dependency", "deps": "dependencies",
	"k8s": "kubernetes", "kube": "kubernetes",
	"pkg": "package", "pkgs": "packages",
	"dir": "directory", "dirs": "directories",
	"docs": "documentation", "doc": "documentation",
	"msg": "message", "msgs": "messages",
	"req": "request", "reqs": "requests",
	"resp": "response",
	"arg":  "argument", "args": "arguments",
	"param": "parameter", "params": "parameters",
	"var": "variable", "vars": "variables",
	"impl":       "implementation",
	"perf":       "performance",
	"postgresql": "postgres", "pg": "postgres",
	"js": "javascript", "ts": "typescript",
	"stg": "staging", "svc": "service", "svcs": "services",
	"app": "application", "apps": "applications", "mod": "module",
	"perm": "permission", "perms": "permissions",
	"conn": "connection", "conns": "connections",
	"ws": "websocket", "thumb": "thumbnail", "thumbs": "thumbnails",
}

// paraSynonyms are the short forms, and words that say how a thing behaves
// or how long it takes in other words: for paraphrases only.
var paraSynonyms = func() map[string]string {
	m := map[string]string{
		"initial": "first",
		// Verbs of change and size, which say how a thing behaves, never which
		// thing: "memory grows to 2 GB" and "memory climbs to 2 GB" are one fact.
		"climb": "grow", "climbs": "grows", "climbed": "grew", "increase": "grow", "increases": "grows", "increased": "grew",
		"rise": "grow", "rises": "grows", "rose": "grew",
		"sluggish": "slow", "quick": "fast", "large": "big", "huge": "big",
		"launch": "start", "launches": "starts", "boot": "start", "boots": "starts",
		"needs": "need", "required": "need", "requires": "need", "require": "need",
		// Verbs of duration: "takes 2 min" and "runs in 2 min" say one thing.
		"take": "run", "takes": "runs", "took": "ran", "taking": "running",
		// Irregular forms the stemmer leaves apart.
		"built": "build", "ran": "run", "kept": "keep", "found": "find", "made": "make", "held": "hold",
	}
	for short, full := range shortForms {
		m[short] = full
	}
	return m
}()

// paraUnits are the units a number may carry, by their canonical name.
var paraUnits = map[string]string{
	"ms": "ms", "millisecond": "ms", "milliseconds": "ms", "msec": "ms",
	"s": "sec", "sec": "sec", "secs": "sec", "second": "sec", "seconds": "sec",
	"m": "min", "min": "min", "mins": "min", "minute": "min", "minutes": "min",
	"h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
	"d": "day", "day": "day", "days": "day",
	"week": "week", "weeks": "week", "wk": "week", "wks": "week",
	"b": "byte", "byte": "byte", "bytes": "byte",
	"kb": "kb", "kib": "kb", "kilobyte": "kb", "kilobytes": "kb",
	"mb": "mb", "mib": "mb", "megabyte": "mb", "megabytes": "mb",
	"gb": "gb", "gib": "gb", "gigabyte": "gb", "gigabytes": "gb",
	"tb": "tb", "tib": "tb", "terabyte": "tb", "terabytes": "tb",
	"%": "percent", "percent": "percent", "pct": "percent",
	"x": "times", "times": "times",
}

// paraNumberWords are numbers written as words.
var paraNumberWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "thousand": 1000,
	"twice": 2, "dozen": 12,
}

// paraNegations are the words that negate what follows.
var paraNegations = lang.WordSet(`not no never without cannot nor none nothing neither`)

// paraModals mark a rule (or a requirement: "has to", "needs") rather
// than a fact; they are read by the rule test, not counted as words. A
// "need" followed by a quantity states a cost ("needs about 8 min"), not
// a rule.
var paraModals = lang.WordSet(`always never must should shall ought avoid prefer ensure need`)

// paraPhrases are word groups read as one word before the text is split:
// spellings of one thing ("time out", "timeout"), and comparisons in
// words ("more than 500k", "over 500k").
var paraPhrases = []struct {
	hints []string // what the text must hold for re to be tried (regexps are slow)
	re    *regexp.Regexp
	out   string
}{
	{[]string{"time"}, regexp.MustCompile(`(?i)\btime[- ]out`), "timeout"},
	{[]string{"set"}, regexp.MustCompile(`(?i)\bset[- ]up\b`), "setup"},
	{[]string{"log"}, regexp.MustCompile(`(?i)\blog[- ]in\b`), "login"},
	{[]string{"sign"}, regexp.MustCompile(`(?i)\bsign[- ]in\b`), "signin"},
	{[]string{"roll"}, regexp.MustCompile(`(?i)\broll[- ]back\b`), "rollback"},
	{[]string{"clean"}, regexp.MustCompile(`(?i)\bclean[- ]up\b`), "cleanup"},
	{[]string{"shut"}, regexp.MustCompile(`(?i)\bshut[- ]down\b`), "shutdown"},
	{[]string{" up"}, regexp.MustCompile(`(?i)\b(brings?|spins?|starts?) up\b`), "start"},
	{[]string{"make sure"}, regexp.MustCompile(`(?i)\bmake sure\b`), "ensure"},
	{[]string{"has to", "have to", "had to"}, regexp.MustCompile(`(?i)\b(has|have|had) to\b`), "must"},
	{[]string{" than", "at least", "exceed"}, regexp.MustCompile(`(?i)\b(more|greater|larger|bigger|higher) than\b|\bat least\b|\bexceeds?\b`), "over"},
	{[]string{" than", "at most", "up to"}, regexp.MustCompile(`(?i)\b(less|fewer|smaller|lower) than\b|\bat most\b|\bup to\b`), "under"},
}

// paraPoles are words of opposite meaning, by pairs: a text with one and
// another with its opposite (and not the first) say different things,
// whatever else they share ("run the migrations before deploying" / "…
// after deploying"; enabled / disabled). Some are stop words elsewhere:
// they are read here before stop words are left out.
var paraPoles = func() map[string]int {
	out := map[string]int{}
	for i, pair := range strings.Fields(`enable/disable enabled/disabled pass/fail passes/fails passed/failed passing/failing
		success/failure succeed/fail sync/async synchronous/asynchronous synchronously/asynchronously before/after
		over/under above/below first/last accept/reject accepts/rejects allow/deny allow/block add/remove
		include/exclude start/stop public/private read/write input/output true/false on/off increase/decrease
		open/close lock/unlock valid/invalid primary/replica faster/slower upload/download import/export push/pull
		client/server local/remote internal/external inbound/outbound optional/required optional/mandatory up/down
		old/new older/newer low/high lower/higher minimum/maximum min/max always/never with/without`) {
		a, b, _ := strings.Cut(pair, "/")
		// Sides are 2i+1 and -(2i+1): each pair its own number, its two
		// sides of opposite sign.
		out[lang.Stem(a)], out[lang.Stem(b)] = 2*i+1, -(2*i + 1)
	}
	return out
}()

// paraImperatives are verbs that open an instruction ("Use Node 20",
// "Before deploying, run the migrations").
var paraImperatives = lang.WordSet(`use run never always avoid prefer do make ensure keep set add put call check
	commit push pin install restart remember rerun start stop try pass write read install upgrade downgrade
	prefix wrap skip disable enable delete remove configure build deploy`)

// paraLeads open a clause that an instruction may follow after a comma
// ("In CI, use npm ci").
var paraLeads = lang.WordSet(`in on for before after when whenever if once to during while with from`)

// paraFillers carry no fact of their own: hedges and fillers that a
// rewording adds or drops.
var paraFillers = lang.WordSet(`about roughly approximately around approx nearly almost usually typically generally
	really actually basically just always never must should shall ought avoid prefer ensure need instead rather
	expected expect note important currently also even`)

// paraEnvs are the environments a fact may hold in (written out: "prod"
// reads as production): a fact of one is never a fact of another, nor of
// none named. OtherThings reads them too, but only where each side names
// one the other lacks.
var paraEnvs = lang.WordSet(`staging production development qa preview sandbox canary`)

// paraLightVerbs say where a thing is or that it runs, not which thing it
// is: one swapped for another ("listens on port 4000", "runs on port
// 4000"; "manifests live in", "are kept under") is a rewording, where a
// noun swapped ("users table", "orders table") is another subject. Stems.
var paraLightVerbs = lang.WordSet(`live kept keep sit resid store locat listen run serv bind host build made make
	put place found contain hold stay lie`)

var (
	paraTokenRe = regexp.MustCompile(`[\p{L}\p{N}_$~\-.+][\p{L}\p{N}_$~\-./:+@#'%]*`)
	paraLinkRe  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	paraNumRe   = regexp.MustCompile(`^~?(\d+(?:\.\d+)?)(\+)?([a-z%]*)$`)
	paraRangeRe = regexp.MustCompile(`^~?(\d+(?:\.\d+)?)[-–](\d+(?:\.\d+)?)(\+)?([a-z%]*)$`)
	paraVerRe   = regexp.MustCompile(`^v\d+(\.\d+)+$`)
	paraFlagRe  = regexp.MustCompile(`^(--?|\$)[a-z]`)
)

// paraCache caches texts read for paraphrase, as claims caches claims.
var paraCache = claims.NewCache(readParaphrase)

// readParaphrase reads a text into its canonical form.
func readParaphrase(text string) *paraReading {
	x := &paraReader{r: &paraReading{}, words: map[string]bool{}, names: map[string]bool{}, envs: map[string]bool{}, poles: map[int]bool{}}
	for _, line := range strings.Split(paraClean(text), "\n") {
		x.line(strings.TrimLeft(strings.TrimSpace(line), "#>-+ "))
		x.flush()
	}
	r := x.r
	r.words = slices.Sorted(maps.Keys(x.words))
	r.names = slices.Sorted(maps.Keys(x.names))
	r.envs = slices.Sorted(maps.Keys(x.envs))
	r.poles = slices.Sorted(maps.Keys(x.poles))
	slices.Sort(r.negOn)
	r.expanded = strings.Join(x.expanded, " ")
	return r
}

// paraClean is text with links reduced to their words, the phrases of
// paraPhrases written their one way, and markup taken out.
func paraClean(text string) string {
	clean := text
	if strings.Contains(clean, "](") {
		clean = paraLinkRe.ReplaceAllString(clean, "$1")
	}
	lowText := strings.ToLower(clean)
	for _, ph := range paraPhrases {
		for _, h := range ph.hints {
			if strings.Contains(lowText, h) {
				clean = ph.re.ReplaceAllString(clean, ph.out)
				lowText = strings.ToLower(clean)
				break
			}
		}
	}
	return paraMarkup.Replace(clean)
}

// paraReader reads a text for paraphrase, token by token.
type paraReader struct {
	r                  *paraReading
	expanded           []string
	words, names, envs map[string]bool
	poles              map[int]bool
	pending            *paraVal // a number waiting for its unit in the next word
	negNext, needAt    bool
}

func (x *paraReader) flush() {
	if x.pending != nil {
		x.r.vals = append(x.r.vals, *x.pending)
		x.pending = nil
	}
}

func (x *paraReader) addWord(w string) {
	x.words[w] = true
	x.r.seq = append(x.r.seq, w)
	if x.negNext {
		x.r.negOn = append(x.r.negOn, w)
		x.negNext = false
	}
}

// line reads one line's tokens, clause by clause.
func (x *paraReader) line(line string) {
	// At is the token's place in its clause; lead says the clause
	// opened with "in", "before", … and comma that a comma came just
	// before: "In CI, use npm ci" is an instruction.
	at, lead, comma, prevEnd := 0, false, false, 0
	for _, span := range paraTokenRe.FindAllStringIndex(line, -1) {
		raw := line[span[0]:span[1]]
		// What stands between two words ends a clause (". ; : ! ?",
		// a dash) or is a comma.
		if gap := line[prevEnd:span[0]]; strings.ContainsAny(gap, ".;:!?") || prevEnd > 0 && strings.ContainsAny(line[prevEnd-1:prevEnd], ".:") {
			x.flush()
			at, lead, comma = 0, false, false
		} else if strings.Contains(gap, ",") {
			x.flush()
			comma = true
		}
		prevEnd = span[1]
		tok := strings.TrimRight(raw, ".:'")
		low := strings.ToLower(tok)
		low = strings.TrimSuffix(strings.TrimSuffix(low, "'s"), "'")
		if full, ok := paraSynonyms[low]; ok {
			low = full
		}
		if low != "" {
			x.expanded = append(x.expanded, strings.TrimLeft(low, "~"))
			if (at == 0 || lead && comma) && (paraImperatives[low] || strings.HasSuffix(low, "n't") && strings.HasPrefix(low, "do")) {
				x.r.rule = true
			}
			if at == 0 {
				lead = paraLeads[low]
			}
			at++
			comma = false
		}
		x.cues(low)
		x.token(tok, low)
	}
}

// cues marks what a word says of the whole: a rule (need, must …), a
// pole, an environment.
func (x *paraReader) cues(low string) {
	if x.needAt && !(paraFillers[low] || paraNumberWords[low] > 0 || strings.IndexFunc(low, unicode.IsDigit) == 0) {
		x.r.rule = true
	}
	x.needAt = low == "need"
	if paraModals[low] && !x.needAt {
		x.r.rule = true
	}
	if pole := paraPoles[lang.Stem(low)]; pole != 0 {
		x.poles[pole] = true
	}
	if paraEnvs[low] {
		x.envs[low] = true
	}
}

// token reads one token as a negation, a quantity (or its unit), a name or
// content words.
func (x *paraReader) token(tok, low string) {
	switch {
	case low == "":
	case paraNegations[low] || strings.HasSuffix(low, "n't"):
		x.flush()
		x.r.neg, x.negNext = true, true
	case x.pending != nil && paraUnits[low] != "":
		x.pending.unit = paraUnits[low]
		x.flush()
	case paraNumberWords[low] > 0 || low == "zero":
		x.flush()
		n := paraNumberWords[low]
		x.pending = &paraVal{lo: n, hi: n}
	default:
		x.flush()
		if v, ok := paraNumber(low); ok {
			if v.unit == "" {
				x.pending = &v
			} else {
				x.r.vals = append(x.r.vals, v)
			}
			return
		}
		if name, ok := paraName(tok, low); ok {
			x.names[name] = true
			if w := strings.TrimLeft(name, "-"); w != name {
				x.addWord(lang.Stem(w)) // a flag's word: "--release", "a release build"
			} else {
				x.addWord(name)
			}
			return
		}
		x.contentWords(low)
	}
}

// contentWords adds the content words of a word's parts ("per-minute",
// "read/write").
func (x *paraReader) contentWords(low string) {
	for _, part := range strings.FieldsFunc(low, func(c rune) bool { return c == '-' || c == '/' || c == '\'' || c == '+' || c == '~' }) {
		if u := paraUnits[part]; u != "" && len(part) > 2 {
			part = u // "per minute" and "/min" are one
		}
		if full, ok := paraSynonyms[part]; ok {
			part = full
		}
		if StopWords[part] || paraFillers[part] || paraNegations[part] || len(part) < 2 {
			continue
		}
		x.addWord(lang.Stem(part))
	}
}

// paraMarkup strips markdown and reads dashes and arrows as clause breaks.
var paraMarkup = strings.NewReplacer("`", " ", "**", " ", "__", " ", "*", " ", "—", " ; ", "–", " ; ", "→", " ; ",
	"’", "'", "(", " ", ")", " ", "[", " ", "]", " ", "\"", " ", "|", " ; ")

// paraNumber reads a number, a range ("2-3", "2+") or a number with its
// unit ("10mb", "45s").
func paraNumber(low string) (paraVal, bool) {
	var v paraVal
	var unit string
	if m := paraRangeRe.FindStringSubmatch(low); m != nil {
		v.lo, _ = strconv.ParseFloat(m[1], 64)
		v.hi, _ = strconv.ParseFloat(m[2], 64)
		if m[3] != "" {
			v.hi = math.Inf(1)
		}
		unit = m[4]
	} else if m := paraNumRe.FindStringSubmatch(low); m != nil {
		v.lo, _ = strconv.ParseFloat(m[1], 64)
		v.hi = v.lo
		if m[2] != "" {
			v.hi = math.Inf(1)
		}
		unit = m[3]
	} else {
		return v, false
	}
	if unit != "" {
		if v.unit = paraUnits[unit]; v.unit == "" {
			return v, false // "3rd", "2fa": a name
		}
	}
	return v, true
}

// paraName reads an identifier, a path, a version or a flag: a token with
// inner punctuation, letters and digits together, or a capital inside.
func paraName(tok, low string) (string, bool) {
	if paraVerRe.MatchString(low) {
		return strings.TrimPrefix(low, "v"), true
	}
	if paraFlagRe.MatchString(low) {
		return low, true // a flag, a variable
	}
	hasDigit := strings.ContainsAny(low, "0123456789")
	hasLetter := strings.IndexFunc(low, func(c rune) bool { return c >= 'a' && c <= 'z' }) >= 0
	if hasDigit && hasLetter {
		return strings.TrimSuffix(low, "/"), true
	}
	if strings.ContainsAny(low, "_.:@#") {
		return strings.TrimSuffix(low, "/"), true
	}
	if strings.Contains(low, "/") && (strings.HasPrefix(low, "/") || strings.HasPrefix(low, "~") || strings.HasSuffix(low, "/") || strings.Count(low, "/") >= 2) {
		return strings.TrimSuffix(low, "/"), true
	}
	return "", false
}

// paraphraseOf compares two readings: the similarity of their canonical
// words, and whether anything tells them apart (then 0).
func paraphraseOf(a, b *paraReading) float64 {
	if !guardsPass(a, b) {
		return 0
	}
	shared, aOnly, bOnly := 0, 0, 0
	i, j := 0, 0
	for i < len(a.words) || j < len(b.words) {
		switch {
		case j == len(b.words) || i < len(a.words) && a.words[i] < b.words[j]:
			aOnly++
			i++
		case i == len(a.words) || a.words[i] > b.words[j]:
			bOnly++
			j++
		default:
			shared++
			i++
			j++
		}
	}
	if shared < paraMinShared && !(shared == paraMinShared-1 && (len(a.vals) > 0 || len(a.names) > 0)) {
		// Two words shared are enough when a value or a name is shared
		// too ("The Python version is 3.11" / "runs on Python 3.11"):
		// guardsPass has matched them all.
		return 0
	}
	if swapped(a, b) {
		return 0
	}
	return float64(shared) / float64(shared+aOnly+bOnly)
}

// swapped reports whether one word of a stands where b has another, the
// words on both sides of it the same ("the users table has" / "the orders
// table has"): another thing, not other words; unless both are light verbs.
func swapped(a, b *paraReading) bool {
	at := func(seq []string, i int) string {
		if i < 0 || i >= len(seq) {
			return ""
		}
		return seq[i]
	}
	for i, x := range a.seq {
		if _, ok := slices.BinarySearch(b.words, x); ok {
			continue
		}
		for j, y := range b.seq {
			if _, ok := slices.BinarySearch(a.words, y); ok {
				continue
			}
			if at(a.seq, i-1) == at(b.seq, j-1) && at(a.seq, i+1) == at(b.seq, j+1) && !(paraLightVerbs[x] && paraLightVerbs[y]) {
				return true
			}
		}
	}
	return false
}

// lacksName reports whether a names something b does not mention.
// A flag counts as mentioned by its word ("`cargo build --release`", "a
// release build with cargo").
func lacksName(a, b *paraReading) bool {
	for _, n := range a.names {
		if _, ok := slices.BinarySearch(b.words, n); ok {
			continue
		}
		if w := strings.TrimLeft(n, "-"); w != n {
			if _, ok := slices.BinarySearch(b.words, lang.Stem(w)); ok {
				continue
			}
		}
		return true
	}
	return false
}

// opposed reports whether a takes one side of a pair of opposites that b
// takes the other side of, and not the first.
func opposed(a, b *paraReading) bool {
	for _, p := range a.poles {
		_, other := slices.BinarySearch(b.poles, -p)
		_, same := slices.BinarySearch(b.poles, p)
		if other && !same {
			return true
		}
	}
	return false
}

// sameValues reports whether every quantity of each side matches one of
// the other: overlapping ranges ("2+ minutes", "2-3 min", "two minutes"),
// the same unit where both give one.
func sameValues(a, b []paraVal) bool {
	match := func(x paraVal, ys []paraVal) bool {
		for _, y := range ys {
			if (x.unit == "" || y.unit == "" || x.unit == y.unit) && x.lo <= y.hi && y.lo <= x.hi {
				return true
			}
		}
		return false
	}
	// A lone 1 with no unit is mostly an article ("one database", "1 in
	// 10 runs" / "one run in ten"): it is not held against the other.
	one := func(x paraVal) bool { return x.unit == "" && x.lo == 1 && x.hi == 1 }
	for _, x := range a {
		if !one(x) && !match(x, b) {
			return false
		}
	}
	for _, y := range b {
		if !one(y) && !match(y, a) {
			return false
		}
	}
	return true
}

// Distinct reports whether two memories must never be merged,
// whatever their words share: a session's diary, a value, a name, a
// negation, another environment, package or task, or a rule against a fact.
func Distinct(a, b *memory.Memory) bool {
	if a.Layer == memory.LayerEpisode || b.Layer == memory.LayerEpisode {
		return true // a session's diary is its own
	}
	ra, rb := paraCache.Get(claims.ClaimText(a)), paraCache.Get(claims.ClaimText(b))
	return !guardsPass(ra, rb) || OtherThings(ra.expanded, rb.expanded)
}

// guardsPass reports whether nothing but wording sets two readings apart.
func guardsPass(a, b *paraReading) bool {
	return a.neg == b.neg && a.rule == b.rule && slices.Equal(a.negOn, b.negOn) && slices.Equal(a.envs, b.envs) && !opposed(a, b) && !opposed(b, a) &&
		sameValues(a.vals, b.vals) && !lacksName(a, b) && !lacksName(b, a)
}

// paraKeys are the posting keys (pl.words: snowball stems of title words)
// under which a canonical word may be filed: itself, and the stems of the
// abbreviations written out to it.
func paraKeys(w string) []string {
	out := []string{w}
	if strings.IndexFunc(w, func(c rune) bool { return c < 'a' || c > 'z' }) >= 0 {
		return nil // a name or a value: pl.words holds neither
	}
	return append(out, paraAbbrevs[w]...)
}

// paraAbbrevs maps a canonical stem to the stems of its short forms.
var paraAbbrevs = func() map[string][]string {
	out := map[string][]string{}
	for short, full := range paraSynonyms {
		k := lang.Stem(full)
		out[k] = append(out[k], lang.Stem(short))
	}
	for k := range out {
		slices.Sort(out[k])
		out[k] = slices.Compact(out[k])
	}
	return out
}()
