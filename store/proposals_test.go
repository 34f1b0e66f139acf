package store

import (
	"errors"
	"strings"
	"testing"

	"cairn/memory"
)

func proposeOp(p memory.Proposal) memory.Op { return memory.Op{Kind: memory.OpPropose, Proposal: &p} }

func decideOp(id string, state memory.ProposalState) memory.Op {
	return memory.Op{Kind: memory.OpDecide, Proposal: &memory.Proposal{ID: id, State: state}}
}

// The same proposal is never made twice while it is open or after a
// person rejected it; once accepted, the question may come up again.
func TestProposeOnlyOnce(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	target := remember(t, db, memory.LayerInvariant, "stdlib", "prefers the standard library over dependencies")
	merge := func() memory.Proposal {
		return memory.Proposal{Kind: memory.ProposeMerge, Target: target.ID, Reason: "alike",
			Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: "Prefers the standard library over dependencies!"}}
	}
	first := applyRun(t, db, proposeOp(merge()))
	id := first.Changes[0].Proposal
	p, err := db.Proposal(ctx, id)
	if err != nil || p.State != memory.ProposalOpen || p.Run != first.ID || p.Project != testPID || p.Time.IsZero() {
		t.Fatalf("proposal: %+v %v", p, err)
	}
	// The same again, in other punctuation and case: the same Key.
	again := merge()
	again.Memory.Body = "prefers the standard library, over dependencies"
	second := applyRun(t, db, proposeOp(again), proposeOp(merge()))
	if second.Changes[0].Proposal != id || second.Changes[1].Proposal != id {
		t.Fatalf("the same proposal while open: %+v", second.Changes)
	}
	if ps, _ := db.Proposals(ctx, testPID, ""); len(ps) != 1 {
		t.Fatalf("%d proposals, want 1", len(ps))
	}
	// Undoing the run that found it already made leaves it alone.
	if _, err := db.UndoRun(ctx, testPID, second.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Proposal(ctx, id); err != nil {
		t.Fatalf("the proposal after undoing a run that only found it: %v", err)
	}

	applyRun(t, db, decideOp(id, memory.ProposalRejected))
	third := applyRun(t, db, proposeOp(merge()))
	if third.Changes[0].Proposal != id {
		t.Fatalf("a rejected proposal was made again: %+v", third.Changes[0])
	}
	if open, _ := db.Proposals(ctx, testPID, memory.ProposalOpen); len(open) != 0 {
		t.Fatalf("open after a reject: %+v", open)
	}
	if rej, _ := db.Proposals(ctx, testPID, memory.ProposalRejected); len(rej) != 1 || rej[0].ID != id || rej[0].DecidedBy != memory.ActorSystem {
		t.Fatalf("rejected: %+v", rej)
	}

	// Accepted: it may be asked again.
	archive := memory.Proposal{Kind: memory.ProposeArchive, Target: target.ID, Reason: "weak"}
	r := applyRun(t, db, proposeOp(archive))
	aid := r.Changes[0].Proposal
	applyRun(t, db, decideOp(aid, memory.ProposalAccepted))
	r = applyRun(t, db, proposeOp(archive))
	if nid := r.Changes[0].Proposal; nid == aid || nid == "" {
		t.Fatalf("after an accept the same proposal should be made anew, got %q (accepted %s)", nid, aid)
	}
	open, _ := db.Proposals(ctx, testPID, memory.ProposalOpen)
	acc, _ := db.Proposals(ctx, testPID, memory.ProposalAccepted)
	all, _ := db.Proposals(ctx, testPID, "")
	if len(open) != 1 || len(acc) != 1 || len(all) != 3 {
		t.Fatalf("open %d, accepted %d, all %d; want 1, 1, 3", len(open), len(acc), len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID < all[i-1].ID {
			t.Fatalf("proposals not oldest first: %s before %s", all[i-1].ID, all[i].ID)
		}
	}
	// A different candidate is a different proposal.
	other := merge()
	other.Memory.Body = "prefers writing its own helpers"
	if r := applyRun(t, db, proposeOp(other)); r.Changes[0].Proposal == id {
		t.Fatal("a different candidate was taken for the same proposal")
	}
}

func TestProposalLookups(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerEpisode, "t", "an old event")
	r := applyRun(t, db, proposeOp(memory.Proposal{Kind: memory.ProposeArchive, Target: m.ID, Reason: "stale"}))
	id := r.Changes[0].Proposal
	if p, err := db.Proposal(ctx, strings.ToLower(id[:20])); err != nil || p.ID != id {
		t.Fatalf("by prefix: %+v %v", p, err)
	}
	if _, err := db.Proposal(ctx, "01"); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("too short: %v", err)
	}
	if _, err := db.Proposal(ctx, "7ZZZZZZZ"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	if ps, err := db.Proposals(ctx, "00000000000000bb", ""); err != nil || len(ps) != 0 {
		t.Fatalf("another project's proposals: %+v %v", ps, err)
	}
	evs, _ := db.Timeline(ctx, testPID, 5)
	found := false
	for _, e := range evs {
		if e.Kind == memory.EventPropose && e.MemoryID == m.ID && e.Actor == memory.ActorSystem && strings.Contains(e.Summary, "archive") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no propose event: %+v", evs)
	}
}

