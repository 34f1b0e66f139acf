package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// openSmall opens a store whose memtables are small, so that a few
// megabytes of writes go through SST files and compactions.
func openSmall(t *testing.T, dir string, log io.Writer) *DB {
	t.Helper()
	db, err := Open(dir, Options{smallLSM: true, NoSync: true, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// filler writes mib MiB of memories (32 KiB each) for flushes and
// compactions. Their words are their own (no two share one), so that each
// write finds no near duplicate to read and compare: 32 KiB texts that did
// made the filler most of this file's time.
func filler(t *testing.T, db *DB, mib int) {
	t.Helper()
	for i := range mib * 32 {
		words := fmt.Sprintf("filler%[1]d text%[1]d for compaction%[1]d ", i)
		body := strings.Repeat(words, 32<<10/len(words))
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerEpisode, Body: body}, memory.ActorAgent); err != nil {
			t.Fatal(err)
		}
	}
}

// syncBuffer is a log sink Badger's goroutines may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestForgetRemovesEverythingAndTheBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := &syncBuffer{}
	db := openSmall(t, dir, log)
	// Each string names one place a memory's text can hide.
	const (
		title    = "zebra-quokka-7781 title"
		body     = "body-wombat-4410"
		body2    = "body-edited-numbat-5120"
		oldTag   = "quokkatag-old"
		newTag   = "quokkatag-new"
		oldRef   = "quokka-ref-old"
		newRef   = "quokka-ref-new"
		reason   = "reason-ocelot-3301"
		binding  = "QUOKKA_BIND_6612"
		evidence = "keep-evidence"
		feedback = "kiwi-feedback-9921"
	)
	marks := []string{title, body, body2, oldTag, newTag, oldRef, newRef, reason, binding, feedback}
	keep := remember(t, db, memory.LayerDecision, "keep me", "a decision that stays", evidence)
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerEpisode, Title: title,
		Body: "the body says " + body, Tags: []string{oldTag}, Ref: oldRef,
		Watermarks: []memory.Watermark{{Kind: memory.WatermarkFlag, Target: binding, State: memory.WatermarkUnchecked}}}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	filler(t, db, 8) // the first version goes down the LSM tree, past L0
	if !belowL0(t, db, dir, body) {
		t.Fatalf("the first version is not in a table below level 0 after the filler: the test would not test what it says")
	}
	// The edit moves the tag, the ref and the binding: the old keys are deleted, their bytes stay.
	b2, tags, ref, ws := "an edited body, "+body2, []string{newTag}, newRef, []memory.Watermark{}
	if _, err := db.Edit(ctx, m.ID, memory.Patch{Body: &b2, Tags: &tags, Ref: &ref, Watermarks: &ws}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Archive(ctx, m.ID, "reason mentions "+reason, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Unarchive(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := db.Link(ctx, memory.Edge{From: keep.ID, Kind: memory.EdgeEvidence, To: m.ID}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := db.Link(ctx, memory.Edge{From: m.ID, Kind: memory.EdgeRelatesTo, To: keep.ID}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	// A recall's feedback names the query it helped with.
	if err := db.Feedback(ctx, m.ID, "the query about "+feedback, true, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	if err := db.Touch(ctx, []string{m.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.FlushSalience(ctx); err != nil {
		t.Fatal(err)
	}
	// No writes here: a compaction would discard the deleted keys' old
	// values before the forget has to.
	before, _ := db.Count(ctx, testPID)
	for _, s := range marks { // or the test below proves nothing
		if len(filesContaining(t, dir, s)) == 0 {
			t.Fatalf("%q is on no file before the forget", s)
		}
	}

	if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, m.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get after forget: %v", err)
	}
	if _, err := db.History(ctx, m.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("history after forget: %v", err)
	}
	for _, r := range []string{oldRef, newRef} {
		if _, err := db.GetByRef(ctx, testPID, r); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("ref %s after forget: %v", r, err)
		}
	}
	for _, tag := range []string{oldTag, newTag} {
		if p, _ := db.List(ctx, memory.Query{Project: testPID, Tag: tag, Status: memory.StatusAny}); len(p.Memories) != 0 {
			t.Fatalf("tag %s index after forget", tag)
		}
	}
	if bound, _ := db.Bound(ctx, testPID); len(bound) != 0 {
		t.Fatalf("bound index after forget: %v", ids(bound))
	}
	out, in, _ := db.Edges(ctx, keep.ID)
	if len(out) != 0 || len(in) != 0 {
		t.Fatalf("edges of the other memory still name it: %v %v", out, in)
	}
	c, _ := db.Count(ctx, testPID)
	if c.Total(memory.StatusActive) != before.Total(memory.StatusActive)-1 {
		t.Fatalf("counts after forget: %d active, %d before", c.Total(memory.StatusActive), before.Total(memory.StatusActive))
	}
	// The timeline keeps one event about it, the forget, with no content;
	// the link event of the other memory no longer names it.
	evs, _ := db.Timeline(ctx, testPID, 10000)
	about := 0
	for _, e := range evs {
		if e.MemoryID == m.ID {
			about++
			if e.Kind != memory.EventForget || e.Title != "" || e.Summary != "forgotten" {
				t.Fatalf("an event about the forgotten memory is left: %+v", e)
			}
		}
		for _, s := range append(marks, m.ID) {
			if strings.Contains(e.Summary+e.Title, s) {
				t.Fatalf("an event still quotes %q: %+v", s, e)
			}
		}
	}
	if about != 1 {
		t.Fatalf("%d events about the forgotten memory, want the one forget event", about)
	}
	if evs[0].Kind != memory.EventForget {
		t.Fatalf("newest event should be the forget: %+v", evs[0])
	}
	for _, s := range marks {
		if f := filesContaining(t, dir, s); len(f) > 0 {
			t.Errorf("%q is still on disk right after the forget, in %v", s, f)
		}
	}
	filler(t, db, 5) // flushes and compactions after the forget bring nothing back
	db.Close()
	for _, s := range marks {
		if f := filesContaining(t, dir, s); len(f) > 0 {
			t.Errorf("%q is still on disk after compactions, in %v", s, f)
		}
		if strings.Contains(log.String(), s) {
			t.Errorf("Badger's log names %q", s)
		}
	}
}

// belowL0 reports whether s is in one of the store's tables below level 0.
func belowL0(t *testing.T, db *DB, dir, s string) bool {
	t.Helper()
	level := map[string]int{}
	for _, ti := range db.bdb.Tables() {
		level[fmt.Sprintf("%06d.sst", ti.ID)] = ti.Level
	}
	for _, f := range filesContaining(t, dir, s) {
		if l, ok := level[f]; ok && l > 0 {
			return true
		}
	}
	return false
}

func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		found, err := fileContains(p, []byte(s))
		if found {
			hits = append(hits, filepath.Base(p))
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil // an open store removed it meanwhile
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// fileContains reads the data of a file, skipping the holes of a sparse
// one (Badger's log files are gigabytes of holes), and looks for s.
func fileContains(path string, s []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	const seekData, seekHole = 3, 4 // lseek whences for sparse files
	buf := make([]byte, 1<<20)
	for off := int64(0); off < info.Size(); {
		start, err := f.Seek(off, seekData)
		if errors.Is(err, syscall.ENXIO) {
			break // no data after off
		}
		end := info.Size()
		if err != nil { // no sparse-file support: read it all
			start = off
		} else if e, err := f.Seek(start, seekHole); err == nil {
			end = e
		}
		// Start a little early so that a match across the hole's edge is seen.
		from := max(start-int64(len(s)), 0)
		var tail []byte
		for pos := from; pos < end; {
			n, err := f.ReadAt(buf[:min(int64(len(buf)), end-pos)], pos)
			chunk := append(tail, buf[:n]...)
			if bytes.Contains(chunk, s) {
				return true, nil
			}
			tail = append([]byte(nil), chunk[max(len(chunk)-len(s), 0):]...)
			pos += int64(n)
			if err != nil || n == 0 {
				break
			}
		}
		off = end
	}
	return false, nil
}

func TestForgetSuccessorReinstatesPredecessor(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	old := remember(t, db, memory.LayerState, "v1", "release v1")
	n, err := db.Supersede(ctx, old.ID, &memory.Memory{Body: "release v2"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Forget(ctx, n.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	o, err := db.Get(ctx, old.ID)
	if err != nil || o.SupersededBy != "" || o.Status != memory.StatusActive || !o.ValidUntil.IsZero() {
		t.Fatalf("old after its successor was forgotten: %+v %v", o, err)
	}
	if p, _ := db.List(ctx, memory.Query{Project: testPID}); len(p.Memories) != 1 || p.Memories[0].ID != old.ID {
		t.Fatalf("the predecessor is not listed as current: %v", ids(p.Memories))
	}
	if c, _ := db.Count(ctx, testPID); c.Total(memory.StatusActive) != 1 || c.Total(memory.StatusSuperseded) != 0 {
		t.Fatalf("counts: %+v", c)
	}
	if _, in, _ := db.Edges(ctx, old.ID); len(in) != 0 {
		t.Fatalf("supersedes edge left behind: %v", in)
	}
	evs, _ := db.Timeline(ctx, testPID, 50)
	if evs[1].Kind != memory.EventReinstate || evs[1].MemoryID != old.ID {
		t.Fatalf("no event says the predecessor is current again: %+v", evs[:2])
	}
	for _, e := range evs {
		if strings.Contains(e.Summary, n.ID) {
			t.Fatalf("an event still names the forgotten successor: %+v", e)
		}
	}
	// It can be superseded again.
	if _, err := db.Supersede(ctx, old.ID, &memory.Memory{Body: "release v3"}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
}

func TestForgetMiddleOfChainHandsOnItsPredecessor(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a := remember(t, db, memory.LayerState, "v1", "release v1")
	b, err := db.Supersede(ctx, a.ID, &memory.Memory{Body: "release v2"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Supersede(ctx, b.ID, &memory.Memory{Body: "release v3"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Forget(ctx, b.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	ga, _ := db.Get(ctx, a.ID)
	gc, _ := db.Get(ctx, c.ID)
	if ga.Status != memory.StatusSuperseded || ga.SupersededBy != c.ID || len(gc.Supersedes) != 1 || gc.Supersedes[0] != a.ID {
		t.Fatalf("the chain did not close up: a=%+v c=%+v", ga, gc)
	}
	if out, _, _ := db.Edges(ctx, c.ID); len(out) != 1 || out[0].To != a.ID || out[0].Kind != memory.EdgeSupersedes {
		t.Fatalf("c's supersedes edges: %+v", out)
	}
}

func TestForgetLeavesAnotherMemorysRef(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "first", Ref: "shared-ref"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	other := "other-ref"
	if _, err := db.Edit(ctx, m.ID, memory.Patch{Ref: &other}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	n, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "second", Ref: "shared-ref"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetByRef(ctx, testPID, "shared-ref"); err != nil || got.ID != n.ID {
		t.Fatalf("the ref the forgotten memory once held, now another's: %v %v", got, err)
	}
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "third", Ref: other}, memory.ActorUser); err != nil {
		t.Fatalf("the forgotten memory's ref is not free: %v", err)
	}
}

func TestInterruptedForgetFinishesAtOpen(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	const marker, tag, ref = "ocelot-5521", "ocelottag", "ocelot-ref"
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "text " + marker, Tags: []string{tag}, Ref: ref}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	// Do step 1 of Forget only, as if the process died right after it.
	if err := db.update(ctx, func(txn *badger.Txn) error { _, err := db.markForgotten(txn, m.ID, memory.ActorUser); return err }); err != nil {
		t.Fatal(err)
	}
	var intent []byte
	err = db.view(func(txn *badger.Txn) error {
		item, err := txn.Get(keyPurge(m.ID))
		if err == nil {
			intent, err = item.ValueCopy(nil)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{marker, tag, ref} {
		if bytes.Contains(intent, []byte(s)) {
			t.Fatalf("the purge record names %q: %s", s, intent)
		}
	}
	if _, err := db.Get(ctx, m.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("readable before the purge: %v", err)
	}
	db.Close()
	db = reopen(t, dir)
	if _, err := db.Get(ctx, m.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if st, _ := db.Stats(ctx); st.Memories != 0 {
		t.Fatalf("stats after the forget finished: %+v", st)
	}
	db.Close()
	for _, s := range []string{marker, tag, ref} {
		if f := filesContaining(t, dir, s); len(f) > 0 {
			t.Fatalf("%q still on disk after the forget was finished at open: %v", s, f)
		}
	}
}

// TestOlderPurgeRecordFinishesAtOpen: an intent written by an older cairn
// (which listed the keys in the record itself) is carried out and goes.
func TestOlderPurgeRecordFinishesAtOpen(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	m := remember(t, db, memory.LayerState, "t", "older-intent-7719", "oldertag")
	err := db.update(ctx, func(txn *badger.Txn) error {
		if err := txn.Set(keyMem(m.ID), []byte{formatForgotten}); err != nil {
			return err
		}
		return put(txn, keyPurge(m.ID), map[string]any{"prefixes": append(indexKeys(m), keyMem(m.ID)), "events": []memory.Event{}})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, dir)
	if st, _ := db.Stats(ctx); st.Memories != 0 {
		t.Fatalf("stats: %+v", st)
	}
	db.Close()
	for _, s := range []string{"older-intent-7719", "oldertag"} {
		if f := filesContaining(t, dir, s); len(f) > 0 {
			t.Fatalf("%q still on disk: %v", s, f)
		}
	}
}

func TestDropDraftLeavesOnlyThatADraftWasDeleted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openSmall(t, dir, nil)
	const text, session, file = "draft-text-kestrel-9031", "session-kestrel-4417", "notes/kestrel-2290.md"
	keep, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: "a draft that stays"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: "we said " + text, Source: memory.Source{Session: session, File: file}})
	if err != nil {
		t.Fatal(err)
	}
	filler(t, db, 3)
	for _, s := range []string{text, session, file} {
		if len(filesContaining(t, dir, s)) == 0 {
			t.Fatalf("%q is on no file before the drop", s)
		}
	}
	before, _ := db.Timeline(ctx, testPID, 10000)
	if err := db.DropDraft(ctx, d.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if ds, _ := db.Drafts(ctx, testPID, 10); len(ds) != 1 || ds[0].ID != keep.ID {
		t.Fatalf("drafts after the drop: %+v", ds)
	}
	after, _ := db.Timeline(ctx, testPID, 10000)
	if len(after) != len(before) || after[0].Kind != memory.EventDropDraft || after[0].Summary != "a draft was deleted" {
		t.Fatalf("the timeline should trade the capture event for one drop event: %d → %d, newest %+v", len(before), len(after), after[0])
	}
	captures := 0
	for _, e := range after {
		if e.Kind == memory.EventCapture {
			captures++
		}
	}
	if captures != 1 {
		t.Fatalf("%d capture events, want the one of the draft that stays", captures)
	}
	if err := db.DropDraft(ctx, d.ID, memory.ActorUser); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("second drop: %v", err)
	}
	if err := db.DropDraft(ctx, "nonsense", memory.ActorUser); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("bad id: %v", err)
	}
	filler(t, db, 5)
	db.Close()
	for _, s := range []string{text, session, file} {
		if f := filesContaining(t, dir, s); len(f) > 0 {
			t.Errorf("%q is still on disk after the drop, in %v", s, f)
		}
	}
}

// BenchmarkForget100k forgets one memory of a store of 100,000 (a remember
// and a forget per iteration; the forget's two DropPrefix calls dominate).
func BenchmarkForget100k(b *testing.B) {
	db, _ := openTest(b)
	seed(b, db, 100_000)
	for b.Loop() {
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "to forget", Tags: []string{"x"}}, memory.ActorUser)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
			b.Fatal(err)
		}
	}
}
