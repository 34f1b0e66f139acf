package recall

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest", []string{"parsehttprequest", "pars", "http", "request"}},
		{"snake_case_name", []string{"snake_case_name", "snake", "case", "name"}},
		{"src/auth/session.go", []string{"src/auth/session.go", "src", "auth", "session", "go"}},
		{"kebab-case-flag", []string{"kebab-case-flag", "kebab", "case", "flag"}},
		{"Running the tests quickly", []string{"run", "test", "quick"}},
		{"Café naïve", []string{"cafe", "naiv"}},
		{"VGPR-256 occupancy", []string{"vgpr-256", "vgpr", "256", "occup"}},
		{"v0.7.0", []string{"v0.7.0", "0", "7", "0"}},
		{"colours Colour color", []string{"color", "color", "color"}},
		{"initialise initialize behaviour centre", []string{"initi", "initi", "behavior", "center"}},
		{"our hour four colourless", []string{"hour", "four", "colorless"}},
		{"set_colour_theme", []string{"set_colour_theme", "set", "color", "theme"}},
	}
	for _, c := range cases {
		got := Tokens(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"parseHTTPRequest", "a/b.c", "Ünïcode_ΔΣ", "", "---", "x1y2Z3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokens(s) {
			if tok == "" {
				t.Fatal("empty token")
			}
		}
	})
}

func TestLexIndexRemoveAndScore(t *testing.T) {
	t.Parallel()
	x := newLexIndex()
	x.set(0, Tokens("badger store open is fast"))
	x.set(1, Tokens("sqlite store is slower to open"))
	x.set(2, Tokens("the TUI renders markdown"))
	all := func(int32) bool { return true }
	got := x.search(Tokens("badger store"), 10, all)
	if len(got) != 2 || got[0].doc != 0 {
		t.Fatalf("search: %+v", got)
	}
	x.remove(0)
	got = x.search(Tokens("badger store"), 10, all)
	if len(got) != 1 || got[0].doc != 1 {
		t.Fatalf("after remove: %+v", got)
	}
	x.set(1, Tokens("markdown only now"))
	if got := x.search(Tokens("store"), 10, all); len(got) != 0 {
		t.Fatalf("replaced doc still matches its old text: %+v", got)
	}
}

