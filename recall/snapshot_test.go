package recall

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"cairn/memory"
)

// countingSource counts the index build's reads of every memory.
type countingSource struct {
	Source
	lists *int
}

func (c countingSource) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	*c.lists++
	return c.Source.List(ctx, q)
}

func (c countingSource) LastEvent(ctx context.Context) (string, error) {
	return c.Source.(eventSource).LastEvent(ctx)
}

func (c countingSource) EventsSince(ctx context.Context, after string) ([]memory.Event, error) {
	return c.Source.(eventSource).EventsSince(ctx, after)
}

// startFrom is a server's start with the index saved at path: the engine,
// and how many times it read every memory (0 when it read the file).
func startFrom(t *testing.T, src Source, path string) (*Engine, int) {
	t.Helper()
	lists := 0
	e := NewEngine(countingSource{src, &lists}, nil)
	e.Persist(path)
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, lists
}

func ids(resp Response) []string {
	var out []string
	for _, h := range resp.Results {
		out = append(out, h.Memory.ID)
	}
	return out
}

// A saved index is read back instead of built, answers exactly as the
// one that was saved, and catches up with what was written since: new
// and edited memories are found, forgotten ones are not, and a forget
// deletes the file at once (it holds the memories' words).
func TestSavedIndexStartsWithoutABuild(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for _, r := range genRecords(300, 3) {
		m, _ := r.ToMemory(f.pid)
		f.add(t, *m)
	}
	gone := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "The quokka cache is sharded", Body: "quokka shards by tenant"})
	path := filepath.Join(t.TempDir(), "recall.index")
	first := NewEngine(f.db, nil)
	first.Persist(path)
	if err := first.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Save(); err != nil {
		t.Fatal(err)
	}
	queries := genQueries(20)
	var want [][]string
	for _, q := range queries {
		resp, _ := first.Recall(ctx, Request{Query: q, Projects: []string{f.pid}, Peek: true})
		want = append(want, ids(resp))
	}

	second, lists := startFrom(t, f.db, path)
	if lists != 0 {
		t.Fatalf("the saved index was built again (%d reads of every memory)", lists)
	}
	for i, q := range queries {
		resp, _ := second.Recall(ctx, Request{Query: q, Projects: []string{f.pid}, Peek: true})
		if !slices.Equal(ids(resp), want[i]) {
			r1, _ := first.Recall(ctx, Request{Query: q, Projects: []string{f.pid}, Peek: true})
			for j := range min(3, len(resp.Results)) {
				t.Logf("saved %s %+v", resp.Results[j].Memory.ID[20:], resp.Results[j].Explain)
				t.Logf("built %s %+v", r1.Results[j].Memory.ID[20:], r1.Results[j].Explain)
			}
			t.Fatalf("%q: %v from the saved index, %v from the built one", q, ids(resp), want[i])
		}
	}

	// Written since the save: a new memory, an edit, a forget.
	added := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Wombat builds run on arm64", Body: "the wombat pipeline"})
	body := "retries now back off exponentially in the numbat client"
	edited := f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Numbat client retries", Body: "retries are linear"})
	if err := second.Save(); err != nil { // a save of a second engine that has not seen them
		t.Fatal(err)
	}
	if _, err := f.db.Edit(ctx, edited.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := f.db.Forget(ctx, gone.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	third, lists := startFrom(t, f.db, path)
	if lists != 0 {
		t.Fatalf("catching up: %d full reads", lists)
	}
	for q, want := range map[string]string{"wombat arm64 builds": added.ID, "numbat exponential backoff": edited.ID} {
		resp, _ := third.Recall(ctx, Request{Query: q, Projects: []string{f.pid}, Peek: true})
		if len(resp.Results) == 0 || resp.Results[0].Memory.ID != want {
			t.Fatalf("%q after catching up: %v", q, ids(resp))
		}
	}
	if resp, _ := third.Recall(ctx, Request{Query: "quokka cache shards", Projects: []string{f.pid}, Peek: true}); slices.Contains(ids(resp), gone.ID) {
		t.Fatal("a memory forgotten since the save is recalled")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the saved index that holds a forgotten memory's words is still there: %v", err)
	}
	if err := third.Save(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("quokka")) || !bytes.Contains(raw, []byte("wombat")) {
		t.Fatal("the saved index holds the forgotten memory's words, or lacks the new one's")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("the saved index is %v, not private", info.Mode().Perm())
	}
}

// A saved index that cannot be read, or an import since it was saved,
// means a full build — never a wrong index.
func TestUnreadableOrStaleSavedIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Deploys go through ArgoCD", Body: "argocd syncs the cluster"})
	path := filepath.Join(t.TempDir(), "recall.index")
	for _, junk := range [][]byte{nil, []byte("cairn recall index\n\x01\xff\xff\xff\xff\xff\xff\xff\xff\x7f"), []byte("something else")} {
		if err := os.WriteFile(path, append([]byte(snapshotMagic), junk...), 0o600); err != nil {
			t.Fatal(err)
		}
		e, lists := startFrom(t, f.db, path)
		if lists == 0 {
			t.Fatal("a broken file was read")
		}
		if resp, _ := e.Recall(ctx, Request{Query: "argocd deploys", Projects: []string{f.pid}, Peek: true}); len(resp.Results) != 1 {
			t.Fatalf("after the build: %v", ids(resp))
		}
	}
	e := NewEngine(f.db, nil)
	e.Persist(path)
	e.Build(ctx)
	if err := e.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Import(ctx, f.pid, []memory.Record{{Layer: memory.LayerState, Title: "Imported: the kiwi service", Body: "kiwi"}}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	e, lists := startFrom(t, f.db, path)
	if lists == 0 {
		t.Fatal("an import since the save: the saved index was read")
	}
	if resp, _ := e.Recall(ctx, Request{Query: "kiwi service", Projects: []string{f.pid}, Peek: true}); len(resp.Results) != 1 {
		t.Fatalf("the imported memory: %v", ids(resp))
	}
}

// Whatever the file holds — a saved index cut short or with bytes
// changed — a start never panics: it reads it or builds.
func TestDamagedSavedIndexNeverPanics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	// Each damaged file is read, then the index built again from the
	// store: what is tried is the 300 kinds of damage, and a file of 16
	// memories holds every part a file of 50 does (50 took the race
	// detector three times as long).
	for _, r := range genRecords(16, 9) {
		m, _ := r.ToMemory(f.pid)
		f.add(t, *m)
	}
	path := filepath.Join(t.TempDir(), "recall.index")
	e := NewEngine(f.db, nil)
	e.Persist(path)
	e.Build(ctx)
	if err := e.Save(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		bad := slices.Clone(good)
		switch i % 3 {
		case 0:
			bad = bad[:r.IntN(len(bad))]
		case 1:
			for range 1 + r.IntN(4) {
				bad[len(snapshotMagic)+r.IntN(len(bad)-len(snapshotMagic))] = byte(r.IntN(256))
			}
		case 2:
			at := len(snapshotMagic) + r.IntN(len(bad)-len(snapshotMagic))
			bad = append(bad[:at:at], append([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, bad[at:]...)...)
		}
		os.WriteFile(path, bad, 0o600)
		e := NewEngine(f.db, nil)
		e.Persist(path)
		if err := e.Build(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Recall(ctx, Request{Query: "cache decode kernel", Projects: []string{f.pid}, Peek: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// A server started from its saved index recalls by sessions and times as
// the one that saved it did: the index carries each memory's time and
// place in its session, not only its words.
func TestSavedIndexKeepsSessionsAndTimes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	at := time.Date(2025, 4, 9, 10, 0, 0, 0, time.UTC)
	recs := []memory.Record{
		{Layer: memory.LayerEpisode, Title: "Which database should the billing service use?", Body: "asked in the design review", ValidFrom: at, Source: memory.Source{Session: "review", Line: 1}},
		{Layer: memory.LayerEpisode, Title: "Postgres: the ledger needs transactions", Body: "agreed by everyone", ValidFrom: at.Add(time.Minute), Source: memory.Source{Session: "review", Line: 2}},
		{Layer: memory.LayerEpisode, Title: "Cache sizes raised", Body: "the cache holds 2 GB now", ValidFrom: time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC)},
		{Layer: memory.LayerEpisode, Title: "Cache sizes lowered", Body: "the cache holds 1 GB now", ValidFrom: at},
	}
	if _, err := f.db.Import(context.Background(), f.pid, recs, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "recall.index")
	first, _ := startFrom(t, f.db, path)
	queries := []string{"database for the billing service", "what happened to the cache in March 2025", "the cache on 9 April 2025"}
	var want [][]string
	for _, q := range queries {
		resp, err := first.Recall(context.Background(), Request{Query: q, Projects: []string{f.pid}, Peek: true})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ids(resp))
	}
	if err := first.Save(); err != nil {
		t.Fatal(err)
	}
	second, lists := startFrom(t, f.db, path)
	if lists != 0 {
		t.Fatalf("the second start read every memory %d times instead of the saved index", lists)
	}
	for i, q := range queries {
		resp, err := second.Recall(context.Background(), Request{Query: q, Projects: []string{f.pid}, Peek: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(resp); !slices.Equal(got, want[i]) {
			t.Errorf("%q from the saved index: %v, want %v", q, got, want[i])
		}
	}
	if got := titles(mustRecall(t, second, f.pid, "database for the billing service").Results); len(got) < 2 || got[1] != "Postgres: the ledger needs transactions" {
		t.Errorf("the session's answer did not come along from the saved index: %q", got)
	}
}

func mustRecall(t *testing.T, e *Engine, pid, q string) Response {
	t.Helper()
	resp, err := e.Recall(context.Background(), Request{Query: q, Projects: []string{pid}, Peek: true})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
