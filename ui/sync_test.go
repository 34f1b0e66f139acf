package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/mirror"
)

// TestSyncCommand: /sync writes the team mirror in a command and says
// what it did; a teammate's new file comes in and shows in the list.
func TestSyncCommand(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")
	press(t, m, "/", "type:sync", "enter")
	if !strings.Contains(m.repl.hint, "/sync needs the workbench opened on a project") {
		t.Fatalf("/sync without a mirror says %q", m.repl.hint)
	}
	press(t, m, "esc")
	dir, home := t.TempDir(), t.TempDir()
	m.opt.Sync = func(ctx context.Context, p memory.Project) (mirror.Report, error) {
		return mirror.Run(ctx, db, home, mirror.Options{Dir: dir, Project: p.ID})
	}
	m.opt.MirrorStatus = func(ctx context.Context, p memory.Project) (map[string]mirror.Pending, error) {
		return mirror.Status(ctx, db, home, mirror.Options{Dir: dir, Project: p.ID})
	}
	press(t, m, "/", "type:sync", "enter")
	s := screen(m)
	if !strings.Contains(s, "synced: ") || !strings.Contains(s, "files written") {
		t.Fatalf("/sync did not report writing the mirror:\n%s", s)
	}
	if !strings.Contains(s, "team mirror shared · in step") {
		t.Fatalf("the selected memory should show it is shared and in step:\n%s", s)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "A-invariant")); len(ents) == 0 {
		t.Fatal("/sync wrote no invariant's file")
	}
	os.WriteFile(filepath.Join(dir, "A-invariant", "from-a-teammate.md"),
		[]byte("---\ntitle: Staging deploys need a ticket\nlayer: A\n---\n\nAsk in #ops first.\n"), 0o644)
	press(t, m, "/", "type:sync", "enter")
	s = screen(m)
	if !strings.Contains(s, "1 new") {
		t.Fatalf("/sync did not take the teammate's file:\n%s", s)
	}
	press(t, m, "/", "type:sync", "enter")
	if s := screen(m); !strings.Contains(s, "nothing to sync") {
		t.Fatalf("a second /sync should find nothing:\n%s", s)
	}
}
