// Package memory holds cairn's domain model: memories, their layers, kinds,
// provenance and status, typed edges, timeline events and capture drafts.
// It knows nothing of storage or presentation; store, recall, the CLI and
// the workbench all speak in these types.
package memory

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"cairn/safetext"
)

// Memory is one remembered thing. Fields follow DESIGN §2.
type Memory struct {
	ID           string      `json:"id"`
	Ref          string      `json:"ref,omitempty"`
	Project      string      `json:"project"` // project id (see Project); the public JSON shows the name
	Layer        Layer       `json:"layer"`
	Kind         Kind        `json:"kind"`
	Title        string      `json:"title"`
	Body         string      `json:"body"`
	Tags         []string    `json:"tags,omitempty"`
	Provenance   Provenance  `json:"provenance"`
	Confidence   float64     `json:"confidence"`
	Source       Source      `json:"source,omitzero"`
	CreatedAt    time.Time   `json:"created_at"`
	UpdatedAt    time.Time   `json:"updated_at"`
	ValidFrom    time.Time   `json:"valid_from"`
	ValidUntil   time.Time   `json:"valid_until,omitzero"`
	Status       Status      `json:"status"`
	Supersedes   []string    `json:"supersedes,omitempty"`
	SupersededBy string      `json:"superseded_by,omitempty"`
	Watermarks   []Watermark `json:"watermarks,omitempty"`
	// RejectedAt is when a reviewer said the fact no longer holds; until it
	// is superseded, corrected in place or confirmed, it is not served.
	RejectedAt time.Time `json:"rejected_at,omitzero"`
	// ReopenedAt is when consolidation found that a reason or evidence of
	// this decision changed (Reopened says how); until a person confirms,
	// corrects or supersedes it, it waits in the verify-first queue.
	ReopenedAt time.Time `json:"reopened_at,omitzero"`
	Reopened   string    `json:"reopened,omitempty"`
	Triggers   []string  `json:"triggers,omitempty"`
	Salience   Salience  `json:"salience,omitzero"`
	Version    int       `json:"version"`
	// Dedup is set only on the memory Remember returns, to say that the
	// write was folded into a memory already stored; it is never stored.
	Dedup *Dedup `json:"dedup,omitempty"`
}

