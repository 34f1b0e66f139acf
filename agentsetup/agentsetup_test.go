package agentsetup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// A settings file kept as a symbolic link into the user's dotfiles stays a
// link; a file the agent rewrote meanwhile is not overwritten.
func TestWriteKeepsLinksAndNeverLosesTheAgentsWrite(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	real := filepath.Join(home, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte(`{"model":"opus"}`), 0o600)
	link := filepath.Join(home, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, note, err := Target(link, home)
	if err != nil || got != real || !strings.Contains(note, "dotfiles") {
		t.Fatalf("Target = %q, %q, %v", got, note, err)
	}
	now := time.Now()
	if _, err := Write(link, []byte(`{"model":"opus"}`), []byte(`{"model":"opus","x":1}`), 0o600, now); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != `{"model":"opus","x":1}` {
		t.Fatalf("the target holds %s", b)
	}
	// The agent wrote in between: nothing is written, the caller redoes it.
	if _, err := Write(link, []byte(`{"model":"opus"}`), []byte(`{"y":2}`), 0o600, now); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(real); string(b) != `{"model":"opus","x":1}` {
		t.Fatalf("a stale edit overwrote the file: %s", b)
	}
	// A file that appeared meanwhile is not overwritten either.
	if _, err := Write(filepath.Join(home, "dotfiles", "settings.json"), nil, []byte(`{}`), 0o600, now); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v", err)
	}
}

// A link out of the home (another application's file) or to nowhere is
// refused, by Target and by Write, and nothing is written through it.
func TestLinksOutOfTheHomeAreRefused(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	other := filepath.Join(elsewhere, "other-app.json")
	os.WriteFile(other, []byte(`{"theirs":true}`), 0o600)
	link := filepath.Join(home, "settings.json")
	os.Symlink(other, link)
	if _, _, err := Target(link, home); err == nil || !strings.Contains(err.Error(), "outside your home") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Target = %v", err)
	}
	if _, err := Write(link, []byte(`{"theirs":true}`), []byte(`{}`), 0o600, time.Now()); err == nil {
		t.Fatal("Write wrote through a link out of the home")
	}
	if b, _ := os.ReadFile(other); string(b) != `{"theirs":true}` {
		t.Fatalf("the other application's file changed: %s", b)
	}
	dangling := filepath.Join(home, "dangling.json")
	os.Symlink(filepath.Join(home, "nowhere.json"), dangling)
	if _, _, err := Target(dangling, home); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "nowhere.json")); err == nil {
		t.Fatal("a file was created at a dangling link's target")
	}
}

// Two backups in one second are two files: neither overwrites the other,
// and Backups lists them newest first.
func TestEveryBackupIsKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	now := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	var names []string
	for _, content := range []string{"first\n", "second\n", "third\n"} {
		name, err := Backup(path, []byte(content), 0o600, now)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for i, content := range []string{"first\n", "second\n", "third\n"} {
		if b, _ := os.ReadFile(names[i]); string(b) != content {
			t.Fatalf("backup %s holds %q, want %q", names[i], b, content)
		}
	}
	if got := Backups(path); len(got) != 3 || got[0] != names[2] || got[2] != names[0] {
		t.Fatalf("Backups = %v, made %v", got, names)
	}
	// A link planted at the next backup's name is not written through.
	target := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(target, []byte("victim"), 0o600)
	os.Symlink(target, names[2]+"x")
	if name, err := Backup(path, []byte("fourth\n"), 0o600, now); err != nil || name == names[2]+"x" {
		t.Fatalf("Backup = %q, %v", name, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "victim" {
		t.Fatal("a backup was written through a link")
	}
}

// Codex configs whose text defeats a line-by-line edit: a multi-line
// string (or array) holding a line that starts with "[", cairn's table
// with an env sub-table, comments. Setup writes valid TOML that changes
// nothing else; remove takes every table of cairn's out and gives back the
// text as it was.
func TestCodexEditsTOMLStructurally(t *testing.T) {
	t.Parallel()
	const bin = "/usr/local/bin/cairn"
	configs := map[string]string{
		"multi-line string":  "model = \"gpt-5\"\ninstructions = \"\"\"\nBe brief.\n[mcp_servers.cairn]\ncommand = \"evil\"\n\"\"\"\n",
		"literal multi-line": "notes = '''\n[not.a.table]\n'''\n\n[mcp_servers.github]\ncommand = \"gh\"\n",
		"array over lines":   "matrix = [\n  [1, 2],\n  [3, 4], # a comment [x]\n]\n",
		"string at the end":  "[profiles.x]\nprompt = \"\"\"\n[mcp_servers.cairn]\n\"\"\"",
		"empty":              "",
	}
	for name, mine := range configs {
		out, changed, err := CodexMCP([]byte(mine), bin, false, nil, nil)
		if err != nil || !changed {
			t.Fatalf("%s: setup: %v %v", name, changed, err)
		}
		var parsed map[string]any
		if _, err := toml.Decode(string(out), &parsed); err != nil {
			t.Fatalf("%s: setup wrote invalid TOML: %v\n%s", name, err, out)
		}
		srv := parsed["mcp_servers"].(map[string]any)["cairn"].(map[string]any)
		if srv["command"] != bin {
			t.Fatalf("%s: cairn's server: %v\n%s", name, srv, out)
		}
		if !strings.HasPrefix(string(out), strings.TrimSuffix(mine, "\n")) {
			t.Fatalf("%s: the user's text changed:\n%s", name, out)
		}
		back, changed, err := CodexMCP(out, bin, true, nil, nil)
		if err != nil || !changed {
			t.Fatalf("%s: remove: %v %v", name, changed, err)
		}
		if want := mine; string(back) != want && (strings.HasSuffix(mine, "\n") || mine == "" || string(back) != mine+"\n") {
			t.Fatalf("%s: after remove\n%q\nwant\n%q", name, back, mine)
		}
	}

	// cairn's table with an env sub-table, between other tables: a moved
	// binary is updated in place (env and the person's keys kept), and
	// remove takes the sub-table too.
	mine := "# codex\n[mcp_servers.cairn]\ncommand = \"/old/cairn\" # moved since\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.cairn.env]\nCAIRN_HOME = \"/data/cairn\"\n\n# the github server\n[mcp_servers.github]\ncommand = \"gh\"\n"
	out, changed, err := CodexMCP([]byte(mine), bin, false, nil, nil)
	if err != nil || !changed {
		t.Fatalf("update: %v %v", changed, err)
	}
	var parsed struct {
		MCP map[string]struct {
			Command string
			Timeout int               `toml:"startup_timeout_sec"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(out), &parsed); err != nil || parsed.MCP["cairn"].Command != bin || parsed.MCP["cairn"].Timeout != 20 || parsed.MCP["cairn"].Env["CAIRN_HOME"] != "/data/cairn" {
		t.Fatalf("update: %v %+v\n%s", err, parsed, out)
	}
	back, _, err := CodexMCP(out, bin, true, nil, nil)
	if err != nil || strings.Contains(string(back), "cairn") || !strings.Contains(string(back), "# the github server\n[mcp_servers.github]") {
		t.Fatalf("remove left some of cairn's or took the person's:\n%s (%v)", back, err)
	}

	// Set in an inline table: refused, with the lines to write by hand.
	if _, _, err := CodexMCP([]byte("[mcp_servers]\ncairn = { command = \"x\", args = [\"mcp\"] }\n"), bin, false, nil, nil); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Fatalf("inline table: %v", err)
	}
}
