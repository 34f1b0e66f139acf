package recall

import (
	"context"
	"slices"
	"testing"
	"time"

	"cairn/memory"
)

// fixedClock is an engine clock that always reads at.
func fixedClock(at time.Time) func() time.Time { return func() time.Time { return at } }

// "Yesterday" is the day before the engine's clock, whatever the system
// clock says: the same store answers with the memory of 9 April when it
// is 10 April and with that of 10 April a day later.
func TestRecallYesterdayByTheEngineClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	day := func(d int) time.Time { return time.Date(2025, 4, d, 9, 0, 0, 0, time.UTC) }
	recs := []memory.Record{
		{Layer: memory.LayerEpisode, Title: "Cache sizes lowered", Body: "the cache holds 1 GB now", ValidFrom: day(9)},
		{Layer: memory.LayerEpisode, Title: "Deploy frozen", Body: "no deploys during the audit", ValidFrom: day(10)},
		{Layer: memory.LayerEpisode, Title: "Audit over", Body: "deploys resume", ValidFrom: day(12)},
	}
	if _, err := f.db.Import(context.Background(), f.pid, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	f.build(t)
	for _, c := range []struct {
		now        time.Time
		want, when string
	}{
		{time.Date(2025, 4, 10, 15, 0, 0, 0, time.UTC), "Cache sizes lowered", "2025-04-09"},
		{time.Date(2025, 4, 11, 0, 30, 0, 0, time.UTC), "Deploy frozen", "2025-04-10"},
	} {
		f.e.SetClock(fixedClock(c.now))
		resp := f.recall(t, "what happened yesterday", peek)
		if got := titles(resp.Results); !slices.Equal(got, []string{c.want}) || resp.Results[0].Explain.When != c.when {
			t.Errorf("yesterday at %s: %q, want only %q dated %s", c.now.Format(time.DateOnly), got, c.want, c.when)
		}
	}
}

// A memory that helped is recalled with the salience of that use as of
// the engine's clock: high the minute after, faded a year on, and its
// score with it.
func TestRecallSalienceReckonedAtTheEngineClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	helped := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	recs := []memory.Record{{Layer: memory.LayerDecision, Title: "Cache eviction is LRU", Body: "the cache evicts the least recently used entry",
		Salience: memory.Salience{Feedback: []memory.Feedback{{Query: "how does the cache evict", Helpful: true, At: helped, Actor: memory.ActorAgent}}}}}
	if _, err := f.db.Import(context.Background(), f.pid, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	f.build(t)
	at := func(now time.Time) Explain {
		f.e.SetClock(fixedClock(now))
		resp := f.recall(t, "cache eviction", peek)
		if len(resp.Results) != 1 {
			t.Fatalf("at %s: %d results, want the one memory", now, len(resp.Results))
		}
		return resp.Results[0].Explain
	}
	soon, late := at(helped.Add(time.Minute)), at(helped.AddDate(1, 0, 0))
	if soon.Salience <= late.Salience || soon.Final <= late.Final {
		t.Errorf("salience a minute after it helped %.3f (final %.3f), a year after %.3f (final %.3f): want it to fade", soon.Salience, soon.Final, late.Salience, late.Final)
	}
	if want := UseActivation(memory.Salience{Feedback: []memory.Feedback{{Helpful: true, At: helped}}}, helped.Add(time.Minute)); soon.Salience != want {
		t.Errorf("salience a minute after it helped %.3f, want %.3f", soon.Salience, want)
	}
}
