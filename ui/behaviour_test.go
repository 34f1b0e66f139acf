package ui

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/store"
)

// selected is the memory under the list cursor.
func selected(t *testing.T, m Model) *memory.Memory {
	t.Helper()
	sel := m.list.selected()
	if sel == nil {
		t.Fatal("nothing selected")
	}
	return sel
}

func TestArchiveThenUnarchiveRestoresTheMemory(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "dark")
	press(t, m, "5") // negatives
	sel := selected(t, m)
	before, _ := db.Get(bg, sel.ID)
	press(t, m, "a")
	got, _ := db.Get(bg, sel.ID)
	if got.Status != memory.StatusArchived {
		t.Fatalf("after a: %s", got.Status)
	}
	if !strings.Contains(screen(m), "press u to undo") {
		t.Fatalf("no undo hint:\n%s", screen(m))
	}
	press(t, m, "u")
	after, _ := db.Get(bg, sel.ID)
	b1, _ := store.EncodeMemory(before)
	b2, _ := store.EncodeMemory(after)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("unarchive did not restore the memory:\n%s\n%s", b1, b2)
	}
}

func TestForgetAsksAndNoDeletesNothing(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 80, 24, "plain")
	press(t, m, "3") // episodic
	sel := selected(t, m)
	stored, _ := db.Get(bg, sel.ID)
	press(t, m, "x")
	if !strings.Contains(screen(m), "Forget this memory for good?") || !strings.Contains(screen(m), firstLine(stored.Body)) {
		t.Fatalf("the dialog does not show the stored text:\n%s", screen(m))
	}
	for _, no := range []string{"n", "enter", "esc"} {
		if no != "n" {
			press(t, m, "x")
		}
		press(t, m, no)
		if _, err := db.Get(bg, sel.ID); err != nil {
			t.Fatalf("answering %q deleted the memory: %v", no, err)
		}
		if m.forget != nil {
			t.Fatalf("%q left the dialog open", no)
		}
	}
	press(t, m, "x", "y")
	if _, err := db.Get(bg, sel.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("y did not forget: %v", err)
	}
	if !strings.Contains(screen(m), "forgot") {
		t.Fatalf("no word of it:\n%s", screen(m))
	}
}

// selectTitle moves the list cursor to the first memory whose title has sub.
func selectTitle(t testing.TB, m Model, sub string) {
	t.Helper()
	for i, it := range m.list.visible() {
		if strings.Contains(it.Title, sub) {
			m.list.cursor = i
			drain(t, m, m.openSelected())
			return
		}
	}
	t.Fatalf("no memory titled %q in the list", sub)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestSupersedeThroughTheDiffLinksBothWays(t *testing.T) {
	db := openStore(t, true)
	m := app(t, db, 140, 40, "dark")
	press(t, m, "6") // meta
	old := selected(t, m)
	press(t, m, "s")
	if m.screen() != modeEditor || m.stack.editor().ta.Value() != old.Title+"\n\n"+old.Body {
		t.Fatalf("the editor does not hold the old text")
	}
	t.Setenv("TMPDIR", t.TempDir())
	press(t, m, "ctrl+e") // $EDITOR does not run in the test; the key must not break anything
	m.stack.editor().setText("Check provenance and date before citing any figure as current.")
	press(t, m, "ctrl+s")
	if m.screen() != modeDiff || !strings.Contains(screen(m), "old ·") || !strings.Contains(screen(m), "new ·") {
		t.Fatalf("no side-by-side diff:\n%s", screen(m))
	}
	press(t, m, "enter")
	o, _ := db.Get(bg, old.ID)
	if o.Status != memory.StatusSuperseded || o.SupersededBy == "" {
		t.Fatalf("old: %+v", o)
	}
	n, err := db.Get(bg, o.SupersededBy)
	if err != nil || len(n.Supersedes) != 1 || n.Supersedes[0] != old.ID || n.Title != "Check provenance and date before citing any figure as current." {
		t.Fatalf("new: %+v %v", n, err)
	}
	if n.Layer != old.Layer || n.Provenance != memory.ProvUserCorrected {
		t.Fatalf("new keeps layer, is user-corrected: %+v", n)
	}
}

func TestCommandLineRemembersAndReportsErrors(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	m := app(t, db, 80, 24, "dark")
	press(t, m, "/", "type:remember -l D chose Badger over SQLite for the store", "enter")
	page, _ := db.List(bg, memory.Query{Project: demoProject.ID, Layer: memory.LayerDecision})
	if len(page.Memories) != 1 || page.Memories[0].Body != "chose Badger over SQLite for the store" {
		t.Fatalf("remembered: %+v", page.Memories)
	}
	press(t, m, "/", "type:frobnicate", "enter")
	if !m.repl.active || !strings.Contains(screen(m), "unknown command /frobnicate") {
		t.Fatalf("error not shown inline:\n%s", screen(m))
	}
	press(t, m, "esc", "/", "up")
	if m.repl.in.Value() != "frobnicate" {
		t.Fatalf("history: %q", m.repl.in.Value())
	}
	press(t, m, "esc", "/", "type:remember key AKIA"+"IOSFODNN7EXAMPLQ", "enter")
	if !strings.Contains(screen(m), "remember failed: refused") {
		t.Fatalf("secret refusal not shown:\n%s", screen(m))
	}
}

func TestFollowLinksBothWays(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 140, 40, "dark")
	press(t, m, "2")
	selectTitle(t, m, "Release v0.7.0")
	press(t, m, "enter", "]", "enter") // the current release fact → its predecessor
	if m.detail.mem == nil || m.detail.mem.Status != memory.StatusSuperseded {
		t.Fatalf("did not follow to the superseded memory: %+v", m.detail.mem)
	}
	pred := m.detail.mem
	press(t, m, "]", "enter")
	if m.detail.mem.ID != pred.SupersededBy {
		t.Fatalf("did not follow back to the successor")
	}
}

