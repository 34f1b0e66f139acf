package memory

import (
	"fmt"
	"strings"

	"cairn/safetext"
)

// Layer is one of the six layers A–F of DESIGN §2.
type Layer byte

// The six layers.
const (
	LayerInvariant Layer = 'A'
	LayerState     Layer = 'B'
	LayerEpisode   Layer = 'C'
	LayerDecision  Layer = 'D'
	LayerNegative  Layer = 'E'
	LayerMeta      Layer = 'F'
)

// Layers lists the layers in order.
var Layers = []Layer{LayerInvariant, LayerState, LayerEpisode, LayerDecision, LayerNegative, LayerMeta}

var layerNames = map[Layer]string{
	LayerInvariant: "invariant",
	LayerState:     "state",
	LayerEpisode:   "episode",
	LayerDecision:  "decision",
	LayerNegative:  "negative",
	LayerMeta:      "meta",
}

var layerTitles = map[Layer]string{
	LayerInvariant: "invariants",
	LayerState:     "working state",
	LayerEpisode:   "episodic",
	LayerDecision:  "decisions",
	LayerNegative:  "negatives",
	LayerMeta:      "meta",
}

// Valid reports whether l is one of the six layers.
func (l Layer) Valid() bool { return l >= 'A' && l <= 'F' }

// String is the layer's name ("invariant", …).
func (l Layer) String() string {
	if n, ok := layerNames[l]; ok {
		return n
	}
	return fmt.Sprintf("layer(%q)", string(l))
}

// Letter is the layer's letter ("A", …).
func (l Layer) Letter() string { return string(l) }

// Title is the layer's heading for people ("working state", …).
func (l Layer) Title() string { return layerTitles[l] }

// LayerNames lists the layer names in order.
func LayerNames() []string {
	out := make([]string, len(Layers))
	for i, l := range Layers {
		out[i] = layerNames[l]
	}
	return out
}

// ParseLayer accepts a letter A–F (any case), a name ("invariant") or its
// plural/heading form ("invariants", "episodic", "working").
func ParseLayer(s string) (Layer, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if len(t) == 1 && t[0] >= 'a' && t[0] <= 'f' {
		return Layer(t[0] - 'a' + 'A'), nil
	}
	for _, l := range Layers {
		if t == layerNames[l] || t == layerNames[l]+"s" || t == layerTitles[l] {
			return l, nil
		}
	}
	switch t {
	case "working", "episodic", "episodes", "lesson", "lessons":
		return map[string]Layer{"working": LayerState, "episodic": LayerEpisode, "episodes": LayerEpisode,
			"lesson": LayerMeta, "lessons": LayerMeta}[t], nil
	}
	return 0, fmt.Errorf("unknown layer %q: use A-F or %s", s, strings.Join(LayerNames(), ", "))
}

// MarshalText writes the layer's name; the zero Layer ("not given") is "".
func (l Layer) MarshalText() ([]byte, error) {
	if l == 0 {
		return []byte{}, nil
	}
	if !l.Valid() {
		return []byte{byte(l)}, nil // read back, it is refused with a message
	}
	return []byte(l.String()), nil
}

// UnmarshalText reads a letter or a name; "" is the zero Layer.
func (l *Layer) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*l = 0
		return nil
	}
	v, err := ParseLayer(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Kind says what sort of thing a memory is.
type Kind string

// The kinds.
const (
	KindFact       Kind = "fact"
	KindPreference Kind = "preference"
	KindProcedure  Kind = "procedure"
	KindConstraint Kind = "constraint"
	KindDecision   Kind = "decision"
	KindNegative   Kind = "negative"
	KindLesson     Kind = "lesson"
	KindEvent      Kind = "event"
	KindNote       Kind = "note"
)

// Kinds lists every kind.
var Kinds = []Kind{KindFact, KindPreference, KindProcedure, KindConstraint, KindDecision, KindNegative, KindLesson, KindEvent, KindNote}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return oneOf(k, Kinds) }

// KindNames lists the kinds.
func KindNames() []string { return names(Kinds) }

// ParseKind reads a kind.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if !k.Valid() {
		return "", fmt.Errorf("unknown kind %q: use one of %s", s, strings.Join(KindNames(), ", "))
	}
	return k, nil
}

// DefaultKind is the kind a memory gets in a layer when none is given.
func DefaultKind(l Layer) Kind {
	switch l {
	case LayerInvariant:
		return KindConstraint
	case LayerEpisode:
		return KindEvent
	case LayerDecision:
		return KindDecision
	case LayerNegative:
		return KindNegative
	case LayerMeta:
		return KindLesson
	}
	return KindFact
}

