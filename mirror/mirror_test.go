package mirror

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"cairn/memory"
	"cairn/store"
)

func openStore(tb testing.TB) (*store.DB, memory.Project) {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "s"), store.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	p, err := db.EnsureProject(context.Background(), memory.Project{ID: "0123456789abcdef", Name: "proj"})
	if err != nil {
		tb.Fatal(err)
	}
	return db, p
}

func genEntry(t *rapid.T) *Entry {
	text := rapid.StringMatching(`[A-Za-z0-9 .,:#'"|\[\]\-\n]{0,80}`)
	e := &Entry{
		ID:         memory.NewID(),
		Layer:      rapid.SampledFrom(memory.Layers).Draw(t, "layer"),
		Kind:       memory.KindFact,
		Title:      strings.ReplaceAll(rapid.StringMatching(`[A-Za-z0-9 .:'"|\-]{1,40}`).Draw(t, "title"), "\n", " "),
		Body:       strings.TrimSpace(text.Draw(t, "body")),
		Provenance: memory.ProvUserStated,
		Status:     memory.StatusActive,
		Tags:       rapid.SliceOfDistinct(rapid.StringMatching(`[a-z]{1,8}`), func(s string) string { return s }).Draw(t, "tags"),
		Version:    rapid.IntRange(1, 9).Draw(t, "version"),
		Created:    time.Unix(rapid.Int64Range(0, 2e9).Draw(t, "created"), 0).UTC(),
	}
	e.Updated = e.Created.Add(time.Hour)
	if rapid.Bool().Draw(t, "link") {
		e.Links = []Link{{Kind: memory.EdgeDependsOn, To: memory.NewID()}}
	}
	if rapid.Bool().Draw(t, "history") {
		e.History = []Past{{Version: 1, Updated: stamp(e.Created), Title: e.Title, Body: strings.TrimSpace(text.Draw(t, "old"))}}
	}
	return e
}

// A file reads back as what was written, and writing it again gives the
// same bytes: what lets a sync with nothing changed write nothing.
func TestRenderParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := genEntry(t)
		names, titles := map[string]string{}, map[string]string{}
		for _, l := range e.Links {
			names[l.To], titles[l.To] = "A-invariant/target-"+ShortID(l.To)+".md", "Target [x]"
		}
		b, err := Render(e, names, titles)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b, func(name string) string {
			for id, n := range names {
				if strings.TrimSuffix(filepath.Base(n), ".md") == name {
					return id
				}
			}
			return ""
		})
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		if Hash(got) != Hash(e) {
			t.Fatalf("read back differs:\n%s\n%+v\n%+v", b, e, got)
		}
		// The time of the last edit is not in the file (it would make
		// every concurrent edit a git conflict): the version and history are.
		if got.Version != e.Version || len(got.History) != len(e.History) || !got.Created.Equal(e.Created) || strings.Contains(string(b), "\nupdated:") {
			t.Fatalf("version, creation or history lost, or updated written:\n%s", b)
		}
		again, _ := Render(got, names, titles)
		if string(again) != string(b) {
			t.Fatalf("not deterministic:\n%s\n---\n%s", b, again)
		}
	})
}

func TestParseRefusesConflictMarkers(t *testing.T) {
	b := "---\nid: 01J0000000000000000000000A\n<<<<<<< HEAD\ntitle: ours\n=======\ntitle: theirs\n>>>>>>> origin/main\nlayer: A\n---\n\nbody\n"
	_, err := Parse([]byte(b), func(string) string { return "" })
	ce, ok := err.(*ConflictError)
	if !ok || ce.Line != 3 || len(ce.IDs) != 1 {
		t.Fatalf("want a conflict at line 3 naming the id, got %v", err)
	}
}

func TestParseRefusesAliases(t *testing.T) {
	b := "---\nid: &a 01J0000000000000000000000A\ntitle: *a\nlayer: A\n---\n"
	if _, err := Parse([]byte(b), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "anchors") {
		t.Fatalf("want anchors refused, got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nid: 01J0000000000000000000000A\ntitle: t\nlayer: A\n---\n\nbody\n\n## Links\n\n- depends_on [[x-abc|X]]\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse(b, func(string) string { return "" })
		if err != nil {
			return
		}
		// Whatever reads renders, and reads back the same.
		out, err := Render(e, nil, nil)
		if err != nil {
			return // a value YAML cannot write (the store would refuse it too)
		}
		e2, err := Parse(out, func(string) string { return "" })
		if err != nil {
			t.Fatalf("a rendered file does not read: %v\n%s", err, out)
		}
		if e2.Title != e.Title || strings.TrimSpace(e2.Body) != strings.TrimSpace(e.Body) {
			t.Fatalf("changed on the way: %q/%q → %q/%q", e.Title, e.Body, e2.Title, e2.Body)
		}
	})
}

