package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/recall"
	"cairn/store"
)

// Issue 11 in the workbench: the Inbox (drafts and proposals), accept,
// reject, edit then accept, the proposal diff, dropping a draft,
// /consolidate with its report and /undo.

// The inbox the tests seed: fixed ids, so that screens are stable. The
// proposals came from an earlier draft a run consolidated; one draft waits.
const (
	waitingDraft = "01KN0000D10000000000000000"
	supersedeID  = "01KN0000P20000000000000000"
	mergeID      = "01KN0000P30000000000000000"
	doneDraft    = "01KN0000D00000000000000000"
	seedRun      = "01KN0000R00000000000000000"
	candidateID  = "01KN0000M60000000000000000"
	mergeCandID  = "01KN0000M70000000000000000"

	sessionsID = "01KHH0FF00K8ER2QQPT4XRZAGR" // "Keep sessions in Postgres, not Redis" (user-stated)
	envID      = "01KH6751Q0G297AK2TZ3QRG5A2" // "Never commit .env files"
)

// seedInbox gives the demo project one waiting draft and two open
// proposals (a supersession that ranks too low to apply on its own, and a
// near-duplicate to merge), made by a run over an earlier draft.
func seedInbox(t testing.TB, db *store.DB) {
	t.Helper()
	capture := func(id, text string) {
		t.Helper()
		if _, err := db.Capture(bg, memory.Draft{ID: id, Project: demoProject.ID, Actor: memory.ActorAgent,
			Source: memory.Source{Session: "s-7f3a", File: "notes/standup.md", Line: 12}, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	capture(doneDraft, "The sessions live in Redis now, not Postgres. Never commit .env files to any repository.")
	cand := func(id string, l memory.Layer, k memory.Kind, body string) *memory.Memory {
		return &memory.Memory{ID: id, Project: demoProject.ID, Layer: l, Kind: k, Body: body, Provenance: memory.ProvExtracted,
			Confidence: memory.ProvExtracted.BaseConfidence(), Status: memory.StatusActive, ValidFrom: now,
			Source: memory.Source{Actor: memory.ActorAgent, Session: "s-7f3a"}}
	}
	ops := []memory.Op{
		{Kind: memory.OpDraftDone, Draft: doneDraft, Change: memory.Change{Kind: memory.ChangeDraftDone, Draft: doneDraft}},
		{Kind: memory.OpPropose, Proposal: &memory.Proposal{ID: supersedeID, Kind: memory.ProposeSupersede, Target: sessionsID, Draft: doneDraft,
			Memory: cand(candidateID, memory.LayerDecision, memory.KindDecision, "Keep sessions in Redis, not Postgres"),
			Reason: "contradicts " + sessionsID + " (swapped: Postgres → Redis) but ranks lower (extracted < user-stated)"},
			Change: memory.Change{Kind: memory.ChangePropose, Proposal: supersedeID, Target: sessionsID, Reason: "supersede: contradicts " + sessionsID}},
		{Kind: memory.OpPropose, Proposal: &memory.Proposal{ID: mergeID, Kind: memory.ProposeMerge, Target: envID, Draft: doneDraft,
			Memory: cand(mergeCandID, memory.LayerInvariant, memory.KindConstraint, "Never commit .env files to any repository"),
			Reason: "says nearly the same as " + envID + " (similarity 0.80)"},
			Change: memory.Change{Kind: memory.ChangePropose, Proposal: mergeID, Target: envID, Reason: "merge: says nearly the same as " + envID}},
	}
	if _, err := db.Apply(bg, memory.Run{ID: seedRun, Project: demoProject.ID, Actor: memory.ActorSystem, Summary: "seeded for the inbox tests"}, ops); err != nil {
		t.Fatal(err)
	}
	capture(waitingDraft, "We agreed in standup: the staging cluster is called kestrel.\nDeploys freeze on Fridays.")
}

// inboxApp is a workbench over the demo store with the seeded inbox.
func inboxApp(t *testing.T, w, h int, theme string) (Model, *store.DB) {
	t.Helper()
	db := openStore(t, true)
	seedInbox(t, db)
	return app(t, db, w, h, theme), db
}

func proposalState(t *testing.T, db *store.DB, id string) memory.Proposal {
	t.Helper()
	p, err := db.Proposal(bg, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sidebarCount(t *testing.T, m Model, label string) string {
	t.Helper()
	g := regexp.MustCompile(`[│┃] [ >] ` + regexp.QuoteMeta(label) + `\s+(\d+) [│┃]`).FindStringSubmatch(screen(m))
	if g == nil {
		t.Fatalf("the sidebar has no %s row:\n%s", label, screen(m))
	}
	return g[1]
}

// TestInboxScreens goldens the Inbox at 80×24 and 120×40: the list with a
// draft and the proposals, a proposal's detail, a supersession in the diff
// view, the drop dialog, and the editor on a proposal.
func TestInboxScreens(t *testing.T) {
	t.Parallel()
	views := []struct {
		name string
		keys []string
	}{
		{"inbox", []string{"i"}},
		{"inbox-proposal", []string{"i", "down", "enter"}},
		{"inbox-diff", []string{"i", "down", "d"}},
		{"inbox-drop", []string{"i", "x"}},
		{"inbox-edit", []string{"i", "down", "e"}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, theme := range []string{"dark", "plain"} {
			for _, v := range views {
				name := fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme)
				t.Run(name, func(t *testing.T) {
					m, _ := inboxApp(t, size[0], size[1], theme)
					press(t, m, v.keys...)
					golden(t, name, shown(m, name))
				})
			}
		}
	}
}

// TestInboxListsDraftsAndProposalsOldestFirst: the sidebar counts the
// waiting draft and the open proposals (not the consolidated draft); the
// list shows the draft's source and text, and each proposal's kind and
// what it would change (old → new, the two titles of a merge); the detail
// has the reason with titles for ids.
func TestInboxListsDraftsAndProposalsOldestFirst(t *testing.T) {
	t.Parallel()
	m, _ := inboxApp(t, 120, 40, "plain")
	if n := sidebarCount(t, m, "Inbox"); n != "3" {
		t.Fatalf("the sidebar counts %s in the inbox, want 3 (1 draft, 2 proposals)", n)
	}
	press(t, m, "i")
	var ids []string
	for _, it := range m.inbox.items {
		ids = append(ids, it.id())
	}
	if want := []string{waitingDraft, supersedeID, mergeID}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("inbox order %v, want %v (oldest first; the consolidated draft left out)", ids, want)
	}
	scr := screen(m)
	for _, want := range []string{
		"Inbox 1 draft · 2 proposals",
		"> draft     agent · s-7f3a · We agreed",
		"  supersede Keep sessions in Postgres, not Redis → Redis … Postgres",
		"  merge     Never commit .env files + Never commit .env files to any repository",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("the inbox does not show %q:\n%s", want, scr)
		}
	}
	// The detail, unwrapped: where the draft came from and its whole text.
	if d := detailText(m); !strings.Contains(d, "from session s-7f3a notes/standup.md:12") ||
		!strings.Contains(d, "We agreed in standup: the staging cluster is called kestrel.\nDeploys freeze on Fridays.") {
		t.Errorf("the draft's detail:\n%s", d)
	}
	press(t, m, "down")
	d := detailText(m)
	for _, want := range []string{"Proposed supersession",
		"contradicts 'Keep sessions in Postgres, not Redis' (swapped: Postgres → Redis) but ranks lower (extracted < user-stated)",
		"Would become: D decisions · decision · extracted · not stored yet\nKeep sessions in Redis, not Postgres",
		"Now: D decisions · decision · user-stated · active · id " + storeShort(t, m, sessionsID) + "\nKeep sessions in Postgres, not Redis\nOne datastore"} {
		if !strings.Contains(d, want) {
			t.Errorf("the proposal's detail does not show %q:\n%s", want, d)
		}
	}
	if strings.Contains(screen(m), sessionsID) || strings.Contains(d, sessionsID) {
		t.Errorf("a reason shows a memory id instead of its title:\n%s", d)
	}
}

// detailText is the inbox's detail as plain lines, too wide to wrap.
func detailText(m Model) string {
	return ansi.Strip(strings.Join(m.inbox.detailLines(m.theme, 1000, m.sid), "\n"))
}

// TestAcceptSupersedeThroughKeysThenUndo: a on the supersede proposal
// writes the candidate as the successor of the memory it contradicts; the
// status line says so with the run to undo; the list, the count and the
// selection follow. /undo of that run puts everything back.
func TestAcceptSupersedeThroughKeysThenUndo(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 120, 40, "plain")
	press(t, m, "i", "down")
	if it := m.inbox.selected(); it == nil || it.id() != supersedeID {
		t.Fatalf("selected %+v, want the supersede proposal", it)
	}
	press(t, m, "a")
	p := proposalState(t, db, supersedeID)
	if p.State != memory.ProposalAccepted || p.DecidedBy != memory.ActorUser || p.Result == "" {
		t.Fatalf("after a the proposal is %s by %q (result %q)", p.State, p.DecidedBy, p.Result)
	}
	old, err := db.Get(bg, sessionsID)
	if err != nil || old.Status != memory.StatusSuperseded || old.SupersededBy != p.Result {
		t.Fatalf("the contradicted memory is %+v (%v), want superseded by %s", old, err, p.Result)
	}
	if succ, err := db.Get(bg, p.Result); err != nil || succ.Title != "Keep sessions in Redis, not Postgres" || succ.Status != memory.StatusActive {
		t.Fatalf("the successor is %+v (%v)", succ, err)
	}
	scr := screen(m)
	if !strings.Contains(scr, "✓ accepted: superseded 'Keep sessions in Postgres, not Redis' → 'Keep sessions in Redis, not Postgres'") {
		t.Fatalf("the status line does not say what was accepted:\n%s", scr)
	}
	if n := sidebarCount(t, m, "Inbox"); n != "2" {
		t.Fatalf("the inbox counts %s after the accept, want 2", n)
	}
	if it := m.inbox.selected(); it == nil || it.id() != mergeID {
		t.Fatalf("after the accept the selection is on %+v, want the next proposal", it)
	}
	if strings.Contains(scr, "supersede contradicts") {
		t.Fatalf("the accepted proposal is still listed:\n%s", scr)
	}

	if !strings.HasSuffix(m.status, "— /undo takes it back") {
		t.Fatalf("the status line does not say how to undo: %q", m.status)
	}
	runs, err := db.Runs(bg, demoProject.ID, 1)
	if err != nil || len(runs) != 1 || runs[0].ID == seedRun {
		t.Fatalf("the accept is not a run of its own: %+v (%v)", runs, err)
	}
	press(t, m, "/", "type:undo", "enter")
	if old, _ := db.Get(bg, sessionsID); old.Status != memory.StatusActive || old.SupersededBy != "" {
		t.Fatalf("after /undo the memory is %s, superseded by %q", old.Status, old.SupersededBy)
	}
	if _, err := db.Get(bg, p.Result); err == nil {
		t.Fatal("after /undo the successor is still there")
	}
	if p := proposalState(t, db, supersedeID); p.State != memory.ProposalOpen {
		t.Fatalf("after /undo the proposal is %s, want open again", p.State)
	}
	if !strings.Contains(screen(m), "✓ undid run "+short(runs[0].ID)) || sidebarCount(t, m, "Inbox") != "3" {
		t.Fatalf("the undo is not reported, or the inbox not recounted:\n%s", screen(m))
	}
}

// TestRejectLeavesTheMemoriesAlone: w rejects the merge proposal; no
// memory changes, and it leaves the inbox.
func TestRejectLeavesTheMemoriesAlone(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 80, 24, "plain")
	before, _ := db.Get(bg, envID)
	press(t, m, "i", "down", "down")
	press(t, m, "w")
	if p := proposalState(t, db, mergeID); p.State != memory.ProposalRejected {
		t.Fatalf("after w the proposal is %s", p.State)
	}
	if after, _ := db.Get(bg, envID); after.Version != before.Version || after.Status != memory.StatusActive {
		t.Fatalf("rejecting changed the memory: %+v", after)
	}
	if _, err := db.Get(bg, mergeCandID); err == nil {
		t.Fatal("rejecting wrote the candidate")
	}
	if !strings.Contains(screen(m), "✓ rejected: it will not be proposed again") || len(m.inbox.items) != 2 {
		t.Fatalf("the reject is not reported, or the proposal still listed (%d items):\n%s", len(m.inbox.items), screen(m))
	}
}

// TestEditThenAcceptWritesThePersonsVersion: e opens the editor on the
// candidate; ctrl+s shows the diff against the memory it supersedes;
// enter accepts the person's version, stated by the person.
func TestEditThenAcceptWritesThePersonsVersion(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 120, 40, "plain")
	press(t, m, "i", "down", "e")
	if m.screen() != modeEditor || !strings.Contains(screen(m), "Edit the proposal") {
		t.Fatalf("e did not open the editor:\n%s", screen(m))
	}
	press(t, m, "ctrl+s")
	if m.screen() != modeEditor || !strings.Contains(m.status, "unchanged") {
		t.Fatalf("an unchanged candidate went on: %q", m.status)
	}
	press(t, m, "type: for the session store, since March.", "ctrl+s")
	if m.screen() != modeDiff || !strings.Contains(screen(m), "your version of the proposal") || !strings.Contains(screen(m), "old · "+storeShort(t, m, sessionsID)) {
		t.Fatalf("ctrl+s does not show the diff against the memory it supersedes:\n%s", screen(m))
	}
	press(t, m, "enter")
	p := proposalState(t, db, supersedeID)
	if p.State != memory.ProposalAccepted {
		t.Fatalf("enter did not accept: %s (%s)", p.State, m.status)
	}
	got, err := db.Get(bg, p.Result)
	if err != nil || !strings.Contains(got.Body, "for the session store, since March.") || got.Provenance != memory.ProvUserStated {
		t.Fatalf("the accepted memory is %+v (%v), want the person's version, user-stated", got, err)
	}
	if m.screen() != modeInbox || m.stack.editor() != nil || m.stack.diff() != nil {
		t.Fatalf("after the accept the workbench is in mode %d (editor %v, diff %v), want the inbox", m.screen(), m.stack.editor() != nil, m.stack.diff() != nil)
	}
}

