package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cairn/memory"
)

// TestLiveUpdatesFromAnotherWriter runs the real program (through teatest)
// and writes to the store from outside it, as an agent would: the open
// workbench shows the new memory without a reload.
func TestLiveUpdatesFromAnotherWriter(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "dark", Live: true,
		Now: func() time.Time { return now }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "Run the whole suite")

	// Another writer remembers an invariant while the workbench is open.
	if _, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
		Body: "Agents must run the linter before proposing a patch"}, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "Agents must run the linter")

	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// waitScreen waits until the program's output shows want.
func waitScreen(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(want))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}
