package mirror

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// nestedBrackets is the hostile mirror file of issue 24: 60 KB of nested
// "[" in the frontmatter (16.9 s in the mirror's own parser before).
func nestedBrackets() []byte {
	return []byte("---\nid: 01JD0000000000000000000AAA\ntitle: t\nlayer: A\ntags: " + strings.Repeat("[", 60<<10) + "\n---\n\nbody\n")
}

// A hostile file is refused with one line, at the exchange reader's
// limits: nested brackets, an alias bomb, too many tokens.
func TestParseRefusesHostileFrontmatter(t *testing.T) {
	t.Parallel()
	bomb := "---\nid: 01JD0000000000000000000AAA\nlayer: A\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\ntitle: *c\n---\n"
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"nested brackets", nestedBrackets(), "YAML tokens"},
		{"a few nested brackets", []byte("---\nlayer: A\ntitle: t\ntags: " + strings.Repeat("[", 100) + "\n---\n"), "nest deeper"},
		{"alias bomb", []byte(bomb), "anchors and aliases"},
		{"many tokens", []byte("---\nlayer: A\ntitle: t\ntags:\n" + strings.Repeat("- a\n", 40000) + "---\n"), "YAML tokens"},
	}
	for _, c := range cases {
		_, err := Parse(c.in, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: err = %.200v, want one line mentioning %q", c.name, err, c.want)
		}
	}
	// Nested brackets in the body are text.
	body := "---\nid: 01JD0000000000000000000AAA\ntitle: t\nlayer: A\n---\n\n" + strings.Repeat("[", 60<<10) + "\n"
	if e, err := Parse([]byte(body), func(string) string { return "" }); err != nil || len(e.Body) != 60<<10 {
		t.Fatalf("brackets in a body: %v", err)
	}
}

func BenchmarkParseNestedBrackets(b *testing.B) {
	in := nestedBrackets()
	for b.Loop() {
		if _, err := Parse(in, func(string) string { return "" }); err == nil {
			b.Fatal("accepted")
		}
	}
}

// A mirror file reads the forms an export writes, and old mirror files
// (with updated:) still say when they were last edited.
func TestParseReadsEveryForm(t *testing.T) {
	t.Parallel()
	old := "---\nid: 01JD0000000000000000000AAA\ntitle: t\nlayer: decision\nversion: 2\ncreated_at: \"2026-03-02T10:00:00Z\"\nupdated: \"2026-03-02T11:00:00Z\"\n---\n\nbody\n\n## Links\n\n- because: [[b-00000bbb|B]]\n"
	e, err := Parse([]byte(old), func(name string) string {
		if name == "b-00000bbb" {
			return "01JD0000000000000000000BBB"
		}
		return ""
	})
	if err != nil || e.Layer != memory.LayerDecision || e.Body != "body" || !e.Updated.Equal(time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)) ||
		!e.Created.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) || len(e.Links) != 1 || e.Links[0] != (Link{memory.EdgeBecause, "01JD0000000000000000000BBB"}) {
		t.Fatalf("%v %+v", err, e)
	}
	// A field cairn does not know is refused in the mirror (a sync would
	// drop it), naming it.
	if _, err := Parse([]byte("---\nid: 01JD0000000000000000000AAA\ntitle: t\nlayer: A\nmood: fine\n---\n"), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), `"mood"`) {
		t.Fatalf("unknown field: %v", err)
	}
}

// Two people edit different parts of one memory (one its title, the other
// the end of its body), each from version 1 to 2, a minute apart: git
// merges the two files without a conflict, since no line of a team file
// differs on every edit.
func TestConcurrentEditsMergeInGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	body := "line one\nline two\nline three\nline four\nline five\nline six"
	base := &Entry{ID: "01JD0000000000000000000AAA", Layer: memory.LayerDecision, Kind: memory.KindDecision, Title: "Park MTP",
		Body: body, Status: memory.StatusActive, Tags: []string{"bench"}, Version: 1, Created: at, Updated: at}
	edit := func(title, body string, when time.Time) *Entry {
		e := *base
		e.Title, e.Body, e.Version, e.Updated = title, body, 2, when
		e.History = []Past{{Version: 1, Updated: stamp(at), Title: base.Title, Body: base.Body}}
		return &e
	}
	ours := edit("Park MTP for now", body, at.Add(time.Hour))
	theirs := edit("Park MTP", strings.Replace(body, "line six", "line six, measured", 1), at.Add(time.Hour+time.Minute))
	dir := t.TempDir()
	write := func(name string, e *Entry) string {
		b, err := Render(e, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o600)
		return p
	}
	o, b, th := write("ours.md", ours), write("base.md", base), write("theirs.md", theirs)
	cmd := exec.Command("git", "merge-file", "-p", o, b, th)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git merge-file: %v (conflicts):\n%s", err, out)
	}
	got, err := Parse(out, func(string) string { return "" })
	if err != nil || got.Title != "Park MTP for now" || !strings.HasSuffix(got.Body, "line six, measured") || got.Version != 2 || len(got.History) != 1 {
		t.Fatalf("merged: %v %+v\n%s", err, got, out)
	}
}

// Newer orders two versions of one memory alike on every machine.
func TestNewer(t *testing.T) {
	t.Parallel()
	a := &Entry{ID: "x", Title: "a", Version: 3}
	b := &Entry{ID: "x", Title: "b", Version: 2}
	if !Newer(a, b) || Newer(b, a) {
		t.Fatalf("the higher version is newer")
	}
	b.Version = 3
	if Newer(a, b) == Newer(b, a) {
		t.Fatalf("equal versions: exactly one is newer")
	}
	a.Updated, b.Updated = time.Unix(10, 0), time.Unix(20, 0)
	if !Newer(b, a) || Newer(a, b) {
		t.Fatalf("equal versions with times: the later edit is newer")
	}
	a.Updated = time.Time{}
	b.History = []Past{{Version: 2}}
	if !Newer(b, a) {
		t.Fatalf("equal versions, one time unknown: the longer history is newer")
	}
}
