package main

import (
	"context"

	"cairn/memory"
	"cairn/store"
	"cairn/ui"
)

// workbench opens the TUI on a store in a project.
func workbench(ctx context.Context, st store.Store, p memory.Project, projects []memory.Project) error {
	return ui.Run(ctx, st, ui.Options{Project: p, Projects: projects})
}
