package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"regexp"
	"strings"
	"time"
	"unicode"

	"cairn/safetext"

	"golang.org/x/text/unicode/norm"
)

// Rank orders provenances by how directly a fact was known (DESIGN §5):
// a user's correction outranks what the user stated, which outranks a
// measurement, an observation, an extraction and an inference. A newer
// fact supersedes an older one on its own only when it ranks at least as
// high.
func (p Provenance) Rank() int {
	switch p {
	case ProvUserCorrected:
		return 6
	case ProvUserStated:
		return 5
	case ProvMeasured:
		return 4
	case ProvObserved:
		return 3
	case ProvExtracted:
		return 2
	case ProvInferred:
		return 1
	}
	return 0
}

// Secondhand reports whether p is a provenance whose facts cairn or an
// agent arrived at rather than a person or a measurement (the ones whose
// correction teaches a lesson).
func (p Provenance) Secondhand() bool {
	return p == ProvInferred || p == ProvExtracted || p == ProvObserved
}

// Events of consolidation and deduplication.
const (
	// EventReinforce: the same fact was written again; the memory was
	// reinforced instead of copied. The summary names the source.
	EventReinforce EventKind = "reinforce"
	// EventPropose: a proposal waits in the inbox.
	EventPropose EventKind = "propose"
	// EventDecide: a person accepted or rejected a proposal.
	EventDecide EventKind = "decide"
	// EventReopen: a decision's reason or evidence changed; it waits in
	// the verify-first queue.
	EventReopen EventKind = "reopen"
	// EventUndo: a consolidation run was undone.
	EventUndo EventKind = "undo"
)

// ProposalKind says what a proposal would do.
type ProposalKind string

// The proposal kinds.
const (
	// ProposeMerge: Memory (a candidate, or the stored memory Other) says
	// the same as Target in other words; accepting keeps one of them.
	ProposeMerge ProposalKind = "merge"
	// ProposeSupersede: Memory (a candidate, or the stored memory Other)
	// contradicts Target; accepting makes it Target's successor.
	ProposeSupersede ProposalKind = "supersede"
	// ProposeArchive: Target is weak and stale; accepting archives it.
	ProposeArchive ProposalKind = "archive"
	// ProposeRemember: an extraction cairn is not sure of; accepting
	// remembers Memory.
	ProposeRemember ProposalKind = "remember"
)

// ProposalKinds lists every proposal kind.
var ProposalKinds = []ProposalKind{ProposeMerge, ProposeSupersede, ProposeArchive, ProposeRemember}

// Valid reports whether k is a known proposal kind.
func (k ProposalKind) Valid() bool { return oneOf(k, ProposalKinds) }

// ProposalState is where a proposal stands.
type ProposalState string

// The proposal states.
const (
	ProposalOpen     ProposalState = "open"
	ProposalAccepted ProposalState = "accepted"
	ProposalRejected ProposalState = "rejected"
)

// Proposal is a change that waits for a person: consolidation and the
// write paths make them when a change is uncertain (DESIGN §5).
type Proposal struct {
	ID      string       `json:"id"`
	Project string       `json:"project"`
	Time    time.Time    `json:"time"`
	Kind    ProposalKind `json:"kind"`
	// Target is the stored memory the proposal is about (merge,
	// supersede, archive); empty for remember.
	Target string `json:"target,omitempty"`
	// Other is a second stored memory: the one that would supersede
	// Target, or be merged with it. Empty when Memory is a candidate.
	Other string `json:"other,omitempty"`
	// Memory is the candidate the proposal would write (merge and
	// supersede from a draft, remember); nil when Other names it.
	Memory *Memory       `json:"memory,omitempty"`
	Reason string        `json:"reason"`
	Run    string        `json:"run,omitempty"`   // the consolidation run that made it
	Draft  string        `json:"draft,omitempty"` // the draft it came from
	State  ProposalState `json:"state"`
	// DecidedAt and DecidedBy say when and by whom it was accepted or rejected.
	DecidedAt time.Time `json:"decided_at,omitzero"`
	DecidedBy Actor     `json:"decided_by,omitempty"`
	// Result is the memory accepting it wrote or kept.
	Result string `json:"result,omitempty"`
}

