package trust

import (
	"context"
	"slices"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// reads counts what a wake check reads of the store.
type reads struct {
	*store.DB
	bound   int
	boundTo [][]string
}

func (r *reads) Bound(ctx context.Context, project string) ([]*memory.Memory, error) {
	r.bound++
	return r.DB.Bound(ctx, project)
}

func (r *reads) BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error) {
	r.boundTo = append(r.boundTo, slices.Clone(targets))
	return r.DB.BoundTo(ctx, project, targets)
}

// A wake check compares the project's distinct stamps and reads only the
// memories of those that moved: none when nothing moved. What it records
// is what a check of every bound memory records.
func TestWakeReadsOnlyWhatMoved(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.go", "package a\n")
	r.write("b.go", "package b\n")
	r.write("lib/c.go", "package c\n")
	r.commit("three files")
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := db.EnsureProject(ctx, memory.Project{ID: "00000000000000ce", Name: "p", Root: r.root})
	st := &reads{DB: db}
	s := For(st, p, nil, nil)
	var ids []string
	for _, text := range []string{"the parser is in a.go", "a.go also lexes", "b.go prints", "lib/ holds the helpers"} {
		ws, err := s.Bind(ctx, nil, text)
		if err != nil || len(ws) != 1 {
			t.Fatalf("%q bound to %+v, %v", text, ws, err)
		}
		m, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: text, Watermarks: ws}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}

	if err := s.Wake(ctx); err != nil {
		t.Fatal(err)
	}
	if st.bound != 0 || len(st.boundTo) != 0 {
		t.Fatalf("nothing moved, yet the check read %d whole and %v by target", st.bound, st.boundTo)
	}

	r.write("a.go", "package a // changed\n")
	r.write("lib/c.go", "package c // changed\n")
	r.commit("two changes")
	if err := s.Wake(ctx); err != nil {
		t.Fatal(err)
	}
	if len(st.boundTo) != 1 || !slices.Equal(st.boundTo[0], []string{"a.go", "lib/"}) {
		t.Fatalf("the check read the memories of %v, want those of a.go and lib/", st.boundTo)
	}
	want := []memory.WatermarkState{memory.WatermarkMoved, memory.WatermarkMoved, memory.WatermarkIntact, memory.WatermarkMoved}
	for i, id := range ids {
		m, err := db.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Watermarks[0].State != want[i] {
			t.Fatalf("%q is %s, want %s", m.Body, m.Watermarks[0].State, want[i])
		}
	}
	if err := s.Wake(ctx); err != nil { // recorded: nothing is read again
		t.Fatal(err)
	}
	if len(st.boundTo) != 1 {
		t.Fatalf("a second check read the memories of %v again", st.boundTo[1:])
	}
}
