package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// rawDump is every live key of the store with its value, as stored.
func rawDump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if bytes.Equal(k, keyCounts) || bytes.HasPrefix(k, prefixCountDeltas) {
				continue // the counts are compared as counts, below
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(k)] = string(v)
		}
		// The counts kept: what a write changed and its undo took back
		// leave two deltas that add up to nothing, so the dump holds what
		// they add up to.
		c, err := counts(txn)
		b, _ := json.Marshal(c)
		out["(counts)"] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stateDump is what a run may change and an undo must restore: memories
// (their reads aside), versions, index entries, edges, drafts, proposals,
// reviews and the saved states of runs. The timeline and the run records
// are left out: an undo adds to them.
func stateDump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range rawDump(t, db) {
		switch {
		case strings.HasPrefix(k, "mem/"):
			m, err := DecodeMemory([]byte(k), []byte(v))
			if err != nil {
				t.Fatal(err)
			}
			m.Salience.Accesses, m.Salience.AccessCount, m.Salience.Feedback = nil, 0, nil // reads and feedback are kept by an undo
			b, _ := json.Marshal(m)
			out[k] = string(b)
		case hasAnyPrefix(k, "ver/", "idx/", "edge/", "draft/", "prop", "review/", "rj/"):
			out[k] = v
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// sameDump fails the test with the keys in which two dumps differ.
func sameDump(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diff = append(diff, "gone "+k)
		} else if w != v {
			diff = append(diff, "changed "+k+": "+v+" → "+w)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, "new "+k+" = "+after[k])
		}
	}
	if len(diff) > 0 {
		slices.Sort(diff)
		if len(diff) > 12 {
			diff = append(diff[:12], fmt.Sprintf("… and %d more", len(diff)-12))
		}
		t.Fatalf("%s: the store differs in %s", what, strings.Join(diff, "\n\t"))
	}
}

func capture(t testing.TB, db *DB, text string) memory.Draft {
	t.Helper()
	d, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func applyRun(t testing.TB, db *DB, ops ...memory.Op) memory.Run {
	t.Helper()
	run, err := db.Apply(ctx, memory.Run{Project: testPID, Summary: "test run"}, ops)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func getMemT(t testing.TB, db *DB, id string) *memory.Memory {
	t.Helper()
	m, err := db.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newMem(layer memory.Layer, body string) *memory.Memory {
	return &memory.Memory{ID: memory.NewID(), Layer: layer, Body: body}
}

func oneLine(t testing.TB, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err)
	}
}

// runFixture is a store with something for every kind of step, and a run
// that takes each of them.
type runFixture struct {
	db                                       *DB
	old, cache, with, reinf, dec, arch, stay *memory.Memory
	d1, d2                                   memory.Draft
	prior                                    memory.Run // proposes archiving arch
	priorProp                                string
	created, succ                            *memory.Memory
	ops                                      []memory.Op
}

func newRunFixture(t *testing.T) *runFixture {
	db, _ := openTest(t)
	f := &runFixture{db: db}
	f.old = remember(t, db, memory.LayerState, "release v1 is out", "release v1 is out")
	f.cache = remember(t, db, memory.LayerInvariant, "cache in tmp", "the cache lives in /tmp/cairn")
	f.with = remember(t, db, memory.LayerInvariant, "cache in XDG", "the cache lives in $XDG_CACHE_HOME/cairn")
	f.reinf = remember(t, db, memory.LayerInvariant, "prefers stdlib", "prefers the standard library over dependencies")
	f.dec = remember(t, db, memory.LayerDecision, "parked MTP", "parked MTP because it was net-negative on MoE")
	f.arch = remember(t, db, memory.LayerEpisode, "flaky CI once", "CI was flaky on 2026-01-02")
	f.stay = remember(t, db, memory.LayerNegative, "untouched", "VGPR-256 starved occupancy: don't")
	f.d1 = capture(t, db, "user said: always run make lint before pushing")
	f.d2 = capture(t, db, "user said: prefer the stdlib to dependencies")
	f.prior = applyRun(t, db, memory.Op{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeArchive, Target: f.arch.ID, Reason: "weak and stale"}})
	f.priorProp = f.prior.Changes[0].Proposal
	f.created = newMem(memory.LayerInvariant, "always run make lint before pushing")
	f.succ = newMem(memory.LayerState, "release v2 is out")
	f.ops = []memory.Op{
		{Kind: memory.OpCreate, Memory: f.created, Change: memory.Change{Draft: f.d1.ID}},
		{Kind: memory.OpDraftDone, Draft: f.d1.ID},
		{Kind: memory.OpSupersede, Target: f.old.ID, Memory: f.succ, Reason: "a newer release"},
		{Kind: memory.OpReinforce, Target: f.cache.ID, Reason: "said again in " + f.d2.ID},
		{Kind: memory.OpSupersede, Target: f.cache.ID, With: f.with.ID, Reason: "contradicted by " + f.with.ID},
		{Kind: memory.OpReinforce, Target: f.reinf.ID, Reason: "said again in " + f.d2.ID},
		{Kind: memory.OpReopen, Target: f.dec.ID, Reason: "its reason " + f.old.ID + " was superseded"},
		{Kind: memory.OpArchive, Target: f.arch.ID, Reason: "proposal " + f.priorProp},
		{Kind: memory.OpLink, Edge: &memory.Edge{From: f.dec.ID, Kind: memory.EdgeEvidence, To: f.created.ID}},
		{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeMerge, Target: f.reinf.ID, Draft: f.d2.ID,
			Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: "prefer the stdlib to dependencies"}, Reason: "says nearly what " + f.reinf.ID + " says"}},
		{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: f.priorProp, State: memory.ProposalAccepted, Result: f.arch.ID},
			Change: memory.Change{Kind: memory.ChangeAccept}},
		{Kind: memory.OpDraftDone, Draft: f.d2.ID},
	}
	return f
}