// Source says who or what wrote a memory and from where.
type Source struct {
	Actor   Actor  `json:"actor,omitempty"`
	Session string `json:"session,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	// Message names the messages of an agent's transcript it came from.
	Message string `json:"message,omitempty"`
}

// Salience is retrievability: it rises with use and decays with disuse.
// It never says anything about whether a memory is true.
type Salience struct {
	AccessCount    int         `json:"access_count,omitempty"`
	Accesses       []time.Time `json:"accesses,omitempty"` // most recent last, at most MaxAccesses
	Reinforcements int         `json:"reinforcements,omitempty"`
	// Feedback is what agents and people said about the memory after a
	// recall: helpful or not, for which query (most recent last, at most
	// MaxFeedback). It moves salience for similar queries, never trust.
	Feedback []Feedback `json:"feedback,omitempty"`
}

// AddAccess counts one access at t, keeping the last MaxAccesses times.
func AddAccess(s *Salience, t time.Time) {
	s.AccessCount++
	s.Accesses = append(slices.Clone(s.Accesses), t)
	if n := len(s.Accesses); n > MaxAccesses {
		s.Accesses = s.Accesses[n-MaxAccesses:]
	}
}

// Feedback says whether a recalled memory helped with a query.
type Feedback struct {
	Query   string    `json:"query"`
	Helpful bool      `json:"helpful"`
	At      time.Time `json:"at"`
	Actor   Actor     `json:"actor,omitempty"`
}

// MaxAccesses bounds the access history kept per memory; MaxFeedback the
// feedback kept.
const (
	MaxAccesses = 16
	MaxFeedback = 16
)

// Gap is a question recall could not answer well: nothing above the
// floor, or only weak hits. Asking it again counts; a memory that answers
// it closes it.
type Gap struct {
	ID      string    `json:"id"` // from the normalised query: the same question is one gap
	Project string    `json:"project"`
	Query   string    `json:"query"`
	Best    float64   `json:"best"` // the best score recall had (0: nothing)
	Count   int       `json:"count"`
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
}

// Watermark binds a memory to something observable in the world.
type Watermark struct {
	Kind        WatermarkKind  `json:"kind"`
	Target      string         `json:"target,omitempty"`
	Fingerprint string         `json:"fingerprint,omitempty"`
	State       WatermarkState `json:"state"`
	StampedAt   time.Time      `json:"stamped_at,omitzero"`
	// MovedAt is when a wake check first found the referent moved or gone
	// (zero while it holds): what reopens a decision resting on this memory.
	MovedAt time.Time `json:"moved_at,omitzero"`
}

// Edge is a typed, directed link between two memories.
type Edge struct {
	From      string    `json:"from"`
	Kind      EdgeKind  `json:"kind"`
	To        string    `json:"to"`
	Weight    float64   `json:"weight"`
	CreatedAt time.Time `json:"created_at"`
	Active    bool      `json:"active"`
}

// Event is one entry of a project's timeline. A forget event names the id
// that was deleted and never its content.
type Event struct {
	ID       string    `json:"id"`
	Project  string    `json:"project"`
	Time     time.Time `json:"time"`
	Actor    Actor     `json:"actor"`
	Kind     EventKind `json:"kind"`
	MemoryID string    `json:"memory_id,omitempty"`
	Summary  string    `json:"summary"`
	// Title is the memory's current title, filled when the timeline is read
	// (never stored, so forgetting a memory leaves no title behind).
	Title string `json:"title,omitempty"`
}

// Draft is raw captured text waiting for consolidation.
type Draft struct {
	ID      string    `json:"id"`
	Project string    `json:"project"`
	Time    time.Time `json:"time"`
	Actor   Actor     `json:"actor"`
	Source  Source    `json:"source,omitzero"`
	Text    string    `json:"text"`
	// Done is the consolidation run that turned the draft into memories,
	// DoneAt when; a done draft is kept (for undo) until a person drops it.
	Done   string    `json:"done,omitempty"`
	DoneAt time.Time `json:"done_at,omitzero"`
}

// Waiting are the drafts no consolidation run has taken yet.
func Waiting(ds []Draft) []Draft {
	var out []Draft
	for _, d := range ds {
		if d.Done == "" {
			out = append(out, d)
		}
	}
	return out
}

// Project is a scope of memories: a git repository, a named scope, or global.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Root is the work tree the project is used from: the checkout the
	// caller is in, or the first one seen.
	Root      string    `json:"root,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Keys are what a repository is known by, "kind:id" (the first
	// commit, the common git directory, a checkout's path; see package
	// project): every checkout, worktree or clone that has one of them
	// is this project.
	Keys []string `json:"keys,omitempty"`
	// Seen is where the project was used from, the most recent first.
	Seen []Sighting `json:"seen,omitempty"`
}

// Sighting is a checkout a project was used from, and when last.
type Sighting struct {
	Path     string    `json:"path"`
	LastSeen time.Time `json:"last_seen"`
}

// GlobalID is the id of the user-wide scope; GlobalName its name.
const (
	GlobalID   = "0000000000000000"
	GlobalName = "global"
)

// Text is the memory's searchable and scannable content: title and body.
func (m *Memory) Text() string {
	if m.Title == "" {
		return m.Body
	}
	return m.Title + "\n\n" + m.Body
}

// Clone returns a deep copy.
func (m *Memory) Clone() *Memory {
	c := *m
	c.Tags = slices.Clone(m.Tags)
	c.Supersedes = slices.Clone(m.Supersedes)
	c.Watermarks = slices.Clone(m.Watermarks)
	c.Triggers = slices.Clone(m.Triggers)
	c.Salience.Accesses = slices.Clone(m.Salience.Accesses)
	c.Salience.Feedback = slices.Clone(m.Salience.Feedback)
	if m.Dedup != nil {
		d := *m.Dedup
		c.Dedup = &d
	}
	return &c
}

