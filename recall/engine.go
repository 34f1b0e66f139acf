package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kelindar/search"

	"cairn/memory"
	"cairn/store"
	"cairn/trust"
)

// Source is what the engine reads from the store.
type Source interface {
	Projects(ctx context.Context) ([]memory.Project, error)
	List(ctx context.Context, q store.Query) (store.Page, error)
	Get(ctx context.Context, id string) (*memory.Memory, error)
	Edges(ctx context.Context, id string) (out, in []memory.Edge, err error)
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
}

// Explain says why a memory was recalled.
type Explain struct {
	Lexical    float64 `json:"lexical"`
	LexicalRnk int     `json:"lexical_rank,omitempty"`
	Vector     float64 `json:"vector"`
	VectorRnk  int     `json:"vector_rank,omitempty"`
	Trigger    string  `json:"trigger,omitempty"`
	Graph      string  `json:"graph,omitempty"`
	Relevance  float64 `json:"relevance"`
	Salience   float64 `json:"salience"`
	Trust      float64 `json:"trust"`
	Final      float64 `json:"final"`
}

// Hit is one recalled memory.
type Hit struct {
	Memory  *memory.Memory   `json:"memory"`
	Score   float64          `json:"score"`
	Explain Explain          `json:"explain"`
	History []*memory.Memory `json:"history,omitempty"` // superseded predecessors
}

// Response is a budgeted recall: current results, memories to verify
// before relying on them, and what the budget cut.
type Response struct {
	Results     []Hit    `json:"results"`
	VerifyFirst []Hit    `json:"verify_first"`
	Cut         int      `json:"cut"`
	CutIDs      []string `json:"cut_ids,omitempty"`
	Note        string   `json:"note,omitempty"` // e.g. the embedder fell back
}

// Tuning (measured on SciFact and LoCoMo, see README): relevance is a
// weighted sum of the lexical and vector scores; salience is blended in
// with SalienceWeight; trust never is.
var (
	lexWeight = 1.0
	vecWeight = 0.2
)

const (
	SalienceWeight = 0.3
	TrustThreshold = trust.Threshold
	candidates     = 100
)

// edgeWeight is how readily graph expansion follows each kind of edge.
var edgeWeight = map[memory.EdgeKind]float64{
	memory.EdgeSupersedes: 0.9, memory.EdgeContradicts: 0.9, memory.EdgeBecause: 0.6, memory.EdgeEvidence: 0.6,
	memory.EdgeLessonOf: 0.5, memory.EdgeDependsOn: 0.4, memory.EdgeDerivedFrom: 0.4, memory.EdgeRelatesTo: 0.2,
}

const hopDecay = 0.5

// relevanceFloor drops candidates scoring under this share of the best:
// the fuzzy vector list otherwise pads every answer with strangers.
const relevanceFloor = 0.15

type doc struct {
	id       string
	project  string
	layer    memory.Layer
	status   memory.Status
	alive    bool
	triggers []string // lower-cased trigger patterns
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
	// triggered are the documents with trigger patterns: few, checked
	// against every query (a third candidate source beside lexical and vector).
	triggered map[int32]bool
	dead      int // vectors of removed or replaced documents still in vec
	ready     chan struct{}
	err       error
	note      string

	vecName    string // the embedder every vector in vec came from
	rebuilding atomic.Bool
}

// NewEngine makes an engine over src; Build fills it.
func NewEngine(src Source, emb Embedder) *Engine {
	if emb == nil {
		emb = NewHashed()
	}
	return &Engine{src: src, emb: emb, byID: map[string]int32{}, lex: newLexIndex(), vec: search.NewIndex[int32](),
		triggered: map[int32]bool{}, ready: make(chan struct{})}
}