func TestApplyCarriesOutEveryKindOfStep(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	db := f.db
	run := applyRun(t, db, f.ops...)
	if !validID(run.ID) || run.Actor != memory.ActorSystem || run.Time.IsZero() || len(run.Changes) != len(f.ops) {
		t.Fatalf("run: %+v", run)
	}

	c := getMemT(t, db, f.created.ID)
	if c.Status != memory.StatusActive || c.Project != testPID || c.Source.Actor != memory.ActorSystem || c.Version != 1 || c.CreatedAt.IsZero() {
		t.Fatalf("created: %+v", c)
	}
	succ, old := getMemT(t, db, f.succ.ID), getMemT(t, db, f.old.ID)
	if !slices.Equal(succ.Supersedes, []string{f.old.ID}) || succ.Status != memory.StatusActive {
		t.Fatalf("successor: %+v", succ)
	}
	if old.Status != memory.StatusSuperseded || old.SupersededBy != f.succ.ID || old.ValidUntil.IsZero() {
		t.Fatalf("superseded: %+v", old)
	}
	cache, with := getMemT(t, db, f.cache.ID), getMemT(t, db, f.with.ID)
	if cache.Status != memory.StatusSuperseded || cache.SupersededBy != f.with.ID || cache.Salience.Reinforcements != 1 {
		t.Fatalf("superseded by an existing memory: %+v", cache)
	}
	if !slices.Equal(with.Supersedes, []string{f.cache.ID}) || with.Status != memory.StatusActive || with.Salience.Reinforcements != 1 {
		t.Fatalf("the existing successor (it takes the reinforcements of what it supersedes): %+v", with)
	}
	if r := getMemT(t, db, f.reinf.ID); r.Salience.Reinforcements != 1 || r.Status != memory.StatusActive {
		t.Fatalf("reinforced: %+v", r)
	}
	if d := getMemT(t, db, f.dec.ID); d.ReopenedAt.IsZero() || d.Reopened != "its reason "+f.old.ID+" was superseded" {
		t.Fatalf("reopened: %+v", d)
	}
	if a := getMemT(t, db, f.arch.ID); a.Status != memory.StatusArchived {
		t.Fatalf("archived: %+v", a)
	}
	if s := getMemT(t, db, f.stay.ID); s.Salience.Reinforcements != 0 || s.Status != memory.StatusActive {
		t.Fatalf("a memory the run does not name changed: %+v", s)
	}
	out, _, _ := db.Edges(ctx, f.dec.ID)
	if len(out) != 1 || out[0].Kind != memory.EdgeEvidence || out[0].To != f.created.ID || !out[0].Active || out[0].Weight != 1 {
		t.Fatalf("link: %+v", out)
	}
	for _, pair := range [][2]string{{f.succ.ID, f.old.ID}, {f.with.ID, f.cache.ID}} {
		out, _, _ := db.Edges(ctx, pair[0])
		if len(out) != 1 || out[0].Kind != memory.EdgeSupersedes || out[0].To != pair[1] {
			t.Fatalf("supersedes edge %s → %s: %+v", pair[0], pair[1], out)
		}
	}

	prior, err := db.Proposal(ctx, f.priorProp)
	if err != nil || prior.State != memory.ProposalAccepted || prior.DecidedBy != memory.ActorSystem || prior.DecidedAt.IsZero() || prior.Result != f.arch.ID {
		t.Fatalf("decided proposal: %+v %v", prior, err)
	}
	open, _ := db.Proposals(ctx, testPID, memory.ProposalOpen)
	if len(open) != 1 || open[0].Kind != memory.ProposeMerge || open[0].Run != run.ID || open[0].Draft != f.d2.ID || open[0].Target != f.reinf.ID ||
		open[0].Memory == nil || open[0].Memory.Project != testPID {
		t.Fatalf("open proposals: %+v", open)
	}
	if run.Changes[9].Proposal != open[0].ID {
		t.Fatalf("the propose change names %q, the proposal is %s", run.Changes[9].Proposal, open[0].ID)
	}
	ds, _ := db.Drafts(ctx, testPID, 10)
	if len(ds) != 2 || ds[0].Done != run.ID || ds[1].Done != run.ID || ds[0].DoneAt.IsZero() || len(memory.Waiting(ds)) != 0 {
		t.Fatalf("drafts: %+v", ds)
	}

	// The timeline: one event per step, by the system, and the run's.
	evs, _ := db.Timeline(ctx, testPID, 100)
	want := []struct {
		kind memory.EventKind
		mem  string
	}{
		{memory.EventRemember, f.created.ID}, {memory.EventRemember, f.succ.ID}, {memory.EventSupersede, f.old.ID},
		{memory.EventReinforce, f.cache.ID}, {memory.EventSupersede, f.cache.ID}, {memory.EventReinforce, f.reinf.ID},
		{memory.EventReopen, f.dec.ID}, {memory.EventArchive, f.arch.ID}, {memory.EventPropose, f.reinf.ID},
		{memory.EventDecide, f.arch.ID}, {memory.EventConsolidate, ""},
	}
	for _, w := range want {
		if !slices.ContainsFunc(evs, func(e memory.Event) bool {
			return e.Kind == w.kind && e.MemoryID == w.mem && e.Actor == memory.ActorSystem && !e.Time.Before(run.Time)
		}) {
			t.Errorf("no %s event about %q by the system", w.kind, w.mem)
		}
	}
	if evs[0].Kind != memory.EventConsolidate || !strings.Contains(evs[0].Summary, run.ID) || !strings.Contains(evs[0].Summary, "test run") {
		t.Errorf("newest event: %+v", evs[0])
	}

	// Runs lists it with its changes, titles as the memories read now.
	runs, err := db.Runs(ctx, testPID, 0)
	if err != nil || len(runs) != 2 || runs[0].ID != run.ID || runs[1].ID != f.prior.ID {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	got := runs[0]
	if len(got.Changes) != len(f.ops) || !got.UndoneAt.IsZero() || got.Summary != "test run" || !got.Time.Equal(run.Time) {
		t.Fatalf("listed run: %+v", got)
	}
	kinds := []memory.ChangeKind{memory.ChangeCreate, memory.ChangeDraftDone, memory.ChangeSupersede, memory.ChangeReinforce, memory.ChangeSupersede,
		memory.ChangeReinforce, memory.ChangeReopen, memory.ChangeArchive, memory.ChangeLink, memory.ChangePropose, memory.ChangeAccept, memory.ChangeDraftDone}
	for i, k := range kinds {
		if got.Changes[i].Kind != k {
			t.Errorf("change %d is %s, want %s", i, got.Changes[i].Kind, k)
		}
	}
	if ch := got.Changes[0]; ch.Memory != f.created.ID || ch.Title != c.Title || ch.Draft != f.d1.ID || ch.Layer != memory.LayerInvariant {
		t.Errorf("create change: %+v", ch)
	}
	if ch := got.Changes[2]; ch.Memory != f.succ.ID || ch.Target != f.old.ID || ch.Title != succ.Title || ch.TargetTitle != old.Title || ch.Reason != "a newer release" {
		t.Errorf("supersede change: %+v", ch)
	}
	if ch := got.Changes[4]; ch.Memory != f.with.ID || ch.Target != f.cache.ID || ch.Title != with.Title || ch.TargetTitle != cache.Title {
		t.Errorf("supersede-with change: %+v", ch)
	}
	if ch := got.Changes[8]; ch.Memory != f.dec.ID || ch.Target != f.created.ID || ch.TargetTitle != c.Title {
		t.Errorf("link change: %+v", ch)
	}
	// Stored, the changes hold ids and reasons, never a title: forgetting a
	// memory must not leave its title in an old run.
	raw := rawDump(t, db)
	n := 0
	for k, v := range raw {
		if !strings.HasPrefix(k, "run/c/"+run.ID+"/") {
			continue
		}
		n++
		if strings.Contains(v, `"title"`) || strings.Contains(v, `"target_title"`) {
			t.Errorf("stored changes hold titles: %s", v)
		}
		for _, title := range []string{c.Title, succ.Title, old.Title, cache.Title, with.Title} {
			if strings.Contains(v, title) {
				t.Errorf("stored changes quote %q", title)
			}
		}
	}
	if n == 0 {
		t.Fatal("no stored changes under run/c/")
	}
	// A retried Apply returns what is stored, titles filled the same way.
	again, err := db.Apply(ctx, memory.Run{ID: run.ID, Project: testPID, Summary: "test run"}, f.ops)
	if err != nil || again.ID != run.ID || !slices.Equal(again.Changes, got.Changes) {
		t.Fatalf("retry: %+v %v", again, err)
	}
}

// A client that retries a run it did not hear back from gets the run as
// it was stored, and nothing is written twice.
func TestApplyRetryWritesNothingMore(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	id := memory.NewID()
	first, err := f.db.Apply(ctx, memory.Run{ID: id, Project: testPID, Summary: "retried"}, f.ops)
	if err != nil {
		t.Fatal(err)
	}
	before := rawDump(t, f.db)
	again, err := f.db.Apply(ctx, memory.Run{ID: id, Project: testPID, Summary: "retried"}, f.ops)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.Time.Equal(first.Time) || len(again.Changes) != len(first.Changes) {
		t.Fatalf("retry returned %+v, first %+v", again, first)
	}
	for i := range first.Changes {
		a, b := first.Changes[i], again.Changes[i]
		if a.Kind != b.Kind || a.Memory != b.Memory || a.Target != b.Target || a.Proposal != b.Proposal || a.Draft != b.Draft {
			t.Fatalf("change %d: first %+v, retry %+v", i, a, b)
		}
	}
	sameDump(t, "after a retried run", before, rawDump(t, f.db))
	// The same id for a run of another project is a mistake, said so.
	if _, err := f.db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "other"}); err != nil {
		t.Fatal(err)
	}
	before = rawDump(t, f.db)
	_, err = f.db.Apply(ctx, memory.Run{ID: id, Project: "00000000000000bb"}, []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "x y z")}})
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "leave it empty") {
		t.Fatalf("run id reused by another project: %v", err)
	}
	sameDump(t, "after a reused run id", before, rawDump(t, f.db))
}

