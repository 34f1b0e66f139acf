package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
	"unique"

	"github.com/kelindar/search"

	"cairn/memory"
	"cairn/trust"
)

// Source is what the engine reads from the store, and the two things a
// recall writes back: the store's roles it uses (see memory.Store).
type Source interface {
	Projects(ctx context.Context) ([]memory.Project, error)
	memory.MemoryReader // the memories, and their counts for a build's progress
	Edges(ctx context.Context, id string) (out, in []memory.Edge, err error)
	eventSource        // to catch up from a saved index
	memory.VectorCache // an endpoint's vectors, kept across starts
	DerivedSource      // what the repository says
	// Touch records the memories a recall returned (their salience), and
	// RecordGap a question it could not answer well.
	Touch(ctx context.Context, ids []string) error
	RecordGap(ctx context.Context, project, query string, best float64) error
}

// Request is one recall.
type Request struct {
	Query    string         `json:"query"`
	Projects []string       `json:"projects"`
	Limit    int            `json:"limit,omitempty"`  // 0: 10
	Budget   int            `json:"budget,omitempty"` // tokens; 0: 800
	Layers   []memory.Layer `json:"layers,omitempty"`
	Archived bool           `json:"archived,omitempty"`
	// Peek leaves salience alone: the recall is not counted as an access
	// (evaluations, where one query must not bias the next).
	Peek bool `json:"peek,omitempty"`
	// Path scopes the recall to memories bound to or about files matching
	// it (a path, a directory, or a glob such as store/*.go): those come
	// first. With a path the query may be empty.
	Path string `json:"path,omitempty"`
	// SalienceWeight replaces PriorWeight for this recall (the settings'
	// recall.salience_weight, which the server fills in); nil: PriorWeight.
	SalienceWeight *float64 `json:"salience_weight,omitempty"`
}

// Explain says why a memory was recalled.
type Explain struct {
	Lexical    float64 `json:"lexical"`
	LexicalRnk int     `json:"lexical_rank,omitempty"`
	Vector     float64 `json:"vector"`
	VectorRnk  int     `json:"vector_rank,omitempty"`
	Trigger    string  `json:"trigger,omitempty"`
	Path       string  `json:"path,omitempty"` // the file of the memory that matched Request.Path
	Graph      string  `json:"graph,omitempty"`
	// Context is the best relevance a session neighbour lends the memory
	// (its lexical score, less with each step away), of which it takes
	// contextWeight (see contextIndex).
	Context float64 `json:"context,omitempty"`
	// When is the memory's date when the query names a time it falls in.
	When      string  `json:"when,omitempty"`
	Relevance float64 `json:"relevance"`
	Salience  float64 `json:"salience"`
	Feedback  float64 `json:"feedback,omitempty"` // -1..1: what was said of it for similar queries
	Trust     float64 `json:"trust"`
	Final     float64 `json:"final"`
	// answers is how well the memory answers the query's own words (no
	// expansion): what says whether anything is known at all.
	answers float64
}

// Hit is one recalled memory.
type Hit struct {
	Memory  *memory.Memory   `json:"memory"`
	Score   float64          `json:"score"`
	Part    Part             `json:"part"`
	Explain Explain          `json:"explain"`
	History []*memory.Memory `json:"history,omitempty"` // superseded predecessors
}

// Part is the part of an answer a hit is ranked in. Results are ordered
// by part, then by score, so a hit of an earlier part stands above a
// better-scoring one of a later part.
type Part string

// The parts, in the order they come.
const (
	PartTriggered Part = "triggered" // a negative or lesson whose trigger the task names
	PartPath      Part = "path"      // about the files asked for (--path)
	PartInvariant Part = "invariant" // an invariant itself relevant to the query
	PartRelevant  Part = "relevant"  // the rest
)

// Parts lists the parts in their order.
var Parts = []Part{PartTriggered, PartPath, PartInvariant, PartRelevant}

func (p Part) String() string { return string(p) }

// Response is a budgeted recall: current results, memories to verify
// before relying on them, and what the budget cut.
type Response struct {
	Results     []Hit `json:"results"`
	VerifyFirst []Hit `json:"verify_first"`
	// Repository is what the repository itself says about the query
	// (derived memory: sections of code and docs), ranked with Results.
	Repository []SectionHit `json:"repository,omitempty"`
	Cut        int          `json:"cut"`
	CutIDs     []string     `json:"cut_ids,omitempty"`
	Note       string       `json:"note,omitempty"` // e.g. the embedder fell back
	// Nothing is set when nothing known comes near the query (every
	// candidate scored under Floor); Weak when the best answer is under
	// Weak (a question of where something is in the repository is
	// answered weakly by the sections that come near it, not Nothing). Both put the query in the gap log (unless Peek).
	Nothing bool `json:"nothing_known,omitempty"`
	Weak    bool `json:"weak,omitempty"`
	// Building says the index is being built (at a server's start, or
	// again after an import) and this recall was not answered: Note says
	// how far it is. Ask again; an answer from a half-built index would
	// silently miss memories.
	Building bool `json:"building,omitempty"`
}

// Scores are absolute, comparable across queries: the lexical score is
// BM25 divided by the query's own weight (the sum of its words' idf, a
// word the store has never seen weighing most), so a memory that holds
// the query's rarest words scores near 1 whatever the query, and one that
// shares only a common word scores near 0. The vector score adds to it.
// Salience (use) and feedback are a bounded prior on top: they multiply
// the relevance by at most 1+PriorWeight (+FeedbackWeight), so they
// reorder memories of similar relevance and never lift an irrelevant one
// over a relevant one. Trust never enters the score. Tuning and the floor
// are measured on SciFact and LoCoMo (see README and eval_test.go).
var (
	lexWeight = 1.0
	// vecWeight weighs the built-in embedder's cosine, computed for the
	// lexical candidates only; httpVecWeight an endpoint's, whose own
	// nearest neighbours are candidates too.
	vecWeight = 0.5
	// Pseudo-relevance feedback (see lexIndex.expand).
	prfDocs, prfWords, prfAlpha = 4, 15, 0.4
	prfMinMatches               = 10
	httpVecWeight               = 0.5
	// Floor: when no memory reaches it, nothing is known about the query
	// and nothing is returned; Weak: a best answer under it is a gap worth
	// filling. Beside an answer that reaches the floor, memories down to
	// HitFloor come along as context (a strong hit says the store knows
	// the subject; cutting its neighbours at the floor cost LoCoMo 0.08
	// R@10); under HitFloor a memory shares a word with the query and no more.
	Floor    = 0.40
	Weak     = 0.70
	HitFloor = 0.20
)

