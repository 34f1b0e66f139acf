package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/consolidate"
	"cairn/internal/config"
	"cairn/internal/testenv"
	"cairn/memory"
)

// cfgEnv is a user with a settings file: HOME, XDG_CONFIG_HOME and the
// cairn home are temporary, and vars adds to the environment.
type cfgEnv struct {
	t     *testing.T
	vars  map[string]string
	wd    string
	theme string // what the workbench was opened with
}

func newCfgEnv(t *testing.T) *cfgEnv {
	t.Helper()
	root := filepath.Join(t.TempDir(), "a user") // a space in every path
	wd := filepath.Join(root, "work", "proj")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	return &cfgEnv{t: t, wd: wd, vars: map[string]string{
		"HOME":            root,
		"XDG_CONFIG_HOME": filepath.Join(root, "config dir"),
		"CAIRN_HOME":      filepath.Join(root, "data"),
	}}
}

func (e *cfgEnv) path() string {
	return filepath.Join(e.vars["XDG_CONFIG_HOME"], "cairn", "config.toml")
}

func (e *cfgEnv) write(text string) {
	e.t.Helper()
	os.MkdirAll(filepath.Dir(e.path()), 0o700)
	if err := os.WriteFile(e.path(), []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cfgEnv) run(args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv:     func(k string) string { return e.vars[k] },
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return false },
		Workbench: func(_ context.Context, _ memory.Store, _ memory.Project, _ []memory.Project, theme, _ string, _ func() (*consolidate.LLM, error)) error {
			e.theme = theme
			return nil
		},
	})
	return result{out.String(), errb.String(), code}
}

func (e *cfgEnv) ok(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), r.code, r.err)
	}
	return r.out
}

func TestConfigShowsEverySettingAndWhereItCameFrom(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	e.write("theme = \"light\"\n\n[llm]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"llama3.1\"\nkey = \"sk-secret-in-file-1234\"\n")
	e.vars["CAIRN_IDLE"] = "1m"
	out := e.ok("config")
	for _, want := range []string{
		"settings file: " + e.path(),
		"theme", "light", "file (line 1)",
		"server.idle", "1m", "environment (CAIRN_IDLE)",
		"recall.budget", "800", "default",
		"llm.key", "(set, not shown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cairn config lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 16 { // the file's line and one per setting
		t.Errorf("cairn config shows %d lines, want 16:\n%s", len(lines), out)
	}
	var r configReport
	js := e.ok("config", "--json")
	if err := json.Unmarshal([]byte(js), &r); err != nil || r.Path != e.path() || len(r.Settings) != 15 {
		t.Fatalf("config --json: %v\n%s", err, js)
	}
	if r.Settings[1].Key != "theme" || r.Settings[1].Source.String() != "file" || r.Settings[1].Value != "light" {
		t.Fatalf("config --json theme: %+v", r.Settings[1])
	}
	if got := e.ok("config", "get", "server.idle"); got != "1m\n" {
		t.Fatalf("config get server.idle = %q", got)
	}
	// The key is never printed, by any of them.
	for _, out := range []string{out, js, e.ok("config", "get", "llm.key"), e.ok("config", "get", "llm.key", "--json")} {
		if strings.Contains(out, "sk-secret") {
			t.Fatalf("a key was printed: %s", out)
		}
	}
	if r := e.run("config", "get", "nosuch"); r.code != ExitUsage || !strings.Contains(r.err, "unknown setting") {
		t.Fatalf("get of an unknown key: %+v", r)
	}
}