// Files a person adds, moves or deletes by hand become memories, moves
// and archives; files that are not the mirror's are left alone.
func TestHandEditsComeIn(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	dir := t.TempDir()
	m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Port 7070 is taken", Body: "Use 7071."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Old fact", Body: "No longer."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	// A person writes a file without an id, moves one to the invariants,
	// deletes another, and leaves a note that is not a memory.
	write := func(rel, s string) {
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("E-negative/no-sleeps.md", "---\ntitle: No sleeps in tests\nlayer: E\n---\n\nSynchronise on events.\n")
	write("README.md", "# the team's memories\n")
	write("A-invariant/NOTES.md", "# notes on the invariants, not a memory\n")
	write(".trash/x.md", "not a memory\n")
	from := filepath.Join(dir, "B-state", "port-7070-is-taken-"+ShortID(m.ID)+".md")
	if err := os.Rename(from, filepath.Join(dir, "A-invariant", "port-7070-is-taken-"+ShortID(m.ID)+".md")); err != nil {
		os.MkdirAll(filepath.Join(dir, "A-invariant"), 0o755)
		if err := os.Rename(from, filepath.Join(dir, "A-invariant", "port-7070-is-taken-"+ShortID(m.ID)+".md")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "B-state", "old-fact-"+ShortID(gone.ID)+".md")); err != nil {
		t.Fatal(err)
	}
	rep, err := Sync(ctx, db, &st, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 1 || rep.Edited != 1 || rep.Archived != 1 || len(rep.Refused) != 0 || rep.Skipped != 1 {
		t.Fatalf("report: %+v", rep)
	}
	if got, _ := db.Get(ctx, m.ID); got.Layer != memory.LayerInvariant {
		t.Errorf("a file moved to A-invariant should move the memory: %s", got.Layer)
	}
	if got, _ := db.Get(ctx, gone.ID); got.Status != memory.StatusArchived {
		t.Errorf("a deleted file should archive the memory: %s", got.Status)
	}
	page, _ := db.List(ctx, memory.Query{Project: p.ID, Layer: memory.LayerNegative})
	if len(page.Memories) != 1 || page.Memories[0].Title != "No sleeps in tests" {
		t.Fatalf("the hand-written file should be a memory: %+v", page.Memories)
	}
	// The hand-written file now has its id and its name.
	if _, err := os.Stat(filepath.Join(dir, "E-negative", "no-sleeps-in-tests-"+ShortID(page.Memories[0].ID)+".md")); err != nil {
		t.Errorf("the new memory's file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "E-negative", "no-sleeps.md")); err == nil {
		t.Errorf("the hand-written file should give way to the memory's own")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Errorf("a file that is not the mirror's was touched: %v", err)
	}
	if rep, err := Sync(ctx, db, &st, o); err != nil || !rep.Nothing() {
		t.Fatalf("and then nothing to sync: %+v %v", rep, err)
	}
}

// benchSync is a project of 10,000 shared memories (a third of them
// linked) and its mirror, up to date.
func benchSync(b *testing.B) (*store.DB, *State, Options) {
	ctx := context.Background()
	db, p := openStore(b)
	const n = 10000
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{ID: memory.NewID(), Layer: memory.Layers[i%6],
			Title: fmt.Sprintf("Fact %d about module %d", i, i%97),
			Body:  fmt.Sprintf("Module %d keeps its state in table %d; callers go through its API.", i%97, i), Tags: []string{"m"}}
		if i > 0 && i%3 == 0 {
			recs[i].Edges = []memory.RecordEdge{{Kind: memory.EdgeRelatesTo, To: recs[i-1].ID, Weight: 1}}
		}
	}
	if _, err := db.Import(ctx, p.ID, recs, memory.ActorUser); err != nil {
		b.Fatal(err)
	}
	st := &State{}
	o := Options{Dir: b.TempDir(), Project: p.ID}
	if rep, err := Sync(ctx, db, st, o); err != nil || rep.Written != n {
		b.Fatalf("first sync: %+v %v", rep, err)
	}
	return db, st, o
}

// BenchmarkSyncNothingChanged is a sync of 10,000 shared memories whose
// mirror is up to date: what a sync costs on every pull that brought no
// memory (every file is read and summed; the store is asked for one event).
func BenchmarkSyncNothingChanged(b *testing.B) {
	db, st, o := benchSync(b)
	for b.Loop() {
		rep, err := Sync(context.Background(), db, st, o)
		if err != nil || !rep.Nothing() {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}

// BenchmarkSyncFullCompare is the same sync when the store wrote something
// since (here: the stamp is dropped), so every shared memory is read with
// its links and compared with its file: the worst case of "nothing to sync".
func BenchmarkSyncFullCompare(b *testing.B) {
	db, st, o := benchSync(b)
	for b.Loop() {
		st.Event = ""
		rep, err := Sync(context.Background(), db, st, o)
		if err != nil || !rep.Nothing() {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}

// A change in the store alone (a link, which bumps no version) reaches the
// mirror: the quick "nothing changed" path must not hide it.
func TestStoreOnlyChangesAreWritten(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	a, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerDecision, Title: "Ship on Fridays", Body: "Never."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "CI must be green", Body: "Always."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	if rep, _ := Sync(ctx, db, &st, o); !rep.Nothing() {
		t.Fatalf("nothing changed: %+v", rep)
	}
	if err := db.Link(ctx, memory.Edge{From: a.ID, Kind: memory.EdgeDependsOn, To: b.ID, Weight: 1}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	rep, err := Sync(ctx, db, &st, o)
	if err != nil || rep.Written != 1 {
		t.Fatalf("the link should rewrite one file: %+v %v", rep, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "D-decision", "ship-on-fridays-"+ShortID(a.ID)+".md"))
	if !strings.Contains(string(got), "- depends_on [[ci-must-be-green-"+ShortID(b.ID)+"|CI must be green]]") {
		t.Fatalf("the link is not in the file:\n%s", got)
	}
	// Sharing fewer layers is a change too: the invariant leaves the mirror.
	o.Layers = []memory.Layer{memory.LayerDecision}
	if rep, err := Sync(ctx, db, &st, o); err != nil || rep.Removed != 1 {
		t.Fatalf("a layer no longer shared should leave the mirror: %+v %v", rep, err)
	}
	if got, _ := db.Get(ctx, b.ID); got.Status != memory.StatusActive {
		t.Fatalf("a memory no longer shared must not be archived: %s", got.Status)
	}
}

// A secret in a teammate's file is refused like any write of it: the file
// is named (never the secret), the rest of the sync goes on.
func TestSecretInAFileIsRefused(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "A-invariant"), 0o755)
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	os.WriteFile(filepath.Join(dir, "A-invariant", "leak.md"), []byte("---\ntitle: Deploy token\nlayer: A\n---\n\nThe token is "+token+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "A-invariant", "fine.md"), []byte("---\ntitle: Deploys go through CI\nlayer: A\n---\n\nNever by hand.\n"), 0o644)
	var st State
	rep, err := Sync(ctx, db, &st, Options{Dir: dir, Project: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 || !strings.Contains(rep.Refused[0], "leak.md") || strings.Contains(rep.Refused[0], token) || rep.Added != 1 {
		t.Fatalf("report: %+v", rep)
	}
	page, _ := db.List(ctx, memory.Query{Project: p.ID})
	if len(page.Memories) != 1 || page.Memories[0].Title != "Deploys go through CI" {
		t.Fatalf("stored: %+v", page.Memories)
	}
}

// Status says, per shared memory, what the next sync would do, and writes
// nothing.
func TestStatus(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	here, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "Go 1.27", Body: "The toolchain."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	there, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "Badger", Body: "The store."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "My alias", Body: "gs = git status", Tags: []string{PersonalTag}}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	home, dir := t.TempDir(), t.TempDir()
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Run(ctx, db, home, o); err != nil {
		t.Fatal(err)
	}
	body := "The toolchain, pinned."
	if _, err := db.Edit(ctx, here.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "A-invariant", "badger-"+ShortID(there.ID)+".md")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), "The store.", "The store, on disk.", 1)), 0o644)
	before := mtimes(t, dir)
	got, err := Status(ctx, db, home, o)
	if err != nil {
		t.Fatal(err)
	}
	if got[here.ID] != ToPush || got[there.ID] != ToPull || len(got) != 2 {
		t.Fatalf("status: %v (personal %s)", got, mine.ID)
	}
	if _, ok := got[mine.ID]; ok {
		t.Fatal("a personal memory is not shared")
	}
	if after := mtimes(t, dir); len(after) != len(before) {
		t.Fatal("Status wrote")
	}
}

func mtimes(t *testing.T, dir string) map[string]time.Time {
	out := map[string]time.Time{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				out[path] = fi.ModTime()
			}
		}
		return nil
	})
	return out
}

