package exchange

import (
	"encoding/json"
	"testing"
	"time"

	"cairn/memory"
)

// everyField is a memory with every field the frontmatter writes set, so
// that each of frontFields' choices shows in a file.
func everyField() memory.Record {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	later, until := at.Add(time.Hour), at.Add(48*time.Hour)
	off := false
	return memory.Record{
		ID: "01JD0000000000000000000AAA", Ref: "decisions/park", Project: "bench", Layer: memory.LayerDecision,
		Kind: memory.KindDecision, Title: "Park MTP", Body: "  because MoE  \n", Tags: []string{"perf", "moe"},
		Provenance: memory.ProvMeasured, Confidence: 0.8, Status: memory.StatusActive,
		Source:    memory.Source{Actor: memory.ActorAgent, Session: "s1", File: "bench.go", Line: 41, Message: "m7-m9"},
		CreatedAt: at, UpdatedAt: later, ValidFrom: at, ValidUntil: &until,
		Supersedes: []string{"01JD0000000000000000000CCC"}, SupersededBy: "01JD0000000000000000000DDD",
		Watermarks: []memory.Watermark{
			{Kind: memory.WatermarkFile, Target: "bench.go", Fingerprint: "abc", State: memory.WatermarkIntact, StampedAt: at, MovedAt: later},
			{Kind: memory.WatermarkNone, State: memory.WatermarkUnbound},
		},
		RejectedAt: &later, ReopenedAt: &later, Reopened: "its evidence moved", Triggers: []string{"bench"},
		Version: 2,
		Edges: []memory.RecordEdge{
			{Kind: memory.EdgeBecause, To: "01JD0000000000000000000BBB", Weight: 0.5, CreatedAt: at, Active: &off},
			{Kind: memory.EdgeEvidence, To: "01JD0000000000000000000EEE", Weight: 1},
		},
		History: []memory.Record{{Ref: "decisions/park", Layer: memory.LayerState, Kind: memory.KindFact, Title: "old",
			Body: " old body \n", Version: 1, CreatedAt: at, UpdatedAt: at, Tags: []string{"old"}, Status: memory.StatusActive,
			Provenance: memory.ProvMeasured, SupersededBy: "x"}},
	}
}

// Each profile writes exactly its fields, in its order: a Full file every
// field of the memory (source with its line and messages, watermark states and when one moved, the times
// of a rejection and a reopening, edges with their weight and whether they
// are historical, history entries led by version, time and title); a Team
// file only what the team shares, its tags sorted, its history entries
// what they said and when, trimmed. An empty memory writes only what every
// file has: a title (and, in the team's file, a layer).
func TestFrontmatterFieldsByProfile(t *testing.T) {
	t.Parallel()
	full := `---
id: "01JD0000000000000000000AAA"
ref: "decisions/park"
project: "bench"
title: "Park MTP"
layer: "D"
kind: "decision"
provenance: "measured"
confidence: 0.8
status: "active"
source:
  actor: "agent"
  session: "s1"
  file: "bench.go"
  line: 41
  message: "m7-m9"
tags:
- "perf"
- "moe"
watermarks:
- kind: "file"
  target: "bench.go"
  fingerprint: "abc"
  state: "intact"
  stamped_at: "2026-03-02T10:00:00Z"
  moved_at: "2026-03-02T11:00:00Z"
- kind: "none"
  state: "unbound"
triggers:
- "bench"
valid_from: "2026-03-02T10:00:00Z"
valid_until: "2026-03-04T10:00:00Z"
supersedes:
- "01JD0000000000000000000CCC"
superseded_by: "01JD0000000000000000000DDD"
rejected_at: "2026-03-02T11:00:00Z"
reopened_at: "2026-03-02T11:00:00Z"
reopened: "its evidence moved"
version: 2
created: "2026-03-02T10:00:00Z"
updated: "2026-03-02T11:00:00Z"
edges:
- kind: "because"
  to: "01JD0000000000000000000BBB"
  weight: 0.5
  historical: true
  created_at: "2026-03-02T10:00:00Z"
- kind: "evidence"
  to: "01JD0000000000000000000EEE"
history:
- version: 1
  updated: "2026-03-02T10:00:00Z"
  title: "old"
  body: " old body \n"
  ref: "decisions/park"
  layer: "B"
  kind: "fact"
  provenance: "measured"
  status: "active"
  tags:
  - "old"
  superseded_by: "x"
  created: "2026-03-02T10:00:00Z"
---

  because MoE  

`
	team := `---
id: 01JD0000000000000000000AAA
title: Park MTP
layer: D
kind: decision
provenance: measured
status: active
tags:
- moe
- perf
watermarks:
- kind: file
  target: bench.go
- kind: none
triggers:
- bench
valid_from: "2026-03-02T10:00:00Z"
valid_until: "2026-03-04T10:00:00Z"
supersedes:
- 01JD0000000000000000000CCC
superseded_by: 01JD0000000000000000000DDD
version: 2
created: "2026-03-02T10:00:00Z"
history:
- version: 1
  updated: "2026-03-02T10:00:00Z"
  title: old
  body: old body
---

because MoE
`
	empty := memory.Record{History: []memory.Record{{}}}
	for _, c := range []struct {
		name string
		r    memory.Record
		p    Profile
		want string
	}{
		{"full", everyField(), Full, full},
		{"team", everyField(), Team, team},
		{"empty full", empty, Full, "---\ntitle: \"\"\nhistory:\n- version: 0\n  title: \"\"\n---\n\n"},
		{"empty team", empty, Team, "---\ntitle: \"\"\nlayer: \"\"\nhistory:\n- version: 0\n  title: \"\"\n---\n\n"},
	} {
		b, err := Encode(c.r, c.p, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(b) != c.want {
			t.Errorf("%s file:\n%s\nwant:\n%s", c.name, b, c.want)
		}
	}
	// And the Full file reads back as the memory that was written.
	r := everyField()
	r.Edges[1].Weight = 0 // the default weight is written as none and read back as none
	d, err := ReadDoc([]byte(full), Full)
	if err != nil {
		t.Fatal(err)
	}
	if wb, gb := jsonOf(t, r), jsonOf(t, d.Record); wb != gb {
		t.Fatalf("read back differs:\nwant %s\n got %s", wb, gb)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
