package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cairn/exchange"
	"cairn/memory"
)

// longMemory stores a decision whose body is n numbered lines.
func longMemory(t *testing.T, n int) Model {
	t.Helper()
	db := openStore(t, false)
	var body []string
	for i := 1; i <= n; i++ {
		body = append(body, fmt.Sprintf("line %02d of the reasons", i))
	}
	rec := fmt.Sprintf(`{"id": "01KJAAAAB0000000000000000A", "layer": "decision", "kind": "decision", "title": "A long decision", "body": %q, "provenance": "user-stated", "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:00Z", "valid_from": "2026-03-01T10:00:00Z"}`, strings.Join(body, "\n\n"))
	recs, err := exchange.ReadJSONL(strings.NewReader(rec + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	return app(t, db, 80, 24, "plain")
}

func wheel(t *testing.T, m Model, x, y int, up bool) {
	t.Helper()
	b := tea.MouseWheelDown
	if up {
		b = tea.MouseWheelUp
	}
	drain(t, m, func() tea.Msg { return tea.MouseWheelMsg{X: x, Y: y, Button: b} })
}

// TestDetailScrollsToItsEnd: a memory longer than its pane is read to the
// end with j, pgdown, G and the wheel, and back with k and g.
func TestDetailScrollsToItsEnd(t *testing.T) {
	m := longMemory(t, 40)
	press(t, m, "4", "enter")
	if m.focus != focusDetail || !strings.Contains(screen(m), "A long decision") || strings.Contains(screen(m), "line 40") {
		t.Fatalf("the detail does not open at its top:\n%s", screen(m))
	}
	press(t, m, "j")
	if strings.Contains(screen(m), "A long decision") {
		t.Fatalf("j did not scroll the title away:\n%s", screen(m))
	}
	press(t, m, "G")
	if !strings.Contains(screen(m), "line 40 of the reasons") {
		t.Fatalf("G does not show the end:\n%s", screen(m))
	}
	press(t, m, "g")
	if !strings.Contains(screen(m), "A long decision") {
		t.Fatalf("g does not go back to the top:\n%s", screen(m))
	}
	press(t, m, "pgdown")
	if scr := screen(m); strings.Contains(scr, "A long decision") || !strings.Contains(scr, "line 0") {
		t.Fatalf("pgdown did not turn a page:\n%s", scr)
	}
	press(t, m, "g")
	r := m.layout().detail
	for range 40 {
		wheel(t, m, r.x+3, r.y+3, false)
	}
	if !strings.Contains(screen(m), "line 40 of the reasons") {
		t.Fatalf("the wheel does not reach the end:\n%s", screen(m))
	}
	wheel(t, m, r.x+3, r.y+3, true)
	if strings.Contains(screen(m), "line 40 of the reasons") {
		t.Fatalf("the wheel does not scroll back up:\n%s", screen(m))
	}
	// Another memory opens at its top.
	press(t, m, "G", "esc", "3", "4", "enter")
	if !strings.Contains(screen(m), "A long decision") {
		t.Fatalf("the detail reopened scrolled:\n%s", screen(m))
	}
}

// TestHelpScrollsWithEveryReadingKey: the help overlay takes g/G, pgdown,
// j/k and the wheel (it took no wheel before), and says how much follows.
func TestHelpScrollsWithEveryReadingKey(t *testing.T) {
	m := app(t, openStore(t, true), 80, 24, "plain")
	press(t, m, "?")
	last := "kinds: rule = constraint"
	if scr := screen(m); !strings.Contains(scr, "Keys") || !strings.Contains(scr, "more lines: ↓ scrolls") || strings.Contains(scr, last) {
		t.Fatalf("the help does not open at its top with what follows counted:\n%s", scr)
	}
	press(t, m, "G")
	if scr := screen(m); !strings.Contains(scr, last) || strings.Contains(scr, "more lines") {
		t.Fatalf("G does not show the end of the help:\n%s", scr)
	}
	press(t, m, "g", "j")
	if strings.Contains(screen(m), "┃ Keys") {
		t.Fatalf("j does not scroll the help:\n%s", screen(m))
	}
	press(t, m, "k")
	if !strings.Contains(screen(m), "┃ Keys") {
		t.Fatalf("k does not scroll the help back:\n%s", screen(m))
	}
	wheel(t, m, 10, 10, false)
	if strings.Contains(screen(m), "┃ Keys") {
		t.Fatalf("the wheel does not scroll the help:\n%s", screen(m))
	}
	press(t, m, "esc", "?")
	if !strings.Contains(screen(m), "┃ Keys") {
		t.Fatalf("the help reopened scrolled:\n%s", screen(m))
	}
}
