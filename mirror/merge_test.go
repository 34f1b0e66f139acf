package mirror

import (
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// version renders a version of one memory's file.
func version(t *testing.T, id, title, body string, v int, updated time.Time) []byte {
	t.Helper()
	e := &Entry{ID: id, Layer: memory.LayerInvariant, Kind: memory.KindConstraint, Title: title, Body: body,
		Provenance: memory.ProvUserStated, Status: memory.StatusActive, Version: v, Updated: updated,
		Links: []Link{{Kind: memory.EdgeDependsOn, To: "T"}}}
	b, err := Render(e, map[string]string{"T": "A-invariant/the-store-is-badger-abcdefgh.md"}, map[string]string{"T": "The store is Badger"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeKeepsTheNewerAndCopiesTheOther(t *testing.T) {
	t.Parallel()
	id := memory.NewID()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	base := version(t, id, "Tests use TempDir", "Tests keep to t.TempDir().", 1, t0)
	// Both edited version 1 into a version 2: the team file keeps no
	// update time, so one side is kept whole, the same on every clone
	// (see the other side's merge below), and the other becomes the copy.
	ours := version(t, id, "Tests use TempDir", "Tests keep to t.TempDir() and CAIRN_HOME.", 2, time.Time{})
	theirs := version(t, id, "Tests use TempDir", "Tests keep to t.TempDir() and a temporary HOME.", 2, time.Time{})
	rel := "A-invariant/tests-use-tempdir-" + ShortID(id) + ".md"
	m, err := Merge(rel, base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	kept, otherBody := theirs, "Tests keep to t.TempDir() and CAIRN_HOME."
	if m.Kept == "ours" {
		kept, otherBody = ours, "Tests keep to t.TempDir() and a temporary HOME."
	}
	if string(m.Result) != string(kept) {
		t.Fatalf("the version kept (%s) should be kept as it is:\n%s", m.Kept, m.Result)
	}
	c, err := Parse(m.Copy, func(name string) string { return name })
	if err != nil {
		t.Fatalf("the copy does not parse: %v\n%s", err, m.Copy)
	}
	if c.Body != otherBody || c.ID == id || ulidErr(c.ID) != nil ||
		c.Version != 0 || !c.Created.IsZero() || len(c.History) != 0 {
		t.Fatalf("the copy should be the other text as a new memory, without its life:\n%s", m.Copy)
	}
	want := []Link{{Kind: memory.EdgeContradicts, To: strings.TrimSuffix(rel[len("A-invariant/"):], ".md")}, {Kind: memory.EdgeDependsOn, To: "the-store-is-badger-abcdefgh"}}
	if len(c.Links) != 2 || c.Links[0] != want[0] || c.Links[1] != want[1] {
		t.Fatalf("the copy's links: %+v", c.Links)
	}
	if m.CopyName != "A-invariant/tests-use-tempdir-"+ShortID(c.ID)+".md" {
		t.Fatalf("copy name %s", m.CopyName)
	}
	if strings.Contains(string(m.Result)+string(m.Copy), "<<<<<<<") {
		t.Fatal("conflict markers")
	}
	// Either side's merge makes the same result and the same copy.
	again, err := Merge(rel, base, theirs, ours)
	if err != nil || string(again.Result) != string(m.Result) || string(again.Copy) != string(m.Copy) || again.Kept == m.Kept {
		t.Fatalf("the other side's merge differs: %v", err)
	}
}

func TestMergeOrdersByVersionThenTimeThenHistory(t *testing.T) {
	t.Parallel()
	id := memory.NewID()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	a := version(t, id, "T", "a", 3, t0)
	b := version(t, id, "T", "b", 2, t0.Add(time.Hour))
	if m, _ := Merge("A-invariant/t.md", nil, a, b); m.Kept != "ours" {
		t.Fatal("the higher version should win over a later time")
	}
	// Without update times (the mirror drops them), equal versions: the
	// longer history, then an order that is the same on both sides.
	ea, _ := Parse(version(t, id, "T", "a", 2, time.Time{}), func(string) string { return "" })
	eb, _ := Parse(version(t, id, "T", "b", 2, time.Time{}), func(string) string { return "" })
	eb.History = []Past{{Version: 1, Title: "T", Body: "x"}}
	if Newer(ea, eb) || !Newer(eb, ea) {
		t.Fatal("the longer history should win")
	}
	eb.History = nil
	if Newer(ea, eb) == Newer(eb, ea) {
		t.Fatal("the order of two equal versions should not depend on the side")
	}
}

func TestMergeWithoutACopy(t *testing.T) {
	t.Parallel()
	id := memory.NewID()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	base := version(t, id, "T", "one", 1, t0)
	edited := version(t, id, "T", "two", 2, t0.Add(time.Hour))
	restamped := version(t, id, "T", "one", 2, t0.Add(2*time.Hour)) // the same text, other stamps
	m, err := Merge("A-invariant/t.md", base, restamped, edited)
	if err != nil || m.Copy != nil || string(m.Result) != string(edited) {
		t.Fatalf("only theirs changed the text: theirs, no copy: %v %s", err, m.Result)
	}
	same := version(t, id, "T", "two", 2, t0.Add(3*time.Hour))
	if m, err := Merge("A-invariant/t.md", base, edited, same); err != nil || m.Copy != nil || string(m.Result) != string(same) {
		t.Fatalf("the same text on both sides: the newer, no copy: %v", err)
	}
}

func TestMergeRefusesWhatIsNotAMemory(t *testing.T) {
	t.Parallel()
	id := memory.NewID()
	good := version(t, id, "T", "one", 1, time.Time{})
	for name, bad := range map[string][]byte{
		"conflict markers": []byte("---\nid: " + id + "\n<<<<<<< HEAD\ntitle: a\n=======\ntitle: b\n>>>>>>> x\n---\n"),
		"no frontmatter":   []byte("just text\n"),
		"another memory":   version(t, memory.NewID(), "T", "one", 1, time.Time{}),
		"no id":            []byte("---\ntitle: T\nlayer: A\n---\n\nbody\n"),
	} {
		if _, err := Merge("A-invariant/t.md", good, good, bad); !errors.Is(err, ErrNotMerged) {
			t.Errorf("%s: want ErrNotMerged, got %v", name, err)
		}
	}
}
