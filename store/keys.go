package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"cairn/memory"
)

// schemaVersion is written at meta/schema; Open refuses any other value.
const schemaVersion = 1

var keySchema = []byte("meta/schema")

// The ranges that hold every project's keys of a kind (stats, the
// subscription, the lists of projects).
var (
	prefixProjects    = []byte("proj/")
	prefixAllEdges    = []byte("edge/out/")
	prefixAllEvents   = []byte("event/")
	prefixAllDrafts   = []byte("draft/")
	prefixAllGaps     = []byte("gap/")
	prefixProposalIDs = []byte("propid/")
)

// keySubProbe is the key Subscribe writes and deletes to know Badger's
// subscriber is listening.
func keySubProbe(id string) []byte { return []byte("subprobe/" + id) }

func keyProject(pid string) []byte      { return []byte("proj/" + pid) }
func keyProjectName(name string) []byte { return []byte("pname/" + name) }
func keyProjectKey(id string) []byte    { return []byte("pkey/" + id) }
func keyMem(id string) []byte           { return []byte("mem/" + id) }
func keyVersion(id string, v int) []byte {
	return fmt.Appendf(nil, "ver/%s/%010d", id, v)
}
func prefixVersions(id string) []byte { return []byte("ver/" + id + "/") }

func prefixIdx(pid string) string      { return "idx/" + pid + "/" }
func keyAll(pid, id string) []byte     { return []byte(prefixIdx(pid) + "all/" + id) }
func prefixAll(pid string) []byte      { return []byte(prefixIdx(pid) + "all/") }
func prefixLayerAny(pid string) []byte { return []byte(prefixIdx(pid) + "ls/") }

// layerStatusOf reads the layer and status of a key of the layer index
// (idx/<pid>/ls/<L>/<s>/<id>) found under prefix (prefixLayerAny).
func layerStatusOf(key, prefix []byte) (memory.Layer, memory.Status, bool) {
	rest := key[len(prefix):] // <L>/<s>/<id>
	if len(rest) < 5 || rest[1] != '/' || rest[3] != '/' {
		return 0, "", false
	}
	return memory.Layer(rest[0]), statusFromLetter(rest[2]), true
}
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

// Keys of deduplication (dedup.go).

var keyDedupIndexed = []byte("meta/dedup-index")

func keyDedupID(chosen string) []byte { return []byte("dedupid/" + chosen) }

// Keys of drafts' events (forget.go).

// Drafts own the events of their capture through this index, so that
// dropping a draft drops them too.
func keyEventOfDraft(did, eid string) []byte { return []byte("evd/" + did + "/" + eid) }

func prefixEventsOfDraft(did string) []byte { return []byte("evd/" + did + "/") }

// Keys of the gap log (gaps.go).

func keyGap(pid, gid string) []byte { return []byte("gap/" + pid + "/" + gid) }

func prefixGaps(pid string) []byte { return []byte("gap/" + pid + "/") }

// Keys of imports (import.go).
//
//	imp/j/<import>/<batch>/<chunk>  undo journal of a batch of an unfinished import
//	imp/new/<import>/<batch>        the memories that batch added (the result's New)
//	imp/done/<import>               the commit record: when, what, and the result
var (
	prefixJournal    = []byte("imp/j/")
	prefixImportDone = []byte("imp/done/")
)

func prefixJournalOf(id string) []byte { return []byte("imp/j/" + id + "/") }

func keyJournal(id string, batch, chunk int) []byte {
	return fmt.Appendf(nil, "imp/j/%s/%08d/%04d", id, batch, chunk)
}

func keyImportNew(id string, n int) []byte {
	return fmt.Appendf(nil, "imp/new/%s/%08d", id, n)
}

func keyImportDone(id string) []byte { return []byte("imp/done/" + id) }

// Keys of ingest (ingest.go).

// keyIngest is a transcript's read position, by its path alone: which
// project it belongs to is inside the file, and the state says it.
func keyIngest(file string) []byte {
	h := sha256.Sum256([]byte(file))
	return []byte("ingest/" + hex.EncodeToString(h[:12]))
}

func keyDiary(episode string) []byte { return []byte("diary/" + episode) }

func keyDraftGone(pid, id string) []byte { return []byte("dgone/" + pid + "/" + id) }

func keyEpisodeState(episode string) []byte { return []byte("ingep/" + episode) }