// A step whose subject changed since the run was planned fails the whole
// run, which leaves the store exactly as it was.
func TestStaleStepFailsTheWholeRun(t *testing.T) {
	t.Parallel()
	// Each setup changes the store after the run was "planned" and returns
	// the run and the id its error must name.
	cases := []struct {
		name  string
		setup func(t *testing.T, db *DB) ([]memory.Op, string)
	}{
		{"target archived since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			m := remember(t, db, 'A', "t", "a fact to reinforce")
			if _, err := db.Archive(ctx, m.ID, "", memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "a new fact first")}, {Kind: memory.OpReinforce, Target: m.ID}}, m.ID
		}},
		{"target forgotten since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			m := remember(t, db, 'A', "t", "a fact to archive")
			if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "a new fact first")}, {Kind: memory.OpArchive, Target: m.ID}}, m.ID
		}},
		{"target superseded since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			m := remember(t, db, 'B', "t", "release v1")
			if _, err := db.Supersede(ctx, m.ID, &memory.Memory{Body: "release v2"}, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpSupersede, Target: m.ID, Memory: newMem('B', "release v3")}}, m.ID
		}},
		{"successor archived since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			a := remember(t, db, 'A', "a", "cache lives in tmp")
			w := remember(t, db, 'A', "w", "cache lives in the XDG cache dir")
			if _, err := db.Archive(ctx, w.ID, "", memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpReinforce, Target: a.ID}, {Kind: memory.OpSupersede, Target: a.ID, With: w.ID}}, w.ID
		}},
		{"link to a memory forgotten since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			a := remember(t, db, 'D', "a", "a decision")
			b := remember(t, db, 'C', "b", "its evidence")
			if err := db.Forget(ctx, b.ID, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpReinforce, Target: a.ID}, {Kind: memory.OpLink, Edge: &memory.Edge{From: a.ID, Kind: memory.EdgeEvidence, To: b.ID}}}, b.ID
		}},
		{"draft already taken", func(t *testing.T, db *DB) ([]memory.Op, string) {
			d := capture(t, db, "user said: tabs, not spaces")
			applyRun(t, db, memory.Op{Kind: memory.OpDraftDone, Draft: d.ID})
			return []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "tabs, not spaces")}, {Kind: memory.OpDraftDone, Draft: d.ID}}, d.ID
		}},
		{"draft dropped since", func(t *testing.T, db *DB) ([]memory.Op, string) {
			d := capture(t, db, "user said: tabs, not spaces")
			if err := db.DropDraft(ctx, d.ID, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			return []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "tabs, not spaces")}, {Kind: memory.OpDraftDone, Draft: d.ID}}, d.ID
		}},
		{"proposal already decided", func(t *testing.T, db *DB) ([]memory.Op, string) {
			m := remember(t, db, 'C', "t", "an old event")
			r := applyRun(t, db, memory.Op{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeArchive, Target: m.ID, Reason: "stale"}})
			pid := r.Changes[0].Proposal
			applyRun(t, db, memory.Op{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: pid, State: memory.ProposalRejected}})
			return []memory.Op{{Kind: memory.OpArchive, Target: m.ID}, {Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: pid, State: memory.ProposalAccepted, Result: m.ID}}}, pid
		}},
		{"in a later batch", func(t *testing.T, db *DB) ([]memory.Op, string) {
			// The first batch is written before the stale step is reached:
			// it must be taken back, events and all.
			m := remember(t, db, 'A', "t", "a fact to reinforce")
			if _, err := db.Archive(ctx, m.ID, "", memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			var ops []memory.Op
			for i := range batchOps + 10 {
				ops = append(ops, memory.Op{Kind: memory.OpCreate, Memory: newMem(memory.Layers[i%6], fmt.Sprintf("fact %d of a long run", i))})
			}
			return append(ops, memory.Op{Kind: memory.OpReinforce, Target: m.ID}), m.ID
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openTest(t)
			batches := 0
			db.testRunStep = func(stage string, n int) {
				if stage == "batch" {
					batches = n
				}
			}
			ops, about := c.setup(t, db)
			before := rawDump(t, db)
			_, err := db.Apply(ctx, memory.Run{Project: testPID}, ops)
			if !errors.Is(err, memory.ErrStale) {
				t.Fatalf("err = %v, want ErrStale", err)
			}
			oneLine(t, err)
			if !strings.Contains(err.Error(), about) || !strings.Contains(err.Error(), "run it again") {
				t.Fatalf("the error should name %s and say what to do: %v", about, err)
			}
			if c.name == "in a later batch" && batches != 1 {
				t.Fatalf("the stale step was reached after %d batches, want 1", batches)
			}
			sameDump(t, "after a stale run", before, rawDump(t, db))
		})
	}
}

