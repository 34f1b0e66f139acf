package recall

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A query that names a time ("in June", "on 13 October 2023", "last
// week") asks for memories of that time. The time counts as one more word
// of the query, which the memories whose own time (valid-from, else
// creation; see memoryTime) falls in it hold: a memory's time is its
// metadata, not its text (one written on 2023-06-27 rarely says so), and a
// store with nothing of that time knows less of the query (its floor).

// dateMass is the weight of the time a query names: that of an average
// word of the query (of a word no memory holds when it has no other).
func (x *lexIndex) dateMass(qtoks []string) float64 {
	if len(qtoks) == 0 {
		return x.idf(0)
	}
	return x.mass(qtoks) / float64(len(distinct(qtoks)))
}

func distinct(ts []string) map[string]bool {
	out := make(map[string]bool, len(ts))
	for _, t := range ts {
		out[t] = true
	}
	return out
}

// span is a stretch of time a query names: [from, to), or, when anyYear,
// a month (and day) of whatever year.
type span struct {
	from, to time.Time
	anyYear  bool
	month    time.Month
	day      int // 0: the whole month
}

func (s span) holds(t time.Time) bool {
	if t.IsZero() {
		return false
	}
	return s.holdsAt(t.Unix(), yearDay(t))
}

// holdsAt is holds of a time as unix seconds and its yearDay: integers,
// as the index keeps them, so that a scan of every memory is cheap.
func (s span) holdsAt(unix int64, yd int16) bool {
	if !s.anyYear {
		return unix >= s.from.Unix() && unix < s.to.Unix()
	}
	from := yearDay(time.Date(refYear, s.month, max(s.day, 1), 0, 0, 0, 0, time.UTC))
	to := from + dayReach
	if s.day == 0 {
		to = from + int16(time.Date(refYear, s.month+1, 0, 0, 0, 0, 0, time.UTC).Day())
	}
	if yd < from {
		yd += 365 // a span that runs past the year's end
	}
	return yd >= from && yd < to
}

// yearDay is the day of the year of t's month and day in a year with no
// 29 February (which counts as the 28th), so that a month or a day of any
// year is one range of them.
func yearDay(t time.Time) int16 {
	_, m, d := t.Date()
	if m == time.February && d == 29 {
		d = 28
	}
	return int16(time.Date(refYear, m, d, 0, 0, 0, 0, time.UTC).YearDay())
}

const refYear = 2001

// dayReach is how many days from a day named its span runs.
const dayReach = 8

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		months[name] = m
		if len(name) > 4 {
			months[name[:3]] = m // jan, feb, … (not "may", "june", "july" twice)
		}
	}
	months["sept"] = time.September
}

