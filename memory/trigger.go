package memory

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"cairn/internal/lang"
)

// Triggers are patterns, not substrings. A trigger is one of:
//
//   - words: they fire when the text holds them as whole words, in order,
//     each compared by its stem ("migration" fires on "migrating the
//     table"; "pool" does not fire on "spool");
//   - a glob, when it holds * ? or [: it fires on a word or path of the
//     text it matches, whole or by its last element ("*.sql" fires on
//     "edit db/schema.sql");
//   - a regular expression between slashes ("/v[12]\.charge/"), case
//     folded.
//
// Case never matters.

// TriggerText is a text prepared for matching many triggers against it.
type TriggerText struct {
	low   string
	stems []string // the text's words, stemmed, in order
	paths []string // its words and paths as written (lower case), for globs
}

// PrepareTriggerText reads text once for Match.
func PrepareTriggerText(text string) *TriggerText {
	t := &TriggerText{low: strings.ToLower(text)}
	t.stems = stemWords(t.low)
	for _, f := range strings.FieldsFunc(t.low, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`,;()<>{}", r)
	}) {
		if f = strings.TrimRight(f, ".:!?"); f != "" {
			t.paths = append(t.paths, f)
		}
	}
	return t
}

// Match returns the first of triggers that fires on the text, or "".
func (t *TriggerText) Match(triggers []string) string {
	for _, raw := range triggers {
		if compileTrigger(raw).fires(t) {
			return strings.TrimSpace(raw)
		}
	}
	return ""
}

// Triggered returns the first of triggers that fires on text, or "".
func Triggered(text string, triggers []string) string {
	if len(triggers) == 0 {
		return ""
	}
	return PrepareTriggerText(text).Match(triggers)
}

// ValidTrigger checks a trigger when it is written: one line, and a
// regular expression that compiles.
func ValidTrigger(raw string) error {
	s := strings.TrimSpace(raw)
	if strings.ContainsAny(s, "\n\r") || len(s) > MaxTrigger {
		return fmt.Errorf("invalid trigger %q: one line of at most %d characters", raw, MaxTrigger)
	}
	if isRegexpTrigger(s) {
		if _, err := regexp.Compile("(?i)" + s[1:len(s)-1]); err != nil {
			return fmt.Errorf("trigger %s is not a valid regular expression: %v", s, firstLine(err.Error()))
		}
	}
	return nil
}

// MaxTrigger bounds a trigger's length.
const MaxTrigger = 200

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func isRegexpTrigger(s string) bool { return len(s) > 2 && s[0] == '/' && s[len(s)-1] == '/' }

// trigger is a compiled trigger.
type trigger struct {
	re    *regexp.Regexp
	glob  string
	stems []string
}

func (tr *trigger) fires(t *TriggerText) bool {
	switch {
	case tr.re != nil:
		return tr.re.MatchString(t.low)
	case tr.glob != "":
		for _, p := range t.paths {
			if ok, _ := path.Match(tr.glob, p); ok {
				return true
			}
			if ok, _ := path.Match(tr.glob, path.Base(p)); ok {
				return true
			}
		}
		return false
	case len(tr.stems) == 0:
		return false
	}
	for i := 0; i+len(tr.stems) <= len(t.stems); i++ {
		if t.stems[i] != tr.stems[0] {
			continue
		}
		ok := true
		for k := 1; k < len(tr.stems); k++ {
			if t.stems[i+k] != tr.stems[k] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// compiled caches triggers: a store's triggers are few and matched often.
var compiled sync.Map // string → *trigger

// maxCompiled bounds the cache; past it, triggers are compiled each time.
const maxCompiled = 100_000

var compiledN int64
var compiledMu sync.Mutex

func compileTrigger(raw string) *trigger {
	if v, ok := compiled.Load(raw); ok {
		return v.(*trigger)
	}
	s := strings.ToLower(strings.TrimSpace(raw))
	tr := &trigger{}
	switch {
	case isRegexpTrigger(s):
		re, err := regexp.Compile("(?i)" + strings.TrimSpace(raw)[1:len(strings.TrimSpace(raw))-1])
		if err != nil {
			tr.stems = stemWords(s) // an old, invalid one: read as words
		} else {
			tr.re = re
		}
	case strings.ContainsAny(s, "*?["):
		if _, err := path.Match(s, ""); err == nil {
			tr.glob = s
		} else {
			tr.stems = stemWords(s)
		}
	default:
		tr.stems = stemWords(s)
	}
	compiledMu.Lock()
	if compiledN < maxCompiled {
		compiledN++
		compiled.Store(raw, tr)
	}
	compiledMu.Unlock()
	return tr
}

// stemWords are the words of a lower-cased text, each stemmed (Snowball
// English): letters and digits make words, anything else parts them.
func stemWords(low string) []string {
	fields := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, lang.StemAll(f))
	}
	return out
}
