package update

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"cairn/consolidate/claims"
	"cairn/consolidate/extract"
	"cairn/internal/lang"
	"cairn/memory"
)

// Updates in other words. Contradicts catches a new fact that keeps the old
// one's frame with one value changed; people say an update otherwise: "we
// migrated the web app off Heroku; it now deploys to Fly.io", "backups are
// hourly now", "`make itest` is gone". An update is read here from three
// things: the two texts are about the same subject (the same content words,
// neither side naming a thing the other does not: "staging" against
// "production", another package, another task id), a value of the same type
// differs (a number with its unit, a version of the same package, a port, a
// path, a command, a name), and the newer text says it changed ("moved to",
// "no longer", "from X to Y", "X is gone", "now", "bumped" …). The newer
// text naming the old value as the one replaced makes it certain.

// Strength is how sure an update reading is.
type Strength int

const (
	None Strength = iota
	Probable
	Certain
)

// uval is one value of a text: what it is compared by, and its type.
type uval struct {
	raw, key string
	typ      string // "size", "time", "port", "version:postgres", "path", "code", "name", "region", "freq", "count:approval"
}

// uread is a text read for updates.
type uread struct {
	text    string
	low     string
	subject []string // content words, stemmed, sorted, deduplicated
	vals    []uval
	change  bool // says something changed
	// additive: "also", "too", "as well": adds to what was true, replaces
	// nothing.
	additive bool
	// ownerless: a version constraint with no package named ("~> 0.3"):
	// which package it constrains is unknown.
	ownerless bool
	terse     bool // a note of a current value: "key: value", "X set to Y"
	aside     bool // a question, a plan, a maybe, or a local exception
	still     bool // says something still holds ("stays", "unchanged")
}

var (
	uChangeRe    = regexp.MustCompile(`(?i)\b(got\s+\w+ed|went\s+(?:up|down)|tightened|loosened|relaxed|extended|shortened|halved|doubled|tripled|stopped|swapped|scaled|grew|grown|rolled\s+out|set\s+to|moved|moving|migrated|migrating|switched|switching|renamed|retired|replaced|replacing|bumped|dropped|upgraded|downgraded|raised|lowered|increased|decreased|reduced|changed|rewritten|rewrote|ported|took over|taken over|no longer|not anymore|any more|anymore|is gone|are gone|was retired|instead of|rather than|now|since|from now on|starting|as of|wrong|actually|cut to|went to|goes to now|deprecated|removed|deleted|decommissioned|uninstalled|cancelled|canceled|converted|reversing|reversed|going forward|became|unblocked|ripped out|is out|'s out|cut|transferred|handed over|handed off|reassigned|revoked|dropping|removing|retiring|replacing|switching)\b|^\s*(?:no|nope|correction|update)\b`)
	uCodeRe      = regexp.MustCompile("`([^`]+)`")
	uAdditiveRe  = regexp.MustCompile(`(?i)\b(?:also|too|as well|additionally|in addition|alongside|besides)\b`)
	uURLRe       = regexp.MustCompile(`\bhttps?://[^\s<>"'` + "`" + `]+`)
	uImageRe     = regexp.MustCompile(`\b([a-z][\w.-]*(?:/[\w.-]+)*):([\w][\w.-]*)\b`)
	uVersionIsRe = regexp.MustCompile(`(?i)\b([a-z][\w.-]*)\s+version\s+(?:is\s+(?:now\s+)?|=\s*|:\s*)(v?\d+(?:\.\d+)*)\b`)
	uChannelRe   = regexp.MustCompile(`(?:^|\s)(#[a-z][\w-]*)`)
	uRegionRe    = regexp.MustCompile(`\b([a-z]{2}-[a-z]+-\d|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-[a-z]+\d)\b`)
	uPortRe      = regexp.MustCompile(`(?i)\bports?(?:\s+is\s+|\s*[=:]\s*|\s+)(?:now\s+)?(\d{2,5})\b`)
	// uBarePortRe is a port said as a listener says it: ":9443".
	uBarePortRe = regexp.MustCompile(`(?:^|[\s(])(?::)(\d{2,5})\b`)
	// uHyphenUnitRe is a number joined to its unit: "30-minute".
	uHyphenUnitRe = regexp.MustCompile(`\b(\d+(?:\.\d+)?)-([a-zA-Z]+)\b`)
	// uSquareRe is a size side by side: "256x256".
	uSquareRe = regexp.MustCompile(`\b(\d+)\s*[x×]\s*(\d+)\b`)
	// uRateRe is a rate of requests written out: "1000 requests per minute".
	uRateRe = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s+(?:requests|reqs|calls|queries)\s*(?:per|/|a|an)\s*(second|sec|s|minute|min|hour|hr|h)\b`)
	// uArrowUnitRe is a change of amount whose unit follows the new one:
	// "15→5 min", "12 -> 24 h".
	uArrowUnitRe   = regexp.MustCompile(`\b(\d+(?:\.\d+)?)\s*(?:→|->|=>)\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\b`)
	uTripleRe      = regexp.MustCompile(`(?:^|\s)(v?\d+\.\d+\.\d+(?:-[\w.]+)?)\b`)
	uNumRe         = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s*(kb|mb|gb|tb|ms|s|sec|secs|seconds?|minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|months?|[a-z]+)?\b`)
	uFreqRe        = regexp.MustCompile(`(?i)\b(hourly|nightly|daily|weekly|biweekly|fortnightly|monthly|quarterly|yearly|annually|every\s+(?:\w+\s+)?(?:minutes?|hours?|days?|weeks?|months?))\b`)
	uPathRe        = regexp.MustCompile(`(?:^|\s)((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+/?)`)
	uVersionHintRe = regexp.MustCompile("(?i)\\b(?:pinned|pin|constrain\\w*|version|v\\d+\\.\\d+)|`[~^<>=]+ ?\\d")
	uBareVersionRe = regexp.MustCompile(`(?:^|\s)(v?\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)\b`)
	uPkgRe         = regexp.MustCompile(`[:'"]([A-Za-z][\w./-]*)['"]?\s*,\s*['"]?(?:[~^<>=]+\s*)?v?\d`)
	uConstraintRe  = regexp.MustCompile(`(?:~>|>=|<=|\^|~)\s*v?\d`)
	uCodePkgRe     = regexp.MustCompile("`[\\w./@-]+`[^`]{0,40}`\\s*(?:~>|>=|<=|\\^|~)")
	uJiraRe        = regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d+\b`)
	uTicketRe      = regexp.MustCompile(`(?i)(?:\b(?:issue|issues|pr|prs|ticket|bug|task|story|epic|mr|pull request)\s*#?|(?:^|\s)#)(\d+)\b`)
	uIDRe          = regexp.MustCompile(`\b(?:[a-z]{2,}|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)\.\d+\b`)
	// A host has three labels or more ("db1.prod.internal"); "Fly.io" is a
	// name.
	uHostRe    = regexp.MustCompile(`(?i)\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+\.(?:com|net|org|io|dev|app|internal|local|cloud|co|ai|sh|corp|lan|svc|site)\b`)
	uClockRe   = regexp.MustCompile(`(?i)\b(\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})(?:\s*(?:utc|gmt|[a-z]st|[a-z]dt|cet|cest))?\b`)
	uDateRe    = regexp.MustCompile(`(?i)\b(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}(?:st|nd|rd|th)?\b`)
	uISODateRe = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	uDayRe     = regexp.MustCompile(`(?i)\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mon|tue|tues|wed|thu|thur|thurs|fri)\b`)
	uLocaleRe  = regexp.MustCompile(`\b[a-z]{2}[-_][A-Z]{2}\b`)
	uSwitchRe  = regexp.MustCompile(`(?i)\b(?:is|are|was|be|been|now|turned|switched|flipped|stays?|kept|left|defaults?\s+to|to|=)\s+(?:now\s+|still\s+)?(on|off|enabled|disabled|active|inactive|true|false)\b|\b(enabled|disabled)\b`)
	uSwitchOn  = map[string]bool{"on": true, "enabled": true, "active": true, "true": true}
)

// clockKey is a time of day as minutes after midnight: "9am", "9:30",
// "10:15 pm".
func clockKey(s string) (string, bool) {
	low := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	pm := strings.HasSuffix(low, "pm")
	low = strings.TrimSuffix(strings.TrimSuffix(low, "pm"), "am")
	h, m, _ := strings.Cut(low, ":")
	hh, err1 := strconv.Atoi(h)
	mm := 0
	var err2 error
	if m != "" {
		mm, err2 = strconv.Atoi(m)
	}
	if err1 != nil || err2 != nil || hh > 24 || mm > 59 {
		return "", false
	}
	if pm && hh < 12 {
		hh += 12
	}
	return strconv.Itoa(hh*60 + mm), true
}

var uNumberWords = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twelve": "12"}

