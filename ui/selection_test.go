package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cairn/memory"
	"cairn/recall"
	"cairn/store"
)

// Issue 10 item 16: another process writes while the workbench is open, and
// the keys must still act on the memory the person selected.

// rememberIn stores text in the demo project's layer l, as a person would.
func rememberIn(t testing.TB, db *store.DB, l memory.Layer, text string) *memory.Memory {
	t.Helper()
	got, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: l, Body: text}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// elsewhere runs write as another process would, then gives the model what
// the store's subscription gives a live workbench: the event the write put
// on the timeline, and the refresh the model schedules for it (its timer
// firing is the only part of the runtime left out).
func elsewhere(t *testing.T, m Model, db *store.DB, write func() error) {
	t.Helper()
	if err := write(); err != nil {
		t.Fatal(err)
	}
	evs, err := db.Timeline(bg, demoProject.ID, 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the write left no event: %v", err)
	}
	m.Update(storeEventMsg{evs[0]}) // schedules the refresh; the timer is ours to fire
	if !m.refreshDue {
		t.Fatal("the event scheduled no refresh")
	}
	drain(t, m, func() tea.Msg { return refreshMsg{} })
}

func status(t *testing.T, db *store.DB, id string) memory.Status {
	t.Helper()
	got, err := db.Get(bg, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return got.Status
}

// TestArchiveActsOnTheSelectedMemoryAfterAnotherWrite is the reported case:
// "Deploys go through ArgoCD" is selected, a remember from another shell
// lands above it, and a archives ArgoCD, not the newcomer.
func TestArchiveActsOnTheSelectedMemoryAfterAnotherWrite(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	argo := rememberIn(t, db, memory.LayerInvariant, "Deploys go through ArgoCD")
	m := app(t, db, 120, 40, "plain")
	press(t, m, "1", "select:Deploys go through ArgoCD")
	row := m.list.cursor

	var other *memory.Memory
	elsewhere(t, m, db, func() (err error) {
		other, err = db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
			Body: "Agents must run the linter before proposing a patch"}, memory.ActorAgent)
		return err
	})
	if i := indexOf(m.list.visible(), other.ID); i < 0 || i > row {
		t.Fatalf("the new memory should land at or above the selected row %d (it is at %d): the test proves nothing", row, i)
	}
	if sel := selected(t, m); sel.ID != argo.ID {
		t.Fatalf("the selection jumped from %q to %q", argo.Title, sel.Title)
	}
	press(t, m, "a")
	if got := status(t, db, argo.ID); got != memory.StatusArchived {
		t.Errorf("the selected memory is %s, want archived", got)
	}
	if got := status(t, db, other.ID); got != memory.StatusActive {
		t.Errorf("a archived the other process's memory (%s)", got)
	}
	if !strings.Contains(screen(m), `archived "Deploys go through ArgoCD"`) {
		t.Errorf("the status line does not name the archived memory:\n%s", screen(m))
	}
}

// TestDetailFocusKeepsItsMemoryAfterAnotherWrite: with the detail pane
// focused (the keys act on what it shows), a refresh does not swap it for
// the list's row.
func TestDetailFocusKeepsItsMemoryAfterAnotherWrite(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	argo := rememberIn(t, db, memory.LayerInvariant, "Deploys go through ArgoCD")
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1", "select:Deploys go through ArgoCD", "enter")
	elsewhere(t, m, db, func() error {
		_, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
			Body: "Agents must run the linter before proposing a patch"}, memory.ActorAgent)
		return err
	})
	if m.detail.mem == nil || m.detail.mem.ID != argo.ID {
		t.Fatalf("the detail now shows %+v", m.detail.mem)
	}
	press(t, m, "a")
	if got := status(t, db, argo.ID); got != memory.StatusArchived {
		t.Errorf("the memory in the detail is %s, want archived", got)
	}
}

