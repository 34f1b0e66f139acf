package agentsetup

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// CodexMCP returns Codex's config.toml with cairn's server in or out.
// The text is edited, not re-encoded: the user's comments and layout stay.
// The edit goes by a scanner that knows TOML's strings (a multi-line
// string may hold a line that looks like a table header) and arrays, and
// what it makes is decoded before it is returned: unless it parses, says
// what the user's file said apart from cairn's server, and has cairn's
// server as asked, the edit is refused and nothing is written. Cairn owns
// the server's command and its "mcp" argument; what a person added (other
// arguments, env, startup_timeout_sec…) stays, and when the server is
// missing its tables come back from prior (an earlier version of the
// file, nil for none). env are variables cairn sets in the server's env
// (Codex hands a server only a few of its own): CAIRN_HOME, when the
// store is not in its default place.
func CodexMCP(config []byte, command string, remove bool, prior []byte, env map[string]string) ([]byte, bool, error) {
	before, err := decodeTOML(config)
	if err != nil {
		return nil, false, err
	}
	cur := codexServer(before)
	if cur != nil && !remove {
		args, ok := serverArgs(cur["args"])
		if c, _ := cur["command"].(string); c == command && ok && reflect.DeepEqual(args, cur["args"]) && reflect.DeepEqual(withEnv(cur, env), cur) {
			return config, false, nil
		}
	}
	if cur == nil && remove {
		return config, false, nil
	}
	if cur == nil && !remove && prior != nil {
		if out, err := codexFromPrior(config, before, prior, command, env); err == nil {
			return out, true, nil
		}
		// An earlier server cairn cannot carry over: set up a plain one.
	}
	doc, err := scanTOML(string(config))
	if err != nil {
		return nil, false, err
	}
	byHand := fmt.Errorf("cairn's server is set in an inline table or dotted keys; edit [mcp_servers] by hand (command = %s, args = [\"mcp\"])", tomlBasic(command))
	if doc.inlineCairn() {
		return nil, false, byHand
	}
	text := string(config)
	var out string
	main := doc.cairnTable()
	switch {
	case remove:
		out = doc.without(text, isCairn)
	case main >= 0:
		out = doc.setKeys(text, main, command, cur["args"])
	default:
		out = doc.addTable(text, command)
	}
	if !remove {
		if out, err = setEnv(out, env, cur); err != nil {
			return nil, false, err
		}
	}
	return checkCodex(before, out, command, env, remove, cur)
}

// codexFromPrior adds cairn's tables as prior had them, running command.
func codexFromPrior(config []byte, before map[string]any, prior []byte, command string, env map[string]string) ([]byte, error) {
	was, err := decodeTOML(prior)
	if err != nil {
		return nil, err
	}
	pdoc, err := scanTOML(string(prior))
	if err != nil || pdoc.inlineCairn() || pdoc.cairnTable() < 0 {
		return nil, errors.New("no table of cairn's in the earlier file")
	}
	var tables strings.Builder
	for i, h := range pdoc.headers {
		if isCairn(h.path) {
			s, e := pdoc.section(string(prior), i)
			tables.WriteString(strings.TrimRight(string(prior[s:e]), "\n") + "\n\n")
		}
	}
	text := string(config)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	text += strings.TrimSuffix(tables.String(), "\n")
	doc, err := scanTOML(text)
	if err != nil {
		return nil, err
	}
	out, err := setEnv(doc.setKeys(text, doc.cairnTable(), command, codexServer(was)["args"]), env, codexServer(was))
	if err != nil {
		return nil, err
	}
	b, _, err := checkCodex(before, out, command, env, false, codexServer(was))
	return b, err
}

// checkCodex decodes an edit's result: everything but cairn's server is as
// it was, and cairn's server is gone (remove) or is base (what it was)
// running command with its arguments.
func checkCodex(before map[string]any, out, command string, env map[string]string, remove bool, base map[string]any) ([]byte, bool, error) {
	after, err := decodeTOML([]byte(out))
	if err == nil {
		err = sameApartFromCairn(before, after, command, remove, withEnv(base, env))
	}
	if err != nil {
		return nil, false, fmt.Errorf("cairn could not edit the file without changing more than its own server (%v): edit [mcp_servers.cairn] by hand (command = %s, args = [\"mcp\"])", err, tomlBasic(command))
	}
	return []byte(out), true, nil
}