// uUnits maps a unit as written to its dimension and factor to a base unit.
var uUnits = map[string]struct {
	dim string
	f   float64
}{
	"kb": {"size", 1e3}, "mb": {"size", 1e6}, "gb": {"size", 1e9}, "tb": {"size", 1e12},
	"ms": {"time", 1e-3}, "s": {"time", 1}, "sec": {"time", 1}, "secs": {"time", 1}, "second": {"time", 1}, "seconds": {"time", 1},
	"m": {"time", 60}, "min": {"time", 60}, "mins": {"time", 60}, "minute": {"time", 60}, "minutes": {"time", 60},
	"h": {"time", 3600}, "hr": {"time", 3600}, "hrs": {"time", 3600}, "hour": {"time", 3600}, "hours": {"time", 3600},
	"d": {"time", 86400}, "day": {"time", 86400}, "days": {"time", 86400}, "week": {"time", 604800}, "weeks": {"time", 604800},
	"month": {"time", 2592000}, "months": {"time", 2592000},
	"px": {"px", 1}, "pixel": {"px", 1}, "pixels": {"px", 1},
	// A rate of requests, per second: "600 rpm", "1000 requests per
	// minute" (uRateRe writes the long form short).
	"rps": {"rate", 1}, "qps": {"rate", 1}, "rpm": {"rate", 1.0 / 60}, "rph": {"rate", 1.0 / 3600},
}

// uWeakWords carry no subject: verbs any fact uses, time words, change
// words. Stemmed forms are compared.
var uWeakWords = lang.WordSet(`be is are was were been run runs ran running use uses used using need needs needed
	requir require required requires go goes went gone sent send sends kept keep keeps store stored stores
	manag managed manage own owned owns written write rewritten rewrite start starts started
	listen listens live lives lived push pushed pushes hold holds set work works
	move moved migrat migrated switch switched renam renamed retir retired replac replaced bump bumped
	drop dropped upgrad upgraded downgrad downgraded rais raised lower lowered increas increased
	decreas decreased reduc reduced chang changed took take taken over cut now since last off not
	week month year today yesterday sprint march april may june july august september october november
	december january february monday tuesday wednesday thursday friday upgrade wrong actual actually
	heads head up fyi no longer gone anymore instead rather new old current currently also too still
	the a an we our us i you it its they them thing things done get got has have had let lets lint
	deprecat deprecated report reported go through via on in at to from with for of by is be version
	re ve ll went up down got scale scaled scaling grew grow grown night weekend morning evening rolled roll out over all last tighten loosen relax extend shorten halv doubl tripl stop stopped swap swapped`)

// uEnvWords name an environment or role: two texts naming different ones
// are about different things.
var uEnvWords = lang.WordSet(`staging stage prod product production dev develop development test testing qa local preview sandbox
	canary beta alpha legacy internal external public private admin primary replica`)

// uShortWords are the short forms (shortForms) stemmed: "prod" is
// production, "db" a database, "k8s" Kubernetes. An environment's short
// name ("dev", "stg", "prod") keeps its own entry in uEnvWords.
var uShortWords = func() map[string]string {
	m := map[string]string{}
	for short, full := range shortForms {
		if s, f := lang.Stem(short), lang.Stem(full); s != f {
			m[s] = f
		}
	}
	return m
}()

// readUpdate reads a text's subject words, values and change language.
func readUpdate(text string) uread {
	x := &ureader{r: uread{text: text, low: strings.ToLower(text)}, rest: text}
	x.r.terse = extract.TerseNote.MatchString(text)
	x.r.change = uChangeRe.MatchString(text) || x.r.terse
	x.r.aside = uHypotheticalRe.MatchString(text) || uLocalRe.MatchString(text)
	x.r.still = uStillRe.MatchString(text)
	x.r.additive = uAdditiveRe.MatchString(text)
	x.readIDs()
	x.readCode()
	x.readTyped()
	x.readPlain()
	x.readNamedVersions()
	x.readAmounts()
	x.readNames()
	x.readSubject()
	slices.Sort(x.r.subject)
	x.r.subject = slices.Compact(x.r.subject)
	return x.r
}

// ureader reads a text for updates: what it has read so far, and the text
// with what was read blanked out (so that no part is read twice).
type ureader struct {
	r    uread
	rest string
}

// add adds a value once.
func (x *ureader) add(raw, key, typ string) {
	for _, v := range x.r.vals {
		if v.typ == typ && v.key == key {
			return
		}
	}
	x.r.vals = append(x.r.vals, uval{raw: raw, key: key, typ: typ})
}

// blank blanks rest[lo:hi] out.
func (x *ureader) blank(lo, hi int) { x.rest = x.rest[:lo] + strings.Repeat(" ", hi-lo) + x.rest[hi:] }

// readIDs reads the ids, packages and files a text names: its subject, wherever they stand.
func (x *ureader) readIDs() {
	// Task and issue ids name the subject, wherever they stand; so does a
	// package with its version constraint ({:req, "~> 0.3"}, 'rails',
	// '~> 7.1') and a file by its name (scripts/seed.sh and
	// scripts/reset.sh, side by side, are two scripts; config/app.yaml
	// then etc/app.toml is the config moved).
	for _, id := range uIDRe.FindAllString(x.r.text, -1) {
		x.r.subject = append(x.r.subject, "id:"+strings.ToLower(id))
	}
	for _, m := range uJiraRe.FindAllStringIndex(x.rest, -1) {
		x.r.subject = append(x.r.subject, "id:"+strings.ToLower(x.rest[m[0]:m[1]]))
		x.blank(m[0], m[1])
	}
	for _, m := range uTicketRe.FindAllStringSubmatchIndex(x.rest, -1) {
		if !reference(x.rest, m[0], m[1]) {
			x.r.subject = append(x.r.subject, "id:#"+x.rest[m[2]:m[3]])
		}
		x.blank(m[0], m[1])
	}
	for _, m := range uPkgRe.FindAllStringSubmatch(x.r.text, -1) {
		x.r.subject = append(x.r.subject, "pkg:"+strings.ToLower(m[1]))
	}
	for _, f := range strings.FieldsFunc(x.r.text, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("`\"'(),;", r) }) {
		f = strings.TrimRight(f, ".:!")
		if claims.LooksLikePath(f) && !strings.HasSuffix(f, "/") && strings.Contains(f, "/") {
			x.r.subject = append(x.r.subject, "file:"+strings.ToLower(strings.TrimPrefix(f, "./")))
		}
	}
	if uConstraintRe.MatchString(x.r.text) && !slices.ContainsFunc(x.r.subject, func(w string) bool { return strings.HasPrefix(w, "pkg:") }) && !uCodePkgRe.MatchString(x.r.text) {
		x.r.ownerless = true
	}
}

// readCode reads commands and code, and the versions of the package they name.
func (x *ureader) readCode() {
	// Commands and code: the whole span is one value. A version constraint
	// belongs to the package named before it, and that package is the
	// subject ("the `sidekiq` gem is pinned to `~> 6.5`").
	pkg := ""
	versioned := uVersionHintRe.MatchString(x.r.text)
	for _, m := range uCodeRe.FindAllStringSubmatch(x.r.text, -1) {
		code := m[1]
		if v, _, ok := versionConstraint(code); ok {
			x.add(code, v, "version:"+pkg)
			continue
		}
		if versioned && !strings.Contains(code, " ") {
			pkg = strings.ToLower(code)
			x.r.subject = append(x.r.subject, "pkg:"+pkg)
			continue
		}
		x.add(code, strings.Join(strings.Fields(strings.ToLower(code)), " "), "code")
	}
	for _, m := range uCodeRe.FindAllStringIndex(x.rest, -1) {
		x.blank(m[0], m[1])
	}
	if pkg != "" {
		for _, m := range uBareVersionRe.FindAllStringSubmatchIndex(x.rest, -1) {
			x.add(x.rest[m[2]:m[3]], claims.VersionKey(x.rest[m[2]:m[3]]), "version:"+pkg)
			x.blank(m[2], m[3])
		}
	}
}

// readTyped reads the values whose shape says their type: paths, URLs, images, versions, channels, regions, ports.
func (x *ureader) readTyped() {
	for _, m := range uIDRe.FindAllStringIndex(x.rest, -1) {
		x.blank(m[0], m[1])
	}
	for _, m := range uPathRe.FindAllStringSubmatchIndex(x.rest, -1) {
		p := strings.TrimRight(x.rest[m[2]:m[3]], ".")
		if claims.LooksLikePath(p) || strings.Count(p, "/") >= 1 && strings.Contains(p, ".") {
			x.add(p, claims.PathKey(p), "path")
			x.blank(m[2], m[2]+len(p))
		}
	}
	for _, m := range uURLRe.FindAllStringIndex(x.rest, -1) {
		u := strings.TrimRight(x.rest[m[0]:m[1]], ".,;:")
		x.add(u, strings.ToLower(u), "url")
		x.blank(m[0], m[0]+len(u))
	}
	for _, m := range uImageRe.FindAllStringSubmatchIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], strings.ToLower(x.rest[m[0]:m[1]]), "image:"+strings.ToLower(x.rest[m[2]:m[3]]))
		x.blank(m[0], m[1])
	}
	for _, m := range uVersionIsRe.FindAllStringSubmatchIndex(x.rest, -1) {
		pkg := strings.ToLower(x.rest[m[2]:m[3]])
		x.add(x.rest[m[4]:m[5]], claims.VersionKey(x.rest[m[4]:m[5]]), "version:"+pkg)
		x.r.subject = append(x.r.subject, pkg)
		x.blank(m[4], m[5])
	}
	for _, m := range uChannelRe.FindAllStringSubmatchIndex(x.rest, -1) {
		x.add(x.rest[m[2]:m[3]], strings.ToLower(x.rest[m[2]:m[3]]), "channel")
		x.blank(m[2], m[3])
	}
	for _, m := range uRegionRe.FindAllStringIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], x.rest[m[0]:m[1]], "region")
		x.blank(m[0], m[1])
	}
	for _, m := range uPortRe.FindAllStringSubmatchIndex(x.rest, -1) {
		x.add(x.rest[m[2]:m[3]], strings.TrimLeft(x.rest[m[2]:m[3]], "0"), "port")
		x.blank(m[2], m[3])
	}
	for _, m := range uBarePortRe.FindAllStringSubmatchIndex(x.rest, -1) {
		x.add(x.rest[m[2]:m[3]], strings.TrimLeft(x.rest[m[2]:m[3]], "0"), "port")
		x.blank(m[2]-1, m[3])
	}
}

