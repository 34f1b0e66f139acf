package remote

import (
	"reflect"
	"slices"
	"testing"

	"cairn/memory"
)

// Every method of the store's contract has exactly one row of the socket
// protocol, and every row carries a method of the store or is the
// protocol's own: a method added to memory.Store without its row (or a
// row misspelt) fails here, not at a user's first call through a server.
func TestEveryStoreMethodHasOneRow(t *testing.T) {
	t.Parallel()
	own := []string{"ImportChunk", "ImportEnd", "Ping", "Recall", "Settings"}
	st := reflect.TypeFor[memory.Store]()
	rows := map[string]int{}
	names := map[string]int{}
	for _, m := range protocol {
		names[m.name]++
		carried := m.carries
		if _, ok := st.MethodByName(m.name); ok {
			carried = append(carried, m.name)
		}
		if len(carried) == 0 && !slices.Contains(own, m.name) {
			t.Errorf("row %q carries no method of memory.Store and is not one of the protocol's own", m.name)
		}
		for _, c := range carried {
			if _, ok := st.MethodByName(c); !ok {
				t.Errorf("row %q carries %q, which memory.Store does not have", m.name, c)
			}
			rows[c]++
		}
		if m.serve == nil && !m.stream && m.name != "Close" {
			t.Errorf("row %q has no handler", m.name)
		}
	}
	for name, n := range names {
		if n != 1 {
			t.Errorf("%d rows are named %q", n, name)
		}
	}
	for i := range st.NumMethod() {
		name := st.Method(i).Name
		if rows[name] != 1 {
			t.Errorf("memory.Store's %s has %d rows in the socket protocol, want 1 (add it to protocol in methods.go)", name, rows[name])
		}
	}
}

// The roles a recall index is built with — the events since its stamp,
// the vector cache, recording a recall — work through a server as they do
// on the store: an engine could be built over a client.
func TestRemoteCarriesTheIndexRoles(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	stamp, err := c.LastEvent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerDecision, Body: "ship on Fridays only with a rollback"}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := c.EventsSince(ctx, stamp)
	if err != nil || len(evs) != 1 || evs[0].MemoryID != m.ID {
		t.Fatalf("events since %q: %+v %v", stamp, evs, err)
	}
	if last, err := c.LastEvent(ctx); err != nil || last != evs[0].ID {
		t.Fatalf("last event %q %v, want %q", last, err, evs[0].ID)
	}

	h := memory.ContentHash(m)
	if err := c.PutVectors(ctx, "hashed", map[string][]float32{h: {0.5, -1, 2}}); err != nil {
		t.Fatal(err)
	}
	vs, err := c.Vectors(ctx, "hashed", []string{h, "unknown"})
	if err != nil || len(vs) != 1 || !slices.Equal(vs[h], []float32{0.5, -1, 2}) {
		t.Fatalf("vectors: %v %v", vs, err)
	}

	if err := c.Touch(ctx, []string{m.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.FlushSalience(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, m.ID)
	if err != nil || got.Salience.AccessCount != 1 {
		t.Fatalf("a recall touched through the server: %+v %v", got.Salience, err)
	}
}