// TestEditCancelledKeepsTheProposal: esc in the editor stores nothing.
func TestEditCancelledKeepsTheProposal(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 80, 24, "plain")
	press(t, m, "i", "down", "e", "type: changed", "esc")
	if p := proposalState(t, db, supersedeID); p.State != memory.ProposalOpen {
		t.Fatalf("esc decided the proposal: %s", p.State)
	}
	if m.screen() != modeInbox || !strings.Contains(screen(m), "edit cancelled: the proposal still waits") {
		t.Fatalf("esc did not go back to the inbox with a word:\n%s", screen(m))
	}
}

// TestProposalDiffAcceptsAndRejects: d shows the supersession side by
// side (the stored memory against the candidate, not stored yet); a in the
// diff accepts; on the merge, w in the diff rejects.
func TestProposalDiffAcceptsAndRejects(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 120, 40, "plain")
	press(t, m, "i", "down", "d")
	scr := screen(m)
	if m.screen() != modeDiff || !strings.Contains(scr, "old · "+storeShort(t, m, sessionsID)+" v1 · active") || !strings.Contains(scr, "new · not stored yet") ||
		!strings.Contains(scr, "proposed supersede: a accepts, w rejects") {
		t.Fatalf("d does not show the proposal's diff:\n%s", scr)
	}
	if !strings.Contains(scr, "a accept · w reject") {
		t.Fatalf("the footer does not say how to decide:\n%s", scr)
	}
	press(t, m, "a")
	if p := proposalState(t, db, supersedeID); p.State != memory.ProposalAccepted {
		t.Fatalf("a in the diff did not accept: %s (%s)", p.State, m.status)
	}
	if m.screen() != modeInbox {
		t.Fatalf("after the accept the workbench is in mode %d, not the inbox", m.screen())
	}
	if it := m.inbox.selected(); it == nil || it.id() != mergeID {
		t.Fatalf("the merge is not selected: %+v", it)
	}
	press(t, m, "d", "w")
	if p := proposalState(t, db, mergeID); p.State != memory.ProposalRejected {
		t.Fatalf("w in the diff did not reject: %s (%s)", p.State, m.status)
	}
	// A draft and a remember proposal have nothing to compare.
	press(t, m, "up", "d")
	if m.screen() != modeInbox || !m.statusBad || !strings.Contains(m.status, "/consolidate") {
		t.Fatalf("d on a draft: mode %d, status %q", m.screen(), m.status)
	}
}

