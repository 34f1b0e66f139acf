package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"cairn/secrets"
)

// Bounds of what an item holds.
const (
	maxText     = 16 << 10 // a prompt's or an answer's text
	maxFacts    = 40       // tool facts of one turn
	maxFactLen  = 200      // one fact
	maxAsked    = 3        // prompts the diary quotes
	maxAskedLen = 160
	maxCommands = 30
	maxFiles    = 40
)

// Read reads a transcript from opt.Offset (r starts there) and emits its
// items turn by turn, adding to opt.Diary. See Options for what is read
// and where the next read starts.
func Read(r io.Reader, opt Options, emit func(Item) error) (Result, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	diary := opt.Diary
	if diary == nil {
		diary = &Diary{}
	}
	rd := &reader{opt: opt, emit: emit, diary: diary, res: Result{Skipped: map[string]int{}}, pos: opt.Offset, line: opt.Line}
	rd.res.Format = opt.Format
	if rd.res.Format == FormatAuto {
		rd.res.Format = ""
	}
	rd.turn.start, rd.turn.startLine = rd.pos, rd.line
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 && raw[len(raw)-1] != '\n' && !opt.Final {
			break // half written, perhaps right now: the next read takes it
		}
		if len(raw) > 0 {
			start := rd.pos
			rd.pos += int64(len(raw))
			rd.line++
			rd.res.Lines++
			if err := rd.take(bytes.TrimSpace(raw), start); err != nil {
				return rd.finish(), err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rd.finish(), err
		}
	}
	if opt.Final || rd.turn.empty() {
		if err := rd.close(); err != nil {
			return rd.finish(), err
		}
		rd.next, rd.nextLine = rd.pos, rd.line
	} else {
		rd.next, rd.nextLine = rd.turn.start, rd.turn.startLine
	}
	if opt.Final {
		diary.Ended = true
	}
	return rd.finish(), nil
}

// reader is one read of a transcript.
type reader struct {
	opt      Options
	emit     func(Item) error
	diary    *Diary
	res      Result
	pos      int64
	line     int
	next     int64
	nextLine int
	turn     turn
	claude   claudeState
	codex    codexState
	lastTime time.Time
}

// turn is what a turn said so far: it is emitted when the next prompt
// comes (or the session is over), and only then counted in the diary, so
// that a turn read twice is counted once.
type turn struct {
	start     int64
	startLine int
	prompt    *Item
	facts     []*fact
	said      *Item // the last text of the turn so far
	answer    *Item
	subagent  *Item
	first     time.Time
	last      time.Time
	compacted int
}

func (t *turn) empty() bool {
	return t.prompt == nil && len(t.facts) == 0 && t.answer == nil && t.subagent == nil && t.compacted == 0
}

// fact is one tool call of a turn and how it ended.
type fact struct {
	id      string
	kind    string // "ran", "edited", "wrote", "searched", "tool"
	subject string // the command, the file, the pattern or the tool's name
	detail  string
	done    bool
	failed  bool
	exit    int
	hasExit bool
	outcome string // the telling line of its output
	test    bool
	after   *Item  // the text the agent said just before the call
	claim   string // that text, when the call failed
}

func (f *fact) text() string {
	var s string
	switch f.kind {
	case "ran":
		s = "ran `" + f.subject + "`"
		switch {
		case !f.done:
			s += ": no result seen"
		case f.failed && f.hasExit:
			s += fmt.Sprintf(": exit %d", f.exit)
		case f.failed:
			s += ": failed"
		case f.hasExit && f.exit != 0:
			s += fmt.Sprintf(": exit %d", f.exit)
		default:
			s += ": ok"
		}
		if f.outcome != "" && (f.failed || f.test) {
			s += " — " + f.outcome
		}
	case "edited", "wrote":
		s = f.kind + " " + f.subject
		if f.failed {
			s += " (failed)"
		}
	case "searched":
		s = "searched " + f.subject
	default:
		s = "tool " + f.subject
		if f.detail != "" {
			s += ": " + f.detail
		}
		if f.failed {
			s += ": error"
			if f.outcome != "" {
				s += " — " + f.outcome
			}
		}
	}
	s = cutBytes(oneLine(s), maxFactLen)
	if f.claim != "" {
		s += ", right after the agent said: \"" + cutBytes(oneLine(strings.ReplaceAll(f.claim, `"`, "'")), maxFactLen) + "\""
	}
	return s
}

// take reads one line.
func (rd *reader) take(line []byte, start int64) error {
	if len(line) == 0 {
		return nil
	}
	if rd.res.Format == "" {
		rd.res.Format = detect(line)
		if rd.res.Format == "" {
			if !json.Valid(line) {
				rd.malformed("not JSON")
			} else {
				rd.skip("before the format was known")
			}
			return nil
		}
	}
	if rd.res.Format == FormatCodex {
		return rd.codexLine(line, start)
	}
	return rd.claudeLine(line, start)
}

