package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"

	"cairn/memory"
)

func TestReadJSONLRefusesBadLines(t *testing.T) {
	t.Parallel()
	good := `{"layer":"A","body":"ok"}`
	cases := []struct {
		name, in string
		line     int
		want     string
	}{
		{"unknown field", good + "\n" + `{"layr":"A","body":"x"}`, 2, `unknown field "layr"`},
		{"bad layer", good + "\n\n\n" + `{"layer":"X","body":"x"}`, 4, `unknown layer "X"`},
		{"bad status", `{"layer":"B","body":"x","status":"lost"}`, 1, "unknown status"},
		{"bad kind", `{"layer":"B","body":"x","kind":"rumour"}`, 1, "unknown kind"},
		{"bad provenance", `{"layer":"B","body":"x","provenance":"gossip"}`, 1, "unknown provenance"},
		{"malformed", good + "\n" + `{"layer":"B",`, 2, "malformed JSON"},
		{"empty record", `{"layer":"B"}`, 1, "neither"},
		{"no layer", `{"body":"x"}`, 1, "layer"},
		{"bad link", `{"layer":"B","body":"x","edges":[{"kind":"likes","to":"x"}]}`, 1, "link kind"},
		{"two values", good + good, 1, "more than one"},
		{"wrong type", `{"layer":"B","body":7}`, 1, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := ReadJSONL(strings.NewReader(c.in))
			var le *LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.want) || recs != nil {
				t.Fatalf("err = %v, want line %d mentioning %q", err, c.line, c.want)
			}
		})
	}
	recs, err := ReadJSONL(strings.NewReader("\n" + good + "\n   \n" + `{"layer":"decision","body":"y"}` + "\n"))
	if err != nil || len(recs) != 2 || recs[1].Layer != memory.LayerDecision {
		t.Fatalf("good input: %v %+v", err, recs)
	}
}

