package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Hard deletes — forgetting a memory, dropping a draft — leave one
// content-free event on the timeline and nothing else. A plain delete would
// leave the old values on disk until some later compaction happened to
// pass, so the bytes go with Badger's DropPrefix, in steps that a crash may
// interrupt anywhere and Open finishes (finishPurges).

// purge is the intent a hard delete leaves until its bytes are gone. It
// names nothing a person wrote: the keys of a forgotten memory, which hold
// its tags and ref, live in its forgotten marker at mem/<id>, which is
// dropped last.
type purge struct {
	Project string         `json:"project"`
	Draft   bool           `json:"draft,omitempty"`   // a draft, not a memory
	Keys    []string       `json:"keys,omitempty"`    // a draft's keys (ids only)
	Rewrite []memory.Event `json:"rewrite,omitempty"` // other memories' events that quoted it, scrubbed
	Dropped bool           `json:"dropped,omitempty"` // all dropped but the marker

	// Prefixes is the intent of an older cairn, which listed the memory's
	// keys here; such a record is itself dropped, not deleted.
	Prefixes [][]byte `json:"prefixes,omitempty"`
}

// forgottenText replaces a forgotten memory's id, title or ref where
// another event's summary quoted it.
const forgottenText = "a forgotten memory"

// Forget deletes a memory for good: its record, versions, index entries
// (tags and ref of every version), edges in both directions, reviews,
// cached vectors and every event about it; other events that quoted it are
// scrubbed. What remains is one "forget" event that names only its id. What
// it had superseded is not stranded (see unlink).
//
// Step 1, one transaction, makes the memory unreadable and unlinked, writes
// the forget event and the intent; runPurge then drops the bytes.
func (db *DB) Forget(ctx context.Context, id string, by memory.Actor) error {
	var p, dp purge
	var draft string
	err := db.update(ctx, func(txn *badger.Txn) error {
		var err error
		if p, err = db.markForgotten(txn, id, by); err != nil {
			return err
		}
		// The draft consolidation made it from holds its text as well.
		if draft, err = sourceDraft(txn, p.Project, id); err != nil || draft == "" {
			return err
		}
		if dp, err = db.markDraftDropped(txn, p.Project, draft); err != nil {
			return err
		}
		return db.event(txn, p.Project, by, memory.EventDropDraft, "", "the draft a forgotten memory came from was deleted")
	})
	if err != nil {
		return err
	}
	if err := db.runPurge(id, p); err != nil {
		return fmt.Errorf("forgotten, but dropping its bytes failed (cairn retries at the next start): %w", err)
	}
	if draft != "" {
		if err := db.runPurge(draft, dp); err != nil {
			return fmt.Errorf("forgotten, but dropping the bytes of the draft it came from failed (cairn retries at the next start): %w", err)
		}
	}
	return nil
}

// markForgotten is step 1 of Forget, inside txn. Every key to drop must be
// live when DropPrefix runs (it skips a prefix with no live key, leaving
// deleted values on disk), so keys that held content in an older version
// and were deleted since are written again, empty, until the drop.
func (db *DB) markForgotten(txn *badger.Txn, id string, by memory.Actor) (purge, error) {
	p := purge{}
	m, err := getMem(txn, id)
	if err != nil {
		return p, err
	}
	p.Project = m.Project
	versions, err := versionsOf(txn, m)
	if err != nil {
		return p, err
	}
	drop := [][]byte{prefixVersions(id), prefixEdgesOut(id), prefixEdgesIn(id), prefixEventsOfMem(id), prefixReviewsOf(m.Project, id), prefixRunOld(id), keyFromDraft(id), keySal(id)}
	props, err := forgetProposals(txn, id) // they may quote it
	if err != nil {
		return p, err
	}
	drop = append(drop, props...)
	ep, err := forgetEpisode(txn, id) // a session's episode: its diary too
	if err != nil {
		return p, err
	}
	drop = append(drop, ep...)
	for _, v := range versions {
		drop = append(drop, indexKeys(v)...)
		drop = append(drop, prefixVectors(contentHash(v)))
	}
	revived, err := reviveContentKeys(txn, m, versions)
	if err != nil {
		return p, err
	}
	drop = append(drop, revived...)
	own, events, err := forgetOwnEvents(txn, m)
	if err != nil {
		return p, err
	}
	drop = append(drop, events...)
	quoting, err := quotingEvents(txn, m, versions, own)
	if err != nil {
		return p, err
	}
	for _, e := range quoting {
		k := keyEvent(e.Project, e.ID)
		if err := put(txn, k, e); err != nil { // readers see it scrubbed at once
			return p, err
		}
		drop = append(drop, k)
		p.Rewrite = append(p.Rewrite, e)
	}

	if err := db.unlink(txn, m, by); err != nil {
		return p, err
	}
	// It leaves the counts now; its keys, its links out among them, are
	// dropped after.
	tallyMem(txn, m, -1)
	tallyKey(txn, prefixEdgesOut(id), -len(keys(txn, prefixEdgesOut(id))))
	slices.SortFunc(drop, bytes.Compare)
	drop = slices.CompactFunc(drop, bytes.Equal)
	if err := txn.Set(keyMem(id), encodeMarker(drop)); err != nil {
		return p, err
	}
	if err := put(txn, keyPurge(id), p); err != nil {
		return p, err
	}
	return p, db.event(txn, m.Project, by, memory.EventForget, id, "forgotten")
}