func (rd *reader) malformed(why string) {
	if len(rd.res.Malformed) < MaxLineErrors {
		rd.res.Malformed = append(rd.res.Malformed, LineError{Line: rd.line, Err: why})
		return
	}
	rd.res.Skipped["malformed"]++
}

func (rd *reader) skip(kind string) { rd.res.Skipped[kind]++ }

// detect tells the format from one line.
func detect(line []byte) Format {
	var l struct {
		Type      string          `json:"type"`
		Payload   json.RawMessage `json:"payload"`
		SessionID string          `json:"sessionId"`
		UUID      string          `json:"uuid"`
		Message   json.RawMessage `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return ""
	}
	switch {
	case len(l.Payload) > 0:
		return FormatCodex
	case l.SessionID != "" || l.UUID != "" || len(l.Message) > 0:
		return FormatClaudeCode
	}
	return ""
}

// prompt starts a new turn with the person's prompt.
func (rd *reader) prompt(it Item, start int64) error {
	if err := rd.close(); err != nil {
		return err
	}
	rd.turn = turn{start: start, startLine: rd.line - 1}
	it.Role = RoleUser
	it.Text = rd.clean(it.Text, maxText)
	if it.Text == "" {
		return nil
	}
	rd.turn.prompt = &it
	rd.seen(it.Time)
	return nil
}

// answer notes an assistant's text: the last of a turn is its answer.
func (rd *reader) answer(it Item, sub bool) {
	it.Text = strings.TrimSpace(it.Text)
	if it.Text == "" {
		return
	}
	rd.seen(it.Time)
	if sub {
		it.Role = RoleSubagent
		rd.turn.subagent = &it
		return
	}
	it.Role = RoleAssistant
	rd.turn.answer = &it
	rd.turn.said = &it
}

// called notes a tool call of the turn, after whatever was said last.
func (rd *reader) called(f *fact) {
	f.after = rd.turn.said
	rd.turn.facts = append(rd.turn.facts, f)
}

// failed notes that a call failed. What the agent said just before it —
// a claim the failure contradicts, say "the tests pass now" — goes with
// the fact: consolidation turns the pair into a lesson.
func (rd *reader) failed(f *fact) {
	if f.after != nil && f.kind == "ran" {
		f.claim = f.after.Text
	}
}

func (rd *reader) seen(t time.Time) {
	if t.IsZero() {
		return
	}
	if rd.turn.first.IsZero() {
		rd.turn.first = t
	}
	rd.turn.last = t
	rd.lastTime = t
}

// close emits the turn read so far and counts it in the diary.
func (rd *reader) close() error {
	t := rd.turn
	rd.turn = turn{start: rd.pos, startLine: rd.line}
	d := rd.diary
	if !t.first.IsZero() && (d.Start.IsZero() || t.first.Before(d.Start)) {
		d.Start = t.first
	}
	if t.last.After(d.End) {
		d.End = t.last
	}
	d.Compacted += t.compacted
	if t.prompt != nil {
		d.Prompts++
		if len(d.Asked) < maxAsked {
			d.Asked = append(d.Asked, cutBytes(oneLine(t.prompt.Text), maxAskedLen))
		}
		if err := rd.send(*t.prompt); err != nil {
			return err
		}
	}
	if len(t.facts) > 0 {
		var lines []string
		for i, f := range t.facts {
			rd.count(f)
			if i < maxFacts {
				lines = append(lines, rd.clean(f.text(), 2*maxFactLen+64))
			}
		}
		if n := len(t.facts) - maxFacts; n > 0 {
			lines = append(lines, fmt.Sprintf("… and %d more tool calls", n))
		}
		it := Item{Key: "tools:" + t.facts[0].id, Role: RoleTools, Text: strings.Join(lines, "\n"), Time: t.last, Line: t.startLine + 1}
		for _, f := range t.facts {
			if len(it.Messages) < 8 {
				it.Messages = append(it.Messages, f.id)
			}
		}
		if err := rd.send(it); err != nil {
			return err
		}
	}
	for _, it := range []*Item{t.subagent, t.answer} {
		if it != nil {
			it.Text = rd.clean(it.Text, maxText)
			if it.Text != "" {
				if err := rd.send(*it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (rd *reader) send(it Item) error {
	if it.Time.IsZero() {
		it.Time = rd.lastTime
	}
	rd.res.Items++
	return rd.emit(it)
}

// count adds a tool call to the diary.
func (rd *reader) count(f *fact) {
	d := rd.diary
	if f.failed {
		d.Failures++
	}
	switch f.kind {
	case "ran":
		cmd := rd.clean(cutBytes(f.subject, 120), 120)
		i := -1
		for k := range d.Commands {
			if d.Commands[k].Text == cmd {
				i = k
				break
			}
		}
		if i < 0 && len(d.Commands) < maxCommands {
			d.Commands = append(d.Commands, Command{Text: cmd})
			i = len(d.Commands) - 1
		}
		if i >= 0 {
			c := &d.Commands[i]
			c.Runs++
			c.LastExit = f.exit
			if f.failed && c.LastExit == 0 {
				c.LastExit = 1
			}
			if f.failed {
				c.Failed++
			}
		}
		if f.test && f.done {
			d.Tests = &TestResult{Command: cmd, Passed: !f.failed && f.exit == 0, Summary: rd.clean(f.outcome, 120), Time: rd.turn.last}
		}
	case "edited", "wrote":
		file := rd.clean(f.subject, 200)
		for _, x := range d.Files {
			if x == file {
				return
			}
		}
		if len(d.Files) < maxFiles {
			d.Files = append(d.Files, file)
		}
	}
}

// clean redacts secrets, makes the text valid UTF-8 and bounds it.
func (rd *reader) clean(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	red, found := secrets.Redact(s)
	rd.res.Redacted += len(found)
	return strings.TrimSpace(cut(red, limit))
}

func (rd *reader) finish() Result {
	res := rd.res
	res.Next, res.NextLine = rd.next, rd.nextLine
	if res.Next == 0 && res.NextLine == 0 {
		res.Next, res.NextLine = rd.opt.Offset, rd.opt.Line
	}
	d := rd.diary
	if res.Session == "" {
		res.Session = d.Session
	}
	if d.Format == "" {
		d.Format = res.Format
	}
	res.Cwd, res.Branch = d.Cwd, d.Branch
	if len(res.Skipped) == 0 {
		res.Skipped = nil
	}
	return res
}

// setSession notes what a line says of the session (the first to say so).
func (rd *reader) setSession(id, cwd, branch string) {
	d := rd.diary
	if d.Session == "" && id != "" {
		d.Session = cutBytes(oneLine(id), 128)
	}
	if d.Cwd == "" && cwd != "" {
		d.Cwd = rd.clean(oneLine(cwd), 400)
	}
	if branch != "" && branch != "HEAD" {
		d.Branch = rd.clean(oneLine(branch), 120)
	}
	if rd.res.Session == "" {
		rd.res.Session = d.Session
	}
}

// relative is a path relative to the session's directory when inside it.
func (rd *reader) relative(p string) string {
	p = oneLine(p)
	if cwd := rd.diary.Cwd; cwd != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// cut bounds s to n bytes at a rune boundary, saying how much was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + fmt.Sprintf(" …[cut %d bytes]", len(s)-k)
}

// cutBytes bounds a one-line s to n bytes with an ellipsis.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n - len("…")
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// testCommand tells a test run from other commands.
var testCommand = checkMatcher("test") // the ecosystems' test commands (diary.go)

// outcomeLine is the line of a command's output that tells how it went:
// the last that speaks of failure, else the last that speaks of passing.
var (
	failLine = regexp.MustCompile(`(?i)\b(?:fail(?:ed|ures?)?|errors?|panic|exception|traceback|not found|denied|refused)\b`)
	passLine = regexp.MustCompile(`(?i)\b(?:ok|pass(?:ed)?|success(?:ful)?)\b`)
	exitCode = regexp.MustCompile(`(?i)(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)[:\s]+|process exited with code\s+)(-?\d+)`)
)

// outcome finds the telling line of a command's output (looking at its
// last 64 KiB only: the end says how it went) and an exit code when the
// output states one.
func outcome(out string, failed bool) (line string, exit int, hasExit bool) {
	if len(out) > 64<<10 {
		out = out[len(out)-64<<10:]
	}
	nfail := strings.Count(out, "--- FAIL")
	// The last lines say how it went; the regular expressions look at
	// those only.
	tail := out
	for i, k := 0, len(out); i < 40; i++ {
		k = strings.LastIndexByte(out[:k], '\n')
		if k < 0 {
			break
		}
		tail = out[k+1:]
	}
	if len(tail) > 4<<10 {
		tail = tail[len(tail)-4<<10:]
	}
	if m := exitCode.FindAllStringSubmatch(tail, -1); len(m) > 0 {
		if _, err := fmt.Sscanf(m[len(m)-1][1], "%d", &exit); err == nil {
			hasExit = true
		}
	}
	var fail, pass, last string
	for _, l := range strings.Split(tail, "\n") {
		l = strings.TrimSpace(l)
		if len(l) > 240 {
			l = l[:240] // a line that long is output, not a verdict
		}
		if l == "" || exitCode.MatchString(l) && len(l) < 40 {
			continue
		}
		last = l
		if failLine.MatchString(l) {
			if fail == "" || strings.ContainsAny(l, " \t") {
				fail = l // a bare "FAIL" says less than the line before it
			}
		} else if passLine.MatchString(l) {
			pass = l
		}
	}
	switch {
	case nfail > 1:
		line = fmt.Sprintf("%d failures; %s", nfail, fail)
	case fail != "" && (failed || hasExit && exit != 0 || pass == ""):
		line = fail
	case pass != "":
		line = pass
	case failed:
		line = last
	}
	return cutBytes(oneLine(line), 120), exit, hasExit
}

// parseTime reads an RFC 3339 timestamp; zero when there is none.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