func TestJSONLEventLines(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 10, 0, 0, 5, time.UTC)
	e := memory.Event{ID: "01JD0000000000000000000EV1", Time: at, Actor: memory.ActorAgent, Kind: memory.EventEdit, MemoryID: "01JD0000000000000000000AAA", Summary: "version 2"}
	var b bytes.Buffer
	if err := WriteJSONL(&b, []memory.Record{{Layer: memory.LayerState, Body: "x"}, {Event: &e}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if want := `{"event":{"id":"01JD0000000000000000000EV1","time":"2026-03-02T10:00:00.000000005Z","actor":"agent","kind":"edit","memory_id":"01JD0000000000000000000AAA","summary":"version 2"}}`; lines[1] != want {
		t.Fatalf("event line\n%s\nwant\n%s", lines[1], want)
	}
	back, err := ReadJSONL(&b)
	if err != nil || len(back) != 2 || back[1].Event == nil || *back[1].Event != e {
		t.Fatalf("%v %+v", err, back)
	}
	// An event line holds nothing else.
	_, err = ReadJSONL(strings.NewReader(`{"layer":"A","body":"x","event":{"id":"x","kind":"edit","time":"2026-03-02T10:00:00Z"}}`))
	if err == nil || !strings.Contains(err.Error(), "only") {
		t.Fatalf("event with a memory: %v", err)
	}
}

func TestLongLines(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("é\"\\\n", 20000)
	var b bytes.Buffer
	if err := WriteJSONL(&b, []memory.Record{{Layer: 'C', Body: body}}); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadJSONL(&b)
	if err != nil || len(recs) != 1 || recs[0].Body != body {
		t.Fatalf("long line: %v", err)
	}
}

// genRecord draws a valid record with every field exercised.
func genRecord(t *rapid.T, i int) memory.Record {
	id := func(label string) string { return rapid.StringMatching(`01[0-9A-HJKMNP-TV-Z]{24}`).Draw(t, label) }
	tm := func(label string) time.Time {
		return time.Unix(rapid.Int64Range(0, 4e9).Draw(t, label), rapid.Int64Range(0, 999999999).Draw(t, label+"ns")).UTC()
	}
	text := rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{
		"", "---", "---\nlooks like frontmatter\n---\n", "\n\nleading blank lines", "trailing spaces   ",
		"crlf\r\nline\r\n", "no final newline", "title: with colon", "# heading", "'quoted' \"both\"", "  indented", "ünïcödé ✓",
	}))
	r := memory.Record{
		ID: id("id"), Ref: rapid.SampledFrom([]string{"", "ref-1", "a: b", "#x"}).Draw(t, "ref"),
		Project: rapid.SampledFrom([]string{"", "proj", "global"}).Draw(t, "project"),
		Layer:   rapid.SampledFrom(memory.Layers).Draw(t, "layer"), Kind: rapid.SampledFrom(memory.Kinds).Draw(t, "kind"),
		Title: strings.ReplaceAll(text.Draw(t, "title"), "\n", " "), Body: text.Draw(t, "body") + "x",
		Tags:       rapid.SliceOfN(rapid.StringMatching(`[a-z0-9_-]{1,10}`), 0, 4).Draw(t, "tags"),
		Provenance: rapid.SampledFrom(memory.Provenances).Draw(t, "prov"),
		Confidence: rapid.Float64Range(0.01, 1).Draw(t, "conf"), Status: rapid.SampledFrom(memory.Statuses).Draw(t, "status"),
		CreatedAt: tm("c"), UpdatedAt: tm("u"), ValidFrom: tm("f"),
		Triggers: rapid.SliceOfN(rapid.StringMatching(`[a-zA-Z ]{1,12}`), 0, 3).Draw(t, "triggers"),
		Version:  rapid.IntRange(1, 50).Draw(t, "version"),
		Source:   memory.Source{Actor: rapid.SampledFrom([]memory.Actor{"", memory.ActorAgent}).Draw(t, "actor"), File: rapid.SampledFrom([]string{"", "src/a.go"}).Draw(t, "file")},
	}
	if rapid.Bool().Draw(t, "until") {
		u := tm("until")
		r.ValidUntil = &u
	}
	if rapid.Bool().Draw(t, "rejected") {
		rj := tm("rejected")
		r.RejectedAt = &rj
	}
	if rapid.Bool().Draw(t, "sup") {
		r.Supersedes = []string{id("supersedes")}
		r.SupersededBy = id("supby")
	}
	for range rapid.IntRange(0, 2).Draw(t, "nwm") {
		r.Watermarks = append(r.Watermarks, memory.Watermark{Kind: memory.WatermarkFile, Target: "src/x.go", Fingerprint: "sha256:ab", State: memory.WatermarkIntact, StampedAt: tm("stamp")})
	}
	if rapid.Bool().Draw(t, "sal") {
		r.Salience = memory.Salience{AccessCount: rapid.IntRange(1, 9).Draw(t, "ac"), Accesses: []time.Time{tm("acc")}, Reinforcements: rapid.IntRange(0, 3).Draw(t, "re")}
	}
	for range rapid.IntRange(0, 3).Draw(t, "nedges") {
		e := memory.RecordEdge{Kind: rapid.SampledFrom(memory.EdgeKinds).Draw(t, "ek"), To: id("to"), CreatedAt: tm("ec")}
		if rapid.Bool().Draw(t, "w") {
			e.Weight = rapid.Float64Range(0.01, 0.99).Draw(t, "weight")
		}
		if rapid.Bool().Draw(t, "hist") {
			f := false
			e.Active = &f
		}
		r.Edges = append(r.Edges, e)
	}
	// Markdown groups links by kind; keep them in that order so comparisons are exact.
	sortEdges(r.Edges)
	// Earlier versions: whole records of their own, without links.
	for v := range rapid.IntRange(0, 2).Draw(t, "nversions") {
		h := memory.Record{
			Layer: rapid.SampledFrom(memory.Layers).Draw(t, "hlayer"), Kind: rapid.SampledFrom(memory.Kinds).Draw(t, "hkind"),
			Title: strings.ReplaceAll(text.Draw(t, "htitle"), "\n", " "), Body: text.Draw(t, "hbody") + "v",
			Provenance: rapid.SampledFrom(memory.Provenances).Draw(t, "hprov"), Confidence: 0.5,
			Status: memory.StatusActive, CreatedAt: r.CreatedAt, UpdatedAt: tm("hu"), ValidFrom: r.ValidFrom, Version: v + 1,
			Tags: rapid.SliceOfN(rapid.StringMatching(`[a-z0-9_-]{1,10}`), 0, 2).Draw(t, "htags"),
		}
		r.History = append(r.History, h)
	}
	return r
}

func sortEdges(es []memory.RecordEdge) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Kind < es[j-1].Kind; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// canon makes nil and empty slices alike and drops computed trust.
func canon(r memory.Record) string {
	r.Trust = 0
	if len(r.Tags) == 0 {
		r.Tags = nil
	}
	if len(r.Supersedes) == 0 {
		r.Supersedes = nil
	}
	if len(r.Watermarks) == 0 {
		r.Watermarks = nil
	}
	if len(r.Triggers) == 0 {
		r.Triggers = nil
	}
	hist := r.History
	r.History = nil
	b, _ := json.Marshal(r)
	out := string(b)
	for _, h := range hist {
		out += "\nversion " + canon(h)
	}
	return out
}