// versionsOf is m and every earlier version of it.
func versionsOf(txn *badger.Txn, m *memory.Memory) ([]*memory.Memory, error) {
	versions := []*memory.Memory{m}
	for _, k := range keys(txn, prefixVersions(m.ID)) {
		var old memory.Memory
		if err := get(txn, k, &old); err != nil {
			return nil, err
		}
		versions = append(versions, &old)
	}
	return versions, nil
}

// reviveContentKeys writes again (when gone) the index keys of m's
// versions that may name its content — tags, its ref, its binding — so
// that the purge drops each of them, and returns them.
func reviveContentKeys(txn *badger.Txn, m *memory.Memory, versions []*memory.Memory) ([][]byte, error) {
	var revive [][]byte
	for _, v := range versions {
		for _, t := range v.Tags {
			revive = append(revive, append(prefixTag(m.Project, t), m.ID...))
		}
		if isBound(v) {
			revive = append(revive, keyBound(m.Project, m.ID))
		}
		if v.Ref != "" {
			holder, err := refHolder(txn, m.Project, v.Ref)
			if err != nil {
				return nil, err
			}
			if holder == "" || holder == m.ID { // a ref another memory took since is its own
				revive = append(revive, keyRef(m.Project, v.Ref))
			}
		}
	}
	for _, k := range revive {
		live, err := exists(txn, k)
		if err != nil {
			return nil, err
		}
		if !live {
			if err := txn.Set(k, nil); err != nil {
				return nil, err
			}
		}
	}
	return revive, nil
}

// forgetOwnEvents marks m's own events forgotten: they go whole, and read
// as nothing until the drop. It returns their ids and the keys to drop.
func forgetOwnEvents(txn *badger.Txn, m *memory.Memory) (map[string]bool, [][]byte, error) {
	own := map[string]bool{}
	var drop [][]byte
	for _, k := range keys(txn, prefixEventsOfMem(m.ID)) {
		eid := idFromKey(k)
		own[eid] = true
		ek := keyEvent(m.Project, eid)
		live, err := exists(txn, ek)
		if err != nil {
			return nil, nil, err
		}
		if live {
			if err := setCounted(txn, ek, []byte{formatForgotten}); err != nil {
				return nil, nil, err
			}
			drop = append(drop, ek)
		}
	}
	return own, drop, nil
}

// refHolder is the id holding ref in project, or "" when it is free.
func refHolder(txn *badger.Txn, pid, ref string) (string, error) {
	item, err := txn.Get(keyRef(pid, ref))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	return string(v), err
}

