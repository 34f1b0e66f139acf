package remote

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"cairn/memory"
	"cairn/recall"
	"cairn/store"
)

// benchServe is serve for benchmarks: a real server and store in a temp dir.
func benchPair(b *testing.B) (local *store.DB, remote *Client) {
	dir := b.TempDir()
	db, err := store.Open(dir+"/store", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, stop := serveDB(b, db, dir+"/s.sock")
	b.Cleanup(func() {
		c.Close()
		stop()
		db.Close()
	})
	if _, err := db.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		b.Fatal(err)
	}
	return db, c
}

func p50(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}

func benchRemember(b *testing.B, st memory.Store) {
	var d []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := st.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerState, Body: fmt.Sprintf("fact %d about src/x.go", i)}, memory.ActorAgent); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
		i++
	}
	b.ReportMetric(p50(d), "p50-ms")
}

func benchList(b *testing.B, db *store.DB, st memory.Store) {
	for i := range 500 {
		if _, err := db.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact %d", i)}, memory.ActorAgent); err != nil {
			b.Fatal(err)
		}
	}
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if p, err := st.List(ctx, memory.Query{Project: pid, Layer: memory.LayerDecision, Limit: 20}); err != nil || len(p.Memories) != 20 {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	b.ReportMetric(p50(d), "p50-ms")
}

// The remote overhead is the difference between each Remote and Local pair.
func BenchmarkRememberLocal(b *testing.B)  { db, _ := benchPair(b); benchRemember(b, db) }
func BenchmarkRememberRemote(b *testing.B) { _, c := benchPair(b); benchRemember(b, c) }
func BenchmarkListLocal(b *testing.B)      { db, _ := benchPair(b); benchList(b, db, db) }
func BenchmarkListRemote(b *testing.B)     { db, c := benchPair(b); benchList(b, db, c) }

// benchRecall compares a recall answered in-process with one through the server.
func benchRecall(b *testing.B, remote bool) {
	dir := b.TempDir()
	db, err := store.Open(dir+"/store", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"})
	var recs []memory.Record
	for i := range 2000 {
		recs = append(recs, memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("note %d about the decode kernel, cache %d and tile size %d", i, i%37, i%11)})
	}
	if _, err := db.Import(ctx, pid, recs, memory.ActorSystem); err != nil {
		b.Fatal(err)
	}
	e := recall.NewEngine(db, nil)
	if err := e.Build(ctx); err != nil {
		b.Fatal(err)
	}
	var r recall.Recaller = e
	if remote {
		ln, err := net.Listen("unix", dir+"/s.sock")
		if err != nil {
			b.Fatal(err)
		}
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go NewServer(db, 0).WithRecall(e).Serve(sctx, ln)
		c := NewClient(func(ctx context.Context) (net.Conn, error) { return net.Dial("unix", dir+"/s.sock") })
		defer c.Close()
		r = c
	}
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Recall(ctx, recall.Request{Query: "decode kernel tile size", Projects: []string{pid}, Peek: true}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	b.ReportMetric(p50(d), "p50-ms")
}

func BenchmarkRecallLocal(b *testing.B)  { benchRecall(b, false) }
func BenchmarkRecallRemote(b *testing.B) { benchRecall(b, true) }
