package ui

import (
	"fmt"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// Issue 26: the inbox is a place to decide quickly. Each proposal's row
// says what it would change, distinct from its neighbours; the detail
// (beside the list, or below it at 80 columns) has both texts, the reason
// and the keys; proposals are decided one key each, or several at once.

const (
	rememberID  = "01KN0000P40000000000000000"
	archiveID   = "01KN0000P50000000000000000"
	supersede2  = "01KN0000P60000000000000000"
	decodeID    = "01KJAYVQG0MMEF9QEHN0HWJG93" // "Decode is +31 % faster after the cache change"
	oldWikiID   = "01KKXKSV806ZW1FZ39B83T1JKE" // "Do not assume the CI runner has a GPU"
	kindsRun    = "01KN0000R10000000000000000"
	rememberCID = "01KN0000M80000000000000000"
	decodeCID   = "01KN0000M90000000000000000"
)

// seedKinds adds to the seeded inbox a proposal of each other kind: a
// memory to remember, one to archive, and a second supersession.
func seedKinds(t testing.TB, db *store.DB) {
	t.Helper()
	seedInbox(t, db)
	cand := func(id string, l memory.Layer, k memory.Kind, body string) *memory.Memory {
		return &memory.Memory{ID: id, Project: demoProject.ID, Layer: l, Kind: k, Body: body, Provenance: memory.ProvExtracted,
			Confidence: memory.ProvExtracted.BaseConfidence(), Status: memory.StatusActive, ValidFrom: now,
			Source: memory.Source{Actor: memory.ActorAgent, Session: "s-7f3a"}}
	}
	prop := func(p *memory.Proposal) memory.Op {
		return memory.Op{Kind: memory.OpPropose, Proposal: p,
			Change: memory.Change{Kind: memory.ChangePropose, Proposal: p.ID, Target: p.Target, Reason: string(p.Kind) + ": " + p.Reason}}
	}
	ops := []memory.Op{
		prop(&memory.Proposal{ID: rememberID, Kind: memory.ProposeRemember, Draft: waitingDraft,
			Memory: cand(rememberCID, memory.LayerInvariant, memory.KindPreference, "Prefer table-driven tests for parsers"),
			Reason: "extracted from a draft (preference) but not sure enough to remember on its own"}),
		prop(&memory.Proposal{ID: archiveID, Kind: memory.ProposeArchive, Target: oldWikiID,
			Reason: "unused for 90 days and never recalled"}),
		prop(&memory.Proposal{ID: supersede2, Kind: memory.ProposeSupersede, Target: decodeID, Draft: waitingDraft,
			Memory: cand(decodeCID, memory.LayerState, memory.KindFact, "Decode is +40 % faster after the cache change"),
			Reason: "contradicts " + decodeID + " (value: +31 → +40) but ranks lower (extracted < measured)"}),
	}
	if _, err := db.Apply(bg, memory.Run{ID: kindsRun, Project: demoProject.ID, Actor: memory.ActorSystem, Summary: "seeded for the inbox kinds"}, ops); err != nil {
		t.Fatal(err)
	}
}

func kindsApp(t *testing.T, w, h int, theme string) (Model, *store.DB) {
	t.Helper()
	db := openStore(t, true)
	seedKinds(t, db)
	return app(t, db, w, h, theme), db
}

// TestInboxKindsScreens goldens an inbox with every kind of proposal at
// 80×24 (the detail below the list) and 120×40 (beside it): the list, a
// supersession selected, and two proposals marked.
func TestInboxKindsScreens(t *testing.T) {
	t.Parallel()
	views := []struct {
		name string
		keys []string
	}{
		{"inbox-kinds", []string{"i", "down"}},
		{"inbox-kinds-remember", []string{"i", "down", "down", "down"}},
		{"inbox-kinds-marked", []string{"i", "down", "*"}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, v := range views {
			name := fmt.Sprintf("%s_%dx%d_plain", v.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m, _ := kindsApp(t, size[0], size[1], "plain")
				press(t, m, v.keys...)
				golden(t, name, shown(m, name))
			})
		}
	}
}

// TestInboxRowsSayWhatChanges: no two proposal rows read alike, none
// speaks of a forgotten memory or of the draft it came from, and a
// supersession's row shows its old and new words.
func TestInboxRowsSayWhatChanges(t *testing.T) {
	t.Parallel()
	m, _ := kindsApp(t, 80, 24, "plain")
	press(t, m, "i")
	scr := screen(m)
	for _, want := range []string{
		"supersede Keep sessions in Postgres, not Redis → Redis … Postgres",
		"merge     Never commit .env files + Never commit .env files to any",
		"remember  Prefer table-driven tests for parsers · A preference",
		"archive   Do not assume the CI runner has a GPU",
		"supersede Decode is +31 % faster after the cache change → +40",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("the inbox at 80×24 lacks %q:\n%s", want, scr)
		}
	}
	for _, bad := range []string{"forgotten", "extracted from a draft"} {
		if strings.Contains(scr, bad) {
			t.Errorf("the inbox list says %q:\n%s", bad, scr)
		}
	}
}