// canonMD is canon of what markdown keeps: salience changes on every
// recall, so a markdown export leaves it out.
func canonMD(r memory.Record) string {
	r.Salience = memory.Salience{}
	return canon(r)
}

func TestRoundTrips(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "n")
		recs := make([]memory.Record, n)
		for i := range recs {
			recs[i] = genRecord(t, i)
		}
		var b bytes.Buffer
		if err := WriteJSONL(&b, recs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(&b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			if canon(recs[i]) != canon(back[i]) {
				t.Fatalf("jsonl:\n%s\n%s", canon(recs[i]), canon(back[i]))
			}
			md, err := EncodeMarkdown(recs[i])
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeMarkdown(md)
			if err != nil {
				t.Fatalf("decode markdown: %v\n%s", err, md)
			}
			if canonMD(recs[i]) != canonMD(got) {
				t.Fatalf("markdown:\n%s\n%s\nfile:\n%s", canonMD(recs[i]), canonMD(got), md)
			}
		}
	})
}

func TestMarkdownDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := false
	recs := []memory.Record{
		{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Kind: memory.KindDecision, Title: "Park MTP: net-negative [MoE]", Body: "because MoE\n",
			Edges: []memory.RecordEdge{{Kind: memory.EdgeBecause, To: "01JD0000000000000000000BBB", Weight: 0.8, Active: &f}, {Kind: memory.EdgeEvidence, To: "01JD0000000000000000000BBB"}}},
		{ID: "01JD0000000000000000000BBB", Layer: memory.LayerEpisode, Title: "bench 41", Body: "-4 %"},
	}
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	// Readable names: the title's slug and the id's tail.
	a := filepath.Join("D-decision", "park-mtp-net-negative-moe-00000aaa.md")
	b := filepath.Join("C-episode", "bench-41-00000bbb.md")
	data, err := os.ReadFile(filepath.Join(dir, a))
	if err != nil {
		t.Fatal(err)
	}
	// The link as Obsidian reads it: to the file, labelled by the title,
	// in the form the team mirror writes. The inactive (historical) link
	// is only in the frontmatter's edges: the section shows live links.
	if !strings.HasSuffix(string(data), "\nbecause MoE\n\n\n## Links\n\n- evidence [[C-episode/bench-41-00000bbb|bench 41]]\n") ||
		!strings.Contains(string(data), "historical: true") || !strings.Contains(string(data), "\nlayer: \"D\"\n") {
		t.Fatalf("no Links section in:\n%s", data)
	}
	back, files, err := ReadMarkdownFiles(dir)
	if err != nil || len(back) != 2 || files[0] != b || files[1] != a {
		t.Fatalf("%v %v", err, files)
	}
	if canon(back[1]) != canon(recs[0]) {
		t.Fatalf("read back:\n%s\n%s", canon(back[1]), canon(recs[0]))
	}
	// The Links section as written says what the edges say; a line a
	// person adds to it is a link to make.
	if _, links, err := decodeMarkdown(data); err != nil || len(links) != 0 {
		t.Fatalf("links of an exported file: %v %+v", err, links)
	}
	added := string(data) + "- evidence: [[Bench 42]]\n"
	r, links, err := decodeMarkdown([]byte(added))
	if err != nil || r.Record.Body != recs[0].Body || len(links) != 2 || links[1] != (BodyLink{memory.EdgeEvidence, "Bench 42"}) {
		t.Fatalf("an edited Links section: %v %q %+v", err, r.Record.Body, links)
	}
	// A field cairn does not know is counted, never a refusal; a value
	// cairn cannot read refuses the directory, naming the file and line.
	os.WriteFile(filepath.Join(dir, "C-episode", "odd.md"), []byte("---\nlayer: A\nlayr: A\n---\nx"), 0o644)
	if v, err := ReadVault(dir); err != nil || v.Fields.String() != "1 frontmatter field cairn does not know (layr): 1 kept as tags, 0 ignored" {
		t.Fatalf("an unknown field: %v %+v", err, v)
	}
	os.WriteFile(filepath.Join(dir, "C-episode", "bad.md"), []byte("---\nlayer: A\nversion: [1\n---\nx"), 0o644)
	_, err = ReadMarkdown(dir)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != filepath.Join("C-episode", "bad.md") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("bad file: %v", err)
	}
}