// readPlain reads the values people change without saying their kind.
func (x *ureader) readPlain() {
	// Hosts, clock times, dates, weekdays, locales and switches: values
	// people change without saying which kind they are ("stg.acme.dev",
	// "10:15", "May 24", "Wednesdays", "en-GB", "is on").
	for _, m := range uHostRe.FindAllStringIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], strings.ToLower(x.rest[m[0]:m[1]]), "host")
		x.blank(m[0], m[1])
	}
	for _, m := range uClockRe.FindAllStringSubmatchIndex(x.rest, -1) {
		if k, ok := clockKey(x.rest[m[2]:m[3]]); ok {
			x.add(x.rest[m[2]:m[3]], k, "clock")
			x.blank(m[0], m[1])
		}
	}
	for _, m := range uDateRe.FindAllStringIndex(x.rest, -1) {
		d := strings.ToLower(strings.Join(strings.Fields(x.rest[m[0]:m[1]]), " "))
		x.add(x.rest[m[0]:m[1]], d[:3]+" "+strings.TrimLeft(strings.Fields(d)[len(strings.Fields(d))-1], "0"), "date")
		x.blank(m[0], m[1])
	}
	for _, m := range uISODateRe.FindAllStringIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], x.rest[m[0]:m[1]], "date")
		x.blank(m[0], m[1])
	}
	for _, m := range uDayRe.FindAllStringIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], strings.ToLower(x.rest[m[0]:m[0]+3]), "day")
		x.blank(m[0], m[1])
	}
	for _, m := range uLocaleRe.FindAllStringIndex(x.rest, -1) {
		x.add(x.rest[m[0]:m[1]], strings.ToLower(strings.ReplaceAll(x.rest[m[0]:m[1]], "_", "-")), "locale")
		x.blank(m[0], m[1])
	}
	for _, m := range uSwitchRe.FindAllStringSubmatchIndex(x.rest, -1) {
		lo, hi := m[2], m[3]
		if lo < 0 {
			lo, hi = m[4], m[5]
		}
		k := "off"
		if uSwitchOn[strings.ToLower(x.rest[lo:hi])] {
			k = "on"
		}
		x.add(x.rest[lo:hi], k, "switch")
		x.blank(lo, hi)
	}
	for _, m := range uFreqRe.FindAllStringIndex(x.rest, -1) {
		f := strings.ToLower(strings.Join(strings.Fields(x.rest[m[0]:m[1]]), " "))
		x.add(x.rest[m[0]:m[1]], freqKey(f), "freq")
		x.blank(m[0], m[1])
	}
}

// readNamedVersions reads versions after a name, and three-part versions after none.
func (x *ureader) readNamedVersions() {
	// Versions after a name: "Postgres 16", "Go 1.23", "MySQL 8.0".
	words := strings.Fields(x.rest)
	used := map[int]bool{}
	for i := 1; i < len(words); i++ {
		w := strings.TrimRight(words[i], ".,;:!)")
		prev := strings.Trim(words[i-1], ".,;:!(")
		lp := strings.ToLower(prev)
		v, ok := claims.ParseVersion(w)
		if !ok && claims.DigitsOnly(w) && claims.VersionWords[lp] {
			v, ok = w, true
		}
		if ok && w != "" && (unicode.IsDigit(rune(w[0])) || w[0] == 'v') &&
			(claims.VersionWords[lp] || isCapitalised(prev) && strings.Contains(w, ".")) && !claims.IDNounWords[lp] && !claims.FuncWords[lp] {
			used[i], used[i-1] = true, true
			if lp == "version" {
				// "is at version 2.3.1": a version of what the subject
				// names, "version" no subject word of its own.
				x.add(w, v, "version:")
				continue
			}
			x.add(prev+" "+w, v, "version:"+lp)
			x.r.subject = append(x.r.subject, lp)
		} else if lp == "to" && i >= 2 && claims.VersionWords[strings.ToLower(strings.Trim(words[i-2], ".,"))] {
			// "Bumped Go to 1.23"
			if v, ok := claims.ParseVersion(w); ok {
				pkg := strings.ToLower(strings.Trim(words[i-2], ".,"))
				x.add(words[i-2]+" "+w, v, "version:"+pkg)
				used[i] = true
				x.r.subject = append(x.r.subject, pkg)
			}
		}
	}
	if len(used) > 0 {
		lines := strings.Split(x.rest, "\n")
		k := 0
		for li, ln := range lines {
			fs := strings.Fields(ln)
			for fi := range fs {
				if used[k] {
					fs[fi] = strings.Repeat(" ", len(strings.TrimRight(fs[fi], ".,;:!)"))) + fs[fi][len(strings.TrimRight(fs[fi], ".,;:!)")):]
				}
				k++
			}
			lines[li] = strings.Join(fs, " ")
		}
		x.rest = strings.Join(lines, "\n")
	}
	// A three-part version with no package before it ("bumped the chart
	// to 2.4.0"): a version of what the subject names.
	for _, m := range uTripleRe.FindAllStringSubmatchIndex(x.rest, -1) {
		x.add(x.rest[m[2]:m[3]], claims.VersionKey(x.rest[m[2]:m[3]]), "version:")
		x.blank(m[2], m[3])
	}
}

// readAmounts reads numbers with their units, and counts with what they count.
func (x *ureader) readAmounts() {
	// Units as people join them to their number: "a 30-minute timeout",
	// "256x256 pixels" (a square: its side), "1000 requests per minute".
	x.rest = uHyphenUnitRe.ReplaceAllStringFunc(x.rest, func(s string) string {
		m := uHyphenUnitRe.FindStringSubmatch(s)
		if _, ok := uUnits[strings.ToLower(m[2])]; !ok {
			return s
		}
		return m[1] + " " + m[2]
	})
	x.rest = uSquareRe.ReplaceAllStringFunc(x.rest, func(s string) string {
		if m := uSquareRe.FindStringSubmatch(s); m[1] == m[2] {
			return m[1]
		}
		return s
	})
	x.rest = uRateRe.ReplaceAllStringFunc(x.rest, func(s string) string {
		m := uRateRe.FindStringSubmatch(s)
		return m[1] + " rp" + strings.ToLower(m[2][:1])
	})
	// A change of amount with its unit said once, after the new one
	// ("15→5 min"): both amounts are in it.
	x.rest = uArrowUnitRe.ReplaceAllStringFunc(x.rest, func(s string) string {
		m := uArrowUnitRe.FindStringSubmatch(s)
		if _, ok := uUnits[strings.ToLower(m[3])]; !ok {
			return s
		}
		return m[1] + " " + m[3] + " → " + m[2] + " " + m[3]
	})
	// Numbers with their units; a bare count names what it counts.
	for _, m := range uNumRe.FindAllStringSubmatch(x.rest, -1) {
		n, unit := strings.ToLower(m[1]), strings.ToLower(m[2])
		if w, ok := uNumberWords[n]; ok {
			n = w
		}
		n = plainNumber(n)
		if unit == "k" && unicode.IsDigit(rune(n[0])) {
			// "10k": ten thousand.
			n, unit = thousands(n), ""
		}
		noun := unit != "" && !uVersionSuffix[unit] && !claims.FuncWords[unit] && !claims.FillerWords[unit] && claims.CanonWords[unit] == "" && !uWeakWords[unit] && !uWeakWords[lang.Stem(unit)]
		if u, ok := uUnits[unit]; ok {
			q, _ := claims.ParseQuantity(n)
			x.add(m[0], claims.NumberKey(q.Value*u.f, u.dim), u.dim)
		} else if noun {
			x.add(m[0], n, "count:"+lang.Stem(unit))
		} else if unicode.IsDigit(rune(m[1][0])) {
			x.add(m[1], n, "number")
		}
	}
	x.rest = uNumRe.ReplaceAllStringFunc(x.rest, func(s string) string {
		if strings.IndexFunc(s, unicode.IsDigit) >= 0 || uNumberWords[strings.ToLower(strings.Fields(s)[0])] != "" {
			return " "
		}
		return s
	})
}

