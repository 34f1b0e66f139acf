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
	"cairn/secrets"
)

// formatForgotten marks a memory record that was forgotten but whose bytes
// are still being purged (see Forget). Readers treat it as not found.
const formatForgotten byte = 0xF0

func newID() string { return memory.NewID() }

// prepare fills defaults, validates and scans a memory about to be written.
func (db *DB) prepare(m *memory.Memory) error {
	m.Tags = memory.NormalizeTags(m.Tags)
	if len(m.Tags) == 0 {
		m.Tags = nil
	}
	m.Title = strings.TrimSpace(m.Title)
	if m.Title == "" {
		m.Title = memory.DeriveTitle(m.Body)
	}
	if m.Kind == "" && m.Layer.Valid() {
		m.Kind = memory.DefaultKind(m.Layer)
	}
	if m.Provenance == "" {
		m.Provenance = memory.ProvUserStated
	}
	if m.Confidence == 0 && m.Provenance.Valid() {
		m.Confidence = m.Provenance.BaseConfidence()
	}
	if m.Status == "" {
		m.Status = memory.StatusActive
	}
	if m.Version == 0 {
		m.Version = 1
	}
	m.Dedup = nil // said on the way out, never stored
	if err := m.Validate(); err != nil {
		return invalidf("%w", err)
	}
	return scan(m)
}

// scan refuses a memory whose text holds a credential.
func scan(m *memory.Memory) error {
	fields := []secrets.Field{{Name: "title", Text: m.Title}, {Name: "body", Text: m.Body}, {Name: "ref", Text: m.Ref}}
	for _, t := range m.Tags {
		fields = append(fields, secrets.Field{Name: "tag", Text: t})
	}
	for _, t := range m.Triggers {
		fields = append(fields, secrets.Field{Name: "trigger", Text: t})
	}
	for _, w := range m.Watermarks {
		fields = append(fields, secrets.Field{Name: "binding", Text: w.Target}, secrets.Field{Name: "binding fingerprint", Text: w.Fingerprint})
	}
	fields = append(fields, secrets.Field{Name: "source", Text: m.Source.Session + " " + m.Source.File}, secrets.Field{Name: "reopened", Text: m.Reopened})
	return secrets.Check(fields...)
}