const (
	PriorWeight    = 0.1
	FeedbackWeight = 0.3
	TrustThreshold = trust.Threshold
	candidates     = 100
)

// edgeWeight is how readily graph expansion follows each kind of edge.
var edgeWeight = map[memory.EdgeKind]float64{
	memory.EdgeSupersedes: 0.9, memory.EdgeContradicts: 0.9, memory.EdgeBecause: 0.6, memory.EdgeEvidence: 0.6,
	memory.EdgeLessonOf: 0.5, memory.EdgeDependsOn: 0.4, memory.EdgeDerivedFrom: 0.4, memory.EdgeRelatesTo: 0.2,
}

const hopDecay = 0.5

type doc struct {
	id       string
	project  string
	layer    memory.Layer
	status   memory.Status
	alive    bool
	triggers []string // lower-cased trigger patterns
	files    []string // files it is bound to or names (path scope)
}

// Engine holds the lexical and vector indexes of every memory and answers
// recalls. It is built from the store in the background and kept up to
// date from the store's events.
type Engine struct {
	src Source
	emb Embedder

	mu   sync.RWMutex
	docs []doc
	byID map[string]int32
	lex  *lexIndex
	vec  *search.Index[int32]
	cx   *contextIndex // times and sessions (see context.go)
	// triggered are the documents with trigger patterns: few, checked
	// against every query (a third candidate source beside lexical and
	// vector); pathed those with files, checked when a recall has a path.
	triggered map[int32]bool
	pathed    map[int32]bool
	dead      int // vectors of removed or replaced documents still in vec
	ready     chan struct{}
	err       error
	note      string

	vecName    string // the embedder every vector in vec came from
	rebuilding atomic.Bool

	// progress of the build under way (the first, or a rebuild after an
	// import); fresh is closed when a rebuild after an import is done.
	progress *buildProgress
	fresh    chan struct{}

	// The saved index (see Persist): where, the newest event it reflects,
	// and whether it changed since it was read or saved.
	snapPath string
	stamp    atomic.Pointer[string]
	dirty    atomic.Bool
	stale    atomic.Bool // an import's rebuild failed: the index must not be saved

	built func()           // see OnBuilt
	now   func() time.Time // the clock (see SetClock)

	derived derivedSet // each project's repository sections (see derived.go)
}

type buildProgress struct{ done, total atomic.Int64 }

// BuildWait is how long a recall waits for a build under way before it
// answers "building" instead.
var BuildWait = time.Second

// NewEngine makes an engine over src; Build fills it.
func NewEngine(src Source, emb Embedder) *Engine {
	if emb == nil {
		emb = NewHashed()
	}
	return &Engine{src: src, emb: emb, byID: map[string]int32{}, lex: newLexIndex(), vec: search.NewIndex[int32](), cx: newContextIndex(),
		triggered: map[int32]bool{}, pathed: map[int32]bool{}, ready: make(chan struct{}), progress: &buildProgress{}}
}

// SetClock makes the engine read the time from now instead of the
// system clock: what "yesterday" names and how recently a memory was used
// are reckoned from it (tests fix it). Set it before the first recall.
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// clock is the time now, by the engine's clock.
func (e *Engine) clock() time.Time {
	if e.now == nil {
		return time.Now()
	}
	return e.now()
}

// OnBuilt makes the engine call f after each full build (not a read of
// the saved index): a server gives back to the system what a build left
// behind. Set it before Build.
func (e *Engine) OnBuilt(f func()) { e.built = f }

// Build indexes every memory of every project, or reads the index saved
// at the last stop and catches up (see Persist). Recall waits for it.
func (e *Engine) Build(ctx context.Context) error {
	loaded := false
	defer func() {
		close(e.ready)
		if !loaded && e.built != nil {
			e.built()
		}
	}()
	if e.load(ctx) {
		loaded = true
		return nil
	}
	var stamp string
	if e.snapPath != "" {
		stamp, _ = e.src.LastEvent(ctx) // read first: what the build reads is at least this new
	}
	if err := e.build(ctx); err != nil {
		return err
	}
	if stamp != "" {
		e.noteEvent(stamp)
	}
	e.dirty.Store(true)
	return nil
}

// build reads every memory into the engine.
func (e *Engine) build(ctx context.Context) error {
	ps, err := e.src.Projects(ctx)
	if err != nil {
		e.err = err
		return err
	}
	for _, p := range ps {
		if n, err := e.src.Count(ctx, p.ID); err == nil {
			for _, byStatus := range n.ByLayer {
				for _, k := range byStatus {
					e.progress.total.Add(int64(k))
				}
			}
		}
	}
	for _, p := range ps {
		err := memory.EachPage(ctx, e.src, memory.Query{Project: p.ID, Status: memory.StatusAny, Limit: 1000}, func(ms []*memory.Memory) error {
			if err := e.index(ctx, ms); err != nil {
				return err
			}
			e.progress.done.Add(int64(len(ms)))
			return nil
		})
		if err != nil {
			e.err = err
			return err
		}
	}
	e.mu.Lock()
	e.lex.trim()
	e.mu.Unlock()
	return nil
}

// Ready is closed once the first build is done.
func (e *Engine) Ready() <-chan struct{} { return e.ready }

// Size is the number of memories indexed.
func (e *Engine) Size() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.lex.live
}

func docText(m *memory.Memory) string {
	return m.Title + "\n" + m.Body + "\n" + strings.Join(m.Tags, " ")
}