// readNames reads names: capitalised words not opening a sentence, CamelCase.
func (x *ureader) readNames() {
	// Names: capitalised words not opening a sentence, CamelCase.
	for _, sent := range splitSentencesLoose(x.rest) {
		fs := strings.Fields(sent)
		for i := 0; i < len(fs); i++ {
			w := strings.Trim(fs[i], ".,;:!()—\"'")
			if w == "" {
				continue
			}
			if i == 0 && !mixedCase(w) && !(len(fs) > 1 && uPersonVerbRe.MatchString(strings.Join(fs[1:min(len(fs), 6)], " "))) || claims.FuncWords[strings.ToLower(w)] || claims.FillerWords[strings.ToLower(w)] || claims.OpenerWords[strings.ToLower(w)] {
				continue
			}
			if !isCapitalised(w) && !mixedCase(w) {
				continue
			}
			j := i + 1
			name := []string{w}
			for j < len(fs) && !strings.ContainsAny(fs[j-1], ",;:") {
				nw := strings.Trim(fs[j], ".,;:!()—\"'")
				if nw == "" || !isCapitalised(nw) && !mixedCase(nw) {
					break
				}
				name = append(name, nw)
				j++
			}
			full := strings.Join(name, " ")
			if claims.VersionWords[strings.ToLower(full)] && len(name) == 1 && j < len(fs) && !(i > 0 && claims.FuncWords[strings.ToLower(fs[i-1])]) {
				// "Go" before a word: a subject word, not a name value.
				i = j - 1
				continue
			}
			x.add(full, strings.ToLower(full), "name")
			i = j - 1
		}
	}
}

// readSubject reads the subject words: what is left, less weak words and names.
func (x *ureader) readSubject() {
	// Subject words: what is left, less weak words and names.
	names := map[string]bool{}
	for _, v := range x.r.vals {
		if v.typ == "name" {
			for _, w := range strings.Fields(v.key) {
				names[w] = true
			}
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(x.rest), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		w = strings.Trim(w, "-")
		if len(w) < 2 || names[w] || claims.FuncWords[w] || claims.FillerWords[w] || claims.OpenerWords[w] || uWeakWords[w] || claims.CanonWords[w] != "" {
			continue
		}
		s := canonStem(w)
		if uWeakWords[s] {
			continue
		}
		x.r.subject = append(x.r.subject, s)
	}
	if slices.ContainsFunc(x.r.vals, func(v uval) bool { return v.typ == "time" }) {
		// How long something lasts is said many ways ("expires after",
		// "valid for", "lifetime:", "kept for", "retention"): with a
		// duration beside them these words name no subject of their own.
		x.r.subject = slices.DeleteFunc(x.r.subject, func(w string) bool { return uDurationWords[w] })
	}
}

// uGenericCounts count nothing in particular ("3 times").
var uGenericCounts = lang.WordSet(`time item thing step way piece unit one`)

// uVersionSuffix: words after a version that name no thing counted
// ("4.2 LTS", "2.0 beta").
var uVersionSuffix = lang.WordSet(`lts rc beta alpha stable final ga preview nightly`)

// uPersonVerbRe: what follows a person's name opening a sentence ("Alice
// owns the billing service", "Carlos is the tech lead for …").
var uPersonVerbRe = regexp.MustCompile(`^(?:owns|leads|manages|maintains|handles|approves|reviews|runs point|is (?:the|our)\s+(?:[\w-]+\s+){0,3}(?:lead|owner|manager|maintainer|contact|reviewer|admin|dri|champion|on-call))\b`)

// uDurationWords say how long something lasts, stemmed.
var uDurationWords = lang.WordSet(`expir expire expires expiri lifetim lifetime valid validiti kept retent retain retain lifespan`)

func isCapitalised(w string) bool {
	rs := []rune(w)
	return len(rs) > 1 && unicode.IsUpper(rs[0])
}

// mixedCase: GitHub, golangCI, iOS — a name whatever its place.
func mixedCase(w string) bool {
	rs := []rune(w)
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]) {
			return true
		}
	}
	return false
}

var uSentenceRe = regexp.MustCompile(`[.;!?:—]\s+|\n+`)

func splitSentencesLoose(s string) []string { return uSentenceRe.Split(s, -1) }

// versionConstraint reads "~> 0.3", ">= 1.2": a constraint with no package.
func versionConstraint(code string) (v, pkg string, ok bool) {
	fs := strings.Fields(code)
	if len(fs) == 2 && strings.Trim(fs[0], "~>=<^") == "" {
		if v, ok := claims.ParseVersion(fs[1]); ok {
			return v, "", true
		}
	}
	return "", "", false
}

func freqKey(f string) string {
	switch {
	case strings.HasPrefix(f, "hourly"), f == "every hour":
		return "3600"
	case f == "daily", f == "nightly", f == "every day", f == "every night":
		return "86400"
	case f == "weekly", f == "every week":
		return "604800"
	case f == "fortnightly", f == "biweekly", f == "every two weeks", f == "every 2 weeks":
		return "1209600"
	case f == "monthly", f == "every month":
		return "2592000"
	case f == "quarterly":
		return "7776000"
	case f == "yearly", f == "annually", f == "every year":
		return "31536000"
	}
	return f
}

// has reports whether a text's subject words or names hold w (a stem): the
// same stem, one a prefix of the other ("bundl"/"bundler"), or a word of a
// name ("secret" in "AWS Secrets Manager", "ci" for "CI").
func (r uread) has(w string) bool {
	if strings.HasPrefix(w, "file:") {
		return !r.sibling(w)
	}
	if strings.Contains(w, ":") {
		_, ok := slices.BinarySearch(r.subject, w)
		return ok
	}
	near := func(a string) bool {
		if a == w || lang.Stem(a) == lang.Stem(w) {
			return true
		}
		short, long := a, w
		if len(short) > len(long) {
			short, long = long, short
		}
		return len(short) >= 4 && strings.HasPrefix(long, short) && !strings.Contains(a, ":")
	}
	if slices.ContainsFunc(r.subject, near) {
		return true
	}
	for _, v := range r.vals {
		if v.typ == "name" {
			for _, nw := range strings.Fields(v.key) {
				if near(lang.Stem(nw)) {
					return true
				}
			}
		}
	}
	return false
}

// sibling reports whether r names another file in the directory of the
// file w names ("file:scripts/seed.sh" against scripts/reset.sh).
func (r uread) sibling(w string) bool {
	dir, base := splitFile(w)
	for _, o := range r.subject {
		if strings.HasPrefix(o, "file:") {
			if d, b := splitFile(o); d == dir && b != base {
				return true
			}
		}
	}
	return false
}

func splitFile(w string) (dir, base string) {
	w = strings.TrimPrefix(w, "file:")
	i := strings.LastIndexByte(w, '/')
	return w[:i+1], w[i+1:]
}

