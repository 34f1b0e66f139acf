// Package recall finds the memories that matter for a task. This first
// version is plain word matching over the active memories of a project and
// the global scope; the ranked, budgeted hybrid recall of DESIGN §4
// replaces it behind the same function.
package recall

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"cairn/memory"
	"cairn/store"
)

// Lister is the part of the store recall reads.
type Lister interface {
	List(ctx context.Context, q store.Query) (store.Page, error)
}

// Result is one recalled memory with its score.
type Result struct {
	Memory *memory.Memory
	Score  float64
}

// Options shape a recall.
type Options struct {
	Projects []string // project ids to search (a project and global)
	Limit    int      // 0: 10
	Budget   int      // tokens; 0: 800
	Archived bool     // include archived memories
}

// Cost estimates the tokens a memory costs in a briefing (about four
// characters a token).
func Cost(m *memory.Memory) int { return (len(m.Title)+len(m.Body))/4 + 8 }

// Simple scores every active memory of the projects by the share of query
// words it contains (title words count double) and returns the best,
// within the limit and the token budget.
func Simple(ctx context.Context, st Lister, query string, opt Options) ([]Result, error) {
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	if opt.Budget <= 0 {
		opt.Budget = 800
	}
	words := terms(query)
	var out []Result
	statuses := []memory.Status{memory.StatusActive}
	if opt.Archived {
		statuses = append(statuses, memory.StatusArchived)
	}
	for _, pid := range opt.Projects {
		for _, s := range statuses {
			q := store.Query{Project: pid, Status: s, Limit: 500}
			for {
				page, err := st.List(ctx, q)
				if err != nil {
					return nil, err
				}
				for _, m := range page.Memories {
					if sc := score(words, m); sc > 0 {
						out = append(out, Result{Memory: m, Score: sc})
					}
				}
				if page.Next == "" {
					break
				}
				q.After = page.Next
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	var kept []Result
	used := 0
	for _, r := range out {
		if len(kept) == opt.Limit {
			break
		}
		if t := Cost(r.Memory); used+t <= opt.Budget || len(kept) == 0 {
			kept = append(kept, r)
			used += t
		}
	}
	return kept, nil
}

func terms(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '.' && r != '/' && r != '-'
	})
	out := f[:0]
	for _, w := range f {
		if len(w) > 1 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

var stop = map[string]bool{"the": true, "and": true, "for": true, "with": true, "what": true, "how": true, "why": true, "was": true, "are": true, "is": true, "of": true, "to": true, "in": true, "on": true, "a": true, "an": true, "it": true, "we": true, "do": true, "did": true}

func score(words []string, m *memory.Memory) float64 {
	if len(words) == 0 {
		return 0
	}
	title := strings.ToLower(m.Title)
	text := strings.ToLower(m.Body + " " + strings.Join(m.Tags, " ") + " " + strings.Join(m.Triggers, " "))
	var s float64
	for _, w := range words {
		if strings.Contains(title, w) {
			s += 2
		} else if strings.Contains(text, w) {
			s++
		}
	}
	return s / float64(2*len(words))
}
