package exchange

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"cairn/memory"
)

// FuzzCodecRoundTrip: what the codec writes, in either profile, reads back
// as the memory that was written (the team profile: the team's fields).
// It runs from its seeds in every `go test`; `go test -fuzz
// FuzzCodecRoundTrip ./exchange/` searches further.
func FuzzCodecRoundTrip(f *testing.F) {
	f.Add("Park MTP: net-negative [MoE]", "because MoE\n", "bench", uint8(3), uint8(1), true, 2, false)
	f.Add("t", "", "a", uint8(0), uint8(0), false, 1, true)
	f.Add("---", "x\n\n## Links\n\n- because [[y]]\n", "b", uint8(5), uint8(2), false, 3, false)
	f.Add("links: [[a|b]]", "\n\nbody with a leading blank\n\n\n", "c", uint8(2), uint8(4), true, 9, false)
	f.Add("  spaced  ", "## Links\n\n- relates_to: [[z]]", "d", uint8(1), uint8(3), true, 1, true)
	f.Add("tab\there", "a: b\n---\nc", "e-f", uint8(4), uint8(5), false, 4, false)
	f.Fuzz(func(t *testing.T, title, body, tag string, layer, kind uint8, historical bool, version int, team bool) {
		if !utf8.ValidString(title) || !utf8.ValidString(body) || strings.ContainsAny(title, "\r\n") ||
			memory.ValidTag(tag) != nil || strings.HasPrefix(tag, "#") || version < 1 || strings.ContainsRune(body, '\r') {
			return
		}
		at := time.Date(2026, 3, 2, 10, 0, 0, 123456789, time.UTC)
		var active *bool // absent: active
		if historical {
			off := false
			active = &off
		}
		kinds := memory.EdgeKindNames()
		r := memory.Record{
			ID: "01JD0000000000000000000AAA", Layer: memory.Layers[int(layer)%len(memory.Layers)], Kind: memory.KindDecision,
			Title: title, Body: body, Tags: []string{tag}, Provenance: memory.ProvMeasured, Status: memory.StatusActive,
			Version: version, CreatedAt: at, UpdatedAt: at.Add(time.Hour),
			Edges:   []memory.RecordEdge{{Kind: memory.EdgeKind(kinds[int(kind)%len(kinds)]), To: "01JD0000000000000000000BBB", Weight: 0.5, CreatedAt: at, Active: active}},
			History: []memory.Record{{Layer: memory.LayerState, Kind: memory.KindFact, Title: "old " + title, Body: "old body", Version: 1, UpdatedAt: at, CreatedAt: at, Tags: []string{tag}}},
		}
		profile := Full
		if team {
			profile, r.Edges = Team, nil
			r.Body = strings.TrimSpace(r.Body)
			r.History[0] = memory.Record{Title: r.History[0].Title, Body: "old body", Version: 1, UpdatedAt: at, Layer: r.Layer, Kind: r.Kind}
		}
		links := []SectionLink{{Kind: memory.EdgeBecause, Target: "b-00000bbb", Label: "B"}}
		if !team && historical {
			links = nil // an inactive link is not a live line of the section
		}
		b, err := Encode(r, profile, links)
		if err != nil {
			t.Skip(err) // a value YAML cannot write
		}
		d, err := ReadDoc(b, profile)
		if err != nil {
			t.Fatalf("what was written does not read: %v\n%s", err, b)
		}
		got := d.Record
		if team {
			// The team file says no time of the last edit.
			r.UpdatedAt = time.Time{}
		}
		wb, _ := json.Marshal(r)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Fatalf("read back differs:\nwant %s\n got %s\nfile:\n%s", wb, gb, b)
		}
		if len(d.Section) != len(links) || (len(links) > 0 && d.Section[0] != links[0]) {
			t.Fatalf("the Links section read back as %+v, want %+v:\n%s", d.Section, links, b)
		}
		if i := strings.LastIndex(string(b), "\n## Links\n"); len(links) > 0 && strings.Contains(string(b[i:]), ": [[") {
			t.Fatalf("a section line in the old form:\n%s", b)
		}
	})
}

