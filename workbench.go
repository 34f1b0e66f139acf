package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"cairn/consolidate"
	"cairn/derive"
	"cairn/memory"
	"cairn/mirror"
	"cairn/project"
	"cairn/trust"
	"cairn/ui"
)

// workbench opens the TUI on a store in a project; recall is the server's
// engine when the store is a client of the server; the command line's
// history lasts in the home; llm builds the language model a consolidation
// asks, from the settings the command loaded.
func workbench(ctx context.Context, st memory.Store, p memory.Project, projects []memory.Project, theme, home string, llm func() (*consolidate.LLM, error)) error {
	// One trust service per project for the workbench's life: its checker
	// keeps the bound files' fingerprints (and leaves them in the home for
	// the next process), so a reload stats them instead of hashing every
	// one again.
	var mu sync.Mutex
	services := map[string]*trust.Service{}
	opt := ui.Options{Project: p, Projects: projects, Theme: theme, HistoryFile: filepath.Join(home, "history"), LLM: llm,
		Trust: func(p memory.Project) ui.Trust {
			mu.Lock()
			defer mu.Unlock()
			if services[p.ID] == nil {
				services[p.ID] = trust.For(st, p, os.Getwd, os.Getenv)
				services[p.ID].Checker.KeepFingerprints(filepath.Join(home, trust.FingerprintDir))
			}
			return services[p.ID]
		}}
	// /index reads the project's repository: its root, else the git work
	// tree (or the directory) the workbench was opened in, as cairn index.
	opt.Index = func(ctx context.Context, p memory.Project) (derive.Report, error) {
		root, err := repoRoot(p)
		if err != nil {
			return derive.Report{}, err
		}
		return derive.Index(ctx, st, p.ID, root, derive.Options{}, memory.ActorUser)
	}
	// /sync keeps the team mirror in that repository, as cairn sync does.
	opt.Sync = func(ctx context.Context, p memory.Project) (mirror.Report, error) {
		root, err := repoRoot(p)
		if err != nil {
			return mirror.Report{}, err
		}
		return mirror.Run(ctx, st, home, mirror.Options{Dir: filepath.Join(root, filepath.FromSlash(mirror.DefaultDir)),
			Project: p.ID, Actor: memory.ActorUser})
	}
	// Where each memory stands against the team mirror, when there is one.
	opt.MirrorStatus = func(ctx context.Context, p memory.Project) (map[string]mirror.Pending, error) {
		root, err := repoRoot(p)
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(root, filepath.FromSlash(mirror.DefaultDir))
		if _, err := os.Stat(dir); err != nil {
			return nil, nil // no mirror: nothing to show
		}
		return mirror.Status(ctx, st, home, mirror.Options{Dir: dir, Project: p.ID})
	}
	return ui.Run(ctx, st, opt)
}

// repoRoot is a project's repository: its root, else the git work tree
// (or the directory) the workbench was opened in.
func repoRoot(p memory.Project) (string, error) {
	if p.Root != "" {
		return p.Root, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if root := project.GitRoot(wd); root != "" {
		return root, nil
	}
	return wd, nil
}