// TestDetailOfAForgottenMemoryHandsBackToTheList: the memory being read is
// forgotten by another process; the keys go back to the list (whose
// selection is on screen), with a word of why, and act on nothing unseen.
func TestDetailOfAForgottenMemoryHandsBackToTheList(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1", "down")
	gone := selected(t, m)
	press(t, m, "enter")
	elsewhere(t, m, db, func() error { return db.Forget(bg, gone.ID, memory.ActorAgent) })
	if m.focus != focusList {
		t.Fatalf("the keys stay on the detail of a memory that is gone")
	}
	if m.detail.mem != nil && m.detail.mem.ID == gone.ID {
		t.Fatalf("the detail still shows the forgotten memory")
	}
	if scr := screen(m); !strings.Contains(scr, "forgotten elsewhere") || strings.Count(scr, "forgotten elsewhere") != 1 {
		t.Fatalf("the status line does not say it once:\n%s", scr)
	}
}

// TestSelectionMovesToANeighbourAndSaysSo: when the selected memory leaves
// the list because another process archived or forgot it, the one below it
// is selected and the status line says what happened.
func TestSelectionMovesToANeighbourAndSaysSo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		verb  string
		write func(db *store.DB, id string) error
	}{
		{"archived", func(db *store.DB, id string) error {
			_, err := db.Archive(bg, id, "", memory.ActorAgent)
			return err
		}},
		{"forgotten", func(db *store.DB, id string) error { return db.Forget(bg, id, memory.ActorAgent) }},
	} {
		t.Run(c.verb, func(t *testing.T) {
			db := openStore(t, true)
			m := app(t, db, 120, 40, "plain")
			press(t, m, "1", "down")
			v := m.list.visible()
			gone, below := v[1], v[2]
			elsewhere(t, m, db, func() error { return c.write(db, gone.ID) })
			if sel := selected(t, m); sel.ID != below.ID {
				t.Fatalf("selected %q, want its neighbour %q", sel.Title, below.Title)
			}
			if m.detail.mem == nil || m.detail.mem.ID != below.ID {
				t.Fatalf("the detail does not show the neighbour: %+v", m.detail.mem)
			}
			scr := screen(m)
			if !strings.Contains(scr, c.verb+" elsewhere") || !strings.Contains(scr, firstWords(gone.Title)) {
				t.Fatalf("the status line does not say the selection moved:\n%s", scr)
			}
		})
	}
}

// TestOwnArchiveMovesOnQuietly: archiving from the workbench itself moves to
// the neighbour without claiming another process did it.
func TestOwnArchiveMovesOnQuietly(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")
	press(t, m, "1", "down")
	below := m.list.visible()[2]
	press(t, m, "a")
	if sel := selected(t, m); sel.ID != below.ID {
		t.Fatalf("selected %q, want %q", sel.Title, below.Title)
	}
	if scr := screen(m); strings.Contains(scr, "elsewhere") || !strings.Contains(scr, "press u to undo") {
		t.Fatalf("the status line:\n%s", scr)
	}
}

// TestVerifyQueueFollowsTheSelection: the verify-first queue is reordered
// by another process's low-trust memory; a acts on the selected one.
func TestVerifyQueueFollowsTheSelection(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	low := func(text string) (*memory.Memory, error) {
		return db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerState, Body: text,
			Provenance: memory.ProvInferred, Confidence: 0.2}, memory.ActorAgent)
	}
	if _, err := low("The staging cluster has four nodes"); err != nil {
		t.Fatal(err)
	}
	target, err := low("The nightly job runs at 02:00 UTC")
	if err != nil {
		t.Fatal(err)
	}
	m := app(t, db, 140, 40, "plain")
	press(t, m, "v", "select:The nightly job")
	row := m.list.cursor

	var other *memory.Memory
	elsewhere(t, m, db, func() (err error) {
		other, err = low("The cache is warmed on deploy")
		return err
	})
	q, err := m.opt.Trust(demoProject).Queue(bg, recall.ActivationNow)
	if err != nil {
		t.Fatal(err)
	}
	var ids []*memory.Memory
	for _, it := range q {
		ids = append(ids, it.Memory)
	}
	if i := indexOf(ids, other.ID); i < 0 || i > row {
		t.Fatalf("the new memory should enter the queue at or above row %d (it is at %d): the test proves nothing", row, i)
	}
	if sel := selected(t, m); sel.ID != target.ID {
		t.Fatalf("the selection jumped from %q to %q", target.Title, sel.Title)
	}
	press(t, m, "a")
	if got := status(t, db, target.ID); got != memory.StatusArchived {
		t.Errorf("the selected memory is %s, want archived", got)
	}
	if got := status(t, db, other.ID); got != memory.StatusActive {
		t.Errorf("a archived the other process's memory (%s)", got)
	}
}

