package memory

import (
	"slices"
	"time"
)

// Record is the public JSON form of a memory: what `--json` prints, what
// JSON Lines export writes and import reads. Unlike Memory it names the
// project, carries the computed trust and lists the memory's outgoing edges.
type Record struct {
	ID           string       `json:"id,omitempty"`
	Ref          string       `json:"ref,omitempty"`
	Project      string       `json:"project,omitempty"`
	Layer        Layer        `json:"layer"`
	Kind         Kind         `json:"kind,omitempty"`
	Title        string       `json:"title,omitempty"`
	Body         string       `json:"body"`
	Tags         []string     `json:"tags"`
	Provenance   Provenance   `json:"provenance,omitempty"`
	Confidence   float64      `json:"confidence,omitempty"`
	Trust        float64      `json:"trust"`
	Status       Status       `json:"status,omitempty"`
	Source       Source       `json:"source,omitzero"`
	CreatedAt    time.Time    `json:"created_at,omitzero"`
	UpdatedAt    time.Time    `json:"updated_at,omitzero"`
	ValidFrom    time.Time    `json:"valid_from,omitzero"`
	ValidUntil   *time.Time   `json:"valid_until"`
	Supersedes   []string     `json:"supersedes"`
	SupersededBy string       `json:"superseded_by"`
	Watermarks   []Watermark  `json:"watermarks"`
	RejectedAt   *time.Time   `json:"rejected_at,omitempty"`
	ReopenedAt   *time.Time   `json:"reopened_at,omitempty"`
	Reopened     string       `json:"reopened,omitempty"`
	Triggers     []string     `json:"triggers,omitempty"`
	Salience     Salience     `json:"salience,omitzero"`
	Version      int          `json:"version,omitempty"`
	Edges        []RecordEdge `json:"edges,omitempty"`
	// History is the memory's earlier versions, oldest first, each a
	// record without edges or history of its own. An export writes it so
	// that an import into a fresh store keeps the edit history.
	History []Record `json:"history,omitempty"`
	// Event, on a record of its own that holds nothing else, is one entry
	// of the project's timeline (an export's {"event": …} lines). An
	// import writes it as it was, once.
	Event *Event `json:"event,omitempty"`
}