// TestDropDraftShowsTheTextAndAsks: x on a draft shows its stored text
// and drops it only on y; n, enter and esc keep it. A proposal is not
// dropped.
func TestDropDraftShowsTheTextAndAsks(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 80, 24, "plain")
	press(t, m, "i", "x")
	scr := screen(m)
	if !strings.Contains(scr, "Drop this draft for good?") || !strings.Contains(scr, "We agreed in standup: the staging cluster is") {
		t.Fatalf("the dialog does not show the draft's text:\n%s", scr)
	}
	waitingDrafts := func() int {
		ds, err := db.Drafts(bg, demoProject.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(memory.Waiting(ds))
	}
	for i, no := range []string{"n", "enter", "esc"} {
		if i > 0 {
			press(t, m, "x")
		}
		press(t, m, no)
		if m.drop != nil || waitingDrafts() != 1 {
			t.Fatalf("%q: dialog open %v, %d drafts waiting", no, m.drop != nil, waitingDrafts())
		}
	}
	press(t, m, "x", "y")
	if waitingDrafts() != 0 {
		t.Fatal("y did not drop the draft")
	}
	if !strings.Contains(screen(m), "✓ dropped draft "+short(waitingDraft)+" for good") || !strings.Contains(screen(m), "Inbox 0 drafts · 2 proposals") {
		t.Fatalf("the drop is not reported, or not counted:\n%s", screen(m))
	}
	press(t, m, "x")
	if m.drop != nil || !strings.Contains(m.status, "w rejects it") {
		t.Fatalf("x on a proposal: dialog %v, status %q", m.drop != nil, m.status)
	}
	if p := proposalState(t, db, supersedeID); p.State != memory.ProposalOpen {
		t.Fatalf("x on a proposal changed it: %s", p.State)
	}
}

