package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

// Text output shows ids by prefixes that name each memory in the store and
// are taken back anywhere an id is; an ambiguous prefix is one line naming
// the candidates.
func TestShortIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Made in the same millisecond (as an import or a consolidation run
	// makes them), a and b share all but their last character; c and d
	// share ten; x, archived, shares thirteen with c and is not listed.
	const (
		a = "01J0000000AAAA000000000001"
		b = "01J0000000AAAA000000000002"
		c = "01J0000000BBBB000000000003"
		x = "01J0000000BBBX000000000004"
		d = "01J0000000CCCC000000000005"
	)
	var lines []string
	for _, r := range []struct{ id, title, status string }{
		{a, "the decode kernel runs at 128 VGPRs", "active"},
		{b, "the cache is warmed at start", "active"},
		{c, "the cache holds 4096 entries", "active"},
		{x, "the cache held 1024 entries", "archived"},
		{d, "staging lives in eu-west", "active"},
	} {
		lines = append(lines, `{"id":"`+r.id+`","layer":"B","title":"`+r.title+`","status":"`+r.status+`"}`)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ok("import", in)

	out := e.ok("list")
	want := map[string]string{ // id → what it must be shown as
		a: a, // whole: b differs only in the last character
		b: b,
		c: "01J0000000BBBB", // x, not listed, shares thirteen
		d: "01J0000000C",    // unique at eleven (at least eight are shown)
	}
	for id, w := range want {
		if !strings.Contains(out, w+" ") || (w != id && strings.Contains(out, id)) {
			t.Errorf("list shows %s as other than %s:\n%s", id, w, out)
		}
		if w != id && !e.names(w, id) {
			t.Errorf("%s does not name %s", w, id)
		}
	}
	// Other commands show the same forms and take them back.
	if out := e.ok("edit", "01J0000000BBBB", "--tag", "cache"); !strings.Contains(out, "edited 01J0000000BBBB ") {
		t.Errorf("edit by short id:\n%s", out)
	}
	if out := e.ok("timeline"); !strings.Contains(out, "01J0000000BBBB ") || strings.Contains(out, c) {
		t.Errorf("timeline:\n%s", out)
	}
	if out := e.ok("recall", "cache entries"); !strings.Contains(out, "01J0000000BBBB ") {
		t.Errorf("recall:\n%s", out)
	}
	if out := e.ok("archive", "01j0000000c"); !strings.Contains(out, "archived 01J0000000C ") || !strings.Contains(out, "cairn unarchive 01J0000000C\n") {
		t.Errorf("archive by short id:\n%s", out)
	}

	// An ambiguous prefix: one line, the candidates named by prefixes
	// that tell them apart, nothing changed.
	r := e.run("", "archive", "01J0000000")
	if r.code == 0 || strings.Count(r.err, "\n") != 1 || !strings.Contains(r.err, `"01J0000000" is ambiguous: `+a+", "+b+", 01J0000000BBBB, 01J0000000BBBX, 01J0000000C —") {
		t.Fatalf("ambiguous: exit %d, %q", r.code, r.err)
	}
	if n := len(e.list()); n != 3 {
		t.Fatalf("an ambiguous archive changed the store: %d active", n)
	}
	if got := e.rec("show", "01J0000000BBBX"); got.ID != x || got.Status != memory.StatusArchived {
		t.Fatalf("show by the short id of an unlisted memory: %+v", got)
	}
}
