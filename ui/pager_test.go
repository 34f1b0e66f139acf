package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
	t.Parallel()
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
	t.Parallel()
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

// TestTabsStayInsideThePane: a body with tabs (a pasted table, code) shows
// whole, to its last word, every line within the screen's width and no raw
// tab on it: a tab moves the terminal's cursor to its own stops, past the
// pane's border, and a line the wrapper measured short is wrapped again by
// the viewport, pushing the end of the body out of the pane.
func TestTabsStayInsideThePane(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	body := "```\n" + strings.Repeat("col\tcol\tcol\tcol\tcol\tcol\tcol\tcol\tcol\tcol\n", 3) + "```\n\nplain\ttab\ttext\tthat\tgoes\ton\tfor\ta\twhile\tand\tends\there"
	rec := fmt.Sprintf(`{"id": "01KJAAAAB0000000000000000A", "layer": "decision", "kind": "decision", "title": "Tabs\tin the title", "body": %q, "provenance": "user-stated", "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:00Z", "valid_from": "2026-03-01T10:00:00Z"}`, body)
	recs, err := exchange.ReadJSONL(strings.NewReader(rec + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m := app(t, db, size[0], size[1], "plain")
		press(t, m, "4", "enter", "G")
		scr := screen(m)
		for _, l := range strings.Split(scr, "\n") {
			if ansi.StringWidth(l) > size[0] || strings.Contains(l, "\t") {
				t.Fatalf("%dx%d: a line of %d cells or with a tab: %q\n%s", size[0], size[1], ansi.StringWidth(l), l, scr)
			}
		}
		if !strings.Contains(scr, "ends") || !strings.Contains(scr, "here") {
			t.Fatalf("%dx%d: the end of the body is not shown:\n%s", size[0], size[1], scr)
		}
	}
}
