package store

import (
	"context"
	"errors"

	"cairn/memory"
)

// Resolver turns an id prefix into the id it names (Store does).
type Resolver interface {
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
}

// ShortIDs gives each id the shortest prefix that names it both among ids
// (what is shown together) and in the whole store, so that what a person
// reads off one screen can be typed back anywhere an id is taken. It starts
// from the prefix unique among ids and lengthens it while the store finds
// it ambiguous: one or two lookups of a few keys per id. An id the store
// does not hold, or a lookup that fails, keeps the prefix unique among ids.
func ShortIDs(ctx context.Context, r Resolver, ids []string) map[string]string {
	out := memory.ShortIDs(ids)
	for id, p := range out {
		for len(p) < len(id) {
			if _, err := r.Resolve(ctx, p); !errors.Is(err, memory.ErrAmbiguous) {
				break
			}
			p = id[:len(p)+1]
		}
		out[id] = p
	}
	return out
}