// TestInboxDetailBelowListAt80: at 80×24 the selected proposal's detail
// shows under the list without a key: both texts, why, and the keys.
func TestInboxDetailBelowListAt80(t *testing.T) {
	t.Parallel()
	m, _ := kindsApp(t, 80, 24, "plain")
	press(t, m, "i", "down")
	scr := screen(m)
	for _, want := range []string{"> supersede Keep sessions in Postgres", "Proposed supersession", "a accept · w reject", "why: contradicts 'Keep sessions in Postgres"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the 80×24 inbox lacks %q:\n%s", want, scr)
		}
	}
	d := detailText(m)
	for _, want := range []string{"Now: D decisions · decision · user-stated", "Keep sessions in Postgres, not Redis", "Would become: D decisions · decision · extracted · not stored yet\nKeep sessions in Redis, not Postgres"} {
		if !strings.Contains(d, want) {
			t.Errorf("the detail lacks %q:\n%s", want, d)
		}
	}
}

// TestInboxMarkAndDecideMany: space marks proposals one by one, * all of
// a kind; a accepts every marked one, /undo takes them all back; w rejects
// the marked; marks never reach a draft.
func TestInboxMarkAndDecideMany(t *testing.T) {
	t.Parallel()
	m, db := kindsApp(t, 120, 40, "plain")
	press(t, m, "i")
	press(t, m, "type: ") // on the draft: nothing to mark
	if len(m.inbox.marked) != 0 {
		t.Fatalf("a draft was marked: %v", m.inbox.marked)
	}
	press(t, m, "down", "*") // both supersessions
	if got := m.inbox.markedIDs(); strings.Join(got, " ") != supersedeID+" "+supersede2 {
		t.Fatalf("* marked %v, want both supersessions", got)
	}
	if !strings.Contains(screen(m), "2 marked") {
		t.Errorf("the heading does not count the marked:\n%s", screen(m))
	}
	press(t, m, "a")
	for _, id := range []string{supersedeID, supersede2} {
		if p := proposalState(t, db, id); p.State != memory.ProposalAccepted {
			t.Errorf("proposal %s is %s after a on the marked", id, p.State)
		}
	}
	for _, id := range []string{mergeID, rememberID, archiveID} {
		if p := proposalState(t, db, id); p.State != memory.ProposalOpen {
			t.Errorf("unmarked proposal %s is %s", id, p.State)
		}
	}
	if len(m.inbox.marked) != 0 {
		t.Errorf("marks stay after the decision: %v", m.inbox.marked)
	}
	if old, err := db.Get(bg, decodeID); err != nil || old.Status != memory.StatusSuperseded {
		t.Fatalf("the superseded fact: %v %+v", err, old)
	}
	press(t, m, "/", "type:undo", "enter")
	for _, id := range []string{supersedeID, supersede2} {
		if p := proposalState(t, db, id); p.State != memory.ProposalOpen {
			t.Errorf("after /undo proposal %s is %s, want open again", id, p.State)
		}
	}
	if old, err := db.Get(bg, decodeID); err != nil || old.Status != memory.StatusActive {
		t.Fatalf("after /undo the fact is not current again: %v %+v", err, old)
	}

	// Space one by one, then w rejects the marked.
	press(t, m, "g", "down", "down", "type: ", "type: ") // merge, remember
	if got := m.inbox.markedIDs(); len(got) != 2 {
		t.Fatalf("space marked %v, want two", got)
	}
	press(t, m, "w")
	for _, id := range []string{mergeID, rememberID} {
		if p := proposalState(t, db, id); p.State != memory.ProposalRejected {
			t.Errorf("proposal %s is %s after w on the marked", id, p.State)
		}
	}
	if p := proposalState(t, db, archiveID); p.State != memory.ProposalOpen {
		t.Errorf("the unmarked archive proposal is %s", p.State)
	}
}
