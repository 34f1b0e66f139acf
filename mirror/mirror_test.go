package mirror

import (
	"context"
	"encoding/json"
	"errors"
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
	// The hand-written file keeps the name its author gave it, now with
	// the memory's id; the memory moved to A-invariant keeps its name.
	if b, err := os.ReadFile(filepath.Join(dir, "E-negative", "no-sleeps.md")); err != nil || !strings.Contains(string(b), "id: "+page.Memories[0].ID) {
		t.Errorf("the hand-written file should keep its name and gain the id: %v\n%s", err, b)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "E-negative")); len(ents) != 1 {
		t.Errorf("one file for the new memory, not %d", len(ents))
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
	// It archives the memory for teammates: said, and asked first.
	o.Layers = []memory.Layer{memory.LayerDecision}
	var ce *ConfirmError
	if _, err := Sync(ctx, db, &st, o); !errors.As(err, &ce) || len(ce.Ask.Unshare) != 1 || ce.Ask.Unshare[0].Title != "CI must be green" {
		t.Fatalf("removing a file no longer shared should be asked: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "A-invariant", "ci-must-be-green-"+ShortID(b.ID)+".md")); err != nil {
		t.Fatalf("a sync not confirmed removed the file: %v", err)
	}
	asked := 0
	o.Confirm = func(Ask) bool { asked++; return true }
	if rep, err := Sync(ctx, db, &st, o); err != nil || rep.Removed != 1 || asked != 1 || len(rep.Unshared) != 1 {
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

// failingImport is a store whose imports fail: a sync that breaks after
// it has archived.
type failingImport struct{ *store.DB }

func (failingImport) Import(context.Context, string, []memory.Record, memory.Actor) (memory.ImportResult, error) {
	return memory.ImportResult{}, errors.New("disk full")
}

// A sync that would archive more than a few memories names them and
// asks; one that fails part-way leaves the store and the state as they
// were; then a sync that works does it all.
func TestMassArchiveIsAskedAndAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	var ms []*memory.Memory
	for i := range 8 {
		m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerDecision, Title: fmt.Sprintf("Decision %d", i), Body: "Because."}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	file := func(m *memory.Memory) string {
		return filepath.Join(dir, "D-decision", fmt.Sprintf("decision-%s-%s.md", strings.TrimPrefix(m.Title, "Decision "), ShortID(m.ID)))
	}
	for _, m := range ms[:4] {
		if err := os.Remove(file(m)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(file(ms[7]))
	os.WriteFile(file(ms[7]), []byte(strings.Replace(string(b), "Because.", "Because we measured.", 1)), 0o644)
	before := clone(t, st)
	active := func() int {
		page, _ := db.List(ctx, memory.Query{Project: p.ID})
		return len(page.Memories)
	}

	var ce *ConfirmError
	if _, err := Sync(ctx, db, &st, o); !errors.As(err, &ce) || len(ce.Ask.Archive) != 4 || ce.Ask.Archive[0].Title != "Decision 0" ||
		!strings.Contains(err.Error(), `"Decision 3"`) {
		t.Fatalf("want the 4 archives asked, by title: %v", err)
	}
	if n := active(); n != 8 {
		t.Fatalf("an unconfirmed sync archived: %d active", n)
	}
	o.Confirm = func(Ask) bool { return true }
	if _, err := Sync(ctx, failingImport{db}, &st, o); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("want the import's failure: %v", err)
	}
	if n := active(); n != 8 {
		t.Fatalf("a failed sync left %d of 8 active", n)
	}
	if got, _ := db.Get(ctx, ms[7].ID); got.Body != "Because." {
		t.Fatalf("a failed sync edited: %q", got.Body)
	}
	if !equalState(st, before) {
		t.Fatal("a failed sync changed the state")
	}
	rep, err := Sync(ctx, db, &st, o)
	if err != nil || rep.Archived != 4 || rep.Edited != 1 {
		t.Fatalf("then the sync: %+v %v", rep, err)
	}
	if n := active(); n != 4 {
		t.Fatalf("%d active", n)
	}
}

func equalState(a, b State) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// A mirror directory that is gone, or most of whose files are, is a
// checkout: nothing changes until a person says it was removed.
func TestGoneMirrorChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	for i := range 5 {
		if _, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: fmt.Sprintf("Rule %d", i), Body: "Holds."}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "mirror")
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	before := clone(t, st)
	// Four of the five files gone: most of them, and more than a few.
	ents, _ := os.ReadDir(filepath.Join(dir, "A-invariant"))
	for _, e := range ents[:4] {
		os.Remove(filepath.Join(dir, "A-invariant", e.Name()))
	}
	var ge *GoneError
	if _, err := Sync(ctx, db, &st, o); !errors.As(err, &ge) || ge.Missing != 4 || ge.Left != 5 {
		t.Fatalf("want the loss refused: %v", err)
	}
	os.RemoveAll(dir)
	if _, err := Sync(ctx, db, &st, o); !errors.As(err, &ge) || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("want the missing mirror refused: %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the sync wrote a mirror where there was none")
	}
	if page, _ := db.List(ctx, memory.Query{Project: p.ID}); len(page.Memories) != 5 || !equalState(st, before) {
		t.Fatalf("a refused sync changed something: %d active", len(page.Memories))
	}
	o.MirrorRemoved, o.Confirm = true, func(a Ask) bool { return len(a.Archive) == 5 }
	if rep, err := Sync(ctx, db, &st, o); err != nil || rep.Archived != 5 {
		t.Fatalf("removed on purpose: %+v %v", rep, err)
	}
}