// quotingEvents finds the events, other than m's own, that quote m's id or
// the title or ref of any of its versions — a link to it, a supersession —
// in m's project and in the projects of memories that link to it (a global
// memory is linked from any project), and returns them scrubbed.
func quotingEvents(txn *badger.Txn, m *memory.Memory, versions []*memory.Memory, own map[string]bool) ([]memory.Event, error) {
	needles := []string{m.ID}
	for _, v := range versions {
		for _, s := range []string{v.Title, v.Ref} {
			if utf8.RuneCountInString(s) >= 4 { // shorter ones match by chance
				needles = append(needles, s)
			}
		}
	}
	slices.SortFunc(needles, func(a, b string) int { return len(b) - len(a) })
	needles = slices.Compact(needles)
	raw := make([][]byte, len(needles)) // as JSON spells them inside a stored event
	for i, n := range needles {
		b, _ := json.Marshal(n)
		raw[i] = b[1 : len(b)-1]
	}
	projects := []string{m.Project}
	_, in, err := edgesOf(txn, m.ID)
	if err != nil {
		return nil, err
	}
	for _, e := range in {
		if from, err := getMem(txn, e.From); err == nil && !slices.Contains(projects, from.Project) {
			projects = append(projects, from.Project)
		}
	}
	var out []memory.Event
	for _, pid := range projects {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixEvents(pid)
		it := txn.NewIterator(o)
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			if own[idFromKey(item.Key())] {
				continue
			}
			var e memory.Event
			found := false
			k := item.KeyCopy(nil)
			err := item.Value(func(v []byte) error {
				if len(v) == 0 || v[0] != formatJSON || !slices.ContainsFunc(raw, func(n []byte) bool { return bytes.Contains(v, n) }) {
					return nil
				}
				found = true
				return decode(k, v, &e)
			})
			if err != nil {
				it.Close()
				return nil, err
			}
			if !found {
				continue
			}
			before := e
			for _, n := range needles {
				e.Summary = strings.ReplaceAll(e.Summary, n, forgottenText)
			}
			e.Title = ""
			if e != before { // not a match in another field, such as the actor
				out = append(out, e)
			}
		}
		it.Close()
	}
	return out, nil
}

// unlink removes m from every other memory: the other end of each edge and
// the supersession fields that name it. m's place in a supersession chain
// closes up: what m superseded is superseded by m's successor now, or, when
// m was current, is current again (nothing supersedes it any more) — either
// way with an event on it that says so, never stranded.
func (db *DB) unlink(txn *badger.Txn, m *memory.Memory, by memory.Actor) error {
	out, in, err := edgesOf(txn, m.ID)
	if err != nil {
		return err
	}
	for _, e := range out {
		if err := txn.Delete(keyEdgeIn(e)); err != nil {
			return err
		}
	}
	now := db.now().UTC()
	for _, e := range in {
		if err := deleteCounted(txn, keyEdgeOut(e)); err != nil {
			return err
		}
		if e.Active && (e.Kind == memory.EdgeBecause || e.Kind == memory.EdgeEvidence) {
			if err := db.reopenFor(txn, e, now, by); err != nil {
				return err
			}
		}
	}
	var succ *memory.Memory
	if m.SupersededBy != "" {
		succ, err = getMem(txn, m.SupersededBy)
		if errors.Is(err, memory.ErrNotFound) {
			succ = nil
		} else if err != nil {
			return err
		}
	}
	var handedOn []string // predecessors succ supersedes now
	for _, pid := range m.Supersedes {
		pred, err := getMem(txn, pid)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if pred.SupersededBy != m.ID {
			continue
		}
		next := pred.Clone()
		var summary string
		kind := memory.EventSupersede
		if succ != nil {
			next.SupersededBy = succ.ID
			handedOn = append(handedOn, pred.ID)
			summary = "superseded by " + succ.ID + ": the memory between them was forgotten"
			if err := putEdge(txn, memory.Edge{From: succ.ID, Kind: memory.EdgeSupersedes, To: pred.ID, Weight: 1, CreatedAt: now, Active: true}); err != nil {
				return err
			}
		} else {
			next.SupersededBy = ""
			if next.Status == memory.StatusSuperseded {
				next.Status, next.ValidUntil = memory.StatusActive, time.Time{}
			}
			kind, summary = memory.EventReinstate, "current again: the memory that superseded it was forgotten"
		}
		if err := rewrite(txn, pred, next); err != nil {
			return err
		}
		if err := db.event(txn, pred.Project, by, kind, pred.ID, summary); err != nil {
			return err
		}
	}
	if succ != nil {
		next := succ.Clone()
		next.Supersedes = slices.DeleteFunc(next.Supersedes, func(s string) bool { return s == m.ID })
		next.Supersedes = append(next.Supersedes, handedOn...)
		if len(next.Supersedes) == 0 {
			next.Supersedes = nil
		}
		if err := rewrite(txn, succ, next); err != nil {
			return err
		}
	}
	return nil
}