// titleBoost is how many times a title's words count (see lexTokens).
var titleBoost = 2

// lexTokens are the words the lexical index holds for m: its text, and
// its title's words once more when the title is its own (a title derived
// from the body's first line is in the body already).
func lexTokens(m *memory.Memory) []string {
	toks := Tokens(docText(m))
	if strings.HasPrefix(m.Body, strings.TrimSuffix(m.Title, "…")) {
		if t := Tokens(m.Title); len(t) <= len(toks) {
			toks = toks[len(t):] // the derived title, counted once (in the body)
		}
		return toks
	}
	title := Tokens(m.Title)
	for range titleBoost - 1 {
		toks = append(toks, title...)
	}
	return toks
}

// index adds or replaces memories. With the built-in embedder no vector
// is kept: it is computed from a candidate's words at recall (see vector).
func (e *Engine) index(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	texts := make([]string, len(ms))
	toks := make([][]string, len(ms))
	_, builtin := e.emb.(Hashed)
	// Tokenize on every core.
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(len(ms)/64, 1))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(ms); i += workers {
				texts[i] = docText(ms[i])
				toks[i] = lexTokens(ms[i])
			}
		}()
	}
	wg.Wait()
	before := e.emb.Name()
	var vecs [][]float32
	if !builtin {
		var err error
		if vecs, err = e.embed(ctx, ms, texts); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dirty.Store(true)
	name := e.emb.Name()
	if name != before {
		e.note = "the embedding endpoint failed; recall uses the built-in embedder (" + name + ")"
	}
	if e.vecName == "" {
		e.vecName = name
	}
	for i, m := range ms {
		// A memory indexed again gets a new number: its old postings (in
		// lists too long to clean at once) must never count for the new
		// text, and those of a dead number never do.
		if old, ok := e.byID[m.ID]; ok {
			if vecs != nil {
				e.dead++ // its old vector stays in vec until a rebuild
			}
			e.docs[old] = doc{}
			delete(e.triggered, old)
			delete(e.pathed, old)
			e.lex.remove(old)
			e.cx.remove(old)
		}
		n := int32(len(e.docs))
		e.docs = append(e.docs, doc{})
		e.byID[m.ID] = n
		// Project, status and file names are shared by many memories: one
		// copy of each (and never a piece of the text they were cut from).
		d := doc{id: m.ID, project: unique.Make(m.Project).Value(), layer: m.Layer, status: unique.Make(m.Status).Value(), alive: true}
		for _, t := range m.Triggers {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				d.triggers = append(d.triggers, t)
			}
		}
		d.files = memory.Files(m)
		for i, f := range d.files {
			d.files[i] = unique.Make(f).Value()
		}
		setIf(e.triggered, n, len(d.triggers) > 0)
		setIf(e.pathed, n, len(d.files) > 0)
		e.docs[n] = d
		e.lex.set(n, toks[i])
		e.cx.set(n, m)
		if vecs != nil {
			e.vec.Add(vecs[i], n)
		}
	}
	return nil
}

// embed asks the embedder for the vectors of texts (of ms) that the
// store's cache does not hold under its name, and caches what it gets: a
// server start re-embeds only what is new or changed.
func (e *Engine) embed(ctx context.Context, ms []*memory.Memory, texts []string) ([][]float32, error) {
	name := e.emb.Name()
	cache := e.src
	hashes := make([]string, len(ms))
	for i, m := range ms {
		hashes[i] = memory.ContentHash(m)
	}
	have, err := cache.Vectors(ctx, name, hashes)
	if err != nil {
		have = map[string][]float32{}
	}
	vecs := make([][]float32, len(ms))
	var todo []int
	for i, h := range hashes {
		if v, ok := have[h]; ok {
			vecs[i] = v
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return vecs, nil
	}
	ask := make([]string, len(todo))
	for j, i := range todo {
		ask[j] = texts[i]
	}
	got, err := e.emb.Embed(ctx, ask)
	if err != nil {
		return nil, err
	}
	fresh := map[string][]float32{}
	for j, i := range todo {
		vecs[i] = got[j]
		fresh[hashes[i]] = got[j]
	}
	if e.emb.Name() == name && !strings.HasPrefix(name, "hashed-") { // not what a fallback made
		_ = cache.PutVectors(ctx, name, fresh) // a cache that cannot be written costs time, not answers
	}
	if len(todo) < len(ms) && e.emb.Name() != name {
		// The embedder fell back meanwhile: the cached vectors are of the
		// other model, and must not mix with the new ones.
		return e.emb.Embed(ctx, texts)
	}
	return vecs, nil
}

func setIf(set map[int32]bool, n int32, on bool) {
	if on {
		set[n] = true
	} else {
		delete(set, n)
	}
}

// Forget removes a memory from the indexes.
func (e *Engine) Forget(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n, ok := e.byID[id]; ok {
		e.docs[n].alive = false
		e.dirty.Store(true)
		delete(e.triggered, n)
		delete(e.pathed, n)
		e.lex.remove(n)
		e.cx.remove(n)
		e.dead++
	}
}

// Refresh re-reads one memory after a change (or removes it if it is gone).
func (e *Engine) Refresh(ctx context.Context, id string) error {
	m, err := e.src.Get(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		e.Forget(id)
		return nil
	}
	if err != nil {
		return err
	}
	return e.index(ctx, []*memory.Memory{m})
}

// Follow keeps the engine up to date from a stream of store events.
func (e *Engine) Follow(ctx context.Context, events <-chan memory.Event) {
	for ev := range events {
		switch {
		case ev.Kind == memory.EventIndex:
			e.derived.changed(ev.Project)
		case ev.Kind == memory.EventForget:
			e.Forget(ev.MemoryID)
			e.dropSnapshot() // it may hold the forgotten memory's words
		case ev.MemoryID != "":
			_ = e.Refresh(ctx, ev.MemoryID)
		case ev.Kind == memory.EventImport:
			if err := e.rebuild(ctx, true); err != nil {
				// The index lacks what was imported: never save it.
				e.stale.Store(true)
				e.dropSnapshot()
				continue
			}
		}
		if ev.ID != "" {
			e.noteEvent(ev.ID)
		}
	}
}

// Rebuild re-indexes everything (after an import, which writes one event,
// or when the embedder changed).
func (e *Engine) Rebuild(ctx context.Context) error { return e.rebuild(ctx, false) }

// rebuild is Rebuild; after an import (imported) recalls wait for it or
// answer "building", since the old index lacks what was imported.
func (e *Engine) rebuild(ctx context.Context, imported bool) error {
	fresh := NewEngine(e.src, e.emb)
	if imported {
		done := make(chan struct{})
		defer close(done)
		e.mu.Lock()
		e.fresh, e.progress = done, fresh.progress
		e.mu.Unlock()
	}
	if err := fresh.Build(ctx); err != nil {
		return err
	}
	e.mu.Lock()
	e.docs, e.byID, e.lex, e.vec, e.dead, e.triggered, e.pathed = fresh.docs, fresh.byID, fresh.lex, fresh.vec, 0, fresh.triggered, fresh.pathed
	e.cx = fresh.cx
	e.dirty.Store(true)
	e.vecName = fresh.vecName
	e.rebuilding.Store(false)
	e.mu.Unlock()
	if e.built != nil {
		e.built() // the old index is garbage now
	}
	return nil
}

// building waits up to BuildWait for a build under way and says how far
// it is if it is not done by then ("" when the index is whole).
func (e *Engine) building(ctx context.Context) (string, error) {
	e.mu.RLock()
	fresh, p := e.fresh, e.progress
	e.mu.RUnlock()
	wait := time.NewTimer(BuildWait)
	defer wait.Stop()
	for _, ch := range []<-chan struct{}{e.ready, fresh} {
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", ctx.Err()
		case <-wait.C:
			done, total := p.done.Load(), p.total.Load()
			pct := 0
			if total > 0 {
				pct = int(min(100*done/total, 99))
			}
			return fmt.Sprintf("building the index … %d %% (%d of %d memories): ask again in a moment", pct, done, total), nil
		}
	}
	return "", nil
}

