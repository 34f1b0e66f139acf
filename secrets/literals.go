package secrets

import (
	"fmt"
	"regexp"
	"sync"
)

// A pattern is a regular expression for one credential format.
type pattern struct {
	name string
	// hint is what a person could write instead of the secret, for the
	// refusal's message: where such a secret is usually kept.
	hint string
	// lits are literals that every match starts with, at a word boundary
	// (and not after a hyphen) unless inner is set. Expressions only run where one of them occurs:
	// one pass over the text finds every literal of every pattern, which is
	// far cheaper than running the expressions over every note.
	lits  []string
	fold  bool // lits match whatever their ASCII case
	inner bool // a literal may follow a letter, digit or underscore
	// mid: the literals sit inside the match, not at its start, so the
	// expression runs over the whole text when one occurs. Keep those
	// literals rare.
	mid  bool
	expr string
	re   func() *regexp.Regexp // compiled on first use: seventy at init cost every process 3 ms
	// group is the submatch that is the secret itself (0: the whole match);
	// its start is where the finding is reported.
	group int
	// check, when set, must accept the match (m as from
	// FindStringSubmatchIndex, in offsets of the whole text).
	check func(text string, m []int) bool
	// max bounds the length of a match that starts at a literal (default
	// 600): the expression is tried on that much text.
	max int
}

func (pt *pattern) window() int {
	if pt.max > 0 {
		return pt.max + 1 // one more byte, so a trailing \b sees what follows
	}
	return 601
}

// A scanner is a rule written out in code rather than as an expression; it
// runs only when one of its literals occurs.
type scanner struct {
	lits []string
	fold bool
	run  func(text string, found func(start, end int, rule string))
}

// triggers records which patterns and scanners have a literal in the text:
// bit p for patterns[p], bit len(patterns)+s for scanners[s].
type triggers [4]uint64

func (t *triggers) set(i int)      { t[i>>6] |= 1 << (i & 63) }
func (t *triggers) has(i int) bool { return t[i>>6]&(1<<(i&63)) != 0 }

// A candidate is a place where an anchored pattern's literal starts.
type candidate struct{ pat, pos int }

type literal struct {
	s      string
	id     int  // pattern index, or len(patterns) + scanner index
	fold   bool // compare ignoring ASCII case
	bound  bool // must not follow a letter, digit, underscore or hyphen: tokens are not inside words or other tokens
	anchor bool // the pattern's expression starts here
}

// Literals are found by their first two bytes: pairGroup maps a byte pair to
// the group of literals that start with it (0: none).
var (
	pairGroup [1 << 16]uint8
	groups    = [][]literal{nil}
	ruleHint  = map[string]string{}
)

func init() {
	if len(patterns)+len(scanners) > len(triggers{})*64 {
		panic("secrets: too many rules for the trigger set")
	}
	for p := range patterns {
		pt := &patterns[p]
		expr := pt.expr
		if !pt.mid {
			expr = `^(?:` + pt.expr + `)`
		}
		pt.re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
		if pt.hint != "" {
			ruleHint[pt.name] = pt.hint
		}
		for _, s := range pt.lits {
			register(literal{s: s, id: p, fold: pt.fold, bound: !pt.inner && !pt.mid && wordByte(s[0]), anchor: !pt.mid})
		}
	}
	for i, sc := range scanners {
		for _, s := range sc.lits {
			register(literal{s: s, id: len(patterns) + i, fold: sc.fold})
		}
	}
}

func register(l literal) {
	if len(l.s) < 2 {
		panic(fmt.Sprintf("secrets: literal %q is too short", l.s))
	}
	a, b := []byte{l.s[0]}, []byte{l.s[1]}
	if l.fold {
		a, b = cases(l.s[0]), cases(l.s[1])
	}
	for _, x := range a {
		for _, y := range b {
			k := uint16(x)<<8 | uint16(y)
			g := pairGroup[k]
			if g == 0 {
				if len(groups) > 255 {
					panic("secrets: too many literal groups")
				}
				groups = append(groups, nil)
				g = uint8(len(groups) - 1)
				pairGroup[k] = g
			}
			groups[g] = append(groups[g], l)
		}
	}
}

func cases(c byte) []byte {
	switch {
	case c >= 'a' && c <= 'z':
		return []byte{c, c - 'a' + 'A'}
	case c >= 'A' && c <= 'Z':
		return []byte{c, c - 'A' + 'a'}
	}
	return []byte{c}
}

// findLiterals makes one pass over text, marks in need every pattern and
// scanner one of whose literals occurs, and returns, in order of position,
// where anchored patterns' literals start.
func findLiterals(text string, need *triggers, cands []candidate) []candidate {
	for i := 0; i+1 < len(text); i++ {
		g := pairGroup[uint16(text[i])<<8|uint16(text[i+1])]
		if g == 0 {
			continue
		}
		for _, l := range groups[g] {
			if !l.anchor && need.has(l.id) || len(text)-i < len(l.s) ||
				l.bound && i > 0 && (wordByte(text[i-1]) || text[i-1] == '-') {
				continue
			}
			if w := text[i : i+len(l.s)]; w != l.s && !(l.fold && asciiEqualFold(w, l.s)) {
				continue
			}
			need.set(l.id)
			if l.anchor && (len(cands) == 0 || cands[len(cands)-1] != candidate{l.id, i}) {
				cands = append(cands, candidate{l.id, i})
			}
		}
	}
	return cands
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
