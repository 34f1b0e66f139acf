package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

var ctx = context.Background()

const testPID = "00000000000000aa"

// openTest opens a store in a fresh temp dir with one project registered.
func openTest(t testing.TB) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db := reopen(t, dir)
	return db, dir
}

func reopen(t testing.TB, dir string) *DB {
	t.Helper()
	return reopenWith(t, dir, Options{})
}

// reopenWith is reopen with options.
func reopenWith(t testing.TB, dir string, opt Options) *DB {
	t.Helper()
	db, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// distinctFact is the i-th of many facts that share no word but stop
// words, so that a test writing thousands of memories, about something
// else than deduplication, does not make each write search and compare
// hundreds of near duplicates (see nearFact).
func distinctFact(what string, i int) string {
	return fmt.Sprintf("%s-%d of the number-%d in row-%d", what, i, i, i)
}

func remember(t testing.TB, db *DB, layer memory.Layer, title, body string, tags ...string) *memory.Memory {
	t.Helper()
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: layer, Title: title, Body: body, Tags: tags}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRememberFillsDefaultsAndSurvivesReopen(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	m := remember(t, db, memory.LayerDecision, "", "Parked MTP because it was net-negative on MoE.\n\nSee bench #41.", "Perf", "mtp", "perf")
	if m.ID == "" || m.Version != 1 || m.Status != memory.StatusActive || m.Kind != memory.KindDecision {
		t.Fatalf("defaults not filled: %+v", m)
	}
	if m.Title != "Parked MTP because it was net-negative on MoE." {
		t.Fatalf("derived title = %q", m.Title)
	}
	if strings.Join(m.Tags, ",") != "mtp,perf" {
		t.Fatalf("tags not normalized: %v", m.Tags)
	}
	if m.Provenance != memory.ProvUserStated || m.Confidence != memory.ProvUserStated.BaseConfidence() {
		t.Fatalf("provenance/confidence: %s %v", m.Provenance, m.Confidence)
	}
	db.Close()
	db = reopen(t, dir)
	got, err := db.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Body != m.Body || !got.CreatedAt.Equal(m.CreatedAt) || got.Title != m.Title {
		t.Fatalf("after reopen: %+v", got)
	}
	evs, _ := db.Timeline(ctx, testPID, 10)
	if len(evs) != 1 || evs[0].Kind != memory.EventRemember || evs[0].MemoryID != m.ID || evs[0].Title != m.Title {
		t.Fatalf("timeline: %+v", evs)
	}
}

func TestRememberRefusesBadInputAndStoresNothing(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	cases := []struct {
		name string
		m    memory.Memory
		want string
	}{
		{"empty", memory.Memory{Project: testPID, Layer: memory.LayerState}, "empty"},
		{"bad layer", memory.Memory{Project: testPID, Layer: 'Z', Body: "x"}, "layer"},
		{"bad kind", memory.Memory{Project: testPID, Layer: 'A', Kind: "rumour", Body: "x"}, "kind"},
		{"multi-line title", memory.Memory{Project: testPID, Layer: 'A', Title: "a\nb", Body: "x"}, "one line"},
		{"bad tag", memory.Memory{Project: testPID, Layer: 'A', Body: "x", Tags: []string{"two words"}}, "tag"},
		{"unknown project", memory.Memory{Project: "00000000000000ff", Layer: 'A', Body: "x"}, "not found"},
		{"secret", memory.Memory{Project: testPID, Layer: 'A', Body: "deploy key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"}, "private key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.Remember(ctx, &c.m, memory.ActorUser)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
	st, _ := db.Stats(ctx)
	if st.Memories != 0 || st.Events != 0 {
		t.Fatalf("refused writes left something: %+v", st)
	}
}

func TestSecretRefusedOnEveryWritePath(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerState, "deploy", "deploys go through CI")
	secret := "aws key AKIA" + "IOSFODNN7EXAMPLQ in use"
	if _, err := db.Edit(ctx, m.ID, memory.Patch{Body: &secret}, memory.ActorUser); !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("edit: %v", err)
	}
	if _, err := db.Supersede(ctx, m.ID, &memory.Memory{Body: secret}, memory.ActorUser); !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("supersede: %v", err)
	}
	if _, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: secret}); !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("capture: %v", err)
	}
	if _, err := db.Import(ctx, testPID, []memory.Record{{Layer: 'A', Body: "fine"}, {Layer: 'A', Body: secret}}, memory.ActorUser); !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("import: %v", err)
	}
	if _, err := db.Archive(ctx, m.ID, secret, memory.ActorUser); !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("archive reason: %v", err)
	}
	got, _ := db.Get(ctx, m.ID)
	if got.Version != 1 || got.Status != memory.StatusActive || got.Body != m.Body {
		t.Fatalf("memory changed: %+v", got)
	}
	st, _ := db.Stats(ctx)
	if st.Memories != 1 || st.Drafts != 0 || st.Events != 1 {
		t.Fatalf("refused writes left something: %+v", st)
	}
}

