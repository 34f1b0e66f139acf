// Package agentsetup registers cairn in coding agents' own settings files —
// Claude Code's hooks and MCP servers, Codex's MCP servers — and takes it
// out again. The files are the user's: what cairn does not own is kept as
// it was (keys, their order, other hooks and servers), a file is changed
// only when something of cairn's is missing or out of date, and every write
// keeps a backup and replaces the file atomically.
package agentsetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// HookEvents are the Claude Code events cairn hooks into, with the timeout
// (seconds) Claude Code gives each.
var HookEvents = []struct {
	Name    string
	Timeout int
}{
	{"SessionStart", 10},
	{"UserPromptSubmit", 10},
	{"PreCompact", 60},
	{"SessionEnd", 60},
}

// ours reports whether a hook or server command is cairn's: a program
// named cairn run with the given arguments, wherever it lives.
func ours(command string, args ...string) bool {
	f := strings.Fields(command)
	if len(f) == 0 || filepath.Base(strings.Trim(f[0], `"'`)) != "cairn" {
		return false
	}
	return slices.Equal(f[1:], args)
}

// HookCommand is the command line of cairn's Claude Code hook.
func HookCommand(bin string) string { return quote(bin) + " hook claude-code" }

func quote(s string) string {
	if strings.ContainsAny(s, " \t'\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// ClaudeHooks returns settings (the contents of a Claude Code
// settings.json; empty for none) with cairn's hooks in — or, with remove,
// out — and whether anything changed.
func ClaudeHooks(settings []byte, bin string, remove bool) ([]byte, bool, error) {
	root, err := parseObject(settings)
	if err != nil {
		return nil, false, err
	}
	hooks := &object{}
	if raw, ok := root.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return nil, false, errors.New(`"hooks" is not an object of events: expected {"SessionStart": [...], ...}`)
		}
	}
	cmd := HookCommand(bin)
	changed := false
	for _, ev := range HookEvents {
		var groups []map[string]any
		if raw, ok := hooks.get(ev.Name); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf(`"hooks.%s" is not a list of matchers: expected [{"matcher": …, "hooks": [{"type": "command", …}]}]`, ev.Name)
			}
		}
		found, evChanged := false, false
		for gi := 0; gi < len(groups); gi++ {
			hs, _ := groups[gi]["hooks"].([]any)
			for hi := 0; hi < len(hs); hi++ {
				h, _ := hs[hi].(map[string]any)
				c, _ := h["command"].(string)
				if !ours(c, "hook", "claude-code") {
					continue
				}
				switch {
				case remove:
					hs = slices.Delete(hs, hi, hi+1)
					hi--
					evChanged = true
				case found: // a second copy of ours
					hs = slices.Delete(hs, hi, hi+1)
					hi--
					evChanged = true
				default:
					found = true
					if c != cmd {
						h["command"] = cmd // the binary moved
						evChanged = true
					}
				}
			}
			if len(hs) == 0 && (remove || found) {
				groups = slices.Delete(groups, gi, gi+1)
				gi--
				continue
			}
			groups[gi]["hooks"] = hs
		}
		if !found && !remove {
			groups = append(groups, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": ev.Timeout}}})
			evChanged = true
		}
		if !evChanged {
			continue
		}
		changed = true
		if len(groups) == 0 {
			hooks.del(ev.Name)
			continue
		}
		raw, err := json.Marshal(groups)
		if err != nil {
			return nil, false, err
		}
		hooks.set(ev.Name, raw)
	}
	if !changed {
		return settings, false, nil
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.marshal())
	}
	return root.indented(), true, nil
}

// ClaudeMCP returns a Claude Code file holding "mcpServers" (~/.claude.json
// or a project's .mcp.json) with cairn's server in or out.
func ClaudeMCP(file []byte, command string, remove bool) ([]byte, bool, error) {
	root, err := parseObject(file)
	if err != nil {
		return nil, false, err
	}
	servers := &object{}
	if raw, ok := root.get("mcpServers"); ok {
		if servers, err = parseObject(raw); err != nil {
			return nil, false, errors.New(`"mcpServers" is not an object of servers`)
		}
	}
	want, _ := json.Marshal(map[string]any{"type": "stdio", "command": command, "args": []string{"mcp"}})
	raw, had := servers.get("cairn")
	switch {
	case remove && !had:
		return file, false, nil
	case remove:
		servers.del("cairn")
	case had && sameJSON(raw, want):
		return file, false, nil
	default:
		servers.set("cairn", want)
	}
	if len(servers.keys) == 0 {
		root.del("mcpServers")
	} else {
		root.set("mcpServers", servers.marshal())
	}
	return root.indented(), true, nil
}

// Diff is a unified-style diff of a file's change, for a person to read
// before it is written.
func Diff(path string, before, after []byte) string {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(string(before), string(after))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", path, path)
	for _, d := range diffs {
		mark := " "
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			mark = "+"
		case diffmatchpatch.DiffDelete:
			mark = "-"
		}
		ls := strings.SplitAfter(d.Text, "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		if d.Type == diffmatchpatch.DiffEqual && len(ls) > 6 {
			// Context: three lines each side of a change.
			ls = append(append(slices.Clone(ls[:3]), "…\n"), ls[len(ls)-3:]...)
		}
		for _, l := range ls {
			w.WriteString(mark + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	return w.String()
}

// object is a JSON object that keeps its keys' order and its values' bytes.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(b []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(b, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(b, dec, err)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonError(b, dec, err)
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(b, dec, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

// jsonError says where the JSON broke, as a line and column.
func jsonError(b []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	off = min(off, int64(len(b)))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Errorf("not valid JSON at line %d, column %d", line, col)
}

func (o *object) get(k string) (json.RawMessage, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
}

func (o *object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (o *object) indented() []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, o.marshal(), "", "  "); err != nil {
		return o.marshal()
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
