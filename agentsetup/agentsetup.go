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
// out — and whether anything changed. Cairn owns the program its hooks run
// and their "hook claude-code": what a person added to a hook of cairn's
// (arguments after those, VAR=value before the program, a timeout, other
// keys) stays. A hook missing from settings is taken from prior (an
// earlier version of the file, nil for none) when prior has it, so that
// what the person added comes back after a --remove.
func ClaudeHooks(settings []byte, bin string, remove bool, prior []byte) ([]byte, bool, error) {
	root, err := parseObject(settings)
	if err != nil {
		return nil, false, err
	}
	hooks, err := hooksOf(root)
	if err != nil {
		return nil, false, err
	}
	earlier := map[string]map[string]any{}
	if !remove && prior != nil {
		if pr, err := parseObject(prior); err == nil {
			if ph, err := hooksOf(pr); err == nil {
				earlier = cairnHookEntries(ph)
			}
		}
	}
	cmd := HookCommand(bin)
	changed := false
	for _, ev := range HookEvents {
		groups, err := hookGroups(hooks, ev.Name)
		if err != nil {
			return nil, false, err
		}
		found, evChanged := false, false
		for gi := 0; gi < len(groups); gi++ {
			hs, _ := groups[gi]["hooks"].([]any)
			for hi := 0; hi < len(hs); hi++ {
				h, _ := hs[hi].(map[string]any)
				c, _ := h["command"].(string)
				line, ours := cairnHook(c)
				if !ours {
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
					if now := line.withProgram(bin); c != now {
						h["command"] = now // the binary moved
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
			entry := map[string]any{"type": "command", "command": cmd, "timeout": ev.Timeout}
			if e := earlier[ev.Name]; e != nil {
				entry = e
				line, _ := cairnHook(e["command"].(string))
				entry["command"] = line.withProgram(bin)
			}
			groups = append(groups, map[string]any{"hooks": []any{entry}})
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
		raw, err := marshal(groups)
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

func hooksOf(root *object) (*object, error) {
	raw, ok := root.get("hooks")
	if !ok {
		return &object{}, nil
	}
	hooks, err := parseObject(raw)
	if err != nil {
		return nil, errors.New(`"hooks" is not an object of events: expected {"SessionStart": [...], ...}`)
	}
	return hooks, nil
}

func hookGroups(hooks *object, event string) ([]map[string]any, error) {
	var groups []map[string]any
	if raw, ok := hooks.get(event); ok {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, fmt.Errorf(`"hooks.%s" is not a list of matchers: expected [{"matcher": …, "hooks": [{"type": "command", …}]}]`, event)
		}
	}
	return groups, nil
}

// cairnHookEntries are cairn's hooks (the first of each event) in a
// settings file's "hooks".
func cairnHookEntries(hooks *object) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, ev := range HookEvents {
		groups, _ := hookGroups(hooks, ev.Name)
		for _, g := range groups {
			hs, _ := g["hooks"].([]any)
			for _, h := range hs {
				e, _ := h.(map[string]any)
				c, _ := e["command"].(string)
				if _, ours := cairnHook(c); ours && out[ev.Name] == nil {
					out[ev.Name] = e
				}
			}
		}
	}
	return out
}

// HookPrograms are the programs cairn's hooks in a Claude Code
// settings.json run (as the shell reads them), each once.
func HookPrograms(settings []byte) []string {
	root, err := parseObject(settings)
	if err != nil {
		return nil
	}
	hooks, err := hooksOf(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, ev := range HookEvents {
		if e := cairnHookEntries(hooks)[ev.Name]; e != nil {
			line, _ := cairnHook(e["command"].(string))
			if !slices.Contains(out, line.program) {
				out = append(out, line.program)
			}
		}
	}
	return out
}

// ClaudeMCP returns a Claude Code file holding "mcpServers" (~/.claude.json
// or a project's .mcp.json) with cairn's server in or out. Cairn owns the
// server's command and its "mcp" argument; what a person added (other
// arguments, "env", a timeout) stays, and comes back from prior (an
// earlier version of the file, nil for none) when the server is missing.
func ClaudeMCP(file []byte, command string, remove bool, prior []byte) ([]byte, bool, error) {
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
	raw, had := servers.get("cairn")
	switch {
	case remove && !had:
		return file, false, nil
	case remove:
		servers.del("cairn")
	default:
		base := raw
		if !had && prior != nil {
			base, _ = serverEntry(prior)
		}
		want := cairnServer(base, command)
		if had && sameJSON(raw, want) {
			return file, false, nil
		}
		servers.set("cairn", want)
	}
	if len(servers.keys) == 0 {
		root.del("mcpServers")
	} else {
		root.set("mcpServers", servers.marshal())
	}
	return root.indented(), true, nil
}

// cairnServer is cairn's MCP server entry: base (the entry as it was, nil
// for none) running command, with "mcp" among its arguments.
func cairnServer(base json.RawMessage, command string) json.RawMessage {
	s, err := parseObject(base)
	if base == nil || err != nil {
		want, _ := marshal(map[string]any{"type": "stdio", "command": command, "args": []string{"mcp"}})
		return want
	}
	c, _ := marshal(command)
	s.set("command", c)
	args, _ := serverArgs(jsonArgs(s.vals["args"]))
	a, _ := marshal(args)
	s.set("args", a)
	return s.marshal()
}

// serverEntry is cairn's entry in a file holding "mcpServers".
func serverEntry(file []byte) (json.RawMessage, bool) {
	root, err := parseObject(file)
	if err != nil {
		return nil, false
	}
	raw, ok := root.get("mcpServers")
	if !ok {
		return nil, false
	}
	servers, err := parseObject(raw)
	if err != nil {
		return nil, false
	}
	return servers.get("cairn")
}

// ServerProgram is the command of cairn's MCP server in a file holding
// "mcpServers".
func ServerProgram(file []byte) (string, bool) {
	raw, ok := serverEntry(file)
	if !ok {
		return "", false
	}
	var v struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v.Command, true
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

// marshal is v as JSON, with <, > and & as they are: a person's hook
// command (2>/dev/null, &&) stays as they wrote it.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
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
