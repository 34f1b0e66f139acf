package memory

import (
	"context"
	"errors"
	"sort"
)

// MinPrefix is the fewest characters of an id that name a memory.
const MinPrefix = 4

// ShownPrefix is the fewest characters a short id is shown with. A ULID's
// first 8 characters are its time to about a second, so a short id stays
// unique as memories are added unless one is made in that same second; at
// MinPrefix (a window of 12 days) the next memory would make the id just
// printed ambiguous.
const ShownPrefix = 8

// ShortIDs gives each id the shortest prefix, of at least ShownPrefix
// characters, that no other id of the set starts with.
//
// Prefixes, not tails: a prefix is what every command accepts, and ids keep
// their order (ULIDs sort by time). The price is length: ULIDs made in one
// session share their first 8–10 characters (the time), so a short id is
// usually 9–11 characters, and ids made in the same millisecond (an import,
// a consolidation run) differ only near the end. See ShortIDsIn for
// prefixes unique in the whole store.
func ShortIDs(ids []string) map[string]string {
	sorted := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			sorted = append(sorted, id)
		}
	}
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	for i, id := range sorted {
		// In sorted order, the ids sharing most with id are its neighbours.
		n := 0
		if i > 0 {
			n = max(n, commonPrefix(id, sorted[i-1]))
		}
		if i+1 < len(sorted) {
			n = max(n, commonPrefix(id, sorted[i+1]))
		}
		out[id] = id[:min(len(id), max(ShownPrefix, n+1))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Resolver turns an id prefix into the id it names (Store does).
type Resolver interface {
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
}

// ShortIDsIn gives each id the shortest prefix that names it both among ids
// (what is shown together) and in the whole store, so that what a person
// reads off one screen can be typed back anywhere an id is taken. It starts
// from the prefix unique among ids and lengthens it while the store finds
// it ambiguous: one or two lookups of a few keys per id. An id the store
// does not hold, or a lookup that fails, keeps the prefix unique among ids.
func ShortIDsIn(ctx context.Context, r Resolver, ids []string) map[string]string {
	out := ShortIDs(ids)
	for id, p := range out {
		for len(p) < len(id) {
			if _, err := r.Resolve(ctx, p); !errors.Is(err, ErrAmbiguous) {
				break
			}
			p = id[:len(p)+1]
		}
		out[id] = p
	}
	return out
}