// fixture is a real store with a small project and a global scope.
type fixture struct {
	db  *store.DB
	e   *Engine
	pid string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, p := range []memory.Project{{ID: "00000000000000aa", Name: "p"}, {ID: memory.GlobalID, Name: "global"}, {ID: "00000000000000bb", Name: "q"}} {
		if _, err := db.EnsureProject(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{db: db, pid: "00000000000000aa"}
}

func (f *fixture) add(t *testing.T, m memory.Memory) *memory.Memory {
	t.Helper()
	if m.Project == "" {
		m.Project = f.pid
	}
	got, err := f.db.Remember(context.Background(), &m, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (f *fixture) build(t *testing.T) {
	t.Helper()
	f.e = NewEngine(f.db, nil)
	if err := f.e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) recall(t *testing.T, q string, opts ...func(*Request)) Response {
	t.Helper()
	req := Request{Query: q, Projects: []string{f.pid, memory.GlobalID}}
	for _, o := range opts {
		o(&req)
	}
	resp, err := f.e.Recall(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func titles(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Memory.Title)
	}
	return out
}

func TestRecallShapesTheAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Tuned the decode kernel", Body: "Decode kernel tuning notes: tile sizes, unrolling."})
	neg := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "VGPR-256 starved occupancy", Body: "Do not raise the register budget.", Triggers: []string{"register budget"}})
	old := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Decode is +229 % faster", Body: "decode kernel speedup measured once"})
	cur, _ := f.db.Supersede(ctx, old.ID, &memory.Memory{Body: "Decode is +31 % faster: decode kernel speedup, median of 10"}, memory.ActorUser)
	dec := f.add(t, memory.Memory{Layer: memory.LayerDecision, Title: "Keep tile size 64", Body: "tile size stays at 64"})
	why := f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Bench 41", Body: "larger tiles spilled registers"})
	f.db.Link(ctx, memory.Edge{From: dec.ID, Kind: memory.EdgeBecause, To: why.ID}, memory.ActorUser)
	low := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Decode runs on the old driver", Body: "decode kernel driver guess", Provenance: memory.ProvInferred, Confidence: 0.3})
	arch := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Decode kernel wiki page", Body: "decode kernel notes moved"})
	f.db.Archive(ctx, arch.ID, "", memory.ActorUser)
	other := f.add(t, memory.Memory{Project: "00000000000000bb", Layer: memory.LayerState, Title: "Decode kernel in project q", Body: "decode kernel"})
	glob := f.add(t, memory.Memory{Project: memory.GlobalID, Layer: memory.LayerInvariant, Title: "Measure decode kernels with the median of 10 runs", Body: "never cite a single run"})
	f.build(t)

	resp := f.recall(t, "should I raise the register budget of the decode kernel?")
	if len(resp.Results) == 0 || resp.Results[0].Memory.ID != neg.ID || resp.Results[0].Explain.Trigger != "register budget" {
		t.Fatalf("the triggered negative is not first: %q", titles(resp.Results))
	}
	ids := map[string]Hit{}
	for _, h := range resp.Results {
		ids[h.Memory.ID] = h
	}
	for _, bad := range []*memory.Memory{old, arch, other, low} {
		if _, ok := ids[bad.ID]; ok {
			t.Errorf("served %q as current", bad.Title)
		}
	}
	if h, ok := ids[cur.ID]; !ok || len(h.History) != 1 || h.History[0].ID != old.ID {
		t.Errorf("the successor should carry its superseded predecessor as history: %+v", h.History)
	}
	if _, ok := ids[glob.ID]; !ok {
		t.Errorf("the global invariant was not recalled")
	}
	if len(resp.VerifyFirst) != 1 || resp.VerifyFirst[0].Memory.ID != low.ID {
		t.Errorf("low-trust memory not set apart: %q", titles(resp.VerifyFirst))
	}
	for _, h := range resp.Results {
		if h.Explain.Final <= 0 || h.Explain.Trust <= 0 {
			t.Errorf("%q has no explanation: %+v", h.Memory.Title, h.Explain)
		}
	}

	// Graph: a decision brings its reason along.
	resp = f.recall(t, "keep 64")
	var reason *Hit
	for i, h := range resp.Results {
		if h.Memory.ID == why.ID {
			reason = &resp.Results[i]
		}
	}
	if reason == nil || !strings.Contains(reason.Explain.Graph, "because") {
		t.Fatalf("the decision's because was not followed: %q", titles(resp.Results))
	}

	// Archived only on request.
	resp = f.recall(t, "decode kernel wiki page", func(r *Request) { r.Archived = true })
	found := false
	for _, h := range resp.Results {
		found = found || h.Memory.ID == arch.ID
	}
	if !found {
		t.Fatalf("--archived did not include the archived memory: %q", titles(resp.Results))
	}

	// Budget: a tiny budget keeps one result and says how many were cut.
	resp = f.recall(t, "decode kernel", func(r *Request) { r.Budget = 1 })
	if len(resp.Results) != 1 || resp.Cut == 0 {
		t.Fatalf("budget: %d results, %d cut", len(resp.Results), resp.Cut)
	}

	// Layer filter.
	resp = f.recall(t, "decode kernel", func(r *Request) { r.Layers = []memory.Layer{memory.LayerEpisode} })
	for _, h := range resp.Results {
		if h.Memory.Layer != memory.LayerEpisode && h.Explain.Graph == "" {
			t.Fatalf("layer filter let %q through", h.Memory.Title)
		}
	}
}

func TestRecallIsAnAccessNotEvidence(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Release v0.7 is out", Body: "shipped"})
	f.build(t)
	f.recall(t, "release")
	f.recall(t, "release")
	if err := f.db.FlushSalience(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := f.db.Get(context.Background(), m.ID)
	if got.Salience.AccessCount != 2 || memory.Trust(got) != memory.Trust(m) {
		t.Fatalf("salience %+v, trust %v → %v", got.Salience, memory.Trust(m), memory.Trust(got))
	}
	if Activation(got.Salience, time.Now()) <= Activation(m.Salience, time.Now()) {
		t.Fatalf("activation did not rise")
	}
}

func TestEngineFollowsTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.build(t)
	events, err := f.db.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go f.e.Follow(ctx, events)
	m := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Quokka deployment notes", Body: "quokka"})
	waitFor(t, func() bool { return len(f.recall(t, "quokka").Results) == 1 })
	if err := f.db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(f.recall(t, "quokka").Results) == 0 })
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("the engine did not catch up with the store")
}

func TestHTTPEmbedder(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" || req.Model != "m" {
			http.Error(w, "bad request", 400)
			return
		}
		type d struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var out struct {
			Data []d `json:"data"`
		}
		for i, in := range req.Input {
			out.Data = append(out.Data, d{[]float32{float32(len(in)), 1, 0}, i})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	e := &HTTPEmbedder{URL: srv.URL + "/v1", Model: "m", Key: "k"}
	v, err := e.Embed(context.Background(), []string{"ab", "abcd"})
	if err != nil || len(v) != 2 || v[1][0] != 4 || e.Dim != 3 {
		t.Fatalf("%v %v", v, err)
	}
}

