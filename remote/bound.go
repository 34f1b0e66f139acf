package remote

import (
	"context"

	"cairn/memory"
)

// The wake check's reads through the server (see store/bound.go): the
// summary of a project's bound stamps, then the memories of what moved.
// Both are reads: safe to send again after a lost connection (see their
// rows in methods.go).

func (c *Client) BoundTargets(ctx context.Context, project string) ([]memory.BoundTarget, error) {
	var out []memory.BoundTarget
	return out, c.call(ctx, "BoundTargets", idParams{project}, &out)
}

func (c *Client) BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	return out, c.call(ctx, "BoundTo", boundToParams{project, targets}, &out)
}
