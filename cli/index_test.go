package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/derive"
	"cairn/recall"
)

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) index(args ...string) derive.Report {
	e.t.Helper()
	var r derive.Report
	out := e.ok(append([]string{"index", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("index --json: %v\n%s", err, out)
	}
	return r
}

// A fresh clone: cairn index, then cairn context gives the project's
// shape and commands, and recall answers "where is X?"; after a commit
// only what changed is read again, by the next command itself.
func TestIndexThenContextAndRecall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	write(t, e.wd, "go.mod", "module example.com/shop\n\ngo 1.22\n")
	write(t, e.wd, "README.md", "# Shop\n\nShop sells hand-made kites online.\n\n## Running the tests\n\nRun make test before every push.\n")
	write(t, e.wd, "Makefile", "test:\n\tgo test ./...\n")
	write(t, e.wd, "main.go", "package main\n\nfunc main() {}\n")
	write(t, e.wd, "net/retry.go", "// Package net talks to the payment provider.\npackage net\n\n// RetryPolicy says how often a failed payment request is tried again.\ntype RetryPolicy struct{ Attempts int }\n")
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-qm", "first")

	r := e.index()
	if r.Files != 5 || r.Read != 5 || r.Sections == 0 {
		t.Fatalf("first index: %+v", r)
	}
	ctx := e.ok("context")
	for _, want := range []string{"## The project", "Shop sells hand-made kites online", "make test", "net/"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}

	// An agent's session starts with the project's brief, though nothing
	// is remembered yet.
	brief := e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": e.wd, "source": "startup"}))
	if !strings.Contains(brief, "Shop sells hand-made kites online") || !strings.Contains(brief, "make test") {
		t.Fatalf("session-start briefing of an indexed project:\n%s", brief)
	}

	var resp struct {
		Repository []recall.SectionHit `json:"repository"`
	}
	out := e.ok("recall", "--json", "where is the retry policy for payments?")
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Repository) == 0 || resp.Repository[0].Path != "net/retry.go" || resp.Repository[0].Source != "derived" {
		t.Fatalf("recall's repository hits = %+v", resp.Repository)
	}
	if txt := e.ok("recall", "how do I run the tests"); !strings.Contains(txt, "from the repository:") ||
		!(strings.Contains(txt, "README.md:5") || strings.Contains(txt, "Makefile:1")) {
		t.Fatalf("recall text:\n%s", txt)
	}

	// A commit that touches one file: the next command re-reads that file
	// alone, and recall sees the new section.
	write(t, e.wd, "net/retry.go", "// Package net talks to the payment provider.\npackage net\n\n// RetryPolicy says how often a failed payment request is tried again.\ntype RetryPolicy struct{ Attempts int }\n\n// Backoff doubles the wait between attempts of a refund.\nfunc Backoff(n int) int { return 1 << n }\n")
	gitIn(t, e.wd, "commit", "-qam", "backoff")
	out = e.ok("recall", "--json", "refund backoff")
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Repository) == 0 || resp.Repository[0].Name != "Backoff" {
		t.Fatalf("after the commit, recall's repository hits = %+v", resp.Repository)
	}
	if r := e.index(); r.Read != 0 || r.Gone != 0 || r.Files != 5 {
		t.Fatalf("index after the automatic one: %+v (want nothing read)", r)
	}

	// A memory bound to a file shows what the repository says there.
	m := e.rec("remember", "-l", "B", "payment retries are configured in net/retry.go")
	if show := e.ok("show", m.ID); !strings.Contains(show, "in the repository (derived):") || !strings.Contains(show, "net/retry.go:4  type RetryPolicy") {
		t.Fatalf("show of a memory bound to net/retry.go:\n%s", show)
	}

	// A person excludes a path: its sections go, and stay gone.
	if r := e.index("--exclude", "net"); r.Gone != 1 || r.Files != 4 {
		t.Fatalf("--exclude net: %+v", r)
	}
	if r := e.index(); r.Files != 4 {
		t.Fatalf("the exclude did not hold: %+v", r)
	}
	if r := e.index("--include", "net"); r.Read != 1 || r.Files != 5 {
		t.Fatalf("--include net: %+v", r)
	}
	if res := e.run("", "index", "--include", "docs"); res.code != 2 || !strings.Contains(res.err, "was not excluded") {
		t.Fatalf("--include of what was not excluded: exit %d, %q", res.code, res.err)
	}
	if res := e.run("", "index", "--exclude", "[bad"); res.code != 2 || strings.Count(strings.TrimSpace(res.err), "\n") > 1 {
		t.Fatalf("a bad glob: exit %d, %q", res.code, res.err)
	}
}

// A command of the same project run from another directory never
// replaces the repository it was indexed from.
func TestRederiveStaysWithItsRoot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	write(t, e.wd, "README.md", "# Shop\n\nShop sells hand-made kites online.\n")
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-qm", "first")
	e.ok("index", "--project", "shop")
	other := filepath.Join(filepath.Dir(e.wd), "elsewhere")
	write(t, other, "notes.md", "# Elsewhere\n\nNothing about kites.\n")
	e.wd = other
	e.ok("list", "--project", "shop")
	if ctx := e.ok("context", "--project", "shop"); !strings.Contains(ctx, "Shop sells hand-made kites online") {
		t.Fatalf("a command from another directory replaced the index:\n%s", ctx)
	}
}