// TestProposalDecidedElsewhere: a proposal another process accepted is
// refused with one line, and the inbox catches up.
func TestProposalDecidedElsewhere(t *testing.T) {
	t.Parallel()
	m, db := inboxApp(t, 120, 40, "plain")
	press(t, m, "i", "down")
	if _, err := consolidate.Reject(bg, db, demoProject, supersedeID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	press(t, m, "a")
	if !m.statusBad || !strings.Contains(m.status, "accept failed") || strings.Contains(m.status, "\n") {
		t.Fatalf("accepting a rejected proposal: %q", m.status)
	}
	if p := proposalState(t, db, supersedeID); p.State != memory.ProposalRejected {
		t.Fatalf("the proposal became %s", p.State)
	}
	press(t, m, "r")
	if len(m.inbox.items) != 2 {
		t.Fatalf("after r the inbox holds %d items, want 2", len(m.inbox.items))
	}
}

// morningStore is an empty project holding an agent's guess, and a
// morning of notes from the person: a correction of the guess, chatter, a
// preference.
func morningStore(t *testing.T) (*store.DB, *memory.Memory) {
	t.Helper()
	db := openStore(t, false)
	argo, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.",
		Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"No, actually deploys go through Spinnaker, not ArgoCD.", "ok, thanks", "I prefer table-driven tests for parsers."} {
		if _, err := db.Capture(bg, memory.Draft{Project: demoProject.ID, Actor: memory.ActorUser, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	return db, argo
}

// TestConsolidateFromTheCommandLine: /consolidate dry reports and writes
// nothing; /consolidate writes the run, shows each change in words (the
// same the stored run says), recounts the sidebar, and /undo takes the run
// back.
func TestConsolidateFromTheCommandLine(t *testing.T) {
	t.Setenv("CAIRN_LLM_URL", "") // the patterns alone, whatever the environment
	db, argo := morningStore(t)
	m := app(t, db, 120, 40, "plain")
	if n := sidebarCount(t, m, "Inbox"); n != "3" {
		t.Fatalf("the sidebar counts %s drafts, want 3", n)
	}

	press(t, m, "/", "type:consolidate dry", "enter")
	if m.screen() != modeReport || !strings.Contains(screen(m), "Consolidation, dry run: nothing was written") {
		t.Fatalf("/consolidate dry shows no report:\n%s", screen(m))
	}
	if runs, _ := db.Runs(bg, demoProject.ID, 10); len(runs) != 0 {
		t.Fatalf("a dry run wrote %d runs", len(runs))
	}
	if got, _ := db.Get(bg, argo.ID); got.Status != memory.StatusActive {
		t.Fatalf("a dry run changed the guess: %s", got.Status)
	}
	press(t, m, "esc")

	press(t, m, "/", "type:consolidate", "enter")
	runs, err := db.Runs(bg, demoProject.ID, 10)
	if err != nil || len(runs) != 1 {
		t.Fatalf("/consolidate stored %d runs (%v)", len(runs), err)
	}
	run := runs[0]
	if got, _ := db.Get(bg, argo.ID); got.Status != memory.StatusSuperseded {
		t.Fatalf("the corrected guess is %s, want superseded", got.Status)
	}
	scr := screen(m)
	if m.screen() != modeReport || !strings.Contains(scr, "Consolidation run "+run.ID) {
		t.Fatalf("no report of run %s:\n%s", run.ID, scr)
	}
	shown := 0
	for _, c := range run.Changes {
		if c.Kind == memory.ChangeDraftDone {
			continue
		}
		want := describe(bg, db, run, c)
		if !strings.Contains(strings.Join(find[*reportPane](m.stack).lines, "\n"), want) {
			t.Errorf("the report lacks %q:\n%s", want, strings.Join(find[*reportPane](m.stack).lines, "\n"))
		}
		shown++
	}
	if shown == 0 || !strings.Contains(scr, "superseded 'Deploys go through ArgoCD.' → ") && !strings.Contains(scr, "superseded 'Deploys go through ArgoCD' → ") {
		t.Fatalf("the report does not show the supersession:\n%s", scr)
	}
	if !strings.Contains(m.status, "/undo takes it back") || !strings.Contains(strings.Join(find[*reportPane](m.stack).lines, "\n"), "cairn consolidate --undo "+run.ID) {
		t.Fatalf("neither the status line nor the report says how to undo: %q", m.status)
	}
	press(t, m, "esc")
	if m.screen() == modeReport {
		t.Fatal("esc does not close the report")
	}
	ps, _ := db.Proposals(bg, demoProject.ID, memory.ProposalOpen)
	if n := sidebarCount(t, m, "Inbox"); n != fmt.Sprint(len(ps)) {
		t.Fatalf("after the run the inbox counts %s, the store has %d open proposals and no waiting draft", n, len(ps))
	}
	if m.tally.loaded && m.tally.counts.Active(memory.LayerState) == 0 {
		t.Fatal("the layer counts were not reloaded")
	}

	press(t, m, "/", "type:consolidate undo "+run.ID[:8], "enter")
	if got, _ := db.Get(bg, argo.ID); got.Status != memory.StatusActive {
		t.Fatalf("after the undo the guess is %s", got.Status)
	}
	if n := sidebarCount(t, m, "Inbox"); n != "3" {
		t.Fatalf("after the undo the inbox counts %s, want the 3 drafts again", n)
	}
}

// TestConsolidateReportScreens goldens the report of a run at 80×24 and
// 120×40 (its id, random, is masked).
func TestConsolidateReportScreens(t *testing.T) {
	t.Setenv("CAIRN_LLM_URL", "")
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := fmt.Sprintf("consolidate-report_%dx%d_plain", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			db, _ := morningStore(t)
			m := app(t, db, size[0], size[1], "plain")
			press(t, m, "/", "type:consolidate", "enter")
			runs, err := db.Runs(bg, demoProject.ID, 1)
			if err != nil || len(runs) != 1 {
				t.Fatalf("no run: %v", err)
			}
			// The run's id (whole, short, or cut by the status line) is
			// masked cell for cell, so the frame stays as drawn.
			scr := regexp.MustCompile(regexp.QuoteMeta(runs[0].ID[:8])+`[0-9A-Z]*`).ReplaceAllStringFunc(screen(m), func(s string) string {
				return strings.Repeat("#", len(s))
			})
			golden(t, name, scr)
		})
	}
}

// TestCommandLineRefusesBadConsolidateInput: a word /consolidate does not
// know, /undo without a run or with one that does not exist: one line
// each, nothing written.
func TestCommandLineRefusesBadConsolidateInput(t *testing.T) {
	t.Parallel()
	db, argo := morningStore(t)
	m := app(t, db, 80, 24, "plain")
	for line, want := range map[string]string{
		"consolidate bogus": "/consolidate [dry | undo RUN]",
		"consolidate dry x": "one word too many",
		"consolidate undo":  "give the id of the run",
		"undo":              "/undo RUN",
		"undo a b":          "one run at a time",
	} {
		press(t, m, "/", "type:"+line, "enter")
		if !m.repl.active || !m.repl.hintBad || !strings.Contains(m.repl.hint, want) {
			t.Errorf("/%s: hint %q, want %q", line, m.repl.hint, want)
		}
		press(t, m, "esc")
	}
	press(t, m, "/", "type:undo 01ZZZZZZ", "enter")
	if !m.statusBad || !strings.HasPrefix(m.status, "undo failed: ") || strings.Contains(m.status, "\n") {
		t.Fatalf("/undo of no run: %q", m.status)
	}
	if runs, _ := db.Runs(bg, demoProject.ID, 10); len(runs) != 0 {
		t.Fatalf("bad input wrote %d runs", len(runs))
	}
	if got, _ := db.Get(bg, argo.ID); got.Status != memory.StatusActive || got.Version != argo.Version {
		t.Fatalf("bad input changed a memory: %+v", got)
	}
}

// TestConsolidationProgress: the pass reports its progress without ever
// waiting for the screen (only the latest step is kept), and the header
// shows it while the pass runs.
func TestConsolidationProgress(t *testing.T) {
	t.Parallel()
	c := &consolidation{progress: make(chan consolidate.Progress, 1), done: make(chan consolidatedMsg, 1)}
	finished := make(chan struct{})
	go func() {
		for i := range 1000 {
			c.report(consolidate.Progress{Stage: "extracting", Done: i, Total: 1000})
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("reporting progress blocked with nobody reading it")
	}
	if p := <-c.progress; p.Done != 999 {
		t.Fatalf("the channel kept step %d, want the latest (999)", p.Done)
	}

	m := app(t, openStore(t, false), 80, 24, "plain")
	m.sleeping = c
	m.pending++
	m.Update(consolidationProgressMsg{c, consolidate.Progress{Stage: "extracting", Done: 120, Total: 400}})
	if head := strings.SplitN(screen(m), "\n", 2)[0]; !strings.Contains(head, "extracting 120/400") {
		t.Fatalf("the header does not show the progress: %q", head)
	}
	// The progress of a pass that is not the one under way is ignored.
	m.Update(consolidationProgressMsg{&consolidation{}, consolidate.Progress{Stage: "writing", Done: 0, Total: 1}})
	if strings.Contains(screen(m), "writing") {
		t.Fatal("a stray pass's progress reached the header")
	}
	m.Update(consolidatedMsg{rep: consolidate.Report{Counts: map[memory.ChangeKind]int{}}})
	if head := strings.SplitN(screen(m), "\n", 2)[0]; strings.Contains(head, "extracting") || m.sleeping != nil {
		t.Fatalf("the progress stays after the pass ended: %q", head)
	}
}

// TestConsolidateInTheRunningProgram drives the real program (teatest):
// /consolidate runs in the background, its report arrives, the store holds
// the run, and the inbox is empty after it.
func TestConsolidateInTheRunningProgram(t *testing.T) {
	t.Setenv("CAIRN_LLM_URL", "")
	db, argo := morningStore(t)
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true,
		Now: func() time.Time { return now }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "nothing here")
	tm.Send(tea.KeyPressMsg{Code: '/', Text: "/"})
	tm.Type("consolidate")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, tm, "/undo")
	waitStatus(t, db, argo.ID, memory.StatusSuperseded)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape}) // closes the report
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	ds, err := db.Drafts(bg, demoProject.ID, 10)
	if err != nil || len(memory.Waiting(ds)) != 0 {
		t.Fatalf("drafts still waiting after the run: %d (%v)", len(memory.Waiting(ds)), err)
	}
}

