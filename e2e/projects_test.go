package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/memory"
	"cairn/project"
	"cairn/store"
)

// in runs cairn in dir and returns stdout, stderr and the exit code.
func (h *home) in(dir, stdin string, args ...string) (string, string, int) {
	h.t.Helper()
	saved := h.work
	h.work = dir
	defer func() { h.work = saved }()
	return h.run(stdin, args...)
}

// okIn runs cairn in dir, which must succeed, and returns its stdout.
func (h *home) okIn(dir string, args ...string) string {
	h.t.Helper()
	out, errs, code := h.in(dir, "", args...)
	if code != 0 {
		h.t.Fatalf("cairn %s in %s: exit %d: %s", strings.Join(args, " "), dir, code, errs)
	}
	return out
}

// mcpIn runs cairn mcp in dir, sends it the requests and returns what it
// answered up to the line that holds last; then its input closes and it
// must exit cleanly.
func (h *home) mcpIn(dir, requests, last string) string {
	h.t.Helper()
	c := h.cmd("mcp")
	c.Dir = dir
	in, err := c.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		h.t.Fatal(err)
	}
	io.WriteString(in, requests)
	var got strings.Builder
	r := bufio.NewReader(out)
	for !strings.Contains(got.String(), last) {
		line, err := r.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			in.Close()
			c.Wait()
			h.t.Fatalf("cairn mcp ended before answering (%v):\n%s", err, got.String())
		}
	}
	in.Close()
	if err := c.Wait(); err != nil {
		h.t.Fatalf("cairn mcp exited with %v when its input closed", err)
	}
	return got.String()
}

// wants runs cairn in dir, which must succeed and print want; what says
// what the run is for.
func (h *home) wants(dir, want, what string, args ...string) {
	h.t.Helper()
	if out := h.okIn(dir, args...); !strings.Contains(out, want) {
		h.t.Fatalf("%s: cairn %s prints no %q:\n%s", what, strings.Join(args, " "), want, out)
	}
}

// newRepoHome is a home and a repository named name with one commit, in
// a directory root of its own.
func newRepoHome(t *testing.T, name string) (h *home, root, repo string) {
	t.Helper()
	h, root = newHome(t), t.TempDir()
	repo = filepath.Join(root, name)
	testenv.GitRepo(t, repo, "main")
	return h, root, repo
}

// projectRow is a line of cairn projects --json.
type projectRow struct {
	ID, Name string
	Total    int
	Seen     []struct {
		Path string
		Gone bool
	}
}

func (h *home) projects(dir string) []projectRow {
	h.t.Helper()
	saved := h.work
	h.work = dir
	defer func() { h.work = saved }()
	var rows []projectRow
	h.json(&rows, "projects")
	return rows
}

// A worktree, a clone and a moved checkout of a repository share its
// memory — recall, context, the session-start hook and the MCP server
// alike — and an unrelated repository keeps its own.
func TestTheRepositoryIsTheProject(t *testing.T) {
	t.Parallel()
	h, root, repo := newRepoHome(t, "shop")
	h.okIn(repo, "remember", "The shop API listens on port 8443")
	h.okIn(repo, "remember", "Never deploy the shop on Fridays", "--layer", "invariant")

	wt := filepath.Join(root, "shop-task-7")
	testenv.Git(t, repo, "worktree", "add", "-q", "-b", "task-7", wt)
	sub := filepath.Join(wt, "src")
	os.Mkdir(sub, 0o755)
	h.wants(sub, "8443", "recall in a worktree", "recall", "which port does the API listen on")
	h.wants(wt, "Never deploy the shop on Fridays", "context in a worktree", "context")
	out, errs, code := h.in(wt, hookEvent("SessionStart", wt, ""), "hook", "claude-code")
	if code != 0 || errs != "" || !strings.Contains(out, "Never deploy the shop on Fridays") {
		t.Fatalf("the SessionStart hook in a worktree: exit %d, %q, %q", code, out, errs)
	}
	mcp := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"API port"}}}