// Recall answers one request: the candidates gathered (by their words,
// their vectors, their triggers, the files they are about and the times
// they are of), the best of them loaded, the graph followed from them,
// the repository's own sections beside them, shaped to the limit and the
// budget, and the answer recorded as an access.
func (e *Engine) Recall(ctx context.Context, req Request) (Response, error) {
	switch note, err := e.building(ctx); {
	case err != nil:
		return Response{}, err
	case note != "":
		return Response{Results: []Hit{}, VerifyFirst: []Hit{}, Building: true, Note: note}, nil
	}
	if e.err != nil {
		return Response{}, fmt.Errorf("the recall index could not be built: %w", e.err)
	}
	req, err := checkRequest(req)
	if err != nil {
		return Response{}, err
	}
	now := e.clock()
	g, err := e.newGathering(ctx, req, now)
	if err != nil {
		return Response{}, err
	}
	e.mu.RLock()
	g.gather(ctx)
	ids := map[int32]string{}
	for n := range g.cands {
		ids[n] = e.docs[n].id
	}
	e.mu.RUnlock()

	hits, mems := e.loadBest(ctx, g.cands, ids, req.Limit)
	e.expand(ctx, hits, mems, req)
	var sections []*SectionHit
	qvec := g.qvec
	if !g.builtin {
		qvec = nil // an endpoint's query vector does not compare with hashed words
	}
	if len(req.Layers) == 0 && !req.Archived {
		sections = e.recallDerived(ctx, req, g.qtoks, qvec)
	}
	resp := e.shape(hits, sections, req, g.qtoks, now)
	if !req.Peek {
		e.used(ctx, resp, req)
	}
	return resp, nil
}

// checkRequest fills in a request's defaults and refuses one that asks
// for nothing or names a path that cannot be matched.
func checkRequest(req Request) (Request, error) {
	if req.Limit <= 0 {
		req.Limit = 10
	}
	if req.Budget <= 0 {
		req.Budget = 800
	}
	req.Path = strings.TrimSpace(req.Path)
	if strings.TrimSpace(req.Query) == "" && req.Path == "" {
		return req, fmt.Errorf("%w: the query is empty: say what the task is about", memory.ErrInvalid)
	}
	if req.Path != "" {
		if err := ValidPath(req.Path); err != nil {
			return req, err
		}
	}
	return req, nil
}

// gathering is one recall's search for candidates: the query read, what
// the recall may return (keep), and the candidates found so far with why.
type gathering struct {
	e       *Engine
	req     Request
	query   string // trimmed
	spans   []span // the times the query names
	qtoks   []string
	qvec    []float32
	builtin bool // the embedder is the built-in hashed one

	inScope map[string]bool
	layerOK map[memory.Layer]bool
	cands   map[int32]*Explain
	// The query's weight: its words' (see lexIndex.mass) and, when it
	// names a time, the time's, which memories of that time carry.
	mass, dateMass float64
	matched        int // memories holding a word of the query
}

// newGathering reads the query: the times it names are matched against
// memories' own times, its other words against their text (and, with an
// endpoint, its meaning against their vectors).
func (e *Engine) newGathering(ctx context.Context, req Request, now time.Time) (*gathering, error) {
	g := &gathering{e: e, req: req, query: strings.TrimSpace(req.Query),
		inScope: map[string]bool{}, layerOK: map[memory.Layer]bool{}, cands: map[int32]*Explain{}}
	var rest string
	g.spans, rest = querySpans(g.query, now)
	g.qtoks = Tokens(rest)
	_, g.builtin = e.emb.(Hashed)
	if g.query != "" {
		if g.builtin {
			g.qvec = NewHashed().fromTokens(g.qtoks)
		} else {
			v, err := e.emb.Embed(ctx, []string{g.query})
			if err != nil {
				return nil, err
			}
			g.qvec = v[0]
		}
	}
	for _, p := range req.Projects {
		g.inScope[p] = true
	}
	for _, l := range req.Layers {
		g.layerOK[l] = true
	}
	return g, nil
}