// Bad input is refused with one line that says what is wrong, and the
// store is unchanged.
func TestApplyRefusesBadInput(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, 'A', "t", "a fact")
	m2 := remember(t, db, 'A', "t2", "another fact")
	if _, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "other"}); err != nil {
		t.Fatal(err)
	}
	foreign, err := db.Remember(ctx, &memory.Memory{Project: "00000000000000bb", Layer: 'A', Body: "another project's fact"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	secret := "aws key AKIA" + "IOSFODNN7EXAMPLQ in use"
	cases := []struct {
		name string
		run  memory.Run
		ops  []memory.Op
		kind error
		want string
	}{
		{"bad run id", memory.Run{ID: "nope"}, []memory.Op{{Kind: memory.OpReinforce, Target: m.ID}}, memory.ErrInvalid, "not a ULID"},
		{"bad actor", memory.Run{Actor: "robot"}, []memory.Op{{Kind: memory.OpReinforce, Target: m.ID}}, memory.ErrInvalid, "actor"},
		{"unknown step", memory.Run{}, []memory.Op{{Kind: "melt", Target: m.ID}}, memory.ErrInvalid, "unknown step"},
		{"nothing to create", memory.Run{}, []memory.Op{{Kind: memory.OpCreate}}, memory.ErrInvalid, "nothing to create"},
		{"empty memory", memory.Run{}, []memory.Op{{Kind: memory.OpCreate, Memory: &memory.Memory{Layer: 'A'}}}, memory.ErrInvalid, "empty"},
		{"bad target", memory.Run{}, []memory.Op{{Kind: memory.OpArchive, Target: "x"}}, memory.ErrInvalid, "not a memory id"},
		{"no successor", memory.Run{}, []memory.Op{{Kind: memory.OpSupersede, Target: m.ID}}, memory.ErrInvalid, "successor"},
		{"supersede itself", memory.Run{}, []memory.Op{{Kind: memory.OpSupersede, Target: m.ID, With: m.ID}}, memory.ErrInvalid, "itself"},
		{"self link", memory.Run{}, []memory.Op{{Kind: memory.OpLink, Edge: &memory.Edge{From: m.ID, Kind: memory.EdgeBecause, To: m.ID}}}, memory.ErrInvalid, "two different"},
		{"supersedes as a link", memory.Run{}, []memory.Op{{Kind: memory.OpLink, Edge: &memory.Edge{From: m.ID, Kind: memory.EdgeSupersedes, To: m2.ID}}}, memory.ErrInvalid, "supersede"},
		{"link weight", memory.Run{}, []memory.Op{{Kind: memory.OpLink, Edge: &memory.Edge{From: m.ID, Kind: memory.EdgeBecause, To: m2.ID, Weight: 7}}}, memory.ErrInvalid, "weight"},
		{"bad proposal kind", memory.Run{}, []memory.Op{{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: "marry", Target: m.ID}}}, memory.ErrInvalid, "proposal kind"},
		{"decide open", memory.Run{}, []memory.Op{{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: memory.NewID(), State: memory.ProposalOpen}}}, memory.ErrInvalid, "accepted or rejected"},
		{"bad draft", memory.Run{}, []memory.Op{{Kind: memory.OpDraftDone, Draft: "d1"}}, memory.ErrInvalid, "draft id"},
		{"control character in reason", memory.Run{}, []memory.Op{{Kind: memory.OpArchive, Target: m.ID, Reason: "a\x1b[31m"}}, memory.ErrInvalid, "reason"},
		{"secret in reason", memory.Run{}, []memory.Op{{Kind: memory.OpArchive, Target: m.ID, Reason: secret}}, memory.ErrSecret, "reason"},
		{"secret in a memory", memory.Run{}, []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', secret)}}, memory.ErrSecret, "access key"},
		{"secret in a candidate", memory.Run{}, []memory.Op{{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeRemember, Memory: newMem('A', secret)}}}, memory.ErrSecret, "access key"},
		{"another project's memory", memory.Run{}, []memory.Op{{Kind: memory.OpReinforce, Target: foreign.ID}}, memory.ErrInvalid, "another project"},
		{"unknown project", memory.Run{Project: "00000000000000ff"}, []memory.Op{{Kind: memory.OpCreate, Memory: newMem('A', "x y z")}}, memory.ErrNotFound, "project"},
		{"id taken", memory.Run{}, []memory.Op{{Kind: memory.OpCreate, Memory: &memory.Memory{ID: m.ID, Layer: 'A', Body: "x y z"}}}, memory.ErrInvalid, "already exists"},
	}
	before := rawDump(t, db)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.run.Project == "" {
				c.run.Project = testPID
			}
			_, err := db.Apply(ctx, c.run, c.ops)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.kind, c.want)
			}
			oneLine(t, err)
			if strings.Contains(err.Error(), "AKIA") {
				t.Fatalf("the error echoes the secret: %v", err)
			}
			sameDump(t, "after refused input", before, rawDump(t, db))
		})
	}
	// An empty run writes nothing at all.
	if _, err := db.Apply(ctx, memory.Run{Project: testPID}, nil); err != nil {
		t.Fatal(err)
	}
	sameDump(t, "after an empty run", before, rawDump(t, db))
}

func TestUndoRunRestoresExactly(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	db := f.db
	before := stateDump(t, db)
	evBefore, _ := db.Timeline(ctx, testPID, 1000)
	run := applyRun(t, db, f.ops...)
	evRun, _ := db.Timeline(ctx, testPID, 1000)
	// Recall between the run and its undo: the reads are kept.
	if err := db.Touch(ctx, []string{f.reinf.ID, f.with.ID, f.created.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.FlushSalience(ctx); err != nil {
		t.Fatal(err)
	}

	// Prefixes: too short, ambiguous (the prior run shares the first
	// characters of the time part), unknown.
	if _, err := db.UndoRun(ctx, testPID, "01", memory.ActorUser); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("too short: %v", err)
	}
	if _, err := db.UndoRun(ctx, testPID, run.ID[:4], memory.ActorUser); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	if _, err := db.UndoRun(ctx, testPID, "7ZZZZZZZ", memory.ActorUser); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
	if _, err := db.UndoRun(ctx, "00000000000000bb", run.ID, memory.ActorUser); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("a run of another project: %v", err)
	}
	n := 4
	for run.ID[:n] == f.prior.ID[:n] {
		n++
	}
	undone, err := db.UndoRun(ctx, testPID, strings.ToLower(run.ID[:n]), memory.ActorUser)
	if err != nil {
		t.Fatalf("undo by the unique prefix %q: %v", run.ID[:n], err)
	}
	if undone.ID != run.ID || undone.UndoneAt.IsZero() {
		t.Fatalf("undone: %+v", undone)
	}
	sameDump(t, "after the undo", before, stateDump(t, db))
	for _, id := range []string{f.reinf.ID, f.with.ID} {
		if m := getMemT(t, db, id); m.Salience.AccessCount != 1 || len(m.Salience.Accesses) != 1 {
			t.Fatalf("the read of %s between run and undo was lost: %+v", id, m.Salience)
		}
	}
	if _, err := db.Get(ctx, f.created.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the memory the run created is still there: %v", err)
	}
	// The timeline keeps everything, and says the run was undone.
	evs, _ := db.Timeline(ctx, testPID, 1000)
	if len(evs) != len(evRun)+1 || evs[0].Kind != memory.EventUndo || evs[0].Actor != memory.ActorUser || !strings.Contains(evs[0].Summary, run.ID) {
		t.Fatalf("timeline after the undo: %d events (run: %d, before: %d), newest %+v", len(evs), len(evRun), len(evBefore), evs[0])
	}
	runs, _ := db.Runs(ctx, testPID, 10)
	if len(runs) != 2 || runs[0].ID != run.ID || runs[0].UndoneAt.IsZero() || len(runs[0].Changes) != len(f.ops) || !runs[1].UndoneAt.IsZero() {
		t.Fatalf("runs after the undo: %+v", runs)
	}
	// Its journal is gone; its record stays.
	raw := rawDump(t, db)
	for k := range raw {
		if hasAnyPrefix(k, "run/j/"+run.ID, "run/u/", "rj/") {
			t.Fatalf("left after the undo: %s", k)
		}
	}
	// Twice: said clearly, nothing changed.
	_, err = db.UndoRun(ctx, testPID, run.ID, memory.ActorUser)
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "already undone") {
		t.Fatalf("second undo: %v", err)
	}
	oneLine(t, err)
	sameDump(t, "after a second undo", raw, rawDump(t, db))
	// The drafts wait again: a new run can take them.
	again := applyRun(t, db, memory.Op{Kind: memory.OpDraftDone, Draft: f.d1.ID}, memory.Op{Kind: memory.OpReinforce, Target: f.cache.ID})
	if again.Changes[0].Draft != f.d1.ID {
		t.Fatalf("rerun: %+v", again)
	}
}

