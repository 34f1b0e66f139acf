// Package lazyre holds regular expressions compiled on their first use.
// The readers of consolidation have some eighty of them, and compiling them
// all at init cost every cairn process 4–5 ms of its start, a command that
// never consolidates included.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use.
type Regexp struct{ re func() *regexp.Regexp }

var (
	mu  sync.Mutex
	all []Regexp // every Regexp made, for CompileAll
)

// New is expr, compiled when it is first used. A mistake in expr panics
// then; tests call CompileAll so that none waits for its first use.
func New(expr string) Regexp {
	l := Regexp{sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	mu.Lock()
	all = append(all, l)
	mu.Unlock()
	return l
}

// CompileAll compiles every expression made so far (by the packages
// linked in) and says how many there are.
func CompileAll() int {
	mu.Lock()
	defer mu.Unlock()
	for _, l := range all {
		l.re()
	}
	return len(all)
}

func (l Regexp) MatchString(s string) bool              { return l.re().MatchString(s) }
func (l Regexp) FindString(s string) string             { return l.re().FindString(s) }
func (l Regexp) FindStringIndex(s string) []int         { return l.re().FindStringIndex(s) }
func (l Regexp) FindStringSubmatch(s string) []string   { return l.re().FindStringSubmatch(s) }
func (l Regexp) FindStringSubmatchIndex(s string) []int { return l.re().FindStringSubmatchIndex(s) }
func (l Regexp) FindAllString(s string, n int) []string { return l.re().FindAllString(s, n) }
func (l Regexp) FindAllStringIndex(s string, n int) [][]int {
	return l.re().FindAllStringIndex(s, n)
}
func (l Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}
func (l Regexp) ReplaceAllString(s, repl string) string { return l.re().ReplaceAllString(s, repl) }
func (l Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.re().ReplaceAllStringFunc(s, f)
}
func (l Regexp) Split(s string, n int) []string { return l.re().Split(s, n) }