// Provenance says how a memory came to be known.
type Provenance string

// The provenances, from most to least direct.
const (
	ProvUserStated    Provenance = "user-stated"
	ProvUserCorrected Provenance = "user-corrected"
	ProvMeasured      Provenance = "measured"
	ProvObserved      Provenance = "observed"
	ProvExtracted     Provenance = "extracted"
	ProvInferred      Provenance = "inferred"
)

// Provenances lists every provenance.
var Provenances = []Provenance{ProvUserStated, ProvUserCorrected, ProvMeasured, ProvObserved, ProvExtracted, ProvInferred}

// Valid reports whether p is a known provenance.
func (p Provenance) Valid() bool { return oneOf(p, Provenances) }

// ProvenanceNames lists the provenances.
func ProvenanceNames() []string { return names(Provenances) }

// ParseProvenance reads a provenance; "user" is short for user-stated.
func ParseProvenance(s string) (Provenance, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "user", "stated":
		t = string(ProvUserStated)
	case "corrected":
		t = string(ProvUserCorrected)
	}
	p := Provenance(t)
	if !p.Valid() {
		return "", fmt.Errorf("unknown provenance %q: use one of %s", s, strings.Join(ProvenanceNames(), ", "))
	}
	return p, nil
}

// BaseConfidence is the confidence a provenance earns when none is given.
func (p Provenance) BaseConfidence() float64 {
	switch p {
	case ProvUserCorrected:
		return 0.95
	case ProvUserStated:
		return 0.9
	case ProvMeasured:
		return 0.9
	case ProvObserved:
		return 0.8
	case ProvExtracted:
		return 0.6
	case ProvInferred:
		return 0.5
	}
	return 0.5
}

// Status is a memory's life-cycle state.
type Status string

// The statuses.
const (
	StatusActive     Status = "active"
	StatusArchived   Status = "archived"
	StatusSuperseded Status = "superseded"
)

// Statuses lists every status.
var Statuses = []Status{StatusActive, StatusArchived, StatusSuperseded}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return oneOf(s, Statuses) }

// StatusNames lists the statuses.
func StatusNames() []string { return names(Statuses) }

// ParseStatus reads a status.
func ParseStatus(s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if !st.Valid() {
		return "", fmt.Errorf("unknown status %q: use one of %s", s, strings.Join(StatusNames(), ", "))
	}
	return st, nil
}

// EdgeKind is the type of a link between memories.
type EdgeKind string

// The edge kinds.
const (
	EdgeSupersedes  EdgeKind = "supersedes"
	EdgeContradicts EdgeKind = "contradicts"
	EdgeBecause     EdgeKind = "because"
	EdgeEvidence    EdgeKind = "evidence"
	EdgeDerivedFrom EdgeKind = "derived_from"
	EdgeDependsOn   EdgeKind = "depends_on"
	EdgeRelatesTo   EdgeKind = "relates_to"
	EdgeLessonOf    EdgeKind = "lesson_of"
)

// EdgeKinds lists every edge kind.
var EdgeKinds = []EdgeKind{EdgeSupersedes, EdgeContradicts, EdgeBecause, EdgeEvidence, EdgeDerivedFrom, EdgeDependsOn, EdgeRelatesTo, EdgeLessonOf}

// Valid reports whether k is a known edge kind.
func (k EdgeKind) Valid() bool { return oneOf(k, EdgeKinds) }

// EdgeKindNames lists the edge kinds.
func EdgeKindNames() []string { return names(EdgeKinds) }

