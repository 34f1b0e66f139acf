package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/memory"
)

func hookJSON(t *testing.T, fields map[string]string) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hook runs `cairn hook claude-code` as Claude Code does: the event on
// standard input. A hook always exits 0 and never writes to stderr.
func (e *env) hook(stdin string) string {
	e.t.Helper()
	r := e.run(stdin, "hook", "claude-code")
	if r.code != 0 || r.err != "" {
		e.t.Fatalf("hook: exit %d, stderr %q", r.code, r.err)
	}
	return r.out
}

// hookWith runs the hook with flags, as a settings file may set them.
func (e *env) hookWith(stdin string, flags ...string) string {
	e.t.Helper()
	r := e.run(stdin, append([]string{"hook", "claude-code"}, flags...)...)
	if r.code != 0 || r.err != "" {
		e.t.Fatalf("hook: exit %d, stderr %q", r.code, r.err)
	}
	return r.out
}

// shownIDs are the ids a hook's output names (after "id " or "cairn show
// ", or in a verify-first line's parentheses).
var shownIDs = regexp.MustCompile(`(?:id |cairn show |\()([0-9A-Z]{8,26})[,:;\])]`)

// showsID checks that the hook's output names the memory by an id that
// `cairn show` takes back.
func (e *env) showsID(out, id string) {
	e.t.Helper()
	for _, m := range shownIDs.FindAllStringSubmatch(out, -1) {
		if strings.HasPrefix(id, m[1]) {
			var r memory.Record
			if err := json.Unmarshal([]byte(e.ok("show", m[1], "--json")), &r); err != nil || r.ID != id {
				e.t.Fatalf("cairn show %s: %+v, %v", m[1], r, err)
			}
			return
		}
	}
	e.t.Fatalf("the output names no id of %s:\n%s", id, out)
}

func (e *env) hookLog() string {
	b, _ := os.ReadFile(filepath.Join(e.home, "hooks.log"))
	return string(b)
}

func TestHookSessionStartAndPrompts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Nothing remembered yet: the briefing is silent.
	if out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": e.wd, "source": "startup"})); out != "" {
		t.Fatalf("briefing of an empty project: %q", out)
	}
	e.ok("remember", "Never commit .env files; CI checks for them.", "--layer", "invariant")
	neg := e.rec("remember", "Do not call the v1 payments API: it charges twice on retry", "--layer", "negative", "--trigger", "payments api", "--trigger", "v1 charge")

	out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": e.wd, "source": "startup"}))
	if !strings.Contains(out, "cairn remembers this about myproj") || !strings.Contains(out, "Never commit .env files") {
		t.Fatalf("briefing:\n%s", out)
	}

	out = e.hook(hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "wire the retry into the Payments API client"}))
	if !strings.HasPrefix(out, `cairn: avoid — Do not call the v1 payments API: it charges twice on retry [trigger "payments api", id `) || strings.Count(out, "\n") != 1 {
		t.Fatalf("a prompt near a negative's trigger:\n%q", out)
	}
	e.showsID(out, neg.ID)
	if out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "rename the logger package"})); out != "" {
		t.Fatalf("an unrelated prompt printed %q", out)
	}

	// Another project's negative never reaches this one's agent.
	other := filepath.Join(filepath.Dir(e.wd), "other")
	os.MkdirAll(other, 0o755)
	if out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s2", "cwd": other, "prompt": "use the payments api"})); out != "" {
		t.Fatalf("another project's negative was printed: %q", out)
	}
	if log := e.hookLog(); log != "" {
		t.Fatalf("hooks that worked logged: %s", log)
	}
}

// A stale memory the prompt is about comes with the prompt.
func TestHookVerifyFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := filepath.Join(e.wd, "deploy.yaml")
	os.WriteFile(cfg, []byte("tool: argocd\n"), 0o644)
	m := e.rec("remember", "Deploys go through ArgoCD, configured in deploy.yaml", "--bind", "file:deploy.yaml")
	os.WriteFile(cfg, []byte("tool: spinnaker\n"), 0o644)
	e.ok("verify") // the wake check notices the file moved
	out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "change the deploy timeout in deploy.yaml"}))
	if !strings.Contains(out, "cairn: verify first — Deploys go through ArgoCD") {
		t.Fatalf("prompt about a stale memory:\n%q", out)
	}
	e.showsID(out, m.ID)
}

