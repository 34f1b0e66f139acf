package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/safetext"
	"cairn/secrets"
)

// EnsureProject registers p if its id is new and returns the stored
// project. A name already used by another project gets the id's first four
// digits appended, so names stay unique.
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
	// A name and a path are written like any text: a credential in them is refused.
	if err := secrets.Check(secrets.Field{Name: "project name", Text: p.Name}, secrets.Field{Name: "project path", Text: p.Root}); err != nil {
		return memory.Project{}, err
	}
	var out memory.Project
	err := db.update(ctx, func(txn *badger.Txn) error {
		err := get(txn, keyProject(p.ID), &out)
		if err == nil || !errors.Is(err, memory.ErrNotFound) {
			return err
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
		if out.CreatedAt.IsZero() {
			out.CreatedAt = db.now().UTC()
		}
		if err := put(txn, keyProject(p.ID), out); err != nil {
			return err
		}
		return txn.Set(keyProjectName(name), []byte(p.ID))
	})
	return out, err
}

// Project returns the project with id.
func (db *DB) Project(ctx context.Context, id string) (memory.Project, error) {
	var p memory.Project
	err := db.view(func(txn *badger.Txn) error { return get(txn, keyProject(id), &p) })
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
			out = append(out, p)
		}
		return nil
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