// Build indexes every memory of every project. Recall waits for it.
func (e *Engine) Build(ctx context.Context) error {
	defer close(e.ready)
	ps, err := e.src.Projects(ctx)
	if err != nil {
		e.err = err
		return err
	}
	for _, p := range ps {
		q := store.Query{Project: p.ID, Status: store.StatusAny, Limit: 1000}
		for {
			page, err := e.src.List(ctx, q)
			if err != nil {
				e.err = err
				return err
			}
			if err := e.index(ctx, page.Memories); err != nil {
				e.err = err
				return err
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
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

// index adds or replaces memories.
func (e *Engine) index(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	texts := make([]string, len(ms))
	toks := make([][]string, len(ms))
	hashed, builtin := e.emb.(Hashed)
	var vecs [][]float32
	if builtin {
		vecs = make([][]float32, len(ms))
	}
	// Tokenize (and, with the built-in embedder, embed) on every core.
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(len(ms)/64, 1))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(ms); i += workers {
				texts[i] = docText(ms[i])
				toks[i] = Tokens(texts[i])
				if builtin {
					vecs[i] = hashed.fromTokens(toks[i])
				}
			}
		}()
	}
	wg.Wait()
	before := e.emb.Name()
	if !builtin {
		var err error
		if vecs, err = e.emb.Embed(ctx, texts); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	name := e.emb.Name()
	if name != before {
		e.note = "the embedding endpoint failed; recall uses the built-in embedder (" + name + ")"
	}
	if e.vecName == "" {
		e.vecName = name
	}
	for i, m := range ms {
		n, ok := e.byID[m.ID]
		if ok {
			e.dead++ // its old vector stays in vec until a rebuild
		} else {
			n = int32(len(e.docs))
			e.docs = append(e.docs, doc{})
			e.byID[m.ID] = n
		}
		d := doc{id: m.ID, project: m.Project, layer: m.Layer, status: m.Status, alive: true}
		for _, t := range m.Triggers {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				d.triggers = append(d.triggers, t)
			}
		}
		if len(d.triggers) > 0 {
			e.triggered[n] = true
		} else {
			delete(e.triggered, n)
		}
		e.docs[n] = d
		e.lex.set(n, toks[i])
		e.vec.Add(vecs[i], n)
	}
	return nil
}

// Forget removes a memory from the indexes.
func (e *Engine) Forget(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n, ok := e.byID[id]; ok {
		e.docs[n].alive = false
		delete(e.triggered, n)
		e.lex.remove(n)
		e.dead++
	}
}

// Refresh re-reads one memory after a change (or removes it if it is gone).
func (e *Engine) Refresh(ctx context.Context, id string) error {
	m, err := e.src.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
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
		case ev.Kind == memory.EventForget:
			e.Forget(ev.MemoryID)
		case ev.MemoryID != "":
			_ = e.Refresh(ctx, ev.MemoryID)
		case ev.Kind == memory.EventImport:
			_ = e.Rebuild(ctx)
		}
	}
}

// Rebuild re-indexes everything (after an import, which writes one event,
// or when the embedder changed).
func (e *Engine) Rebuild(ctx context.Context) error {
	fresh := NewEngine(e.src, e.emb)
	if err := fresh.Build(ctx); err != nil {
		return err
	}
	e.mu.Lock()
	e.docs, e.byID, e.lex, e.vec, e.dead, e.triggered = fresh.docs, fresh.byID, fresh.lex, fresh.vec, 0, fresh.triggered
	e.vecName = fresh.vecName
	e.rebuilding.Store(false)
	e.mu.Unlock()
	return nil
}

