package recall

import (
	"strings"
	"unicode"

	"cairn/internal/lang"
)

// Tokens splits text the way code and prose both need: words, numbers,
// identifiers and paths. A compound identifier (camelCase, snake_case,
// kebab-case, a/path/file.go) yields itself whole and each of its parts.
// Everything is case-folded, accents are removed, and words are stemmed
// (Snowball English). Stop words are dropped for ranking.
func Tokens(text string) []string {
	var out []string
	for _, raw := range fields(lang.Fold(text)) {
		whole := strings.Trim(raw, "._-/")
		if whole == "" {
			continue
		}
		parts := split(whole)
		if len(parts) > 1 {
			out = append(out, strings.ToLower(whole)) // the identifier as written, unstemmed
		}
		for _, p := range parts {
			p = american(strings.ToLower(p))
			if stopWords[p] || (len(p) < 2 && !isDigit(p)) {
				continue
			}
			out = append(out, lang.Stem(p))
		}
	}
	return out
}

// american spells a British word as code mostly does (colour → color,
// initialise → initialize, centre → center), so that a question asked in
// either spelling finds the other.
func american(w string) string {
	if len(w) < 4 {
		return w
	}
	for _, r := range britishRoots[w[:4]] {
		if strings.HasPrefix(w, r.gb) {
			return r.us + w[len(r.gb):]
		}
	}
	return w
}

// britishRoots are the beginnings of British spellings, each with its
// American one, by their first four letters (every token of every text
// passes here: one map lookup, not a scan of the list); a word that begins
// so is that word or one made from it (colours, coloured, initialised,
// initialisation).
var britishRoots = func() map[string][]struct{ gb, us string } {
	out := map[string][]struct{ gb, us string }{}
	add := func(gb, us string) { out[gb[:4]] = append(out[gb[:4]], struct{ gb, us string }{gb, us}) }
	for _, w := range strings.Fields(`colour behaviour favour honour neighbour flavour humour labour armour rumour vapour
	harbour parlour`) {
		add(w, strings.Replace(w, "our", "or", 1))
	}
	for _, w := range strings.Fields(`initialis normalis serialis deserialis optimis customis organis recognis synchronis
	authoris realis utilis specialis minimis maximis finalis capitalis summaris prioritis categoris visualis standardis
	sanitis tokenis memois materialis parallelis randomis localis internationalis analys paralys catalys`) {
		us := w[:len(w)-1] + "z"
		if strings.HasSuffix(w, "ys") {
			us = w[:len(w)-2] + "yz"
		}
		add(w, us)
	}
	for gb, us := range map[string]string{"centre": "center", "licence": "license", "catalogue": "catalog", "dialogue": "dialog",
		"grey": "gray", "cancelled": "canceled", "cancelling": "canceling", "modelled": "modeled", "modelling": "modeling",
		"labelled": "labeled", "labelling": "labeling", "travelled": "traveled", "signalled": "signaled", "signalling": "signaling"} {
		add(gb, us)
	}
	return out
}()

func isDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// fields cuts text at anything that cannot be inside an identifier or a path.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' || r == '/')
	})
}

// split breaks an identifier into its words: at _ - . / and at lower→upper
// and letter↔digit changes (HTTPServer → HTTP, Server).
func split(s string) []string {
	var parts []string
	rs := []rune(s)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' || r == '-' || r == '.' || r == '/' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start {
			p := rs[i-1]
			switch {
			case unicode.IsLower(p) && unicode.IsUpper(r),
				unicode.IsLetter(p) && unicode.IsDigit(r),
				unicode.IsDigit(p) && unicode.IsLetter(r):
				flush(i)
				start = i
			case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return parts
}

// stopWords are left out of ranking (Lucene's English list and a few more).
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or such that the
	their then there these they this to was will with we you your i me my our he she his her its what which who whom how
	why when where do does did has have had been being am were from than so too very can could should would`) {
		stopWords[w] = true
	}
}