// A markdown export keeps the timeline in timeline.jsonl, read back after
// the memories; a memory record in it is refused, naming its line.
func TestMarkdownTimeline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := memory.Event{ID: "01JD0000000000000000000EV1", Time: time.Unix(7, 0).UTC(), Actor: memory.ActorUser, Kind: memory.EventRemember, MemoryID: "01JD0000000000000000000AAA"}
	recs := []memory.Record{{Event: &e}, {ID: "01JD0000000000000000000AAA", Layer: memory.LayerState, Title: "t", Body: "b"}}
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	v, err := ReadVault(dir)
	if err != nil || len(v.Records) != 2 || v.Records[0].ID != recs[1].ID || v.Records[1].Event == nil || *v.Records[1].Event != e || v.Files[1] != "timeline.jsonl line 1" {
		t.Fatalf("%v %+v %v", err, v, v.Files)
	}
	if v.Skipped.String() != "" {
		t.Fatalf("skipped %s", v.Skipped)
	}
	os.WriteFile(filepath.Join(dir, TimelineFile), []byte(`{"event":{"id":"01JD0000000000000000000EV1","kind":"edit","time":"2026-03-02T10:00:00Z"}}`+"\n"+`{"layer":"A","body":"x"}`+"\n"), 0o600)
	if _, err := ReadVault(dir); err == nil || !strings.Contains(err.Error(), "timeline.jsonl: line 2") {
		t.Fatalf("a memory in the timeline: %v", err)
	}
}

// A file of an export made before edges, history and the Links section
// (links by kind in the frontmatter, salience) still reads the same.
func TestOldMarkdownExportsStillRead(t *testing.T) {
	t.Parallel()
	old := "---\nid: \"01JD0000000000000000000AAA\"\nlayer: \"decision\"\ntitle: \"park MTP\"\n" +
		"salience:\n  access_count: 3\n  accesses: [\"2026-03-02T10:00:00Z\"]\nversion: 2\n" +
		"links:\n  because: [\"[[01JD0000000000000000000BBB|0.5 historical @2026-03-01T09:00:00Z]]\"]\n---\nbecause MoE\n"
	r, err := DecodeMarkdown([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	inactive := false
	want := memory.RecordEdge{Kind: memory.EdgeBecause, To: "01JD0000000000000000000BBB", Weight: 0.5, Active: &inactive, CreatedAt: at}
	if r.Body != "because MoE\n" || r.Salience.AccessCount != 3 || r.Version != 2 || len(r.Edges) != 1 || !reflect.DeepEqual(r.Edges[0], want) {
		t.Fatalf("%+v", r)
	}
}

func TestMarkdownExportIsStable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := []memory.Record{
		{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Title: "old title", Body: "x",
			Salience: memory.Salience{AccessCount: 3, Accesses: []time.Time{time.Unix(5, 0)}}},
	}
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, FileName(recs[0]))
	first, _ := os.ReadFile(name)
	if strings.Contains(string(first), "access") {
		t.Fatalf("salience written:\n%s", first)
	}
	// Read more often: the same bytes, and the file is not even rewritten.
	old := time.Unix(1, 0)
	os.Chtimes(name, old, old)
	recs[0].Salience = memory.Salience{AccessCount: 9, Accesses: []time.Time{time.Unix(9, 0)}}
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(name); !fi.ModTime().Equal(old) {
		t.Fatalf("an unchanged file was written again")
	}
	// Retitled: the file moves, and the old one goes.
	recs[0].Title = "new title"
	if err := WriteMarkdown(dir, recs); err != nil {
		t.Fatal(err)
	}
	back, files, err := ReadMarkdownFiles(dir)
	if err != nil || len(back) != 1 || files[0] != filepath.Join("D-decision", "new-title-00000aaa.md") {
		t.Fatalf("%v %v", err, files)
	}
}