`
	if out := h.mcpIn(wt, mcp, `"id":2`); !strings.Contains(out, "8443") {
		t.Fatalf("recall over MCP in a worktree:\n%s", out)
	}
	// What an agent remembers in the worktree is the repository's.
	h.okIn(wt, "remember", "The shop's checkout test needs STRIPE_MODE=test")
	h.wants(repo, "STRIPE_MODE=test", "recall in the main checkout of what the worktree remembered", "recall", "checkout test stripe mode")

	clone := filepath.Join(root, "shop-clone")
	testenv.Git(t, root, "clone", "-q", repo, clone)
	h.wants(clone, "8443", "recall in a clone", "recall", "API port")
	moved := filepath.Join(root, "moved", "shop")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(clone, moved); err != nil {
		t.Fatal(err)
	}
	h.wants(moved, "8443", "recall in a moved checkout", "recall", "API port")

	other := filepath.Join(root, "blog")
	testenv.GitRepo(t, other, "post")
	if out := h.okIn(other, "recall", "API port"); strings.Contains(out, "8443") {
		t.Fatalf("an unrelated repository recalls the shop's memory:\n%s", out)
	}
	h.okIn(other, "remember", "The blog API listens on port 4000")
	if out := h.okIn(repo, "recall", "API port"); strings.Contains(out, "4000") {
		t.Fatalf("the shop recalls the blog's memory:\n%s", out)
	}

	// Named from elsewhere, the project is used but not seen there.
	h.okIn(h.work, "remember", "The shop's invoices are PDF", "--project", "shop")

	// cairn projects: one shop project, seen from each checkout.
	rows := h.projects(wt)
	var shop *projectRow
	for i, r := range rows {
		if strings.HasPrefix(r.Name, "shop") {
			if shop != nil {
				t.Fatalf("two shop projects: %+v", rows)
			}
			shop = &rows[i]
		}
	}
	if shop == nil || shop.Total != 4 {
		t.Fatalf("projects: %+v", rows)
	}
	var seen []string
	for _, s := range shop.Seen {
		seen = append(seen, s.Path)
		if s.Gone != (s.Path == clone) {
			t.Errorf("%s: gone %v", s.Path, s.Gone)
		}
	}
	for _, want := range []string{repo, wt, clone, moved} {
		if !slices.Contains(seen, want) {
			t.Errorf("cairn projects does not say the shop was seen from %s: %v", want, seen)
		}
	}
	if len(seen) != 4 {
		t.Errorf("the shop was seen from %v, want only its four checkouts", seen)
	}
	if text := h.okIn(wt, "projects"); !strings.Contains(text, wt) || !strings.Contains(text, "(gone)") {
		t.Errorf("cairn projects:\n%s", text)
	}
}

// A store written before projects were repositories kept a checkout's
// project under its path. A worktree of that checkout, used first, finds
// it — and then a clone does too: nothing is orphaned, memories keep
// their project.
func TestAPathProjectFromBeforeIsFound(t *testing.T) {
	t.Parallel()
	h, root, repo := newRepoHome(t, "ledger")
	// Built through the store API as the old code did: the id of the
	// checkout's path, its name and root, no keys.
	db, err := store.Open(filepath.Join(h.dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	oldID := project.KeyID(project.Key(project.KindPath, repo))
	if _, err := db.EnsureProject(t.Context(), memory.Project{ID: oldID, Name: "ledger", Root: repo}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*memory.Memory{
		{Project: oldID, Layer: memory.LayerState, Title: "Ledger entries are rounded to the cent"},
		{Project: oldID, Layer: memory.LayerInvariant, Title: "Never edit a posted ledger entry"},
	} {
		if _, err := db.Remember(t.Context(), m, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	wt := filepath.Join(root, "ledger-fix")
	testenv.Git(t, repo, "worktree", "add", "-q", "-b", "fix", wt)
	// An agent's session in the worktree is briefed with the project's.
	out, errs, code := h.in(wt, hookEvent("SessionStart", wt, ""), "hook", "claude-code")
	if code != 0 || errs != "" || !strings.Contains(out, "Never edit a posted ledger entry") {
		t.Fatalf("the SessionStart hook in a worktree: exit %d, %q, %q", code, out, errs)
	}
	// Its session's end ingests the transcript into the same project (a
	// hook ingests only its own project's sessions).
	ev, _ := json.Marshal(map[string]string{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": wt, "transcript_path": worktreeSession(t, wt)})
	if out, errs, code := h.in(wt, string(ev), "hook", "claude-code"); code != 0 || errs != "" {
		t.Fatalf("the SessionEnd hook in a worktree: exit %d, %q, %q", code, out, errs)
	}
	h.waitBackground(nil) // the hook hands the session's end to a cairn in the background
	if inbox := h.okIn(repo, "inbox", "--all"); !strings.Contains(inbox, "make lint") {
		t.Fatalf("the session's drafts are not in the project's inbox:\n%s", inbox)
	}
	h.wants(wt, "rounded to the cent", "recall in a worktree of a checkout known by its path", "recall", "rounding of ledger entries")
	clone := filepath.Join(root, "ledger-2")
	testenv.Git(t, root, "clone", "-q", repo, clone)
	h.wants(clone, "rounded to the cent", "recall in a clone, once the project learnt its repository", "recall", "rounding of ledger entries")
	rows := h.projects(repo)
	n := 0
	for _, r := range rows {
		if strings.HasPrefix(r.Name, "ledger") {
			n++
			if r.ID != oldID || r.Total < 2 {
				t.Fatalf("the ledger project: %+v, want id %s with its memory", r, oldID)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d ledger projects: %+v", n, rows)
	}
}

// --project on a write makes the project it names; a read of an unknown
// one is still refused.
func TestProjectFlagCreatesOnWrite(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"newrem", []string{"remember", "The cache is warmed at start"}, ""},
		{"newcap", []string{"capture", "-"}, "raw notes about the cache"},
		{"newing", []string{"ingest", "../ingest/testdata/claude-code/session.jsonl"}, ""},
	} {
		abs, _ := filepath.Abs(".")
		out, errs, code := h.in(abs, c.stdin, append(c.args, "--project", c.name)...)
		if code != 0 || !strings.Contains(errs, "cairn: new project "+c.name) {
			t.Fatalf("cairn %s --project %s: exit %d\n%s\n%s", c.args[0], c.name, code, out, errs)
		}
	}
	out, errs, code := h.run("", "recall", "cache", "--project", "nosuch")
	if code == 0 || out != "" || !strings.Contains(errs, `no project "nosuch"`) || !strings.Contains(errs, "newrem") {
		t.Fatalf("a read of an unknown project: exit %d, %q, %q", code, out, errs)
	}
}

// A Claude Code session run in a worktree, ingested from anywhere, lands
// in the repository's project.
func TestIngestOfAWorktreeSession(t *testing.T) {
	t.Parallel()
	h, root, repo := newRepoHome(t, "ratelimit")
	h.okIn(repo, "remember", "The limiter allows 100 requests a second")
	wt := filepath.Join(root, "rl-flaky")
	testenv.Git(t, repo, "worktree", "add", "-q", "-b", "flaky", wt)

	out := h.ok("ingest", worktreeSession(t, wt)) // from a directory outside any repository
	if !strings.Contains(out, "→ project ratelimit:") {
		t.Fatalf("ingest:\n%s", out)
	}
	if inbox := h.okIn(repo, "inbox"); !strings.Contains(inbox, "Always run make lint before committing.") {
		t.Fatalf("the main checkout's inbox lacks the worktree session's drafts:\n%s", inbox)
	}
	for _, r := range h.projects(repo) {
		if strings.HasPrefix(r.Name, "rl-flaky") || r.Name != "ratelimit" && strings.HasPrefix(r.Name, "ratelimit") {
			t.Fatalf("the session made a project of its own: %+v", r)
		}
	}
}

// worktreeSession is the Claude Code transcript of ingest/testdata as if
// the session had run in dir, written to a file of its own.
func worktreeSession(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("../ingest/testdata/claude-code/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(`"cwd": "/home/ana/src/ratelimit"`), []byte(`"cwd": "`+dir+`"`))
	if !bytes.Contains(b, []byte(dir)) {
		t.Fatal("the transcript names no working directory to replace")
	}
	log := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(log, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return log
}