// PreCompact and SessionEnd read the session in; the second adds only
// what is new and consolidates the session's drafts.
func TestHookIngestsTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s1","cwd":"` + e.wd + `","gitBranch":"main","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"We deploy with ArgoCD."}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted."}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:01:00Z","message":{"role":"user","content":"Always run make check before pushing."}}`,
	}
	os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	ev := map[string]string{"hook_event_name": "PreCompact", "session_id": "s1", "cwd": e.wd, "transcript_path": tr, "trigger": "auto"}
	if out := e.hook(hookJSON(t, ev)); out != "" {
		t.Fatalf("PreCompact printed %q", out)
	}
	if log := e.hookLog(); log != "" {
		t.Fatalf("PreCompact failed: %s", log)
	}
	inbox := e.ok("inbox", "--all")
	if !strings.Contains(inbox, "We deploy with ArgoCD.") || strings.Contains(inbox, "make check") {
		t.Fatalf("after PreCompact the first turn is in, the open one waits:\n%s", inbox)
	}
	ev["hook_event_name"] = "SessionEnd"
	e.hook(hookJSON(t, ev))
	if log := e.hookLog(); log != "" {
		t.Fatalf("SessionEnd failed: %s", log)
	}
	list := e.ok("list", "--status", "all")
	if !strings.Contains(list, "Always run make check before pushing.") || !strings.Contains(list, "Session 2026-11-24") {
		t.Fatalf("after SessionEnd the session is consolidated and has its episode:\n%s", list)
	}
	// A transcript of another project is refused: an agent acts only in
	// its own project.
	other := filepath.Join(filepath.Dir(e.wd), "other")
	os.MkdirAll(other, 0o755)
	ev["cwd"] = other
	e.hook(hookJSON(t, ev))
	if log := e.hookLog(); !strings.Contains(log, "SessionEnd: transcript") || !strings.Contains(log, "belongs to project myproj") {
		t.Fatalf("hooks.log after a foreign transcript: %q", log)
	}
}

// Whatever the agent sends, the hook exits 0, prints nothing and says why
// in hooks.log.
func TestHookNeverBreaksTheAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`{"hook_event_name":"SessionEnd","cwd":"` + e.wd + `","transcript_path":"` + fifo + `"}`: "is not a regular file",
		"":                                   "no event on standard input",
		"{not json":                          "is not JSON",
		`{"hook_event_name":"SessionStart"}`: "no absolute working directory",
		`{"hook_event_name":"SessionStart","cwd":"/nonexistent/dir"}`:                                    "is not a directory",
		`{"hook_event_name":"PreCompact","cwd":"` + e.wd + `","transcript_path":"/nonexistent/t.jsonl"}`: "does not exist",
		`{"hook_event_name":"PreCompact","cwd":"` + e.wd + `"}`:                                          "names no transcript",
	}
	for in, want := range cases {
		os.Remove(filepath.Join(e.home, "hooks.log"))
		if out := e.hook(in); out != "" {
			t.Errorf("%q printed %q", in, out)
		}
		if log := e.hookLog(); !strings.Contains(log, want) || strings.Count(log, "\n") != 1 {
			t.Errorf("%q: hooks.log %q, want %q", in, log, want)
		}
	}
	// Events the hook does not handle do nothing.
	os.Remove(filepath.Join(e.home, "hooks.log"))
	if out := e.hook(`{"hook_event_name":"Notification","cwd":"` + e.wd + `"}`); out != "" || e.hookLog() != "" {
		t.Errorf("another event: %q %q", out, e.hookLog())
	}
	if r := e.run("", "hook", "vim"); r.code == 0 {
		t.Errorf("an unknown agent was accepted")
	}
}

// doctor shows what went wrong in the hooks and whether the agents are set up.
func TestDoctorShowsHookFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := e.ok("doctor")
	if !strings.Contains(out, "store     ok") || !strings.Contains(out, "no failures logged") {
		t.Fatalf("doctor of a fresh home:\n%s", out)
	}
	e.hook("{broken")
	out = e.ok("doctor")
	if !strings.Contains(out, "hooks     last failures") || !strings.Contains(out, "just now · hook: the event on standard input is not JSON") {
		t.Fatalf("doctor after a failed hook:\n%s", out)
	}
	var r doctorReport
	if err := json.Unmarshal([]byte(e.ok("doctor", "--json")), &r); err != nil || len(r.HookFailures) != 1 || r.Store == nil {
		t.Fatalf("doctor --json: %+v, %v", r, err)
	}
}

// A triggered negative reaches the agent whole: the part past its title
// (how to do it safely, and why) is what prevents the mistake.
func TestHookPromptTellsTheWholeNegative(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := "Use make migrate to apply schema changes to the orders database, and always run it with STAGE=staging first. " +
		"Run straight against production on 2026-10-02, it locked the orders table for 40 minutes: the migration rewrote the table. " +
		"Check the staging output for table rewrites before the production run."
	neg := e.rec("remember", text, "--layer", "negative", "--trigger", "make migrate")
	if strings.Contains(neg.Title, "STAGE=staging") {
		t.Fatalf("the test needs a title that leaves the safe way out: %q", neg.Title)
	}
	prompt := hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "add the refunds column and run make migrate"})
	out := e.hook(prompt)
	for _, want := range []string{"with STAGE=staging first.", "it locked the orders table for 40 minutes", "Check the staging output for table rewrites before the production run."} {
		if !strings.Contains(out, want) {
			t.Errorf("the prompt hook lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "Use make migrate") != 1 || strings.Contains(out, "[… cut: cairn show") {
		t.Errorf("the negative is told once, whole:\n%s", out)
	}
	if len(out) > 4*600 {
		t.Errorf("%d bytes is over the default budget of 600 tokens", len(out))
	}
	e.showsID(out, neg.ID)
}

// Within the budget, whole negatives first; the next is cut where a
// sentence ends and says where the rest is; the ones after are named.
// Never more than three, the most specific trigger first.
func TestHookPromptBudgetAndCrowding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := func(what string) string {
		return "Do not " + what + " during business hours. The replica fell behind by an hour the last time it was done, and reports went stale. " +
			"Schedule it for the night window and tell the data team first."
	}
	var general []string // ids of those with the least specific trigger
	general = append(general, e.rec("remember", long("reindex the search cluster"), "--layer", "negative", "--trigger", "reindex").ID)
	specific := e.rec("remember", long("reindex the orders index with the bulk flag"), "--layer", "negative", "--trigger", "reindex orders bulk")
	middle := e.rec("remember", long("reindex the orders index"), "--layer", "negative", "--trigger", "reindex orders")
	general = append(general, e.rec("remember", long("reindex from a laptop"), "--layer", "negative", "--trigger", "reindex").ID)
	general = append(general, e.rec("remember", "Reindexing from cron needs the lock file.", "--layer", "negative", "--trigger", "reindex").ID)
	prompt := hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "reindex orders bulk now, we need the new mapping"})

	out := e.hook(prompt)
	if n := strings.Count(out, "cairn: avoid"); n != 3 {
		t.Fatalf("%d negatives for one prompt, want 3:\n%s", n, out)
	}
	firstLine, _, _ := strings.Cut(out, "\n")
	first, second := strings.Index(out, "with the bulk flag"), strings.Index(out, "Do not reindex the orders index during")
	if first < 0 || second < first || !strings.HasPrefix(out, "cairn: avoid — Do not reindex the orders index with the bulk flag") || !strings.Contains(firstLine, `[trigger "reindex orders bulk", id `) {
		t.Fatalf("the most specific trigger first, then the next:\n%s", out)
	}
	e.showsID(out, specific.ID)
	e.showsID(out, middle.ID)

	// A budget that holds one whole and part of the next.
	budget := 130
	out = e.hookWith(prompt, "--prompt-budget", "130")
	if len(out) > 4*budget {
		t.Fatalf("%d bytes is over a budget of %d tokens:\n%s", len(out), budget, out)
	}
	blocks := strings.Split(strings.TrimSuffix(out, "\n"), "\ncairn: ")
	if len(blocks) != 3 || !strings.Contains(blocks[0], "tell the data team first.") {
		t.Fatalf("want one whole negative, one cut, and a line naming the rest:\n%s", out)
	}
	cut, rest, ok := strings.Cut(blocks[1], " [… cut: cairn show ")
	if !ok {
		t.Fatalf("the second is not marked as cut:\n%s", out)
	}
	said := cut[strings.Index(cut, "— ")+len("— "):]
	if !strings.HasPrefix(long("reindex the orders index"), said) || !strings.HasSuffix(said, ".") {
		t.Fatalf("the cut is not at a sentence's end of the memory's text: %q", said)
	}
	sid := rest[:strings.IndexByte(rest, ';')]
	if got := e.ok("show", sid); !strings.Contains(got, "tell the data team first") {
		t.Fatalf("cairn show %s does not give the rest:\n%s", sid, got)
	}
	if !strings.HasPrefix(blocks[2], "also triggered, left out for the budget: ") {
		t.Fatalf("the third is not named:\n%s", out)
	}
	named := strings.TrimSuffix(strings.TrimPrefix(blocks[2], "also triggered, left out for the budget: "), " (cairn show ID)")
	i := slices.IndexFunc(general, func(id string) bool { return strings.HasPrefix(id, named) })
	if i < 0 {
		t.Fatalf("the third named is not one of the least specific: %q", blocks[2])
	}
	e.showsID("cairn show "+named+"]", general[i])

	// A budget too small for a sentence cuts after a whole word.
	out = e.hookWith(prompt, "--prompt-budget", "50")
	if len(out) > 4*50 || !strings.Contains(out, "[… cut: cairn show") || !strings.Contains(out, "\ncairn: also triggered") {
		t.Fatalf("a tiny budget:\n%s", out)
	}
	if said := out[strings.Index(out, "— ")+len("— ") : strings.Index(out, " [… cut")]; said != "" && !strings.HasPrefix(long("reindex the orders index with the bulk flag")+" ", said+" ") {
		t.Fatalf("a word was cut: %q", said)
	}
}