// Key identifies what a proposal is about, so the same proposal is never
// made twice (an open or a rejected one stands).
func (p *Proposal) Key() string {
	h := sha256.New()
	h.Write([]byte(string(p.Kind) + "\x00" + p.Target + "\x00" + p.Other + "\x00"))
	if p.Memory != nil {
		h.Write([]byte(NormalText(p.Memory)))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Normalize is the form in which two texts count as the same fact: case
// folded, Unicode-normalised (NFKC), punctuation dropped except where it
// is part of a value (1.5, v2, 10.0.0.1, src/a.go, 40%, -3), whitespace
// collapsed.
func Normalize(s string) string {
	s = strings.ToLower(s)
	if !ascii(s) {
		s = norm.NFKC.String(s) // plain ASCII is its own NFKC form
	}
	var b strings.Builder
	rs := []rune(s)
	space := false
	for i, r := range rs {
		keep := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !keep && strings.ContainsRune("./_-%:+#@", r) {
			// Inside a value: between two letters or digits, or a sign or
			// percent next to a digit.
			prev := i > 0 && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			next := i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1]))
			keep = prev && next || r == '%' && i > 0 && unicode.IsDigit(rs[i-1]) ||
				r == '-' && next && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && !prev
		}
		if !keep {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NormalText is the normalised text of a memory for deduplication: its
// body, with the title in front when a person chose one.
//
// A title that says nothing the body does not (derived from its first
// line, or its opening words) counts for nothing.
func NormalText(m *Memory) string {
	if strings.TrimSpace(m.Body) == "" {
		return Normalize(m.Title)
	}
	body := Normalize(m.Body)
	if m.Title == "" {
		return body
	}
	title := Normalize(m.Title)
	if strings.HasPrefix(body, title) {
		return body
	}
	return title + " " + body
}

// ascii reports whether s is plain ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// NormalHash is the key under which a memory's normalised text is indexed.
func NormalHash(m *Memory) string {
	sum := sha256.Sum256([]byte(NormalText(m)))
	return hex.EncodeToString(sum[:12])
}

// Words are the normalised words of a text, in order.
func Words(s string) []string { return strings.Fields(Normalize(s)) }

// Similarity is the Jaccard similarity of the word sets of two normalised
// texts (Normalize), from 0 (nothing shared) to 1 (the same words).
func Similarity(a, b string) float64 {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	set := make(map[string]uint8, len(wa)+len(wb))
	for _, w := range wa {
		set[w] |= 1
	}
	for _, w := range wb {
		set[w] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}

// SameValues reports whether two normalised texts (Normalize) hold the same
// values: the same words with a digit in them ("port 4000" and "port 4001"
// differ; "v2 ships" and "ships v2" agree) and the same environments and
// platforms ("port 8080" and "port 8080 in staging" differ). Texts that
// differ in a value are an update or two facts, never a near duplicate to
// merge.
func SameValues(a, b string) bool {
	values := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.Fields(s) {
			if strings.IndexFunc(w, unicode.IsDigit) >= 0 || qualifiers[w] {
				out[w] = true
			}
		}
		return out
	}
	va, vb := values(a), values(b)
	if len(va) != len(vb) {
		return false
	}
	for w := range va {
		if !vb[w] {
			return false
		}
	}
	return true
}

// qualifiers are the words that say which environment or platform a fact
// holds in: the same sentence with another of them is another fact.
var qualifiers = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`staging stage production prod dev development test testing qa uat local localhost
		ci preview sandbox demo canary beta nightly linux macos mac darwin windows win32 android ios arm64 amd64 x86`) {
		qualifiers[w] = true
	}
}

// NearDuplicate is the similarity from which two texts that are not the
// same after normalisation are proposed for merging.
const NearDuplicate = 0.75

// Band counts of the near-duplicate signature: Bands bands of BandRows
// min-hashes each. Two texts of similarity 0.75 share a band with
// probability 1-(1-0.75³)⁶ ≈ 0.96, texts of similarity 0.3 with 0.15.
const (
	Bands    = 6
	BandRows = 3
)

// Signature is the min-hash band signature of a normalised text: two texts
// that share a band are candidate near-duplicates (locality-sensitive
// hashing). Texts of fewer than three words have none.
func Signature(normal string) []string {
	ws := strings.Fields(normal)
	if len(ws) < 3 {
		return nil
	}
	var mins [Bands * BandRows]uint64
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if seen[w] || signatureStop[w] {
			continue // the words every sentence has would make every text a candidate
		}
		seen[w] = true
		h := fnv.New64a()
		h.Write([]byte(w))
		base := h.Sum64()
		for i := range mins {
			// One hash of the word, mixed with each row's seed (splitmix64):
			// as good as a hash per row, and no allocation per row.
			if v := mix(base + uint64(i+1)*0x9E3779B97F4A7C15); v < mins[i] {
				mins[i] = v
			}
		}
	}
	if len(seen) < 3 {
		return nil
	}
	out := make([]string, Bands)
	for b := range Bands {
		h := fnv.New64a()
		for r := range BandRows {
			v := mins[b*BandRows+r]
			h.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32), byte(v >> 40), byte(v >> 48), byte(v >> 56)})
		}
		out[b] = string(rune('a'+b)) + hex.EncodeToString(h.Sum(nil)[:6])
	}
	return out
}