// gather finds the candidates, under the engine's read lock.
func (g *gathering) gather(ctx context.Context) {
	if g.query != "" {
		g.byWords()
		g.byVector(ctx)
		g.byTrigger()
	}
	if g.req.Path != "" {
		g.byPath()
	}
	if g.builtin && g.qvec != nil {
		g.refineByHashedVector()
	}
	if len(g.spans) > 0 {
		g.byTime()
	}
}

// keep says whether document n may be returned by this recall: alive, in
// the projects and layers asked for, and current (superseded ones surface
// as history; archived ones only when asked for).
func (g *gathering) keep(n int32) bool {
	d := g.e.docs[n]
	if !d.alive || !g.inScope[d.project] || (len(g.layerOK) > 0 && !g.layerOK[d.layer]) {
		return false
	}
	switch d.status {
	case memory.StatusActive, memory.StatusSuperseded:
		return true
	case memory.StatusArchived:
		return g.req.Archived
	}
	return false
}

// get is the explanation of candidate n, made a candidate if it was not.
func (g *gathering) get(n int32) *Explain {
	if c, ok := g.cands[n]; ok {
		return c
	}
	c := &Explain{}
	g.cands[n] = c
	return c
}

// byWords scores the memories by the query's words (BM25, expanded by
// the best matches' words when they are many), and their session
// neighbours by the relevance they lend.
func (g *gathering) byWords() {
	x := g.e.lex
	g.mass = x.mass(g.qtoks)
	if len(g.spans) > 0 {
		g.dateMass = x.dateMass(g.qtoks)
		g.mass += g.dateMass
	}
	acc := x.accumulator()
	words := weights(g.qtoks)
	acc.add(words)
	lex := acc.top(candidates, g.keep)
	g.matched = len(lex)
	for _, s := range lex {
		g.get(s.doc).answers = s.score / g.mass
	}
	if prfAlpha > 0 && len(lex) >= prfMinMatches {
		// Only when the words matched enough memories for the best to
		// stand for the subject: in a handful, the best are all there is.
		acc.add(x.expand(words, lex, prfDocs, prfWords, prfAlpha))
		lex = acc.top(candidates, g.keep)
	}
	near := g.e.near(lex, g.keep)
	acc.release()
	for i, s := range lex {
		c := g.get(s.doc)
		c.Lexical, c.LexicalRnk = s.score, i+1
		c.Relevance += lexWeight * s.score / g.mass
	}
	for n, s := range near {
		c := g.get(n)
		c.Context = s / g.mass
		c.Relevance += lexWeight * contextWeight * s / g.mass
	}
}

// byVector adds an endpoint's nearest neighbours of the query: its
// vectors carry meaning, so they are candidates of their own.
func (g *gathering) byVector(ctx context.Context) {
	e := g.e
	if g.builtin {
		return
	}
	if e.vecName != e.emb.Name() {
		if e.rebuilding.CompareAndSwap(false, true) {
			// The embedder changed under the index (an endpoint fell back):
			// lexical only until the vectors are rebuilt with the new one.
			go e.Rebuild(context.WithoutCancel(ctx))
		}
		return
	}
	var vec []scored
	for _, r := range e.vec.Search(g.qvec, candidates*3+e.dead) {
		if r.Relevance > 0 && g.keep(r.Value) && len(vec) < candidates {
			vec = append(vec, scored{r.Value, r.Relevance})
		}
	}
	for i, s := range vec {
		c := g.get(s.doc)
		c.Vector, c.VectorRnk = s.score, i+1
		c.Relevance += httpVecWeight * max(s.score, 0)
		c.answers += httpVecWeight * max(s.score, 0)
	}
}

// byTrigger marks the memories whose trigger the query names, with the
// most specific of their triggers that fires.
func (g *gathering) byTrigger() {
	prepared := memory.PrepareTriggerText(g.query)
	for n := range g.e.triggered {
		if !g.keep(n) {
			continue
		}
		if t := mostSpecific(prepared, g.e.docs[n].triggers); t != "" {
			g.get(n).Trigger = t
		}
	}
}

// byPath marks the memories about the files asked for.
func (g *gathering) byPath() {
	for n := range g.e.pathed {
		if !g.keep(n) {
			continue
		}
		if f := MatchPath(g.req.Path, g.e.docs[n].files); f != "" {
			c := g.get(n)
			c.Path = f
			if g.query == "" {
				c.Relevance = 1 // about the file is all that was asked
			}
		}
	}
}

// refineByHashedVector: the built-in embedder refines what the words
// found: its cosine of each candidate, computed from the candidate's
// indexed words.
func (g *gathering) refineByHashedVector() {
	var words []string
	vec := make([]float32, len(g.qvec))
	for n, c := range g.cands {
		words = g.e.lex.appendWords(words[:0], n)
		c.Vector = cosine(g.qvec, NewHashed().fromTokensInto(vec, words))
		c.Relevance += vecWeight * max(c.Vector, 0)
		if c.answers > 0 {
			c.answers += vecWeight * max(c.Vector, 0)
		}
	}
	ranked := make([]int32, 0, len(g.cands))
	for n := range g.cands {
		ranked = append(ranked, n)
	}
	sort.Slice(ranked, func(i, j int) bool { return g.cands[ranked[i]].Vector > g.cands[ranked[j]].Vector })
	for i, n := range ranked {
		g.cands[n].VectorRnk = i + 1
	}
}

// byTime credits the candidates of the times the query names with the
// time's share of the query.
func (g *gathering) byTime() {
	if g.matched < g.req.Limit {
		// The memories of that time hold the time's share of the query, as
		// a memory holding one of its words holds that word's: when the
		// words found too few to answer ("what happened yesterday"), they
		// are candidates too (the latest, as many as the lexical ones).
		for _, n := range g.e.cx.within(g.spans, candidates, g.keep) {
			g.get(n)
		}
	}
	for n, c := range g.cands {
		if t := g.e.cx.time(n); inSpans(g.spans, t) {
			c.When = t.Format(time.DateOnly)
			c.Relevance += lexWeight * g.dateMass / g.mass
			c.answers += g.dateMass / g.mass
		}
	}
}