func TestEditKeepsHistory(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerState, "release", "v0.6.0 is out", "release")
	body := "v0.6.1 is out"
	tags := []string{"release", "shipped"}
	e, err := db.Edit(ctx, m.ID, memory.Patch{Body: &body, Tags: &tags}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if e.Version != 2 || e.Body != body || !e.CreatedAt.Equal(m.CreatedAt) {
		t.Fatalf("edit: %+v", e)
	}
	same, err := db.Edit(ctx, m.ID, memory.Patch{Body: &body}, memory.ActorUser)
	if err != nil || same.Version != 2 {
		t.Fatalf("a no-op edit made a version: %v %+v", err, same)
	}
	h, err := db.History(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Version != 1 || h[0].Body != "v0.6.0 is out" || h[1].Version != 2 {
		t.Fatalf("history: %+v", h)
	}
	p, _ := db.List(ctx, memory.Query{Project: testPID, Tag: "shipped"})
	if len(p.Memories) != 1 {
		t.Fatalf("new tag not indexed: %d", len(p.Memories))
	}
}

func TestSupersedeLinksBothWays(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	old := remember(t, db, memory.LayerState, "decode speed", "+229 % decode speed", "bench")
	n, err := db.Supersede(ctx, old.ID, &memory.Memory{Body: "+31 % decode speed after the fix"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := db.Get(ctx, old.ID)
	if o.Status != memory.StatusSuperseded || o.SupersededBy != n.ID || o.ValidUntil.IsZero() {
		t.Fatalf("old: %+v", o)
	}
	if len(n.Supersedes) != 1 || n.Supersedes[0] != old.ID || n.Layer != old.Layer || strings.Join(n.Tags, ",") != "bench" {
		t.Fatalf("new: %+v", n)
	}
	out, _, _ := db.Edges(ctx, n.ID)
	_, in, _ := db.Edges(ctx, old.ID)
	if len(out) != 1 || out[0].Kind != memory.EdgeSupersedes || len(in) != 1 || in[0].From != n.ID {
		t.Fatalf("edges: out %v in %v", out, in)
	}
	active, _ := db.List(ctx, memory.Query{Project: testPID, Layer: memory.LayerState})
	if len(active.Memories) != 1 || active.Memories[0].ID != n.ID {
		t.Fatalf("active list should hold only the successor: %v", ids(active.Memories))
	}
	sup, _ := db.List(ctx, memory.Query{Project: testPID, Status: memory.StatusSuperseded})
	if len(sup.Memories) != 1 || sup.Memories[0].ID != old.ID {
		t.Fatalf("superseded list: %v", ids(sup.Memories))
	}
	if _, err := db.Supersede(ctx, old.ID, &memory.Memory{Body: "again"}, memory.ActorUser); err == nil || !strings.Contains(err.Error(), "already superseded") {
		t.Fatalf("superseding twice: %v", err)
	}
}

func TestArchiveUnarchiveRestoresExactly(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerNegative, "VGPR-256", "VGPR-256 starved occupancy: don't", "gpu")
	a, err := db.Archive(ctx, m.ID, "obsolete hardware", memory.ActorAgent)
	if err != nil || a.Status != memory.StatusArchived {
		t.Fatalf("archive: %v %+v", err, a)
	}
	if p, _ := db.List(ctx, memory.Query{Project: testPID, Layer: memory.LayerNegative}); len(p.Memories) != 0 {
		t.Fatalf("archived memory still listed as active")
	}
	if _, err := db.Archive(ctx, m.ID, "", memory.ActorUser); err == nil {
		t.Fatalf("archiving twice succeeded")
	}
	u, err := db.Unarchive(ctx, m.ID, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := EncodeMemory(m)
	got, _ := EncodeMemory(u)
	if string(want) != string(got) {
		t.Fatalf("unarchive did not restore exactly:\n%s\n%s", want, got)
	}
	evs, _ := db.Timeline(ctx, testPID, 10)
	if len(evs) != 3 || evs[0].Kind != memory.EventUnarchive || evs[1].Kind != memory.EventArchive || evs[1].Actor != memory.ActorAgent || evs[1].Summary != "obsolete hardware" {
		t.Fatalf("timeline newest first: %+v", evs)
	}
}

func TestListPagesFiltersAndCounts(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	var want []string
	for i := range 7 {
		m := remember(t, db, memory.LayerEpisode, fmt.Sprintf("event %d", i), "happened", "ops")
		want = append([]string{m.ID}, want...)
	}
	remember(t, db, memory.LayerInvariant, "rule", "never commit .env files", "ops")
	var got []string
	q := memory.Query{Project: testPID, Layer: memory.LayerEpisode, Limit: 3}
	for {
		p, err := db.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p.Memories)...)
		if p.Next == "" {
			break
		}
		q.After = p.Next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("pages newest first:\n got %v\nwant %v", got, want)
	}
	tagged, _ := db.List(ctx, memory.Query{Project: testPID, Tag: "ops", Layer: memory.LayerInvariant})
	if len(tagged.Memories) != 1 {
		t.Fatalf("tag+layer: %d", len(tagged.Memories))
	}
	c, err := db.Count(ctx, testPID)
	if err != nil || c.Active(memory.LayerEpisode) != 7 || c.Active(memory.LayerInvariant) != 1 || c.Total(memory.StatusActive) != 8 {
		t.Fatalf("counts: %+v %v", c, err)
	}
	other, _ := db.List(ctx, memory.Query{Project: "00000000000000bb"})
	if len(other.Memories) != 0 {
		t.Fatalf("another project sees memories")
	}
}

func TestRefIsUniquePerProject(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "a", Ref: "doc-1"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "b", Ref: "doc-1"}, memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("duplicate ref: %v", err)
	}
	got, err := db.GetByRef(ctx, testPID, "doc-1")
	if err != nil || got.ID != a.ID {
		t.Fatalf("by ref: %v %v", got, err)
	}
}