// DropDraft deletes a draft for good, before consolidation has read it or
// after: its text, its source and its capture event. What remains is one
// event saying that a draft was deleted.
func (db *DB) DropDraft(ctx context.Context, id string, by memory.Actor) error {
	id = strings.TrimSpace(id)
	if !validID(id) {
		return invalidf("draft id %q is not a draft id: give the full id that drafts lists", id)
	}
	var p purge
	err := db.update(ctx, func(txn *badger.Txn) error {
		pid, err := draftProject(txn, id)
		if err != nil {
			return err
		}
		if p, err = db.markDraftDropped(txn, pid, id); err != nil {
			return err
		}
		return db.event(txn, pid, by, memory.EventDropDraft, "", "a draft was deleted")
	})
	if err != nil {
		return err
	}
	if err := db.runPurge(id, p); err != nil {
		return fmt.Errorf("draft deleted, but dropping its bytes failed (cairn retries at the next start): %w", err)
	}
	return nil
}

// draftProject finds the project whose inbox holds draft id.
func draftProject(txn *badger.Txn, id string) (string, error) {
	for _, k := range keys(txn, prefixProjects) {
		pid := string(k[len("proj/"):])
		item, err := txn.Get(keyDraft(pid, id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		gone := false
		if err := item.Value(func(v []byte) error { gone = len(v) > 0 && v[0] == formatForgotten; return nil }); err != nil {
			return "", err
		}
		if !gone {
			return pid, nil
		}
	}
	return "", fmt.Errorf("draft %s: %w", id, memory.ErrNotFound)
}

// runPurge drops a hard delete's bytes from disk and clears its intent:
//  1. DropPrefix of every key the memory or draft owned (Badger removes them
//     from the memtables, the write-ahead log and every LSM level), then one
//     transaction writes back the scrubbed events of other memories and
//     records the progress;
//  2. DropPrefix of the memory's marker, which listed those keys;
//  3. the intent is deleted.
//
// Each step can be repeated, so a crash anywhere is finished at Open.
func (db *DB) runPurge(id string, p purge) error {
	if len(p.Prefixes) > 0 { // an older cairn's intent
		// An older cairn kept no counts: those of this store are counted
		// again at the next Open (see buildCounts), which carries these
		// intents out first.
		if err := db.writeUnchecked(func(txn *badger.Txn) error { return txn.Delete(keyCounts) }); err != nil {
			return err
		}
		return db.drop(append(slices.Clone(p.Prefixes), keyPurge(id))...)
	}
	if !p.Dropped {
		var keys [][]byte
		if p.Draft {
			for _, k := range p.Keys {
				keys = append(keys, []byte(k))
			}
		} else {
			var err error
			if keys, err = db.markerKeys(id); err != nil {
				return err
			}
		}
		if err := db.drop(keys...); err != nil {
			return err
		}
		if !p.Draft {
			p.Dropped = true
			err := db.update(context.Background(), func(txn *badger.Txn) error {
				for _, e := range p.Rewrite {
					if err := put(txn, keyEvent(e.Project, e.ID), e); err != nil {
						return err
					}
				}
				return put(txn, keyPurge(id), purge{Project: p.Project, Dropped: true})
			})
			if err != nil {
				return err
			}
		}
	}
	if !p.Draft {
		if err := db.drop(keyMem(id)); err != nil {
			return err
		}
	}
	err := db.update(context.Background(), func(txn *badger.Txn) error { return txn.Delete(keyPurge(id)) })
	if err != nil {
		return err
	}
	// Values above Badger's value threshold would live in the value log
	// (cairn writes none): rewrite files that are now mostly garbage.
	// Nothing to rewrite is the usual answer.
	if release, err := db.enter(); err == nil {
		for db.bdb.RunValueLogGC(0.01) == nil {
		}
		release()
	}
	return nil
}

// drop removes every version of the keys under each prefix from disk.
// Writers wait meanwhile (see DB.dropping).
func (db *DB) drop(prefixes ...[]byte) error {
	if len(prefixes) == 0 {
		return nil
	}
	release, err := db.enter()
	if err != nil {
		return err
	}
	defer release()
	db.dropping.Lock()
	defer db.dropping.Unlock()
	defer db.bound.drops.Add(1) // keys go without a new version: bound summaries are read again
	return db.bdb.DropPrefix(prefixes...)
}

// markerKeys reads the keys a forgotten memory's marker lists; none when
// the marker is gone already.
func (db *DB) markerKeys(id string) ([][]byte, error) {
	var out [][]byte
	err := db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(keyMem(id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			out, err = decodeMarker(keyMem(id), v)
			return err
		})
	})
	return out, err
}