// Remember stores a new memory and returns it as stored (id, times, defaults).
func (db *DB) Remember(ctx context.Context, in *memory.Memory, by memory.Actor) (*memory.Memory, error) {
	m := in.Clone()
	now := db.now().UTC()
	chosen := m.ID != ""
	if err := takeID(m); err != nil {
		return nil, err
	}
	m.CreatedAt, m.UpdatedAt, m.ValidFrom = now, now, now
	if by == memory.ActorSystem {
		// cairn's own writes from a transcript (a session's episode) are
		// dated when the session was.
		m.CreatedAt, m.ValidFrom = saidAt(in.ValidFrom, now), saidAt(in.ValidFrom, now)
	}
	m.ValidUntil = time.Time{}
	m.Status, m.Version = memory.StatusActive, 1
	m.Supersedes, m.SupersededBy = nil, ""
	if m.Source.Actor == "" {
		m.Source.Actor = by
	}
	if err := db.prepare(m); err != nil {
		return nil, err
	}
	defer lockText(m)() // one writer at a time per text (see dedup.go)
	var out *memory.Memory
	err := db.update(ctx, func(txn *badger.Txn) error {
		if err := needProject(txn, m.Project); err != nil {
			return err
		}
		if done, err := alreadyStored(txn, m); done != nil || err != nil {
			if done != nil { // a retry: the same answer, the near duplicate included
				done.Dedup, err = nearAnswer(txn, done)
			}
			out = done
			return err
		}
		// The fact said again reinforces the stored one; a near duplicate
		// is written with a merge proposal (see dedup.go).
		var err error
		out, err = db.dedup(txn, m, chosen, by)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// takeID keeps an id the caller chose (a client that may retry chooses it,
// so that a retry cannot store the memory twice) or makes a new one.
func takeID(m *memory.Memory) error {
	if m.ID == "" {
		m.ID = newID()
		return nil
	}
	if !validID(m.ID) {
		return invalidf("id %q is not a ULID: leave it empty and cairn makes one", m.ID)
	}
	return nil
}

// alreadyStored recognises the retry of a write whose id the caller chose:
// the stored memory is returned when it holds the same content, and a
// different memory under that id is an error.
func alreadyStored(txn *badger.Txn, m *memory.Memory) (*memory.Memory, error) {
	old, err := getMem(txn, m.ID)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if old.Project == m.Project && sameContent(old, m) && slices.Equal(old.Supersedes, m.Supersedes) {
		return old, nil
	}
	return nil, invalidf("id %s is already used by another memory", m.ID)
}

func needProject(txn *badger.Txn, pid string) error {
	ok, err := exists(txn, keyProject(pid))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("project %s: %w", pid, memory.ErrNotFound)
	}
	return nil
}

// insert writes a new memory with its index entries, checking ref uniqueness.
func (db *DB) insert(txn *badger.Txn, m *memory.Memory) error {
	if err := claimRef(txn, m); err != nil {
		return err
	}
	return writeMem(txn, m)
}

func claimRef(txn *badger.Txn, m *memory.Memory) error {
	if m.Ref == "" {
		return nil
	}
	item, err := txn.Get(keyRef(m.Project, m.Ref))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return txn.Set(keyRef(m.Project, m.Ref), []byte(m.ID))
	}
	if err != nil {
		return err
	}
	holder, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	if string(holder) != m.ID {
		return invalidf("ref %q is already used by %s — pick another ref or edit that memory", m.Ref, holder)
	}
	return nil
}

// writeMem puts the record and its index entries (not the ref).
func writeMem(txn *badger.Txn, m *memory.Memory) error {
	val, err := encode(m)
	if err != nil {
		return fmt.Errorf("encode %q: %w", keyMem(m.ID), err)
	}
	return writeMemAs(txn, m, val, indexKeys(m))
}

// writeMemAs is writeMem with m's encoded value and index entries worked
// out ahead (an import does that on every core).
func writeMemAs(txn *badger.Txn, m *memory.Memory, val []byte, index [][]byte) error {
	if err := txn.Set(keyMem(m.ID), val); err != nil {
		return err
	}
	tallyMem(txn, m, 1)
	for _, k := range index {
		if err := txn.Set(k, nil); err != nil {
			return err
		}
	}
	if isBound(m) { // the bound index carries the watermarks, so a wake check reads only them
		return put(txn, keyBound(m.Project, m.ID), m.Watermarks)
	}
	return nil
}

// unindex deletes m's index entries (not the ref).
func unindex(txn *badger.Txn, m *memory.Memory) error {
	tallyMem(txn, m, -1)
	for _, k := range indexKeys(m) {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// rewrite replaces old with m, moving index entries that changed.
func rewrite(txn *badger.Txn, old, m *memory.Memory) error {
	if err := unindex(txn, old); err != nil {
		return err
	}
	if old.Ref != m.Ref {
		if old.Ref != "" {
			if err := txn.Delete(keyRef(old.Project, old.Ref)); err != nil {
				return err
			}
		}
		if err := claimRef(txn, m); err != nil {
			return err
		}
	}
	return writeMem(txn, m)
}

func getMem(txn *badger.Txn, id string) (*memory.Memory, error) {
	key := keyMem(id)
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("memory %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var m *memory.Memory
	err = item.Value(func(val []byte) error {
		if len(val) > 0 && val[0] == formatForgotten {
			return fmt.Errorf("memory %s: %w", id, memory.ErrNotFound)
		}
		var err error
		m, err = DecodeMemory(key, val)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, overlaySalience(txn, m)
}

// Get returns the memory with id (a full id; see Resolve for prefixes).
func (db *DB) Get(ctx context.Context, id string) (*memory.Memory, error) {
	var m *memory.Memory
	err := db.view(func(txn *badger.Txn) (err error) {
		m, err = getMem(txn, id)
		return err
	})
	return m, err
}

// Resolve turns an id or a unique prefix of one (at least 4 characters,
// any case) into a full id. A prefix of several memories is ErrAmbiguous,
// its message naming the first few by prefixes that tell them apart.
func (db *DB) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(idOrPrefix))
	if len(p) < memory.MinPrefix {
		return "", invalidf("id %q is too short: give at least %d characters", idOrPrefix, memory.MinPrefix)
	}
	const named = 5 // candidates an ambiguous prefix names
	var found []string
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = keyMem(p)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid() && len(found) <= named; it.Next() {
			if err := it.Item().Value(func(v []byte) error {
				if len(v) > 0 && v[0] != formatForgotten {
					found = append(found, string(it.Item().Key()[len("mem/"):]))
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return "", err
	case len(found) == 0:
		return "", fmt.Errorf("memory %s: %w", idOrPrefix, memory.ErrNotFound)
	case len(found) > 1:
		// Keys come sorted and all start with p, so prefixes that tell the
		// found ones apart (the one past the last named included) name
		// each in the whole store.
		short := memory.ShortIDs(found)
		var names []string
		for _, id := range found[:min(len(found), named)] {
			names = append(names, short[id])
		}
		list := strings.Join(names, ", ")
		if len(found) > named {
			list += " and more"
		}
		return "", &kindError{memory.ErrAmbiguous, fmt.Errorf("id %q is ambiguous: %s — give more characters", idOrPrefix, list)}
	}
	return found[0], nil
}

// GetByRef returns the memory of project holding ref.
func (db *DB) GetByRef(ctx context.Context, project, ref string) (*memory.Memory, error) {
	var m *memory.Memory
	err := db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(keyRef(project, ref))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("ref %q: %w", ref, memory.ErrNotFound)
		}
		if err != nil {
			return err
		}
		id, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		m, err = getMem(txn, string(id))
		return err
	})
	return m, err
}

// History returns every version of a memory, oldest first, ending with the current one.
func (db *DB) History(ctx context.Context, id string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	err := db.view(func(txn *badger.Txn) error {
		cur, err := getMem(txn, id)
		if err != nil {
			return err
		}
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixVersions(id)
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if err := it.Item().Value(func(v []byte) error {
				m, err := DecodeMemory(k, v)
				if err == nil {
					out = append(out, m)
				}
				return err
			}); err != nil {
				return err
			}
		}
		out = append(out, cur)
		return nil
	})
	return out, err
}

// Edit changes a memory in place: the previous version is kept in its
// history and the version number rises. A patch that changes nothing
// writes nothing.
func (db *DB) Edit(ctx context.Context, id string, p memory.Patch, by memory.Actor) (*memory.Memory, error) {
	var out *memory.Memory
	err := db.update(ctx, func(txn *badger.Txn) error {
		old, err := getMem(txn, id)
		if err != nil {
			return err
		}
		m := old.Clone()
		apply(m, p)
		if p.Title != nil && strings.TrimSpace(*p.Title) == "" {
			m.Title = ""
		}
		corrected := m.Title != old.Title || m.Body != old.Body
		if corrected {
			m.RejectedAt = time.Time{} // corrected in place
			m.ReopenedAt, m.Reopened = time.Time{}, ""
		}
		if err := db.prepare(m); err != nil {
			return err
		}
		if sameContent(old, m) {
			out = old
			return nil
		}
		if err := put(txn, keyVersion(id, old.Version), old); err != nil {
			return err
		}
		m.Version = old.Version + 1
		m.UpdatedAt = db.now().UTC()
		if err := rewrite(txn, old, m); err != nil {
			return err
		}
		fired := slices.ContainsFunc(old.Watermarks, func(w memory.Watermark) bool { return w.State.Fired() })
		if corrected && old.RejectedAt.IsZero() && fired {
			// a fact whose ground moved, corrected in place: evidence
			// like a supersession (a rejection already counted)
			if err := db.review(txn, memory.ReviewOf(old, memory.VerdictSupersede, by, m.UpdatedAt)); err != nil {
				return err
			}
		}
		out = m
		return db.event(txn, m.Project, by, memory.EventEdit, id, fmt.Sprintf("version %d", m.Version))
	})
	return out, err
}

func apply(m *memory.Memory, p memory.Patch) {
	if p.Body != nil && p.Title == nil && m.TitleDerived() {
		// The title was derived from the old text, so it follows the new
		// one (prepare derives it again); a title a person set stays.
		m.Title = ""
	}
	if p.Title != nil {
		m.Title = *p.Title
	}
	if p.Body != nil {
		m.Body = *p.Body
	}
	if p.Layer != nil {
		m.Layer = *p.Layer
	}
	if p.Kind != nil {
		m.Kind = *p.Kind
	}
	if p.Tags != nil {
		m.Tags = slices.Clone(*p.Tags)
	}
	if len(p.AddTags) > 0 || len(p.RemoveTags) > 0 {
		drop := memory.NormalizeTags(p.RemoveTags)
		m.Tags = slices.DeleteFunc(memory.NormalizeTags(append(slices.Clone(m.Tags), p.AddTags...)), func(t string) bool {
			return slices.Contains(drop, t)
		})
	}
	if p.Provenance != nil {
		m.Provenance = *p.Provenance
		if p.Confidence == nil {
			m.Confidence = m.Provenance.BaseConfidence()
		}
	}
	if p.Confidence != nil {
		m.Confidence = *p.Confidence
	}
	if p.Ref != nil {
		m.Ref = *p.Ref
	}
	if p.Watermarks != nil {
		m.Watermarks = slices.Clone(*p.Watermarks)
	}
	if p.Triggers != nil {
		m.Triggers = slices.Clone(*p.Triggers)
	}
}

// sameContent reports whether an edit would change nothing a person wrote.
func sameContent(a, b *memory.Memory) bool {
	return a.Title == b.Title && a.Body == b.Body && a.Layer == b.Layer && a.Kind == b.Kind &&
		slices.Equal(a.Tags, b.Tags) && a.Provenance == b.Provenance && a.Confidence == b.Confidence &&
		a.Ref == b.Ref && slices.Equal(a.Watermarks, b.Watermarks) && slices.Equal(a.Triggers, b.Triggers)
}

// Supersede stores m as the successor of oldID: the old memory gets
// valid_until and superseded_by and stops being current; m gets supersedes
// and a supersedes edge to it. Layer, kind and tags default to the old ones.
func (db *DB) Supersede(ctx context.Context, oldID string, in *memory.Memory, by memory.Actor) (*memory.Memory, error) {
	var out *memory.Memory
	err := db.update(ctx, func(txn *badger.Txn) error {
		old, err := getMem(txn, oldID)
		if err != nil {
			return err
		}
		m := in.Clone()
		now := db.now().UTC()
		if err := takeID(m); err != nil {
			return err
		}
		m.Project = old.Project
		m.CreatedAt, m.UpdatedAt, m.ValidFrom, m.ValidUntil = now, now, now, time.Time{}
		m.Status, m.Version, m.SupersededBy = memory.StatusActive, 1, ""
		m.RejectedAt = time.Time{}
		m.Supersedes = []string{oldID}
		if m.Layer == 0 {
			m.Layer = old.Layer
		}
		if m.Kind == "" {
			m.Kind = old.Kind
		}
		if m.Tags == nil {
			m.Tags = old.Tags
		}
		if m.Triggers == nil {
			m.Triggers = old.Triggers
		}
		if m.Source.Actor == "" {
			m.Source.Actor = by
		}
		if err := db.prepare(m); err != nil {
			return err
		}
		if done, err := alreadyStored(txn, m); done != nil || err != nil {
			out = done
			return err
		}
		if old.Status == memory.StatusSuperseded {
			return invalidf("%s is already superseded by %s — supersede that one instead", oldID, old.SupersededBy)
		}
		if m.Ref != "" && m.Ref == old.Ref {
			return invalidf("ref %q belongs to the memory being superseded — give the new one its own ref", m.Ref)
		}
		next := old.Clone()
		next.Status, next.ValidUntil, next.SupersededBy = memory.StatusSuperseded, now, m.ID
		if err := rewrite(txn, old, next); err != nil {
			return err
		}
		if old.RejectedAt.IsZero() { // a rejection already recorded that the fact changed
			if err := db.review(txn, memory.ReviewOf(old, memory.VerdictSupersede, by, now)); err != nil {
				return err
			}
		}
		if err := db.insert(txn, m); err != nil {
			return err
		}
		if err := putEdge(txn, memory.Edge{From: m.ID, Kind: memory.EdgeSupersedes, To: oldID, Weight: 1, CreatedAt: now, Active: true}); err != nil {
			return err
		}
		out = m
		if err := db.event(txn, m.Project, by, memory.EventSupersede, oldID, "superseded by "+m.ID); err != nil {
			return err
		}
		return db.event(txn, m.Project, by, memory.EventRemember, m.ID, "supersedes "+oldID)
	})
	return out, err
}

// Archive takes a memory out of recall without deleting it; Unarchive undoes it.
func (db *DB) Archive(ctx context.Context, id, reason string, by memory.Actor) (*memory.Memory, error) {
	if err := memory.ValidReason(reason); err != nil {
		return nil, invalid(err)
	}
	if err := secrets.Check(secrets.Field{Name: "reason", Text: reason}); err != nil {
		return nil, err
	}
	return db.setStatus(ctx, id, memory.StatusActive, memory.StatusArchived, memory.EventArchive, strings.TrimSpace(reason), by)
}

// Unarchive makes an archived memory active again, exactly as it was.
func (db *DB) Unarchive(ctx context.Context, id string, by memory.Actor) (*memory.Memory, error) {
	return db.setStatus(ctx, id, memory.StatusArchived, memory.StatusActive, memory.EventUnarchive, "", by)
}

func (db *DB) setStatus(ctx context.Context, id string, from, to memory.Status, ev memory.EventKind, summary string, by memory.Actor) (*memory.Memory, error) {
	var out *memory.Memory
	err := db.update(ctx, func(txn *badger.Txn) error {
		old, err := getMem(txn, id)
		if err != nil {
			return err
		}
		if old.Status != from {
			return invalidf("%s is %s, not %s", id, old.Status, from)
		}
		m := old.Clone()
		m.Status = to
		if err := rewrite(txn, old, m); err != nil {
			return err
		}
		out = m
		return db.event(txn, m.Project, by, ev, id, summary)
	})
	return out, err
}

// List returns a page of one project's memories, newest first.
func (db *DB) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	if q.Limit <= 0 {
		q.Limit = memory.DefaultLimit
	}
	status := q.Status
	if status == "" {
		status = memory.StatusActive
	}
	var prefix []byte
	filter := func(*memory.Memory) bool { return true }
	switch {
	case q.Tag != "":
		prefix = prefixTag(q.Project, strings.ToLower(q.Tag))
		filter = func(m *memory.Memory) bool {
			return (q.Layer == 0 || m.Layer == q.Layer) && (status == memory.StatusAny || m.Status == status)
		}
	case q.Layer != 0 && status != memory.StatusAny:
		prefix = prefixLayerStatus(q.Project, q.Layer, status)
	case q.Layer != 0:
		prefix = prefixLayer(q.Project, q.Layer)
	case status != memory.StatusAny:
		prefix = prefixStatus(q.Project, status)
	default:
		prefix = prefixAll(q.Project)
	}
	var page memory.Page
	err := db.view(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix, o.PrefetchValues, o.Reverse = prefix, false, true
		it := txn.NewIterator(o)
		defer it.Close()
		seek := append(slices.Clone(prefix), 0xFF)
		after := q.After
		if after != "" {
			seek = append(slices.Clone(prefix), after...)
		}
		for it.Seek(seek); it.Valid(); it.Next() {
			id := idFromKey(it.Item().Key())
			if id == after {
				continue
			}
			if len(page.Memories) == q.Limit {
				page.Next = page.Memories[len(page.Memories)-1].ID
				return nil
			}
			m, err := getMem(txn, id)
			if errors.Is(err, memory.ErrNotFound) {
				continue // being forgotten
			}
			if err != nil {
				return err
			}
			if filter(m) && (q.Match == "" || memory.Matches(m, q.Match)) {
				page.Memories = append(page.Memories, m)
			}
		}
		return nil
	})
	return page, err
}

// Count counts a project's memories by layer and status, from the counts
// kept by the writes (see counts.go).
func (db *DB) Count(ctx context.Context, project string) (memory.Counts, error) {
	c := memory.Counts{ByLayer: map[memory.Layer]map[memory.Status]int{}}
	for _, l := range memory.Layers {
		c.ByLayer[l] = map[memory.Status]int{}
	}
	err := db.view(func(txn *badger.Txn) error {
		t, err := counts(txn)
		if err != nil {
			return err
		}
		for k, n := range t.Mem {
			if pid, l, st, ok := splitMemCountKey(k); ok && pid == project && n != 0 && c.ByLayer[l] != nil {
				c.ByLayer[l][st] += n
			}
		}
		return nil
	})
	return c, err
}

func statusFromLetter(b byte) memory.Status {
	switch b {
	case 'a':
		return memory.StatusActive
	case 'r':
		return memory.StatusArchived
	case 's':
		return memory.StatusSuperseded
	}
	return ""
}

// Bound returns the memories of a project that carry a watermark that can
// move (file, git or flag), for the wake check. Only their id, project
// and watermarks are filled: the index holds the watermarks, so a check
// of many memories reads none of their text.
func (db *DB) Bound(ctx context.Context, project string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	err := db.view(func(txn *badger.Txn) error {
		return eachBound(txn, project, func(m *memory.Memory) error {
			out = append(out, m)
			return nil
		})
	})
	return out, err
}

// SetWatermarks records what a wake check found (no new version: the fact
// is the same) and the timeline says why: the states of the watermarks
// that were checked, if they are still the memory's, or ws whole for a
// memory bound to nothing yet. A person's verdict goes through Review.
func (db *DB) SetWatermarks(ctx context.Context, id string, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error) {
	return db.verify(ctx, id, "", ws, summary, by)
}

// saidAt is when a memory was said: the time its writer gives (a
// transcript's message, read later), unless it gives none or one after now.
func saidAt(given, now time.Time) time.Time {
	if given.IsZero() || given.After(now) {
		return now
	}
	return given.UTC()
}
