package memory

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseLayer(t *testing.T) {
	t.Parallel()
	cases := map[string]Layer{
		"A": LayerInvariant, "a": LayerInvariant, "invariant": LayerInvariant, "invariants": LayerInvariant,
		"B": LayerState, "state": LayerState, "working": LayerState, "working state": LayerState,
		"c": LayerEpisode, "episode": LayerEpisode, "episodic": LayerEpisode,
		"D": LayerDecision, "decisions": LayerDecision, "E": LayerNegative, "negative": LayerNegative,
		"F": LayerMeta, "meta": LayerMeta, "lesson": LayerMeta, " Decision ": LayerDecision,
	}
	for in, want := range cases {
		got, err := ParseLayer(in)
		if err != nil || got != want {
			t.Errorf("ParseLayer(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "G", "procedure", "AB", "layer"} {
		if _, err := ParseLayer(bad); err == nil || !strings.Contains(err.Error(), "use A-F") {
			t.Errorf("ParseLayer(%q) = %v", bad, err)
		}
	}
}

func TestLayerJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, l := range Layers {
		b, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Layer
		if err := back.UnmarshalText(b); err != nil || back != l {
			t.Fatalf("%v → %s → %v %v", l, b, back, err)
		}
	}
	var zero Layer
	if b, _ := zero.MarshalText(); len(b) != 0 {
		t.Fatalf("zero layer marshals to %q", b)
	}
}

func TestParseEnums(t *testing.T) {
	t.Parallel()
	if k, err := ParseKind(" Decision"); err != nil || k != KindDecision {
		t.Errorf("kind: %v %v", k, err)
	}
	if _, err := ParseKind("rumour"); err == nil {
		t.Error("bad kind accepted")
	}
	for in, want := range map[string]Provenance{"user": ProvUserStated, "user-stated": ProvUserStated, "corrected": ProvUserCorrected, "measured": ProvMeasured} {
		if p, err := ParseProvenance(in); err != nil || p != want {
			t.Errorf("provenance %q: %v %v", in, p, err)
		}
	}
	if k, err := ParseEdgeKind("relates-to"); err != nil || k != EdgeRelatesTo {
		t.Errorf("edge: %v %v", k, err)
	}
	if _, err := ParseStatus("gone"); err == nil {
		t.Error("bad status accepted")
	}
}

func TestParseBinding(t *testing.T) {
	t.Parallel()
	good := map[string]Watermark{
		"file:src/auth.go": {Kind: WatermarkFile, Target: "src/auth.go", State: WatermarkUnchecked},
		"git:":             {Kind: WatermarkGit, Target: "", State: WatermarkUnchecked},
		"git:bench/":       {Kind: WatermarkGit, Target: "bench/", State: WatermarkUnchecked},
		"flag:CAIRN_MODE":  {Kind: WatermarkFlag, Target: "CAIRN_MODE", State: WatermarkUnchecked},
		"none":             {Kind: WatermarkNone, State: WatermarkUnbound},
	}
	for in, want := range good {
		got, err := ParseBinding(in)
		if err != nil || got != want {
			t.Errorf("ParseBinding(%q) = %+v, %v", in, got, err)
		}
		if got.Spec() != strings.TrimSpace(in) && in != "git:" {
			t.Errorf("Spec() = %q, want %q", got.Spec(), in)
		}
	}
	for _, bad := range []string{"file:", "flag:", "url:http://x", "src/auth.go", ""} {
		if _, err := ParseBinding(bad); err == nil {
			t.Errorf("ParseBinding(%q) accepted", bad)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Memory{Layer: LayerState, Kind: KindFact, Provenance: ProvObserved, Status: StatusActive, Confidence: 0.8, Version: 1, Body: "x"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		edit func(*Memory)
		want string
	}{
		{func(m *Memory) { m.Body = " " }, "empty"},
		{func(m *Memory) { m.Layer = 'Q' }, "layer"},
		{func(m *Memory) { m.Kind = "x" }, "kind"},
		{func(m *Memory) { m.Provenance = "x" }, "provenance"},
		{func(m *Memory) { m.Status = "x" }, "status"},
		{func(m *Memory) { m.Confidence = 1.5 }, "confidence"},
		{func(m *Memory) { m.Title = strings.Repeat("t", MaxTitle+1) }, "title"},
		{func(m *Memory) { m.Title = "a\nb" }, "one line"},
		{func(m *Memory) { m.Body = strings.Repeat("b", MaxBody+1) }, "body"},
		{func(m *Memory) { m.Tags = []string{"a b"} }, "tag"},
		{func(m *Memory) { m.Version = 0 }, "version"},
		{func(m *Memory) { m.Watermarks = []Watermark{{Kind: "url", State: WatermarkUnchecked}} }, "binding"},
		// issue 10 item 3: short fields refuse what acts on a terminal
		{func(m *Memory) { m.Title = "a\x1b]0;pwned\x07" }, "title holds the control character <U+001B>"},
		{func(m *Memory) { m.Title = "admin\u202etxt.exe" }, "title holds the control character <U+202E>"},
		{func(m *Memory) { m.Tags = []string{"ops\x1b[2K"} }, "tag holds"},
		{func(m *Memory) { m.Ref = "r\u009b1A" }, "ref holds"},
		{func(m *Memory) { m.Triggers = []string{"deploy\x1b[1A"} }, "trigger holds"},
		{func(m *Memory) {
			m.Watermarks = []Watermark{{Kind: WatermarkFile, Target: "a\x1b]8;;x\x1b\\", State: WatermarkUnchecked}}
		}, "binding target holds"},
		{func(m *Memory) { m.Source.Session = "s\x1b]0;x\x07" }, "source session holds"},
		{func(m *Memory) { m.Source.File = "f\r" }, "source file holds"},
		// item 15b: invalid UTF-8 is refused, never replaced
		{func(m *Memory) { m.Body = "caf\xe9" }, "body is not valid UTF-8"},
		{func(m *Memory) { m.Title = "caf\xe9" }, "title is not valid UTF-8"},
		{func(m *Memory) { m.Tags = []string{"caf\xe9"} }, "tag is not valid UTF-8"},
		// item 15c: numbers that every comparison lets through
		{func(m *Memory) { m.Confidence = math.NaN() }, "confidence NaN"},
		{func(m *Memory) { m.Confidence = math.Inf(1) }, "confidence"},
		{func(m *Memory) { m.Confidence = -0.1 }, "confidence"},
	}
	for _, c := range cases {
		m := ok
		c.edit(&m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error about %q, got %v", c.want, err)
		}
	}
}

func TestDeriveTitle(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"\x1b]0;pwned\x07port 8080\nmore": "␛]0;pwned␇port 8080",
		"\x1b[2K\x1b[1A\n":                "␛[2K␛[1A",
		"# Build\n\nRun make":             "Build",
		"\n\n  - first item":              "first item",
		"":                                "",
		strings.Repeat("word ", 30):       strings.TrimSpace(strings.Repeat("word ", 16)) + "…",
	}
	for in, want := range cases {
		if got := DeriveTitle(in); got != want {
			t.Errorf("DeriveTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseLayer(f *testing.F) {
	for _, s := range []string{"A", "meta", "working state", "", "Ω"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayer(s)
		if err == nil && !l.Valid() {
			t.Fatalf("ParseLayer(%q) = invalid layer %v without error", s, l)
		}
	})
}

func TestTrustAt(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := Memory{Confidence: 0.9, UpdatedAt: t0}
	at := func(m Memory, days float64) float64 { return TrustAt(&m, t0.Add(time.Duration(days*24)*time.Hour)) }
	bound := func(kind WatermarkKind, target string, st WatermarkState) Memory {
		m := base
		m.Watermarks = []Watermark{{Kind: kind, Target: target, State: st}}
		return m
	}
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"unbound, fresh", at(base, 10), 0.9},
		{"unbound, two months: still full", at(base, 60), 0.9},
		{"unbound, a year: nudged, not below 0.8", at(base, 365), 0.81},
		{"bound intact, three years: no time decay", at(bound(WatermarkFile, "a.go", WatermarkIntact), 1000), 0.9},
		{"file moved", at(bound(WatermarkFile, "a.go", WatermarkMoved), 1), 0.9 * 0.35},
		{"directory moved", at(bound(WatermarkGit, "bench/", WatermarkMoved), 1), 0.9 * 0.5},
		{"repository moved", at(bound(WatermarkGit, "", WatermarkMoved), 1), 0.9 * 0.75},
		{"gone", at(bound(WatermarkFlag, "X", WatermarkGone), 1), 0.9 * 0.2},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: trust %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
	for d := 0.0; d <= 365; d += 5 {
		if tr := at(base, d); tr < 0.5 {
			t.Fatalf("time alone took a user-stated fact below the serving threshold after %v days: %.3f", d, tr)
		}
	}
	m := base
	m.Watermarks = []Watermark{{Kind: WatermarkNone, State: WatermarkUnbound, StampedAt: t0.Add(300 * 24 * time.Hour)}}
	if got := at(m, 310); got != 0.9 {
		t.Errorf("a confirmation (none stamped) restores full trust: %.3f", got)
	}
}

// TestBodyMayHoldControlCharacters: a body is prose that may hold pasted
// terminal output; it is stored as written and its derived title is one
// that Validate accepts.
func TestBodyMayHoldControlCharacters(t *testing.T) {
	t.Parallel()
	m := Memory{Layer: LayerState, Kind: KindFact, Provenance: ProvObserved, Status: StatusActive, Confidence: 0.8, Version: 1,
		Body: "\x1b]0;pwned\x07build log:\n\x1b[31mFAIL\x1b[0m\r\n\u202eevil"}
	m.Title = DeriveTitle(m.Body)
	if err := m.Validate(); err != nil {
		t.Fatalf("a body with escape sequences and its derived title: %v", err)
	}
	if !m.TitleDerived() {
		t.Fatalf("TitleDerived is false for a derived title %q", m.Title)
	}
	m.Title = "Build log"
	if m.TitleDerived() {
		t.Fatal("TitleDerived is true for a title a person chose")
	}
	if (&Memory{Title: "x"}).TitleDerived() {
		t.Fatal("TitleDerived is true for a memory with a title and no body")
	}
}

func TestEdgeDraftAndReasonValidate(t *testing.T) {
	t.Parallel()
	ok := Edge{From: "01J0000000000000000000000A", Kind: EdgeBecause, To: "01J0000000000000000000000B", Weight: 0.7}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5, 0, 1.0001} {
		e := ok
		e.Weight = w
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "weight") {
			t.Errorf("weight %v: %v", w, err)
		}
	}
	for _, e := range []Edge{{From: ok.From, Kind: "likes", To: ok.To, Weight: 1}, {From: ok.From + "\x1b[2K", Kind: EdgeBecause, To: ok.To, Weight: 1}} {
		if err := e.Validate(); err == nil {
			t.Errorf("edge %+v accepted", e)
		}
	}
	if err := (Draft{Text: "\x1b[31mred\x1b[0m"}).Validate(); err != nil {
		t.Errorf("draft text with escapes refused: %v", err)
	}
	if err := (Draft{Text: "caf\xe9"}).Validate(); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("draft text not UTF-8: %v", err)
	}
	if err := (Draft{Text: "x", Source: Source{Session: "s\x1b]0;x\x07"}}).Validate(); err == nil || !strings.Contains(err.Error(), "source session") {
		t.Errorf("draft source with escapes: %v", err)
	}
	if err := ValidReason("moved to the wiki"); err != nil {
		t.Error(err)
	}
	if err := ValidReason("moved\x1b[1A"); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("reason with escapes: %v", err)
	}
}

// A fingerprint is a short hash: one that holds an escape or is long
// enough to carry anything else is refused, and so is an endless reason.
func TestFingerprintAndReasonAreBounded(t *testing.T) {
	t.Parallel()
	ok := Watermark{Kind: WatermarkGit, Target: "src/", Fingerprint: "commit:0123abcd tree:4567ef", State: WatermarkIntact}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a real fingerprint was refused: %v", err)
	}
	for _, fp := range []string{"sha256:ab\x1b]0;x\x07", strings.Repeat("a", 300), "sha256:<script>"} {
		w := ok
		w.Fingerprint = fp
		if err := w.Validate(); err == nil {
			t.Errorf("fingerprint %q accepted", fp)
		}
	}
	if err := ValidReason(strings.Repeat("x", MaxReason+1)); err == nil {
		t.Error("an endless reason was accepted")
	}
}