func TestHTTPEmbedderFailuresFallBack(t *testing.T) {
	t.Parallel()
	bodies := map[string]func(w http.ResponseWriter){
		"5xx":       func(w http.ResponseWriter) { http.Error(w, "down", http.StatusServiceUnavailable) },
		"4xx":       func(w http.ResponseWriter) { http.Error(w, "no key", http.StatusUnauthorized) },
		"malformed": func(w http.ResponseWriter) { w.Write([]byte(`{"data": [`)) },
		"dimension": func(w http.ResponseWriter) { w.Write([]byte(`{"data":[{"embedding":[1,2],"index":0}]}`)) },
		"timeout":   func(w http.ResponseWriter) { time.Sleep(300 * time.Millisecond) },
	}
	for name, answer := range bodies {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answer(w) }))
			defer srv.Close()
			var warned []string
			primary := &HTTPEmbedder{URL: srv.URL, Model: "m", Client: &http.Client{Timeout: 100 * time.Millisecond}}
			if name == "dimension" {
				primary.Dim = 3
			}
			fb := &Fallback{Primary: primary, Backup: NewHashed(), Warn: func(s string) { warned = append(warned, s) }}
			for range 3 {
				v, err := fb.Embed(context.Background(), []string{"hello"})
				if err != nil || len(v) != 1 || len(v[0]) != 256 {
					t.Fatalf("fallback did not answer: %v %v", v, err)
				}
			}
			if len(warned) != 1 || !fb.Switched() {
				t.Fatalf("want exactly one warning, got %q", warned)
			}
		})
	}
}

func TestBriefing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add(t, memory.Memory{Layer: memory.LayerInvariant, Title: "Never commit .env files", Body: "CI checks"})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Release v0.7 is out", Body: "shipped"})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Staging runs the old driver", Body: "a guess", Provenance: memory.ProvInferred, Confidence: 0.3})
	f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "VGPR-256 starved occupancy", Body: "don't"})
	f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Lunch on Tuesday", Body: "not for the briefing"})
	b, err := Context(context.Background(), f.db, []string{f.pid}, 800)
	if err != nil {
		t.Fatal(err)
	}
	md := b.Markdown()
	order := []string{"## Invariants", "Never commit", "## Working state", "Release v0.7", "## What failed", "VGPR-256", "## Verify first", "Staging runs the old driver"}
	last := -1
	for _, want := range order {
		i := strings.Index(md, want)
		if i < 0 || i < last {
			t.Fatalf("briefing lacks %q or has it out of order:\n%s", want, md)
		}
		last = i
	}
	if strings.Contains(md, "Lunch") {
		t.Fatalf("episodes do not belong in the briefing:\n%s", md)
	}
	tiny, _ := Context(context.Background(), f.db, []string{f.pid}, 10)
	if tiny.Cut == 0 || len(tiny.Sections) > 1 {
		t.Fatalf("a tiny budget keeps little and says so: %+v", tiny)
	}
}

func TestTriggerAloneBringsANegative(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	neg := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "Do not shard the queue", Body: "It cost us a week.", Triggers: []string{"partition"}})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Partition plan for the jobs table", Body: "range partitions by month"})
	f.build(t)
	resp := f.recall(t, "how should we partition the jobs table?")
	if len(resp.Results) < 2 || resp.Results[0].Memory.ID != neg.ID || resp.Results[0].Explain.Trigger != "partition" {
		t.Fatalf("a negative matched by its trigger only should come first: %q", titles(resp.Results))
	}
}

// Triggers are patterns (memory.Triggered): by stem and whole word, globs on
// paths, regular expressions; a triggered negative comes before a relevant
// invariant.
func TestTriggersArePatternsInRecall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mig := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "Do not run migrations on Fridays", Body: "The replica lagged for hours.", Triggers: []string{"migration"}})
	pool := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "Never raise the pool size above 50", Body: "The database refuses connections.", Triggers: []string{"pool"}})
	sql := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "Schema files are generated", Body: "Edit the models, not the SQL.", Triggers: []string{"*.sql"}})
	inv := f.add(t, memory.Memory{Layer: memory.LayerInvariant, Title: "Migrating tables needs a maintenance window", Body: "Migrating tables always needs a maintenance window."})
	f.build(t)

	resp := f.recall(t, "we are migrating the tables tonight")
	if len(resp.Results) < 2 || resp.Results[0].Memory.ID != mig.ID || resp.Results[1].Memory.ID != inv.ID {
		t.Fatalf("the triggered negative before the relevant invariant: %q", titles(resp.Results))
	}
	for _, h := range f.recall(t, "empty the spool directory").Results {
		if h.Memory.ID == pool.ID {
			t.Fatal(`"pool" fired on "spool"`)
		}
	}
	resp = f.recall(t, "edit db/schema.sql to add the index")
	if len(resp.Results) == 0 || resp.Results[0].Memory.ID != sql.ID || resp.Results[0].Explain.Trigger != "*.sql" {
		t.Fatalf("a glob trigger on a path: %q", titles(resp.Results))
	}
}
