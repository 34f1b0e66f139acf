package agentsetup

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// commandLine is a hook's shell command line cut around its program:
// what comes before it (VAR=value assignments a person put there), the
// program as the shell reads it (quotes removed), and the rest of the line
// as written (cairn's arguments, then whatever the person added).
type commandLine struct {
	prefix, program, rest string
}

// splitCommand cuts a command line; ok is false for an empty one or a
// quote that does not close.
func splitCommand(line string) (commandLine, bool) {
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		word, end, ok := shellWord(line, i)
		if !ok || end == start {
			return commandLine{}, false
		}
		if assignment(line[start:end]) {
			i = end
			continue
		}
		return commandLine{prefix: line[:start], program: word, rest: line[end:]}, true
	}
}

// shellWord reads one word of a POSIX shell line from i: its text with
// quotes and escapes removed, and where it ends.
func shellWord(s string, i int) (string, int, bool) {
	var b strings.Builder
	for i < len(s) {
		switch c := s[i]; c {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			return b.String(), i, true
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", i, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", i, false
			}
			i++
		case '\\':
			if i+1 < len(s) {
				b.WriteByte(s[i+1])
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), len(s), true
}

// assignment reports whether a shell word (as written) sets a variable.
func assignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isCairnProgram reports whether a program is a cairn, wherever it lives.
func isCairnProgram(p string) bool { return filepath.Base(p) == "cairn" }

// cairnHook cuts a hook command that is cairn's: a cairn run with "hook
// claude-code" first, and whatever a person added after.
func cairnHook(line string) (commandLine, bool) {
	c, ok := splitCommand(line)
	f := strings.Fields(c.rest)
	return c, ok && isCairnProgram(c.program) && len(f) >= 2 && f[0] == "hook" && f[1] == "claude-code"
}

// withProgram is the line running bin instead, all else as it was.
func (c commandLine) withProgram(bin string) string { return c.prefix + quote(bin) + c.rest }

// serverArgs are the arguments of cairn's MCP server: the person's own
// (a --project, a --home) kept around "mcp", which is put first when it is
// missing. ok is false when args is not a list of strings.
func serverArgs(args any) ([]any, bool) {
	list, isList := args.([]any)
	if args == nil {
		list, isList = nil, true
	}
	for _, a := range list {
		if _, s := a.(string); !s {
			isList = false
		}
	}
	if !isList {
		return []any{"mcp"}, false
	}
	if slices.Contains(list, any("mcp")) {
		return list, true
	}
	return append([]any{"mcp"}, list...), true
}

// jsonArgs decodes a JSON "args" value for serverArgs.
func jsonArgs(raw json.RawMessage) any {
	var v any
	if raw == nil || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}
