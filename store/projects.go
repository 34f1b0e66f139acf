package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/project"
	"cairn/safetext"
	"cairn/secrets"
)

// EnsureProject returns the stored project p is, registering p if none
// is. The stored one is the project whose id or one of whose keys is p's
// id or one of p's keys, in p's order (a repository's first commit before
// its git directory before a checkout's path), unless its first commit
// says it is another repository (project.Conflicts). A known project keeps
// its id and name; it gains p's keys no other project holds, the sighting
// of p's checkout (Root), and p's Root when its own is gone. The project
// returned has Root set to p's, the checkout the caller is in. A new one
// whose name is used by another gets the id's first four digits appended,
// so names stay unique.
func (db *DB) EnsureProject(ctx context.Context, p memory.Project) (memory.Project, error) {
	if !validProjectID(p.ID) {
		return memory.Project{}, invalidf("project id %q is not 16 hex digits", p.ID)
	}
	if p.Name = strings.TrimSpace(p.Name); p.Name == "" || strings.ContainsAny(p.Name, "\x00\n/") {
		return memory.Project{}, invalidf("project name %q: use a non-empty name without slashes", p.Name)
	}
	if err := safetext.Check("project name", p.Name); err != nil {
		return memory.Project{}, invalidf("%v (or name the project with --project)", err)
	}
	if len(p.Keys) > maxAskedKeys {
		return memory.Project{}, invalidf("a checkout names %d project keys, more than the %d one can have", len(p.Keys), maxAskedKeys)
	}
	for _, k := range p.Keys {
		kind, _, _ := strings.Cut(k, ":")
		if kind != project.KindRepo && kind != project.KindGitDir && kind != project.KindPath || !validProjectID(project.KeyID(k)) {
			return memory.Project{}, invalidf("project key %q is not a kind (repo, gitdir, path) and 16 hex digits", k)
		}
	}
	// A name and a path are written like any text: a credential in them is refused.
	if err := secrets.Check(secrets.Field{Name: "project name", Text: p.Name}, secrets.Field{Name: "project path", Text: p.Root}); err != nil {
		return memory.Project{}, err
	}
	var out memory.Project
	err := db.update(ctx, func(txn *badger.Txn) error {
		now := db.now()
		found, known, err := project.Find(ctx, txnProjects{txn}, p)
		if err != nil {
			return err
		}
		if known {
			out = found
			// What is new is written when there is room for it; without,
			// the project is served all the same.
			if db.roomToWrite() == nil && noteProject(txn, &out, p, now) {
				if err := put(txn, keyProject(out.ID), out); err != nil {
					return err
				}
			}
			if p.Root != "" {
				out.Root = p.Root
			}
			return nil
		}
		name := p.Name
		if item, err := txn.Get(keyProjectName(name)); err == nil {
			other, _ := item.ValueCopy(nil)
			if string(other) != p.ID {
				name = p.Name + "-" + p.ID[:4]
			}
		}
		out = p
		out.Name = name
		out.Keys, out.Seen = nil, nil
		if out.CreatedAt.IsZero() {
			out.CreatedAt = now.UTC()
		}
		noteProject(txn, &out, p, now)
		if err := put(txn, keyProject(p.ID), out); err != nil {
			return err
		}
		return txn.Set(keyProjectName(name), []byte(p.ID))
	})
	return out, err
}

// maxAskedKeys bounds the keys one checkout names (project.Detect gives
// at most four); maxKeys those a project keeps: a repository used from a
// new worktree per task would otherwise gain a path key per worktree for
// ever. Past it, new checkouts are still found by the repository's first
// commit and git directory, which come first.
const (
	maxAskedKeys = 8
	maxKeys      = 64
)

// txnProjects reads projects inside one transaction (for project.Find).
type txnProjects struct{ txn *badger.Txn }

func (t txnProjects) Project(_ context.Context, id string) (memory.Project, error) {
	return projectByKey(t.txn, id)
}

// projectByKey is the project with id, else the one that holds id as one
// of its keys.
func projectByKey(txn *badger.Txn, id string) (memory.Project, error) {
	var p memory.Project
	err := get(txn, keyProject(id), &p)
	if !errors.Is(err, memory.ErrNotFound) {
		return p, err
	}
	item, err := txn.Get(keyProjectKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return p, memory.ErrNotFound
	}
	if err != nil {
		return p, err
	}
	pid, err := item.ValueCopy(nil)
	if err != nil {
		return p, err
	}
	return p, get(txn, keyProject(string(pid)), &p)
}

