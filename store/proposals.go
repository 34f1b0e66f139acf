package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// propose stores p as an open proposal inside txn, with an EventPropose
// on the timeline. The same proposal (by Key) already open or rejected is
// not made again: p.ID is then set to that one's and nothing is written.
func (db *DB) propose(txn *badger.Txn, p *memory.Proposal) error {
	_, err := db.proposeAt(txn, p)
	return err
}

// proposeAt is propose, returning the id of the event it wrote ("" when
// the proposal was already made), for a run to journal.
func (db *DB) proposeAt(txn *badger.Txn, p *memory.Proposal) (string, error) {
	if !p.Kind.Valid() {
		return "", invalidf("unknown proposal kind %q", p.Kind)
	}
	if p.Project == "" {
		return "", invalidf("a proposal needs a project")
	}
	if p.Memory != nil {
		m := p.Memory
		m.Project = p.Project
		if m.Status == "" {
			m.Status = memory.StatusActive
		}
		if err := db.prepare(m); err != nil {
			return "", err
		}
	}
	if err := memory.ValidReason(p.Reason); err != nil {
		return "", invalid(err)
	}
	key := p.Key()
	item, err := txn.Get(keyProposalKey(p.Project, key))
	switch {
	case err == nil:
		id, err := item.ValueCopy(nil)
		if err != nil {
			return "", err
		}
		var old memory.Proposal
		if err := get(txn, keyProposal(p.Project, string(id)), &old); err == nil && old.State != memory.ProposalAccepted {
			p.ID = old.ID
			return "", nil
		} else if err != nil && !errors.Is(err, memory.ErrNotFound) {
			return "", err
		}
	case !errors.Is(err, badger.ErrKeyNotFound):
		return "", err
	}
	if p.ID == "" {
		p.ID = newID()
	} else if !validID(p.ID) {
		return "", invalidf("proposal id %q is not a ULID", p.ID)
	}
	p.Time = db.now().UTC()
	p.State = memory.ProposalOpen
	p.DecidedAt, p.DecidedBy, p.Result = time.Time{}, "", ""
	if err := putProposal(txn, p); err != nil {
		return "", err
	}
	if err := txn.Set(keyProposalKey(p.Project, key), []byte(p.ID)); err != nil {
		return "", err
	}
	summary := fmt.Sprintf("proposed (%s): %s", p.Kind, p.Reason)
	return db.appendEvent(txn, p.Project, memory.ActorSystem, memory.EventPropose, p.Target, summary)
}

// putProposal writes p and its index entries.
func putProposal(txn *badger.Txn, p *memory.Proposal) error {
	if err := put(txn, keyProposal(p.Project, p.ID), p); err != nil {
		return err
	}
	if err := txn.Set(keyProposalID(p.ID), []byte(p.Project)); err != nil {
		return err
	}
	for _, mid := range []string{p.Target, p.Other} {
		if mid != "" {
			if err := txn.Set(keyProposalOf(mid, p.ID), nil); err != nil {
				return err
			}
		}
	}
	if p.Draft != "" {
		return txn.Set(keyProposalFrom(p.Draft, p.ID), nil)
	}
	return nil
}

