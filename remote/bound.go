package remote

import (
	"context"

	"cairn/memory"
)

// The wake check's reads through the server (see store/bound.go): the
// summary of a project's bound stamps, then the memories of what moved.

type boundToParams struct {
	Project string   `json:"project"`
	Targets []string `json:"targets"`
}

// Registered here, apart from the tables in server.go and client.go, to
// keep the wake check's methods in one place. Both are reads: safe to send
// again after a lost connection.
func init() {
	retrySafe["BoundTargets"], retrySafe["BoundTo"] = true, true
	handlers["BoundTargets"] = with(func(ctx context.Context, st memory.Store, p idParams) (any, error) {
		return st.BoundTargets(ctx, p.ID)
	})
	handlers["BoundTo"] = with(func(ctx context.Context, st memory.Store, p boundToParams) (any, error) {
		return st.BoundTo(ctx, p.Project, p.Targets)
	})
}

func (c *Client) BoundTargets(ctx context.Context, project string) ([]memory.BoundTarget, error) {
	var out []memory.BoundTarget
	return out, c.call(ctx, "BoundTargets", idParams{project}, &out)
}

func (c *Client) BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	return out, c.call(ctx, "BoundTo", boundToParams{project, targets}, &out)
}