// Limits on what a memory may hold; beyond them a write is refused.
const (
	MaxTitle = 200
	MaxBody  = 64 << 10
	MaxTags  = 32
	MaxTag   = 64
	MaxRef   = 200
)

// Validate checks a memory's own fields. It does not look at the store.
//
// Short fields (title, ref, tags, triggers, binding targets, source) may
// hold no character that acts on a terminal and must be valid UTF-8; the
// body must be valid UTF-8 and may hold control characters (pasted
// terminal output), which every display neutralises.
func (m *Memory) Validate() error {
	if strings.TrimSpace(m.Body) == "" && strings.TrimSpace(m.Title) == "" {
		return fmt.Errorf("memory is empty: give it a text or a --title")
	}
	if !m.Layer.Valid() {
		return fmt.Errorf("invalid layer %q: use A-F or %s", string(m.Layer), strings.Join(LayerNames(), ", "))
	}
	if !m.Kind.Valid() {
		return fmt.Errorf("invalid kind %q: use one of %s", m.Kind, strings.Join(KindNames(), ", "))
	}
	if !m.Provenance.Valid() {
		return fmt.Errorf("invalid provenance %q: use one of %s", m.Provenance, strings.Join(ProvenanceNames(), ", "))
	}
	if !m.Status.Valid() {
		return fmt.Errorf("invalid status %q: use one of %s", m.Status, strings.Join(StatusNames(), ", "))
	}
	if err := ValidConfidence(m.Confidence); err != nil {
		return err
	}
	if n := len([]rune(m.Title)); n > MaxTitle {
		return fmt.Errorf("title is %d characters long: keep it under %d", n, MaxTitle)
	}
	if strings.ContainsAny(m.Title, "\n\r") {
		return fmt.Errorf("title spans several lines: keep it to one line and put the rest in the body")
	}
	if err := safetext.Check("title", m.Title); err != nil {
		return err
	}
	if len(m.Body) > MaxBody {
		return fmt.Errorf("body is %d bytes: keep it under %d (split it into several memories)", len(m.Body), MaxBody)
	}
	if err := safetext.Valid("body", m.Body); err != nil {
		return err
	}
	if err := safetext.Check("ref", m.Ref); err != nil {
		return err
	}
	if len(m.Ref) > MaxRef || strings.ContainsAny(m.Ref, "\n") {
		return fmt.Errorf("invalid ref %q: one line, under %d characters", m.Ref, MaxRef)
	}
	if len(m.Tags) > MaxTags {
		return fmt.Errorf("%d tags: use at most %d", len(m.Tags), MaxTags)
	}
	for _, t := range m.Tags {
		if err := ValidTag(t); err != nil {
			return err
		}
	}
	for _, t := range m.Triggers {
		if err := safetext.Check("trigger", t); err != nil {
			return err
		}
		if err := ValidTrigger(t); err != nil {
			return err
		}
	}
	for _, w := range m.Watermarks {
		if err := w.Validate(); err != nil {
			return err
		}
	}
	if err := m.Source.Validate(); err != nil {
		return err
	}
	if err := ValidReason(m.Reopened); err != nil {
		return err
	}
	if m.Version < 1 {
		return fmt.Errorf("invalid version %d: versions start at 1", m.Version)
	}
	return nil
}

// ValidConfidence refuses a base confidence outside 0..1. NaN compares
// false with everything, so it is named: stored, it breaks every encoder.
func ValidConfidence(c float64) error {
	if math.IsNaN(c) || c < 0 || c > 1 {
		return fmt.Errorf("confidence %v out of range: use a number from 0 to 1", c)
	}
	return nil
}