func TestConfigSetValidatesAndLeavesTheFileOnError(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	e.write("# mine\ntheme = \"dark\"\n")
	for _, c := range []struct{ key, value, says string }{
		{"theme", "purple", "no theme \"purple\""},
		{"embed.url", "ftp://example.com", "http(s) URL"},
		{"server.idle", "ten", "duration"},
	} {
		r := e.run("config", "set", c.key, c.value)
		if r.code != ExitUsage || !strings.Contains(r.err, c.says) || strings.Count(r.err, "\n") != 1 {
			t.Errorf("set %s %s: exit %d, %q; want one line saying %q", c.key, c.value, r.code, r.err, c.says)
		}
	}
	if b, _ := os.ReadFile(e.path()); string(b) != "# mine\ntheme = \"dark\"\n" {
		t.Fatalf("a refused set changed the file:\n%s", b)
	}
	e.ok("config", "set", "server.idle", "5m")
	e.ok("config", "set", "theme", "plain")
	if got := e.ok("config", "get", "server.idle"); got != "5m\n" {
		t.Fatalf("after set: %q", got)
	}
	b, _ := os.ReadFile(e.path())
	if !strings.HasPrefix(string(b), "# mine\ntheme = \"plain\"\n") {
		t.Fatalf("set lost the comment or the order:\n%s", b)
	}
	// The workbench opens with the file's theme; the variable overrides it.
	e.ok()
	if e.theme != "plain" {
		t.Fatalf("the workbench got theme %q from the file, want plain", e.theme)
	}
	e.vars["CAIRN_THEME"] = "light"
	e.ok()
	if e.theme != "light" {
		t.Fatalf("the workbench got theme %q, want the variable's light", e.theme)
	}
	if e.ok("config", "unset", "theme"); strings.Contains(readFile(t, e.path()), "theme") {
		t.Fatalf("unset left the key:\n%s", readFile(t, e.path()))
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A broken file: every command says which line is wrong and works on with
// the defaults; cairn config edit opens it all the same, so it can be fixed.
func TestBrokenConfigFileWarnsAndEditFixesIt(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	e.write("theme = \"light\"\n[recall]\nbudget = many\n")
	r := e.run("remember", "the decode kernel uses tile size 64", "--json")
	if r.code != 0 {
		t.Fatalf("remember with a broken settings file: %+v", r)
	}
	warn := strings.TrimSpace(strings.ReplaceAll(r.err, "cairn: new project proj\n", "")) // the first write makes the project
	if strings.Count(warn, "\n") != 0 || !strings.Contains(warn, e.path()+":3:") || !strings.Contains(warn, "cairn config edit") {
		t.Fatalf("want one warning naming line 3 and the fix, got %q", r.err)
	}
	if r := e.run("config", "set", "theme", "dark"); r.code == 0 || !strings.Contains(r.err, ":3:") {
		t.Fatalf("set on a broken file must refuse and name the line: %+v", r)
	}

	// An editor given with an argument, at a path with a space, editing a
	// file at a path with a space.
	bin := filepath.Join(e.vars["HOME"], "my tools")
	os.MkdirAll(bin, 0o755)
	script := "#!/bin/sh\n[ \"$1\" = --wait ] || exit 9\nprintf 'theme = \"light\"\\n[recall]\\nbudget = 1\\n' > \"$2\"\n"
	testenv.WriteExecutable(t, filepath.Join(bin, "ed.sh"), []byte(script))
	e.vars["EDITOR"] = `"` + filepath.Join(bin, "ed.sh") + `" --wait`
	out := e.ok("config", "edit")
	if !strings.Contains(out, "is valid") {
		t.Fatalf("edit: %q", out)
	}
	r = e.run("recall", "decode kernel", "--json")
	if r.code != 0 || r.err != "" {
		t.Fatalf("after the fix, no warning: %+v", r)
	}
	if got := e.ok("config", "get", "recall.budget"); got != "1\n" {
		t.Fatalf("recall.budget = %q", got)
	}
}

// recall.budget in the file is the default budget of cairn recall.
func TestRecallBudgetFromTheFile(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	for _, body := range []string{"the decode kernel uses tile size 64", "the decode kernel was tuned on MI300", "the decode kernel spills at tile size 128"} {
		e.ok("remember", body)
	}
	count := func() int {
		var resp struct {
			Results []json.RawMessage `json:"results"`
		}
		out := e.ok("recall", "decode kernel tile", "--json")
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return len(resp.Results)
	}
	if n := count(); n != 3 {
		t.Fatalf("with the default budget: %d results, want 3", n)
	}
	e.ok("config", "set", "recall.budget", "1")
	if n := count(); n != 1 {
		t.Fatalf("with recall.budget = 1: %d results, want the first alone", n)
	}
	if out := e.ok("recall", "decode kernel tile", "--budget", "800", "--json"); strings.Count(out, `"id"`) < 3 {
		t.Fatalf("--budget overrides the file:\n%s", out)
	}
}

// The chat endpoint set in the file is the one consolidation would use.
func TestLLMFromTheFile(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	var d doctorReport
	if err := json.Unmarshal([]byte(e.ok("doctor", "--json")), &d); err != nil || d.LLM {
		t.Fatalf("doctor before: %+v %v", d, err)
	}
	e.ok("config", "set", "llm.url", "http://127.0.0.1:11434/v1")
	if err := json.Unmarshal([]byte(e.ok("doctor", "--json")), &d); err != nil || !d.LLM {
		t.Fatalf("doctor after llm.url is set: %+v %v", d, err)
	}
	// Without a model the pass says what to do, naming the setting.
	r := e.run("consolidate", "--dry-run")
	if r.code == 0 || !strings.Contains(r.err, "CAIRN_LLM_MODEL") {
		t.Fatalf("consolidate with llm.url and no model: %+v", r)
	}
}

// The help and the reference (docs/reference.md, which the README links
// to) list every setting with its variable, so that neither drifts from
// the code.
func TestConfigHelpAndReferenceListEverySetting(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range config.Specs {
		row := sp.Key
		if sp.Env != "" {
			row = sp.Key + strings.Repeat(" ", 24-len(sp.Key)) + sp.Env
		}
		if !strings.Contains(configHelp, "  "+row) {
			t.Errorf("cairn config --help lacks the row %q", row)
		}
		name := sp.Key[strings.LastIndexByte(sp.Key, '.')+1:]
		if !strings.Contains(string(readme), name) || (sp.Env != "" && !strings.Contains(string(readme), sp.Env)) {
			t.Errorf("docs/reference.md does not mention %s (%s)", sp.Key, sp.Env)
		}
	}
}

// A settings file that is a link to /dev/zero, a FIFO or a file of
// gigabytes is not read: every command runs on with the defaults and one
// warning that names the file and what to do; cairn config says the same.
func TestConfigFileThatIsNotAFile(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(path string) error{
		"a link to /dev/zero": func(path string) error { return os.Symlink("/dev/zero", path) },
		"a FIFO":              func(path string) error { return syscall.Mkfifo(path, 0o600) },
		"2 MiB": func(path string) error {
			return os.WriteFile(path, bytes.Repeat([]byte("# a comment\n"), 2<<20/12), 0o600)
		},
	} {
		e := newCfgEnv(t)
		os.MkdirAll(filepath.Dir(e.path()), 0o700)
		if err := plant(e.path()); err != nil {
			t.Fatal(err)
		}
		r := e.run("remember", "Deploys freeze on Fridays")
		if r.code != 0 || strings.Count(r.err, "warning") != 1 || !strings.Contains(r.err, e.path()) || !strings.Contains(r.err, "using the defaults") {
			t.Fatalf("%s: remember: %+v", name, r)
		}
		if r := e.run("config"); r.code != 0 || !strings.Contains(r.out, "! "+e.path()) || !strings.Contains(r.out, "server.idle") {
			t.Fatalf("%s: config: %+v", name, r)
		}
		if r := e.run("config", "set", "theme", "dark"); r.code == 0 || !strings.Contains(r.err, "nothing was written") {
			t.Fatalf("%s: config set: %+v", name, r)
		}
	}
}

// A password in a URL (or a key in its query) is never printed by cairn
// config, in text or JSON, nor by config get or set.
func TestConfigRedactsCredentialsInURLs(t *testing.T) {
	t.Parallel()
	e := newCfgEnv(t)
	e.write("[embed]\nurl = \"http://alice:hunter2@127.0.0.1:11434/v1?api_key=sk-abc123&model=x\"\n")
	e.vars["CAIRN_LLM_URL"] = "https://bob:s3cret@llm.example/v1"
	for _, args := range [][]string{{"config"}, {"config", "--json"}, {"config", "get", "embed.url"}, {"config", "get", "llm.url", "--json"}, {"doctor"}} {
		r := e.run(args...)
		all := r.out + r.err
		for _, secret := range []string{"hunter2", "sk-abc123", "s3cret", "alice", "bob"} {
			if strings.Contains(all, secret) {
				t.Fatalf("%v printed %q:\n%s", args, secret, all)
			}
		}
		if args[0] == "config" && !strings.Contains(all, "127.0.0.1:11434") && !strings.Contains(all, "llm.example") {
			t.Fatalf("%v shows no URL at all:\n%s", args, all)
		}
	}
	r := e.run("config", "set", "embed.url", "http://carol:pw123@10.0.0.1/v1")
	if r.code != 0 || strings.Contains(r.out, "pw123") || !strings.Contains(r.out, "10.0.0.1") {
		t.Fatalf("config set: %+v", r)
	}
	if !strings.Contains(readFile(t, e.path()), "carol:pw123@") {
		t.Fatal("the file lost the URL's credentials: only the display hides them")
	}
}
