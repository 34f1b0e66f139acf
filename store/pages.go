package store

import (
	"context"

	"cairn/memory"
)

// Lister lists a page of memories: the store, its client, a test's wrapper.
type Lister interface {
	List(ctx context.Context, q Query) (Page, error)
}

// EachPage calls fn with every page q lists, in order, until the last page
// or fn's error (which it returns).
func EachPage(ctx context.Context, l Lister, q Query, fn func([]*memory.Memory) error) error {
	for {
		page, err := l.List(ctx, q)
		if err != nil {
			return err
		}
		if err := fn(page.Memories); err != nil {
			return err
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}
