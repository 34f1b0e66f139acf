package ingest

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Claude Code writes one JSON object per line to
// ~/.claude/projects/<dir>/<session>.jsonl: the person's prompts and the
// tool results as "user" lines, the model's text, thinking and tool calls
// as "assistant" lines (one content block each, sharing the message id),
// and bookkeeping lines (summary, system, progress, file-history-snapshot,
// queue-operation, …).
//
// Much of what stands in a "user" line is not the person's: hooks' output
// and skills' bodies (isMeta), the summary a compaction writes
// (isCompactSummary), notices of background tasks (<task-notification>),
// local commands and their output, interruptions. A prompt typed while the
// agent was busy is only a queue-operation's content (next to queued
// notices); the person's answer to an AskUserQuestion comes back as that
// tool's result. Harness text in an "assistant" line carries the model
// "<synthetic>" (a usage limit, an API error). Sub-agents write their own
// files (<session>/subagents/agent-<id>.jsonl, each line with isSidechain
// and agentId; older versions wrote them inline with isSidechain), and a
// compaction is one too (agentId "acompact-…"): the conversation replayed
// to a summariser, and its summary.

type claudeLine struct {
	Type             string          `json:"type"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	AgentID          string          `json:"agentId"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsAPIError       bool            `json:"isApiErrorMessage"`
	Operation        string          `json:"operation"` // queue-operation: enqueue, dequeue, remove
	Content          json.RawMessage `json:"content"`   // queue-operation: the queued text
	Message          *claudeMessage  `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
}

type claudeMessage struct {
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// claudeState pairs tool calls with their results across lines, and keeps
// the prompts read from the queue so that the same prompt delivered as a
// user line later is read once.
type claudeState struct {
	pending map[string]*fact
	queued  []string
}

// maxQueued bounds the queued prompts remembered.
const maxQueued = 8

func (rd *reader) claudeLine(raw []byte, start int64) error {
	var l claudeLine
	if err := json.Unmarshal(raw, &l); err != nil {
		rd.malformed("not JSON: " + jsonWhy(err))
		return nil
	}
	rd.setSession(l.SessionID, l.Cwd, l.GitBranch)
	t := parseTime(l.Timestamp)
	switch l.Type {
	case "user", "assistant":
	case "queue-operation":
		return rd.claudeQueued(l, t, start)
	case "summary":
		rd.skip("summary")
		return nil
	case "":
		rd.malformed("a line without a type")
		return nil
	default:
		rd.skip(safeType(l.Type))
		return nil
	}
	if strings.HasPrefix(l.AgentID, "acompact") {
		// A compaction's own transcript: the conversation replayed to a
		// summariser and the summary. Never a draft.
		rd.skip("compaction")
		return nil
	}
	if l.Message == nil {
		rd.skip(l.Type + " without a message")
		return nil
	}
	text, blocks := claudeContent(l.Message.Content)
	if l.Type == "assistant" {
		rd.claudeAssistant(l, t, text, blocks)
		return nil
	}
	return rd.claudeUser(l, t, text, blocks, start)
}

// claudeAssistant reads an assistant line: the agent's words, and the
// tools it called.
func (rd *reader) claudeAssistant(l claudeLine, t time.Time, text string, blocks []claudeBlock) {
	rd.seen(t)
	switch {
	case l.Message.Model == "<synthetic>" || l.IsAPIError:
		rd.skip("synthetic") // the harness's notice in the agent's place
		return
	case l.IsSidechain || rd.opt.Subagent:
		// A sub-agent's working notes: its report reaches the main
		// agent as a tool result, and what the main agent takes from it
		// is in the main agent's own words.
		rd.skip("sub-agent")
		return
	}
	say := func(text string) {
		rd.answer(Item{Key: l.UUID, Text: text, Time: t, Line: rd.line, Messages: []string{l.UUID}})
	}
	if text != "" {
		say(text)
	}
	// In order: a text, then the calls made after it.
	for _, b := range blocks {
		switch b.Type {
		case "text":
			say(b.Text)
		case "tool_use":
			rd.claudeToolUse(b)
		}
	}
}

// claudeUser reads a user line: a prompt, tool results, or something the
// harness wrote.
func (rd *reader) claudeUser(l claudeLine, t time.Time, text string, blocks []claudeBlock, start int64) error {
	if l.IsSidechain || rd.opt.Subagent {
		rd.skip("sub-agent") // the main agent's instructions and the tools' results
		return nil
	}
	results := 0
	var said, harness []string
	if text != "" {
		blocks = append([]claudeBlock{{Type: "text", Text: text}}, blocks...)
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			results++
			if answer := askedAnswer(b, l.ToolUseResult); answer != "" {
				rd.asked(Item{Key: l.UUID, Text: answer, Time: t, Line: rd.line, Messages: []string{l.UUID}})
			}
			rd.claudeToolResult(b, l.ToolUseResult)
		case "text":
			if cmd := slashCommand(b.Text); cmd != "" {
				said = append(said, cmd)
				continue
			}
			if p := stripHarness(b.Text); p != "" && !harnessText(p) {
				said = append(said, p)
			} else if strings.TrimSpace(b.Text) != "" {
				harness = append(harness, b.Text)
			}
		}
	}
	prompt := strings.TrimSpace(strings.Join(said, "\n"))
	switch {
	case l.IsCompactSummary || compactSummary(prompt):
		rd.turn.compacted++
		rd.skip("compact summary")
	case l.IsMeta:
		rd.skip("meta")
	case prompt != "":
		if rd.fromQueue(prompt) {
			rd.skip("queued prompt read before")
			return nil
		}
		return rd.prompt(Item{Key: l.UUID, Text: prompt, Time: t, Line: rd.line, Messages: []string{l.UUID}}, start)
	case len(harness) > 0:
		rd.skip("meta")
		if endsTurn(harness[0]) {
			// A background task's notice or an interruption ends the turn
			// (the agent answers it in a turn of its own), but is no prompt.
			return rd.boundary(start)
		}
	case results == 0:
		rd.skip("empty user line")
	default:
		rd.seen(t)
	}
	return nil
}

// claudeQueued reads a queue-operation line: a prompt the person typed
// while the agent was busy (the only place Claude Code keeps it), or a
// notice queued the same way.
func (rd *reader) claudeQueued(l claudeLine, t time.Time, start int64) error {
	var content string
	if len(l.Content) > 0 && l.Content[0] == '"' {
		_ = json.Unmarshal(l.Content, &content)
	}
	if l.Operation != "enqueue" || strings.TrimSpace(content) == "" {
		rd.skip("queue-operation")
		return nil
	}
	prompt := slashCommand(content)
	if prompt == "" {
		prompt = stripHarness(content)
	}
	if prompt == "" || harnessText(prompt) {
		rd.skip("queued notice")
		return nil
	}
	if len(rd.claude.queued) >= maxQueued {
		rd.claude.queued = rd.claude.queued[1:]
	}
	rd.claude.queued = append(rd.claude.queued, prompt)
	key := "queue:L" + strconv.Itoa(rd.line)
	return rd.prompt(Item{Key: key, Text: prompt, Time: t, Line: rd.line, Messages: []string{key}}, start)
}

// fromQueue reports whether a prompt was read from the queue before (and
// forgets it: a second one is typed again).
func (rd *reader) fromQueue(prompt string) bool {
	for i, q := range rd.claude.queued {
		if q == prompt {
			rd.claude.queued = append(rd.claude.queued[:i], rd.claude.queued[i+1:]...)
			return true
		}
	}
	return false
}

// claudeContent reads message.content: a string, or a list of blocks.
func claudeContent(raw json.RawMessage) (string, []claudeBlock) {
	if len(raw) == 0 {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, nil
	}
	var blocks []claudeBlock
	_ = json.Unmarshal(raw, &blocks)
	return "", blocks
}

// harnessText is text Claude Code itself put in a user line that is not
// in one of its tags (those stripHarness takes out): a caveat before
// local commands' output, an interruption, a skill's body, a compaction's
// summary, the tail of a task's notice.
func harnessText(s string) bool {
	for _, p := range []string{"Caveat: The messages below were generated", "[Request interrupted by user", "Base directory for this skill:", "Read the output file to retrieve the result:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return compactSummary(s)
}

// compactSummary is the summary a compaction puts where the conversation
// was, as a user line (isCompactSummary says so; older lines do not).
func compactSummary(s string) bool {
	return strings.HasPrefix(s, "This session is being continued from a previous conversation")
}

// endsTurn says a user line the harness wrote ends the turn: a background
// task's notice (the agent answers it in a turn of its own) or the person
// interrupting.
func endsTurn(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "<task-notification") || strings.HasPrefix(s, "[Request interrupted by user")
}

// slashCommand is what the person typed to run a slash command, when it
// carries words of theirs: "/compact keep the API notes" from Claude
// Code's <command-name> and <command-args>; "" for a command without
// arguments (/model, /clear) or text that is no command.
func slashCommand(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "<command-") {
		return ""
	}
	name := tagText(s, "command-name")
	args := tagText(s, "command-args")
	if name == "" || len(words.FindAllString(args, 3)) < 3 {
		return "" // no words of theirs: a flag, a model's name
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	return name + " " + args
}

// words are words of letters.
var words = regexp.MustCompile(`\pL{2,}`)

// tagText is the trimmed text of the first <tag>…</tag> in s.
func tagText(s, tag string) string {
	i := strings.Index(s, "<"+tag+">")
	if i < 0 {
		return ""
	}
	s = s[i+len(tag)+2:]
	j := strings.Index(s, "</"+tag+">")
	if j < 0 {
		return ""
	}
	return strings.TrimSpace(s[:j])
}

// askedAnswer is the person's answer to the agent's AskUserQuestion, from
// that tool's result: the answers alone (the questions are the agent's
// words), one a line; "" for any other result.
func askedAnswer(b claudeBlock, extra json.RawMessage) string {
	out, _ := claudeContent(b.Content)
	if out == "" {
		_, blocks := claudeContent(b.Content)
		for _, x := range blocks {
			if x.Type == "text" {
				out += x.Text
			}
		}
	}
	const lead = "User has answered your questions:"
	if !strings.HasPrefix(strings.TrimSpace(out), lead) {
		return ""
	}
	var r struct {
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
		Answers map[string]string `json:"answers"`
	}
	var answers []string
	if len(extra) > 0 && extra[0] == '{' && json.Unmarshal(extra, &r) == nil && len(r.Answers) > 0 {
		for _, q := range r.Questions {
			if a := strings.TrimSpace(r.Answers[q.Question]); a != "" {
				answers = append(answers, a)
			}
		}
		if len(answers) == 0 {
			for _, a := range r.Answers {
				if a = strings.TrimSpace(a); a != "" {
					answers = append(answers, a)
				}
			}
			slices.Sort(answers) // a map's order is none: one order for every read
		}
		return strings.Join(answers, "\n")
	}
	// The result's text alone: "question"="answer", … pairs.
	for _, m := range answerPair.FindAllStringSubmatch(out, -1) {
		if a := strings.TrimSpace(m[1]); a != "" {
			answers = append(answers, a)
		}
	}
	return strings.Join(answers, "\n")
}

// answerPair is one `"question"="answer"` of an AskUserQuestion's result.
var answerPair = regexp.MustCompile(`"=\s*"((?:[^"\\]|\\.)*)"`)

func (rd *reader) claudeToolUse(b claudeBlock) {
	var in struct {
		Command      string `json:"command"`
		Description  string `json:"description"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Pattern      string `json:"pattern"`
		Path         string `json:"path"`
		URL          string `json:"url"`
		Query        string `json:"query"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(b.Input, &in)
	f := &fact{id: b.ID}
	switch b.Name {
	case "Bash":
		f.kind, f.subject = "ran", cutBytes(oneLine(in.Command), 120)
		f.test = testCommand.MatchString(in.Command)
	case "Edit", "MultiEdit":
		f.kind, f.subject = "edited", rd.relative(in.FilePath)
	case "Write":
		f.kind, f.subject = "wrote", rd.relative(in.FilePath)
	case "NotebookEdit":
		f.kind, f.subject = "edited", rd.relative(in.NotebookPath)
	case "Read", "TodoWrite", "TodoRead", "BashOutput", "KillShell", "ExitPlanMode":
		return // reading and bookkeeping are not facts worth keeping
	case "Grep", "Glob":
		f.kind, f.subject = "searched", "'"+cutBytes(oneLine(in.Pattern), 80)+"'"
	case "Task", "Agent":
		f.kind, f.subject, f.detail = "tool", b.Name, cutBytes(oneLine(in.Description), 100)
	case "WebFetch":
		f.kind, f.subject, f.detail = "tool", b.Name, cutBytes(oneLine(in.URL), 100)
	case "WebSearch":
		f.kind, f.subject, f.detail = "tool", b.Name, cutBytes(oneLine(in.Query), 100)
	default:
		f.kind, f.subject = "tool", cutBytes(oneLine(b.Name), 80)
	}
	if f.subject == "" {
		return
	}
	if rd.claude.pending == nil {
		rd.claude.pending = map[string]*fact{}
	}
	rd.claude.pending[b.ID] = f
	rd.called(f)
}

func (rd *reader) claudeToolResult(b claudeBlock, extra json.RawMessage) {
	f := rd.claude.pending[b.ToolUseID]
	if f == nil {
		return // its call was in a turn read before, or a side chain's
	}
	delete(rd.claude.pending, b.ToolUseID)
	out, _ := claudeContent(b.Content)
	if out == "" {
		_, blocks := claudeContent(b.Content)
		var parts []string
		for _, x := range blocks {
			if x.Type == "text" {
				parts = append(parts, x.Text)
			}
		}
		out = strings.Join(parts, "\n")
	}
	if len(extra) > 0 && extra[0] == '{' && f.kind == "ran" {
		var r struct {
			Stdout      string `json:"stdout"`
			Stderr      string `json:"stderr"`
			Interrupted bool   `json:"interrupted"`
		}
		if json.Unmarshal(extra, &r) == nil && out == "" {
			out = r.Stdout + "\n" + r.Stderr
		}
		if r.Interrupted {
			b.IsError = true
		}
	}
	if b.IsError && strings.HasPrefix(strings.TrimSpace(out), "The user doesn't want to proceed with this tool use") {
		// The person said no to the call: their choice, not a failure.
		f.done, f.refused = true, true
		return
	}
	f.done, f.failed = true, b.IsError
	f.outcome, f.exit, f.hasExit = outcome(out, b.IsError)
	if f.hasExit && f.exit != 0 {
		f.failed = true
	}
	if f.failed {
		rd.failed(f)
	}
}

// jsonWhy is a JSON error without the text it quotes.
func jsonWhy(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return "not an object of the expected shape"
}
