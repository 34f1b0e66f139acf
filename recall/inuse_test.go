package recall

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cairn/memory"
)

func peek(r *Request) { r.Peek = true }

// A question the store knows nothing about comes back empty and lands in
// the gap log; asked again it counts; a peek (an evaluation) leaves no gap.
func TestNothingKnownGoesToTheGapLog(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Deploys go through ArgoCD", Body: "the deploy pipeline syncs the cluster from git"})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "The retry policy", Body: "imports retry three times with backoff"})
	f.build(t)
	ctx := context.Background()

	if resp := f.recall(t, "capital of France", peek); !resp.Nothing || len(resp.Results) != 0 {
		t.Fatalf("an unknown subject: nothing=%v %q", resp.Nothing, titles(resp.Results))
	}
	if gs, _ := f.db.Gaps(ctx, f.pid); len(gs) != 0 {
		t.Fatalf("a peek recorded a gap: %+v", gs)
	}
	for range 2 {
		if resp := f.recall(t, "kubernetes helm chart"); !resp.Nothing || len(resp.Results) != 0 {
			t.Fatalf("an unknown subject: %q", titles(resp.Results))
		}
	}
	gs, err := f.db.Gaps(ctx, f.pid)
	if err != nil || len(gs) != 1 || gs[0].Query != "kubernetes helm chart" || gs[0].Count != 2 {
		t.Fatalf("gap log: %+v %v", gs, err)
	}
	// What is known is still found, with a score that says so.
	resp := f.recall(t, "how do deploys reach the cluster?")
	if resp.Nothing || resp.Weak || len(resp.Results) == 0 || resp.Results[0].Memory.Title != "Deploys go through ArgoCD" {
		t.Fatalf("a known subject: nothing=%v weak=%v %q", resp.Nothing, resp.Weak, titles(resp.Results))
	}
	if s := resp.Results[0].Explain.Relevance; s < Weak {
		t.Fatalf("a good answer scores %.2f, under the weak line %.2f", s, Weak)
	}
}

// --path puts what is known about matching files first: bound by a file
// watermark or named in the text; a glob without a slash matches file
// names anywhere; the query may be left out.
func TestRecallByPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bound := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Import batches of 2,000", Body: "batching keeps memory flat",
		Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: "store/import.go", State: memory.WatermarkUnchecked}}})
	named := f.add(t, memory.Memory{Layer: memory.LayerNegative, Title: "Never edit schema.sql by hand", Body: "migrations generate it"})
	other := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Imports are slow on spinning disks", Body: "import throughput halves on HDD"})
	f.build(t)
	has := func(resp Response, want ...*memory.Memory) bool {
		if len(resp.Results) < len(want) {
			return false
		}
		for i, m := range want {
			if resp.Results[i].Memory.ID != m.ID || resp.Results[i].Explain.Path == "" {
				return false
			}
		}
		return true
	}
	if resp := f.recall(t, "import speed", func(r *Request) { r.Path = "store/import.go" }); !has(resp, bound) {
		t.Fatalf("store/import.go: %q", titles(resp.Results))
	}
	if resp := f.recall(t, "", func(r *Request) { r.Path = "store/" }); !has(resp, bound) || len(resp.Results) != 1 {
		t.Fatalf("store/: %q", titles(resp.Results))
	}
	if resp := f.recall(t, "", func(r *Request) { r.Path = "*.sql" }); !has(resp, named) || len(resp.Results) != 1 {
		t.Fatalf("*.sql: %q", titles(resp.Results))
	}
	if resp := f.recall(t, "", func(r *Request) { r.Path = "db/schema.sql" }); !has(resp, named) {
		t.Fatalf("a longer path to a file the memory names: %q", titles(resp.Results))
	}
	resp := f.recall(t, "import", func(r *Request) { r.Path = "**/*.go" })
	if !has(resp, bound) || len(resp.Results) < 2 || resp.Results[1].Memory.ID != other.ID {
		t.Fatalf("**/*.go then the rest: %q", titles(resp.Results))
	}
	if _, err := f.e.Recall(context.Background(), Request{Path: "st[ore", Projects: []string{f.pid}}); err == nil {
		t.Fatal("a malformed pattern was accepted")
	}
}

