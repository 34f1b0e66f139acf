package main

import (
	"context"
	"os"
	"path/filepath"

	"cairn/memory"
	"cairn/recall"
	"cairn/store"
	"cairn/trust"
	"cairn/ui"
)

// workbench opens the TUI on a store in a project; recall is the server's
// engine when the store is a client of the server; the command line's
// history lasts in the home.
func workbench(ctx context.Context, st store.Store, p memory.Project, projects []memory.Project, theme, home string) error {
	opt := ui.Options{Project: p, Projects: projects, Theme: theme, HistoryFile: filepath.Join(home, "history"),
		Trust: func(p memory.Project) *trust.Service { return trust.For(st, p, os.Getwd, os.Getenv) }}
	if r, ok := st.(recall.Recaller); ok {
		opt.Recall = r
	}
	return ui.Run(ctx, st, opt)
}