// TestWelcomePointsAtTheInbox: a project with nothing remembered yet but
// drafts waiting says so on its welcome screen.
func TestWelcomePointsAtTheInbox(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	if _, err := db.Capture(bg, memory.Draft{Project: demoProject.ID, Actor: memory.ActorAgent, Text: "The API listens on port 9090."}); err != nil {
		t.Fatal(err)
	}
	m := app(t, db, 80, 24, "plain")
	if scr := screen(m); !strings.Contains(scr, "Welcome to cairn") || !strings.Contains(scr, "1 item waits in the inbox: i shows them") {
		t.Fatalf("the welcome screen does not point at the waiting draft:\n%s", scr)
	}
	press(t, m, "i")
	if it := m.inbox.selected(); it == nil || it.draft == nil || !strings.Contains(screen(m), "agent · The API listens") ||
		!strings.Contains(detailText(m), "The API listens on port 9090.") {
		t.Fatalf("i does not show the draft:\n%s", screen(m))
	}
}

// taintedInbox is a store whose drafts and proposals come back with evil
// in every field a person sees, as an older cairn or a hostile capture may
// have stored them.
type taintedInbox struct{ *store.DB }

func (s taintedInbox) Drafts(ctx context.Context, project string, limit int) ([]memory.Draft, error) {
	ds, err := s.DB.Drafts(ctx, project, limit)
	for i := range ds {
		ds[i].Text = "Deploys freeze " + evil + "\non Fridays " + evil
		ds[i].Source = memory.Source{Session: "s" + evil, File: "notes/" + evil + ".md", Line: 3}
	}
	return ds, err
}