func TestLinkAndEdgesBothDirections(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	d := remember(t, db, memory.LayerDecision, "park MTP", "parked")
	r := remember(t, db, memory.LayerEpisode, "bench 41", "MoE net-negative")
	if err := db.Link(ctx, memory.Edge{From: d.ID, Kind: memory.EdgeEvidence, To: r.ID, Weight: 0.5}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	out, in, _ := db.Edges(ctx, d.ID)
	if len(out) != 1 || out[0].To != r.ID || out[0].Weight != 0.5 || len(in) != 0 {
		t.Fatalf("out of decision: %v %v", out, in)
	}
	out, in, _ = db.Edges(ctx, r.ID)
	if len(out) != 0 || len(in) != 1 || in[0].From != d.ID {
		t.Fatalf("in of evidence: %v %v", out, in)
	}
	for _, bad := range []memory.Edge{
		{From: d.ID, Kind: "friend", To: r.ID},
		{From: d.ID, Kind: memory.EdgeBecause, To: d.ID},
		{From: d.ID, Kind: memory.EdgeBecause, To: "01J00000000000000000000000"},
		{From: d.ID, Kind: memory.EdgeSupersedes, To: r.ID},
		{From: d.ID, Kind: memory.EdgeBecause, To: r.ID, Weight: 3},
	} {
		if err := db.Link(ctx, bad, memory.ActorUser); err == nil {
			t.Errorf("link %+v accepted", bad)
		}
	}
}

func TestCaptureAppendsDrafts(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	d, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: "user said: always run make lint before pushing"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, dir)
	ds, err := db.Drafts(ctx, testPID, 10)
	if err != nil || len(ds) != 1 || ds[0].ID != d.ID || ds[0].Actor != memory.ActorAgent {
		t.Fatalf("drafts: %+v %v", ds, err)
	}
}

func TestSecondOpenNamesTheHolder(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	_ = db
	_, err := Open(dir, Options{})
	if !errors.Is(err, memory.ErrLocked) {
		t.Fatalf("second open: %v", err)
	}
	if !strings.Contains(err.Error(), "pid ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("message should name the holder on one line: %q", err)
	}
}

func TestClosedStoreSaysSo(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := db.Get(ctx, "01J00000000000000000000000"); !errors.Is(err, memory.ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}
}

func TestSchemaMismatchRefused(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(keySchema, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, memory.ErrSchema) {
		t.Fatalf("open with schema 99: %v", err)
	}
}

func TestProjectsNamesStayUnique(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000b1", Name: "app", Root: "/x/app"})
	b, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000b2", Name: "app", Root: "/y/app"})
	if a.Name != "app" || b.Name != "app-0000" {
		t.Fatalf("names: %q %q", a.Name, b.Name)
	}
	got, err := db.ProjectByName(ctx, "app-0000")
	if err != nil || got.ID != b.ID {
		t.Fatalf("by name: %+v %v", got, err)
	}
	again, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000b1", Name: "renamed"})
	if again.Name != "app" {
		t.Fatalf("ensure changed an existing project: %+v", again)
	}
}

