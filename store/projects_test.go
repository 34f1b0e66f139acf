package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/internal/testenv"
	"cairn/memory"
	"cairn/project"
)

// A store written before projects had keys knew a checkout by its path.
// Opened now, the project gains the repository's keys: a worktree and a
// clone find it, with its id, name and memories, before the old checkout
// is used again.
func TestPathProjectGainsTheRepositoryAtOpen(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "shop")
	testenv.GitRepo(t, repo, "a")
	dir := filepath.Join(root, "store")
	db := reopen(t, dir)
	// As the old code registered it: the path's id, no keys.
	oldID := project.KeyID(project.Key(project.KindPath, repo))
	if _, err := db.EnsureProject(ctx, memory.Project{ID: oldID, Name: "shop", Root: repo}); err != nil {
		t.Fatal(err)
	}
	m, err := db.Remember(ctx, &memory.Memory{Project: oldID, Layer: memory.LayerState, Title: "The shop listens on port 8443"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.writeUnchecked(func(txn *badger.Txn) error { return txn.Delete(keyProjectKeys) }); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = reopen(t, dir)
	wt := filepath.Join(root, "task")
	testenv.Git(t, repo, "worktree", "add", "-q", "-b", "task", wt)
	clone := filepath.Join(root, "clone")
	testenv.Git(t, root, "clone", "-q", repo, clone)
	for _, co := range []string{clone, wt} {
		p, err := project.Detect(co)
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.EnsureProject(ctx, p)
		if err != nil || got.ID != oldID || got.Name != "shop" || got.Root != co {
			t.Fatalf("from %s: %+v, %v; want the project %s", co, got, err, oldID)
		}
	}
	if got, err := db.Get(ctx, m.ID); err != nil || got.Project != oldID {
		t.Fatalf("the memory: %+v, %v", got, err)
	}
	ps, err := db.Projects(ctx)
	if err != nil || len(ps) != 2 { // test and shop
		t.Fatalf("projects: %+v, %v", ps, err)
	}
}

// A path that held one repository and now holds another (removed and made
// again) is a new project: first commits differ, and the old project's
// memories stay with it.
func TestAnotherRepositoryAtTheSamePathIsAnotherProject(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	repo := filepath.Join(t.TempDir(), "app")
	testenv.GitRepo(t, repo, "one")
	p1, _ := project.Detect(repo)
	a, err := db.EnsureProject(ctx, p1)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(repo)
	testenv.GitRepo(t, repo, "two")
	p2, _ := project.Detect(repo)
	b, err := db.EnsureProject(ctx, p2)
	if err != nil || b.ID == a.ID {
		t.Fatalf("another repository at the same path: %+v (first %+v), %v", b, a, err)
	}
	if b.Name == a.Name {
		t.Fatalf("two projects share the name %q", a.Name)
	}
}

// A repository used from a new worktree per task keeps a bounded record:
// at most maxKeys keys and the 32 most recent checkouts. A checkout that
// names too many keys, or keys of no known kind, is refused.
func TestProjectKeysAreBounded(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	repoKey := project.Key(project.KindRepo, "0123456789abcdef0123456789abcdef01234567")
	var id string
	for i := range 100 {
		path := fmt.Sprintf("/src/shop-task-%d", i)
		p := memory.Project{ID: project.KeyID(repoKey), Name: "shop", Root: path,
			Keys: []string{repoKey, project.Key(project.KindGitDir, path+"/.git"), project.Key(project.KindPath, path)}}
		got, err := db.EnsureProject(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		id = got.ID
	}
	got, err := db.Project(ctx, id)
	if err != nil || len(got.Keys) != maxKeys || len(got.Seen) != 32 || got.Seen[0].Path != "/src/shop-task-99" {
		t.Fatalf("after 100 worktrees: %d keys, %d sightings (first %+v), %v", len(got.Keys), len(got.Seen), got.Seen[0], err)
	}
	many := memory.Project{ID: project.KeyID(repoKey), Name: "shop"}
	for i := range maxAskedKeys + 1 {
		many.Keys = append(many.Keys, project.Key(project.KindPath, fmt.Sprint(i)))
	}
	for what, p := range map[string]memory.Project{
		"too many keys":   many,
		"an unknown kind": {ID: project.KeyID(repoKey), Name: "shop", Keys: []string{"x:" + project.KeyID(repoKey)}},
		"a short key":     {ID: project.KeyID(repoKey), Name: "shop", Keys: []string{"repo:abc"}},
	} {
		if _, err := db.EnsureProject(ctx, p); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}