// A file a person marks archived archives the memory and leaves the
// mirror, once: the next sync has nothing to do.
func TestArchivedInAFile(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Freeze until Monday", Body: "No deploys."}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "B-state", "freeze-until-monday-"+ShortID(m.ID)+".md")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), "status: active", "status: archived", 1)), 0o644)
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Get(ctx, m.ID); got.Status != memory.StatusArchived {
		t.Fatalf("status %s", got.Status)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the archived memory's file stayed")
	}
	if rep, err := Sync(ctx, db, &st, o); err != nil || !rep.Nothing() {
		t.Fatalf("then nothing to sync: %+v %v", rep, err)
	}
}

// A link line a person deletes from a file unlinks the memories.
func TestLinkRemovedInAFile(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	a, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerDecision, Title: "Use Badger", Body: "For the store."}, memory.ActorUser)
	b, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "One writer", Body: "Badger allows one."}, memory.ActorUser)
	if err := db.Link(ctx, memory.Edge{From: a.ID, Kind: memory.EdgeBecause, To: b.ID, Weight: 1}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "D-decision", "use-badger-"+ShortID(a.ID)+".md")
	data, _ := os.ReadFile(path)
	text, _, ok := strings.Cut(string(data), "\n## Links")
	if !ok {
		t.Fatalf("no links section:\n%s", data)
	}
	os.WriteFile(path, []byte(text+"\n"), 0o644)
	if rep, err := Sync(ctx, db, &st, o); err != nil || rep.Edited != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	out, _, _ := db.Edges(ctx, a.ID)
	for _, e := range out {
		if e.To == b.ID && e.Active {
			t.Fatalf("the link removed in the file is still active: %+v", e)
		}
	}
	if rep, err := Sync(ctx, db, &st, o); err != nil || !rep.Nothing() {
		t.Fatalf("then nothing to sync: %+v %v", rep, err)
	}
}

