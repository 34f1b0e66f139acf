package main

import (
	"context"
	"errors"

	"cairn/memory"
	"cairn/store"
)

// workbench opens the TUI. (Wired to ui.Run once the workbench lands.)
func workbench(ctx context.Context, st store.Store, p memory.Project, projects []memory.Project) error {
	return errors.New("the workbench is not built yet — use the subcommands (cairn --help)")
}
