package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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

func (e *env) hookLog() string {
	b, _ := os.ReadFile(filepath.Join(e.home, "hooks.log"))
	return string(b)
}

func TestHookSessionStartAndPrompts(t *testing.T) {
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
	if !strings.Contains(out, "cairn: avoid — Do not call the v1 payments API") || !strings.Contains(out, neg.ID) || strings.Count(out, "\n") != 1 {
		t.Fatalf("a prompt near a negative's trigger:\n%q", out)
	}
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
	e := newEnv(t)
	cfg := filepath.Join(e.wd, "deploy.yaml")
	os.WriteFile(cfg, []byte("tool: argocd\n"), 0o644)
	m := e.rec("remember", "Deploys go through ArgoCD, configured in deploy.yaml", "--bind", "file:deploy.yaml")
	os.WriteFile(cfg, []byte("tool: spinnaker\n"), 0o644)
	e.ok("verify") // the wake check notices the file moved
	out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": e.wd, "prompt": "change the deploy timeout in deploy.yaml"}))
	if !strings.Contains(out, "cairn: verify first — Deploys go through ArgoCD") || !strings.Contains(out, m.ID) {
		t.Fatalf("prompt about a stale memory:\n%q", out)
	}
}

// PreCompact and SessionEnd read the session in; the second adds only
// what is new and consolidates the session's drafts.
func TestHookIngestsTheSession(t *testing.T) {
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