// A file copied under another name holds the same id: refused, and the
// memory left alone, until one of them goes.
func TestCopiedFileIsRefused(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	m, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Staging is down", Body: "Until noon."}, memory.ActorUser)
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "B-state", "staging-is-down-"+ShortID(m.ID)+".md")
	data, _ := os.ReadFile(path)
	for _, name := range []string{"a-copy.md", "z-copy.md"} { // before and after it in the folder
		copyPath := filepath.Join(dir, "B-state", name)
		os.WriteFile(copyPath, data, 0o644)
		rep, err := Sync(ctx, db, &st, o)
		if err != nil || len(rep.Refused) != 1 || !strings.Contains(rep.Refused[0], "holds the id of") {
			t.Fatalf("%s: %+v %v", name, rep, err)
		}
		if got, _ := db.Get(ctx, m.ID); got.Status != memory.StatusActive || got.Version != m.Version {
			t.Fatalf("%s: the memory was touched: %+v", name, got)
		}
		os.Remove(copyPath)
	}
	if rep, err := Sync(ctx, db, &st, o); err != nil || !rep.Nothing() {
		t.Fatalf("then nothing to sync: %+v %v", rep, err)
	}
}

// A layer folder committed as a symbolic link (to somewhere outside the
// mirror) is neither read nor written through.
func TestLinkedLayerFolderIsRefused(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	if _, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "T", Body: "B."}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "A-invariant")); err != nil {
		t.Fatal(err)
	}
	var st State
	if _, err := Sync(ctx, db, &st, Options{Dir: dir, Project: p.ID}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("want the link refused, got %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the sync wrote through the link: %v", ents)
	}
}

// A crash after the store took a teammate's edit, before the sync state
// was saved: the next sync, from the older state, finds both sides saying
// the same and agrees — no copy, no conflict.
func TestCrashBeforeTheStateIsSaved(t *testing.T) {
	ctx := context.Background()
	db, p := openStore(t)
	m, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Release train", Body: "Every Tuesday."}, memory.ActorUser)
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	old := clone(t, st)
	path := filepath.Join(dir, "B-state", "release-train-"+ShortID(m.ID)+".md")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), "Every Tuesday.", "Every other Tuesday.", 1)), 0o644)
	if rep, err := Sync(ctx, db, &st, o); err != nil || rep.Edited != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	rep, err := Sync(ctx, db, &old, o) // the state the crash left
	if err != nil || len(rep.Conflicts) != 0 || rep.Added != 0 || rep.Edited != 0 {
		t.Fatalf("after the crash: %+v %v", rep, err)
	}
	if rep, err := Sync(ctx, db, &old, o); err != nil || !rep.Nothing() {
		t.Fatalf("then nothing to sync: %+v %v", rep, err)
	}
}

func clone(t *testing.T, st State) State {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out State
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
