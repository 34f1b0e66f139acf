package consolidate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// benchWords are the vocabulary of generated memories: varied enough that
// two generated facts are rarely near duplicates, as in a real store.
var benchWords = strings.Fields(`api auth billing cache cli config cron daemon database deploy docker gateway
	graphql grpc handler index ingest invoice job kafka lambda ledger limiter logger mailer metrics migration
	mobile monitor notifier oauth orders parser payments pipeline planner postgres profile proxy queue
	ranking redis registry renderer replica report resolver router scheduler schema search session sharding
	signup sitemap storage stream subscription sync telemetry tenant thumbnail token tracing upload users
	vault webhook worker etl feed geo image inbox ledger locale media nightly onboarding pricing quota
	receipts refunds review rollout sandbox scoring secrets segment shipping sms snapshot spam support
	survey tags timeline translation trial usage vendor video wallet warehouse`)

var benchVerbs = strings.Fields(`uses talks-to depends-on caches retries batches streams validates
	throttles signs encrypts compresses shards replicates indexes schedules logs`)

// benchFact is a generated fact of the store, i its number.
func benchFact(r *rand.Rand, i int) memory.Record {
	w := func() string { return benchWords[r.IntN(len(benchWords))] }
	v := benchVerbs[r.IntN(len(benchVerbs))]
	title := fmt.Sprintf("The %s %s %s %s through the %s layer", w(), w(), strings.ReplaceAll(v, "-", " "), w(), w())
	body := fmt.Sprintf("%s. Seen in %s/%s_%d.go while working on the %s %s; owner team %s-%d.", title, w(), w(), i, w(), w(), w(), i%300)
	return memory.Record{Layer: memory.Layers[i%5], Title: title, Body: body, Provenance: memory.ProvObserved}
}

// benchDraft is a generated draft of a working session: a mix of facts,
// decisions, failures, measurements, corrections and chatter.
func benchDraft(r *rand.Rand, i int) string {
	w := func() string { return benchWords[r.IntN(len(benchWords))] }
	switch i % 8 {
	case 0:
		return fmt.Sprintf("We decided to move the %s %s to %s because the %s kept timing out.", w(), w(), w(), w())
	case 1:
		return fmt.Sprintf("The %s %s failed because the %s %s was missing; don't run it without %s.", w(), w(), w(), w(), w())
	case 2:
		return fmt.Sprintf("Benchmark: the %s %s handles %d requests per second on the %s box.", w(), w(), 1000+r.IntN(9000), w())
	case 3:
		return fmt.Sprintf("I prefer %s over %s for the %s code.", w(), w(), w())
	case 4:
		return fmt.Sprintf("No, actually the %s %s runs on port %d, not %d.", w(), w(), 8000+r.IntN(999), 9000+r.IntN(999))
	case 5:
		return "ok, thanks — let me look at the logs"
	case 6:
		return fmt.Sprintf("Deployed %s %s v1.%d.%d to staging; the smoke tests passed.", w(), w(), r.IntN(20), r.IntN(10))
	default:
		return fmt.Sprintf("The %s %s keeps its state in %s/%s.yaml now.", w(), w(), w(), w())
	}
}

