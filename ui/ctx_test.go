package ui

import (
	"context"
	"errors"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
)

// slowCount is a store whose counting waits for its caller to give up.
type slowCount struct {
	Store
	once    *sync.Once
	entered chan struct{}
}

func (s slowCount) Count(ctx context.Context, project string) (memory.Counts, error) {
	s.once.Do(func() { close(s.entered) })
	<-ctx.Done()
	return memory.Counts{}, ctx.Err()
}

// Quitting cancels what the workbench's commands are doing: a store call
// under way when q is pressed is told to stop, and gives up.
func TestQuitCancelsTheCommandsUnderWay(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 100, 30, "plain")
	slow := slowCount{Store: db, once: &sync.Once{}, entered: make(chan struct{})}
	m.st = slow
	_, reload := m.Update(keyMsg("r"))

	// The reload's commands run as the runtime runs them, each on its own;
	// q is pressed while the count is under way.
	answers := make(chan tea.Msg)
	run := func(c tea.Cmd) { go func() { answers <- c() }() }
	running, entered := 1, slow.entered
	run(reload)
	cancelled := false
	for running > 0 {
		select {
		case <-entered:
			entered = nil
			m.Update(keyMsg("q"))
		case msg := <-answers:
			running--
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					if c != nil {
						running++
						run(c)
					}
				}
			}
			if got, ok := msg.(countsLoadedMsg); ok {
				cancelled = errors.Is(got.err, context.Canceled)
			}
		}
	}
	if !cancelled {
		t.Fatal("the count under way was not cancelled by quitting")
	}
}