func TestMarkdownSpreadsALargeLayer(t *testing.T) {
	t.Parallel()
	var recs []memory.Record
	for i := range 2500 {
		id := fmt.Sprintf("01JD%022d", i)
		recs = append(recs, memory.Record{ID: id, Layer: memory.LayerEpisode, Title: "same title"})
	}
	recs = append(recs, memory.Record{ID: "01JD0000000000000000000AAA", Layer: memory.LayerState, Title: "alone"})
	names := FileNames(recs)
	perDir := map[string]int{}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Fatalf("two records in %s", n)
		}
		seen[n] = true
		perDir[filepath.Dir(n)]++
	}
	if names["01JD0000000000000000000AAA"] != filepath.Join("B-state", "alone-00000aaa.md") {
		t.Fatalf("a small layer is one folder: %s", names["01JD0000000000000000000AAA"])
	}
	for d, n := range perDir {
		if n > 1000 {
			t.Fatalf("%s holds %d files", d, n)
		}
	}
	if len(perDir) < 4 {
		t.Fatalf("2,500 memories in %d folders", len(perDir))
	}
	// The same memories in another order: the same names.
	rev := slices.Clone(recs)
	slices.Reverse(rev)
	if again := FileNames(rev); !maps.Equal(again, names) {
		t.Fatalf("names depend on the order of the records")
	}
}

func TestReadVaultSkipsWhatIsNotAMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	put := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(".obsidian/app.json", "{}")
	put(".obsidian/workspace.json", "{}")
	put(".obsidian/plugins/x/main.md", "---\nlayer: A\n---\nnot read")
	put(".trash/x.md", "---\nlayer: A\ntitle: thrown away\n---\nx")
	put(".DS_Store", "")
	put("Plain note.md", "just text, see [[Park MTP]]\n")
	put("Tagged note.md", "---\ntags: [x]\naliases: [y]\n---\nanother program's frontmatter\n")
	put("attachments/diagram.png", "png")
	put("decisions/Park MTP.md", "---\nlayer: D\ntitle: Park MTP\n---\nBecause [[Bench 41]] and [[bench-41|the bench]];\n"+
		"see [[Nowhere#section]].\n```\n[[not a link]]\n```\n\n## Links\n\n- evidence: [[episodes/bench-41.md]]\n")
	put("episodes/bench-41.md", "---\nlayer: C\ntitle: Bench 41\n---\n-4 %\n")
	v, err := ReadVault(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Records) != 2 || v.Files[0] != filepath.Join("decisions", "Park MTP.md") {
		t.Fatalf("%d records: %v", len(v.Records), v.Files)
	}
	want := Skipped{NoFrontmatter: 1, NotMemory: 1, NotMarkdown: 1, Hidden: map[string]int{".obsidian": 3, ".trash": 1, ".": 1}}
	if !reflect.DeepEqual(v.Skipped, want) {
		t.Fatalf("skipped %+v, want %+v", v.Skipped, want)
	}
	if s := v.Skipped.String(); s != "1 file without frontmatter, 1 file whose frontmatter names no layer, 1 file not .md, 1 file hidden, 3 under .obsidian/, 1 under .trash/" {
		t.Fatalf("report %q", s)
	}
	wantLinks := []BodyLink{{memory.EdgeRelatesTo, "Bench 41"}, {memory.EdgeRelatesTo, "bench-41"}, {memory.EdgeRelatesTo, "Nowhere"}, {memory.EdgeEvidence, "episodes/bench-41"}}
	if !reflect.DeepEqual(v.Links[0], wantLinks) {
		t.Fatalf("links %+v", v.Links[0])
	}
	// A memory file that is malformed still refuses the whole directory.
	put("decisions/broken.md", "---\nlayer: D\ntitle: [unclosed\n---\nx")
	if _, err := ReadVault(dir); err == nil || !strings.Contains(err.Error(), "broken.md") || !strings.Contains(err.Error(), "line") {
		t.Fatalf("malformed memory file: %v", err)
	}
}

