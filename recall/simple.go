// Package recall finds the memories that matter for a task (DESIGN §4):
// a code-aware tokenizer, a BM25 index and a vector index over every
// memory, fused, expanded along the graph, blended with salience, shaped
// (superseded as history, low trust apart) and cut to a token budget —
// and the warm-up briefing for the start of a session.
package recall

import (
	"context"

	"cairn/memory"
	"cairn/store"
)

// Lister is the part of the store the briefing reads.
type Lister interface {
	List(ctx context.Context, q store.Query) (store.Page, error)
}

// Cost estimates the tokens a memory costs in an answer (about four
// characters a token).
func Cost(m *memory.Memory) int { return (len(m.Title)+len(m.Body))/4 + 8 }