// An undo that failed half way in this process (cairn finishes it at the
// next Open) is finished by the next undo asked for, and not done twice.
func TestUndoAfterAFailedUndo(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, 'A', "t", "prefers tabs")
	run := applyRun(t, db, memory.Op{Kind: memory.OpReinforce, Target: m.ID}, memory.Op{Kind: memory.OpCreate, Memory: newMem('A', "prefers short functions")})
	// As UndoRun leaves it when taking back fails (a full disk): marked
	// under way, nothing taken back yet.
	if err := db.update(ctx, func(txn *badger.Txn) error { return put(txn, keyRunUndoing(run.ID), memory.ActorUser) }); err != nil {
		t.Fatal(err)
	}
	undone, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser)
	if err != nil || undone.UndoneAt.IsZero() {
		t.Fatalf("undo: %+v %v", undone, err)
	}
	evs, _ := db.Timeline(ctx, testPID, 100)
	n := 0
	for _, e := range evs {
		if e.Kind == memory.EventUndo {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d undo events, want 1", n)
	}
	if got := getMemT(t, db, m.ID); got.Salience.Reinforcements != 0 {
		t.Fatalf("not undone: %+v", got)
	}
}

// What a run wrote and someone changed since cannot be undone exactly:
// the undo refuses, names it, and changes nothing.
func TestUndoRefusesWhatChangedSince(t *testing.T) {
	t.Parallel()
	t.Run("edited by a person", func(t *testing.T) {
		db, _ := openTest(t)
		c := newMem('A', "run make lint before pushing")
		run := applyRun(t, db, memory.Op{Kind: memory.OpCreate, Memory: c})
		body := "run make lint and make test before pushing"
		if _, err := db.Edit(ctx, c.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
		before := rawDump(t, db)
		_, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser)
		if !errors.Is(err, memory.ErrStale) || !strings.Contains(err.Error(), c.ID) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("undo after an edit: %v", err)
		}
		oneLine(t, err)
		sameDump(t, "after a refused undo", before, rawDump(t, db))
	})
	t.Run("superseded by a person", func(t *testing.T) {
		db, _ := openTest(t)
		m := remember(t, db, 'A', "t", "prefers tabs")
		run := applyRun(t, db, memory.Op{Kind: memory.OpReinforce, Target: m.ID})
		if _, err := db.Supersede(ctx, m.ID, &memory.Memory{Body: "prefers spaces"}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
		before := rawDump(t, db)
		if _, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser); !errors.Is(err, memory.ErrStale) || !strings.Contains(err.Error(), m.ID) {
			t.Fatalf("undo after a supersede: %v", err)
		}
		sameDump(t, "after a refused undo", before, rawDump(t, db))
	})
	t.Run("proposal decided by a later run", func(t *testing.T) {
		db, _ := openTest(t)
		m := remember(t, db, 'C', "t", "an old event")
		first := applyRun(t, db, memory.Op{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeArchive, Target: m.ID, Reason: "stale"}})
		pid := first.Changes[0].Proposal
		later := applyRun(t, db, memory.Op{Kind: memory.OpArchive, Target: m.ID}, memory.Op{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: pid, State: memory.ProposalAccepted, Result: m.ID}})
		before := rawDump(t, db)
		_, err := db.UndoRun(ctx, testPID, first.ID, memory.ActorUser)
		if !errors.Is(err, memory.ErrStale) || !strings.Contains(err.Error(), pid) || !strings.Contains(err.Error(), "accepted") {
			t.Fatalf("undo of a run whose proposal a later run decided: %v", err)
		}
		oneLine(t, err)
		sameDump(t, "after a refused undo", before, rawDump(t, db))
		// Undo the later run first, then the first one undoes.
		if _, err := db.UndoRun(ctx, testPID, later.ID, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
		if p, err := db.Proposal(ctx, pid); err != nil || p.State != memory.ProposalOpen || !p.DecidedAt.IsZero() || p.Result != "" {
			t.Fatalf("the proposal after undoing its decision: %+v %v", p, err)
		}
		if got := getMemT(t, db, m.ID); got.Status != memory.StatusActive {
			t.Fatalf("archive not undone: %+v", got)
		}
		if _, err := db.UndoRun(ctx, testPID, first.ID, memory.ActorUser); err != nil {
			t.Fatalf("undo of the first run once the later one is undone: %v", err)
		}
		if ps, _ := db.Proposals(ctx, testPID, ""); len(ps) != 0 {
			t.Fatalf("proposals after both undos: %+v", ps)
		}
		if _, err := db.Proposal(ctx, pid); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("the undone proposal: %v", err)
		}
	})
	t.Run("reinforced by a later run", func(t *testing.T) {
		db, _ := openTest(t)
		m := remember(t, db, 'A', "t", "prefers tabs")
		first := applyRun(t, db, memory.Op{Kind: memory.OpReinforce, Target: m.ID})
		later := applyRun(t, db, memory.Op{Kind: memory.OpReinforce, Target: m.ID})
		if _, err := db.UndoRun(ctx, testPID, first.ID, memory.ActorUser); !errors.Is(err, memory.ErrStale) {
			t.Fatalf("undo under a later run: %v", err)
		}
		if _, err := db.UndoRun(ctx, testPID, later.ID, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UndoRun(ctx, testPID, first.ID, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
		if got := getMemT(t, db, m.ID); got.Salience.Reinforcements != 0 {
			t.Fatalf("reinforcements after both undos: %d", got.Salience.Reinforcements)
		}
	})
}

// containsAnywhere lists the keys whose key or value holds s.
func containsAnywhere(raw map[string]string, s string) []string {
	var out []string
	for k, v := range raw {
		if strings.Contains(k, s) || strings.Contains(v, s) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// A memory the run wrote and a person forgot since stays forgotten: the
// undo goes on around it and leaves nothing of it behind.
func TestUndoAfterForget(t *testing.T) {
	t.Parallel()
	type setup struct {
		ops    func(db *DB) ([]memory.Op, string) // the run, and the memory to forget after it
		remain func(t *testing.T, db *DB)         // what the undo leaves besides
	}
	var old, with *memory.Memory
	var created, succ *memory.Memory
	cases := map[string]setup{
		"created": {func(db *DB) ([]memory.Op, string) {
			created = &memory.Memory{ID: memory.NewID(), Layer: 'A', Title: "osprey-7120 always lint", Body: "always run make lint before pushing"}
			return []memory.Op{{Kind: memory.OpCreate, Memory: created},
				{Kind: memory.OpLink, Edge: &memory.Edge{From: old.ID, Kind: memory.EdgeRelatesTo, To: created.ID}},
				{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeMerge, Target: created.ID, Other: old.ID, Reason: "alike"}}}, created.ID
		}, func(t *testing.T, db *DB) {
			if got := getMemT(t, db, old.ID); got.Status != memory.StatusActive {
				t.Fatalf("old: %+v", got)
			}
		}},
		"created as a successor": {func(db *DB) ([]memory.Op, string) {
			succ = &memory.Memory{ID: memory.NewID(), Layer: 'B', Title: "osprey-7120 release v2", Body: "release v2 is out"}
			return []memory.Op{{Kind: memory.OpSupersede, Target: old.ID, Memory: succ}}, succ.ID
		}, func(t *testing.T, db *DB) {
			// Forgetting the successor made the old one current again,
			// which is how it was before the run.
			if got := getMemT(t, db, old.ID); got.Status != memory.StatusActive || got.SupersededBy != "" || !got.ValidUntil.IsZero() {
				t.Fatalf("old: %+v", got)
			}
		}},
		"superseded by a new memory": {func(db *DB) ([]memory.Op, string) {
			succ = &memory.Memory{ID: memory.NewID(), Layer: 'B', Body: "release v2 is out"}
			return []memory.Op{{Kind: memory.OpSupersede, Target: old.ID, Memory: succ}}, old.ID
		}, func(t *testing.T, db *DB) {
			if _, err := db.Get(ctx, succ.ID); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("the successor the run created: %v", err)
			}
		}},
		"superseded by an existing memory": {func(db *DB) ([]memory.Op, string) {
			return []memory.Op{{Kind: memory.OpReinforce, Target: old.ID}, {Kind: memory.OpSupersede, Target: old.ID, With: with.ID}}, old.ID
		}, func(t *testing.T, db *DB) {
			if got := getMemT(t, db, with.ID); got.Status != memory.StatusActive || len(got.Supersedes) != 0 || got.Salience.Reinforcements != 0 {
				t.Fatalf("the successor after the undo: %+v", got)
			}
		}},
		"reinforced": {func(db *DB) ([]memory.Op, string) {
			return []memory.Op{{Kind: memory.OpReinforce, Target: old.ID}, {Kind: memory.OpReinforce, Target: with.ID}}, old.ID
		}, func(t *testing.T, db *DB) {
			if got := getMemT(t, db, with.ID); got.Salience.Reinforcements != 0 {
				t.Fatalf("the other reinforced memory: %+v", got)
			}
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			db, _ := openTest(t)
			var err error
			old, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Title: "osprey-7120 release v1", Body: "release v1 is out, osprey-7120"}, memory.ActorUser)
			if err != nil {
				t.Fatal(err)
			}
			with = remember(t, db, 'B', "w", "release v1.1 is out")
			ops, forget := c.ops(db)
			run := applyRun(t, db, ops...)
			gone := getMemT(t, db, forget)
			if err := db.Forget(ctx, forget, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			if _, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser); err != nil {
				t.Fatalf("undo after a forget: %v", err)
			}
			if _, err := db.Get(ctx, forget); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("the forgotten memory is back: %v", err)
			}
			c.remain(t, db)
			raw := rawDump(t, db)
			for k := range raw {
				if strings.HasPrefix(k, "rj/") || strings.HasPrefix(k, "run/j/") {
					t.Errorf("left after the undo: %s", k)
				}
				if strings.HasPrefix(k, "propm/"+forget) {
					t.Errorf("a proposal still names it: %s", k)
				}
			}
			if ps, _ := db.Proposals(ctx, testPID, ""); len(ps) != 0 {
				t.Errorf("proposals left: %+v", ps)
			}
			if where := containsAnywhere(raw, gone.Title); len(where) > 0 {
				t.Errorf("the forgotten title %q is still in %v", gone.Title, where)
			}
			if runs, _ := db.Runs(ctx, testPID, 1); runs[0].UndoneAt.IsZero() {
				t.Fatalf("the run is not marked undone")
			}
		})
	}
}

