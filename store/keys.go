package store

import (
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"cairn/memory"
)

// schemaVersion is written at meta/schema; Open refuses any other value.
const schemaVersion = 1

var keySchema = []byte("meta/schema")

func keyProject(pid string) []byte      { return []byte("proj/" + pid) }
func keyProjectName(name string) []byte { return []byte("pname/" + name) }
func keyMem(id string) []byte           { return []byte("mem/" + id) }
func keyVersion(id string, v int) []byte {
	return fmt.Appendf(nil, "ver/%s/%010d", id, v)
}
func prefixVersions(id string) []byte { return []byte("ver/" + id + "/") }

func prefixIdx(pid string) string      { return "idx/" + pid + "/" }
func keyAll(pid, id string) []byte     { return []byte(prefixIdx(pid) + "all/" + id) }
func prefixAll(pid string) []byte      { return []byte(prefixIdx(pid) + "all/") }
func prefixLayerAny(pid string) []byte { return []byte(prefixIdx(pid) + "ls/") }
func prefixLayer(pid string, l memory.Layer) []byte {
	return []byte(prefixIdx(pid) + "ls/" + string(l) + "/")
}
func prefixLayerStatus(pid string, l memory.Layer, s memory.Status) []byte {
	return []byte(prefixIdx(pid) + "ls/" + string(l) + "/" + statusLetter(s) + "/")
}
func prefixStatus(pid string, s memory.Status) []byte {
	return []byte(prefixIdx(pid) + "st/" + statusLetter(s) + "/")
}
func prefixTag(pid, tag string) []byte { return []byte(prefixIdx(pid) + "tag/" + tag + "\x00") }
func keyRef(pid, ref string) []byte    { return []byte(prefixIdx(pid) + "ref/" + ref + "\x00") }
func prefixHash(pid, h string) []byte  { return []byte(prefixIdx(pid) + "hash/" + h + "/") }

// The deduplication indexes hold active memories only (see dedup.go):
// their normalised text's hash, and each band of its near-duplicate signature.
func prefixNorm(pid, h string) []byte    { return []byte(prefixIdx(pid) + "norm/" + h + "/") }
func prefixBand(pid, band string) []byte { return []byte(prefixIdx(pid) + "nd/" + band + "/") }

func keyEdgeOut(e memory.Edge) []byte {
	return []byte("edge/out/" + e.From + "/" + string(e.Kind) + "/" + e.To)
}
func keyEdgeIn(e memory.Edge) []byte {
	return []byte("edge/in/" + e.To + "/" + string(e.Kind) + "/" + e.From)
}
func prefixEdgesOut(id string) []byte { return []byte("edge/out/" + id + "/") }
func prefixEdgesIn(id string) []byte  { return []byte("edge/in/" + id + "/") }

func keyEvent(pid, id string) []byte { return []byte("event/" + pid + "/" + id) }
func prefixEvents(pid string) []byte { return []byte("event/" + pid + "/") }
func keyReview(r memory.Review) []byte {
	return []byte("review/" + r.Project + "/" + r.MemoryID + "/" + r.ID)
}
func prefixReviews(pid string) []byte          { return []byte("review/" + pid + "/") }
func prefixReviewsOf(pid, memID string) []byte { return []byte("review/" + pid + "/" + memID + "/") }
func keyDraft(pid, id string) []byte           { return []byte("draft/" + pid + "/" + id) }
func prefixDrafts(pid string) []byte           { return []byte("draft/" + pid + "/") }
func prefixVectors(hash string) []byte {
	return []byte("vec/" + hash + "/")
}

// KeyVector is where recall caches the vector of a content hash.
func KeyVector(hash, embedder string) []byte { return []byte("vec/" + hash + "/" + embedder) }

// statusLetter is a status as it appears inside keys.
func statusLetter(s memory.Status) string {
	switch s {
	case memory.StatusActive:
		return "a"
	case memory.StatusArchived:
		return "r"
	case memory.StatusSuperseded:
		return "s"
	}
	return "?"
}

// idFromKey returns the id at the end of an index key (the last 26 bytes).
func idFromKey(k []byte) string {
	if len(k) < idLen {
		return ""
	}
	return string(k[len(k)-idLen:])
}

// idLen is the length of a ULID in its text form.
const idLen = 26

// indexKeys lists every index entry m needs. Ref entries hold the id; the rest are empty.
func indexKeys(m *memory.Memory) [][]byte { return indexKeysOf(m, deriveOf(m)) }

// derived is what m's index entries take from its text: worked out once,
// and ahead of the write by an import, which does it on every core.
type derived struct {
	content string   // contentHash
	normal  string   // normalHash of the normalised text; "" for no text or an inactive memory
	bands   []string // the near-duplicate signature's bands (active memories only)
}

// deriveOf works out m's derived parts.
func deriveOf(m *memory.Memory) derived {
	d := derived{content: contentHash(m)}
	if m.Status == memory.StatusActive {
		d.setNormal(memory.NormalText(m))
	}
	return d
}

func (d *derived) setNormal(norm string) {
	if norm == "" {
		return // nothing a person wrote survives normalisation: nothing to compare
	}
	d.normal, d.bands = normalHash(norm), memory.Signature(norm)
}

// indexKeysOf is indexKeys with m's derived parts at hand.
func indexKeysOf(m *memory.Memory, d derived) [][]byte {
	ks := make([][]byte, 0, 5+len(m.Tags)+len(d.bands))
	ks = append(ks,
		keyAll(m.Project, m.ID),
		append(prefixLayerStatus(m.Project, m.Layer, m.Status), m.ID...),
		append(prefixStatus(m.Project, m.Status), m.ID...),
	)
	for _, t := range m.Tags {
		ks = append(ks, append(prefixTag(m.Project, t), m.ID...))
	}
	ks = append(ks, append(prefixHash(m.Project, d.content), m.ID...))
	if isBound(m) {
		ks = append(ks, keyBound(m.Project, m.ID))
	}
	if m.Status == memory.StatusActive {
		ks = append(ks, dedupKeysOf(m, d)...)
	}
	return append(ks, verifyKeys(m)...)
}

// isBound reports whether m has a watermark that can move.
func isBound(m *memory.Memory) bool {
	for _, w := range m.Watermarks {
		if w.Kind != memory.WatermarkNone {
			return true
		}
	}
	return false
}

func keyBound(pid, id string) []byte { return []byte(prefixIdx(pid) + "wm/" + id) }
func prefixBound(pid string) []byte  { return []byte(prefixIdx(pid) + "wm/") }

// validID reports whether s is a ULID as cairn writes them: 26 characters
// of Crockford's base32 (no I, L, O or U), upper case, within the ULID's
// range.
func validID(s string) bool {
	if len(s) != idLen || strings.ToUpper(s) != s {
		return false
	}
	_, err := ulid.ParseStrict(s)
	return err == nil
}

func keyEventOfMem(mid, eid string) []byte { return []byte("evm/" + mid + "/" + eid) }
func prefixEventsOfMem(mid string) []byte  { return []byte("evm/" + mid + "/") }
func keyPurge(id string) []byte            { return []byte("purge/" + id) }

var prefixPurges = []byte("purge/")
