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
	"slices"
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

// MaxLine bounds one line of a transcript. A line is one message or one
// tool result; the largest real ones carry pasted screenshots in base64
// (the model API takes images of up to 5 MB, 6.7 MB once encoded, and a
// message may hold two), so 16 MiB keeps every line an agent writes while
// a file of one endless line (a corrupt log, /dev/zero's bytes, a hostile
// path) costs at most that much memory. A longer line is read past, not
// kept: skipped and counted in Result.Long.
const MaxLine = 16 << 20

// lineReader reads a transcript line by line, holding at most max bytes of
// a line.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// next reads the next line with its '\n'. line is nil for a line over the
// bound (read to its end all the same); n counts every byte read; ended
// says the line ended with '\n' (not at the end of the file).
func (lr *lineReader) next() (line []byte, n int64, ended bool, err error) {
	lr.buf = lr.buf[:0]
	long := false
	for {
		frag, err := lr.br.ReadSlice('\n')
		n += int64(len(frag))
		if !long && len(lr.buf)+len(frag) > lr.max {
			long, lr.buf = true, lr.buf[:0]
		}
		if !long {
			lr.buf = append(lr.buf, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		ended = len(frag) > 0 && frag[len(frag)-1] == '\n'
		if long {
			return nil, n, ended, err
		}
		return lr.buf, n, ended, err
	}
}

func newLineReader(r io.Reader, max int) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	return &lineReader{br: br, max: max}
}

// Read reads a transcript from opt.Offset (r starts there) and emits its
// items turn by turn, adding to opt.Diary. See Options for what is read
// and where the next read starts.
func Read(r io.Reader, opt Options, emit func(Item) error) (Result, error) {
	lr := newLineReader(r, MaxLine)
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
		raw, n, ended, err := lr.next()
		if n > 0 && !ended && !opt.Final {
			break // half written, perhaps right now: the next read takes it
		}
		if n > 0 {
			start := rd.pos
			rd.pos += n
			rd.line++
			rd.res.Lines++
			if raw == nil {
				rd.res.Long++ // over MaxLine: passed over, the rest is read
			} else if err := rd.take(bytes.TrimSpace(raw), start); err != nil {
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
var testCommand = regexp.MustCompile(`(?:^|[\s;&|(])(?:go\s+test|pytest|py\.test|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|cargo\s+(?:test|nextest)|make\s+(?:test|check)|jest|vitest|mocha|rspec|phpunit|tox|nox|mvn\s+test|gradle\w*\s+test|dotnet\s+test|ctest|bats|\.ci/run)\b`)

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

// harnessTags are the tags in which an agent's harness writes into a
// user message: reminders, hooks' output, local commands and their
// output, notifications of background tasks, the IDE's selection (Claude
// Code); the environment, the project's instructions, shell commands and
// aborted turns (Codex). Their text is never the person's words.
var harnessTags = []string{
	"system-reminder", "user-prompt-submit-hook", "command-name", "command-message", "command-args",
	"command-contents", "local-command-stdout", "local-command-stderr", "local-command-caveat",
	"bash-input", "bash-stdout", "bash-stderr", "task-notification", "ide_selection", "ide_opened_file",
	"ide_diagnostics", "post-tool-use-hook", "environment_context", "user_instructions", "permissions",
	"INSTRUCTIONS", "user_shell_command", "turn_aborted",
}

// stripHarness takes every harness tag's block out of a user message
// (see HarnessSpans). What is left is what the person wrote, trimmed.
func stripHarness(s string) string {
	spans := HarnessSpans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		last = sp[1]
	}
	b.WriteString(s[last:])
	return strings.TrimSpace(b.String())
}

// HarnessSpans are the byte ranges of a user message that an agent's
// harness wrote: every harness tag's block ("<system-reminder>…
// </system-reminder>", attributes allowed), an unclosed one to the end of
// the text. They are sorted and do not overlap. One pass per tag that
// occurs.
func HarnessSpans(s string) [][2]int {
	if !strings.Contains(s, "<") {
		return nil
	}
	var spans [][2]int
	for _, tag := range harnessTags {
		open := "<" + tag
		if !strings.Contains(s, open) {
			continue
		}
		closer := "</" + tag + ">"
		for off := 0; off < len(s); {
			i := tagStart(s[off:], open)
			if i < 0 {
				break
			}
			start := off + i
			j := strings.Index(s[start:], closer)
			if j < 0 {
				spans = append(spans, [2]int{start, len(s)}) // unclosed: the rest is the harness's
				break
			}
			off = start + j + len(closer)
			spans = append(spans, [2]int{start, off})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1]) // one tag's block inside another's
			continue
		}
		out = append(out, sp)
	}
	return out
}

// tagStart is where "<tag" opens a tag in s (followed by ">", a space or
// "/"), -1 when it does not.
func tagStart(s, open string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], open)
		if i < 0 {
			return -1
		}
		k := off + i + len(open)
		if k < len(s) && (s[k] == '>' || s[k] == ' ' || s[k] == '/' || s[k] == '\n' || s[k] == '\t') {
			return off + i
		}
		off = k
	}
}

// parseTime reads an RFC 3339 timestamp; zero when there is none.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
