// Package lang is the one home of the word handling that recall,
// consolidation and the domain share: stemming, folding accents and word
// lists. Each function answers the same for the same input wherever it is
// called from, so that a word read by one part is the word another part
// looks for.
package lang

import (
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// stems caches Snowball's answers for Stem: stemming is the costliest
// step of reading a text, and a project's vocabulary is small.
var stems sync.Map

// Stem is the Snowball (English) stem of a lower-case word of letters a to
// z; any other word (shorter than three letters, or with a digit, a capital,
// an accent or punctuation) is its own stem.
func Stem(w string) string {
	if len(w) < 3 || !asciiLetters(w) {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, false)
	stems.Store(strings.Clone(w), s)
	return s
}

// StemAll is the Snowball (English) stem of any word as it is, with no
// words left out: Snowball lower-cases it and keeps words of one or two
// letters and stop words as they are. A word Stem stems is Stem's, from
// its cache (a pass stems every title of a project).
func StemAll(w string) string {
	if len(w) >= 3 && asciiLetters(w) {
		return Stem(w)
	}
	return english.Stem(w, false)
}

func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Fold removes accents (é → e) so both spellings match; text without
// them is returned as it is.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
			out, _, err := transform.String(t, s)
			if err != nil {
				return s
			}
			return out
		}
	}
	return s
}

// WordSet is the set of the space-separated words of s: how the readers
// write their word lists.
func WordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