// BenchmarkConsolidate10kDrafts100k is one pass over 10,000 drafts against
// a store of 100,000 memories (issue 11: under 30 s, progress shown). The
// store is built once; each iteration consolidates, then undoes the run so
// the next finds the same drafts.
func BenchmarkConsolidate10kDrafts100k(b *testing.B) {
	dir := b.TempDir()
	db, err := store.Open(dir, store.Options{NoSync: true}) // building the fixture only
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, testProject); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const memories, drafts = 100_000, 10_000
	for start := 0; start < memories; start += 10_000 {
		recs := make([]memory.Record, 0, 10_000)
		for i := start; i < start+10_000; i++ {
			recs = append(recs, benchFact(r, i))
		}
		if _, err := db.Import(ctx, testProject.ID, recs, memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
	for i := range drafts {
		if _, err := db.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.Actor([]string{"user", "agent"}[i%2]), Text: benchDraft(r, i)}); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	// The product's store: synchronous writes.
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var last Progress
	var rep Report
	var plan, write time.Duration
	for b.Loop() {
		var writing time.Time
		start := time.Now()
		rep, err = Consolidate(ctx, db, testProject, Options{AskedBy: memory.ActorUser, Progress: func(p Progress) {
			last = p
			if p.Stage == "writing" && p.Done == 0 {
				writing = time.Now()
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		plan, write = writing.Sub(start), time.Since(writing)
		b.StopTimer()
		if _, err := db.UndoRun(ctx, testProject.ID, rep.Run.ID, memory.ActorUser); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	if last.Stage != "writing" || rep.Drafts != drafts {
		b.Fatalf("last progress %+v, drafts %d", last, rep.Drafts)
	}
	b.ReportMetric(plan.Seconds(), "plan-s")
	b.ReportMetric(write.Seconds(), "write-s")
	b.ReportMetric(float64(len(rep.Run.Changes)), "changes")
	b.Logf("%s", rep.Summary())
}

// BenchmarkConsolidateNothingToDo100k is a pass with no draft waiting over a
// store of 100,000 memories that no pass has changed (issue 27: ≤ 1 s as a
// whole process), in-process: per op a pass after one that changed
// nothing, with nothing written since (it reads no memory); full-s is the
// first pass, which reads every memory and looks at every stored pair.
func BenchmarkConsolidateNothingToDo100k(b *testing.B) {
	dir := b.TempDir()
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, testProject); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for start := 0; start < 100_000; start += 10_000 {
		recs := make([]memory.Record, 0, 10_000)
		for i := start; i < start+10_000; i++ {
			recs = append(recs, benchFact(r, i))
		}
		if _, err := db.Import(ctx, testProject.ID, recs, memory.ActorSystem); err != nil {
			b.Fatal(err)
		}
	}
	// The first pass reads every memory and looks at every stored pair (it
	// changes nothing here); it leaves the mark that lets the next ones,
	// with nothing written since, read none (see quiet in run.go).
	start := time.Now()
	if rep, err := Consolidate(ctx, db, testProject, Options{AskedBy: memory.ActorUser}); err != nil || rep.Changed() {
		b.Fatal(err, rep.Summary())
	}
	first := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		rep, err := Consolidate(ctx, db, testProject, Options{AskedBy: memory.ActorUser})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Changed() {
			b.Fatalf("changed: %s", rep.Summary())
		}
	}
	b.ReportMetric(first.Seconds(), "full-s")
}

// BenchmarkQuickPass20k is the quick pass a session's end runs, in
// process: two new drafts of the session against a project of 20,000
// memories (the memories of BenchmarkHookSessionEnd20k in e2e).
func BenchmarkQuickPass20k(b *testing.B) {
	db, err := store.Open(b.TempDir(), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.EnsureProject(ctx, testProject); err != nil {
		b.Fatal(err)
	}
	recs := make([]memory.Record, 0, 20_000)
	for i := range 20_000 {
		recs = append(recs, memory.Record{Layer: memory.LayerState, Title: fmt.Sprintf("Service %d answers on port %d behind proxy %d", i, 2000+i%40000, i%311)})
	}
	if _, err := db.Import(ctx, testProject.ID, recs, memory.ActorSystem); err != nil {
		b.Fatal(err)
	}
	k := 0
	for b.Loop() {
		b.StopTimer()
		for range 2 {
			text := fmt.Sprintf("Never deploy service %d on a Friday: its migrations lock table t%d.", k, k)
			if k%2 == 1 {
				text = fmt.Sprintf("Noted; step %d done and the tests pass.", k)
			}
			k++
			if _, err := db.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.ActorUser, Text: text, Source: memory.Source{Session: "bench-s1", File: "session.jsonl"}}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if _, err := Consolidate(ctx, db, testProject, Options{AskedBy: memory.ActorAgent, Quick: true, Session: "bench-s1"}); err != nil {
			b.Fatal(err)
		}
	}
}
