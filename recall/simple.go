// Package recall finds the memories that matter for a task (DESIGN §4):
// a code-aware tokenizer, a BM25 index and a vector index over every
// memory, fused, expanded along the graph, blended with salience, shaped
// (superseded as history, low trust apart) and cut to a token budget —
// and the warm-up briefing for the start of a session.
package recall

import (
	"context"
	"fmt"

	"cairn/memory"
)

// Lister is the part of the store the briefing reads: pages of memories,
// their counts (to say how many negatives were left out) and the
// repository's summary (the project's shape, first).
type Lister interface {
	memory.Lister
	Count(ctx context.Context, project string) (memory.Counts, error)
	RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error)
}

// Cost estimates the tokens a memory costs in an answer (about four
// characters a token).
func Cost(m *memory.Memory) int { return (len(m.Title)+len(m.Body))/4 + 8 }

// MatchPath returns the first of files a path pattern names (see
// memory.MatchPath).
func MatchPath(pattern string, files []string) string { return memory.MatchPath(pattern, files) }

// ValidPath refuses a malformed path pattern with ErrInvalid.
func ValidPath(pattern string) error {
	if err := memory.ValidPathPattern(pattern); err != nil {
		return fmt.Errorf("%w: %v", memory.ErrInvalid, err)
	}
	return nil
}

// Await is Recall that waits out a build of the index: each time the
// engine answers "building" (after waiting BuildWait itself) it tells
// progress how far the build is, and asks again, until the answer comes
// or ctx ends.
func Await(ctx context.Context, r Recaller, req Request, progress func(note string)) (Response, error) {
	for {
		resp, err := r.Recall(ctx, req)
		if err != nil || !resp.Building {
			return resp, err
		}
		if progress != nil {
			progress(resp.Note)
		}
		if err := ctx.Err(); err != nil {
			return resp, err
		}
	}
}

// Answer is the memory that answers query well (neither nothing known nor
// weak) in projects, or nil: what closes a gap. It is a peek — asking
// again counts as no recall — and it waits out an index build.
func Answer(ctx context.Context, r Recaller, query string, projects []string, progress func(string)) (*memory.Memory, error) {
	resp, err := Await(ctx, r, Request{Query: query, Projects: projects, Limit: 1, Budget: 1 << 20, Peek: true}, progress)
	if err != nil || resp.Nothing || resp.Weak || len(resp.Results) == 0 {
		return nil, err
	}
	return resp.Results[0].Memory, nil
}
