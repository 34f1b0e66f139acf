package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// Deduplication on the write paths (issue 11). Remember, the socket's
// Remember (which calls it), the MCP server and the REPL all end in
// DB.Remember, so the store is where a fact said again is recognised:
//
//   - the same fact after normalisation (memory.NormalText) as an active
//     memory of the same project reinforces that memory instead of making
//     a copy: its reinforcement count rises and the timeline gets a
//     breadcrumb naming who said it again and from where;
//   - a near duplicate (a shared signature band and a similarity of at
//     least memory.NearDuplicate) is written, and a merge proposal waits
//     for a person.
//
// Keys (the two indexes are built by indexKeys, for active memories only,
// so every status change moves them):
//
//	idx/<pid>/norm/<NormalHash>/<id>  an active memory's normalised text
//	idx/<pid>/nd/<band>/<id>          each band of its signature
//	dedupid/<chosen id>               a write with a chosen id that reinforced
//	                                  another memory → that memory's id (expires)
//	meta/dedup-index                  the indexes were built for older records

// dedupKeep is how long the answer to a reinforcing write is kept for a
// retry of it: a client retries at once, after reconnecting, so a day is
// plenty, and the keys then go by themselves (Badger's TTL).
const dedupKeep = 24 * time.Hour

// maxNear and maxNearBytes bound the candidates a near-duplicate search
// reads, and their text: a band that many texts share (boilerplate) cannot
// make a write slow. Memories are mostly a few hundred bytes, so 200 of
// them fit in the byte bound, which cuts in only among long ones.
const (
	maxNear      = 200
	maxNearBytes = 64 << 10
)

// dedupKeys are m's entries in the deduplication indexes (indexKeys adds
// them for active memories).
func dedupKeys(m *memory.Memory) [][]byte {
	var d derived
	d.setNormal(memory.NormalText(m))
	return dedupKeysOf(m, d)
}

func dedupKeysOf(m *memory.Memory, d derived) [][]byte {
	if d.normal == "" {
		return nil
	}
	ks := [][]byte{append(prefixNorm(m.Project, d.normal), m.ID...)}
	for _, b := range d.bands {
		ks = append(ks, append(prefixBand(m.Project, b), m.ID...))
	}
	return ks
}

// normalHash is memory.NormalHash of a memory whose normalised text is
// norm: the text is normalised once per write, not once per use.
func normalHash(norm string) string {
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:12])
}

// sameFact finds an active memory of m's project whose normalised text is
// norm (m's), the oldest first; nil when there is none. The text is
// compared, not only its hash. When m names a ref, only a memory with that
// ref counts. The memories in skip do not count (an import's own).
func sameFact(txn *badger.Txn, m *memory.Memory, norm string, skip map[string]bool) (*memory.Memory, error) {
	if norm == "" {
		return nil, nil
	}
	for _, k := range keysLimit(txn, prefixNorm(m.Project, normalHash(norm)), maxNear) {
		id := idFromKey(k)
		if id == m.ID || skip[id] {
			continue
		}
		c, err := getMem(txn, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue // being forgotten
		}
		if err != nil {
			return nil, err
		}
		// A write that names a ref of its own wants a memory under it.
		ref := m.Ref == "" || m.Ref == c.Ref
		if c.Project == m.Project && c.Status == memory.StatusActive && ref && memory.NormalText(c) == norm {
			return c, nil
		}
	}
	return nil, nil
}

// nearFact finds the active memory of m's project most similar to norm
// (m's normalised text) among those sharing a signature band with it, when
// the similarity reaches memory.NearDuplicate; nil when none does. The
// candidates that share the most bands are read first, at most maxNear of
// them and maxNearBytes of their text, so a write stays fast whatever the
// store holds (comparing means normalising each candidate's whole text).
func nearFact(txn *badger.Txn, m *memory.Memory, norm string) (*memory.Memory, float64, error) {
	shared := map[string]int{}
	var order []string
	for _, band := range memory.Signature(norm) {
		for _, k := range keysLimit(txn, prefixBand(m.Project, band), maxNear) {
			id := idFromKey(k)
			if id == m.ID {
				continue
			}
			if shared[id] == 0 {
				order = append(order, id)
			}
			shared[id]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return shared[b] - shared[a] })
	var best *memory.Memory
	bestSim, budget := 0.0, maxNearBytes
	for i, id := range order {
		if i == maxNear || budget <= 0 {
			break
		}
		c, err := getMem(txn, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue // being forgotten
		}
		if err != nil {
			return nil, 0, err
		}
		if c.Project != m.Project || c.Status != memory.StatusActive {
			continue
		}
		budget -= len(c.Title) + len(c.Body)
		other := memory.NormalText(c)
		if sim := memory.Similarity(norm, other); sim >= memory.NearDuplicate && sim > bestSim && memory.SameValues(norm, other) {
			best, bestSim = c, sim
		}
	}
	return best, bestSim, nil
}

