package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
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
	maxNotes    = 1024    // working notes kept of one turn (a long task is one turn)
	maxNoteText = 1 << 20 // their text in all
	minNote     = 40      // a shorter note ("Let me look at the test first.") states nothing found
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
	// agentLines are hashes of the lines the agent said in this read, to
	// tell a prompt that pastes them back.
	agentLines map[uint64]bool
}

// turn is what a turn said so far: it is emitted when the next prompt
// comes (or the session is over), and only then counted in the diary, so
// that a turn read twice is counted once.
type turn struct {
	start     int64
	startLine int
	prompt    *Item
	pasted    *Item   // what the prompt pasted in, not the person's words
	asked     []*Item // the person's answers to the agent's questions
	facts     []*fact
	said      *Item // the last text of the turn so far
	answer    *Item
	notes     []*Item // what the agent said before its last text
	noteBytes int
	first     time.Time
	last      time.Time
	compacted int
}

func (t *turn) empty() bool {
	return t.prompt == nil && t.pasted == nil && len(t.asked) == 0 && len(t.facts) == 0 && t.answer == nil && t.compacted == 0
}

// fact is one tool call of a turn and how it ended.
type fact struct {
	id      string
	kind    string // "ran", "edited", "wrote", "searched", "tool"
	subject string // the command, the file, the pattern or the tool's name
	detail  string
	done    bool
	failed  bool
	refused bool // the person said no to the call
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
		case f.refused:
			s += ": refused by the person"
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
		if f.refused {
			s += " (refused by the person)"
		} else if f.failed {
			s += " (failed)"
		}
	case "searched":
		s = "searched " + f.subject
	default:
		s = "tool " + f.subject
		if f.detail != "" {
			s += ": " + f.detail
		}
		if f.refused {
			s += ": refused by the person"
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
	rd.seen(it.Time)
	own, pasted := rd.split(it.Text)
	if pasted != "" {
		p := it
		p.Key, p.Role = it.Key+"#pasted", RolePasted
		p.Text = rd.clean(pasted, maxText)
		if p.Text != "" {
			p.Text = PastedMark + "\n" + p.Text
			rd.turn.pasted = &p
		}
	}
	it.Role = RoleUser
	it.Text = rd.clean(own, maxText)
	if it.Text == "" {
		return nil
	}
	rd.turn.prompt = &it
	return nil
}

// boundary ends the turn where the harness wrote something the agent
// answers in a turn of its own (a background task's notice), without a
// prompt.
func (rd *reader) boundary(start int64) error {
	if err := rd.close(); err != nil {
		return err
	}
	rd.turn = turn{start: start, startLine: rd.line - 1}
	return nil
}

// asked notes the person's answer to a question the agent asked them.
func (rd *reader) asked(it Item) {
	it.Role = RoleUser
	it.Text = rd.clean(it.Text, maxText)
	if it.Text == "" {
		return
	}
	rd.seen(it.Time)
	it.Key += "#answer"
	rd.turn.asked = append(rd.turn.asked, &it)
}

// answer notes an assistant's text: the last of a turn is its answer.
func (rd *reader) answer(it Item) {
	it.Text = strings.TrimSpace(it.Text)
	if it.Text == "" {
		return
	}
	rd.seen(it.Time)
	rd.noteAgentLines(it.Text)
	it.Role = RoleAssistant
	if prev := rd.turn.answer; prev != nil && len(prev.Text) >= minNote && len(rd.turn.notes) < maxNotes && rd.turn.noteBytes+len(prev.Text) <= maxNoteText {
		// Not the turn's last text after all: a working note.
		rd.turn.noteBytes += len(prev.Text)
		rd.turn.notes = append(rd.turn.notes, prev)
	}
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
	if t.prompt != nil || t.pasted != nil {
		d.Prompts++
	}
	if t.prompt != nil && len(d.Asked) < maxAsked {
		d.Asked = append(d.Asked, cutBytes(oneLine(t.prompt.Text), maxAskedLen))
	}
	// The person's words first, then what they pasted and answered.
	for _, it := range append([]*Item{t.prompt, t.pasted}, t.asked...) {
		if it != nil {
			if err := rd.send(*it); err != nil {
				return err
			}
		}
	}
	for i, it := range t.notes {
		n := *it
		n.Key = fmt.Sprintf("%s#note%d", it.Key, i)
		n.Role = RoleNotes
		if n.Text = rd.clean(n.Text, maxText); n.Text == "" {
			continue
		}
		n.Text = NotesMark + "\n" + n.Text
		if err := rd.send(n); err != nil {
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
	if it := t.answer; it != nil {
		it.Text = rd.clean(it.Text, maxText)
		if it.Text != "" {
			if err := rd.send(*it); err != nil {
				return err
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

// harnessTags are the tags in which an agent's harness writes into a
// user message: reminders, hooks' output, local commands and their
// output, notifications of background tasks, the IDE's selection (Claude
// Code); the environment, the project's instructions, skills, shell
// commands, review results and aborted turns (Codex). Their text is never
// the person's words.
var harnessTags = []string{
	"system-reminder", "user-prompt-submit-hook", "command-name", "command-message", "command-args",
	"command-contents", "local-command-stdout", "local-command-stderr", "local-command-caveat",
	"bash-input", "bash-stdout", "bash-stderr", "task-notification", "ide_selection", "ide_opened_file",
	"ide_diagnostics", "post-tool-use-hook", "environment_context", "user_instructions", "permissions",
	"INSTRUCTIONS", "user_shell_command", "turn_aborted", "user_action", "skill", "skills_instructions",
}

// noticeTags open a message that is the harness's whole: what follows
// such a block (Claude Code's "Read the output file to retrieve the
// result: …" after a task notification, a sub-agent's report in it) is
// the harness's too.
var noticeTags = map[string]bool{
	"task-notification": true, "local-command-stdout": true, "local-command-stderr": true,
	"local-command-caveat": true, "bash-stdout": true, "bash-stderr": true, "user_action": true,
	"turn_aborted": true, "environment_context": true, "user_instructions": true, "INSTRUCTIONS": true,
	"user-prompt-submit-hook": true, "post-tool-use-hook": true, "user_shell_command": true,
}

// stripHarness takes the harness's blocks out of a user message (see
// HarnessSpans). What is left is what the person wrote, trimmed.
func stripHarness(s string) string {
	spans := HarnessSpans(s)
	if len(spans) == 0 {
		return strings.TrimSpace(s)
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
// harness wrote: the harness tags' blocks ("<system-reminder>…
// </system-reminder>", attributes allowed; an unclosed one runs to the
// end) where the harness puts them — a run of blocks that opens the
// message and a run that closes it. A message opened by a notice (a task
// notification, a local command's output, Codex's environment …) is the
// harness's whole. A tag in the middle of the person's words is theirs: a
// log or a transcript they pasted. The spans are sorted and do not
// overlap.
func HarnessSpans(s string) [][2]int {
	if !strings.Contains(s, "<") {
		return nil
	}
	type block struct {
		span [2]int
		tag  string
	}
	var all []block
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
				all = append(all, block{[2]int{start, len(s)}, tag}) // unclosed: the rest is the harness's
				break
			}
			off = start + j + len(closer)
			all = append(all, block{[2]int{start, off}, tag})
		}
	}
	slices.SortFunc(all, func(a, b block) int { return a.span[0] - b.span[0] })
	merged := all[:0]
	for _, b := range all {
		if n := len(merged); n > 0 && b.span[0] < merged[n-1].span[1] {
			merged[n-1].span[1] = max(merged[n-1].span[1], b.span[1]) // one tag's block inside another's
			continue
		}
		merged = append(merged, b)
	}
	blank := func(a, b int) bool { return strings.TrimSpace(s[a:b]) == "" }
	var out [][2]int
	// The run that opens the message.
	at, lead := 0, 0
	for ; lead < len(merged) && blank(at, merged[lead].span[0]); lead++ {
		if lead == 0 && noticeTags[merged[0].tag] {
			return [][2]int{{merged[0].span[0], len(s)}}
		}
		out = append(out, merged[lead].span)
		at = merged[lead].span[1]
	}
	// The run that closes it.
	var tail [][2]int
	at = len(s)
	for k := len(merged) - 1; k >= lead && blank(merged[k].span[1], at); k-- {
		tail = append(tail, merged[k].span)
		at = merged[k].span[0]
	}
	for k := len(tail) - 1; k >= 0; k-- {
		out = append(out, tail[k])
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

// PastedMark opens a draft of text the person pasted into a prompt
// (another tool's output, another chatbot's analysis, the agent's own
// words pasted back): theirs to show, not their words nor a rule they set.
// Such a draft is attributed to the agent, never to the person.
const PastedMark = "[pasted by the person into their prompt]"

// NotesMark opens a draft of the agent's working notes (RoleNotes): what it
// said between its tool calls. Most of it is narration of the moment; what
// it concluded there ("X does not support Y") is where a session's durable
// findings are said, and consolidation reads it for those only.
const NotesMark = "[the agent's working notes, said during a turn]"

// Unmarked is a draft's text as a list shows it: what its mark says it is
// ("notes: …", "pasted: …"), then what it says; a draft without a mark is
// its text.
func Unmarked(text string) string {
	for _, m := range []struct{ mark, kind string }{{NotesMark, "notes"}, {PastedMark, "pasted"}} {
		if r, ok := strings.CutPrefix(text, m.mark); ok {
			return m.kind + ": " + strings.TrimLeft(r, "\n")
		}
	}
	return text
}

// Bounds of what reads as pasted.
const (
	pastedIntro    = 400  // a first paragraph up to this long can be the person's own words before a paste
	pastedMin      = 120  // a paste the intro points at is at least this long
	pastedLong     = 6000 // a prompt this long is pasted whatever it looks like
	pastedShaped   = 1500 // a prompt this long shaped like generated text (headings, tables) is pasted
	pastedEmphasis = 6    // … or emphasised all over: this many "**" (three bold spans)
	pastedOwnIntro = 120  // a paste found by its shape keeps a first paragraph this short as the person's
	agentLineMin   = 20   // the agent's lines this long are remembered, to tell them pasted back
	maxAgentLines  = 1 << 14
	quotedLinesMin = 3
)

var (
	// pointsAtPaste is a first paragraph that introduces what follows as
	// something else's text.
	pointsAtPaste = regexp.MustCompile(`(?i)\b(?:below|pasted)\b|\b(?:output|error|log|logs|review|note|notes|analysis|report|response|feedback|comment|comments|message|traceback|stack ?trace)\s*:\s*$`)
	// generatedShape is a line of generated text: a Markdown heading, a
	// table row.
	generatedShape = regexp.MustCompile(`(?m)^(?:#{1,4} \S|\|.*\|\s*$)`)
)

// split tells the person's own words in a prompt from what they pasted
// in. A prompt is pasted in part or whole when
//   - most of its lines (three at least) are lines the agent said earlier
//     in the read: its own output pasted back (those lines are the paste,
//     the others the person's);
//   - its first paragraph is short and points at what follows ("the note
//     below", "here is the error output:"): the rest is pasted;
//   - it is very long (pastedLong), or long and shaped like generated text
//     (Markdown headings, tables): a chatbot's analysis.
//
// A short first paragraph before a paste stays the person's words.
func (rd *reader) split(text string) (own, pasted string) {
	text = strings.TrimSpace(text)
	intro, rest := text, ""
	if i := strings.Index(text, "\n\n"); i >= 0 {
		intro, rest = strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+2:])
	}
	hasIntro := rest != "" && len(intro) <= pastedIntro
	nonblank := 0
	var mine, theirs []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		nonblank++
		if t := strings.TrimSpace(l); len(t) >= agentLineMin && rd.agentLines[lineHash(t)] {
			theirs = append(theirs, l)
		} else {
			mine = append(mine, l)
		}
	}
	if len(theirs) >= quotedLinesMin && 2*len(theirs) >= nonblank {
		// The agent's own lines pasted back: the rest is the person's.
		return strings.Join(mine, "\n"), strings.Join(theirs, "\n")
	}
	pointed := hasIntro && len(rest) >= pastedMin && pointsAtPaste.MatchString(intro)
	isPasted := pointed || len(text) >= pastedLong ||
		len(text) >= pastedShaped && (len(generatedShape.FindAllStringIndex(text, 3)) >= 2 || strings.Count(text, "**") >= pastedEmphasis)
	switch {
	case !isPasted:
		return text, ""
	case pointed || hasIntro && len(intro) <= pastedOwnIntro && !strings.Contains(intro, "**"):
		// "here is the error output:", "ok so gemini says this, thoughts?"
		return intro, rest
	}
	// A paste found by its shape opens as it goes on: its first paragraph
	// is the chatbot's too ("We are entering the **Scale-Up** phase …").
	return "", text
}

// noteAgentLines remembers the lines of what the agent said.
func (rd *reader) noteAgentLines(text string) {
	if rd.agentLines == nil {
		rd.agentLines = map[uint64]bool{}
	}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); len(l) >= agentLineMin {
			if len(rd.agentLines) >= maxAgentLines {
				clear(rd.agentLines) // bounded: the latest are what is pasted back
			}
			rd.agentLines[lineHash(l)] = true
		}
	}
}

func lineHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// parseTime reads an RFC 3339 timestamp; zero when there is none.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