// With a notes layer, a person's plain notes are memories of that layer
// too: one without frontmatter titled by its file name, one with another
// program's frontmatter keeping its fields; what is not a note is still
// passed over and counted. A path that is not there is one line saying so.
func TestReadVaultNotesTakesPlainNotes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for rel, text := range map[string]string{
		"Plain note.md":      "just text\n",
		"Tagged.md":          "---\ntags: [x]\naliases: [Other]\n---\nanother program's note\n",
		"cairn.md":           "---\nlayer: D\ntitle: Park MTP\n---\nbecause\n",
		".obsidian/app.json": "{}",
		"diagram.png":        "png",
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	v, err := ReadVaultNotes(dir, memory.LayerEpisode)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]memory.Record{}
	for i, r := range v.Records {
		got[v.Files[i]] = r
	}
	plain, tagged, mem := got["Plain note.md"], got["Tagged.md"], got["cairn.md"]
	if len(v.Records) != 3 || plain.Layer != memory.LayerEpisode || plain.Title != "Plain note" || plain.Body != "just text" ||
		tagged.Layer != memory.LayerEpisode || tagged.Title != "Tagged" || strings.Join(tagged.Tags, ",") != "x" ||
		mem.Layer != memory.LayerDecision || mem.Title != "Park MTP" {
		t.Fatalf("%v: %+v", v.Files, v.Records)
	}
	if i := slices.Index(v.Files, "Tagged.md"); strings.Join(v.Aliases[i], ",") != "Other" {
		t.Fatalf("aliases %v", v.Aliases)
	}
	want := Skipped{NotMarkdown: 1, Hidden: map[string]int{".obsidian": 1}}
	if !reflect.DeepEqual(v.Skipped, want) {
		t.Fatalf("skipped %+v, want %+v", v.Skipped, want)
	}
	missing := filepath.Join(dir, "gone")
	if _, err := ReadVaultNotes(missing, memory.LayerEpisode); err == nil || err.Error() != "no such file or directory" {
		t.Fatalf("a missing path: %v", err)
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"layer":"A","body":"x"}`)
	f.Add(`{"id":"01JD0000000000000000000AAA","layer":"decision","title":"t","body":"b","edges":[{"kind":"because","to":"01JD0000000000000000000BBB","weight":0.5}]}`)
	f.Add("\n\n{")
	f.Add("[{\"layer\":\"A\",\"body\":\"x\"}]\nnull\n7")
	f.Add("{\"layer\":\"A\",\"body\":\"caf\xe9\"}")
	f.Fuzz(func(t *testing.T, in string) {
		recs, lines, err := ReadJSONLLines(strings.NewReader(in))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Line > strings.Count(in, "\n")+1 {
				t.Fatalf("error without a line in range: %v", err)
			}
			return
		}
		if len(lines) != len(recs) {
			t.Fatalf("%d records, %d lines", len(recs), len(lines))
		}
		for _, r := range recs {
			// Invalid UTF-8 is refused, never replaced or passed on.
			for _, s := range append([]string{r.ID, r.Title, r.Body, r.Ref}, r.Tags...) {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 accepted: %q", s)
				}
			}
		}
		var b bytes.Buffer
		if err := WriteJSONL(&b, recs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadJSONL(&b)
		if err != nil || len(again) != len(recs) {
			t.Fatalf("re-read of written records failed: %v", err)
		}
	})
}

func FuzzMarkdownFile(f *testing.F) {
	f.Add("---\nid: 01JD0000000000000000000AAA\nlayer: state\ntitle: t\n---\nbody")
	f.Add("---\n---\n")
	f.Add("---\nlinks:\n  because: [\"[[x|0.5 historical @2026-01-01T00:00:00Z]]\"]\nlayer: A\ntitle: x\n---\n")
	f.Add("---\nlayer: A\ntitle: &a t\nref: *a\n---\n")
	f.Add("---\nlayer: A\ntitle: t\ntags: [[[a]]]\nsource: {file: a.go, line: 3}\n---\n")
	f.Add("---\nlayer: A\ntitle: t\n...\n---\n")
	f.Add("---\nid: 01JD0000000000000000000AAA\nlayer: D\ntitle: t\nedges:\n  - kind: because\n    to: 01JD0000000000000000000BBB\n    weight: 0.5\n    historical: true\nhistory:\n  - layer: D\n    title: t0\n    body: \"old\"\n    version: 1\nversion: 2\n---\nbody\n\n## Links\n\n- because: [[C-episode/b-00000bbb|B]]\n")
	f.Add("---\nlayer: D\ntitle: t\nedges:\n  - kind: relates_to\n    to: x\n---\n\n\n## Links\n\n- relates_to: [[x]]\n\n\n## Links\n\n- because: [[y]]\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := DecodeMarkdown([]byte(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if !utf8.ValidString(r.Title) || !utf8.ValidString(r.Body) {
			t.Fatalf("invalid UTF-8 accepted")
		}
		// What was read can be written, and what is written reads back to
		// the same file.
		md, err := EncodeMarkdown(r)
		if err != nil {
			t.Fatalf("a record read cannot be written: %v", err)
		}
		back, err := DecodeMarkdown(md)
		if err != nil {
			t.Fatalf("a written record cannot be read: %v\n%s", err, md)
		}
		md2, err := EncodeMarkdown(back)
		if err != nil || !bytes.Equal(md, md2) {
			t.Fatalf("not a fixed point: %v\n%s\n%s", err, md, md2)
		}
	})
}
