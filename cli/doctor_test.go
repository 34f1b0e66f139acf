package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// settingsRunning are Claude Code settings whose cairn hooks run program.
func settingsRunning(program string) string {
	return `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + program + ` hook claude-code", "timeout": 10}]}]}}`
}

// cairn doctor finds cairn's commands in the agents' settings that no
// longer run — the path an upgrade took away, a link that leads nowhere
// now, a file that is not executable, a name not on $PATH — and says each
// in one line with the setup to run again, exiting non-zero. Commands that
// run are not reported.
func TestDoctorFindsCommandsThatNoLongerRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.Mkdir(filepath.Join(e.wd, ".git"), 0o755)
	home, bin := t.TempDir(), t.TempDir()
	good := filepath.Join(bin, "cairn")
	writeFile(t, good, "#!/bin/sh\n", 0o755)
	vars := map[string]string{"HOME": home, "PATH": bin, "CODEX_HOME": filepath.Join(home, "codex")}
	settings := filepath.Join(home, ".claude", "settings.json")
	claudeJSON := filepath.Join(home, ".claude.json")
	codex := filepath.Join(home, "codex", "config.toml")

	// All of them run: by path, by a link, by name on $PATH.
	link := filepath.Join(home, "bin", "cairn")
	os.MkdirAll(filepath.Dir(link), 0o700)
	os.Symlink(good, link)
	writeFile(t, settings, settingsRunning(link), 0o600)
	writeFile(t, claudeJSON, `{"mcpServers": {"cairn": {"type": "stdio", "command": "cairn", "args": ["mcp"]}}}`, 0o600)
	writeFile(t, codex, "[mcp_servers.cairn]\ncommand = \""+good+"\"\nargs = [\"mcp\"]\n", 0o600)
	if r := e.runEnv(vars, "doctor"); r.code != 0 || strings.Contains(r.out, "again") {
		t.Fatalf("doctor with commands that run: %+v", r)
	}

	gone := filepath.Join(home, "Cellar", "cairn", "1.0", "bin", "cairn")
	cases := []struct {
		name, file, content, want, fix string
		prepare                        func()
	}{
		{"a path an upgrade removed", settings, settingsRunning(gone), gone + " (in " + settings + ") no longer exists", "cairn setup claude-code", nil},
		{"a link that leads nowhere now", settings, settingsRunning(link), "is a link to a file that no longer exists", "cairn setup claude-code", func() {
			os.Remove(link)
			os.Symlink(gone, link)
		}},
		{"a file not executable", codex, "[mcp_servers.cairn]\ncommand = \"" + filepath.Join(bin, "notexec") + "\"\nargs = [\"mcp\"]\n", "is not executable", "cairn setup codex", func() {
			writeFile(t, filepath.Join(bin, "notexec"), "x", 0o644)
		}},
		{"a name not on $PATH", claudeJSON, `{"mcpServers": {"cairn": {"command": "cairn-old", "args": ["mcp"]}}}`, "cairn-old (in " + claudeJSON + ") is not on your $PATH", "cairn setup claude-code", nil},
		{"a project's settings", filepath.Join(e.wd, ".mcp.json"), `{"mcpServers": {"cairn": {"command": "` + gone + `", "args": ["mcp"]}}}`, "no longer exists", "cairn setup claude-code --project", nil},
	}
	for _, c := range cases {
		old, _ := os.ReadFile(c.file)
		if c.prepare != nil {
			c.prepare()
		}
		writeFile(t, c.file, c.content, 0o600)
		r := e.runEnv(vars, "doctor")
		line := ""
		for _, l := range strings.Split(r.out, "\n") {
			if strings.Contains(l, c.want) {
				line = l
			}
		}
		if r.code == 0 || line == "" || !strings.HasSuffix(line, "run '"+c.fix+"' again") {
			t.Errorf("%s: exit %d, no line %q ending with the fix %q:\n%s", c.name, r.code, c.want, c.fix, r.out)
		}
		if errLine := strings.TrimSpace(r.err); strings.Count(errLine, "\n") != 0 || !strings.Contains(errLine, c.want) {
			t.Errorf("%s: stderr %q", c.name, r.err)
		}
		var rep doctorReport
		if r := e.runEnv(vars, "doctor", "--json"); r.code == 0 || json.Unmarshal([]byte(r.out), &rep) != nil || len(rep.ClaudeCode.Broken)+len(rep.Codex.Broken) != 1 {
			t.Errorf("%s: doctor --json: exit %d %+v", c.name, r.code, rep)
		}
		// Put right again for the next case.
		if old == nil {
			os.Remove(c.file)
		} else {
			writeFile(t, c.file, string(old), 0o600)
		}
		os.Remove(link)
		os.Symlink(good, link)
	}
	if r := e.runEnv(vars, "doctor"); r.code != 0 {
		t.Fatalf("doctor once all runs again: %+v", r)
	}
}

// Claude Code's own health checks (claude mcp list, claude doctor) start
// the hooks and end a session that wrote no transcript: nothing is logged
// and doctor shows no failure. A session end whose transcript is there but
// is no session log is still a failure.
func TestHealthCheckSessionIsNoFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	writeFile(t, empty, "", 0o600)
	for _, path := range []string{"", filepath.Join(t.TempDir(), "never-written.jsonl"), empty} {
		e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionEnd", "session_id": "check", "cwd": e.wd, "transcript_path": path, "reason": "other"}))
		if log := e.hookLog(); log != "" {
			t.Fatalf("a health check's session end (transcript %q) was logged: %q", path, log)
		}
	}
	if out := e.ok("doctor"); !strings.Contains(out, "hooks     no failures logged") {
		t.Fatalf("doctor after health checks:\n%s", out)
	}
	notSession := filepath.Join(t.TempDir(), "notes.jsonl")
	writeFile(t, notSession, "{\"hello\": 1}\n", 0o600)
	e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": e.wd, "transcript_path": notSession, "reason": "other"}))
	if log := e.hookLog(); !strings.Contains(log, "SessionEnd: transcript") || !strings.Contains(log, "names no session") {
		t.Fatalf("a transcript that is no session log: hooks.log %q", log)
	}
}