// Feedback moves a memory for similar queries, up or down, and never its
// trust; a query about something else is unmoved.
func TestFeedbackMovesSimilarQueriesNotTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Cache keys use the content hash", Body: "the cache key is a hash of the content"})
	b := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Cache entries expire after a day", Body: "the cache drops entries after 24 hours"})
	c := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Tokens expire after an hour", Body: "tokens expire after 60 minutes"})
	f.build(t)
	ctx := context.Background()
	first := func(q string) string { return f.recall(t, q, peek).Results[0].Memory.ID }
	q := "how does the cache work"
	top := first(q)
	loser := a
	if top == a.ID {
		loser = b
	}
	if err := f.db.Feedback(ctx, loser.ID, "how the cache works", true, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	if got := first(q); got != loser.ID {
		for _, h := range f.recall(t, q, peek).Results {
			t.Logf("%s %+v", h.Memory.Title, h.Explain)
		}
		t.Fatalf("helpful feedback on a similar query did not lift %q", loser.Title)
	}
	before := f.recall(t, "when do tokens expire", peek).Results[0]
	if err := f.db.Feedback(ctx, loser.ID, "how the cache works", false, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := f.db.Feedback(ctx, loser.ID, "the cache", false, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got := first(q); got == loser.ID {
		t.Fatalf("unhelpful feedback did not lower %q", loser.Title)
	}
	after := f.recall(t, "when do tokens expire", peek).Results[0]
	if before.Memory.ID != c.ID || after.Memory.ID != c.ID || after.Explain.Feedback != 0 {
		t.Fatalf("a query about something else moved: %+v", after.Explain)
	}
	got, _ := f.db.Get(ctx, loser.ID)
	if memory.Trust(got) != memory.Trust(loser) || len(got.Salience.Feedback) != 3 {
		t.Fatalf("trust %v → %v, feedback %d", memory.Trust(loser), memory.Trust(got), len(got.Salience.Feedback))
	}
}

// Use never lifts an irrelevant memory over a relevant one: a memory
// recalled a hundred times for one subject stays under the memory that
// answers another subject.
func TestUseIsABoundedPrior(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hot := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Release notes live in CHANGES.md", Body: "every release adds a section to the notes"})
	cold := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Release builds are signed with cosign", Body: "the signing key is in the vault; cosign signs every release build"})
	f.build(t)
	for range 100 {
		f.recall(t, "release notes")
	}
	resp := f.recall(t, "how are release builds signed?", peek)
	if resp.Results[0].Memory.ID != cold.ID {
		t.Fatalf("the often-recalled memory outranks the relevant one: %q", titles(resp.Results))
	}
	var h Hit
	for _, x := range resp.Results {
		if x.Memory.ID == hot.ID {
			h = x
		}
	}
	if h.Memory != nil && h.Explain.Final > h.Explain.Relevance*(1+PriorWeight)+1e-9 {
		t.Fatalf("salience lifted it past its bound: %+v", h.Explain)
	}
	// One recall is not "often"; many are, for the same task more than for another.
	one := memory.Salience{Accesses: []time.Time{time.Now()}, AccessCount: 1}
	many := memory.Salience{AccessCount: 10}
	for range 10 {
		many.Accesses = append(many.Accesses, time.Now())
	}
	now := time.Now()
	if a1, a10 := Activation(one, now), Activation(many, now); a1 > 0.2 || a10 < 0.8 {
		t.Fatalf("activation: one recall %.2f, ten %.2f", a1, a10)
	}
}

// gatedSource holds List (the index build's reads) until open is closed.
type gatedSource struct {
	Source
	open chan struct{}
}

func (g gatedSource) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	<-g.open
	return g.Source.List(ctx, q)
}

// A recall during a build never answers from a half-built index: it says
// how far the build is, and Await gets the whole answer once it is done.
func TestRecallNeverAnswersFromAHalfBuiltIndex(t *testing.T) {
	f := newFixture(t)
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Deploys go through ArgoCD", Body: "the deploy pipeline syncs the cluster"})
	wait := BuildWait
	BuildWait = 10 * time.Millisecond
	t.Cleanup(func() { BuildWait = wait })
	gate := gatedSource{Source: f.db, open: make(chan struct{})}
	e := NewEngine(gate, nil)
	built := make(chan error, 1)
	go func() { built <- e.Build(context.Background()) }()
	req := Request{Query: "how do deploys work", Projects: []string{f.pid}}
	resp, err := e.Recall(context.Background(), req)
	if err != nil || !resp.Building || len(resp.Results) != 0 || !strings.Contains(resp.Note, "building the index") {
		t.Fatalf("during the build: %+v %v", resp, err)
	}
	if gs, _ := f.db.Gaps(context.Background(), f.pid); len(gs) != 0 {
		t.Fatalf("a recall during the build went to the gap log: %+v", gs)
	}
	var notes []string
	close(gate.open)
	resp, err = Await(context.Background(), e, req, func(n string) { notes = append(notes, n) })
	if err != nil || resp.Building || len(resp.Results) != 1 {
		t.Fatalf("after the build: %+v %v (notes %q)", resp, err, notes)
	}
	if err := <-built; err != nil {
		t.Fatal(err)
	}
}

// countingEmbedder is an OpenAI-compatible embeddings endpoint on
// loopback that counts the texts it was asked to embed; with failAfter
// > 0 it answers 503 from that many calls on.
func countingEmbedder(t *testing.T, failAfter int64) (*HTTPEmbedder, *atomic.Int64) {
	var n, calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > failAfter && failAfter > 0 {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		n.Add(int64(len(req.Input)))
		type item struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			out.Data = append(out.Data, item{NewHashed().vector(text), i})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return &HTTPEmbedder{URL: srv.URL, Model: "test-model"}, &n
}

// With an endpoint, vectors are cached in the store by content: a server
// start (a new engine) embeds nothing it embedded before, a new memory
// costs one text, and forgetting a memory drops its vector.
func TestVectorsAreCachedByContent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, title := range []string{"Deploys go through ArgoCD", "The retry policy backs off", "Tokens expire after an hour"} {
		f.add(t, memory.Memory{Layer: memory.LayerState, Title: title, Body: title + "."})
	}
	emb, n := countingEmbedder(t, 0)
	ctx := context.Background()
	build := func() *Engine {
		e := NewEngine(f.db, emb)
		if err := e.Build(ctx); err != nil {
			t.Fatal(err)
		}
		return e
	}
	build()
	if n.Load() != 3 {
		t.Fatalf("first build embedded %d texts, want 3", n.Load())
	}
	e := build()
	if n.Load() != 3 {
		t.Fatalf("a restart embedded %d texts again", n.Load()-3)
	}
	m := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Caches expire daily", Body: "entries expire after a day"})
	if err := e.Refresh(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 4 {
		t.Fatalf("one new memory cost %d texts", n.Load()-3)
	}
	if resp, err := e.Recall(ctx, Request{Query: "when do caches expire", Projects: []string{f.pid}, Peek: true}); err != nil || len(resp.Results) == 0 || resp.Results[0].Memory.ID != m.ID {
		t.Fatalf("recall with the endpoint: %+v %v", resp.Results, err)
	}
	h := memory.ContentHash(m)
	if got, _ := f.db.Vectors(ctx, emb.Name(), []string{h}); len(got[h]) == 0 {
		t.Fatal("the new memory's vector is not cached")
	}
	if err := f.db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.db.Vectors(ctx, emb.Name(), []string{h}); len(got) != 0 {
		t.Fatal("a forgotten memory's vector is still cached")
	}
}

// An endpoint that starts failing while recalls run and memories are
// indexed switches to the built-in embedder once, without a data race
// (go test -race), and recall goes on answering.
func TestFallbackSwitchesUnderConcurrentRecalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, title := range []string{"Deploys go through ArgoCD", "The retry policy backs off", "Tokens expire after an hour"} {
		f.add(t, memory.Memory{Layer: memory.LayerState, Title: title, Body: title + "."})
	}
	primary, _ := countingEmbedder(t, 3)
	var warnings atomic.Int64
	fb := &Fallback{Primary: primary, Backup: NewHashed(), Warn: func(string) { warnings.Add(1) }}
	e := NewEngine(f.db, fb)
	ctx := context.Background()
	if err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if i == 0 {
					m := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Caches expire daily", Body: "entries expire after a day"})
					if err := e.Refresh(ctx, m.ID); err != nil {
						errs <- err
					}
					continue
				}
				if _, err := e.Recall(ctx, Request{Query: "when do tokens expire", Projects: []string{f.pid}, Peek: true}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if !fb.Switched() || warnings.Load() != 1 {
		t.Fatalf("switched %v, %d warnings", fb.Switched(), warnings.Load())
	}
	resp, err := Await(ctx, e, Request{Query: "when do tokens expire", Projects: []string{f.pid}, Peek: true}, nil)
	if err != nil || len(resp.Results) == 0 {
		t.Fatalf("after the switch: %+v %v", resp, err)
	}
}
