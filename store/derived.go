package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Derived memory: what the repository says, one record per file (see
// memory.Deriver). It is rebuilt, not curated: a record is replaced whole
// when its file changed, and an update of thousands of files is written in
// as many transactions as Badger's size limit needs — a run cut short
// leaves files with their old or their new record, each whole, and the
// next run reads again whatever its stamp says moved.

// DerivedOutlines are the outlines of every indexed file of the project.
func (db *DB) DerivedOutlines(ctx context.Context, project string) (map[string]memory.Outline, error) {
	out := map[string]memory.Outline{}
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixDerivedStamps(project)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var s memory.Outline
			key := it.Item().Key()
			if err := it.Item().Value(func(v []byte) error { return decode(key, v, &s) }); err != nil {
				return err
			}
			out[string(key[len(o.Prefix):])] = s
		}
		return nil
	})
	return out, err
}

// UpdateDerived writes an indexing run: the records of changed files, the
// removal of gone ones, new stamps of touched ones, then the summary and
// (when a file changed) one timeline event.
func (db *DB) UpdateDerived(ctx context.Context, project string, u memory.DerivedUpdate, by memory.Actor) error {
	if project == "" {
		return invalidf("derived memory needs a project")
	}
	type entry struct {
		key []byte
		val any // nil: delete
	}
	var entries []entry
	for _, f := range u.Changed {
		if err := validDerivedPath(f.Path); err != nil {
			return err
		}
		f = redactFile(f)
		entries = append(entries, entry{keyDerivedFile(project, f.Path), f}, entry{keyDerivedStamp(project, f.Path), f.Outline})
	}
	if len(u.Restamped) > 0 {
		// A touched file keeps its outline under its new stamp.
		old, err := db.DerivedOutlines(ctx, project)
		if err != nil {
			return err
		}
		for p, s := range u.Restamped {
			o, ok := old[p]
			if err := validDerivedPath(p); err != nil || !ok {
				continue // never indexed: nothing to restamp
			}
			o.Stamp = s
			entries = append(entries, entry{keyDerivedStamp(project, p), o})
		}
	}
	for _, p := range u.Removed {
		entries = append(entries, entry{keyDerivedFile(project, p), nil}, entry{keyDerivedStamp(project, p), nil})
	}
	sum := redactSummary(u.Summary)
	done := 0
	for {
		next := done
		err := db.update(ctx, func(txn *badger.Txn) error {
			next = done
			for ; next < len(entries); next++ {
				e := entries[next]
				var err error
				if e.val == nil {
					err = txn.Delete(e.key)
				} else {
					err = put(txn, e.key, e.val)
				}
				if errors.Is(err, badger.ErrTxnTooBig) && next > done {
					return nil // the rest in the next transaction
				}
				if err != nil {
					return err
				}
			}
			if u.More {
				next++ // nothing more in this part
				return nil
			}
			if err := put(txn, keyRepoSummary(project), sum); err != nil {
				if errors.Is(err, badger.ErrTxnTooBig) && next > done {
					next-- // the summary alone, in the next one
					return nil
				}
				return err
			}
			next++ // the summary is written
			if sum.Read+sum.Gone == 0 {
				return nil
			}
			return db.event(txn, project, by, memory.EventIndex, "", derivedSummaryLine(sum))
		})
		if err != nil {
			return err
		}
		if next > len(entries) {
			return nil
		}
		done = next
	}
}

// derivedSummaryLine says what an indexing run changed, for the timeline.
func derivedSummaryLine(s memory.RepoSummary) string {
	parts := []string{}
	if s.Read > 0 {
		parts = append(parts, fmt.Sprintf("%d %s read", s.Read, plural(s.Read, "file", "files")))
	}
	if s.Gone > 0 {
		parts = append(parts, fmt.Sprintf("%d gone", s.Gone))
	}
	return "indexed the repository: " + strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// validDerivedPath refuses a path that is not a clean relative slash path:
// it is part of a key, and a record must name a file inside the root.
func validDerivedPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsRune(p, 0) {
		return invalidf("derived file path %q: give a path relative to the repository root", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return invalidf("derived file path %q: give a clean path inside the repository", p)
		}
	}
	return nil
}

// redactFile takes any secret out of what a file's record says: the file
// is what it is, and a key in a README is no reason to refuse the rest.
func redactFile(f memory.DerivedFile) memory.DerivedFile {
	f = f.Redacted()
	f.Outline.Stamp = f.Stamp
	return f
}

func redactSummary(s memory.RepoSummary) memory.RepoSummary { return s.Redacted() }

// DerivedFiles are the indexed files under prefix ("" for all; a
// directory or a file), in path order.
func (db *DB) DerivedFiles(ctx context.Context, project, prefix string) ([]memory.DerivedFile, error) {
	prefix = strings.Trim(prefix, "/")
	var out []memory.DerivedFile
	err := db.view(func(txn *badger.Txn) error {
		base := prefixDerivedFiles(project)
		o := badger.DefaultIteratorOptions
		o.Prefix = append(append([]byte{}, base...), prefix...)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			key := it.Item().Key()
			rel := string(key[len(base):])
			if prefix != "" && rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
				continue // "store" must not take "storefront.go"
			}
			var f memory.DerivedFile
			if err := it.Item().Value(func(v []byte) error { return decode(key, v, &f) }); err != nil {
				return err
			}
			out = append(out, f)
		}
		return nil
	})
	return out, err
}

// RepoSummary is the project's repository summary; ErrNotFound before its
// first index.
func (db *DB) RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error) {
	var s memory.RepoSummary
	err := db.view(func(txn *badger.Txn) error { return get(txn, keyRepoSummary(project), &s) })
	return s, err
}
