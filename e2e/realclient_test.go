package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/memory"
)

// The real coding-agent clients, installed by `make deps` into the
// repository's .cache/clients (or found on PATH), run against a loopback
// model server in a temporary HOME: what cairn's setup, hooks, MCP server
// and ingest do for a person's Claude Code and Codex.

// agentClient finds a client's binary, or skips the test (fails it under CI).
func agentClient(t *testing.T, name string) string {
	t.Helper()
	if p, err := filepath.Abs(filepath.Join("..", ".cache", "clients", "node_modules", ".bin", name)); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	testenv.Missing(t, name+" is not installed (make deps installs it into .cache/clients): the real-client test needs it")
	return ""
}

// outbound is a proxy that refuses every request and records where it was
// going: the clients are pointed at it, so that a call beyond loopback
// fails and is seen.
type outbound struct {
	srv  *httptest.Server
	mu   sync.Mutex
	dest []string
}

func newOutbound(t *testing.T) *outbound {
	o := &outbound{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.dest = append(o.dest, r.Method+" "+r.Host+r.URL.Path)
		o.mu.Unlock()
		http.Error(w, "cairn e2e: no traffic beyond loopback", http.StatusForbidden)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *outbound) attempts() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.dest...)
}

// clientEnv is the environment a client runs in: a temporary HOME, cairn's
// home, no telemetry, no update checks, a proxy that refuses all but loopback.
func (h *home) clientEnv(userHome string, proxy *outbound, extra ...string) []string {
	var env []string
	for _, kv := range h.env() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR",
			"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
			"OPENAI_API_KEY", "OPENAI_BASE_URL":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+userHome, "XDG_CONFIG_HOME="+filepath.Join(userHome, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(userHome, ".cache"), "XDG_STATE_HOME="+filepath.Join(userHome, ".local", "state"),
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"HTTP_PROXY="+proxy.srv.URL, "HTTPS_PROXY="+proxy.srv.URL, "ALL_PROXY="+proxy.srv.URL,
		"http_proxy="+proxy.srv.URL, "https_proxy="+proxy.srv.URL, "all_proxy="+proxy.srv.URL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	return append(env, extra...)
}

// runClient runs a client to its end within limit, in its own process
// group, which is killed whatever happens (its MCP servers and hooks too).
func runClient(t *testing.T, limit time.Duration, dir string, env []string, name string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader("")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Start()
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	err = cmd.Wait()
	syscall.Kill(-pgid, syscall.SIGKILL)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return out.String(), errb.String(), err
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// stopServer ends the store server of a cairn home, if one runs: a client
// may start it without the test's short idle time (Codex passes an MCP
// server only a few variables), and no process outlives the test.
func stopServer(t *testing.T, dir string) {
	t.Cleanup(func() {
		pid := (&home{dir: dir}).serverPID()
		if !alive(pid) {
			return
		}
		syscall.Kill(pid, syscall.SIGTERM)
		for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the cairn server of %s (pid %d) did not stop on SIGTERM", dir, pid)
				return
			}
		}
	})
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// setupAs runs cairn setup in a user's HOME and returns its output.
func (h *home) setupAs(user string, args ...string) string {
	h.t.Helper()
	c := h.cmd(append([]string{"setup"}, args...)...)
	c.Env = append(h.env(), "HOME="+user)
	out, err := c.CombinedOutput()
	if err != nil {
		h.t.Fatalf("cairn setup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// hookFailures is what cairn's hooks logged: a hook that fails says why
// there (and cairn doctor shows it), never to the agent.
func (h *home) hookFailures() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hooks.log"))
	return string(b)
}

// sessionDrafts are the drafts of the inbox (taken or not) read from the
// session log at path.
func (h *home) sessionDrafts(path string) []memory.Draft {
	h.t.Helper()
	var inbox struct {
		Drafts []memory.Draft `json:"drafts"`
	}
	h.json(&inbox, "inbox", "--all")
	var out []memory.Draft
	for _, d := range inbox.Drafts {
		if d.Source.File == path {
			out = append(out, d)
		}
	}
	return out
}

// checkSessionIn: the session's log is in cairn: the person's prompt is a
// draft from that log, and the session has its episode.
func (h *home) checkSessionIn(log, prompt string) {
	h.t.Helper()
	ds := h.sessionDrafts(log)
	found := false
	for _, d := range ds {
		found = found || strings.Contains(d.Text, prompt)
	}
	if !found {
		h.t.Errorf("no draft of the prompt %q from the session's log %s; its drafts: %+v\ninbox:\n%s", prompt, log, ds, h.ok("inbox", "--all"))
	}
	list := h.ok("list", "--status", "all")
	episode := false
	for _, l := range strings.Split(list, "\n") {
		episode = episode || strings.Contains(l, "Session ") && strings.Contains(l, prompt)
	}
	if !episode {
		h.t.Errorf("no episode of the session in the list:\n%s", list)
	}
}

const (
	memBriefed  = "Never deploy on Fridays: the on-call rota is thin"
	memNegative = "Do not call the v1 payments API: it charges twice on retry"
	userPrompt  = "retry the payments api call"
)

// clientHome is a cairn home whose project is a git repository, and the
// home directory of the user a real client runs as.
func clientHome(t *testing.T) (*home, string) {
	t.Helper()
	h := newHome(t)
	gitInit(t, h.work)
	user := filepath.Join(t.TempDir(), "user")
	os.MkdirAll(user, 0o700)
	return h, user
}

// The real Claude Code with a chat model configured for cairn: at the
// session's end its hook hands the session to a cairn in the background,
// which outlives Claude Code and its process group, reads the transcript
// with the model and forms what it wrote down.
func TestClaudeCodeSessionEndWithAChatModel(t *testing.T) {
	t.Parallel()
	claude := agentClient(t, "claude")
	h, user := clientHome(t)
	h.setupAs(user, "claude-code")
	models := newModelServer(t, "anthropic", func([]byte) turn { return turn{text: "ok"} })
	chat, answered := chatServer(t, nil)
	proxy := newOutbound(t)
	env := h.clientEnv(user, proxy, "ANTHROPIC_BASE_URL="+models.URL(), "ANTHROPIC_API_KEY=sk-ant-cairn-e2e-dummy",
		"CAIRN_LLM_URL="+chat.URL+"/v1", "CAIRN_LLM_MODEL=test-model")
	const prompt = "Always run make check before pushing. Say ok."
	if out, errs, err := runClient(t, 45*time.Second, h.work, env, claude, "-p", prompt); err != nil {
		t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", err, out, errs)
	}
	h.waitBackground(answered)
	if titles := h.durable(); len(titles) != 1 || titles[0] != "Run make check before pushing" {
		t.Errorf("formed %q, want what the chat model wrote down", titles)
	}
	if f := h.hookFailures(); f != "" {
		t.Errorf("cairn's hooks failed in the session:\n%s", f)
	}
	if a := proxy.attempts(); len(a) > 0 {
		t.Errorf("Claude Code or cairn reached beyond loopback: %v", a)
	}
}

// TestClaudeCodeRealClient: `cairn setup claude-code` in a new HOME, then
// a one-turn `claude -p` in a git project: the SessionStart briefing and
// the UserPromptSubmit warning reach the model, the model's call of
// cairn's recall (found through Claude Code's ToolSearch, as MCP tools are
// deferred) returns the remembered failure, and SessionEnd reads the
// session into cairn. `claude mcp list` shows cairn connected.
func TestClaudeCodeRealClient(t *testing.T) {
	t.Parallel()
	claude := agentClient(t, "claude")
	h, user := clientHome(t)
	h.ok("remember", memBriefed, "--layer", "invariant")
	h.ok("remember", memNegative, "--layer", "negative", "--trigger", "payments api")

	h.setupAs(user, "claude-code")

	const answer = "Understood: not the v1 payments API."
	models := newModelServer(t, "anthropic", func(body []byte) turn {
		var req anthropicRequest
		json.Unmarshal(body, &req)
		done := req.toolResults()
		switch _, searched := done["toolu_search"]; {
		case !req.hasTool("ToolSearch"): // not the session's own turn
			return turn{text: "ok"}
		case done["toolu_recall"] != "":
			return turn{text: answer}
		case searched:
			return turn{id: "toolu_recall", tool: "mcp__cairn__recall", args: `{"query":"payments api"}`}
		default:
			return turn{id: "toolu_search", tool: "ToolSearch", args: `{"query":"select:mcp__cairn__recall"}`}
		}
	})
	proxy := newOutbound(t)
	env := h.clientEnv(user, proxy, "ANTHROPIC_BASE_URL="+models.URL(), "ANTHROPIC_API_KEY=sk-ant-cairn-e2e-dummy")
	out, errs, err := runClient(t, 45*time.Second, h.work, env, claude, "-p", userPrompt, "--allowedTools", "mcp__cairn__recall")
	if err != nil || !strings.Contains(out, answer) {
		t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s\n%s", err, out, errs, models.dump())
	}

	// What the model was sent: the briefing, the warning, recall's answer.
	var last anthropicRequest
	var sent string
	for _, r := range models.requests() {
		var req anthropicRequest
		if json.Unmarshal(r.Body, &req) == nil && req.hasTool("ToolSearch") {
			if sent == "" {
				sent = string(r.Body)
			}
			last = req
		}
	}
	if !strings.Contains(sent, memBriefed) {
		t.Errorf("the SessionStart briefing (%q) did not reach the model:\n%s", memBriefed, models.dump())
	}
	if !strings.Contains(sent, "cairn: avoid — "+memNegative) {
		t.Errorf("the UserPromptSubmit warning did not reach the model:\n%s", models.dump())
	}
	if !strings.Contains(sent, "mcp__cairn__recall") { // among the deferred tools
		t.Errorf("cairn's MCP tools were not offered to the model:\n%s", models.dump())
	}
	if got := last.toolResults()["toolu_recall"]; !strings.Contains(got, memNegative) {
		t.Errorf("cairn's recall answered %q, without the remembered failure", got)
	}

	// SessionEnd read the session in (in the background, after the hook).
	h.waitBackground(nil)
	logs, _ := filepath.Glob(filepath.Join(user, ".claude", "projects", "*", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("want the session's one transcript under ~/.claude/projects, got %v", logs)
	}
	h.checkSessionIn(logs[0], userPrompt)
	if f := h.hookFailures(); f != "" {
		t.Errorf("cairn's hooks failed in the session:\n%s", f)
	}

	out, errs, err = runClient(t, 30*time.Second, h.work, env, claude, "mcp", "list")
	if err != nil || !regexp.MustCompile(`(?m)^cairn: .*cairn mcp - ✔ Connected$`).MatchString(out) {
		t.Errorf("claude mcp list: %v\nstdout: %s\nstderr: %s", err, out, errs)
	}
	// Claude Code runs SessionEnd for `claude mcp list` too, naming a
	// transcript it never wrote: no session, nothing to read, no failure.
	if f := h.hookFailures(); f != "" {
		t.Errorf("after claude mcp list, hooks.log has a failure (cairn doctor shows it to the person):\n%s", f)
	}
	if a := proxy.attempts(); len(a) > 0 {
		t.Errorf("Claude Code reached beyond loopback: %v", a)
	}

	// Claude Code rewrote ~/.claude.json meanwhile (its own keys beside
	// cairn's server): setup again changes nothing, --remove takes out
	// cairn's server and hooks and nothing of Claude Code's.
	if out := h.setupAs(user, "claude-code"); !strings.Contains(out, "already set up: nothing to change") {
		t.Errorf("cairn setup claude-code after a session: %s", out)
	}
	h.setupAs(user, "claude-code", "--remove")
	var cfg map[string]any
	b, _ := os.ReadFile(filepath.Join(user, ".claude.json"))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg["userID"] == nil || cfg["mcpServers"] != nil {
		t.Errorf("~/.claude.json after setup --remove (%v): want Claude Code's keys and no cairn server:\n%s", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(user, ".claude", "settings.json")); strings.Contains(string(b), "cairn") {
		t.Errorf("~/.claude/settings.json still names cairn after setup --remove:\n%s", b)
	}
	out, errs, err = runClient(t, 30*time.Second, h.work, env, claude, "mcp", "list")
	if err != nil || strings.Contains(out, "cairn") {
		t.Errorf("claude mcp list after setup --remove: %v\nstdout: %s\nstderr: %s", err, out, errs)
	}
}

// codexConfig is a person's Codex config before cairn's setup: the
// loopback model provider, and no update checks, analytics, plugin sync
// or metrics (the only traffic they would send beyond loopback).
func codexConfig(t *testing.T, codexHome, modelURL string) {
	t.Helper()
	os.MkdirAll(codexHome, 0o700)
	err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(`model = "cairn-loopback"
model_provider = "loopback"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[otel]
metrics_exporter = "none"

[model_providers.loopback]
name = "loopback"
base_url = "`+modelURL+`/v1"
env_key = "CAIRN_E2E_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
}

// codexRecall runs `cairn setup codex`, then a one-turn `codex exec` whose
// model calls cairn's recall, both with CAIRN_HOME set or not (the store
// then is HOME's default one); it returns what recall answered, after
// checking that cairn's tools were offered.
func codexRecall(t *testing.T, codex string, h *home, user string, cairnHome bool) string {
	t.Helper()
	codexHome := filepath.Join(user, ".codex")
	const answer = "Understood: not the v1 payments API."
	models := newModelServer(t, "responses", func(body []byte) turn {
		var req responsesRequest
		json.Unmarshal(body, &req)
		if _, done := req.toolResults()["call_recall"]; done || !req.hasTool("mcp__cairn.recall") {
			return turn{text: answer}
		}
		return turn{id: "call_recall", tool: "mcp__cairn.recall", args: `{"query":"payments api"}`}
	})
	codexConfig(t, codexHome, models.URL())
	setup := h.cmd("setup", "codex")
	setup.Env = append(h.env(), "HOME="+user, "CODEX_HOME="+codexHome)
	if !cairnHome {
		setup.Env = withoutVar(setup.Env, "CAIRN_HOME")
	}
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("cairn setup codex: %v\n%s", err, out)
	}
	proxy := newOutbound(t)
	env := h.clientEnv(user, proxy, "CODEX_HOME="+codexHome, "CAIRN_E2E_OPENAI_KEY=sk-cairn-e2e-dummy")
	if !cairnHome {
		env = withoutVar(env, "CAIRN_HOME")
	}
	out, errs, err := runClient(t, 45*time.Second, h.work, env, codex, "exec", userPrompt)
	if err != nil || !strings.Contains(out, answer) {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s\n%s", err, out, errs, models.dump())
	}
	reqs := models.requests()
	var first, last responsesRequest
	json.Unmarshal(reqs[0].Body, &first)
	json.Unmarshal(reqs[len(reqs)-1].Body, &last)
	if !first.hasTool("mcp__cairn.recall") || !first.hasTool("mcp__cairn.remember") {
		t.Errorf("cairn's MCP tools were not offered to the model:\n%s", models.dump())
	}
	if a := proxy.attempts(); len(a) > 0 {
		t.Errorf("Codex reached beyond loopback: %v", a)
	}
	got, called := last.toolResults()["call_recall"]
	if !called {
		t.Fatalf("Codex did not send recall's answer back to the model:\nstderr: %s\n%s", errs, models.dump())
	}
	return got
}

// TestCodexRealClient: a person who keeps cairn's store in its default
// place runs `cairn setup codex`, then `codex exec` in a git project: the
// model is offered cairn's MCP tools, its call of recall returns the
// remembered failure, and `cairn ingest` of the rollout Codex wrote under
// CODEX_HOME/sessions reads the session in.
func TestCodexRealClient(t *testing.T) {
	t.Parallel()
	codex := agentClient(t, "codex")
	h := newHome(t)
	user := filepath.Join(t.TempDir(), "user")
	h.dir = filepath.Join(user, ".local", "share", "cairn") // $HOME's default store
	stopServer(t, h.dir)
	gitInit(t, h.work)
	h.ok("remember", memNegative, "--layer", "negative", "--trigger", "payments api")

	got := codexRecall(t, codex, h, user, false)
	if !strings.Contains(got, memNegative) {
		t.Errorf("cairn's recall, called by Codex, answered %q, without the remembered failure", got)
	}

	rollouts, _ := filepath.Glob(filepath.Join(user, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 1 {
		t.Fatalf("want the session's one rollout under CODEX_HOME/sessions, got %v", rollouts)
	}
	h.ok("ingest", filepath.Join(user, ".codex", "sessions"))
	h.checkSessionIn(rollouts[0], userPrompt)
}

// TestCodexMCPFollowsCairnHome: a person whose store is at $CAIRN_HOME
// (set in their shell) runs `cairn setup codex`: Codex's cairn MCP server
// must use that store, although Codex hands an MCP server only a few
// variables of its own environment.
func TestCodexMCPFollowsCairnHome(t *testing.T) {
	t.Parallel()
	codex := agentClient(t, "codex")
	h := newHome(t)
	user := filepath.Join(t.TempDir(), "user")
	stopServer(t, h.dir)
	stopServer(t, filepath.Join(user, ".local", "share", "cairn"))
	gitInit(t, h.work)
	h.ok("remember", memNegative, "--layer", "negative", "--trigger", "payments api")
	got := codexRecall(t, codex, h, user, true)
	if !strings.Contains(got, memNegative) {
		t.Errorf("with CAIRN_HOME=%s, cairn's recall called by Codex answered %q, without the memory remembered there", h.dir, got)
	}
}
