package agentsetup

import (
	"strings"
	"testing"
)

// A hook command of cairn's is known by its program and "hook
// claude-code", however the person wrote it, and setup changes only the
// program: quotes, VAR=value before it and arguments after it stay.
func TestClaudeHooksChangeOnlyTheProgram(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`/old/cairn hook claude-code`:                                            `/new/cairn hook claude-code`,
		`'/Users/me/My Tools/cairn' hook claude-code --project x`:                `/new/cairn hook claude-code --project x`,
		`CAIRN_HOME="$HOME/.cairn work" /old/cairn hook claude-code 2>/dev/null`: `CAIRN_HOME="$HOME/.cairn work" /new/cairn hook claude-code 2>/dev/null`,
		`"/opt/x/cairn"  hook  claude-code`:                                      `/new/cairn  hook  claude-code`,
	}
	for in, want := range cases {
		settings := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":` + quoteJSON(in) + `,"timeout":10}]}]}}`
		out, changed, err := ClaudeHooks([]byte(settings), "/new/cairn", false, nil)
		if err != nil || !changed {
			t.Fatalf("%q: %v %v", in, changed, err)
		}
		if !strings.Contains(string(out), quoteJSON(want)) || strings.Count(string(out), "claude-code") != 4 {
			t.Errorf("%q became:\n%s\nwant the command %q", in, out, want)
		}
	}
	// Not cairn's: another program, cairn without its hook, a quote that
	// does not close. Each is left, and cairn's own is added beside it.
	for _, other := range []string{`/usr/bin/cairnish hook claude-code`, `cairn mcp`, `'/old/cairn hook claude-code`, `echo cairn hook claude-code`} {
		settings := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":` + quoteJSON(other) + `}]}]}}`
		out, _, err := ClaudeHooks([]byte(settings), "/new/cairn", false, nil)
		if err != nil || !strings.Contains(string(out), quoteJSON(other)) || strings.Count(string(out), "/new/cairn hook claude-code") != 4 {
			t.Errorf("%q: %v\n%s", other, err, out)
		}
	}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// A variable cairn sets in its Codex server's env (CAIRN_HOME) goes where
// the person keeps that env — an env table, an inline table, dotted keys —
// or into an env table of its own; the rest of the file stays, and a
// second run changes nothing.
func TestCodexEnvGoesWhereThePersonKeepsIt(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CAIRN_HOME": "/data/cairn"}
	cases := map[string]struct{ in, want string }{
		"none yet": {"[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\n\n# github\n[mcp_servers.gh]\ncommand = \"gh\"\n",
			"[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\n\n[mcp_servers.cairn.env]\nCAIRN_HOME = \"/data/cairn\"\n\n# github\n[mcp_servers.gh]\ncommand = \"gh\"\n"},
		"a table":   {"[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\n[mcp_servers.cairn.env]\nA = \"b\"\nCAIRN_HOME = \"/old\"\n", "[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\n[mcp_servers.cairn.env]\nA = \"b\"\nCAIRN_HOME = \"/data/cairn\"\n"},
		"inline":    {"[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\nenv = { A = \"b\" }\n", "[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\nenv = { A = \"b\", CAIRN_HOME = \"/data/cairn\" }\n"},
		"dotted":    {"[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\nenv.A = \"b\"\n", "[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\nenv.A = \"b\"\nenv.CAIRN_HOME = \"/data/cairn\"\n"},
		"new table": {"model = \"o3\"", "model = \"o3\"\n\n[mcp_servers.cairn]\ncommand = \"/x/cairn\"\nargs = [\"mcp\"]\n\n[mcp_servers.cairn.env]\nCAIRN_HOME = \"/data/cairn\"\n"},
	}
	for name, c := range cases {
		out, changed, err := CodexMCP([]byte(c.in), "/x/cairn", false, nil, env)
		if err != nil || !changed || string(out) != c.want {
			t.Errorf("%s: %v %v\n%s\nwant\n%s", name, changed, err, out, c.want)
			continue
		}
		if _, changed, err := CodexMCP(out, "/x/cairn", false, nil, env); changed || err != nil {
			t.Errorf("%s: a second run changed it (%v)", name, err)
		}
	}
}