// The bytes of a memory forgotten after a run are gone from disk, though
// the run saved its state for an undo.
func TestForgetAfterRunLeavesNoBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openSmall(t, dir, nil)
	const marker = "heron-title-5527"
	m := remember(t, db, 'A', marker, "a fact the run will change")
	other := remember(t, db, 'A', "other", "a fact the run supersedes")
	run := applyRun(t, db, memory.Op{Kind: memory.OpReinforce, Target: m.ID}, memory.Op{Kind: memory.OpSupersede, Target: other.ID, With: m.ID})
	if len(filesContaining(t, dir, marker)) == 0 {
		t.Fatal("the marker is on no file before the forget")
	}
	if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if where := containsAnywhere(rawDump(t, db), marker); len(where) > 0 {
		t.Fatalf("%q still in %v", marker, where)
	}
	if f := filesContaining(t, dir, marker); len(f) > 0 {
		t.Fatalf("%q still on disk in %v", marker, f)
	}
	if _, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got := getMemT(t, db, other.ID); got.Status != memory.StatusActive || got.SupersededBy != "" {
		t.Fatalf("what the forgotten memory superseded in the run: %+v", got)
	}
	filler(t, db, 3)
	db.Close()
	if f := filesContaining(t, dir, marker); len(f) > 0 {
		t.Fatalf("%q on disk after the undo and compactions: %v", marker, f)
	}
}

