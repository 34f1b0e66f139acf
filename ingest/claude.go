package ingest

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Claude Code writes one JSON object per line to
// ~/.claude/projects/<dir>/<session>.jsonl: the person's prompts and the
// tool results as "user" lines, the model's text, thinking and tool calls
// as "assistant" lines (one content block each, sharing the message id),
// and bookkeeping lines (summary, system, file-history-snapshot, …).
// Sub-agents' messages carry isSidechain; a compaction writes a user line
// with isCompactSummary holding the summary of what came before.

type claudeLine struct {
	Type             string          `json:"type"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          *claudeMessage  `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
}

type claudeMessage struct {
	Role    string          `json:"role"`
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

// claudeState pairs tool calls with their results across lines.
type claudeState struct {
	pending map[string]*fact
}

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
	if l.Message == nil {
		rd.skip(l.Type + " without a message")
		return nil
	}
	text, blocks := claudeContent(l.Message.Content)
	if l.Type == "assistant" {
		rd.seen(t)
		say := func(text string) {
			rd.answer(Item{Key: l.UUID, Text: text, Time: t, Line: rd.line, Messages: []string{l.UUID}}, l.IsSidechain)
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
				if !l.IsSidechain {
					rd.claudeToolUse(b)
				}
			}
		}
		return nil
	}

	// A user line: a prompt, tool results, or something the harness wrote.
	results := 0
	var said []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			results++
			if !l.IsSidechain {
				rd.claudeToolResult(b, l.ToolUseResult)
			}
		case "text":
			said = append(said, b.Text)
		}
	}
	if text != "" {
		said = append(said, text)
	}
	joined := strings.TrimSpace(strings.Join(said, "\n"))
	prompt := stripHarness(joined)
	switch {
	case l.IsCompactSummary:
		rd.turn.compacted++
		rd.skip("compact summary")
	case l.IsSidechain:
		if prompt != "" {
			rd.skip("sub-agent instructions") // the main agent's words, never the person's
		}
	case l.IsMeta || harnessText(prompt) || prompt == "" && joined != "":
		rd.skip("meta")
	case prompt != "":
		return rd.prompt(Item{Key: l.UUID, Text: prompt, Time: t, Line: rd.line, Messages: []string{l.UUID}}, start)
	case results == 0:
		rd.skip("empty user line")
	default:
		rd.seen(t)
	}
	return nil
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
// local commands' output, an interruption.
func harnessText(s string) bool {
	for _, p := range []string{"Caveat: The messages below were generated", "[Request interrupted by user"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

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