// Keys of proposals (proposals.go). A proposal holds a candidate's text, so it is indexed
// under every memory and draft it names, and forgetting the one or
// dropping the other drops it (see dropProposals).
//
//	prop/<pid>/<id>        the proposal
//	propk/<pid>/<key>      its Key → id: the same proposal is not made twice
//	propm/<memory>/<id>    a memory it names (target, other)
//	propd/<draft>/<id>     the draft it came from
func keyProposal(pid, id string) []byte { return []byte("prop/" + pid + "/" + id) }

func prefixProposals(pid string) []byte { return []byte("prop/" + pid + "/") }

func keyProposalKey(pid, key string) []byte { return []byte("propk/" + pid + "/" + key) }

func keyProposalOf(mid, id string) []byte { return []byte("propm/" + mid + "/" + id) }

func prefixProposalsOf(mid string) []byte { return []byte("propm/" + mid + "/") }

func keyProposalFrom(did, id string) []byte { return []byte("propd/" + did + "/" + id) }

func prefixProposalsFrom(did string) []byte { return []byte("propd/" + did + "/") }

// keyProposalID finds a proposal by id alone: prop/<pid>/<id> needs the project.
func keyProposalID(id string) []byte { return []byte("propid/" + id) }

// Keys of consolidation runs (runs.go). A run's steps are written in batches like an
// import's, each with the journal that undoes it; the run record is the
// commit point. Unlike an import's, the journal stays after the commit: it
// is how a person undoes the run later. It names ids only; the state of a
// memory before the run changed it (its text) lives under rj/<memory>/, so
// that forgetting the memory drops it with the memory's other keys.
//
//	run/r/<run>                  the run record, without its changes: the commit point
//	run/c/<run>/<n>              its changes, in chunks
//	run/p/<pid>/<run>            the runs of a project
//	run/j/<run>/<batch>/<chunk>  the journal: how to undo each step
//	run/u/<run>                  an undo under way (finished at the next Open after a crash)
//	rj/<memory>/<run>            the memory as it was before the run changed it
var (
	prefixRunJournal = []byte("run/j/")
	prefixRunUndoing = []byte("run/u/")
)

func keyRun(id string) []byte { return []byte("run/r/" + id) }

func keyRunChanges(id string, n int) []byte { return fmt.Appendf(nil, "run/c/%s/%06d", id, n) }

func prefixRunChanges(id string) []byte { return []byte("run/c/" + id + "/") }

func keyRunOf(pid, id string) []byte { return []byte("run/p/" + pid + "/" + id) }

func prefixRunsOf(pid string) []byte { return []byte("run/p/" + pid + "/") }

func prefixRunJournalOf(id string) []byte { return []byte("run/j/" + id + "/") }

func keyRunUndoing(id string) []byte { return []byte("run/u/" + id) }

func keyFromDraft(mid string) []byte { return []byte("from/" + mid) }

func keyRunOld(mid, run string) []byte { return []byte("rj/" + mid + "/" + run) }

func prefixRunOld(mid string) []byte { return []byte("rj/" + mid + "/") }

func keyRunJournal(id string, batch, chunk int) []byte {
	return fmt.Appendf(nil, "run/j/%s/%08d/%04d", id, batch, chunk)
}

// Keys of salience (salience.go).

func keySal(id string) []byte { return []byte("sal/" + id) }

// Keys of the verify-first index (verifyq.go).

var (
	keyVerifyIndexed = []byte("meta/verify-index")
	prefixVerifyAll  = []byte("vq/")
)

func prefixVerify(pid string) []byte { return []byte("vq/" + pid + "/") }

// keyVerify is the entry of memory id, whose trust may be under the
// threshold from second sec (Unix time) on.
func keyVerify(pid string, sec int64, id string) []byte {
	return fmt.Appendf(nil, "vq/%s/%016x/%s", pid, uint64(sec), id)
}

// Keys of derived memory (derived.go): per file its record and, apart, its
// outline (what a re-index compares and summarises without reading the
// sections); per
// project the summary of the repository.
//
//	dv/<pid>/f/<path>  memory.DerivedFile
//	dv/<pid>/t/<path>  memory.Outline
//	dv/<pid>/sum       memory.RepoSummary
func prefixDerivedFiles(pid string) []byte    { return []byte("dv/" + pid + "/f/") }
func keyDerivedFile(pid, path string) []byte  { return []byte("dv/" + pid + "/f/" + path) }
func prefixDerivedStamps(pid string) []byte   { return []byte("dv/" + pid + "/t/") }
func keyDerivedStamp(pid, path string) []byte { return []byte("dv/" + pid + "/t/" + path) }
func keyRepoSummary(pid string) []byte        { return []byte("dv/" + pid + "/sum") }