// Forgetting the evidence or the reason of a decision reopens it: it
// waits in verify-first with a reason that names the id, until a person
// confirms it.
func TestForgettingEvidenceReopensTheDecision(t *testing.T) {
	t.Parallel()
	for _, kind := range []memory.EdgeKind{memory.EdgeEvidence, memory.EdgeBecause} {
		t.Run(string(kind), func(t *testing.T) {
			db, _ := openTest(t)
			d := remember(t, db, memory.LayerDecision, "parked MTP", "parked MTP: net-negative on MoE")
			e := remember(t, db, memory.LayerEpisode, "bench 41", "bench #41: MTP costs 7% on MoE")
			unrelated := remember(t, db, memory.LayerDecision, "other", "another decision")
			if err := db.Link(ctx, memory.Edge{From: d.ID, Kind: kind, To: e.ID}, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			if err := db.Link(ctx, memory.Edge{From: unrelated.ID, Kind: memory.EdgeRelatesTo, To: e.ID}, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			if tr := memory.TrustAt(getMemT(t, db, d.ID), time.Now()); tr < 0.5 {
				t.Fatalf("trust before: %v", tr)
			}
			if err := db.Forget(ctx, e.ID, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			got := getMemT(t, db, d.ID)
			if got.ReopenedAt.IsZero() || !strings.Contains(got.Reopened, e.ID) || !strings.Contains(got.Reopened, "forgotten") || strings.Contains(got.Reopened, e.Title) {
				t.Fatalf("decision after its %s was forgotten: %+v", kind, got)
			}
			if tr := memory.TrustAt(got, time.Now()); tr >= 0.5 {
				t.Fatalf("trust of a reopened decision: %v", tr)
			}
			if u := getMemT(t, db, unrelated.ID); !u.ReopenedAt.IsZero() {
				t.Fatalf("a relates_to link reopened %+v", u)
			}
			evs, _ := db.Timeline(ctx, testPID, 10)
			if !slices.ContainsFunc(evs, func(ev memory.Event) bool { return ev.Kind == memory.EventReopen && ev.MemoryID == d.ID }) {
				t.Fatalf("no reopen event: %+v", evs)
			}
			c, err := db.Review(ctx, d.ID, memory.VerdictConfirm, nil, "still holds", memory.ActorUser)
			if err != nil {
				t.Fatal(err)
			}
			if !c.ReopenedAt.IsZero() || c.Reopened != "" || memory.TrustAt(getMemT(t, db, d.ID), time.Now()) < 0.5 {
				t.Fatalf("after a confirm: %+v", c)
			}
		})
	}
}

// The child half of TestKilledRunLeavesNoTrace: it opens the store
// (finishing what an earlier child left), then applies the big run or
// undoes the run CAIRN_RUN_UNDO names, printing a line at each step and
// waiting for one on stdin before it goes on.
func TestRunCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_RUN_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledRunLeavesNoTrace")
	}
	in := bufio.NewReader(os.Stdin)
	runStepHook = func(stage string, n int) {
		fmt.Printf("STEP %s %d\n", stage, n)
		if _, err := in.ReadString('\n'); err != nil {
			os.Exit(4)
		}
	}
	batchOps = crashBatch
	db := openChild(dir)
	fmt.Println("OPEN")
	var run memory.Run
	var err error
	if id := os.Getenv("CAIRN_RUN_UNDO"); id != "" {
		run, err = db.UndoRun(ctx, testPID, id, memory.ActorUser)
	} else if os.Getenv("CAIRN_RUN_OPEN_ONLY") == "" {
		run, err = db.Apply(ctx, memory.Run{Project: testPID, Summary: "the big run"}, bigRun(t, db))
	}
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	fmt.Println("DONE", run.ID)
	db.Close()
}

// The store the big run works on: memories to change, drafts to take.
const crashBase = 300

// The big run's batches in the child have crashBatch steps (batchOps is
// 2,000): its 1,500 steps make three batches, as 5,000 steps made with
// the batches a store writes, and each killed run takes back a quarter of
// the steps (under the race detector, taking back 4,000 steps was most of
// the test's time). The first batch only creates, the second creates and
// takes the drafts, the third changes the seeded memories, links and
// proposes; the undo goes back over 24 journal chunks.
const crashBatch = 500

// runCreates is how many memories the big run creates: they fill the
// first batch and, with the drafts it takes, the second.
const runCreates = 2*crashBatch - crashBase

// bigRunSteps is how many steps bigRun plans.
const bigRunSteps = 3 * crashBatch

// runBase is that store, built once (300 near-duplicate memories and
// drafts cost half a minute under the race detector) and copied for each
// test that starts from it.
var runBase fixture

func seedRunBase(t *testing.T, dir string) {
	t.Helper()
	runBase.copyTo(t, "run-base", dir, func(dir string) {
		db := reopen(t, dir)
		for i := range crashBase {
			if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Ref: fmt.Sprintf("base-%d", i),
				Body: fmt.Sprintf("base fact %d: module %d owns the cache", i, i)}, memory.ActorUser); err != nil {
				t.Fatal(err)
			}
			capture(t, db, fmt.Sprintf("user said: module %d should own the cache, note %d", i, i))
		}
		db.Close()
	})
}

// bigRun plans bigRunSteps steps of every kind over the seeded store:
// three batches in the child (see crashBatch).
func bigRun(t testing.TB, db *DB) []memory.Op {
	base := make([]*memory.Memory, crashBase)
	for i := range base {
		m, err := db.GetByRef(ctx, testPID, fmt.Sprintf("base-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		base[i] = m
	}
	drafts, err := db.Drafts(ctx, testPID, 10*crashBase)
	if err != nil {
		t.Fatal(err)
	}
	var ops []memory.Op
	var created []string
	for i := range runCreates {
		m := newMem(memory.Layers[i%6], fmt.Sprintf("consolidated fact %d: module %d talks to module %d", i, i%97, i%89))
		created = append(created, m.ID)
		ops = append(ops, memory.Op{Kind: memory.OpCreate, Memory: m})
	}
	for _, d := range drafts {
		ops = append(ops, memory.Op{Kind: memory.OpDraftDone, Draft: d.ID})
	}
	for i, b := range base {
		switch {
		case i < 100:
			ops = append(ops, memory.Op{Kind: memory.OpReinforce, Target: b.ID, Reason: "said again"})
		case i < 150:
			ops = append(ops, memory.Op{Kind: memory.OpArchive, Target: b.ID, Reason: "weak and stale"})
		case i < 200:
			ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: b.ID, Memory: newMem(memory.LayerState, fmt.Sprintf("base fact %d: module %d no longer owns the cache", i, i))})
		case i < 250:
			ops = append(ops, memory.Op{Kind: memory.OpReopen, Target: b.ID, Reason: "its evidence changed"})
		default:
			ops = append(ops, memory.Op{Kind: memory.OpSupersede, Target: b.ID, With: base[i-250].ID})
		}
	}
	for i := range crashBatch / 5 {
		ops = append(ops, memory.Op{Kind: memory.OpLink, Edge: &memory.Edge{From: created[i], Kind: memory.EdgeRelatesTo, To: base[i%100].ID}})
	}
	for i := range crashBatch / 5 {
		ops = append(ops, memory.Op{Kind: memory.OpPropose, Proposal: &memory.Proposal{Kind: memory.ProposeRemember, Draft: drafts[i].ID, Reason: "not sure",
			Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: fmt.Sprintf("module %d should own the cache", i)}}})
	}
	if len(ops) != bigRunSteps {
		t.Fatalf("the big run has %d steps, want %d", len(ops), bigRunSteps)
	}
	return ops
}