// Dropping a draft drops the proposals made from it, which quote it: no
// key names them and their text is gone from the store and the disk.
func TestDropDraftDropsItsProposals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openSmall(t, dir, nil)
	const text = "wagtail-8842 prefers tabs"
	target := remember(t, db, memory.LayerInvariant, "indent", "indents with spaces")
	d := capture(t, db, "user said: "+text)
	keep := capture(t, db, "user said: prefers short functions")
	r := applyRun(t, db,
		proposeOp(memory.Proposal{Kind: memory.ProposeSupersede, Target: target.ID, Draft: d.ID, Reason: "contradicts " + target.ID,
			Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: text}}),
		proposeOp(memory.Proposal{Kind: memory.ProposeRemember, Draft: keep.ID, Reason: "unsure",
			Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: "prefers short functions"}}),
		memory.Op{Kind: memory.OpDraftDone, Draft: d.ID})
	dropped, kept := r.Changes[0].Proposal, r.Changes[1].Proposal
	if len(filesContaining(t, dir, "wagtail-8842")) == 0 {
		t.Fatal("the text is on no file before the drop")
	}
	if err := db.DropDraft(ctx, d.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Proposal(ctx, dropped); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the proposal from the dropped draft: %v", err)
	}
	ps, _ := db.Proposals(ctx, testPID, "")
	if len(ps) != 1 || ps[0].ID != kept {
		t.Fatalf("proposals after the drop: %+v", ps)
	}
	raw := rawDump(t, db)
	for k := range raw {
		if strings.Contains(k, dropped) || strings.Contains(k, "propd/"+d.ID) {
			t.Errorf("a key still names it: %s", k)
		}
	}
	if where := containsAnywhere(raw, "wagtail-8842"); len(where) > 0 {
		t.Errorf("the draft's text is still in %v", where)
	}
	if f := filesContaining(t, dir, "wagtail-8842"); len(f) > 0 {
		t.Errorf("the draft's text is still on disk in %v", f)
	}
	filler(t, db, 3)
	if f := filesContaining(t, dir, "wagtail-8842"); len(f) > 0 {
		t.Errorf("the dropped draft's text came back on disk after compactions: %v", f)
	}
	// The same proposal from another draft is a new proposal: the dropped
	// one no longer stands in its way.
	d2 := capture(t, db, "user said: prefers tabs again")
	again := applyRun(t, db, proposeOp(memory.Proposal{Kind: memory.ProposeSupersede, Target: target.ID, Draft: d2.ID, Reason: "contradicts " + target.ID,
		Memory: &memory.Memory{Layer: memory.LayerInvariant, Body: text}}))
	if nid := again.Changes[0].Proposal; nid == dropped {
		t.Fatal("the dropped proposal was found again")
	}
	// The run that took the dropped draft still undoes.
	if _, err := db.UndoRun(ctx, testPID, r.ID, memory.ActorUser); err != nil {
		t.Fatalf("undo of the run that took the dropped draft: %v", err)
	}
	if ps, _ := db.Proposals(ctx, testPID, ""); len(ps) != 1 || ps[0].ID != again.Changes[0].Proposal {
		t.Fatalf("proposals after the undo: %+v", ps)
	}
}

// Forgetting a memory drops the proposals about it.
func TestForgetDropsProposalsNamingIt(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	a := remember(t, db, memory.LayerInvariant, "a", "tabs")
	b := remember(t, db, memory.LayerInvariant, "b", "spaces")
	r := applyRun(t, db,
		proposeOp(memory.Proposal{Kind: memory.ProposeSupersede, Target: a.ID, Other: b.ID, Reason: "contradicts"}),
		proposeOp(memory.Proposal{Kind: memory.ProposeArchive, Target: b.ID, Reason: "stale"}),
		proposeOp(memory.Proposal{Kind: memory.ProposeArchive, Target: a.ID, Reason: "stale"}))
	if err := db.Forget(ctx, b.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	ps, _ := db.Proposals(ctx, testPID, "")
	if len(ps) != 1 || ps[0].ID != r.Changes[2].Proposal {
		t.Fatalf("proposals after forgetting %s: %+v", b.ID, ps)
	}
	for k := range rawDump(t, db) {
		if strings.Contains(k, r.Changes[0].Proposal) || strings.Contains(k, r.Changes[1].Proposal) {
			t.Errorf("a key still names a dropped proposal: %s", k)
		}
	}
}