// deleteProposal removes p and every key that names it.
func deleteProposal(txn *badger.Txn, p *memory.Proposal) error {
	ks := [][]byte{keyProposal(p.Project, p.ID), keyProposalID(p.ID)}
	for _, mid := range []string{p.Target, p.Other} {
		if mid != "" {
			ks = append(ks, keyProposalOf(mid, p.ID))
		}
	}
	if p.Draft != "" {
		ks = append(ks, keyProposalFrom(p.Draft, p.ID))
	}
	if id, err := txn.Get(keyProposalKey(p.Project, p.Key())); err == nil {
		if v, err := id.ValueCopy(nil); err == nil && string(v) == p.ID {
			ks = append(ks, keyProposalKey(p.Project, p.Key()))
		}
	}
	for _, k := range ks {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// getProposal reads a proposal by id.
func getProposal(txn *badger.Txn, id string) (*memory.Proposal, error) {
	item, err := txn.Get(keyProposalID(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("proposal %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	pid, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	key := keyProposal(string(pid), id)
	item, err = txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("proposal %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var p memory.Proposal
	err = item.Value(func(v []byte) error {
		if len(v) > 0 && v[0] == formatForgotten {
			return fmt.Errorf("proposal %s: %w", id, memory.ErrNotFound)
		}
		return decode(key, v, &p)
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// forgetProposals is part of a hard delete of memory or draft id: the
// proposals that name it become unreadable at once, their index entries
// go, and the keys that hold their text are returned for the purge to drop.
func forgetProposals(txn *badger.Txn, id string) ([][]byte, error) {
	ps, err := proposalsNaming(txn, id)
	if err != nil {
		return nil, err
	}
	var drop [][]byte
	for _, p := range ps {
		if err := deleteProposal(txn, p); err != nil {
			return nil, err
		}
		k := keyProposal(p.Project, p.ID)
		if err := txn.Set(k, []byte{formatForgotten}); err != nil {
			return nil, err
		}
		drop = append(drop, k)
	}
	return drop, nil
}

// proposalsNaming are the keys of every proposal that names memory or
// draft id, for a hard delete to drop with it.
func proposalsNaming(txn *badger.Txn, id string) ([]*memory.Proposal, error) {
	var out []*memory.Proposal
	for _, prefix := range [][]byte{prefixProposalsOf(id), prefixProposalsFrom(id)} {
		for _, k := range keys(txn, prefix) {
			p, err := getProposal(txn, idFromKey(k))
			if errors.Is(err, memory.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// Proposals lists a project's proposals in state (every state when ""),
// oldest first.
func (db *DB) Proposals(ctx context.Context, project string, state memory.ProposalState) ([]memory.Proposal, error) {
	var out []memory.Proposal
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixProposals(project)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var p memory.Proposal
			k := it.Item().KeyCopy(nil)
			gone := false
			if err := it.Item().Value(func(v []byte) error {
				if gone = len(v) > 0 && v[0] == formatForgotten; gone {
					return nil // being dropped with what it named
				}
				return decode(k, v, &p)
			}); err != nil {
				return err
			}
			if !gone && (state == "" || p.State == state) {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// Proposal returns one proposal by id (a full id or a unique prefix of at
// least 4 characters).
func (db *DB) Proposal(ctx context.Context, id string) (memory.Proposal, error) {
	var out memory.Proposal
	err := db.view(func(txn *badger.Txn) error {
		full, err := resolvePrefix(txn, prefixProposalIDs, id, "proposal")
		if err != nil {
			return err
		}
		p, err := getProposal(txn, full)
		if err != nil {
			return err
		}
		out = *p
		return nil
	})
	return out, err
}

// resolvePrefix turns an id or a unique prefix of one (at least 4
// characters, any case) among the keys under prefix into a full id; what
// names the thing in errors ("proposal", "run").
func resolvePrefix(txn *badger.Txn, prefix []byte, idOrPrefix, what string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(idOrPrefix))
	if len(p) < 4 {
		return "", invalidf("%s id %q is too short: give at least 4 characters", what, idOrPrefix)
	}
	var found []string
	for _, k := range keysLimit(txn, append(slices.Clone(prefix), p...), 3) {
		found = append(found, string(k[len(prefix):]))
	}
	switch {
	case len(found) == 0:
		return "", fmt.Errorf("%s %s: %w", what, idOrPrefix, memory.ErrNotFound)
	case len(found) > 1 && found[0] != p:
		return "", &kindError{memory.ErrAmbiguous, fmt.Errorf("%s id %q is ambiguous (%s, %s …): give more characters", what, idOrPrefix, found[0], found[1])}
	}
	return found[0], nil
}

// keysLimit lists at most n keys under prefix.
func keysLimit(txn *badger.Txn, prefix []byte, n int) [][]byte {
	o := badger.DefaultIteratorOptions
	o.Prefix, o.PrefetchValues = prefix, false
	it := txn.NewIterator(o)
	defer it.Close()
	var out [][]byte
	for it.Rewind(); it.Valid() && len(out) < n; it.Next() {
		out = append(out, it.Item().KeyCopy(nil))
	}
	return out
}