// TestForgetDialogClosesWhenItsMemoryIsForgottenElsewhere: the dialog
// never forgets another memory in its place, and says why it closed.
func TestForgetDialogClosesWhenItsMemoryIsForgottenElsewhere(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1")
	sel := selected(t, m)
	press(t, m, "x")
	if m.forget == nil {
		t.Fatal("x opened no dialog")
	}
	before, _ := db.List(bg, memory.Query{Project: demoProject.ID, Status: memory.StatusAny, Limit: 1000})
	elsewhere(t, m, db, func() error { return db.Forget(bg, sel.ID, memory.ActorAgent) })
	if m.forget != nil {
		t.Fatalf("the dialog stays open on a memory that is gone:\n%s", screen(m))
	}
	if scr := screen(m); !strings.Contains(scr, "forgotten elsewhere") || !strings.Contains(scr, "nothing left to forget") {
		t.Fatalf("no word of why the dialog closed:\n%s", scr)
	}
	press(t, m, "y")
	after, _ := db.List(bg, memory.Query{Project: demoProject.ID, Status: memory.StatusAny, Limit: 1000})
	if len(after.Memories) != len(before.Memories)-1 {
		t.Fatalf("y after the dialog closed deleted something: %d memories, want %d", len(after.Memories), len(before.Memories)-1)
	}
}

// TestForgetDialogShowsTheStoredTextAndKeepsItsMemory: another process edits
// the memory while the dialog is open (it shows the new text) and remembers
// one above it; y forgets the memory the dialog was opened on.
func TestForgetDialogShowsTheStoredTextAndKeepsItsMemory(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	argo := rememberIn(t, db, memory.LayerInvariant, "Deploys go through ArgoCD")
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1", "select:Deploys go through ArgoCD", "x")
	body := "Deploys go through ArgoCD; the sync window is 10 minutes"
	elsewhere(t, m, db, func() error {
		_, err := db.Edit(bg, argo.ID, memory.Patch{Body: &body}, memory.ActorAgent)
		return err
	})
	if !strings.Contains(screen(m), "the sync window is 10 minutes") {
		t.Fatalf("the dialog does not show the stored text:\n%s", screen(m))
	}
	var other *memory.Memory
	elsewhere(t, m, db, func() (err error) {
		other, err = db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
			Body: "Agents must run the linter before proposing a patch"}, memory.ActorAgent)
		return err
	})
	press(t, m, "y")
	if _, err := db.Get(bg, argo.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("the dialog's memory was not forgotten: %v", err)
	}
	if _, err := db.Get(bg, other.ID); err != nil {
		t.Errorf("the other process's memory was forgotten: %v", err)
	}
}

// TestSupersedeEditorClosesWhenItsMemoryIsForgottenElsewhere: an editor
// open on a memory that is gone says so rather than failing at ctrl+s.
func TestSupersedeEditorClosesWhenItsMemoryIsForgottenElsewhere(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1")
	sel := selected(t, m)
	press(t, m, "s")
	elsewhere(t, m, db, func() error { return db.Forget(bg, sel.ID, memory.ActorAgent) })
	if m.stack.editor() != nil || m.screen() == modeEditor {
		t.Fatalf("the editor stays open on a memory that is gone:\n%s", screen(m))
	}
	if scr := screen(m); !strings.Contains(scr, "forgotten elsewhere") || !strings.Contains(scr, "supersede cancelled") {
		t.Fatalf("no word of why the editor closed:\n%s", scr)
	}
}