// Recall answers one request.
func (e *Engine) Recall(ctx context.Context, req Request) (Response, error) {
	select {
	case <-e.ready:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	if e.err != nil {
		return Response{}, fmt.Errorf("the recall index could not be built: %w", e.err)
	}
	if req.Limit <= 0 {
		req.Limit = 10
	}
	if req.Budget <= 0 {
		req.Budget = 800
	}
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return Response{}, fmt.Errorf("%w: the query is empty: say what the task is about", store.ErrInvalid)
	}
	qtoks := Tokens(query)
	qvecs, err := e.emb.Embed(ctx, []string{query})
	if err != nil {
		return Response{}, err
	}

	e.mu.RLock()
	inScope := map[string]bool{}
	for _, p := range req.Projects {
		inScope[p] = true
	}
	layerOK := map[memory.Layer]bool{}
	for _, l := range req.Layers {
		layerOK[l] = true
	}
	keep := func(n int32) bool {
		d := e.docs[n]
		if !d.alive || !inScope[d.project] || (len(layerOK) > 0 && !layerOK[d.layer]) {
			return false
		}
		switch d.status {
		case memory.StatusActive, memory.StatusSuperseded: // superseded ones surface as history
			return true
		case memory.StatusArchived:
			return req.Archived
		}
		return false
	}
	lex := e.lex.search(qtoks, candidates, keep)
	var vec []scored
	if e.vecName == e.emb.Name() {
		for _, r := range e.vec.Search(qvecs[0], candidates*3+e.dead) {
			if r.Relevance > 0 && keep(r.Value) && len(vec) < candidates {
				vec = append(vec, scored{r.Value, r.Relevance})
			}
		}
	} else if e.rebuilding.CompareAndSwap(false, true) {
		// The embedder changed under the index (an endpoint fell back):
		// lexical only until the vectors are rebuilt with the new one.
		go e.Rebuild(context.WithoutCancel(ctx))
	}
	cands := map[int32]*Explain{}
	get := func(n int32) *Explain {
		if c, ok := cands[n]; ok {
			return c
		}
		c := &Explain{}
		cands[n] = c
		return c
	}
	// Fusion: each list's scores scaled to 0..1 by its best, then a
	// weighted sum. The lexical list leads; the built-in embedder is fuzzy,
	// so its list refines and extends rather than reorders (rank fusion let
	// it override good lexical matches and cost 0.1 R@1 on LoCoMo).
	for i, s := range lex {
		c := get(s.doc)
		c.Lexical, c.LexicalRnk = s.score, i+1
		c.Relevance += lexWeight * s.score / lex[0].score
	}
	if len(vec) > 0 {
		top, bottom := vec[0].score, vec[len(vec)-1].score
		for i, s := range vec {
			c := get(s.doc)
			c.Vector, c.VectorRnk = s.score, i+1
			if top > bottom {
				c.Relevance += vecWeight * (s.score - bottom) / (top - bottom)
			}
		}
	}
	prepared := memory.PrepareTriggerText(query)
	for n := range e.triggered {
		if !keep(n) {
			continue
		}
		if t := prepared.Match(e.docs[n].triggers); t != "" {
			get(n).Trigger = t
		}
	}
	ids := map[int32]string{}
	for n := range cands {
		ids[n] = e.docs[n].id
	}
	e.mu.RUnlock()

	// Load the candidates, best first.
	order := make([]int32, 0, len(cands))
	for n, c := range cands {
		if c.Relevance > 0 || c.Trigger != "" {
			order = append(order, n)
		}
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := cands[order[i]], cands[order[j]]
		if (a.Trigger != "") != (b.Trigger != "") {
			return a.Trigger != ""
		}
		return a.Relevance > b.Relevance
	})
	if len(order) > 3*req.Limit+20 {
		order = order[:3*req.Limit+20]
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
	e.expand(ctx, hits, mems, req)
	resp := e.shape(ctx, hits, req)
	// Being recalled is an access (salience), never evidence of truth (trust).
	if t, ok := e.src.(interface {
		Touch(context.Context, []string) error
	}); ok && !req.Peek {
		var ids []string
		for _, h := range append(resp.Results, resp.VerifyFirst...) {
			ids = append(ids, h.Memory.ID)
		}
		_ = t.Touch(ctx, ids)
	}
	return resp, nil
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
		frontier = append(frontier, node{id, h.Explain.Relevance, "", 0})
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
			if _, ok := hits[s.to]; ok || score < 1e-4 {
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

// shape turns scored hits into the answer: salience blended in, superseded
// memories attached to their successors, low trust set apart, the budget
// filled with invariants and triggered negatives first.
func (e *Engine) shape(ctx context.Context, hits map[string]*Hit, req Request) Response {
	var best float64
	for _, h := range hits {
		best = math.Max(best, h.Explain.Relevance)
	}
	now := time.Now()
	var list []*Hit
	for _, h := range hits {
		m := h.Memory
		if m.Status == memory.StatusSuperseded {
			continue // shown as history of its successor below
		}
		if h.Explain.Relevance < relevanceFloor*best && h.Explain.Trigger == "" {
			continue // a faint echo of the query, not an answer
		}
		rel := 0.0
		if best > 0 {
			rel = h.Explain.Relevance / best
		}
		h.Explain.Salience = Activation(m.Salience, now)
		h.Explain.Trust = memory.Trust(m)
		h.Explain.Final = (1-SalienceWeight)*rel + SalienceWeight*h.Explain.Salience
		h.Score = h.Explain.Final
		list = append(list, h)
	}
	// History: attach superseded hits to their successor when it is here.
	for _, h := range hits {
		if h.Memory.Status == memory.StatusSuperseded {
			if succ, ok := hits[h.Memory.SupersededBy]; ok {
				succ.History = append(succ.History, h.Memory)
			}
		}
	}
	// Triggered negatives first (the mistake about to be repeated), then
	// invariants that are themselves relevant, then the rest.
	rank := func(h *Hit) int {
		switch {
		case h.Explain.Trigger != "":
			return 0
		case h.Memory.Layer == memory.LayerInvariant && h.Explain.Relevance >= 0.5*best:
			return 1
		}
		return 2
	}
	sort.SliceStable(list, func(i, j int) bool {
		if ri, rj := rank(list[i]), rank(list[j]); ri != rj {
			return ri < rj
		}
		if list[i].Score != list[j].Score {
			return list[i].Score > list[j].Score
		}
		return list[i].Memory.ID < list[j].Memory.ID
	})
	resp := Response{Results: []Hit{}, VerifyFirst: []Hit{}, Note: e.note}
	used := 0
	for _, h := range list {
		if h.Explain.Trust < TrustThreshold {
			if len(resp.VerifyFirst) < req.Limit {
				resp.VerifyFirst = append(resp.VerifyFirst, *h)
			}
			continue
		}
		cost := Cost(h.Memory)
		if len(resp.Results) >= req.Limit || (used+cost > req.Budget && len(resp.Results) > 0) {
			resp.Cut++
			resp.CutIDs = append(resp.CutIDs, h.Memory.ID)
			continue
		}
		used += cost
		resp.Results = append(resp.Results, *h)
	}
	return resp
}

// Activation is ACT-R base-level activation of the access history, squashed
// into 0..1: recent and frequent use rises, disuse decays (d = 0.5).
func Activation(s memory.Salience, now time.Time) float64 {
	if len(s.Accesses) == 0 && s.Reinforcements == 0 {
		return 0
	}
	sum := float64(s.Reinforcements) * math.Pow(7*24*3600, -0.5) // a reinforcement counts as a week-old use
	for _, t := range s.Accesses {
		age := math.Max(now.Sub(t).Seconds(), 1)
		sum += math.Pow(age, -0.5)
	}
	if extra := s.AccessCount - len(s.Accesses); extra > 0 {
		sum += float64(extra) * math.Pow(30*24*3600, -0.5) // older uses beyond the kept history
	}
	b := math.Log(sum)
	return 1 / (1 + math.Exp(-(b+5)/1.5))
}

// For returns the recaller of a store: the store itself when it already
// answers recalls (a client of the server that owns the store), else an
// engine built here over it.
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