func TestFilterAndRecall(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "dark")
	press(t, m, "1", "f", "type:env", "enter")
	if v := m.list.visible(); len(v) != 1 || !strings.Contains(v[0].Title, ".env") {
		t.Fatalf("filter: %d", len(v))
	}
	press(t, m, "/", "type:recall VGPR occupancy", "enter")
	if sel := m.list.selected(); sel == nil || !strings.Contains(sel.Title, "VGPR") {
		t.Fatalf("recall: %+v", sel)
	}
}

func TestMouseSelectsSectionAndRow(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "dark")
	drain(t, m, func() tea.Msg { return tea.MouseClickMsg{X: 3, Y: 1 + 2 + 2, Button: tea.MouseLeft} }) // C episodic
	if m.section != 2 {
		t.Fatalf("click on the sidebar: section %d", m.section)
	}
	l := m.layout()
	drain(t, m, func() tea.Msg { return tea.MouseClickMsg{X: l.list.x + 3, Y: l.list.y + 2 + 1, Button: tea.MouseLeft} })
	if m.list.cursor != 1 {
		t.Fatalf("click on the second row: cursor %d", m.list.cursor)
	}
	drain(t, m, func() tea.Msg { return tea.MouseWheelMsg{X: l.list.x + 3, Y: l.list.y + 3, Button: tea.MouseWheelDown} })
	if m.list.cursor != 2 {
		t.Fatalf("wheel: cursor %d", m.list.cursor)
	}
}