// runRunChild runs TestRunCrashChild on dir with env, answering each step
// until it prints kill, where it is SIGKILLed; it returns the id of the
// run when the child got to the end.
func runRunChild(t *testing.T, dir, kill string, env ...string) (killed bool, done string) {
	t.Helper()
	cmd := childCmd(t, "TestRunCrashChild")
	cmd.Env = append(append(os.Environ(), "CAIRN_RUN_DIR="+dir), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	timer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var steps []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == kill && !killed:
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		case strings.HasPrefix(line, "ERR"):
			t.Errorf("child: %s", line)
		case strings.HasPrefix(line, "DONE "):
			done = strings.TrimPrefix(line, "DONE ")
		case strings.HasPrefix(line, "STEP") && !killed:
			steps = append(steps, line)
			io.WriteString(stdin, "go\n")
		}
	}
	cmd.Wait()
	if !killed && kill != "" {
		t.Fatalf("the child never printed %q; it printed %v", kill, steps)
	}
	return killed, done
}

// peekKeys lists the keys under prefix of the store in dir, opened
// read-only so that nothing interrupted is finished by the look.
func peekKeys(t *testing.T, dir, prefix string) [][]byte {
	t.Helper()
	db, err := Open(dir, Options{readOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out [][]byte
	db.view(func(txn *badger.Txn) error { out = keys(txn, []byte(prefix)); return nil })
	return out
}

// A process killed in the middle of a run leaves nothing of it: the next
// Open takes back what was written. Killed in the middle of an undo, the
// next Open finishes the undo.
func TestKilledRunLeavesNoTrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills child processes during a 1,500-step run")
	}
	for i, kill := range []string{"STEP batch 1", "STEP batch 2"} {
		t.Run("killed after "+strings.TrimPrefix(kill, "STEP "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seedRunBase(t, dir)
			db := reopen(t, dir)
			before := rawDump(t, db)
			db.Close()
			runRunChild(t, dir, kill)
			// The kill came between batches of the run: the journal holds
			// the batches written so far, of the run's three.
			batches := map[string]bool{}
			for _, k := range peekKeys(t, dir, "run/j/") {
				batches[strings.Split(string(k), "/")[3]] = true
			}
			if len(batches) != i+1 {
				t.Fatalf("the killed run left the journals of %d batches, want %d", len(batches), i+1)
			}
			db = reopen(t, dir)
			after := rawDump(t, db)
			sameDump(t, "after a run killed half way and a reopen", before, after)
			if runs, _ := db.Runs(ctx, testPID, 0); len(runs) != 0 {
				t.Fatalf("runs: %+v", runs)
			}
			db.Close()
		})
	}
	t.Run("killed after the commit", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		seedRunBase(t, dir)
		runRunChild(t, dir, "STEP done 0")
		db := reopen(t, dir)
		defer db.Close()
		runs, _ := db.Runs(ctx, testPID, 0)
		if len(runs) != 1 || len(runs[0].Changes) != bigRunSteps || !runs[0].UndoneAt.IsZero() {
			t.Fatalf("a committed run after the kill: %d runs", len(runs))
		}
		c, _ := db.Count(ctx, testPID)
		if n := c.Total(memory.StatusActive); n != crashBase-100+runCreates {
			t.Fatalf("%d active memories after the run, want %d", n, crashBase-100+runCreates)
		}
	})
	t.Run("killed during the undo", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		seedRunBase(t, dir)
		db := reopen(t, dir)
		before := stateDump(t, db)
		db.Close()
		_, id := runRunChild(t, dir, "")
		if id == "" {
			t.Fatal("the run did not finish")
		}
		chunks := len(peekKeys(t, dir, "run/j/"+id+"/"))
		runRunChild(t, dir, "STEP rollback 1", "CAIRN_RUN_UNDO="+id)
		// The undo was cut after its first chunk: the next Open finishes it.
		if left := len(peekKeys(t, dir, "run/j/"+id+"/")); left != chunks-1 || len(peekKeys(t, dir, "run/u/"+id)) != 1 {
			t.Fatalf("after the kill %d of %d journal chunks are left; want all but one, and the undo marked under way", left, chunks)
		}
		db = reopen(t, dir)
		defer db.Close()
		sameDump(t, "after an undo killed half way and a reopen", before, stateDump(t, db))
		runs, _ := db.Runs(ctx, testPID, 0)
		if len(runs) != 1 || runs[0].ID != id || runs[0].UndoneAt.IsZero() {
			t.Fatalf("the run after the finished undo: %+v", runs)
		}
		evs, _ := db.Timeline(ctx, testPID, 1)
		if evs[0].Kind != memory.EventUndo || evs[0].Actor != memory.ActorUser {
			t.Fatalf("newest event: %+v", evs[0])
		}
		for k := range rawDump(t, db) {
			if hasAnyPrefix(k, "run/j/", "run/u/", "rj/") {
				t.Fatalf("left after the undo: %s", k)
			}
		}
		if _, err := db.UndoRun(ctx, testPID, id, memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
			t.Fatalf("undo again: %v", err)
		}
	})
}

// Each journal chunk is taken back in one transaction; a bounded number
// of steps keeps that linear (see runJournalSteps).
func TestRunJournalChunksAreBounded(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	var ops []memory.Op
	for i := range 600 {
		ops = append(ops, memory.Op{Kind: memory.OpCreate, Memory: newMem(memory.Layers[i%6], fmt.Sprintf("fact %d of a mid-sized run", i))})
	}
	run := applyRun(t, db, ops...)
	steps := 0
	for k, v := range rawDump(t, db) {
		if !strings.HasPrefix(k, "run/j/"+run.ID+"/") {
			continue
		}
		var j []runStep
		if err := decode([]byte(k), []byte(v), &j); err != nil {
			t.Fatal(err)
		}
		if len(j) == 0 || len(j) > runJournalSteps {
			t.Fatalf("chunk %s holds %d steps, want 1 to %d", k, len(j), runJournalSteps)
		}
		steps += len(j)
	}
	if steps != 2*len(ops) { // the memory and its event
		t.Fatalf("the journal holds %d steps, want %d", steps, 2*len(ops))
	}
}

// BenchmarkApplyUndo2000 applies a run that creates 2,000 memories and
// undoes it.
func BenchmarkApplyUndo2000(b *testing.B) {
	db, _ := openTest(b)
	var undo time.Duration
	for b.Loop() {
		var ops []memory.Op
		for i := range 2000 {
			ops = append(ops, memory.Op{Kind: memory.OpCreate, Memory: newMem(memory.Layers[i%6], fmt.Sprintf("fact %d of a long run", i))})
		}
		run := applyRun(b, db, ops...)
		start := time.Now()
		if _, err := db.UndoRun(ctx, testPID, run.ID, memory.ActorUser); err != nil {
			b.Fatal(err)
		}
		undo += time.Since(start)
	}
	b.ReportMetric(float64(undo.Milliseconds())/float64(b.N), "undo-ms/op")
}