// Every form cairn has written reads: old field names, a layer's name or
// letter, both forms of a Links section line.
func TestOldNamesAndFormsRead(t *testing.T) {
	t.Parallel()
	forms := []string{
		"---\nid: 01JD0000000000000000000AAA\nlayer: decision\ntitle: t\ncreated_at: \"2026-03-02T10:00:00Z\"\nupdated_at: \"2026-03-02T11:00:00Z\"\nedges:\n- kind: because\n  to: 01JD0000000000000000000BBB\n---\nbody\n\n## Links\n\n- because: [[b|B]]\n",
		"---\nid: 01JD0000000000000000000AAA\nlayer: D\ntitle: t\ncreated: \"2026-03-02T10:00:00Z\"\nupdated: \"2026-03-02T11:00:00Z\"\nedges:\n- kind: because\n  to: 01JD0000000000000000000BBB\n---\n\nbody\n\n## Links\n\n- because [[b|B]]\n",
	}
	for _, in := range forms {
		d, err := ReadDoc([]byte(in), Full)
		if err != nil {
			t.Fatalf("%v\n%s", err, in)
		}
		r := d.Record
		if r.Layer != memory.LayerDecision || r.Body != "body" && r.Body != "body\n" || !r.CreatedAt.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) ||
			!r.UpdatedAt.Equal(time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)) || len(d.Section) != 1 || d.Section[0] != (SectionLink{memory.EdgeBecause, "b", "B"}) {
			t.Fatalf("%+v %+v\n%s", r, d.Section, in)
		}
	}
}

// A memory whose links are all inactive is exported with them in its
// edges only: no live link in the Links section, and it reads back
// inactive.
func TestInactiveLinkIsNotALiveLink(t *testing.T) {
	t.Parallel()
	off := false
	r := memory.Record{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Title: "t", Body: "b",
		Edges: []memory.RecordEdge{{Kind: memory.EdgeBecause, To: "01JD0000000000000000000BBB", Active: &off}}}
	b, err := EncodeMarkdown(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "## Links") || strings.Contains(string(b), "[[") {
		t.Fatalf("an inactive link written as a live one:\n%s", b)
	}
	back, err := DecodeMarkdown(b)
	if err != nil || len(back.Edges) != 1 || back.Edges[0].Active == nil || *back.Edges[0].Active {
		t.Fatalf("%v %+v", err, back.Edges)
	}
	// A body that itself ends as a Links section stays the body.
	r.Edges, r.Body = nil, "mine\n\n## Links\n\n- because [[x]]"
	b, _ = EncodeMarkdown(r)
	if back, err := DecodeMarkdown(b); err != nil || back.Body != r.Body || len(back.Edges) != 0 {
		t.Fatalf("%v %+v\n%s", err, back, b)
	}
}

// Obsidian's own fields: aliases as a list or a string, dates and
// datetimes without a zone, tags as a string or a list, with or without #.
func TestObsidianFieldsRead(t *testing.T) {
	t.Parallel()
	in := "---\nlayer: C\naliases: Other name\ncreated: 2026-11-01\nupdated: 2026-11-02T10:30\ntags: \"#money, tax #home/garden\"\n---\nx\n"
	d, err := ReadDoc([]byte(in), Full)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Record
	if len(d.Aliases) != 1 || d.Aliases[0] != "Other name" || !r.CreatedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) ||
		!r.UpdatedAt.Equal(time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)) || strings.Join(r.Tags, " ") != "money tax home/garden" {
		t.Fatalf("%+v %+v", d.Aliases, r)
	}
	d, err = ReadDoc([]byte("---\nlayer: C\naliases: [A, B]\ntags: [\"#a\", b]\n---\n"), Full)
	if err != nil || strings.Join(d.Aliases, ",") != "A,B" || strings.Join(d.Record.Tags, ",") != "a,b" {
		t.Fatalf("%v %+v", err, d)
	}
}

// A title that looks like YAML's own marks ("---", "...", "? x") is
// written in the team profile, readable, and reads back as itself (go-yaml
// writes these bare, then reads them as a document marker or a key).
func TestTeamTitlesThatLookLikeYAML(t *testing.T) {
	t.Parallel()
	for _, title := range []string{"---", "...", "...*", "--- ship it", "? x", "? |", "?", "--"} {
		r := memory.Record{ID: "01JD0000000000000000000AAA", Layer: memory.LayerState, Kind: memory.KindFact, Title: title, Body: "b",
			Provenance: memory.ProvUserStated, Status: memory.StatusActive, Version: 1, CreatedAt: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
		b, err := Encode(r, Team, nil)
		if err != nil {
			t.Errorf("%q: %v", title, err)
			continue
		}
		d, err := ReadDoc(b, Team)
		if err != nil || d.Record.Title != title {
			t.Errorf("%q read back as %q, %v:\n%s", title, d.Record.Title, err, b)
		}
	}
}