// TestDiffStepsThroughEditsAndTheChain: d on an edited memory compares its
// last two versions; [ and ] move the older side, ←/→ the pair, across the
// versions of the whole supersession chain.
func TestDiffStepsThroughEditsAndTheChain(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 140, 40, "dark")
	press(t, m, "1")
	sel := selected(t, m)
	for _, body := range []string{"Secrets live in the vault; `.env` is ignored.", "Secrets live in the vault; `.env` is ignored and CI refuses it."} {
		if _, err := db.Edit(bg, sel.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	press(t, m, "r", "d")
	if m.screen() != modeDiff || m.stack.diff().a().Version != 2 || m.stack.diff().b().Version != 3 {
		t.Fatalf("d on an edited memory: %+v", m.stack.diff())
	}
	press(t, m, "[")
	if m.stack.diff().a().Version != 1 || m.stack.diff().b().Version != 3 || !strings.Contains(screen(m), "versions 1 and 3 of 3") {
		t.Fatalf("[ did not move the old side to v1:\n%s", screen(m))
	}
	press(t, m, "]", "]") // the old side stays older than the new one
	if m.stack.diff().a().Version != 2 {
		t.Fatalf("] moved the old side past the new: v%d", m.stack.diff().a().Version)
	}
	press(t, m, "esc", "2")
	selectTitle(t, m, "Release v0.7.0")
	press(t, m, "d")
	if m.stack.diff().a().Title != "Release v0.6.1 is out; auth refactor half done" || len(m.stack.diff().vers) != 3 {
		t.Fatalf("the chain: %d versions, old %q", len(m.stack.diff().vers), m.stack.diff().a().Title)
	}
	press(t, m, "left")
	if m.stack.diff().a().Title != "Release v0.6.0 is out" || m.stack.diff().b().Title != "Release v0.6.1 is out; auth refactor half done" {
		t.Fatalf("← did not move the pair back: %q → %q", m.stack.diff().a().Title, m.stack.diff().b().Title)
	}
}

// TestCommandsTakeIDPrefixes: ids typed on the command line may be unique
// prefixes of memories outside the shown list; the store resolves them.
func TestCommandsTakeIDPrefixes(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "dark")
	press(t, m, "1", "/", "type:archive 01KK1BFVM", "enter") // a negative, not in layer A's list
	if got, _ := db.Get(bg, "01KK1BFVM0N28TD6547TWCRZTF"); got.Status != memory.StatusArchived {
		t.Fatalf("/archive by prefix: %s", got.Status)
	}
	press(t, m, "/", "type:unarchive 01KK1BFVM", "enter")
	if got, _ := db.Get(bg, "01KK1BFVM0N28TD6547TWCRZTF"); got.Status != memory.StatusActive {
		t.Fatalf("/unarchive by prefix: %s", got.Status)
	}
	press(t, m, "/", "type:supersede 01KK1BFVM", "enter")
	if m.screen() != modeEditor || m.stack.editor().old.ID != "01KK1BFVM0N28TD6547TWCRZTF" {
		t.Fatalf("/supersede by prefix did not open the editor on it")
	}
	press(t, m, "esc", "/", "type:archive 01ZZZZ", "enter")
	if !strings.Contains(screen(m), "archive failed") {
		t.Fatalf("an unknown id is not reported:\n%s", screen(m))
	}
	press(t, m, "/", "type:link because 01KJZ0RG6", "enter")
	out, _, _ := db.Edges(bg, selected(t, m).ID)
	if len(out) != 1 || out[0].To != "01KJZ0RG60TCCA0QGJCAW5BHYR" || out[0].Kind != memory.EdgeBecause {
		t.Fatalf("/link: %+v", out)
	}
}

func TestVerifyFirstQueue(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 140, 40, "dark")
	press(t, m, "v")
	sel := m.list.selected()
	if sel == nil || !strings.Contains(sel.Title, "rate limiter") {
		t.Fatalf("the low-trust memory is not in the queue: %+v", sel)
	}
	scr := screen(m)
	if !strings.Contains(scr, "Verify first") || !strings.Contains(scr, "! low base confidence") && !strings.Contains(scr, "! bound to") {
		t.Fatalf("no reason shown:\n%s", scr)
	}
	// Its bound file does not exist here: confirming says so and changes nothing.
	press(t, m, "c")
	if !strings.Contains(screen(m), "confirm failed") || !strings.Contains(screen(m), "does not resolve") || !strings.Contains(screen(m), "b rebinds it") {
		t.Fatalf("confirm of an unresolvable binding:\n%s", screen(m))
	}
	press(t, m, "b", "type:none", "enter")
	got, _ := db.Get(bg, sel.ID)
	if len(got.Watermarks) != 1 || got.Watermarks[0].Kind != memory.WatermarkNone {
		t.Fatalf("rebind none: %+v", got.Watermarks)
	}
	evs, _ := db.Timeline(bg, demoProject.ID, 1)
	if evs[0].Kind != memory.EventVerify || !strings.Contains(evs[0].Summary, "rebound to none") {
		t.Fatalf("timeline: %+v", evs[0])
	}
}
