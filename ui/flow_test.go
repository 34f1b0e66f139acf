package ui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cairn/memory"
)

// TestArchiveAndUndoInTheRunningProgram drives the real program (teatest):
// /archive on the command line, the undo hint, undo with u; the store
// follows each step.
func TestArchiveAndUndoInTheRunningProgram(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	const id = "01KJD4AMA09SYH36A447KCB902" // "Fixed the session-timeout bug on 2026-03-07"
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true,
		Now: func() time.Time { return now }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "Run the whole suite")

	tm.Send(tea.KeyPressMsg{Code: '/', Text: "/"})
	tm.Type("archive 01KJD4AMA")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, tm, "press u to undo")
	waitStatus(t, db, id, memory.StatusArchived)

	tm.Send(tea.KeyPressMsg{Code: 'u', Text: "u"})
	waitScreen(t, tm, "unarchived")
	waitStatus(t, db, id, memory.StatusActive)
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// waitStatus waits until the stored memory id has status want.
func waitStatus(t *testing.T, db interface {
	Get(context.Context, string) (*memory.Memory, error)
}, id string, want memory.Status) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := db.Get(bg, id)
		if err == nil && got.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became %s (last: %+v, %v)", id, want, got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