// saysValue reports whether low (a lower-case text) holds the value raw
// as a whole word ("5 minutes" is not in "15 minutes").
func saysValue(low, raw string) bool {
	raw = strings.TrimRight(strings.ToLower(raw), ".")
	if raw == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(low[i:], raw)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !claims.AlnumRune(rune(low[j-1]))
		after := j+len(raw) >= len(low) || !claims.AlnumRune(rune(low[j+len(raw)]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

// updateOf reads whether newer updates older, how sure that is, and what
// changed. A newer text that narrows the subject to a part the older one
// does not name ("the max upload size for avatars") updates nothing.
func updateOf(o, n uread) (Strength, claims.Conflict) {
	if o.ownerless || n.ownerless || n.additive || qualified(o, n) || n.still && slices.ContainsFunc(o.vals, n.says) {
		return None, claims.Conflict{}
	}
	shared, oOnly, nOnly := 0, 0, 0
	conflictingIDs, envMissing := false, false
	for _, w := range o.subject {
		if strings.HasPrefix(w, "file:") && n.has(w) {
			continue // a file in another place: not a subject word, not another thing
		}
		if n.has(w) {
			shared++
		} else {
			oOnly++
			conflictingIDs = conflictingIDs || strings.Contains(w, ":")
			envMissing = envMissing || uEnvWords[w]
		}
	}
	envN := false
	for _, w := range n.subject {
		if strings.HasPrefix(w, "file:") && o.has(w) {
			continue
		}
		if !o.has(w) {
			nOnly++
			envN = envN || uEnvWords[w] || strings.Contains(w, ":")
		}
	}
	// Another environment, package or task on the newer side is another
	// subject, whatever else the texts share.
	if envN || conflictingIDs && nOnly > 0 {
		return None, claims.Conflict{}
	}
	if envMissing && nOnly > 0 {
		// The older names an environment the newer does not ("The public
		// API rate limit …" against "rate limit per key is 300/min"):
		// maybe the same thing, never certain.
		return looseUpdate(o, n)
	}
	subject := subjectPhrase(o, n)
	same := shared > 0 && !(oOnly > 0 && nOnly > 0)

	// The old value named as the one replaced: certain when the subjects
	// agree, a proposal when they only touch.
	for _, v := range o.vals {
		if retiredIn(n.low, strings.ToLower(v.raw), true) {
			c := claims.Conflict{Subject: subject, Old: v.raw, New: replacementOf(o, n, v), How: "replaced"}
			if c.New == "" {
				c.New = "no longer"
			}
			if same {
				return Certain, c
			}
			if shared > 0 {
				return Probable, c
			}
		}
	}
	if typed, c := typedChange(o, n, oOnly, nOnly, same); typed != None {
		return typed, c
	}
	// A word of the old text the newer one says is gone or changed from
	// ("golint is gone", "from master to main"): certain when the subjects
	// agree, else someone should look.
	for _, w := range strings.Fields(o.low) {
		w = strings.Trim(w, ".,;:!()`\"'")
		if len(w) < 4 || claims.FuncWords[w] || uWeakWords[w] || shared == 0 {
			continue
		}
		if to := fromValue.Get(w).FindStringSubmatch(n.low); to != nil {
			c := claims.Conflict{Subject: subject, Old: w, New: to[1], How: "replaced"}
			if same {
				return Certain, c
			}
			return Probable, c
		}
		if retiredIn(n.low, w, false) {
			return Probable, claims.Conflict{Subject: subject, Old: w, New: firstValue(n, w), How: "replaced"}
		}
	}
	return looseUpdate(o, n)
}

// uHypotheticalRe: a question, a plan or a maybe, not a change made.
var uHypotheticalRe = regexp.MustCompile(`(?i)\?|\b(?:should we|shall we|could we|would|might|maybe|perhaps|planning to|plan to|plans to|going to|will probably|will likely|next (?:sprint|week|month|quarter|release|year)|consider|considering|thinking about|if we|once we|todo|proposal|propose|proposed|whether)\b`)

// uLocalRe: an exception for one place or one time, not a change of what
// holds.
var uLocalRe = regexp.MustCompile(`(?i)\b(?:for this (?:one )?(?:test|run|job|branch|pr|ticket|demo|experiment)|only locally|locally only|on my machine|temporarily|temporary|just for|only for|except|in this branch|for the demo|for debugging|while debugging)\b`)

// terms are what a text is about: its subject words (files aside) and the
// words of the names and values it holds.
func (r uread) terms() []string {
	out := r.plainSubject()
	for _, v := range r.vals {
		if v.typ == "name" {
			for _, w := range strings.Fields(v.key) {
				if w = lang.Stem(strings.TrimSuffix(strings.Trim(w, ".,;:'\"()"), "'s")); len(w) >= 2 && !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// plainSubject is r's subject words, files aside.
func (r uread) plainSubject() []string {
	var out []string
	for _, w := range r.subject {
		if !strings.HasPrefix(w, "file:") {
			out = append(out, w)
		}
	}
	return out
}

// looseUpdate is the last reading, for what people write with no frame in
// common: the newer text is about the older one's subject (a good share
// of its words and names) and says one of its values otherwise, names it
// as replaced, or says it changed where the old value is no longer said.
// Never certain: a person decides.
func looseUpdate(o, n uread) (Strength, claims.Conflict) {
	if n.aside || n.still || n.terse && !keyOf(o, n) {
		return None, claims.Conflict{}
	}
	if s, c := replacedValue(o, n); s != None {
		return s, c
	}
	// How far the two share a subject: any shared word or name is enough
	// for a value of the same kind said otherwise ("Uploads cap at 25 MB"
	// against "Max upload size is 10 MB"); a name replaced or a word of
	// change needs the older text's subject itself (half its words, or two).
	subj, matched, sharedSubj := sharedTerms(o, n)
	if len(matched) == 0 {
		return None, claims.Conflict{}
	}
	strong := sharedSubj >= 2 || sharedSubj >= 1 && 2*sharedSubj >= len(subj) || len(subj) == 0
	if !strong && !o.knows(firstContent(n.low)) && !n.knows(firstContent(o.low)) {
		// One word in common, and each opens on a subject the other does
		// not name ("API keys are rotated every 30 days" against
		// "Password rotation happens every 90 days").
		return None, claims.Conflict{}
	}
	subject := subjectPhrase(o, n)
	if subject == "" {
		subject = strings.Join(matched, " ")
	}
	// Something else named as replaced ("switched its video calls from
	// Zoom to Google Meet" against "uses Slack for chat"), or another
	// subject sharing only the package ("The docs site needs Node 18"
	// against "The frontend needs Node 20"): not this one.
	if was, _, ok := fromTo(n.low); ok && !slices.ContainsFunc(strings.Fields(was), o.knows) {
		return None, claims.Conflict{}
	}
	if !slices.ContainsFunc(matched, func(t string) bool { return !o.valueWord(t) }) && apart(o, n) {
		return None, claims.Conflict{}
	}
	if ov, nv, ok := looseValue(o, n, strong); ok {
		return Probable, claims.Conflict{Subject: subject, Old: ov.raw, New: nv.raw, How: howOf(ov.typ)}
	}
	// Says it changed, and the old value is no longer said; a value of
	// another kind in its place is about something else ("scaled kafka
	// connect to 4 workers" against "3 brokers").
	if !strong {
		return None, claims.Conflict{}
	}
	if n.change && len(o.vals) > 0 && !slices.ContainsFunc(o.vals, n.says) {
		// Nothing of the old said again: had one of its values been, the
		// one left out is not what changed ("Fastly cache purge now runs
		// after each deploy" against "The CDN is Fastly").
		ov := o.vals[0]
		if !slices.ContainsFunc(n.vals, func(nv uval) bool { return nv.typ != "name" && (!looseType(ov, nv, o, n) || !ownedBy(o, n, nv)) }) {
			return Probable, claims.Conflict{Subject: subject, Old: ov.raw, New: firstValue(n, ov.raw), How: "changed"}
		}
	}
	return None, claims.Conflict{}
}

// sharedTerms are the older text's subject words, those of its terms the
// newer has, and how many of the subject words these are. What a count
// counts is a subject word ("one approval" and "2 approvals", "4
// concurrent Celery workers" and "celery concurrency").
func sharedTerms(o, n uread) (subj, matched []string, shared int) {
	subj = o.plainSubject()
	for _, t := range o.terms() {
		if n.has(t) {
			matched = append(matched, t)
			if slices.Contains(subj, t) {
				shared++
			}
		}
	}
	for _, ov := range o.vals {
		if c, ok := strings.CutPrefix(ov.typ, "count:"); ok && !uGenericCounts[c] && (n.has(c) || slices.ContainsFunc(n.vals, func(nv uval) bool { return nv.typ == ov.typ })) {
			matched = append(matched, c)
			subj = append(subj, c)
			shared++
		}
	}
	return subj, matched, shared
}

// looseValue is the older value the newer text replaces with a value of
// its kind, if one: not said again (unless in a clause of its own that
// says it changed), not a bare number against another unless the subject
// is strong and names its owner, not a name beside another without a word
// of change.
func looseValue(o, n uread, strong bool) (ov, nv uval, ok bool) {
	for _, ov := range o.vals {
		if n.says(ov) && !(strong && n.change && otherClause(n, ov)) {
			continue
		}
		for _, nv := range n.vals {
			if nv.key == ov.key || stillSaid(o, nv) || !looseType(ov, nv, o, n) || !ownedBy(o, n, nv) {
				continue
			}
			if ov.typ == "number" && nv.typ == "number" && (!strong || !ownerNamed(o, n, nv)) {
				continue // two bare numbers say little of what they count
			}
			if (ov.typ == "name" || ov.typ == "code") && (!n.change && !n.terse || !strong) {
				continue // another name beside it, no word of change: maybe an addition
			}
			return ov, nv, true
		}
	}
	return uval{}, uval{}, false
}

// uFromToRe: "from X to Y", X the value replaced.
var uFromToRe = regexp.MustCompile(`(?:\bfrom\s+([\w.@/-]+(?:\s+[\w.@/-]+)?)\s+to|([\w.@/-]+(?:\s+[\w.@/-]+)?)\s*(?:->|→|=>))\s+([\w.@/:-]+(?:\s+[\w.@/-]+)?)`)

// fromTo reads "from X to Y" or "X -> Y": what was, what is.
func fromTo(low string) (was, is string, ok bool) {
	m := uFromToRe.FindStringSubmatch(low)
	if m == nil {
		return "", "", false
	}
	return m[1] + m[2], m[3], true
}

// replacedValue reads a newer text that names the older one's value as
// the thing replaced, whatever else the two share: "run.sh was deleted",
// "replacing webpack with Vite", "from node 16 to node 20", "Alice went
// to the platform team", "Mongo gets retired", a file moved to another
// folder. A number is named so only in "from … to …".
func replacedValue(o, n uread) (Strength, claims.Conflict) {
	subject := subjectPhrase(o, n)
	for _, ov := range o.vals {
		words := []string{strings.ToLower(ov.raw)}
		if ov.typ == "name" || ov.typ == "path" {
			words = append(words, strings.Fields(ov.key)...)
		}
		if ov.typ == "path" {
			_, base := splitFile(ov.key)
			words = append(words, base)
			for _, nv := range n.vals {
				if _, nb := splitFile(nv.key); nv.typ == "path" && nb == base && nv.key != ov.key && n.change {
					return Probable, claims.Conflict{Subject: subject, Old: ov.raw, New: nv.raw, How: "path"}
				}
			}
		}
		for _, w := range words {
			if len(w) >= 3 && !claims.DigitsOnly(w) && retiredIn(n.low, w, true) {
				return Probable, claims.Conflict{Subject: subject, Old: ov.raw, New: replacementOf(o, n, ov), How: "replaced"}
			}
		}
		if was, is, ok := fromTo(n.low); ok && saysValue(was, strings.ToLower(ov.raw)) && !saysValue(is, strings.ToLower(ov.raw)) {
			return Probable, claims.Conflict{Subject: subject, Old: ov.raw, New: is, How: howOf(ov.typ)}
		}
	}
	// A name of the newer text that the older one says in its own words
	// ("Mongo" for "MongoDB"), named as retired.
	for _, nv := range n.vals {
		if nv.typ != "name" || len(nv.key) < 4 || !o.knows(nv.key) {
			continue
		}
		if retiredIn(n.low, nv.key, true) {
			return Probable, claims.Conflict{Subject: subject, Old: nv.raw, New: replacementOf(o, n, nv), How: "replaced"}
		}
	}
	return None, claims.Conflict{}
}

// valueWord reports whether t (a term) is a word of one of r's values: a
// name, or the package a version belongs to.
func (r uread) valueWord(t string) bool {
	for _, v := range r.vals {
		if pkg, ok := strings.CutPrefix(v.typ, "version:"); ok && pkg != "" && lang.Stem(pkg) == t {
			return true
		}
		if v.typ == "name" && slices.ContainsFunc(strings.Fields(v.key), func(w string) bool { return lang.Stem(w) == t || w == t }) {
			return true
		}
	}
	return false
}

// apart reports whether each text has a subject word the other lacks,
// values, files and the manifests versions are kept in aside ("The docs
// site needs Node 18" and "The frontend needs Node 20"; not "Bumped react
// to 18.3.1 in package.json and regenerated the lockfile" against "The
// frontend uses React 17.0.2").
func apart(o, n uread) bool {
	own := func(a, b uread, where string) bool {
		for _, w := range a.subject {
			if !strings.Contains(w, ":") && !a.valueWord(w) && !uManifestWords[w] && !b.has(w) && !strings.Contains(b.low, w) && strings.Contains(where, w) {
				return true
			}
		}
		return false
	}
	// The newer text's subject is what opens it, before its first value,
	// or the place it names after it ("in the backend Dockerfile"); what
	// else it did ("ran the migration check") is not.
	where := n.low
	if len(n.vals) > 0 {
		if i := strings.Index(n.low, strings.ToLower(n.vals[0].raw)); i > 0 {
			where = n.low[:i]
			if m := uInTheRe.FindString(n.low[i:]); m != "" {
				where += " " + m
			}
		}
	}
	return own(o, n, o.low) && own(n, o, where)
}

// uInTheRe: the place a change was made, right after its value.
var uInTheRe = regexp.MustCompile(`^\S+\s+(?:in|for|on)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?`)

// uManifestWords (stemmed) name where versions and settings are written
// down, not what they are about.
var uManifestWords = lang.WordSet(`packag json lockfil lock toml yaml yml txt manifest requir gemfil pom xml gradl cargo go mod sum file config setting env regener pin`)

// firstContent is the first word of a text that can name its subject,
// verbs of change aside.
func firstContent(low string) string {
	for _, w := range strings.FieldsFunc(low, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' }) {
		if contentWord(w) && !uChangeRe.MatchString(w) {
			return w
		}
	}
	return ""
}

// ownedBy reports whether a version or number of the newer text belongs to
// what the older one speaks of: the words just before it ("bumped
// react-router to 6.22", "the pgvector extension to 0.7") name something
// the older text says, whole ("react-router" is not "React").
func ownedBy(o, n uread, nv uval) bool {
	owners, ok := ownersOf(n, nv)
	return !ok || len(owners) == 0 || anyOwnerKnown(o, owners)
}

// ownerNamed reports whether the words before a bare number name something
// the older text names ("pool size to 50" for "pool size is 20").
func ownerNamed(o, n uread, nv uval) bool {
	owners, ok := ownersOf(n, nv)
	return ok && anyOwnerKnown(o, owners)
}

// anyOwnerKnown reports whether the older text names one of the owners,
// whole words only ("djangorestframework" is not "Django").
func anyOwnerKnown(o uread, owners []string) bool {
	return slices.ContainsFunc(owners, func(w string) bool {
		return saysValue(o.low, w) || slices.Contains(o.subject, canonStem(w))
	})
}

// ownersOf are the content words just before a value of n, back to the
// first word that is none (articles, "to", "version" and words of change
// skipped); ok is false when the value is not found in the text.
func ownersOf(n uread, nv uval) ([]string, bool) {
	if nv.typ != "number" && !strings.HasPrefix(nv.typ, "version:") {
		return nil, false
	}
	i := strings.Index(n.low, strings.ToLower(nv.raw))
	if i < 0 {
		return nil, false
	}
	words := strings.FieldsFunc(n.low[:i], func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' && c != '_' })
	var owners []string
	for k := len(words) - 1; k >= 0 && k >= len(words)-5; k-- {
		w := words[k]
		if w == "to" || w == "at" || w == "version" || w == "v" || w == "is" || w == "now" || w == "and" || uArticles[w] || uChangeRe.MatchString(w) || uAttrWords[lang.Stem(w)] {
			continue
		}
		if !contentWord(w) {
			break
		}
		owners = append(owners, w)
	}
	return owners, true
}

// otherClause reports whether the newer text says the old value only in a
// clause apart from the one that says what changed: "we moved on-call
// scheduling to PagerDuty, the opsgenie contract ended".
func otherClause(n uread, ov uval) bool {
	clauses := uClauseRe.Split(n.low, -1)
	changed := false
	for _, c := range clauses {
		if uChangeRe.MatchString(c) {
			if saysValue(c, strings.ToLower(ov.raw)) {
				return false
			}
			changed = true
		}
	}
	return len(clauses) > 1 && changed
}

// uStillRe: the newer text says the old value still holds somewhere.
var uStillRe = regexp.MustCompile(`(?i)\b(?:still|remains?|stays?|unchanged|untouched|as before|same as)\b`)

// says reports whether r says v again: its words, or a value of its kind
// and key ("one minute" for "60 seconds"), or every word of a name
// ("mkdocs-material" for "MkDocs Material").
func (r uread) says(v uval) bool {
	if saysValue(r.low, strings.ToLower(v.raw)) || stillSaid(r, v) {
		return true
	}
	if strings.HasPrefix(v.typ, "version:") && strings.ContainsAny(v.key, ".") && saysValue(r.low, v.key) {
		return true // "stays on 2.11" says "OpenSearch 2.11"
	}
	if v.typ != "name" {
		return false
	}
	words := strings.FieldsFunc(v.key, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	if len(words) == 0 {
		return false
	}
	if len(words) > 1 && len(words[0]) >= 3 && saysValue(r.low, words[0]) && len(words[len(words)-1]) <= 3 {
		return true // "Fly" for "Fly.io", "Travis" for "Travis CI"
	}
	for _, w := range words {
		if !strings.Contains(r.low, w) {
			return false
		}
	}
	return true
}

// keyOf reports whether a terse note's key ("billing-svc port: 9090")
// names only what the older text is about: a word it lacks ("redis
// maxclients = 10000" against "Redis maxmemory is 2 GB") makes it a
// note about another setting.
func keyOf(o, n uread) bool {
	key := n.text
	if i := strings.IndexAny(key, ":="); i >= 0 {
		key = key[:i]
	} else if i := strings.Index(strings.ToLower(key), " set to "); i >= 0 {
		key = key[:i]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(key), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
		if !contentWord(w) {
			continue
		}
		if !o.knows(w) {
			return false
		}
	}
	return true
}

// contentWord: a word that can name a subject.
func contentWord(w string) bool {
	if len(w) < 2 || claims.FuncWords[w] || claims.FillerWords[w] || claims.OpenerWords[w] || uWeakWords[w] || claims.CanonWords[w] != "" || claims.DigitsOnly(w) {
		return false
	}
	s := lang.Stem(w)
	return !uWeakWords[s] && !uDurationWords[s] && !uChangeRe.MatchString(w)
}

// knows reports whether r speaks of w: a subject word or name, a short
// form of one, or a word its text holds ("approving" for "approval").
func (r uread) knows(w string) bool {
	s := canonStem(w)
	return r.has(s) || len(s) >= 4 && strings.Contains(r.low, s) || saysValue(r.low, w)
}

// qualified reports whether the newer text narrows what the older one is
// about to a part it does not name: a word before a word of the older
// text's subject ("the docs deploys", "Refresh tokens", "Data team's
// on-call"), "for X" or "of the X" after it ("the cache TTL for the search
// results"), or a possessive ("the gateway's health check"). Only the
// older text's subject counts (the words before its verb), and only within
// one clause of the newer text: "Per the security review, sessions
// expire…" narrows nothing.
func qualified(o, n uread) bool { return qualifiedHow(o, n) != notNarrowed }

// How a newer text narrows the older's subject (qualifiedHow).
const (
	notNarrowed    = iota
	narrowedBefore // a word before it: "the docs deploys"
	narrowedOwner  // a possessive: "the gateway's health check"
	narrowedFor    // "for X", "of the X" after it
	narrowedKind   // another thing of its kind: "the default language"
)

// qualifiedHow is qualified, saying how.
func qualifiedHow(o, n uread) int {
	head := subjectHead(o.text)
	other := func(w string) bool {
		w = strings.TrimSuffix(w, "'s")
		if !contentWord(w) || o.knows(w) || uBroadWords[w] || len(w) > 4 && strings.HasSuffix(w, "ed") {
			return false
		}
		// A value of the newer text is no qualifier, nor a name where it
		// says it changed: the name is the new value ("now hosted in the
		// Dublin region", "secrets are kept in AWS Secrets Manager").
		return !slices.ContainsFunc(n.vals, func(v uval) bool {
			return (v.typ != "name" || n.change) && strings.Contains(strings.ToLower(v.raw), w)
		})
	}
	for _, clause := range uClauseRe.Split(n.low, -1) {
		words := strings.FieldsFunc(clause, func(c rune) bool {
			return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' && c != '_' && c != '\'' && c != '/' && c != '.'
		})
		for k, w := range words {
			words[k] = strings.Trim(w, ".")
		}
		after := func(k int) bool { // the first word from k on, past articles, is another thing
			for k < len(words) && uArticles[words[k]] {
				k++
			}
			return k < len(words) && other(words[k])
		}
		for i, w := range words {
			base := strings.TrimSuffix(w, "'s")
			if !contentWord(base) || !slices.ContainsFunc(head, func(h string) bool { return sameWord(h, base) }) {
				continue
			}
			switch {
			case i > 0 && other(words[i-1]):
				return narrowedBefore
			case base != w && after(i+1):
				return narrowedOwner
			case i+1 < len(words) && (words[i+1] == "for" || words[i+1] == "of") && after(i+2):
				return narrowedFor
			case i+1 < len(words) && !sameWord(head[len(head)-1], base) && other(words[i+1]) && !uAttrWords[lang.Stem(words[i+1])] && !uAttrWords[lang.Stem(head[slices.IndexFunc(head, func(h string) bool { return sameWord(h, base) })+1])]:
				// "the default language" where the older says "the default
				// currency": another thing of the same kind. An attribute
				// word is no other thing ("staging url" for "staging
				// environment", "uploads cap" for "upload size").
				return narrowedKind
			}
		}
	}
	return notNarrowed
}

// subjectHead is what a stored fact is about: its content words before its
// verb ("The session timeout is 30 minutes" → session, timeout), at most
// four.
func subjectHead(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' && c != '_' && c != '\''
	}) {
		base := strings.TrimSuffix(w, "'s")
		if uArticles[base] {
			continue
		}
		if uTimeWords[base] {
			continue // "the monthly AWS budget", "nightly backups"
		}
		if claims.FuncWords[base] || claims.CanonWords[base] != "" || claims.DigitsOnly(base) || len(out) == 4 {
			break
		}
		if (uWeakWords[base] || uWeakWords[lang.Stem(base)]) && !nounBefore(text, base) {
			break
		}
		out = append(out, base)
	}
	return out
}

// nounBefore reports whether a weak word stands as a noun before another
// lower-case word of the subject ("the daily report cron job"), not as a
// verb before its object ("owns the billing service", "requires Go").
func nounBefore(text, w string) bool {
	fs := strings.Fields(text)
	for i := 0; i+1 < len(fs); i++ {
		if strings.ToLower(strings.Trim(fs[i], ".,;:!?()`\"'")) != w {
			continue
		}
		nx := strings.Trim(fs[i+1], ".,;:!?()`\"'")
		return nx != "" && unicode.IsLower(rune(nx[0])) && contentWord(nx) && !uWeakWords[nx] && !uWeakWords[lang.Stem(nx)] && !uArticles[nx]
	}
	return false
}

// sameWord: one stem, or one a short form of the other.
func sameWord(a, b string) bool { return canonStem(a) == canonStem(b) }

// canonStem is a word's stem, a short form's as its long form's ("prod"
// is production's, "db" database's): how update readings compare words.
func canonStem(w string) string {
	s := lang.Stem(w)
	if c, ok := uShortWords[s]; ok {
		return c
	}
	return s
}

var (
	uClauseRe   = regexp.MustCompile(`[,;:.!?()—]+\s|[;()—]|\n`)
	uArticles   = lang.WordSet(`the a an all our their its this that these those`)
	uAttrWords  = lang.WordSet(`url address host hostnam endpoint locat size cap limit max maximum minimum min valu set version number count port path name id owner time schedul timeout lifetim ttl rate quota tier plan level mode option type kind channel`)
	uTimeWords  = lang.WordSet(`hourly nightly daily weekly biweekly monthly quarterly yearly annual annually current new old`)
	uBroadWords = lang.WordSet(`everyone everybody everything anyone anybody nobody nothing someone something all both each every good us me them now today`)
)

// looseType reports whether two values can stand for one another: the same
// kind, a bare number against a count or a version, days against a
// frequency.
func looseType(ov, nv uval, o, n uread) bool {
	if sameUType(ov.typ, nv.typ) || countOf(ov, nv, o, n) {
		return true
	}
	numeric := func(t string) bool {
		return t == "number" || strings.HasPrefix(t, "version:") || strings.HasPrefix(t, "count:")
	}
	if numeric(ov.typ) && numeric(nv.typ) {
		a, b := strings.TrimPrefix(strings.TrimPrefix(ov.typ, "version:"), "count:"), strings.TrimPrefix(strings.TrimPrefix(nv.typ, "version:"), "count:")
		return a == "number" || b == "number" || a == "" || b == "" || a == b
	}
	pair := ov.typ + ">" + nv.typ
	return pair == "day>freq" || pair == "freq>day" || pair == "time>freq" || pair == "freq>time"
}

// reference reports whether the ticket at text[lo:hi] is named as where a
// change came from, not what it is about: "(PR #4412)", "per #881", "see
// JIRA-12", "in #12".
func reference(text string, lo, hi int) bool {
	before := strings.ToLower(strings.TrimSpace(text[:lo]))
	if strings.HasSuffix(before, "(") {
		return true
	}
	if i := strings.LastIndexAny(before, " \t\n"); i >= 0 {
		before = before[i+1:]
	}
	return uRefWords[strings.Trim(before, "(,")]
}

var uRefWords = lang.WordSet(`per see via from closes fixes refs re`)

// plainNumber writes a number without its thousands' commas: "5,000" is
// 5000.
func plainNumber(n string) string {
	if strings.Contains(n, ",") && unicode.IsDigit(rune(n[0])) {
		return strings.ReplaceAll(n, ",", "")
	}
	return n
}

// thousands is n thousand, written out: "10" is 10000, "2.5" 2500.
func thousands(n string) string {
	v, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	return strconv.FormatFloat(v*1000, 'f', -1, 64)
}

// typedChange: a value of the same type that differs, the old one not
// said again, on the same subject.
func typedChange(o, n uread, oOnly, nOnly int, same bool) (Strength, claims.Conflict) {
	if !same {
		return None, claims.Conflict{}
	}
	subject := subjectPhrase(o, n)
	// Names on both sides that the other lacks qualify the subject ("the
	// API port", "the gRPC port"): those are two things.
	qualified := onlyNames(o, n) && onlyNames(n, o)
	// Words only the newer text has narrow its subject ("the request
	// timeout for uploads"): without words of change, another thing.
	if nOnly > 0 && !n.change {
		return None, claims.Conflict{}
	}
	for _, ov := range o.vals {
		if qualified && ov.typ != "name" {
			continue
		}
		if saysValue(n.low, ov.raw) {
			continue
		}
		for _, nv := range n.vals {
			if !sameUType(ov.typ, nv.typ) && !countOf(ov, nv, o, n) || ov.key == nv.key || stillSaid(o, nv) {
				continue // stillSaid: the new value was in the old text too, a list
			}
			c := claims.Conflict{Subject: subject, Old: ov.raw, New: nv.raw, How: howOf(ov.typ)}
			// Certain only when the newer text adds no word to the subject
			// ("the max upload size for avatars" is maybe another thing).
			if n.change && nOnly == 0 && (oOnly == 0 || ov.typ != "name" && ov.typ != "code") {
				return Certain, c
			}
			if n.change || ov.typ != "name" && ov.typ != "code" {
				return Probable, c
			}
		}
	}
	return None, claims.Conflict{}
}

// subjectPhrase says what two texts share in the older one's own words, in
// its order: "staging database", "max upload size".
func subjectPhrase(o, n uread) string {
	var out []string
	for _, w := range strings.FieldsFunc(o.text, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(".,;:!?()`\"", r) }) {
		lw := strings.ToLower(w)
		if len(lw) < 2 || claims.FuncWords[lw] || claims.FillerWords[lw] || uWeakWords[lw] || claims.CanonWords[lw] != "" {
			continue
		}
		s := lang.Stem(lw)
		if !slices.Contains(o.subject, s) && slices.Contains(o.subject, lw) {
			s = lw // a package's name, kept as written
		}
		if slices.Contains(o.subject, s) && n.has(s) && !slices.Contains(out, lw) {
			out = append(out, lw)
		}
	}
	if len(out) > 6 {
		out = out[:6]
	}
	return strings.Join(out, " ")
}

func firstValue(n uread, not string) string {
	for _, v := range n.vals {
		if !strings.EqualFold(v.raw, not) {
			return v.raw
		}
	}
	return "no longer"
}

func stillSaid(o uread, nv uval) bool {
	for _, v := range o.vals {
		if v.typ == nv.typ && v.key == nv.key {
			return true
		}
	}
	return false
}

func sameUType(a, b string) bool {
	if a == b {
		return true
	}
	// A constraint with no package against one with a package: same kind.
	return strings.HasPrefix(a, "version:") && strings.HasPrefix(b, "version:") && (a == "version:" || b == "version:")
}

func howOf(typ string) string {
	switch {
	case strings.HasPrefix(typ, "version"):
		return "version"
	case typ == "port", typ == "path":
		return typ
	case typ == "size", typ == "time", typ == "freq", strings.HasPrefix(typ, "count:"), typ == "number":
		return "number"
	}
	return "value"
}

// retiredIn reports whether text names v as the thing replaced: "off v",
// "from v to", "no longer … v", "replaced v", "v is gone", "not v",
// "instead of v", "retired v".
func retiredIn(text, v string, loose bool) bool {
	// loose: v is a value of the old text, not any word of it.
	if v == "" {
		return false
	}
	res := retiredStrict
	if loose {
		res = retiredLoose
	}
	re := res.Get(v)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return false
	}
	m := text[loc[0]:loc[1]]
	if strings.HasPrefix(m, "from") && !strings.Contains(text[loc[1]-1:], " to ") && !uChangeRe.MatchString(text) {
		return false // "reads from v": not a change
	}
	return true
}

// retiredStrict and retiredLoose are retiredIn's expressions, one a
// value, kept as readings are: a pass reads the same stored values against
// many texts, and building one was most of the update model's time.
var (
	retiredStrict = claims.NewCache(func(v string) *regexp.Regexp { return retiredExpr(v, false) })
	retiredLoose  = claims.NewCache(func(v string) *regexp.Regexp { return retiredExpr(v, true) })
	// fromValue is "from v to X", X the new value.
	fromValue = claims.NewCache(func(v string) *regexp.Regexp {
		return regexp.MustCompile(`\bfrom\s+` + regexp.QuoteMeta(v) + `\s+to\s+([\w./:-]+)`)
	})
)

// retiredExpr is the expression retiredIn reads v with.
func retiredExpr(v string, loose bool) *regexp.Regexp {
	q := regexp.QuoteMeta(v)
	lead := `off|out of|longer(?:\s+\w+){0,2}|replaced|replace|replacing|retired|retiring|renamed|dropped|dropping|removed|removing|deprecating|ditched|swapped(?:\s+out)?|stopped(?:\s+using)?|instead of|rather than|away from|no more|cancelled|canceled|decommissioned|shut down|uninstalled|got rid of|ripped out|deleted|don't (?:use|call|run)|do not (?:use|call|run)|never (?:use|call|run)`
	gone := `(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:gone|retired|replaced|dropped|deprecated|removed|swapped|no longer|not used|unused)`
	if loose {
		// A value, not a subject word, that moved or left ("Carol moved
		// to platform"); "the gateway moved to port 9443" is the subject.
		lead += `|from|not`
		gone += `|(?:has\s+)?left\b|moved to|went to|switched to|became|joined|(?:is|are|was|got|gets)\s+(?:being\s+)?(?:decommissioned|deleted|uninstalled|shut down|ripped out|turned off|cancelled|canceled|sunset|rebuilt|revoked|dead)|'s out|(?:is|are)\s+dead\s+code`
	}
	return regexp.MustCompile(`(?:\b(?:` + lead + `)\s+(?:the\s+|using\s+)?` + "`?" + q + "`?" + `(?:\W|$))|(?:(?:^|\W)` + "`?" + q + "`?" + `\s+(?:` + gone + `))`)
}

// replacementOf is the new value that stands where v stood: one of the
// same type, else the first name or value the newer text holds that is not v.
func replacementOf(o, n uread, v uval) string {
	fresh := func(nv uval) bool {
		return nv.key != v.key && !strings.Contains(strings.ToLower(nv.raw), strings.ToLower(v.raw)) && !saysValue(o.low, nv.raw)
	}
	for _, nv := range n.vals {
		if sameUType(nv.typ, v.typ) && fresh(nv) {
			return nv.raw
		}
	}
	for _, nv := range n.vals {
		if fresh(nv) {
			return nv.raw
		}
	}
	return ""
}

// Keys are the words a memory is found by when a newer text may
// update it: its title's words split at case and punctuation
// ("compileSdkVersion" is compile, sdk and version; "react-dom" holds
// react), stemmed, short forms as their long ones ("prod" finds
// production), and the first five letters of a long word ("postgres"
// finds "PostgreSQL", "Dockerfile" finds "docker").
func Keys(title string) []string {
	texts := []string{title}
	if split := splitCase(title); split != title {
		texts = append(texts, split)
	}
	var named map[string]bool // read when a weak word needs it: a pass keys every title
	var out []string
	seen := map[string]bool{}
	keep := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, text := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
			if len(w) < 2 || StopWords[w] || claims.FuncWords[w] || strings.IndexFunc(w, unicode.IsLetter) < 0 || strings.IndexFunc(w, unicode.IsDigit) >= 0 && len(w) < 4 {
				continue
			}
			s := canonStem(w)
			if uWeakWords[s] || uWeakWords[w] {
				if named == nil {
					named = namedWords(title)
				}
				if !named[w] {
					continue
				}
			}
			keep(s)
			if len(s) >= 5 {
				keep("p:" + s[:5])
				// A compound's tail: "services" finds "microservices".
				keep("t:" + s[len(s)-5:])
			}
		}
	}
	return out
}

// namedWords are the words a text writes capitalised past a sentence's
// start, lower-cased: "Switch" in "Locked Switch to 60" is a name, not the
// verb.
func namedWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, sent := range splitSentencesLoose(text) {
		fs := strings.Fields(sent)
		for i := 1; i < len(fs); i++ {
			if w := strings.Trim(fs[i], ".,;:!()\"'`"); isCapitalised(w) {
				out[strings.ToLower(w)] = true
			}
		}
	}
	return out
}

// splitCase splits words where their case changes (compileSdkVersion):
// a space wherever a lower-case letter or digit meets a capital, as the
// expression ([a-z0-9])([A-Z]) replaced by "$1 $2" does (TestSplitCase);
// by hand, since Keys reads every title of a project.
func splitCase(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is written
	for i := 0; i+1 < len(s); i++ {
		if c, d := s[i], s[i+1]; ('a' <= c && c <= 'z' || '0' <= c && c <= '9') && 'A' <= d && d <= 'Z' {
			b.WriteString(s[last : i+1])
			b.WriteByte(' ')
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// onlyNames reports whether a names something b does not mention.
func onlyNames(a, b uread) bool {
	for _, v := range a.vals {
		if v.typ == "name" && !saysValue(b.low, v.raw) {
			return true
		}
	}
	return false
}

// OtherThings reports whether two texts name different packages, task ids
// or environments, each one the other lacks ("`rails` ~> 7.1" and "`sidekiq` ~> 6.5", spotter-fum.1
// and spotter-fum.2, staging and production): never one subject.
func OtherThings(a, b string) bool {
	ra, rb := updateCache.Get(a), updateCache.Get(b)
	differs := func(x, y uread) bool {
		for _, w := range x.subject {
			if (strings.Contains(w, ":") || uEnvWords[w]) && !y.has(w) {
				return true
			}
		}
		return false
	}
	return ra.ownerless || rb.ownerless || differs(ra, rb) && differs(rb, ra)
}

// updateCache caches texts read for updates, as claims caches claims.
var updateCache = claims.NewCache(readUpdate)

// sameQuantity reports whether an update's old and new values are one
// quantity said two ways ("2+ minutes" and "2-3 min"): a paraphrase, not a
// change.
func sameQuantity(c claims.Conflict) bool {
	o, n := readParaphrase(c.Old), readParaphrase(c.New)
	return len(o.vals) > 0 && len(n.vals) > 0 && sameValues(o.vals, n.vals)
}

// countOf reports whether a count and a bare number are the same kind of
// value: "5 threads" and "threads to 8", the counted noun named on both
// sides.
func countOf(ov, nv uval, o, n uread) bool {
	if c, ok := strings.CutPrefix(ov.typ, "count:"); ok && nv.typ == "number" {
		return n.has(c)
	}
	if c, ok := strings.CutPrefix(nv.typ, "count:"); ok && ov.typ == "number" {
		return o.has(c)
	}
	return false
}

// QueryText is what a newer memory's update candidates are found by: its
// title and the start of its body (an agent's long message says what
// changed anywhere in its first lines, not only in its title).
func QueryText(m *memory.Memory) string {
	t := claims.ClaimText(m)
	if len(t) > 600 {
		t = t[:600]
	}
	return t
}

// StopWords are left out of a title's subject words.
var StopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been being am of to in on at by for with from as and or
		but not no it its this that these those we our us you your i my me he she they them their there here
		has have had do does did will would can could should may might must so than then too very just also
		into onto over under about after before again all any each few more most other some such only own same
		now still yet use uses used using via per`) {
		StopWords[w] = true
	}
}
