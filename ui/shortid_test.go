package ui

import (
	"errors"
	"strings"
	"testing"

	"cairn/exchange"
	"cairn/memory"
)

// storeShort is how the CLI shows id: the shortest prefix of at least
// memory.ShownPrefix characters that the store resolves to id alone.
func storeShort(t *testing.T, m Model, id string) string {
	t.Helper()
	for n := memory.ShownPrefix; n <= len(id); n++ {
		got, err := m.st.Resolve(bg, id[:n])
		if errors.Is(err, memory.ErrAmbiguous) {
			continue
		}
		if err != nil || got != id {
			t.Fatalf("the store resolves %s to %q (%v)", id[:n], got, err)
		}
		return id[:n]
	}
	return id
}

// TestShortIDsAreUniqueInTheStoreAndTypedBack: ids made close together
// share most of their characters. The workbench shows each by the shortest
// prefix that names it in the whole store — not only among what is on the
// screen — and a command line takes that prefix back, in any case.
func TestShortIDsAreUniqueInTheStoreAndTypedBack(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	recs, err := exchange.ReadJSONL(strings.NewReader(`{"id": "01KJAAAAB0000000000000000A", "layer": "decision", "kind": "decision", "title": "Twin one", "body": "The first of two made in one second.", "provenance": "user-stated", "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:00Z", "valid_from": "2026-03-01T10:00:00Z"}
{"id": "01KJAAAAB1000000000000000B", "layer": "state", "kind": "fact", "title": "Twin two", "body": "The second, in another layer.", "provenance": "user-stated", "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:00Z", "valid_from": "2026-03-01T10:00:00Z"}
{"id": "01KJCCCC000000000000000000", "layer": "decision", "kind": "decision", "title": "Alone", "body": "Nothing else was made that second.", "provenance": "user-stated", "created_at": "2026-03-02T10:00:00Z", "updated_at": "2026-03-02T10:00:00Z", "valid_from": "2026-03-02T10:00:00Z"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	m := app(t, db, 120, 40, "plain")
	// Twin one's twin is in another layer: on the screen twin one is
	// alone, in the store it is not.
	press(t, m, "4", "select:Twin one")
	if scr := screen(m); !strings.Contains(scr, "id 01KJAAAAB0 ·") {
		t.Fatalf("the detail does not show the store-unique short id 01KJAAAAB0:\n%s", scr)
	}
	if got := storeShort(t, m, "01KJAAAAB0000000000000000A"); got != "01KJAAAAB0" {
		t.Fatalf("the store's short form is %s", got)
	}
	press(t, m, "select:Alone")
	if scr := screen(m); !strings.Contains(scr, "id 01KJCCCC ·") {
		t.Fatalf("a memory alone in its second is not shown by 8 characters:\n%s", scr)
	}
	// What was read off the screen is typed back, in lower case.
	press(t, m, "/", "type:archive 01kjaaaab0", "enter")
	a, err := db.Get(bg, "01KJAAAAB0000000000000000A")
	if err != nil || a.Status != memory.StatusArchived {
		t.Fatalf("/archive by the shown short id did not archive twin one: %v %v (%s)", a, err, m.status)
	}
	if b, _ := db.Get(bg, "01KJAAAAB1000000000000000B"); b.Status != memory.StatusActive {
		t.Fatalf("/archive by the short id archived its twin too")
	}
	if !strings.Contains(m.status, `archived "Twin one"`) {
		t.Fatalf("the status says %q", m.status)
	}
}