// withEnv is a server (nil for none) with env's variables set in its env.
func withEnv(server map[string]any, env map[string]string) map[string]any {
	if len(env) == 0 {
		return server
	}
	out := map[string]any{}
	if server != nil {
		out = clone(server)
	}
	e := map[string]any{}
	if had, ok := out["env"].(map[string]any); ok {
		e = clone(had)
	}
	for k, v := range env {
		e[k] = v
	}
	out["env"] = e
	return out
}

// setEnv sets env's variables in the env of cairn's table in text (cur:
// the server as it was), where the person keeps it: an [mcp_servers.cairn.env]
// table, an inline env = {…}, dotted env.NAME keys, or else a new
// env = {…} line.
func setEnv(text string, env map[string]string, cur map[string]any) (string, error) {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	had, _ := cur["env"].(map[string]any)
	for _, name := range names {
		value := env[name]
		if v, ok := had[name].(string); ok && v == value {
			continue
		}
		doc, err := scanTOML(text)
		if err != nil {
			return "", err
		}
		main := doc.cairnTable()
		if main < 0 {
			return "", errors.New("no table of cairn's to set its env in")
		}
		line := func(key string) string { return key + " = " + tomlBasic(value) + "\n" }
		replaced := false
		for _, e := range doc.entries {
			switch {
			case e.table == main && slices.Equal(e.key, []string{"env", name}):
				text = text[:e.start] + line("env."+name) + text[e.end:]
			case e.table == main && slices.Equal(e.key, []string{"env"}):
				inline := withEnv(map[string]any{"env": had}, map[string]string{name: value})["env"].(map[string]any)
				text = text[:e.start] + "env = " + tomlInline(inline) + "\n" + text[e.end:]
			case e.table >= 0 && slices.Equal(doc.headers[e.table].path, []string{"mcp_servers", "cairn", "env"}) && slices.Equal(e.key, []string{name}):
				text = text[:e.start] + line(name) + text[e.end:]
			default:
				continue
			}
			replaced = true
			break
		}
		if replaced {
			continue
		}
		// None yet: an env table of its own after cairn's, where a
		// person adds theirs.
		_, at := doc.section(text, main)
		add := "[mcp_servers.cairn.env]\n" + line(name) + "\n"
		if at == len(text) {
			add = "\n" + strings.TrimSuffix(add, "\n")
			if !strings.HasSuffix(text, "\n") {
				add = "\n" + add
			}
		}
		for _, h := range doc.headers {
			if slices.Equal(h.path, []string{"mcp_servers", "cairn", "env"}) && !h.array {
				at, add = h.end, line(name)
			}
		}
		for _, e := range doc.entries {
			if e.table == main && len(e.key) > 1 && e.key[0] == "env" {
				at, add = e.end, line("env."+name)
			}
		}
		text = text[:at] + add + text[at:]
	}
	return text, nil
}

// tomlInline is a table of strings as a TOML inline table.
func tomlInline(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		s, _ := m[k].(string)
		key := k
		if strings.IndexFunc(k, func(r rune) bool { return !bareKey(byte(r)) || r > 127 }) >= 0 || k == "" {
			key = tomlBasic(k)
		}
		parts[i] = key + " = " + tomlBasic(s)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func codexServer(config map[string]any) map[string]any {
	if s, ok := config["mcp_servers"].(map[string]any); ok {
		cur, _ := s["cairn"].(map[string]any)
		return cur
	}
	return nil
}

// CodexProgram is the command of cairn's server in a Codex config.toml.
func CodexProgram(config []byte) (string, bool) {
	parsed, err := decodeTOML(config)
	if err != nil || codexServer(parsed) == nil {
		return "", false
	}
	c, _ := codexServer(parsed)["command"].(string)
	return c, true
}

// inlineCairn reports whether cairn's server is set, wholly or in part, by
// an inline table or dotted keys: a form the edit does not touch.
func (d *tomlDoc) inlineCairn() bool {
	for _, e := range d.entries {
		if isCairn(e.path) && (e.table < 0 || !isCairn(d.headers[e.table].path)) {
			return true
		}
	}
	return false
}

// cairnTable is the index of [mcp_servers.cairn]'s header, -1 for none.
func (d *tomlDoc) cairnTable() int {
	for i, h := range d.headers {
		if isCairn(h.path) && len(h.path) == 2 && !h.array {
			return i
		}
	}
	return -1
}

func decodeTOML(b []byte) (map[string]any, error) {
	var parsed map[string]any
	if _, err := toml.Decode(string(b), &parsed); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, oneLine(pe.Message))
		}
		return nil, errors.New(oneLine(err.Error()))
	}
	return parsed, nil
}