func (s taintedInbox) Proposals(ctx context.Context, project string, state memory.ProposalState) ([]memory.Proposal, error) {
	ps, err := s.DB.Proposals(ctx, project, state)
	for i := range ps {
		ps[i].Reason = "contradicts " + sessionsID + " " + evil
		if c := ps[i].Memory; c != nil {
			c.Title, c.Body, c.Kind = "Sessions "+evil, "# Redis "+evil+"\n\nnow "+evil, memory.Kind("fact"+evil)
		}
	}
	return ps, err
}

// TestInboxTextReachesTheTerminalNeutralised: what drafts and proposals
// hold is shown with its escapes as pictures, in the list, the details,
// the diff, the editor and the drop dialog.
func TestInboxTextReachesTheTerminalNeutralised(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		db := openStore(t, true)
		seedInbox(t, db)
		m := New(taintedInbox{db}, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "dark",
			Now: func() time.Time { return now }})
		m.quiet = true
		m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
		drain(t, m, m.Init())
		drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: size[0], Height: size[1]} })
		frame := func(what string) {
			t.Helper()
			inert(t, fmt.Sprintf("%s at %dx%d", what, size[0], size[1]), m.View().Content)
		}
		press(t, m, "i")
		frame("the inbox and a draft")
		inert(t, "the whole draft", strings.Join(m.inbox.detailLines(m.theme, 60, m.sid), "\n"))
		if !strings.Contains(detailText(m), "␛]0;pwned␇") {
			t.Fatalf("the draft is not shown neutralised:\n%s", detailText(m))
		}
		press(t, m, "x")
		frame("the drop dialog")
		press(t, m, "esc", "down", "enter")
		frame("a proposal")
		inert(t, "the whole proposal", strings.Join(m.inbox.detailLines(m.theme, 60, m.sid), "\n"))
		press(t, m, "esc", "d")
		frame("the proposal's diff")
		press(t, m, "esc", "e")
		frame("the editor on the proposal")
	}
}

