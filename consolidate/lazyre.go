package consolidate

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. The
// package has some eighty of them, and compiling them all at init cost
// every cairn process 4–5 ms of its start, a command that never
// consolidates included.
type lazyRegexp struct{ re func() *regexp.Regexp }

// lazies are every lazyRegexp made, for the test that compiles them all
// (a mistake in one would otherwise show only when it is first used).
var lazies []lazyRegexp

func lazy(expr string) lazyRegexp {
	l := lazyRegexp{sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	lazies = append(lazies, l)
	return l
}

func (l lazyRegexp) MatchString(s string) bool              { return l.re().MatchString(s) }
func (l lazyRegexp) FindString(s string) string             { return l.re().FindString(s) }
func (l lazyRegexp) FindStringIndex(s string) []int         { return l.re().FindStringIndex(s) }
func (l lazyRegexp) FindStringSubmatch(s string) []string   { return l.re().FindStringSubmatch(s) }
func (l lazyRegexp) FindStringSubmatchIndex(s string) []int { return l.re().FindStringSubmatchIndex(s) }
func (l lazyRegexp) FindAllString(s string, n int) []string { return l.re().FindAllString(s, n) }
func (l lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.re().FindAllStringIndex(s, n)
}
func (l lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}
func (l lazyRegexp) ReplaceAllString(s, repl string) string { return l.re().ReplaceAllString(s, repl) }
func (l lazyRegexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.re().ReplaceAllStringFunc(s, f)
}
func (l lazyRegexp) Split(s string, n int) []string { return l.re().Split(s, n) }