// encodeMarker is the value of a forgotten memory's record until its bytes
// are gone: formatForgotten, then each key to drop as a uvarint length and
// its bytes (raw, so that nothing is lost in an encoding).
func encodeMarker(keys [][]byte) []byte {
	b := []byte{formatForgotten}
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	return b
}

func decodeMarker(key, v []byte) ([][]byte, error) {
	if len(v) == 0 || v[0] != formatForgotten {
		return nil, fmt.Errorf("decode %q: not a forgotten marker", key)
	}
	var out [][]byte
	for rest := v[1:]; len(rest) > 0; {
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return nil, fmt.Errorf("decode %q: forgotten marker is cut short", key)
		}
		out = append(out, slices.Clone(rest[w:w+int(n)]))
		rest = rest[w+int(n):]
	}
	return out, nil
}

// finishPurges completes hard deletes that a crash interrupted.
func (db *DB) finishPurges() error {
	type pending struct {
		id string
		p  purge
	}
	var todo []pending
	err := db.bdb.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixPurges
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var p purge
			k := it.Item().KeyCopy(nil)
			if err := it.Item().Value(func(v []byte) error { return decode(k, v, &p) }); err != nil {
				return err
			}
			todo = append(todo, pending{string(k[len(prefixPurges):]), p})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range todo {
		if err := db.runPurge(t.id, t.p); err != nil {
			return err
		}
	}
	return nil
}

// reopenFor sends the decision behind edge e back to verify-first: the
// reason or evidence e points at is being forgotten. The reason names it
// by id only (it reads "a forgotten memory").
func (db *DB) reopenFor(txn *badger.Txn, e memory.Edge, now time.Time, by memory.Actor) error {
	d, err := getMem(txn, e.From)
	if errors.Is(err, memory.ErrNotFound) {
		return nil
	}
	if err != nil || d.Status != memory.StatusActive || !d.ReopenedAt.IsZero() {
		return err
	}
	what := "its reason"
	if e.Kind == memory.EdgeEvidence {
		what = "its evidence"
	}
	next := d.Clone()
	next.ReopenedAt, next.Reopened = now, fmt.Sprintf("%s %s was forgotten on %s", what, e.To, now.Local().Format("2006-01-02"))
	if err := rewrite(txn, d, next); err != nil {
		return err
	}
	// The event says what happened without naming what was forgotten.
	return db.event(txn, d.Project, by, memory.EventReopen, d.ID, what+" was forgotten")
}

// markDraftDropped is step 1 of dropping draft id of project pid, inside
// txn: the draft and its capture event read as nothing at once, the
// proposals made from it go, and the intent to drop their bytes is
// written (runPurge carries it out).
func (db *DB) markDraftDropped(txn *badger.Txn, pid, id string) (purge, error) {
	p := purge{Project: pid, Draft: true, Keys: []string{string(keyDraft(pid, id)), string(prefixEventsOfDraft(id))}}
	props, err := forgetProposals(txn, id) // they hold its text
	if err != nil {
		return p, err
	}
	for _, k := range props {
		p.Keys = append(p.Keys, string(k))
	}
	if err := setCounted(txn, keyDraft(pid, id), []byte{formatForgotten}); err != nil {
		return p, err
	}
	// An ingest of the same transcript must not bring it back.
	if err := txn.Set(keyDraftGone(pid, id), nil); err != nil {
		return p, err
	}
	for _, k := range keys(txn, prefixEventsOfDraft(id)) {
		ek := keyEvent(pid, idFromKey(k))
		live, err := exists(txn, ek)
		if err != nil {
			return p, err
		}
		if live {
			if err := setCounted(txn, ek, []byte{formatForgotten}); err != nil {
				return p, err
			}
			p.Keys = append(p.Keys, string(ek))
		}
	}
	return p, put(txn, keyPurge(id), p)
}

// sourceDraft is the draft a consolidation run made memory id from, when
// it is still there: it holds the memory's text too.
func sourceDraft(txn *badger.Txn, pid, id string) (string, error) {
	item, err := txn.Get(keyFromDraft(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return "", err
	}
	did := string(v)
	var d memory.Draft
	if err := get(txn, keyDraft(pid, did), &d); err != nil {
		return "", nil // gone, or being dropped
	}
	return did, nil
}