// sameApartFromCairn checks an edit: everything but cairn's server is as it
// was, and cairn's server is gone (remove) or is base (what it was, nil
// for none) running command with its arguments (see serverArgs).
func sameApartFromCairn(before, after map[string]any, command string, remove bool, base map[string]any) error {
	got := codexServer(after)
	if remove && got != nil {
		return errors.New("cairn's server is still there")
	}
	if !remove {
		want := map[string]any{}
		if base != nil {
			want = clone(base)
		}
		want["command"] = command
		want["args"], _ = serverArgs(want["args"])
		if c, _ := got["command"].(string); c != command || !reflect.DeepEqual(got["args"], want["args"]) {
			return errors.New("cairn's server did not come out as written")
		}
		if !reflect.DeepEqual(got, want) {
			return errors.New("the rest of cairn's server changed")
		}
	}
	if !reflect.DeepEqual(withoutCairn(before), withoutCairn(after)) {
		return errors.New("other settings changed")
	}
	return nil
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func withoutCairn(m map[string]any) map[string]any {
	m = clone(m)
	if s, ok := m["mcp_servers"].(map[string]any); ok {
		s = clone(s)
		delete(s, "cairn")
		if len(s) == 0 {
			delete(m, "mcp_servers")
		} else {
			m["mcp_servers"] = s
		}
	}
	return m
}

func isCairn(path []string) bool {
	return len(path) >= 2 && path[0] == "mcp_servers" && path[1] == "cairn"
}

// tomlDoc is where a TOML text's table headers and top-level key/value
// lines are (byte offsets of whole lines).
type tomlDoc struct {
	headers []tomlHeader
	entries []tomlEntry // every key = value, its path in full (table, then key)
	size    int
}

type tomlHeader struct {
	start, end int // the header's line
	path       []string
	array      bool // [[...]]
}

type tomlEntry struct {
	start, end int // from its line's start to past the line its value ends on
	table      int // index of its header, -1 before the first
	key        []string
	path       []string
}

// section is the span of header i's table: its line to the next header's
// line, less the comments just above that next header (they belong to it).
func (d *tomlDoc) section(text string, i int) (int, int) {
	end := d.size
	if i+1 < len(d.headers) {
		end = d.headers[i+1].start
		floor := d.headers[i].end
		for _, e := range d.entries {
			if e.table == i {
				floor = max(floor, e.end)
			}
		}
		for end > floor {
			ls := strings.LastIndexByte(text[:end-1], '\n') + 1
			if !strings.HasPrefix(strings.TrimSpace(text[ls:end]), "#") {
				break
			}
			end = ls
		}
	}
	return d.headers[i].start, end
}

// without removes the tables whose path match says.
func (d *tomlDoc) without(text string, match func([]string) bool) string {
	var b strings.Builder
	at := 0
	for i, h := range d.headers {
		if !match(h.path) {
			continue
		}
		s, e := d.section(text, i)
		if s < at {
			continue
		}
		b.WriteString(text[at:s])
		at = e
	}
	b.WriteString(text[at:])
	out := b.String()
	if at == len(text) && at > 0 {
		// A table taken from the end leaves the blank line that set it
		// apart: the file ends as it did before setup added it.
		out = strings.TrimRight(out, "\n")
		if out != "" {
			out += "\n"
		}
	}
	return out
}

// setKeys rewrites command, and args when they lack "mcp" (see
// serverArgs), in cairn's table (header i), keeping whatever else the
// person put there.
func (d *tomlDoc) setKeys(text string, i int, command string, args any) string {
	want := map[string]string{"command": "command = " + tomlBasic(command) + "\n"}
	if list, ok := serverArgs(args); !ok || !reflect.DeepEqual(list, args) {
		want["args"] = "args = " + tomlArray(list) + "\n"
	}
	var b strings.Builder
	at := d.headers[i].end
	b.WriteString(text[:at])
	var rest strings.Builder
	done := map[string]bool{}
	for _, e := range d.entries {
		if e.table != i || len(e.key) != 1 || want[e.key[0]] == "" {
			continue
		}
		rest.WriteString(text[at:e.start])
		rest.WriteString(want[e.key[0]])
		done[e.key[0]] = true
		at = e.end
	}
	for _, k := range []string{"command", "args"} {
		if want[k] != "" && !done[k] {
			b.WriteString(want[k])
		}
	}
	b.WriteString(rest.String())
	b.WriteString(text[at:])
	return b.String()
}

// tomlArray is a list of strings as a TOML array.
func tomlArray(list []any) string {
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = tomlBasic(a.(string))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// addTable adds cairn's table: before its first sub-table when the person
// gave it one ([mcp_servers.cairn.env]), else at the end.
func (d *tomlDoc) addTable(text, command string) string {
	table := "[mcp_servers.cairn]\ncommand = " + tomlBasic(command) + "\nargs = [\"mcp\"]\n"
	for _, h := range d.headers {
		if isCairn(h.path) {
			return text[:h.start] + table + "\n" + text[h.start:]
		}
	}
	out := text
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if out != "" {
		out += "\n"
	}
	return out + table
}

// tomlBasic is s as a TOML basic string.
func tomlBasic(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// scanTOML finds the table headers and the key/value lines of a TOML
// text that toml.Decode accepted. It follows strings (basic, literal and
// their multi-line forms), comments and arrays, so that a line inside a
// multi-line string or array is never taken for a header.
func scanTOML(text string) (*tomlDoc, error) {
	d := &tomlDoc{size: len(text)}
	sc := &scanner{s: text}
	table, tpath := -1, []string(nil)
	for {
		sc.skipSpaceAndNewlines()
		if sc.eof() {
			return d, nil
		}
		lineStart := strings.LastIndexByte(text[:sc.i], '\n') + 1
		switch c := sc.s[sc.i]; {
		case c == '#':
			sc.skipLine()
		case c == '[':
			h := tomlHeader{start: lineStart}
			sc.i++
			if sc.peek() == '[' {
				h.array = true
				sc.i++
			}
			p, err := sc.key()
			if err != nil {
				return nil, err
			}
			h.path = p
			sc.skipInline()
			if !sc.take(']') || h.array && !sc.take(']') {
				return nil, sc.errf("a table header that does not close")
			}
			sc.skipLine()
			h.end = sc.i
			d.headers = append(d.headers, h)
			table, tpath = len(d.headers)-1, p
		default:
			k, err := sc.key()
			if err != nil {
				return nil, err
			}
			sc.skipInline()
			if !sc.take('=') {
				return nil, sc.errf("a key without =")
			}
			if err := sc.value(); err != nil {
				return nil, err
			}
			sc.skipLine()
			d.entries = append(d.entries, tomlEntry{start: lineStart, end: sc.i, table: table, key: k, path: append(append([]string{}, tpath...), k...)})
		}
	}
}

type scanner struct {
	s string
	i int
}

func (sc *scanner) eof() bool { return sc.i >= len(sc.s) }

func (sc *scanner) peek() byte {
	if sc.eof() {
		return 0
	}
	return sc.s[sc.i]
}

func (sc *scanner) take(c byte) bool {
	if sc.peek() == c {
		sc.i++
		return true
	}
	return false
}

func (sc *scanner) errf(format string, a ...any) error {
	line := 1 + strings.Count(sc.s[:min(sc.i, len(sc.s))], "\n")
	return fmt.Errorf("line %d: "+format, append([]any{line}, a...)...)
}

func (sc *scanner) skipInline() {
	for !sc.eof() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *scanner) skipSpaceAndNewlines() {
	for !sc.eof() && strings.IndexByte(" \t\r\n", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

// skipLine goes past the end of the line (a comment on it included).
func (sc *scanner) skipLine() {
	if j := strings.IndexByte(sc.s[sc.i:], '\n'); j >= 0 {
		sc.i += j + 1
	} else {
		sc.i = len(sc.s)
	}
}

// key reads a dotted key: bare, "basic" or 'literal' parts.
func (sc *scanner) key() ([]string, error) {
	var parts []string
	for {
		sc.skipInline()
		switch c := sc.peek(); {
		case c == '"':
			start := sc.i
			if err := sc.basic(); err != nil {
				return nil, err
			}
			p, err := strconv.Unquote(sc.s[start:sc.i])
			if err != nil {
				p = sc.s[start+1 : sc.i-1] // an escape Go does not know (\e, \U…): compare it raw
			}
			parts = append(parts, p)
		case c == '\'':
			j := strings.IndexAny(sc.s[sc.i+1:], "'\n")
			if j < 0 || sc.s[sc.i+1+j] != '\'' {
				return nil, sc.errf("a literal key that does not close")
			}
			parts = append(parts, sc.s[sc.i+1:sc.i+1+j])
			sc.i += j + 2
		default:
			start := sc.i
			for !sc.eof() && bareKey(sc.s[sc.i]) {
				sc.i++
			}
			if sc.i == start {
				return nil, sc.errf("a key was expected")
			}
			parts = append(parts, sc.s[start:sc.i])
		}
		sc.skipInline()
		if !sc.take('.') {
			return parts, nil
		}
	}
}

func bareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// basic reads a "basic string" on one line.
func (sc *scanner) basic() error {
	sc.i++
	for !sc.eof() {
		switch sc.s[sc.i] {
		case '\\':
			sc.i += 2
			continue
		case '"':
			sc.i++
			return nil
		case '\n':
			return sc.errf("a string that does not close on its line")
		}
		sc.i++
	}
	return sc.errf("a string that does not close")
}

// value reads a value: a string of any kind, an array or inline table
// (over lines, with comments), or anything else up to the end of the line
// or a comment.
func (sc *scanner) value() error {
	depth := 0
	for {
		if depth == 0 {
			sc.skipInline()
		} else {
			sc.skipSpaceAndNewlines()
		}
		if sc.eof() {
			if depth > 0 {
				return sc.errf("an array that does not close")
			}
			return nil
		}
		switch c := sc.s[sc.i]; {
		case strings.HasPrefix(sc.s[sc.i:], `"""`), strings.HasPrefix(sc.s[sc.i:], `'''`):
			if err := sc.multiline(sc.s[sc.i : sc.i+3]); err != nil {
				return err
			}
		case c == '"':
			if err := sc.basic(); err != nil {
				return err
			}
		case c == '\'':
			j := strings.IndexAny(sc.s[sc.i+1:], "'\n")
			if j < 0 || sc.s[sc.i+1+j] != '\'' {
				return sc.errf("a literal string that does not close")
			}
			sc.i += j + 2
		case c == '[' || c == '{':
			depth++
			sc.i++
		case c == ']' || c == '}':
			depth--
			sc.i++
		case c == '#':
			if depth == 0 {
				return nil
			}
			sc.skipLine()
		case c == '\n' || c == '\r':
			if depth == 0 {
				return nil
			}
			sc.i++
		default:
			sc.i++
		}
		if depth < 0 {
			return sc.errf("a bracket that closes nothing")
		}
	}
}

// multiline reads a """ or ”' string, which may span lines.
func (sc *scanner) multiline(q string) error {
	sc.i += 3
	for !sc.eof() {
		if q == `"""` && sc.s[sc.i] == '\\' {
			sc.i += 2
			continue
		}
		if strings.HasPrefix(sc.s[sc.i:], q) {
			sc.i += 3
			for n := 0; n < 2 && sc.peek() == q[0]; n++ {
				sc.i++ // up to two quotes may end the string's text
			}
			return nil
		}
		sc.i++
	}
	return sc.errf("a multi-line string that does not close")
}