// A recall that finds nothing says so, and its question waits in the
// Inbox as a gap that x closes; + on a recalled memory is feedback.
func TestGapsAndFeedbackInTheWorkbench(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 100, 30, "plain")
	press(t, m, "/", "type:recall capital of France", "enter")
	if !strings.Contains(screen(m), "nothing known about this") {
		t.Fatalf("a recall that found nothing:\n%s", screen(m))
	}
	press(t, m, "esc", "i")
	scr := screen(m)
	if !strings.Contains(scr, "1 gap") || !strings.Contains(scr, "capital of France") || sidebarCount(t, m, "Inbox") != "1" {
		t.Fatalf("the gap is not in the inbox:\n%s", scr)
	}
	press(t, m, "x")
	if gs, _ := db.Gaps(bg, demoProject.ID); len(gs) != 0 {
		t.Fatalf("x did not close the gap: %+v", gs)
	}
	if !strings.Contains(screen(m), "closed the gap") {
		t.Fatalf("closing is not reported:\n%s", screen(m))
	}
	press(t, m, "/", "type:recall sessions postgres", "enter")
	sel := m.list.selected()
	if sel == nil {
		t.Fatalf("nothing recalled:\n%s", screen(m))
	}
	press(t, m, "+")
	got, err := db.Get(bg, sel.ID)
	if err != nil || len(got.Salience.Feedback) != 1 || !got.Salience.Feedback[0].Helpful || got.Salience.Feedback[0].Query != "sessions postgres" {
		t.Fatalf("+ did not keep the feedback: %+v %v", got.Salience.Feedback, err)
	}
	if got.Confidence != sel.Confidence || got.Version != sel.Version || got.Provenance != sel.Provenance {
		t.Fatalf("feedback changed the memory: %+v → %+v", sel, got)
	}
}