func TestResolvePrefix(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerState, "x", "y")
	id, err := db.Resolve(ctx, strings.ToLower(m.ID[:20]))
	if err != nil || id != m.ID {
		t.Fatalf("resolve: %q %v", id, err)
	}
	if _, err := db.Resolve(ctx, "01"); err == nil {
		t.Fatalf("too short accepted")
	}
	if _, err := db.Resolve(ctx, "7ZZZZZZZ"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func ids(ms []*memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

var _ = time.Now

func TestSubscribeSeesWrites(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := db.Subscribe(c)
	if err != nil {
		t.Fatal(err)
	}
	// Badger registers the subscriber asynchronously: write until it hears one.
	for ready := false; !ready; {
		remember(t, db, memory.LayerMeta, "ping", "ping")
		select {
		case <-ch:
			ready = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	for len(ch) > 0 {
		<-ch
	}
	m := remember(t, db, memory.LayerState, "x", "seen live")
	if _, err := db.Archive(ctx, m.ID, "", memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	var got []memory.EventKind
	timeout := time.After(5 * time.Second)
	for len(got) < 2 {
		select {
		case e := <-ch:
			if e.MemoryID == m.ID {
				got = append(got, e.Kind)
			}
		case <-timeout:
			t.Fatalf("saw only %v", got)
		}
	}
	if got[0] != memory.EventRemember || got[1] != memory.EventArchive {
		t.Fatalf("events: %v", got)
	}
	db.Close()
	for range ch { // closes when the store closes
	}
}

// TestSubscribeSeesGaps: a question recall could not answer in one process
// reaches a workbench subscribed in another (the inbox shows gaps).
func TestSubscribeSeesGaps(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := db.Subscribe(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000aa", Name: "gaps"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RecordGap(ctx, p.ID, "how do we rotate the signing keys", 0.1); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case e := <-ch:
			if e.Kind == memory.EventGap && e.Project == p.ID {
				return
			}
		case <-timeout:
			t.Fatal("no gap event")
		}
	}
}

func TestTouchRaisesSalienceOnly(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerState, "x", "recalled often")
	for range memory.MaxAccesses + 3 {
		if err := db.Touch(ctx, []string{m.ID, "01JD0000000000000000000ZZZ"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.FlushSalience(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Get(ctx, m.ID)
	if got.Salience.AccessCount != memory.MaxAccesses+3 || len(got.Salience.Accesses) != memory.MaxAccesses {
		t.Fatalf("salience: %+v", got.Salience)
	}
	if got.Version != 1 || got.Confidence != m.Confidence || memory.Trust(got) != memory.Trust(m) {
		t.Fatalf("touch changed more than salience: %+v", got)
	}
	if evs, _ := db.Timeline(ctx, testPID, 10); len(evs) != 1 {
		t.Fatalf("touch wrote events: %d", len(evs))
	}
}

// An ambiguous prefix names its candidates by prefixes that tell them
// apart in the store, and ShortIDs gives prefixes the store resolves back.
func TestResolveAmbiguousAndShortIDs(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	ids := []string{
		"01J0000000AAAA000000000001", "01J0000000AAAA000000000002", "01J0000000AAAB000000000003",
		"01J0000000B00000000000004A", "01J0000000B00000000000004B", "01J0000000C000000000000005",
		"01J0000000D000000000000006",
	}
	for _, id := range ids {
		m := &memory.Memory{ID: id, Project: testPID, Layer: memory.LayerState, Title: "memory " + id, Body: "memory " + id}
		if _, err := db.Remember(ctx, m, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	_, err := db.Resolve(ctx, "01j0000000aaaa")
	if !errors.Is(err, memory.ErrAmbiguous) || !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "01J0000000AAAA000000000001, 01J0000000AAAA000000000002 —") {
		t.Fatalf("two candidates: %v", err)
	}
	_, err = db.Resolve(ctx, "01J0000")
	if !errors.Is(err, memory.ErrAmbiguous) || !strings.Contains(err.Error(), "01J0000000AAAA000000000001, 01J0000000AAAA000000000002, 01J0000000AAAB, 01J0000000B00000000000004A, 01J0000000B00000000000004B and more") {
		t.Fatalf("seven candidates: %v", err)
	}
	// Among the three shown, the first would be "01J0000000AAAA", but the
	// store holds …2, which shares all but its last character; C needs no
	// more than it needs among the shown.
	short := memory.ShortIDsIn(ctx, db, []string{ids[0], ids[2], ids[5]})
	for id, want := range map[string]string{ids[0]: ids[0], ids[2]: "01J0000000AAAB", ids[5]: "01J0000000C"} {
		if short[id] != want {
			t.Errorf("short %s = %q, want %q", id, short[id], want)
		}
		if got, err := db.Resolve(ctx, short[id]); err != nil || got != id {
			t.Errorf("resolve %s: %s, %v", short[id], got, err)
		}
	}
}