// The file of a memory that is no longer active here (superseded) going
// away is nothing to do: it never stops a sync.
func TestDeletedFileOfASupersededMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	old, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Release on Tuesdays", Body: "Tuesday."}, memory.ActorUser)
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Supersede(ctx, old.ID, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Release on Wednesdays", Body: "Wednesday."}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "B-state", "release-on-tuesdays-"+ShortID(old.ID)+".md")); err != nil {
		t.Fatal(err)
	}
	rep, err := Sync(ctx, db, &st, o)
	if err != nil || rep.Archived != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if got, _ := db.Get(ctx, old.ID); got.Status != memory.StatusSuperseded {
		t.Fatalf("%s", got.Status)
	}
	if rep, err := Sync(ctx, db, &st, o); err != nil || !rep.Nothing() {
		t.Fatalf("then nothing to sync (the file is not written back): %+v %v", rep, err)
	}
}

// A hand-written file's link finds its target by the target's title, as
// Obsidian writes it, or by the target's file name as it is now; a title
// two memories have names neither.
func TestLinksByTitleAndCurrentName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	a, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "One writer", Body: "Badger allows one."}, memory.ActorUser)
	b, _ := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "Same title", Body: "First."}, memory.ActorUser)
	db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "Same title", Body: "Second."}, memory.ActorUser)
	dir := t.TempDir()
	var st State
	o := Options{Dir: dir, Project: p.ID}
	if _, err := Sync(ctx, db, &st, o); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "A-invariant", "same-title-"+ShortID(b.ID)+".md"), filepath.Join(dir, "A-invariant", "The first one.md"))
	os.MkdirAll(filepath.Join(dir, "D-decision"), 0o755)
	os.WriteFile(filepath.Join(dir, "D-decision", "use-badger.md"), []byte("---\ntitle: Use Badger\nlayer: D\n---\n\nFor the store.\n\n"+
		"## Links\n\n- because [[one writer]]\n- depends_on [[The first one]]\n- relates_to [[Same title]]\n"), 0o644)
	rep, err := Sync(ctx, db, &st, o)
	if err != nil || rep.Added != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	page, _ := db.List(ctx, memory.Query{Project: p.ID, Layer: memory.LayerDecision})
	out, _, _ := db.Edges(ctx, page.Memories[0].ID)
	got := map[memory.EdgeKind]string{}
	for _, e := range out {
		got[e.Kind] = e.To
	}
	if len(out) != 2 || got[memory.EdgeBecause] != a.ID || got[memory.EdgeDependsOn] != b.ID {
		t.Fatalf("links: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "A-invariant", "The first one.md")); err != nil {
		t.Fatalf("the renamed file should keep its name: %v", err)
	}
}

// One sync at a time per mirror: a second says another is running; a
// lock whose process ended is no lock.
func TestOneSyncAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	home := t.TempDir()
	o := Options{Dir: t.TempDir(), Project: p.ID}
	unlock, err := lock(StatePath(home, o.Project, o.Dir) + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	var be *BusyError
	if _, err := Run(ctx, db, home, o); !errors.As(err, &be) || be.PID != fmt.Sprint(os.Getpid()) {
		t.Fatalf("want busy, by this pid: %v", err)
	}
	unlock()
	if _, err := Run(ctx, db, home, o); err != nil {
		t.Fatal(err)
	}
}