// ValidWeight refuses a link weight that is not a number above 0 and at
// most 1 (NaN and infinities included).
func ValidWeight(w float64) error {
	if math.IsNaN(w) || w <= 0 || w > 1 {
		return fmt.Errorf("weight %v out of range: use a number above 0 and at most 1", w)
	}
	return nil
}

// Validate checks where a write came from: names, never control characters.
func (s Source) Validate() error {
	if err := safetext.Check("source session", s.Session); err != nil {
		return err
	}
	if err := safetext.Check("source file", s.File); err != nil {
		return err
	}
	if len(s.Message) > MaxRef {
		return fmt.Errorf("source message ids are %d bytes: at most %d", len(s.Message), MaxRef)
	}
	return safetext.Check("source message", s.Message)
}

// Validate checks an edge's own fields: a known kind, a weight in range
// and ends that are plain ids.
func (e Edge) Validate() error {
	if !e.Kind.Valid() {
		return fmt.Errorf("unknown link kind %q: use one of %s", e.Kind, strings.Join(EdgeKindNames(), ", "))
	}
	if err := ValidWeight(e.Weight); err != nil {
		return err
	}
	if err := safetext.Check("link source", e.From); err != nil {
		return err
	}
	return safetext.Check("link target", e.To)
}

// Validate checks a draft's own fields: the text must be valid UTF-8 (it
// may hold pasted terminal output, neutralised on display); where it came
// from is a name.
func (d Draft) Validate() error {
	if err := safetext.Valid("text", d.Text); err != nil {
		return err
	}
	return d.Source.Validate()
}

// ValidReason checks the reason given for an archive or a review: one
// line of text shown on the timeline.
func ValidReason(reason string) error {
	if len(reason) > MaxReason {
		return fmt.Errorf("reason is %d bytes: give at most %d, one line", len(reason), MaxReason)
	}
	return safetext.Check("reason", reason)
}

// MaxReason bounds a reason: it is one line on the timeline.
const MaxReason = 1000

// ValidTag reports whether t can be used as a tag.
func ValidTag(t string) error {
	if err := safetext.Check("tag", t); err != nil {
		return err
	}
	if t == "" || len(t) > MaxTag || strings.ContainsAny(t, "\x00 \t\n\r,") {
		return fmt.Errorf("invalid tag %q: a tag is one word of at most %d characters, no spaces or commas", t, MaxTag)
	}
	return nil
}

// NormalizeTags lower-cases, trims, sorts and deduplicates tags.
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// DeriveTitle makes a one-line title from a body when none was given.
// A body may hold control characters; its title shows them as visible
// stand-ins, since a title is a short field that may not hold them.
func DeriveTitle(body string) string {
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(safetext.CleanLine(line)), "#>*- "))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > 80 {
			cut := strings.LastIndexByte(string(r[:80]), ' ')
			if cut < 40 {
				cut = len(string(r[:80]))
			}
			return strings.TrimSpace(string(r[:80])[:cut]) + "…"
		}
		return line
	}
	return ""
}

// TitleDerived reports whether m's title is the one its body gives, so that
// an edit of the body should give it a new one. A title a person chose
// differs from the derivation (or there was no body to derive it from);
// one that happens to equal it follows the text, which is what it says.
func (m *Memory) TitleDerived() bool {
	return m.Title != "" && m.Title == DeriveTitle(m.Body)
}

// Matches reports whether every word of filter (case folded) occurs in the
// memory's title, kind, tags or body: the workbench's list filter, asked of
// the loaded rows at once and of the store for the rest of a big layer.
func Matches(m *Memory, filter string) bool {
	words := strings.Fields(strings.ToLower(filter))
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(m.Title + " " + string(m.Kind) + " " + strings.Join(m.Tags, " ") + " " + m.Body)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Scope is what a project reads: its own memories and the global ones
// (the global scope alone for global itself).
func Scope(project string) []string {
	if project == GlobalID {
		return []string{project}
	}
	return []string{project, GlobalID}
}