// RecordEdge is an outgoing edge as a Record lists it.
type RecordEdge struct {
	Kind      EdgeKind  `json:"kind"`
	To        string    `json:"to"`
	Weight    float64   `json:"weight,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	Active    *bool     `json:"active,omitempty"` // absent means active
}

// Trust is how likely a memory still holds, now: see TrustAt.
func Trust(m *Memory) float64 { return TrustAt(m, time.Now()) }

// TrustAt is base confidence × the factor of the memory's watermarks ×, only
// for a memory bound to nothing observable, a weak time factor. Salience
// never enters it.
//
// A watermark that moved lowers trust by how close the change is to the
// fact: the bound file itself (0.35) or flag (0.4) more than a directory's
// history (0.5), and that more than the whole repository's (0.75); a gone
// referent lowers it most (0.2). With several watermarks the worst counts.
// A fact a reviewer rejected has no trust until it is corrected.
// Unbound facts keep full trust for 60 days after their last confirmation,
// then drift down to 0.9 at a year and 0.8 at two: a nudge to re-confirm
// that alone never takes a user-stated fact below the serving threshold
// within a year.
func TrustAt(m *Memory, now time.Time) float64 {
	if !m.RejectedAt.IsZero() {
		return 0 // a reviewer said it no longer holds
	}
	if !m.ReopenedAt.IsZero() {
		return min(m.Confidence, 1) * 0.4 // its reason or evidence changed: verify first
	}
	factor, bound := 1.0, false
	confirmed := m.UpdatedAt
	for _, w := range m.Watermarks {
		if w.Kind == WatermarkNone {
			if w.StampedAt.After(confirmed) {
				confirmed = w.StampedAt
			}
			continue
		}
		bound = true
		f := 1.0
		switch w.State {
		case WatermarkMoved:
			switch {
			case w.Kind == WatermarkFile:
				f = 0.35
			case w.Kind == WatermarkFlag:
				f = 0.4
			case w.Kind == WatermarkGit && w.Target == "":
				f = 0.75
			default:
				f = 0.5
			}
		case WatermarkGone:
			f = 0.2
		}
		factor = min(factor, f)
	}
	if !bound && !confirmed.IsZero() {
		days := now.Sub(confirmed).Hours() / 24
		switch {
		case days > 365:
			factor *= max(0.8, 0.9-0.1*(days-365)/365)
		case days > 60:
			factor *= 1 - 0.1*(days-60)/305
		}
	}
	return m.Confidence * factor
}

// ToRecord builds the public form of m; projectName names m.Project and
// out are m's outgoing edges.
func ToRecord(m *Memory, projectName string, out []Edge) Record {
	r := Record{
		ID: m.ID, Ref: m.Ref, Project: projectName, Layer: m.Layer, Kind: m.Kind,
		Title: m.Title, Body: m.Body, Tags: nonNil(m.Tags), Provenance: m.Provenance,
		Confidence: m.Confidence, Trust: Trust(m), Status: m.Status, Source: m.Source,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, ValidFrom: m.ValidFrom,
		Supersedes: nonNil(m.Supersedes), SupersededBy: m.SupersededBy,
		Watermarks: nonNil(m.Watermarks), Triggers: slices.Clone(m.Triggers),
		Salience: m.Salience, Version: m.Version,
	}
	if !m.ValidUntil.IsZero() {
		t := m.ValidUntil
		r.ValidUntil = &t
	}
	if !m.RejectedAt.IsZero() {
		t := m.RejectedAt
		r.RejectedAt = &t
	}
	if !m.ReopenedAt.IsZero() {
		t := m.ReopenedAt
		r.ReopenedAt, r.Reopened = &t, m.Reopened
	}
	for _, e := range out {
		re := RecordEdge{Kind: e.Kind, To: e.To, Weight: e.Weight, CreatedAt: e.CreatedAt}
		if !e.Active {
			f := false
			re.Active = &f
		}
		r.Edges = append(r.Edges, re)
	}
	return r
}

// ToMemory builds a memory from a record, filling what the record leaves
// out with defaults (kind from layer, provenance user-stated, its base
// confidence, status active, version 1). Times and id stay as given; the
// store fills empty ones. The edges are returned apart.
func (r Record) ToMemory(project string) (*Memory, []Edge) {
	m := &Memory{
		ID: r.ID, Ref: r.Ref, Project: project, Layer: r.Layer, Kind: r.Kind,
		Title: r.Title, Body: r.Body, Tags: NormalizeTags(r.Tags), Provenance: r.Provenance,
		Confidence: r.Confidence, Source: r.Source, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		ValidFrom: r.ValidFrom, Status: r.Status, Supersedes: slices.Clone(r.Supersedes),
		SupersededBy: r.SupersededBy, Watermarks: slices.Clone(r.Watermarks),
		Triggers: slices.Clone(r.Triggers), Salience: r.Salience, Version: r.Version,
	}
	if r.ValidUntil != nil {
		m.ValidUntil = *r.ValidUntil
	}
	if r.RejectedAt != nil {
		m.RejectedAt = *r.RejectedAt
	}
	if r.ReopenedAt != nil {
		m.ReopenedAt, m.Reopened = *r.ReopenedAt, r.Reopened
	}
	if len(m.Tags) == 0 {
		m.Tags = nil
	}
	if len(m.Supersedes) == 0 {
		m.Supersedes = nil
	}
	if len(m.Watermarks) == 0 {
		m.Watermarks = nil
	}
	if m.Kind == "" && m.Layer.Valid() {
		m.Kind = DefaultKind(m.Layer)
	}
	if m.Provenance == "" {
		m.Provenance = ProvUserStated
	}
	if m.Confidence == 0 {
		m.Confidence = m.Provenance.BaseConfidence()
	}
	if m.Status == "" {
		m.Status = StatusActive
	}
	if m.Version == 0 {
		m.Version = 1
	}
	if m.Title == "" {
		m.Title = DeriveTitle(m.Body)
	}
	var edges []Edge
	for _, e := range r.Edges {
		w := e.Weight
		if w == 0 {
			w = 1
		}
		edges = append(edges, Edge{From: r.ID, Kind: e.Kind, To: e.To, Weight: w, CreatedAt: e.CreatedAt, Active: e.Active == nil || *e.Active})
	}
	return m, edges
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}