// loadBest loads the candidates worth shaping, best first: the best by
// relevance, and beside them as many of the pinned ones (about the path,
// or triggered: the most specific trigger first): however many negatives
// a word triggers, they never push the answer out before shape has
// ranked it.
func (e *Engine) loadBest(ctx context.Context, cands map[int32]*Explain, ids map[int32]string, limit int) (map[string]*Hit, map[string]*memory.Memory) {
	order := make([]int32, 0, len(cands))
	for n, c := range cands {
		if c.Relevance > 0 || c.Trigger != "" || c.Path != "" {
			order = append(order, n)
		}
	}
	sort.Slice(order, func(i, j int) bool { return cands[order[i]].Relevance > cands[order[j]].Relevance })
	if n := 3*limit + 20; len(order) > n {
		rest := slices.DeleteFunc(order[n:], func(k int32) bool { return cands[k].Trigger == "" && cands[k].Path == "" })
		sort.SliceStable(rest, func(i, j int) bool {
			a, b := cands[rest[i]], cands[rest[j]]
			if pa, pb := a.Path != "", b.Path != ""; pa != pb {
				return pa
			}
			return MoreSpecific(a.Trigger, b.Trigger)
		})
		order = append(order[:n:n], rest[:min(len(rest), n)]...)
	}
	mems := map[string]*memory.Memory{}
	hits := map[string]*Hit{}
	for _, n := range order {
		m, err := e.src.Get(ctx, ids[n])
		if err != nil {
			continue
		}
		mems[m.ID] = m
		hits[m.ID] = &Hit{Memory: m, Explain: *cands[n]}
	}
	return hits, mems
}

// used counts a recall as an access of what it returned (salience, never
// trust; the store writes accesses in batches, and recall's ranking reads
// uses, not accesses: see UseActivation), and puts an unanswered or weakly
// answered query in the gap log.
func (e *Engine) used(ctx context.Context, resp Response, req Request) {
	var ids []string
	for _, h := range append(resp.Results, resp.VerifyFirst...) {
		ids = append(ids, h.Memory.ID)
	}
	if len(ids) > 0 {
		_ = e.src.Touch(ctx, ids)
	}
	if (resp.Nothing || resp.Weak) && strings.TrimSpace(req.Query) != "" && len(req.Projects) > 0 {
		best := 0.0
		if len(resp.Results) > 0 {
			best = resp.Results[0].Explain.Relevance
		}
		_ = e.src.RecordGap(ctx, req.Projects[0], req.Query, best)
	}
}

// Recaller answers recalls: the engine in the process that owns the store,
// or a client of it.
type Recaller interface {
	Recall(ctx context.Context, req Request) (Response, error)
}

// expand follows edges from the best hits, best-first, within a frontier
// budget: supersedes and contradicts almost always, because and evidence
// often, relates_to rarely, halving per hop.
func (e *Engine) expand(ctx context.Context, hits map[string]*Hit, mems map[string]*memory.Memory, req Request) {
	type node struct {
		id    string
		score float64
		path  string
		hops  int
	}
	var frontier []node
	for id, h := range hits {
		if h.Explain.Relevance >= HitFloor || h.Explain.Trigger != "" || h.Explain.Path != "" {
			frontier = append(frontier, node{id, h.Explain.Relevance, "", 0})
		}
	}
	budget := 2 * req.Limit // edges followed at most
	for budget > 0 && len(frontier) > 0 {
		sort.Slice(frontier, func(i, j int) bool { return frontier[i].score > frontier[j].score })
		cur := frontier[0]
		frontier = frontier[1:]
		if cur.hops >= 2 {
			continue
		}
		out, in, err := e.src.Edges(ctx, cur.id)
		if err != nil {
			continue
		}
		type step struct {
			to   string
			kind memory.EdgeKind
			dir  string
		}
		var steps []step
		for _, ed := range out {
			steps = append(steps, step{ed.To, ed.Kind, "→"})
		}
		for _, ed := range in {
			steps = append(steps, step{ed.From, ed.Kind, "←"})
		}
		for _, s := range steps {
			w := edgeWeight[s.kind] * hopDecay
			score := cur.score * w
			if h, ok := hits[s.to]; ok || score < 1e-4 {
				if ok && h.Explain.Graph == "" && s.kind != memory.EdgeRelatesTo {
					// found by its words too: say what links it here
					h.Explain.Graph = strings.TrimSpace(cur.path + fmt.Sprintf(" %s %s %s", short(cur.id), s.dir+string(s.kind), short(s.to)))
				}
				continue
			}
			budget--
			m, err := e.src.Get(ctx, s.to)
			if err != nil || !inProjects(m, req) {
				continue
			}
			path := strings.TrimSpace(cur.path + fmt.Sprintf(" %s %s %s", short(cur.id), s.dir+string(s.kind), short(s.to)))
			hits[s.to] = &Hit{Memory: m, Explain: Explain{Graph: path, Relevance: score}}
			mems[m.ID] = m
			frontier = append(frontier, node{s.to, score, path, cur.hops + 1})
			if budget <= 0 {
				break
			}
		}
	}
}

func inProjects(m *memory.Memory, req Request) bool {
	for _, p := range req.Projects {
		if m.Project == p {
			return m.Status != memory.StatusArchived || req.Archived
		}
	}
	return false
}