// ParseEdgeKind reads an edge kind; dashes may stand for underscores.
func ParseEdgeKind(s string) (EdgeKind, error) {
	k := EdgeKind(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	if !k.Valid() {
		return "", fmt.Errorf("unknown link kind %q: use one of %s", s, strings.Join(EdgeKindNames(), ", "))
	}
	return k, nil
}

// Actor says who caused an event.
type Actor string

// The actors.
const (
	ActorUser   Actor = "user"
	ActorAgent  Actor = "agent"
	ActorSystem Actor = "system"
)

// Valid reports whether a is a known actor.
func (a Actor) Valid() bool { return a == ActorUser || a == ActorAgent || a == ActorSystem }

// EventKind names a mutation on the timeline.
type EventKind string

// The event kinds.
const (
	EventRemember    EventKind = "remember"
	EventEdit        EventKind = "edit"
	EventSupersede   EventKind = "supersede"
	EventArchive     EventKind = "archive"
	EventUnarchive   EventKind = "unarchive"
	EventForget      EventKind = "forget"
	EventVerify      EventKind = "verify"
	EventLink        EventKind = "link"
	EventConsolidate EventKind = "consolidate"
	EventImport      EventKind = "import"
	EventCapture     EventKind = "capture"
	// EventReinstate: a superseded memory is current again because the
	// memory that superseded it was forgotten.
	EventReinstate EventKind = "reinstate"
	// EventDropDraft: a draft was deleted for good (it names nothing of it).
	EventDropDraft EventKind = "drop-draft"
	// EventGap: recall could not answer a question. Only Subscribe sends
	// it (the gap log is not on the timeline): a workbench shows the gap.
	EventGap EventKind = "gap"
	// EventIndex: the repository was indexed again and its derived memory
	// changed (see Deriver).
	EventIndex EventKind = "index"
)

// WatermarkKind is the closed set of referents a fact may be bound to.
type WatermarkKind string

// The watermark kinds.
const (
	WatermarkFile WatermarkKind = "file"
	WatermarkGit  WatermarkKind = "git"
	WatermarkFlag WatermarkKind = "flag"
	WatermarkNone WatermarkKind = "none"
)

// WatermarkState is the outcome of the last comparison of a fingerprint.
type WatermarkState string

// The watermark states. Unchecked: bound, no fingerprint taken yet.
const (
	WatermarkUnchecked WatermarkState = "unchecked"
	WatermarkIntact    WatermarkState = "intact"
	WatermarkMoved     WatermarkState = "moved"
	WatermarkGone      WatermarkState = "gone"
	WatermarkUnbound   WatermarkState = "unbound"
)

// ParseBinding reads a --bind spec: file:PATH, git:SCOPE (SCOPE may be
// empty for the whole repository), flag:NAME or none.
func ParseBinding(spec string) (Watermark, error) {
	s := strings.TrimSpace(spec)
	if s == "none" {
		return Watermark{Kind: WatermarkNone, State: WatermarkUnbound}, nil
	}
	kind, target, ok := strings.Cut(s, ":")
	w := Watermark{Kind: WatermarkKind(kind), Target: strings.TrimSpace(target), State: WatermarkUnchecked}
	if !ok {
		return Watermark{}, fmt.Errorf("invalid binding %q: use file:PATH, git:SCOPE, flag:NAME or none", spec)
	}
	return w, w.Validate()
}

// Validate checks a watermark's kind and target.
func (w Watermark) Validate() error {
	if err := safetext.Check("binding target", w.Target); err != nil {
		return err
	}
	switch w.Kind {
	case WatermarkFile, WatermarkFlag:
		if w.Target == "" || strings.ContainsAny(w.Target, "\x00\n") {
			return fmt.Errorf("invalid binding %s:%q: it needs a target", w.Kind, w.Target)
		}
	case WatermarkGit:
		if strings.ContainsAny(w.Target, "\x00\n") {
			return fmt.Errorf("invalid binding git:%q", w.Target)
		}
	case WatermarkNone:
	default:
		return fmt.Errorf("invalid binding kind %q: use file, git, flag or none", w.Kind)
	}
	switch w.State {
	case WatermarkUnchecked, WatermarkIntact, WatermarkMoved, WatermarkGone, WatermarkUnbound:
	default:
		return fmt.Errorf("invalid watermark state %q", w.State)
	}
	if len(w.Fingerprint) > maxFingerprint || strings.IndexFunc(w.Fingerprint, notFingerprint) >= 0 {
		return fmt.Errorf("invalid fingerprint of binding %s: a fingerprint is a short hash (sha256:…, commit:… tree:…) — drop it and cairn stamps the binding anew", w.Spec())
	}
	return nil
}

// maxFingerprint bounds a fingerprint: cairn's are under 100 bytes.
const maxFingerprint = 200

// notFingerprint is a character no fingerprint cairn makes holds: they are
// hashes with a kind prefix, fields separated by a space.
func notFingerprint(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":+/=._- ", r))
}

// Spec is the binding written as --bind takes it.
func (w Watermark) Spec() string {
	if w.Kind == WatermarkNone {
		return "none"
	}
	return string(w.Kind) + ":" + w.Target
}

func oneOf[T comparable](v T, set []T) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

func names[T ~string](set []T) []string {
	out := make([]string, len(set))
	for i, s := range set {
		out[i] = string(s)
	}
	return out
}