// /recall --path puts what is known about the files first, as the CLI's
// --path does; a malformed pattern is refused with one line.
func TestRecallByPathInTheWorkbench(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")
	press(t, m, "/", "type:remember The retry policy lives in store/import.go", "enter")
	press(t, m, "/", "type:recall --path store/*.go", "enter")
	sel := m.list.selected()
	if sel == nil || !strings.Contains(sel.Title, "retry policy") || !strings.Contains(screen(m), `recall "--path store/*.go"`) {
		t.Fatalf("recall --path:\n%s", screen(m))
	}
	press(t, m, "esc", "/", "type:recall --path st[ore", "enter")
	if !strings.Contains(screen(m), "malformed") {
		t.Fatalf("a malformed pattern:\n%s", screen(m))
	}
}

// buildingRecaller answers "building" a few times, as the engine does
// while its index is built, then an answer.
type buildingRecaller struct {
	calls, building int
	notes           []string
	status          func() string // what the status line says when asked
	seen            []string
}

func (b *buildingRecaller) Recall(_ context.Context, req recall.Request) (recall.Response, error) {
	b.calls++
	b.seen = append(b.seen, b.status())
	if b.calls <= b.building {
		note := fmt.Sprintf("building the index … %d %% (%d of 10 memories): ask again in a moment", 30*b.calls, 3*b.calls)
		b.notes = append(b.notes, note)
		return recall.Response{Building: true, Note: note}, nil
	}
	return recall.Response{Nothing: true, Results: []recall.Hit{}, VerifyFirst: []recall.Hit{}}, nil
}

// While the index is being built the workbench says how far it is and
// asks again until the answer comes: never a frozen screen, never a
// half-built answer.
func TestRecallWhileTheIndexIsBuilt(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 100, 30, "plain")
	rec := &buildingRecaller{building: 2, status: func() string { return m.status }}
	m.opt.Recall = rec
	press(t, m, "/", "type:recall capital of France", "enter")
	if rec.calls != 3 {
		t.Fatalf("asked %d times, want 3 (two builds, one answer)", rec.calls)
	}
	// The progress, without the engine's "ask again": the workbench asks.
	for i, note := range rec.notes {
		progress, _, _ := strings.Cut(note, ":")
		if !strings.HasPrefix(rec.seen[i+1], progress) || strings.Contains(rec.seen[i+1], "ask again") {
			t.Fatalf("the build's progress was not on the status line: %q", rec.seen)
		}
	}
	if !strings.Contains(screen(m), "nothing known about this") {
		t.Fatalf("the answer after the build:\n%s", screen(m))
	}
}

// A supersession row too wide for its room is cut in its old text, so the
// change stays in sight; a change as long as the row is cut with the rest.
func TestKeepChange(t *testing.T) {
	t.Parallel()
	row := "The token bucket holds 5k req/s at p99 under 4 ms on the staging hosts. → 12"
	got := keepChange(row, 60)
	if !strings.HasSuffix(got, "… → 12") || ansi.StringWidth(got) > 60 || !strings.HasPrefix(got, "The token bucket") {
		t.Errorf("keepChange at 60: %q", got)
	}
	if got := keepChange(row, 200); got != row {
		t.Errorf("a row that fits changed: %q", got)
	}
	long := "Old → " + strings.Repeat("new words ", 10)
	if got := keepChange(long, 40); got != long {
		t.Errorf("a long new side should be left to the row's own cut: %q", got)
	}
}