// mix is splitmix64's finaliser: a cheap, well-spread 64-bit mix.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	return x ^ x>>31
}

// signatureStop are the words left out of a signature.
var signatureStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been of to in on at by for with from as and or
		it its this that we our you i he she they them their there has have had do does did will would can
		should so than then too very just also into about after before all any each now`) {
		signatureStop[w] = true
	}
}

// Dedup says what a write path did with a memory that was already known.
// The store sets it on the memory Remember returns; it is never stored.
type Dedup struct {
	// Reinforced is the id of the stored memory that says the same after
	// normalisation: it was reinforced, and nothing new was written.
	Reinforced string `json:"reinforced,omitempty"`
	// Near is the id of a stored memory that says nearly the same; the new
	// memory was written and Proposal (a merge) waits in the inbox.
	Near     string `json:"near,omitempty"`
	Proposal string `json:"proposal,omitempty"`
}

// Run is the record of one consolidation pass: what it changed, so that
// it can be shown and undone.
type Run struct {
	ID      string    `json:"id"`
	Project string    `json:"project"`
	Time    time.Time `json:"time"`
	Actor   Actor     `json:"actor"`
	Summary string    `json:"summary"`
	Changes []Change  `json:"changes"`
	// UndoneAt is when the run was undone; zero while it stands.
	UndoneAt time.Time `json:"undone_at,omitzero"`
}

// ChangeKind names one change of a consolidation run.
type ChangeKind string

// The change kinds.
const (
	ChangeCreate    ChangeKind = "create"    // a new memory from a draft
	ChangeSupersede ChangeKind = "supersede" // Memory superseded Target
	ChangeReinforce ChangeKind = "reinforce" // the same fact again: Target reinforced
	ChangeLesson    ChangeKind = "lesson"    // a lesson in F about Target
	ChangeReopen    ChangeKind = "reopen"    // a decision back to verify-first
	ChangePropose   ChangeKind = "propose"   // a proposal for a person
	ChangeDraftDone ChangeKind = "draft"     // a draft consolidated
	ChangeLink      ChangeKind = "link"      // an edge (because, evidence, lesson_of)
	ChangeArchive   ChangeKind = "archive"   // Target archived (an accepted proposal)
	ChangeAccept    ChangeKind = "accept"    // a proposal accepted
	ChangeReject    ChangeKind = "reject"    // a proposal rejected
)

// Change is one change of a run, in words and ids.
type Change struct {
	Kind     ChangeKind `json:"kind"`
	Memory   string     `json:"memory,omitempty"`   // the memory written or changed
	Target   string     `json:"target,omitempty"`   // the memory it acts on
	Proposal string     `json:"proposal,omitempty"` // a proposal made
	Draft    string     `json:"draft,omitempty"`
	Layer    Layer      `json:"layer,omitempty"`
	Reason   string     `json:"reason,omitempty"` // names memories by id, never by title
	// Title and TargetTitle are the titles of Memory and Target as they
	// read now: filled when a run is read or planned, never stored.
	Title       string `json:"title,omitempty"`
	TargetTitle string `json:"target_title,omitempty"`
}

// idPattern finds memory ids (ULIDs) in a stored reason.
var idPattern = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

// draftRef is a draft, a proposal or a run named in a reason: "from draft
// 01J…", "proposal 01M… waits".
var draftRef = regexp.MustCompile(`\b(?:draft|proposal|run) [0-9A-HJKMNP-TV-Z]{26}\b`)

// Explain expands the memory ids of a stored reason into quoted titles.
// Reasons hold ids, never titles, so that forgetting a memory leaves no
// trace of its text; an id lookup cannot find reads "a forgotten memory".
// The titles are neutralised for a terminal.
//
// A draft's, a proposal's or a run's id (after "draft ", "proposal ",
// "run ") names no memory: it is cut to its first ten characters, which no
// lookup is asked about, and never reads as a forgotten memory.
func Explain(s string, lookup func(id string) (title string, ok bool)) string {
	s = draftRef.ReplaceAllStringFunc(s, func(ref string) string { return ref[:strings.IndexByte(ref, ' ')+11] })
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if t, ok := lookup(id); ok {
			return "'" + safetext.CleanLine(t) + "'"
		}
		return "a forgotten memory"
	})
}