// noteProject adds to stored what the checkout p says of it: p's keys that
// no other project holds (indexed to stored), the sighting of p's
// checkout, and p's Root when stored's is gone. It reports whether stored
// changed; the caller writes it.
func noteProject(txn *badger.Txn, stored *memory.Project, p memory.Project, now time.Time) bool {
	changed := false
	for _, k := range p.Keys {
		if slices.Contains(stored.Keys, k) || len(stored.Keys) >= maxKeys {
			continue
		}
		id := project.KeyID(k)
		if id != stored.ID {
			if taken, err := exists(txn, keyProject(id)); err != nil || taken {
				continue
			}
			if item, err := txn.Get(keyProjectKey(id)); err == nil {
				if owner, _ := item.ValueCopy(nil); string(owner) != stored.ID {
					continue // another project's key: never taken from it
				}
			} else if !errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if txn.Set(keyProjectKey(id), []byte(stored.ID)) != nil {
				continue
			}
		}
		stored.Keys = append(stored.Keys, k)
		changed = true
	}
	if project.Sight(stored, p.Root, now) {
		changed = true
	}
	if p.Root != "" && stored.Root != p.Root {
		if _, err := os.Stat(stored.Root); stored.Root == "" || errors.Is(err, fs.ErrNotExist) {
			stored.Root = p.Root
			changed = true
		}
	}
	return changed
}

// Project returns the project with id, or the one that holds id as one of
// its keys (a checkout of a repository the project was first seen in
// another of).
func (db *DB) Project(ctx context.Context, id string) (memory.Project, error) {
	var p memory.Project
	err := db.view(func(txn *badger.Txn) (err error) {
		p, err = projectByKey(txn, id)
		return err
	})
	if errors.Is(err, memory.ErrNotFound) {
		return p, fmt.Errorf("project %s: %w", id, memory.ErrNotFound)
	}
	return p, err
}

// ProjectByName returns the project called name.
func (db *DB) ProjectByName(ctx context.Context, name string) (memory.Project, error) {
	var p memory.Project
	err := db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(keyProjectName(name))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return memory.ErrNotFound
		}
		if err != nil {
			return err
		}
		id, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		return get(txn, keyProject(string(id)), &p)
	})
	if errors.Is(err, memory.ErrNotFound) {
		return p, fmt.Errorf("project %q: %w", name, memory.ErrNotFound)
	}
	return p, err
}

// Projects lists every project by name.
func (db *DB) Projects(ctx context.Context) ([]memory.Project, error) {
	var out []memory.Project
	err := db.view(func(txn *badger.Txn) error {
		return eachProject(txn, func(p memory.Project) { out = append(out, p) })
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

func validProjectID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// keyProjectKeys marks a store whose projects were given their keys.
var keyProjectKeys = []byte("meta/project-keys")

const projectKeysVersion = "1"

// backfillProjectKeys gives each project a store written before projects
// had keys knew by its checkout's path the keys of the repository found
// there now (its first commit, its git directory), once, so that the
// repository's worktrees, clones and moved checkouts find it — the prompt
// hook's first lookup included. Ids and names stay; a key two old projects
// share (a checkout and a worktree of one repository were two projects)
// goes to the older, and the other stays as it was, under its name. A
// checkout that is gone keeps its path key alone.
func (db *DB) backfillProjectKeys() error {
	var ps []memory.Project
	done := false
	if err := db.view(func(txn *badger.Txn) error {
		v, err := markerOf(txn, keyProjectKeys)
		if done = string(v) == projectKeysVersion; done || err != nil {
			return err
		}
		return eachProject(txn, func(p memory.Project) { ps = append(ps, p) })
	}); err != nil || done {
		return err
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].CreatedAt.Before(ps[j].CreatedAt) })
	for _, p := range ps {
		if p.Root == "" || len(p.Keys) > 0 || project.KeyID(project.Key(project.KindPath, p.Root)) != p.ID {
			continue // named, global, or given keys already
		}
		here := memory.Project{ID: p.ID, Keys: []string{project.Key(project.KindPath, p.Root)}}
		if fi, err := os.Stat(p.Root); err == nil && fi.IsDir() {
			if d, err := project.Detect(p.Root); err == nil && d.Root == p.Root {
				here.Keys = d.Keys
			}
		}
		if err := db.writeUnchecked(func(txn *badger.Txn) error {
			var stored memory.Project
			if err := get(txn, keyProject(p.ID), &stored); err != nil {
				return err
			}
			if noteProject(txn, &stored, here, db.now()) {
				return put(txn, keyProject(p.ID), stored)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return db.writeUnchecked(func(txn *badger.Txn) error {
		return txn.Set(keyProjectKeys, []byte(projectKeysVersion))
	})
}

// eachProject calls fn with every stored project.
func eachProject(txn *badger.Txn, fn func(memory.Project)) error {
	o := badger.DefaultIteratorOptions
	o.Prefix = prefixProjects
	it := txn.NewIterator(o)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var p memory.Project
		k := it.Item().Key()
		if err := it.Item().Value(func(v []byte) error { return decode(k, v, &p) }); err != nil {
			return err
		}
		fn(p)
	}
	return nil
}
