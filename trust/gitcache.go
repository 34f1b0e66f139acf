package trust

import (
	"context"

	"cairn/project"
)

// A git scope's object at HEAD (the tree of a directory) is a function of
// the commit HEAD names: while HEAD names the same commit, the objects
// resolved at it last time still hold, and a wake check runs no git at
// all. HEAD is read from the repository's files; whatever is unusual
// there (a reftable, a symbolic ref to another symbolic ref, no .git in
// the root) is left to git itself, every time.

// gitTrees is the object of every scope at HEAD; a scope missing from
// HEAD is absent from the result.
func (c *Checker) gitTrees(ctx context.Context, scopes []string) (map[string]string, error) {
	head := project.Head(c.Root)
	if head != "" {
		if trees, ok := c.keptTrees(head, scopes); ok {
			return trees, nil
		}
	}
	trees, err := c.gitObjects(ctx, scopes)
	// Kept only when HEAD named the same commit before and after git
	// resolved them: a commit or checkout meanwhile leaves nothing kept.
	if err == nil && head != "" && project.Head(c.Root) == head {
		c.keepTrees(head, scopes, trees)
	}
	return trees, err
}

// keptTrees answers from the kept objects when every scope was resolved
// at head.
func (c *Checker) keptTrees(head string, scopes []string) (map[string]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadFiles()
	if c.head != head {
		return nil, false
	}
	out := map[string]string{}
	for _, s := range scopes {
		obj, ok := c.trees[s]
		if !ok {
			return nil, false
		}
		if obj != "" {
			out[s] = obj
		}
	}
	return out, true
}

func (c *Checker) keepTrees(head string, scopes []string, trees map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head != head {
		c.head, c.trees = head, map[string]string{}
	}
	for _, s := range scopes {
		if _, ok := c.revPath(s); ok {
			c.trees[s] = trees[s]
		}
	}
	c.dirty = true
}
