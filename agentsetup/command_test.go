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
