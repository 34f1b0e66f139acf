package recall

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"cairn/memory"
)

// In a session, the memory after a question is often its answer, in other
// words: recall brings it along with the question, and only from the same
// session and near it (contextReach).
func TestSessionNeighboursComeAlong(t *testing.T) {
	t.Parallel()
	for _, sessions := range []bool{true, false} {
		f := newFixture(t)
		at := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
		src := func(s string, line int) memory.Source {
			if !sessions {
				return memory.Source{}
			}
			return memory.Source{Session: s, Line: line}
		}
		f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Which database should the billing service use?", Body: "asked in the design review", ValidFrom: at, Source: src("review", 1)})
		f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Postgres: the ledger needs transactions", Body: "agreed by everyone", ValidFrom: at.Add(time.Minute), Source: src("review", 2)})
		f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Redis for the session cache", Body: "sessions expire after an hour", ValidFrom: at.Add(2 * time.Minute), Source: src("other", 1)})
		f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Coffee ran out", Body: "someone will buy more", ValidFrom: at.Add(3 * time.Minute), Source: src("review", 3)})
		f.add(t, memory.Memory{Layer: memory.LayerEpisode, Title: "Lunch was late", Body: "the canteen queue", ValidFrom: at.Add(4 * time.Minute), Source: src("review", 4)})
		f.build(t)
		got := titles(f.recall(t, "database for the billing service", peek).Results)
		has := slices.Contains(got, "Postgres: the ledger needs transactions")
		if sessions && (!has || got[0] != "Which database should the billing service use?") {
			t.Errorf("with sessions: %q, want the question first and its answer along", got)
		}
		if !sessions && has {
			t.Errorf("without sessions the answer shares no word with the query and came: %q", got)
		}
		if slices.Contains(got, "Redis for the session cache") || slices.Contains(got, "Lunch was late") {
			t.Errorf("a memory three away or of another session came along: %q", got)
		}
	}
}

// A time the query names finds the memories of that time (their own
// time, not words in their text) before others that say the same; a query
// that is only a time gets what holds from then.
func TestRecallByTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 9, 0, 0, 0, time.UTC) }
	// Imported, as remembering stamps a memory with the time it is written.
	recs := []memory.Record{
		{Layer: memory.LayerEpisode, Title: "Cache sizes raised", Body: "the cache holds 2 GB now", ValidFrom: day(3, 4)},
		{Layer: memory.LayerEpisode, Title: "Cache sizes lowered", Body: "the cache holds 1 GB now", ValidFrom: day(4, 9)},
		{Layer: memory.LayerEpisode, Title: "Deploy frozen", Body: "no deploys during the audit", ValidFrom: day(4, 10)},
		{Layer: memory.LayerEpisode, Title: "Flaky test quarantined", Body: "TestSync retried", ValidFrom: time.Now().AddDate(0, 0, -1)},
	}
	if _, err := f.db.Import(context.Background(), f.pid, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	f.build(t)
	for _, c := range []struct{ q, first string }{
		{"what happened to the cache in March 2025", "Cache sizes raised"},
		{"what happened to the cache in April", "Cache sizes lowered"},
		{"the cache on 9 April 2025", "Cache sizes lowered"},
	} {
		resp := f.recall(t, c.q, peek)
		if got := titles(resp.Results); len(got) == 0 || got[0] != c.first || resp.Results[0].Explain.When == "" {
			t.Errorf("%q: %q, want %q first, dated", c.q, got, c.first)
		}
	}
	if got := titles(f.recall(t, "what happened yesterday", peek).Results); !slices.Equal(got, []string{"Flaky test quarantined"}) {
		t.Errorf("yesterday: %q", got)
	}
	// Nothing is of that time: the query is known less well than its words.
	at, without := f.recall(t, "cache sizes in 2019", peek), f.recall(t, "cache sizes", peek)
	if len(at.Results) > 0 && len(without.Results) > 0 && at.Results[0].Explain.Relevance >= without.Results[0].Explain.Relevance {
		t.Errorf("a time nothing is of did not lower the relevance: %.2f vs %.2f", at.Results[0].Explain.Relevance, without.Results[0].Explain.Relevance)
	}
}

// BenchmarkRecall100kDated: a recall over 100,000 memories whose query
// names a time ("in March", "on 4 May 2025"), which reads every memory's
// time.
func BenchmarkRecall100kDated(b *testing.B) {
	s := setup(b, 100_000)
	qs := genQueries(500)
	whens := []string{"in March", "on 4 May 2025", "in 2024", "yesterday"}
	var d []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		q := qs[i%len(qs)] + " " + whens[i%len(whens)]
		if _, err := s.e.Recall(context.Background(), Request{Query: q, Projects: []string{s.pid}, Peek: true}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
		i++
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
}

// What a saved index carries of sessions and times (saved) gives back the
// same neighbours and times when restored into an index numbered afresh,
// as a saved index's load numbers its memories.
func TestContextSavedAndRestored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var recs []memory.Record
	for i := range 6 {
		recs = append(recs, memory.Record{Layer: memory.LayerEpisode, Title: fmt.Sprintf("turn %d", i), Body: "said in a chat",
			ValidFrom: at.Add(time.Duration(i/2) * time.Minute), Source: memory.Source{Session: fmt.Sprintf("s%d", i%2), Line: i}})
	}
	recs = append(recs, memory.Record{Layer: memory.LayerState, Title: "no session", Body: "a fact"})
	if _, err := f.db.Import(context.Background(), f.pid, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	f.build(t)
	cx := f.e.cx
	back := newContextIndex()
	n := int32(len(f.e.docs))
	for d := range n {
		at, session, line := cx.saved(d)
		back.restore(n-1-d, at, session, line) // numbered the other way round
	}
	for d := range n {
		r := n - 1 - d
		if !cx.time(d).Equal(back.time(r)) {
			t.Errorf("doc %d: time %v, restored %v", d, cx.time(d), back.time(r))
		}
		ms, i := cx.around(d, 2)
		rs, j := back.around(r, 2)
		if len(ms) != len(rs) || i != j {
			t.Fatalf("doc %d: neighbours %v (at %d), restored %v (at %d)", d, ms, i, rs, j)
		}
		for k := range ms {
			if n-1-ms[k] != rs[k] {
				t.Errorf("doc %d: neighbours %v, restored %v", d, ms, rs)
			}
		}
	}
}