const monthRE = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	isoDate     = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	dayMonthYr  = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRE + `,?\s+(\d{4})\b`)
	monthDayYr  = regexp.MustCompile(`\b` + monthRE + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	monthYr     = regexp.MustCompile(`\b` + monthRE + `,?\s+(\d{4})\b`)
	dayMonth    = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRE + `\b`)
	monthDay    = regexp.MustCompile(`\b` + monthRE + `\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	inMonth     = regexp.MustCompile(`\b(?:in|of|during|since|until|before|after|early|late|mid|last|this|next|through)\s+` + monthRE + `\b`)
	monthNamed  = regexp.MustCompile(`\b(January|February|March|April|June|July|August|September|October|November|December)\b`)
	yearOnly    = regexp.MustCompile(`\b(?:in|of|since|during|until|before|after|from|by|year|early|late|mid)\s+(19\d{2}|20\d{2})\b`)
	relativeDay = regexp.MustCompile(`\b(today|yesterday|(?:last|this|past)\s+(?:week|month|year))\b`)
)

// querySpans are the times a query names, and the query without them
// (what its words say besides: "in May 2023" is a time, not three words
// to look for in the text). Relative times ("yesterday", "last month")
// count from now.
func querySpans(q string, now time.Time) ([]span, string) {
	if !mayNameTime(q) {
		return nil, q // most queries: the expressions below cost 0.2 ms
	}
	r := &spanReader{q: q, lq: asciiLower(q), taken: make([]bool, len(q))}
	r.dated()
	r.dayOfAnyYear()
	r.monthAlone()
	r.yearAlone()
	r.relative(now)
	if len(r.out) == 0 {
		return nil, q
	}
	return r.out, r.rest()
}

// spanReader reads the times out of one query, each part of it once: the
// most precise expressions first, so that "13 October 2023" is a day and
// not also a month and a year.
type spanReader struct {
	q, lq string // the query, and it in lower case (the same length: places in it are places in q)
	taken []bool // bytes already read as part of a date
	out   []span
}

// take claims the bytes of loc for a date, unless some were read already.
func (r *spanReader) take(loc []int) bool {
	for i := loc[0]; i < loc[1]; i++ {
		if r.taken[i] {
			return false
		}
	}
	for i := loc[0]; i < loc[1]; i++ {
		r.taken[i] = true
	}
	return true
}

// day adds a day named. A day named is the day of an event, and what is
// remembered of it is often written down days later: the span runs a week
// on.
func (r *spanReader) day(y int, m time.Month, d int) {
	if d >= 1 && d <= 31 {
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		r.out = append(r.out, span{from: from, to: from.AddDate(0, 0, dayReach)})
	}
}

func (r *spanReader) month(y int, m time.Month) {
	from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	r.out = append(r.out, span{from: from, to: from.AddDate(0, 1, 0)})
}

// num is the number of the query's bytes a submatch at loc[i:i+2] holds.
func (r *spanReader) num(loc []int, i int) int {
	n, _ := strconv.Atoi(r.q[loc[i]:loc[i+1]])
	return n
}

// mon is the month the query's submatch at loc[i:i+2] names.
func (r *spanReader) mon(loc []int, i int) time.Month {
	return months[strings.ToLower(strings.TrimSuffix(r.q[loc[i]:loc[i+1]], "."))]
}

// dated reads the days and months of a year named: 2023-10-13,
// 13 October 2023, October 13 2023, October 2023.
func (r *spanReader) dated() {
	for _, loc := range isoDate.FindAllStringSubmatchIndex(r.lq, -1) {
		if r.take(loc[:2]) {
			if m := r.num(loc, 4); m >= 1 && m <= 12 {
				r.day(r.num(loc, 2), time.Month(m), r.num(loc, 6))
			}
		}
	}
	for _, loc := range dayMonthYr.FindAllStringSubmatchIndex(r.lq, -1) {
		if r.take(loc[:2]) {
			r.day(r.num(loc, 6), r.mon(loc, 4), r.num(loc, 2))
		}
	}
	for _, loc := range monthDayYr.FindAllStringSubmatchIndex(r.lq, -1) {
		if r.take(loc[:2]) {
			r.day(r.num(loc, 6), r.mon(loc, 2), r.num(loc, 4))
		}
	}
	for _, loc := range monthYr.FindAllStringSubmatchIndex(r.lq, -1) {
		if r.take(loc[:2]) {
			r.month(r.num(loc, 4), r.mon(loc, 2))
		}
	}
}

// dayOfAnyYear reads a day of a month with no year: 13 October,
// October 13.
func (r *spanReader) dayOfAnyYear() {
	for _, loc := range dayMonth.FindAllStringSubmatchIndex(r.lq, -1) {
		if d := r.num(loc, 2); d >= 1 && d <= 31 && r.take(loc[:2]) {
			r.out = append(r.out, span{anyYear: true, month: r.mon(loc, 4), day: d})
		}
	}
	for _, loc := range monthDay.FindAllStringSubmatchIndex(r.lq, -1) {
		if d := r.num(loc, 4); d >= 1 && d <= 31 && r.take(loc[:2]) {
			r.out = append(r.out, span{anyYear: true, month: r.mon(loc, 2), day: d})
		}
	}
}

// monthAlone reads a month alone: after a word that makes it one ("in
// May"; "may" is also a verb), or a name that is only a month,
// capitalised.
func (r *spanReader) monthAlone() {
	for i, re := range []*regexp.Regexp{inMonth, monthNamed} {
		in := r.lq
		if i == 1 {
			in = r.q // capitalised
		}
		for _, loc := range re.FindAllStringSubmatchIndex(in, -1) {
			if r.take(loc[2:4]) {
				r.out = append(r.out, span{anyYear: true, month: r.mon(loc, 2)})
			}
		}
	}
}

// yearAlone reads a year after a word that makes it one ("in 2023").
func (r *spanReader) yearAlone() {
	for _, loc := range yearOnly.FindAllStringSubmatchIndex(r.lq, -1) {
		if r.take(loc[:2]) {
			from := time.Date(r.num(loc, 2), 1, 1, 0, 0, 0, 0, time.UTC)
			r.out = append(r.out, span{from: from, to: from.AddDate(1, 0, 0)})
		}
	}
}

// relative reads the times that count from now: today, yesterday, last
// (this, past) week, month or year.
func (r *spanReader) relative(now time.Time) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	for _, loc := range relativeDay.FindAllStringSubmatchIndex(r.lq, -1) {
		if !r.take(loc[:2]) {
			continue
		}
		w := strings.Fields(strings.ToLower(r.q[loc[2]:loc[3]]))
		switch {
		case w[0] == "today":
			r.out = append(r.out, span{from: today, to: today.AddDate(0, 0, 1)})
		case w[0] == "yesterday":
			r.out = append(r.out, span{from: today.AddDate(0, 0, -1), to: today})
		case w[1] == "week":
			r.out = append(r.out, span{from: today.AddDate(0, 0, -7), to: now.Add(time.Second)})
		case w[1] == "month":
			r.out = append(r.out, span{from: today.AddDate(0, -1, 0), to: now.Add(time.Second)})
		case w[1] == "year":
			r.out = append(r.out, span{from: today.AddDate(-1, 0, 0), to: now.Add(time.Second)})
		}
	}
}

// rest is the query with the times read blanked out.
func (r *spanReader) rest() string {
	rest := []byte(r.q)
	for i, t := range r.taken {
		if t {
			rest[i] = ' '
		}
	}
	return string(rest)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mayNameTime says whether q has a word a time could be made of: a
// number, a month, or a word of a relative time.
func mayNameTime(q string) bool {
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if w[0] >= '0' && w[0] <= '9' {
			return true
		}
		if len(w) < 3 || len(w) > 9 {
			continue
		}
		switch l := strings.ToLower(w); l {
		case "today", "yesterday", "week", "month", "year":
			return true
		default:
			if _, ok := months[l]; ok {
				return true
			}
		}
	}
	return false
}

// inSpans says whether t falls in any of spans.
func inSpans(spans []span, t time.Time) bool {
	for _, s := range spans {
		if s.holds(t) {
			return true
		}
	}
	return false
}

// inSpansAt is inSpans of a time as the index keeps it.
func inSpansAt(spans []span, unix int64, yd int16) bool {
	for _, s := range spans {
		if s.holdsAt(unix, yd) {
			return true
		}
	}
	return false
}