func short(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

// shape turns scored hits into the answer: the salience and feedback
// prior applied, what scores under the floor left out, superseded
// memories attached to their successors, low trust set apart, the budget
// filled with triggered negatives, path matches and relevant invariants
// first. now is the time salience is reckoned at.
func (e *Engine) shape(hits map[string]*Hit, sections []*SectionHit, req Request, qtoks []string, now time.Time) Response {
	list, best := weigh(hits, req, qtoks, now)
	sections = slices.DeleteFunc(sections, func(h *SectionHit) bool {
		return h.Part != PartPath && h.Explain.Relevance < HitFloor
	})
	for _, h := range sections {
		best = math.Max(best, h.Explain.answers)
	}
	// A question of where something is in the repository keeps the
	// sections that come near it, as grep would show them, when none
	// answers it well: weak places to look, not nothing.
	weakPlaces := best < Floor && len(sections) > 0 && (asksWhereCode(req.Query) || asksDocs(req.Query) || asksHow(req.Query))
	if best < Floor { // nothing known: what is left is noise, but for what is pinned
		list = slices.DeleteFunc(list, func(h *Hit) bool { return h.Explain.Trigger == "" && h.Explain.Path == "" })
		if !weakPlaces {
			sections = slices.DeleteFunc(sections, func(h *SectionHit) bool { return h.Part != PartPath })
		}
	}
	attachHistory(hits)
	rankParts(list, best)
	e.mu.RLock()
	note := e.note // written by index when the embedder falls back
	e.mu.RUnlock()
	resp := Response{Results: []Hit{}, VerifyFirst: []Hit{}, Note: note}
	var current []*Hit
	for _, h := range list {
		if h.Explain.Trust < TrustThreshold {
			if len(resp.VerifyFirst) < req.Limit {
				resp.VerifyFirst = append(resp.VerifyFirst, *h)
			}
			continue
		}
		current = append(current, h)
	}
	fillBudget(&resp, current, sections, req)
	if strings.TrimSpace(req.Query) != "" {
		resp.Nothing = best < Floor && !weakPlaces
		resp.Weak = !resp.Nothing && best < Weak
	}
	return resp
}

// weigh applies the salience and feedback prior to the hits that may be
// answers (current, and over the floor unless pinned or reached by the
// graph), and says how well the best of them answers the query.
func weigh(hits map[string]*Hit, req Request, qtoks []string, now time.Time) (list []*Hit, best float64) {
	prior := PriorWeight
	if req.SalienceWeight != nil {
		prior = *req.SalienceWeight
	}
	for _, h := range hits {
		m := h.Memory
		if m.Status == memory.StatusSuperseded {
			continue // shown as history of its successor (attachHistory)
		}
		pinned := h.Explain.Trigger != "" || h.Explain.Path != ""
		if h.Explain.Relevance < HitFloor && !pinned && h.Explain.Graph == "" {
			continue // a faint echo of the query, not an answer
		}
		best = math.Max(best, h.Explain.answers)
		h.Explain.Salience = UseActivation(m.Salience, now)
		h.Explain.Feedback = FeedbackFor(m.Salience, qtoks)
		h.Explain.Trust = memory.Trust(m)
		h.Explain.Final = h.Explain.Relevance * (1 + prior*h.Explain.Salience + FeedbackWeight*h.Explain.Feedback)
		h.Score = h.Explain.Final
		list = append(list, h)
	}
	return list, best
}

// attachHistory attaches superseded hits to their successor when it is
// here.
func attachHistory(hits map[string]*Hit) {
	for _, h := range hits {
		if h.Memory.Status == memory.StatusSuperseded {
			if succ, ok := hits[h.Memory.SupersededBy]; ok {
				succ.History = append(succ.History, h.Memory)
			}
		}
	}
}

// rankParts puts each hit in its part and orders them: triggered
// negatives first (the mistake about to be repeated), then what is about
// the path asked for, then invariants that are themselves relevant, then
// the rest. Only the few most telling of the triggered ones stand above
// the answer (see pinTriggered); the others rank by their own score.
func rankParts(list []*Hit, best float64) {
	pinned := pinTriggered(list)
	for _, h := range list {
		switch {
		case pinned[h] > 0:
			h.Part = PartTriggered
		case h.Explain.Path != "":
			h.Part = PartPath
		case h.Memory.Layer == memory.LayerInvariant && h.Explain.Relevance >= 0.5*best && h.Explain.Relevance >= Weak:
			h.Part = PartInvariant
		default:
			h.Part = PartRelevant
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if ri, rj := slices.Index(Parts, list[i].Part), slices.Index(Parts, list[j].Part); ri != rj {
			return ri < rj
		}
		if pi, pj := pinned[list[i]], pinned[list[j]]; pi != pj {
			return pi < pj
		}
		if list[i].Score != list[j].Score {
			return list[i].Score > list[j].Score
		}
		return list[i].Memory.ID < list[j].Memory.ID
	})
}

// fillBudget fills the answer's places and token budget. Memories and
// sections share the limit and the budget, in one order: by part, then by
// score, a memory first where both score the same. Sections take at most
// half the places while memories are left, so that what was learned is
// never crowded out by what merely exists. The memories that do not fit
// are counted as cut.
func fillBudget(resp *Response, current []*Hit, sections []*SectionHit, req Request) {
	maxSections := max(req.Limit-len(current), (req.Limit+1)/2)
	used, nsec, results := 0, 0, 0
	i, j := 0, 0
	for i < len(current) || j < len(sections) {
		takeMemory := j >= len(sections) || nsec >= maxSections
		if !takeMemory && i < len(current) {
			h, s := current[i], sections[j]
			pi, ps := slices.Index(Parts, h.Part), slices.Index(Parts, s.Part)
			takeMemory = pi < ps || (pi == ps && h.Score >= s.Score)
		}
		if takeMemory && i >= len(current) {
			break // the sections' share is taken
		}
		if takeMemory {
			h := current[i]
			i++
			cost := Cost(h.Memory)
			if results >= req.Limit || (used+cost > req.Budget && results > 0) {
				resp.Cut++
				resp.CutIDs = append(resp.CutIDs, h.Memory.ID)
				continue
			}
			used += cost
			results++
			resp.Results = append(resp.Results, *h)
			continue
		}
		s := sections[j]
		j++
		if cost := s.Cost(); results < req.Limit && (used+cost <= req.Budget || results == 0) {
			used += cost
			results++
			nsec++
			resp.Repository = append(resp.Repository, *s)
		}
	}
}

// MaxTriggered bounds the triggered negatives and lessons a recall puts
// above everything else. A common word ("billing") can trigger a dozen:
// all of them first would crowd the answer out; two leave the answer in
// the top three.
const MaxTriggered = 2

// pinTriggered chooses the triggered hits that stand first, at most
// MaxTriggered, and their order (1 is first; 0: not chosen): the best
// answer of all when it is triggered itself, then the most specific
// trigger ("make migrate" over "migrate"), then the higher score. Low
// trust ones are not chosen (they are set apart to verify first). The
// others keep their trigger in their explanation and rank by their own
// score, below the answer when it scores higher.
func pinTriggered(list []*Hit) map[*Hit]int {
	var top *Hit
	var trig []*Hit
	for _, h := range list {
		if h.Explain.Trust < TrustThreshold {
			continue
		}
		if top == nil || h.Score > top.Score {
			top = h
		}
		if h.Explain.Trigger != "" {
			trig = append(trig, h)
		}
	}
	sort.SliceStable(trig, func(i, j int) bool {
		a, b := trig[i], trig[j]
		if (a == top) != (b == top) {
			return a == top
		}
		if MoreSpecific(a.Explain.Trigger, b.Explain.Trigger) || MoreSpecific(b.Explain.Trigger, a.Explain.Trigger) {
			return MoreSpecific(a.Explain.Trigger, b.Explain.Trigger)
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Memory.ID < b.Memory.ID
	})
	pinned := map[*Hit]int{}
	for i, h := range trig[:min(len(trig), MaxTriggered)] {
		pinned[h] = i + 1
	}
	return pinned
}

// MoreSpecific reports whether trigger a names a narrower thing than b:
// more words ("make migrate" over "migrate"; a pattern's literal parts
// count as words), then more characters.
func MoreSpecific(a, b string) bool {
	wa, wb := len(triggerWords(a)), len(triggerWords(b))
	if wa != wb {
		return wa > wb
	}
	return utf8.RuneCountInString(strings.TrimSpace(a)) > utf8.RuneCountInString(strings.TrimSpace(b))
}

func triggerWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// mostSpecific is the most specific (MoreSpecific) of triggers that fires
// on text, or "".
func mostSpecific(text *memory.TriggerText, triggers []string) string {
	best := ""
	for _, t := range triggers {
		if (best == "" || MoreSpecific(t, best)) && text.Match([]string{t}) != "" {
			best = strings.TrimSpace(t)
		}
	}
	return best
}

// Activation is ACT-R base-level activation, B = ln Σ w·t^-0.5 over the
// times a memory was recalled or used, squashed into 0..1: recency and
// frequency raise it, disuse decays it. A recall that returned a memory
// counts w = 0.2 (returned is not used); feedback that it helped and
// being said again (reinforcement, dated a day back) count whole. Ages
// under a minute count as a minute, so a burst of recalls is not
// "often": one recall gives about 0.13, five in a row 0.68. It orders the
// briefing and shows how alive a memory is; recall ranks by UseActivation.
func Activation(s memory.Salience, now time.Time) float64 { return activation(s, now, 0.2) }

// UseActivation is Activation of the uses alone: reinforcement and
// helpful feedback. Recall's prior is this: a memory an agent only saw in
// earlier answers ranks exactly as if it had not been recalled (returned
// is not used; counting it let what was recalled before crowd out what is
// relevant now), one that helped ranks a little higher for every query
// (and more for similar ones, see FeedbackFor).
func UseActivation(s memory.Salience, now time.Time) float64 { return activation(s, now, 0) }

func activation(s memory.Salience, now time.Time, seen float64) float64 {
	const day, month = 24 * 3600, 30 * 24 * 3600
	age := func(t time.Time) float64 { return math.Max(now.Sub(t).Seconds(), 60) }
	sum := float64(s.Reinforcements) * math.Pow(day, -0.5)
	for _, t := range s.Accesses {
		sum += seen * math.Pow(age(t), -0.5)
	}
	if extra := s.AccessCount - len(s.Accesses); extra > 0 {
		sum += seen * float64(extra) * math.Pow(month, -0.5) // older uses beyond the kept history
	}
	for _, f := range s.Feedback {
		if f.Helpful {
			sum += math.Pow(age(f.At), -0.5)
		}
	}
	if sum == 0 {
		return 0
	}
	b := math.Log(sum)
	return 1 / (1 + math.Exp(-(b+2.5)/0.6))
}

// FeedbackFor is what was said of a memory for queries like this one,
// -1..1: each feedback counts by how many words its query shares with
// this one (cosine of the word sets), helpful up, unhelpful down.
func FeedbackFor(s memory.Salience, qtoks []string) float64 {
	if len(s.Feedback) == 0 || len(qtoks) == 0 {
		return 0
	}
	q := map[string]bool{}
	for _, t := range qtoks {
		q[t] = true
	}
	var sum float64
	for _, f := range s.Feedback {
		ft := map[string]bool{}
		for _, t := range Tokens(f.Query) {
			ft[t] = true
		}
		common := 0
		for t := range ft {
			if q[t] {
				common++
			}
		}
		if common == 0 {
			continue
		}
		sim := float64(common) / math.Sqrt(float64(len(q)*len(ft)))
		if f.Helpful {
			sum += sim
		} else {
			sum -= sim
		}
	}
	return math.Max(-1, math.Min(1, sum))
}

// For returns the recaller of a store: the store itself when it already
// answers recalls (a client of the server that owns the store), else an
// engine built here over it. This is a choice of which process recalls,
// not a probe of what the store can do: every store is a Source.
func For(ctx context.Context, src Source) (Recaller, error) {
	if r, ok := src.(Recaller); ok {
		return r, nil
	}
	e := NewEngine(src, nil)
	if err := e.Build(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// ActivationNow is Activation at this moment.
func ActivationNow(s memory.Salience) float64 { return Activation(s, time.Now()) }

// Triggered returns the first of a memory's triggers that text names, or
// "". Recall, the store and the agents' hooks match triggers the same way
// (memory.Triggered).
func Triggered(text string, triggers []string) string { return memory.Triggered(text, triggers) }