// dedup is the part of Remember that looks for the fact already stored,
// inside its transaction, after the retry of a write already stored was
// recognised. It returns the answer when the write was folded into a
// stored memory (reinforced), and otherwise inserts m itself, opening a
// merge proposal when m nearly duplicates a stored memory. chosen says the
// caller chose m's id (and may send the same write again).
func (db *DB) dedup(txn *badger.Txn, m *memory.Memory, chosen bool, by memory.Actor) (*memory.Memory, error) {
	if chosen {
		if prev, err := reinforcedBefore(txn, m); prev != nil || err != nil {
			return prev, err
		}
	}
	norm := memory.NormalText(m)
	same, err := sameFact(txn, m, norm, nil)
	if err != nil {
		return nil, err
	}
	if same != nil {
		out, err := db.reinforce(txn, same, m, by)
		if err != nil {
			return nil, err
		}
		if chosen {
			e := badger.NewEntry(keyDedupID(m.ID), []byte(same.ID)).WithTTL(dedupKeep)
			if err := txn.SetEntry(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	near, sim, err := nearFact(txn, m, norm)
	if err != nil {
		return nil, err
	}
	if err := db.insert(txn, m); err != nil {
		return nil, err
	}
	if err := db.event(txn, m.Project, by, memory.EventRemember, m.ID, ""); err != nil {
		return nil, err
	}
	out := m.Clone()
	if near == nil {
		return out, nil
	}
	// The reason names the memory by id, never by title, so that forgetting
	// it leaves no trace of its text (memory.Explain shows the title).
	p := &memory.Proposal{Project: m.Project, Kind: memory.ProposeMerge, Target: near.ID, Other: m.ID,
		Reason: fmt.Sprintf("says nearly the same as %s (similarity %.2f)", near.ID, sim)}
	if err := db.propose(txn, p); err != nil {
		return nil, err
	}
	out.Dedup = &memory.Dedup{Near: near.ID, Proposal: p.ID}
	if open, err := isOpen(txn, p.ID); err != nil {
		return nil, err
	} else if !open {
		out.Dedup.Proposal = "" // a person already declined this merge
	}
	return out, nil
}

// isOpen reports whether proposal id waits for a person.
func isOpen(txn *badger.Txn, id string) (bool, error) {
	p, err := getProposal(txn, id)
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return p.State == memory.ProposalOpen, nil
}

// reinforcedBefore recognises the retry of a write with a chosen id that
// reinforced a stored memory: the same answer again, without reinforcing
// twice. The answer holds while the stored memory still says the same;
// after it was edited, forgotten or archived the retry is a new write.
func reinforcedBefore(txn *badger.Txn, m *memory.Memory) (*memory.Memory, error) {
	item, err := txn.Get(keyDedupID(m.ID))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	id, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	same, err := getMem(txn, string(id))
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if same.Project != m.Project || same.Status != memory.StatusActive || memory.NormalText(same) != memory.NormalText(m) {
		return nil, nil
	}
	same.Dedup = &memory.Dedup{Reinforced: same.ID}
	return same, nil
}

// reinforce records that in says again what old says: the reinforcement
// count rises and the timeline gets the breadcrumb (who said it, from
// where). Old keeps its text, layer, kind, tags and provenance, and no new
// version is made (like Touch: the fact is the same) — unless in ranks
// higher (memory.Provenance.Rank), say a person states what an agent
// inferred: then old's provenance rises to in's and its confidence to the
// higher of the two, which is a new version with the previous one in its
// history, as an edit would be.
func (db *DB) reinforce(txn *badger.Txn, old, in *memory.Memory, by memory.Actor) (*memory.Memory, error) {
	m := old.Clone()
	m.Salience.Reinforcements++
	summary := breadcrumb(in.Source, by)
	if in.Provenance.Rank() > old.Provenance.Rank() {
		if err := put(txn, keyVersion(old.ID, old.Version), old); err != nil {
			return nil, err
		}
		m.Provenance = in.Provenance
		m.Confidence = max(old.Confidence, in.Confidence)
		m.Version = old.Version + 1
		m.UpdatedAt = db.now().UTC()
		if err := rewrite(txn, old, m); err != nil {
			return nil, err
		}
		summary += fmt.Sprintf("; provenance raised from %s to %s (version %d)", old.Provenance, m.Provenance, m.Version)
	} else if err := put(txn, keyMem(m.ID), m); err != nil { // no index entry depends on salience
		return nil, err
	}
	if err := db.event(txn, m.Project, by, memory.EventReinforce, m.ID, summary); err != nil {
		return nil, err
	}
	m.Dedup = &memory.Dedup{Reinforced: m.ID}
	return m, nil
}

// breadcrumb says who said a fact again and from where, from the parts of
// the source that are set: "said again by agent (session s1, file notes.md:12)".
func breadcrumb(s memory.Source, by memory.Actor) string {
	who := s.Actor
	if who == "" {
		who = by
	}
	if who == "" {
		who = memory.ActorUser
	}
	var where []string
	if s.Session != "" {
		where = append(where, "session "+clip(s.Session))
	}
	if s.File != "" {
		f := "file " + clip(s.File)
		if s.Line > 0 {
			f += ":" + strconv.Itoa(s.Line)
		}
		where = append(where, f)
	}
	out := "said again by " + string(who)
	if len(where) > 0 {
		out += " (" + strings.Join(where, ", ") + ")"
	}
	return out
}

// clip shortens a part of a breadcrumb: a source names its session and
// file at any length, and every reinforcement repeats them.
func clip(s string) string {
	const most = 120
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most-1]) + "…"
}

// rememberLocks serialise the writes of one normalised text (by its hash),
// so that two writers saying the same new fact at once make one memory
// and one reinforcement: Badger detects conflicts on keys read, and a
// lookup that found no index entry read none. Writes of other texts go on
// in parallel; the locks are shared by every DB of the process, which
// costs nothing but a rare wait.
var rememberLocks [64]sync.Mutex

// lockText holds the lock of m's normalised text until the returned
// function is called.
func lockText(m *memory.Memory) func() {
	h := fnv.New32a()
	h.Write([]byte(m.Project + "\x00" + memory.NormalText(m)))
	mu := &rememberLocks[h.Sum32()%uint32(len(rememberLocks))]
	mu.Lock()
	return mu.Unlock
}

// nearAnswer rebuilds what Remember said about a memory it wrote as a near
// duplicate, for the retry of that write: the open merge proposal that
// names it as the other memory.
func nearAnswer(txn *badger.Txn, m *memory.Memory) (*memory.Dedup, error) {
	for _, k := range keys(txn, prefixProposalsOf(m.ID)) {
		p, err := getProposal(txn, idFromKey(k))
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p.Kind == memory.ProposeMerge && p.Other == m.ID && p.Run == "" && p.State == memory.ProposalOpen {
			return &memory.Dedup{Near: p.Target, Proposal: p.ID}, nil
		}
	}
	return nil, nil
}

// importMatch finds the stored memory an import record without id or ref
// says again: an active memory of the project with the same normalised
// text (norm, m's), other than the import's own (skip). The import counts
// the record as that memory and reinforces it.
func importMatch(txn *badger.Txn, project string, m *memory.Memory, norm string, skip map[string]bool) (*memory.Memory, error) {
	if m.Status != memory.StatusActive {
		return nil, nil // an archived or superseded record is history, not the fact said again
	}
	probe := *m
	probe.Project = project
	return sameFact(txn, &probe, norm, skip)
}

// backfillDedup builds the deduplication indexes of a store written before
// them, once (see backfill).
func (db *DB) backfillDedup() error {
	return db.backfill(keyDedupIndexed, "1", "backfill", func(m *memory.Memory) [][]byte {
		if m.Status != memory.StatusActive {
			return nil
		}
		return dedupKeys(m)
	})
}