// TestLiveArchiveActsOnTheSelectedMemory runs the real program (teatest)
// with its live subscription: the other write reaches it through the
// store, as from another shell, and a archives the memory selected.
func TestLiveArchiveActsOnTheSelectedMemory(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	argo := rememberIn(t, db, memory.LayerInvariant, "Deploys go through ArgoCD")
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true,
		Live: true, Now: func() time.Time { return now }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "Deploys go through ArgoCD") // the newest invariant, selected

	other, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
		Body: "Agents must run the linter before proposing a patch"}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "Agents must run the linter")
	tm.Send(tea.KeyPressMsg{Code: 'a', Text: "a"})
	waitScreen(t, tm, "press u to undo")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))

	if got := status(t, db, argo.ID); got != memory.StatusArchived {
		t.Errorf("the selected memory is %s, want archived", got)
	}
	if got := status(t, db, other.ID); got != memory.StatusActive {
		t.Errorf("a archived the other process's memory (%s)", got)
	}
}

func indexOf(ms []*memory.Memory, id string) int {
	for i, m := range ms {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// firstWords is the start of a title, short enough to survive truncation.
func firstWords(s string) string {
	if r := []rune(s); len(r) > 16 {
		return string(r[:16])
	}
	return s
}

// TestForgetConfirmedAfterAnotherForgetDeletesNothingElse: y is pressed
// before the workbench heard of the other process's forget; nothing else
// is deleted and the status line says what happened.
func TestForgetConfirmedAfterAnotherForgetDeletesNothingElse(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 80, 24, "plain")
	press(t, m, "1")
	sel := selected(t, m)
	press(t, m, "x")
	if err := db.Forget(bg, sel.ID, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	before, _ := db.List(bg, memory.Query{Project: demoProject.ID, Status: memory.StatusAny, Limit: 1000})
	press(t, m, "y")
	after, _ := db.List(bg, memory.Query{Project: demoProject.ID, Status: memory.StatusAny, Limit: 1000})
	if len(after.Memories) != len(before.Memories) {
		t.Fatalf("y deleted another memory: %d left of %d", len(after.Memories), len(before.Memories))
	}
	if scr := screen(m); !strings.Contains(scr, "forgotten elsewhere already") {
		t.Fatalf("the status line does not say it was forgotten elsewhere:\n%s", scr)
	}
}

// TestListSetFollowsTheID: the list's selection is an id, whatever the new
// list does around it.
func TestListSetFollowsTheID(t *testing.T) {
	t.Parallel()
	mk := func(ids ...string) []*memory.Memory {
		var out []*memory.Memory
		for _, id := range ids {
			out = append(out, &memory.Memory{ID: id, Title: "memory " + id})
		}
		return out
	}
	for _, c := range []struct {
		name        string
		old         []string
		cursor      int
		new         []string
		prefer      string
		want, wantL string // selected id and the id that left ("" none)
	}{
		{"a write above it", []string{"B", "C", "D"}, 1, []string{"A", "B", "C", "D"}, "", "C", ""},
		{"a write below it", []string{"B", "C", "D"}, 1, []string{"B", "C", "CC", "D"}, "", "C", ""},
		{"it left: the one below", []string{"B", "C", "D"}, 1, []string{"A", "B", "D"}, "", "D", "C"},
		{"it and the one below left: the one above", []string{"B", "C", "D"}, 1, []string{"A", "B"}, "", "B", "C"},
		{"the last one left", []string{"B", "C", "D"}, 2, []string{"B", "C"}, "", "C", "D"},
		{"all left", []string{"B", "C"}, 0, []string{"X", "Y"}, "", "X", "B"},
		{"the list emptied", []string{"B"}, 0, nil, "", "", "B"},
		{"a successor takes its place", []string{"B", "C", "D"}, 1, []string{"N", "B", "D"}, "N", "N", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := listPane{items: mk(c.old...), cursor: c.cursor}
			left := l.set(mk(c.new...), "", false, c.prefer)
			got := ""
			if s := l.selected(); s != nil {
				got = s.ID
			}
			gotL := ""
			if left != nil {
				gotL = left.ID
			}
			if got != c.want || gotL != c.wantL {
				t.Errorf("selected %q, left %q; want %q, %q", got, gotL, c.want, c.wantL)
			}
		})
	}
}
