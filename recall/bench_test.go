package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// corpus generates realistic engineering notes: sentences over a working
// vocabulary of prose and identifiers, so that term statistics resemble a
// real project's memory rather than random strings.
var (
	prose = strings.Fields(`cache miss latency decode kernel tile register occupancy benchmark regression release
	deploy rollback session timeout token refresh auth middleware database migration index query planner vacuum
	lock contention goroutine leak channel deadlock retry backoff queue worker batch flush compaction snapshot
	replica leader election quorum heartbeat config flag feature rollout canary metric alert dashboard trace span
	profile allocation garbage collector heap stack pointer escape inline vector embedding search ranking recall
	precision budget window context prompt agent memory decision negative lesson invariant preference constraint
	failed because slower faster fixed broke reverted measured observed decided parked resumed upgraded pinned`)
	idents = strings.Fields(`parseHTTPRequest src/auth/session.go internal/cache/lru.go RetryPolicy max_open_conns
	--race GOMAXPROCS pkg/store/badger.go NewDecoder flush_interval TestTimeout cmd/server/main.go CAIRN_HOME
	vgpr_budget decodeKernel tile_size bench/decode.txt http.Client WithTimeout sync.Pool RWMutex ctx.Done`)
)

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		if r.IntN(6) == 0 {
			w[i] = idents[r.IntN(len(idents))]
		} else {
			w[i] = prose[r.IntN(len(prose))]
		}
	}
	return strings.Join(w, " ")
}

func genRecords(n int, seed uint64) []memory.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Title: sentence(r, 6+r.IntN(5)),
			Body: sentence(r, 15+r.IntN(25)) + ". " + sentence(r, 10+r.IntN(20)) + "."}
	}
	return recs
}

func genQueries(n int) []string {
	r := rand.New(rand.NewPCG(99, 3))
	q := make([]string, n)
	for i := range q {
		q[i] = sentence(r, 3+r.IntN(4))
	}
	return q
}

// benchEngine is an engine over a store of n generated memories, built once.
var (
	benchMu      sync.Mutex
	benchEngines = map[int]*benchSetup{}
)

type benchSetup struct {
	db    *store.DB
	e     *Engine
	build time.Duration
	heap  uint64 // bytes the built indexes hold
	pid   string
}

func setup(b testing.TB, n int) *benchSetup {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchEngines[n]; ok {
		return s
	}
	ctx := context.Background()
	db, err := store.Open(filepath.Join(b.TempDir(), "s"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	p := memory.Project{ID: "00000000000000aa", Name: "bench"}
	db.EnsureProject(ctx, p)
	recs := genRecords(n, 1)
	for i := 0; i < n; i += 20000 {
		if _, err := db.Import(ctx, p.ID, recs[i:min(i+20000, n)], memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
	e := NewEngine(db, nil)
	start := time.Now()
	if err := e.Build(ctx); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	// The index's memory: the heap with a second engine built, less the
	// heap once it is dropped (a difference across one build would count
	// what the store freed or grew meanwhile).
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	probe := NewEngine(db, nil)
	if err := probe.Build(ctx); err != nil {
		b.Fatal(err)
	}
	with := heap()
	runtime.KeepAlive(probe)
	probe = nil
	var size uint64
	if without := heap(); with > without {
		size = with - without
	}
	s := &benchSetup{db: db, e: e, build: took, heap: size, pid: p.ID}
	benchEngines[n] = s
	b.Cleanup(func() {}) // the store lives for the whole benchmark run (temp dir of the first user)
	return s
}

func benchRecall(b *testing.B, n int) {
	s := setup(b, n)
	qs := genQueries(500)
	var d []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.e.Recall(context.Background(), Request{Query: qs[i%len(qs)], Projects: []string{s.pid}, Peek: true}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
		i++
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(s.build.Seconds(), "build-s")
	b.ReportMetric(float64(s.heap)/(1<<20), "index-MiB")
}

// BenchmarkRecall100k: one recall (lexical + vector + fusion + graph +
// shaping) over 100,000 memories with the built-in embedder.
func BenchmarkRecall100k(b *testing.B) { benchRecall(b, 100_000) }

// BenchmarkIndexUpdate: the incremental index work of one write.
func BenchmarkIndexUpdate(b *testing.B) {
	s := setup(b, 100_000)
	recs := genRecords(1000, 5)
	i := 0
	for b.Loop() {
		m, _ := recs[i%len(recs)].ToMemory(s.pid)
		m.ID = fmt.Sprintf("01ZZ%022d", i)
		if err := s.e.index(context.Background(), []*memory.Memory{m}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRecall1M is the same over 1,000,000 memories (about two minutes
// of setup; run it on its own).
func BenchmarkRecall1M(b *testing.B) { benchRecall(b, 1_000_000) }

// benchLoad is a server's start with a saved index: the index saved once,
// then read back (and caught up with the store) each iteration.
func benchLoad(b *testing.B, n int) {
	s := setup(b, n)
	path := filepath.Join(b.TempDir(), "recall.index")
	s.e.snapPath = path
	s.e.dirty.Store(true)
	last, err := s.db.LastEvent(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	s.e.noteEvent(last) // the setup built it without a saved index in view
	t0 := time.Now()
	if err := s.e.Save(); err != nil {
		b.Fatal(err)
	}
	saved := time.Since(t0)
	s.e.snapPath = ""
	for b.Loop() {
		e := NewEngine(s.db, nil)
		e.Persist(path)
		if !e.load(context.Background()) {
			b.Fatal("the saved index was not read")
		}
	}
	b.ReportMetric(saved.Seconds(), "save-s")
}

// BenchmarkIndexLoad100k and BenchmarkIndexLoad1M: the index read back
// instead of built (compare build-s of BenchmarkRecall100k and 1M).
func BenchmarkIndexLoad100k(b *testing.B) { benchLoad(b, 100_000) }
func BenchmarkIndexLoad1M(b *testing.B)   { benchLoad(b, 1_000_000) }
