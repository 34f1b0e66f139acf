package project

import (
	"os"
	"path/filepath"
	"testing"

	"cairn/memory"
)

func TestDetectUsesGitRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "myrepo")
	sub := filepath.Join(repo, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := Detect(sub)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Detect(repo)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || a.Name != "myrepo" || len(a.ID) != 16 {
		t.Fatalf("subdir and root differ or bad id/name: %+v %+v", a, b)
	}
	other, _ := Detect(root)
	if other.ID == a.ID {
		t.Fatalf("a directory outside the repo got the repo's id")
	}
}

func TestDetectWithoutGitUsesDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != filepath.Base(dir) {
		t.Fatalf("name = %q", p.Name)
	}
}

func TestNamed(t *testing.T) {
	t.Parallel()
	g, err := Named("Global")
	if err != nil || g.ID != memory.GlobalID {
		t.Fatalf("global: %+v %v", g, err)
	}
	a, _ := Named("alpha")
	b, _ := Named("alpha")
	c, _ := Named("beta")
	if a.ID != b.ID || a.ID == c.ID {
		t.Fatalf("named ids not stable/distinct: %s %s %s", a.ID, b.ID, c.ID)
	}
	for _, bad := range []string{"", "a/b", " "} {
		if _, err := Named(bad); err == nil {
			t.Errorf("Named(%q) accepted", bad)
		}
	}
}
