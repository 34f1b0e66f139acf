package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

func TestForgetRemovesEverythingAndTheBytes(t *testing.T) {
	db, dir := openTest(t)
	const marker = "zebra-quokka-7781 stays private"
	keep := remember(t, db, memory.LayerDecision, "keep me", "a decision that stays")
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerEpisode, Title: "tmp " + marker,
		Body: "the body says " + marker, Tags: []string{"quokkatag"}, Ref: "quokka-ref"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	body := "an edited body, still " + marker
	if _, err := db.Edit(ctx, m.ID, Patch{Body: &body}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Archive(ctx, m.ID, "reason mentions "+marker, memory.ActorUser); err != nil {
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

	if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after forget: %v", err)
	}
	if _, err := db.History(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("history after forget: %v", err)
	}
	if _, err := db.GetByRef(ctx, testPID, "quokka-ref"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ref after forget: %v", err)
	}
	if p, _ := db.List(ctx, Query{Project: testPID, Status: StatusAny}); len(p.Memories) != 1 {
		t.Fatalf("list after forget: %v", ids(p.Memories))
	}
	if p, _ := db.List(ctx, Query{Project: testPID, Tag: "quokkatag", Status: StatusAny}); len(p.Memories) != 0 {
		t.Fatalf("tag index after forget")
	}
	out, in, _ := db.Edges(ctx, keep.ID)
	if len(out) != 0 || len(in) != 0 {
		t.Fatalf("edges of the other memory still name it: %v %v", out, in)
	}
	c, _ := db.Count(ctx, testPID)
	if c.Total(memory.StatusActive) != 1 {
		t.Fatalf("counts after forget: %+v", c)
	}
	evs, _ := db.Timeline(ctx, testPID, 50)
	if evs[0].Kind != memory.EventForget || evs[0].MemoryID != m.ID {
		t.Fatalf("newest event should be the forget: %+v", evs[0])
	}
	for _, e := range evs {
		if strings.Contains(e.Summary+e.Title, marker) {
			t.Fatalf("an event still holds the content: %+v", e)
		}
	}
	// The ref can be used again.
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: 'B', Body: "new", Ref: "quokka-ref"}, memory.ActorUser); err != nil {
		t.Fatalf("ref not freed: %v", err)
	}
	db.Close()
	if f := filesContaining(t, dir, marker); len(f) > 0 {
		t.Fatalf("the forgotten text is still on disk in %v", f)
	}
	if f := filesContaining(t, dir, "quokkatag"); len(f) > 0 {
		t.Fatalf("the forgotten tag is still on disk in %v", f)
	}
}

func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, filepath.Base(p))
		}
		return nil
	})
	return hits
}

func TestForgetUnlinksSupersession(t *testing.T) {
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
	if err != nil || o.SupersededBy != "" || o.Status != memory.StatusSuperseded {
		t.Fatalf("old after its successor was forgotten: %+v %v", o, err)
	}
	if _, in, _ := db.Edges(ctx, old.ID); len(in) != 0 {
		t.Fatalf("supersedes edge left behind: %v", in)
	}
}

func TestInterruptedForgetFinishesAtOpen(t *testing.T) {
	db, dir := openTest(t)
	const marker = "ocelot-5521"
	m := remember(t, db, memory.LayerState, "t", "text "+marker)
	// Do step 1 of Forget only, as if the process died right after it.
	var intent purge
	err := db.update(ctx, func(txn *badger.Txn) error {
		var err error
		cur, _ := getMem(txn, m.ID)
		if intent, err = db.planPurge(txn, cur); err != nil {
			return err
		}
		if err := txn.Set(keyMem(m.ID), []byte{formatForgotten}); err != nil {
			return err
		}
		return put(txn, keyPurge(m.ID), intent)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, dir)
	if _, err := db.Get(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	db.Close()
	if f := filesContaining(t, dir, marker); len(f) > 0 {
		t.Fatalf("text still on disk after the forget was finished at open: %v", f)
	}
}
