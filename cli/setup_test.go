package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"
)

// setup runs `cairn setup` with a home of its own.
func (e *env) setup(home string, args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(Env{
		Args: append([]string{"setup"}, args...), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			switch k {
			case "CAIRN_HOME":
				return e.home
			case "HOME":
				return home
			case "CODEX_HOME":
				return filepath.Join(home, "codex-home")
			}
			return ""
		},
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return false },
	})
	return result{out.String(), errb.String(), code}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// cairnHooks counts cairn's hook commands per event in a settings file.
func cairnHooks(t *testing.T, path string) map[string]int {
	out := map[string]int{}
	hooks, _ := readJSON(t, path)["hooks"].(map[string]any)
	for ev, gs := range hooks {
		for _, g := range gs.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				if c := h.(map[string]any)["command"].(string); strings.HasSuffix(c, "cairn hook claude-code") {
					out[ev]++
				}
			}
		}
	}
	return out
}

func TestSetupClaudeCodeMergesAndIsIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	mine := `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/lint-prompt.sh"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/old/place/cairn hook claude-code"}]}]
  },
  "model": "opus"
}
`
	os.WriteFile(settings, []byte(mine), 0o600)
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"numStartups": 12, "mcpServers": {"github": {"command": "gh-mcp"}}}`), 0o600)

	r := e.setup(home, "claude-code", "--dry-run")
	if r.code != 0 || !strings.Contains(r.out, "+++ "+settings) || !strings.Contains(r.out, "dry run: nothing written") {
		t.Fatalf("dry run: %+v", r)
	}
	if b, _ := os.ReadFile(settings); string(b) != mine {
		t.Fatal("a dry run wrote")
	}

	r = e.setup(home, "claude-code")
	if r.code != 0 || !strings.Contains(r.out, "backup: "+settings+".cairn-backup-") {
		t.Fatalf("setup: %+v", r)
	}
	got := readJSON(t, settings)
	if got["model"] != "opus" || got["permissions"] == nil {
		t.Fatalf("other settings lost: %v", got)
	}
	if n := cairnHooks(t, settings); len(n) != 4 || n["SessionStart"] != 1 || n["UserPromptSubmit"] != 1 || n["PreCompact"] != 1 || n["SessionEnd"] != 1 {
		t.Fatalf("cairn's hooks: %v", n)
	}
	b, _ := os.ReadFile(settings)
	if strings.Contains(string(b), "/old/place/cairn") || !strings.Contains(string(b), "~/bin/lint-prompt.sh") || !strings.Contains(string(b), `"matcher": "startup"`) {
		t.Fatalf("the moved binary is not updated in place, or another hook was lost:\n%s", b)
	}
	if strings.Index(string(b), `"permissions"`) > strings.Index(string(b), `"model"`) {
		t.Fatalf("the user's key order changed:\n%s", b)
	}
	claude := readJSON(t, filepath.Join(home, ".claude.json"))
	servers := claude["mcpServers"].(map[string]any)
	if claude["numStartups"] != float64(12) || servers["github"] == nil || servers["cairn"].(map[string]any)["args"].([]any)[0] != "mcp" {
		t.Fatalf(".claude.json: %v", claude)
	}
	if info, _ := os.Stat(filepath.Join(home, ".claude.json")); info.Mode().Perm() != 0o600 {
		t.Fatalf(".claude.json mode %v", info.Mode())
	}

	// The second time: nothing to change, nothing written, no new backup.
	before, _ := os.ReadFile(settings)
	backups, _ := filepath.Glob(settings + ".cairn-backup-*")
	r = e.setup(home, "claude-code")
	after, _ := os.ReadFile(settings)
	again, _ := filepath.Glob(settings + ".cairn-backup-*")
	if r.code != 0 || !strings.Contains(r.out, "already set up: nothing to change") || !bytes.Equal(before, after) || len(again) != len(backups) {
		t.Fatalf("second run: %+v", r)
	}

	// --remove takes out what is cairn's and nothing else.
	if r = e.setup(home, "claude-code", "--remove"); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if n := cairnHooks(t, settings); len(n) != 0 {
		t.Fatalf("hooks left after --remove: %v", n)
	}
	b, _ = os.ReadFile(settings)
	if !strings.Contains(string(b), "~/bin/lint-prompt.sh") || readJSON(t, settings)["model"] != "opus" {
		t.Fatalf("--remove took more than cairn's:\n%s", b)
	}
	if _, ok := readJSON(t, filepath.Join(home, ".claude.json"))["mcpServers"].(map[string]any)["cairn"]; ok {
		t.Fatal("the MCP server is still registered")
	}
	if r = e.setup(home, "claude-code", "--remove"); !strings.Contains(r.out, "nothing to remove") {
		t.Fatalf("second remove: %+v", r)
	}
}

func TestSetupRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte("{\n  \"model\": \"opus\",\n  oops\n}\n"), 0o600)
	r := e.setup(home, "claude-code")
	if r.code == 0 || !strings.Contains(r.err, settings) || !strings.Contains(r.err, "line 3") || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
		t.Fatalf("broken JSON: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Fatal("another file was written although setup was refused")
	}
	os.WriteFile(settings, []byte(`{"hooks": "all of them"}`), 0o600)
	if r := e.setup(home, "claude-code"); r.code == 0 || !strings.Contains(r.err, "expected") {
		t.Fatalf("hooks of a wrong shape: %+v", r)
	}
	if r := e.setup(home, "claude-code", "--project"); r.code == 0 || !strings.Contains(r.err, "not inside a git repository") {
		t.Fatalf("--project outside a repository: %+v", r)
	}
	if r := e.setup(home, "vim"); r.code == 0 || !strings.Contains(r.err, "unknown agent") {
		t.Fatalf("unknown agent: %+v", r)
	}
}

func TestSetupProjectScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.Mkdir(filepath.Join(e.wd, ".git"), 0o755)
	home := t.TempDir()
	if r := e.setup(home, "claude-code", "--project"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if n := cairnHooks(t, filepath.Join(e.wd, ".claude", "settings.json")); len(n) != 4 {
		t.Fatalf("project hooks: %v", n)
	}
	if _, ok := readJSON(t, filepath.Join(e.wd, ".mcp.json"))["mcpServers"].(map[string]any)["cairn"]; !ok {
		t.Fatal(".mcp.json lacks cairn")
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); err == nil {
		t.Fatal("--project wrote the user's settings")
	}
}

func TestSetupCodexKeepsTheUsersTOML(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "codex-home", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	mine := "# my settings\nmodel = \"gpt-5-codex\"  # the default\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n"
	os.WriteFile(cfg, []byte(mine), 0o600)
	if r := e.setup(home, "codex"); r.code != 0 || !strings.Contains(r.out, "cairn ingest ~/.codex/sessions") {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(cfg)
	if !strings.HasPrefix(string(b), mine) {
		t.Fatalf("the user's text changed:\n%s", b)
	}
	var parsed struct {
		MCP map[string]struct {
			Command string
			Args    []string
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(b), &parsed); err != nil || parsed.MCP["cairn"].Args[0] != "mcp" || parsed.MCP["github"].Command != "gh-mcp" {
		t.Fatalf("config after setup: %v %+v\n%s", err, parsed, b)
	}
	if r := e.setup(home, "codex"); !strings.Contains(r.out, "nothing to change") {
		t.Fatalf("second run: %+v", r)
	}
	if r := e.setup(home, "codex", "--remove"); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if b, _ := os.ReadFile(cfg); string(b) != mine {
		t.Fatalf("after --remove:\n%q\nwant\n%q", b, mine)
	}
	os.WriteFile(cfg, []byte("model = \n"), 0o600)
	if r := e.setup(home, "codex"); r.code == 0 || !strings.Contains(r.err, "line 1") {
		t.Fatalf("broken TOML: %+v", r)
	}
}

// Settings files cairn must not take over: a link into another
// application's file, a file its owner made read-only, another user's
// file. Each is refused in one line with what would allow it, and left as
// it was; a link into the user's own dotfiles is followed, with a note.
func TestSetupLeavesLockedAndForeignFilesAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home, elsewhere := t.TempDir(), t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	oneLine := func(r result) bool { return strings.Count(strings.TrimSpace(r.err), "\n") == 0 }

	other := filepath.Join(elsewhere, "other-app.json")
	os.WriteFile(other, []byte(`{"theirs": 1}`), 0o600)
	os.Symlink(other, settings)
	if r := e.setup(home, "claude-code"); r.code == 0 || !strings.Contains(r.err, "outside your home") || !oneLine(r) {
		t.Fatalf("a link out of the home: %+v", r)
	}
	if b, _ := os.ReadFile(other); string(b) != `{"theirs": 1}` {
		t.Fatalf("the other application's file was written: %s", b)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Fatal("another file was written although setup was refused")
	}

	// A dotfiles repository in the home: followed, said, the link kept.
	os.Remove(settings)
	dot := filepath.Join(home, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(dot), 0o700)
	os.WriteFile(dot, []byte(`{"model": "opus"}`), 0o600)
	os.Symlink(dot, settings)
	r := e.setup(home, "claude-code")
	if r.code != 0 || !strings.Contains(r.out, "note: "+settings+" is a link into your dotfiles") {
		t.Fatalf("dotfiles: %+v", r)
	}
	if fi, _ := os.Lstat(settings); fi.Mode()&os.ModeSymlink == 0 || len(cairnHooks(t, dot)) != 4 {
		t.Fatalf("the link was replaced, or its target not set up")
	}
	os.Remove(settings)

	// Read-only: refused with the chmod that allows it, even as root.
	mine := `{"model": "opus"}`
	os.WriteFile(settings, []byte(mine), 0o444)
	if r := e.setup(home, "claude-code"); r.code == 0 || !strings.Contains(r.err, "chmod u+w "+settings) || !oneLine(r) {
		t.Fatalf("read-only: %+v", r)
	}
	if b, _ := os.ReadFile(settings); string(b) != mine {
		t.Fatalf("a read-only file was written: %s", b)
	}
	os.Chmod(settings, 0o600)

	// Another user's: refused with the chown that allows it.
	if os.Getuid() != 0 {
		return // only root can give a file away
	}
	if err := os.Chown(settings, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if r := e.setup(home, "claude-code"); r.code == 0 || !strings.Contains(r.err, "belongs to uid 54321") || !strings.Contains(r.err, "chown ") || !oneLine(r) {
		t.Fatalf("another user's file: %+v", r)
	}
	fi, _ := os.Stat(settings)
	if b, _ := os.ReadFile(settings); string(b) != mine || fi.Sys().(*syscall.Stat_t).Uid != 54321 {
		t.Fatalf("another user's file was taken over: %s", b)
	}
}

// Setups and removals in quick succession (within a second) keep every
// backup, and a removal gives back the file byte for byte — here a
// compact JSON that setup's edit re-indents.
func TestSetupKeepsEveryBackupAndRemoveRestores(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	mine := `{"model":"opus","permissions":{"allow":["Bash(ls)"]}}`
	os.WriteFile(settings, []byte(mine), 0o600)
	for i := 0; i < 3; i++ {
		if r := e.setup(home, "claude-code"); r.code != 0 {
			t.Fatalf("setup %d: %+v", i, r)
		}
		if r := e.setup(home, "claude-code", "--remove"); r.code != 0 {
			t.Fatalf("remove %d: %+v", i, r)
		}
		if b, _ := os.ReadFile(settings); string(b) != mine {
			t.Fatalf("after remove %d:\n%s\nwant\n%s", i, b, mine)
		}
	}
	backups, _ := filepath.Glob(settings + ".cairn-backup-*")
	if len(backups) != 6 {
		t.Fatalf("%d backups kept of 6 writes: %v", len(backups), backups)
	}
	originals := 0
	for _, b := range backups {
		if got, _ := os.ReadFile(b); string(got) == mine {
			originals++
		}
	}
	if originals != 3 {
		t.Fatalf("%d backups hold the original, want 3", originals)
	}

	// Changed by hand since setup: remove edits cairn out, keeps the change.
	e.setup(home, "claude-code")
	var v map[string]any
	json.Unmarshal([]byte(readFile(t, settings)), &v)
	v["theme"] = "dark"
	b, _ := json.Marshal(v)
	os.WriteFile(settings, b, 0o600)
	if r := e.setup(home, "claude-code", "--remove"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if got := readJSON(t, settings); got["theme"] != "dark" || got["hooks"] != nil {
		t.Fatalf("after a hand edit and remove: %v", got)
	}
}

// Codex: setup then remove gives the config back byte for byte, also
// one with a multi-line string holding a "[" line, and with cairn's env
// table a person added meanwhile.
func TestSetupCodexRemoveRestores(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "codex-home", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	mine := "model = \"gpt-5\"\ninstructions = \"\"\"\n[mcp_servers.cairn]\nnot a table\n\"\"\"\n[mcp_servers.gh]\ncommand = \"gh\""
	os.WriteFile(cfg, []byte(mine), 0o600)
	if r := e.setup(home, "codex"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var parsed map[string]any
	if _, err := toml.DecodeFile(cfg, &parsed); err != nil {
		t.Fatalf("setup wrote invalid TOML: %v", err)
	}
	if r := e.setup(home, "codex", "--remove"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if got := readFile(t, cfg); got != mine {
		t.Fatalf("after remove:\n%q\nwant\n%q", got, mine)
	}
	// The person gave cairn's server a table since: remove takes it.
	e.setup(home, "codex")
	os.WriteFile(cfg, []byte(readFile(t, cfg)+"\n[mcp_servers.cairn.tools.recall]\napproval = \"never\"\n"), 0o600)
	if r := e.setup(home, "codex", "--remove"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if got := readFile(t, cfg); strings.Contains(got, "mcp_servers.cairn.tools") || strings.Contains(got, "CAIRN_HOME") || !strings.Contains(got, "[mcp_servers.gh]") {
		t.Fatalf("after remove:\n%s", got)
	}
}

// A settings file setup created is gone again after --remove: the person
// had none.
func TestSetupRemoveDeletesWhatItCreated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "codex-home", "config.toml")
	if r := e.setup(home, "codex"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := e.setup(home, "codex", "--remove"); r.code != 0 || !strings.Contains(r.out, "removed "+cfg+", which setup had created") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("the file setup created is still there: %v", err)
	}
	if backups, _ := filepath.Glob(cfg + ".cairn-backup-*"); len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if r := e.setup(home, "codex", "--remove"); !strings.Contains(r.out, "nothing to remove") {
		t.Fatalf("%+v", r)
	}
}

// hookCommands are the commands of cairn's hooks per event, with each
// hook's other keys.
func hookCommands(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	hooks, _ := readJSON(t, path)["hooks"].(map[string]any)
	for ev, gs := range hooks {
		for _, g := range gs.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				if c := h.(map[string]any)["command"].(string); strings.Contains(c, "hook claude-code") {
					out[ev] = h.(map[string]any)
				}
			}
		}
	}
	return out
}

// What a person added to cairn's entries — a --project on the hook and on
// the MCP server, VAR=value before the program, a longer timeout, env —
// survives setup run again after the binary moved, and setup --remove then
// setup; setup changes only the program. --remove still gives back the
// file as it was before setup, byte for byte.
func TestSetupKeepsWhatThePersonAddedToCairnsEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	settings, claudeJSON := filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json")
	mine := "{\n  \"model\": \"opus\"\n}\n"
	writeFile(t, settings, mine, 0o600)
	writeFile(t, claudeJSON, `{"numStartups": 3}`, 0o600)
	if r := e.setup(home, "claude-code"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	program := strings.TrimSuffix(hookCommands(t, settings)["SessionStart"]["command"].(string), " hook claude-code")

	// The person's additions, and the binary at a place it no longer is.
	sv := readJSON(t, settings)
	for ev, gs := range sv["hooks"].(map[string]any) {
		h := gs.([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
		h["command"] = "/old/place/cairn hook claude-code"
		if ev == "SessionStart" {
			h["command"], h["timeout"] = "CAIRN_DEBUG=1 /old/place/cairn hook claude-code --project payments", 30
		}
	}
	b, _ := json.MarshalIndent(sv, "", "  ")
	writeFile(t, settings, string(b), 0o600)
	writeFile(t, claudeJSON, `{"numStartups": 3, "mcpServers": {"cairn": {"type": "stdio", "command": "/old/place/cairn",
	  "args": ["mcp", "--project", "payments"], "env": {"CAIRN_LLM_URL": "http://127.0.0.1:8080"}, "timeout": 30000}}}`, 0o600)

	check := func(when string) {
		t.Helper()
		hooks := hookCommands(t, settings)
		first := hooks["SessionStart"]
		if first["command"] != "CAIRN_DEBUG=1 "+program+" hook claude-code --project payments" || first["timeout"] != float64(30) {
			t.Fatalf("%s: the person's hook: %v", when, first)
		}
		if len(hooks) != 4 || hooks["SessionEnd"]["command"] != program+" hook claude-code" || hooks["SessionEnd"]["timeout"] != float64(60) {
			t.Fatalf("%s: cairn's hooks: %v", when, hooks)
		}
		s := readJSON(t, claudeJSON)["mcpServers"].(map[string]any)["cairn"].(map[string]any)
		args, _ := json.Marshal(s["args"])
		env, _ := s["env"].(map[string]any)
		if s["command"] != program || string(args) != `["mcp","--project","payments"]` || env["CAIRN_LLM_URL"] != "http://127.0.0.1:8080" || s["timeout"] != float64(30000) {
			t.Fatalf("%s: the MCP server: %v", when, s)
		}
	}
	if r := e.setup(home, "claude-code"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	check("setup again after the binary moved")
	if r := e.setup(home, "claude-code"); !strings.Contains(r.out, "nothing to change") {
		t.Fatalf("a third run: %+v", r)
	}
	e.removeThenSetup(home, "claude-code", map[string]string{settings: mine, claudeJSON: `{"numStartups": 3}`}, check)
}

// removeThenSetup runs setup --remove, which must give back each file as
// it was before setup (was), then setup, after which check must pass,
// then --remove again.
func (e *env) removeThenSetup(home, agent string, was map[string]string, check func(string)) {
	t := e.t
	t.Helper()
	for _, when := range []string{"--remove", "setup after --remove", "the second --remove"} {
		args := []string{agent}
		if when != "setup after --remove" {
			args = append(args, "--remove")
		}
		if r := e.setup(home, args...); r.code != 0 {
			t.Fatalf("%s: %+v", when, r)
		}
		if when == "setup after --remove" {
			check(when)
			continue
		}
		for f, want := range was {
			if got := readFile(t, f); got != want {
				t.Fatalf("%s: %s is\n%q\nwant\n%q", when, f, got, want)
			}
		}
	}
}

// The same for Codex: a --project in args, startup_timeout_sec and an env
// table on cairn's server stay through setup again and --remove then setup.
func TestSetupCodexKeepsWhatThePersonAdded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "codex-home", "config.toml")
	mine := "model = \"gpt-5\"\n\n[mcp_servers.gh]\ncommand = \"gh\"\n"
	writeFile(t, cfg, mine, 0o600)
	if r := e.setup(home, "codex"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var first struct {
		MCP map[string]struct{ Command string } `toml:"mcp_servers"`
	}
	toml.DecodeFile(cfg, &first)
	program := first.MCP["cairn"].Command
	text := strings.Replace(readFile(t, cfg), `args = ["mcp"]`, "args = [\"mcp\", \"--project\", \"payments\"]  # this repo's memory\nstartup_timeout_sec = 30", 1)
	text = strings.Replace(text, `command = "`+program+`"`, `command = "/old/place/cairn"`, 1)
	// cairn named its store (CAIRN_HOME is set here) in an env table of
	// its own: the person adds a variable of theirs to it.
	if !strings.Contains(text, "[mcp_servers.cairn.env]\nCAIRN_HOME = ") {
		t.Fatalf("setup with $CAIRN_HOME set did not name the store in the server's env:\n%s", text)
	}
	text = strings.Replace(text, "[mcp_servers.cairn.env]\n", "[mcp_servers.cairn.env]\nCAIRN_LLM_URL = \"http://127.0.0.1:8080\"\n", 1)
	writeFile(t, cfg, text, 0o600)

	check := func(when string) {
		t.Helper()
		var got struct {
			MCP map[string]struct {
				Command string
				Args    []string
				Timeout int `toml:"startup_timeout_sec"`
				Env     map[string]string
			} `toml:"mcp_servers"`
			Model string
		}
		if _, err := toml.DecodeFile(cfg, &got); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		c := got.MCP["cairn"]
		if c.Command != program || strings.Join(c.Args, " ") != "mcp --project payments" || c.Timeout != 30 || c.Env["CAIRN_LLM_URL"] != "http://127.0.0.1:8080" || c.Env["CAIRN_HOME"] != e.home || got.MCP["gh"].Command != "gh" || got.Model != "gpt-5" {
			t.Fatalf("%s: %+v\n%s", when, got, readFile(t, cfg))
		}
	}
	if r := e.setup(home, "codex"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	check("setup again after the binary moved")
	if !strings.Contains(readFile(t, cfg), "# this repo's memory") {
		t.Fatalf("the person's comment was lost:\n%s", readFile(t, cfg))
	}
	if r := e.setup(home, "codex"); !strings.Contains(r.out, "nothing to change") {
		t.Fatalf("a third run: %+v", r)
	}
	e.removeThenSetup(home, "codex", map[string]string{cfg: mine}, check)
}

// An upgrade like Homebrew's: /PREFIX/bin/cairn is a link into a versioned
// folder, which the upgrade removes. Setup run by the real binary writes
// the name cairn when that cairn on $PATH is itself, else the link it was
// run by, never the versioned file: after the upgrade every hook still
// runs (here the SessionEnd of Claude Code's health check, which is not
// logged as a failure) and doctor finds nothing wrong. Settings that name
// the removed versioned file (as setup wrote them before) are what doctor
// reports, and setup again puts right.
func TestSetupSurvivesAnUpgrade(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cellar := func(v string) string { return filepath.Join(root, "Cellar", "cairn", v, "bin", "cairn") }
	build := exec.Command("go", "build", "-o", cellar("1.0"), "cairn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, out)
	}
	binDir, home, work := filepath.Join(root, "bin"), filepath.Join(root, "home"), filepath.Join(root, "work")
	link := filepath.Join(binDir, "cairn")
	for _, d := range []string{binDir, home, work} {
		os.MkdirAll(d, 0o755)
	}
	os.Symlink(cellar("1.0"), link)
	withCairn, without := binDir+":/usr/bin:/bin", "/usr/bin:/bin"
	vars := func(path string) map[string]string {
		return map[string]string{"HOME": home, "PATH": path, "CAIRN_HOME": filepath.Join(root, "cairn-home"), "CODEX_HOME": filepath.Join(home, ".codex"), "NO_COLOR": "1"}
	}
	environ := func(path string) []string {
		var out []string
		for k, v := range vars(path) {
			out = append(out, k+"="+v)
		}
		return out
	}
	run := func(path, stdin string, name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = work, environ(path), strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	settings, claudeJSON, codex := filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json"), filepath.Join(home, ".codex", "config.toml")
	commands := func() []string {
		var out []string
		for _, h := range hookCommands(t, settings) {
			out = append(out, h["command"].(string))
		}
		out = append(out, readJSON(t, claudeJSON)["mcpServers"].(map[string]any)["cairn"].(map[string]any)["command"].(string))
		var c struct {
			MCP map[string]struct{ Command string } `toml:"mcp_servers"`
		}
		toml.DecodeFile(codex, &c)
		return append(out, c.MCP["cairn"].Command)
	}

	// cairn on $PATH is this binary: the name.
	for _, agent := range []string{"claude-code", "codex"} {
		if out, code := run(withCairn, "", link, "setup", agent); code != 0 {
			t.Fatalf("setup %s: %s", agent, out)
		}
	}
	for _, c := range commands() {
		if c != "cairn" && c != "cairn hook claude-code" {
			t.Fatalf("with cairn on $PATH setup wrote %q; all: %q", c, commands())
		}
	}
	// So does setup git, for the merge driver git runs.
	repo := filepath.Join(root, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	gitSetup := exec.Command(link, "setup", "git")
	gitSetup.Dir, gitSetup.Env = repo, environ(withCairn)
	if out, err := gitSetup.CombinedOutput(); err != nil {
		t.Fatalf("setup git: %v\n%s", err, out)
	}
	if out, _ := exec.Command("git", "-C", repo, "config", "--get", "merge.cairn.driver").Output(); string(out) != "'cairn' merge-file %O %A %B %P\n" {
		t.Errorf("with cairn on $PATH setup git wrote the driver %q", out)
	}
	// Not on $PATH: the link it was run by, not the versioned file.
	for _, agent := range []string{"claude-code", "codex"} {
		if out, code := run(without, "", link, "setup", agent); code != 0 {
			t.Fatalf("setup %s: %s", agent, out)
		}
	}
	for _, c := range commands() {
		if c != link && c != link+" hook claude-code" {
			t.Fatalf("run as %s setup wrote %q; all: %q", link, c, commands())
		}
	}

	// The upgrade: a new versioned folder, the link moved, the old gone.
	os.MkdirAll(filepath.Dir(cellar("1.1")), 0o755)
	if err := os.Rename(cellar("1.0"), cellar("1.1")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "Cellar", "cairn", "1.0"))
	os.Remove(link)
	os.Symlink(cellar("1.1"), link)

	// Claude Code's health check runs the hooks as written: they run.
	check := `{"hook_event_name":"SessionEnd","session_id":"check","cwd":"` + work + `","transcript_path":"` + filepath.Join(home, "never-written.jsonl") + `","reason":"other"}`
	for ev, h := range hookCommands(t, settings) {
		if out, code := run(without, check, "sh", "-c", h["command"].(string)); code != 0 || out != "" {
			t.Fatalf("%s's hook after the upgrade: exit %d %q", ev, code, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "cairn-home", "hooks.log")); err == nil {
		t.Fatalf("a health check was logged as a failure: %s", b)
	}
	e := &env{t: t, home: filepath.Join(root, "cairn-home"), wd: work}
	if r := e.runEnv(vars(without), "doctor"); r.code != 0 || strings.Contains(r.out, "again") {
		t.Fatalf("doctor after the upgrade: %+v", r)
	}

	// Settings naming the versioned file the upgrade removed.
	old := strings.ReplaceAll(readFile(t, settings), link, cellar("1.0"))
	writeFile(t, settings, old, 0o600)
	r := e.runEnv(vars(withCairn), "doctor")
	if r.code == 0 || !strings.Contains(r.out, "cairn's command "+cellar("1.0")+" (in "+settings+") no longer exists (an upgrade moved it?): run 'cairn setup claude-code' again") {
		t.Fatalf("doctor with hooks naming a removed binary: %+v", r)
	}
	if out, code := run(withCairn, "", link, "setup", "claude-code"); code != 0 {
		t.Fatalf("setup again: %s", out)
	}
	if r := e.runEnv(vars(withCairn), "doctor"); r.code != 0 || strings.Contains(readFile(t, settings), "Cellar") {
		t.Fatalf("doctor after setup again: %+v", r)
	}
}
