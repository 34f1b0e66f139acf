package ingest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Codex CLI writes a rollout per session to
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl: lines of
// {timestamp, type, payload}. session_meta opens it (id, cwd, git);
// response_item lines hold the messages, function calls and their outputs;
// event_msg lines repeat the messages for the terminal (each user message
// is there twice: read once); compacted marks a compaction. Its messages
// carry no ids: an item is named by its line, which an append-only file
// keeps.
//
// Codex sends text of its own as user messages: the project's AGENTS.md,
// the environment, skills, an aborted turn, a /review's findings
// (<user_action>). A custom prompt (/speckit.plan …) is stored expanded:
// the person typed only what stands in its "## User Input" block; an IDE
// puts the files the person points at above "## My request for Codex:".
// A sub-agent's rollout (a review, a spawned thread) names its parent in
// session_meta's source.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type string `json:"type"`
	// session_meta, turn_context
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	Git *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	Source json.RawMessage `json:"source"` // "cli", "vscode", or {"subagent": …}
	// message
	Role    string      `json:"role"`
	Content []codexPart `json:"content"`
	// function_call, custom_tool_call, local_shell_call, and their outputs
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    *struct {
		Command []string `json:"command"`
	} `json:"action"`
	Status string `json:"status"`
}

type codexPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type codexState struct {
	pending map[string]*fact
	// instructions are the project instructions Codex sent (AGENTS.md's
	// text), to tell a later user message that repeats them.
	instructions []string
}

func (rd *reader) codexLine(raw []byte, start int64) error {
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		rd.malformed("not JSON: " + jsonWhy(err))
		return nil
	}
	var p codexPayload
	if len(l.Payload) > 0 && json.Unmarshal(l.Payload, &p) != nil {
		rd.malformed("a " + safeType(l.Type) + " line whose payload is not of the expected shape")
		return nil
	}
	t := parseTime(l.Timestamp)
	key := "L" + strconv.Itoa(rd.line)
	switch l.Type {
	case "session_meta":
		branch := ""
		if p.Git != nil {
			branch = p.Git.Branch
		}
		rd.setSession(p.ID, p.Cwd, branch)
		if codexSubagent(p.Source) {
			rd.opt.Subagent = true
		}
		rd.skip("session_meta")
		return nil
	case "turn_context":
		rd.setSession("", p.Cwd, "")
		rd.skip("turn_context")
		return nil
	case "compacted":
		rd.turn.compacted++
		rd.skip("compacted")
		return nil
	case "event_msg":
		rd.skip("event_msg") // the terminal's copy of what response_item holds
		return nil
	case "response_item":
	case "":
		rd.malformed("a line without a type")
		return nil
	default:
		rd.skip(safeType(l.Type))
		return nil
	}
	if rd.opt.Subagent && p.Type != "reasoning" {
		rd.seen(t)
		rd.skip("sub-agent") // its findings reach the main agent, which says what it takes
		return nil
	}
	switch p.Type {
	case "message":
		var parts []string
		for _, c := range p.Content {
			if c.Type == "input_text" || c.Type == "output_text" || c.Type == "text" {
				if p.Role == "user" {
					c.Text = rd.codexUserText(c.Text)
				}
				parts = append(parts, c.Text)
			}
		}
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		switch p.Role {
		case "user":
			if text == "" {
				rd.skip("context")
				if codexCustomPrompt(p.Content) {
					// A custom prompt run without words: a turn all the same.
					return rd.boundary(start)
				}
				return nil
			}
			return rd.prompt(Item{Key: key, Text: text, Time: t, Line: rd.line, Messages: []string{key}}, start)
		case "assistant":
			rd.answer(Item{Key: key, Text: text, Time: t, Line: rd.line, Messages: []string{key}})
		default:
			rd.skip("message of " + safeType(p.Role))
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		rd.seen(t)
		rd.codexCall(p, key)
	case "function_call_output", "custom_tool_call_output":
		rd.seen(t)
		rd.codexOutput(p)
	case "reasoning":
		rd.skip("reasoning")
	default:
		rd.skip("response_item " + safeType(p.Type))
	}
	return nil
}

// codexContext is what Codex sends as a user message of its own: the
// environment, the project's instructions, skills, review results.
func codexContext(s string) bool {
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<permissions", "<INSTRUCTIONS>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>", "<user_action>", "<skill>", "<skills_instructions>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// codexUserText is what the person typed in one part of a Codex user
// message: "" for Codex's own context or a repeat of the project's
// instructions it sent, the "## User Input" of an expanded custom prompt,
// the request below an IDE's context.
func (rd *reader) codexUserText(s string) string {
	s = strings.TrimSpace(s)
	if codexContext(s) {
		if strings.HasPrefix(s, "# AGENTS.md instructions") || strings.HasPrefix(s, "<user_instructions>") || strings.HasPrefix(s, "<INSTRUCTIONS>") {
			rd.codex.instructions = append(rd.codex.instructions, strings.Join(strings.Fields(instructionsText(s)), " "))
		}
		return ""
	}
	if len(s) >= 80 {
		flat := strings.Join(strings.Fields(s), " ")
		for _, in := range rd.codex.instructions {
			if strings.Contains(in, flat) {
				return "" // AGENTS.md's text again, on its own: Codex's, not the person's
			}
		}
	}
	if in, ok := customPromptInput(s); ok {
		return in
	}
	if i := strings.Index(s, codexRequest); i >= 0 && (strings.HasPrefix(s, "# Context from my IDE setup") || strings.HasPrefix(s, "# Files mentioned by the user")) {
		s = s[i+len(codexRequest):]
	}
	return stripHarness(s)
}

// instructionsText is the project's instructions inside Codex's wrapper
// ("# AGENTS.md instructions for …", <INSTRUCTIONS>, <user_instructions>).
func instructionsText(s string) string {
	for _, tag := range []string{"<INSTRUCTIONS>", "<user_instructions>"} {
		if i := strings.Index(s, tag); i >= 0 {
			s = s[i+len(tag):]
		}
	}
	for _, tag := range []string{"</INSTRUCTIONS>", "</user_instructions>"} {
		s, _, _ = strings.Cut(s, tag)
	}
	return strings.TrimSpace(s)
}

// codexRequest heads the person's words below an IDE's context.
const codexRequest = "## My request for Codex:"

// customPromptInput is the person's input in an expanded custom prompt
// (Spec Kit's and others': "## User Input", a ```text block with what
// followed the command, "You **MUST** consider the user input …"). ok
// says the text is such a prompt.
func customPromptInput(s string) (string, bool) {
	if !strings.HasPrefix(s, "## User Input") || !strings.Contains(s, "consider the user input") {
		return "", false
	}
	rest := strings.TrimPrefix(s, "## User Input")
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, "```") {
		return "", true
	}
	rest = rest[3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[nl+1:] // past the fence's language
	} else {
		return "", true
	}
	end := strings.Index(rest, "```")
	if end < 0 {
		return "", true
	}
	in := strings.TrimSpace(rest[:end])
	if in == "$ARGUMENTS" {
		in = ""
	}
	return in, true
}

// codexCustomPrompt reports whether a user message was an expanded custom
// prompt (the person ran a command), though it holds no words of theirs.
func codexCustomPrompt(content []codexPart) bool {
	for _, c := range content {
		if _, ok := customPromptInput(strings.TrimSpace(c.Text)); ok {
			return true
		}
	}
	return false
}

// codexSubagent reports whether session_meta's source names a sub-agent:
// {"subagent": "review"} or {"subagent": {"thread_spawn": …}}.
func codexSubagent(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var src map[string]json.RawMessage
	if json.Unmarshal(raw, &src) != nil {
		return false
	}
	_, sub := src["subagent"]
	return sub
}

func (rd *reader) codexCall(p codexPayload, key string) {
	f := &fact{id: p.CallID}
	if f.id == "" {
		f.id = key
	}
	var cmd string
	switch {
	case p.Action != nil:
		cmd = shellCommand(p.Action.Command)
	case p.Name == "apply_patch" || strings.Contains(p.Input, "*** Begin Patch") || strings.Contains(p.Arguments, "*** Begin Patch"):
		body := p.Input
		if body == "" {
			body = p.Arguments
		}
		rd.codexPatch(body, f)
		return
	default:
		var args struct {
			Command json.RawMessage `json:"command"`
			Cmd     string          `json:"cmd"`
		}
		if json.Unmarshal([]byte(p.Arguments), &args) == nil {
			switch {
			case args.Cmd != "":
				cmd = args.Cmd
			case len(args.Command) > 0 && args.Command[0] == '[':
				var parts []string
				_ = json.Unmarshal(args.Command, &parts)
				cmd = shellCommand(parts)
			case len(args.Command) > 0 && args.Command[0] == '"':
				_ = json.Unmarshal(args.Command, &cmd)
			}
		}
	}
	if cmd != "" {
		f.kind, f.subject = "ran", cutBytes(oneLine(cmd), 120)
		f.test = testCommand.MatchString(cmd)
	} else {
		f.kind, f.subject = "tool", cutBytes(oneLine(p.Name), 80)
	}
	if f.subject == "" {
		return
	}
	if p.Type == "local_shell_call" && p.Status != "" && p.Status != "in_progress" {
		f.done, f.failed = true, p.Status != "completed"
	}
	if rd.codex.pending == nil {
		rd.codex.pending = map[string]*fact{}
	}
	rd.codex.pending[f.id] = f
	rd.called(f)
}

// codexPatch makes a fact of each file an apply_patch touches.
func (rd *reader) codexPatch(patch string, call *fact) {
	first := true
	for _, line := range strings.Split(patch, "\n") {
		var kind, file string
		switch {
		case strings.HasPrefix(line, "*** Update File: "):
			kind, file = "edited", strings.TrimPrefix(line, "*** Update File: ")
		case strings.HasPrefix(line, "*** Add File: "):
			kind, file = "wrote", strings.TrimPrefix(line, "*** Add File: ")
		case strings.HasPrefix(line, "*** Delete File: "):
			kind, file = "tool", "deleted "+strings.TrimPrefix(line, "*** Delete File: ")
		default:
			continue
		}
		f := &fact{id: call.id, kind: kind, subject: rd.relative(strings.TrimSpace(file))}
		if kind == "tool" {
			f.subject = cutBytes(oneLine(file), 120)
		}
		if first {
			// The call's output says whether the patch applied.
			if rd.codex.pending == nil {
				rd.codex.pending = map[string]*fact{}
			}
			rd.codex.pending[call.id] = f
			first = false
		}
		rd.called(f)
	}
}

func (rd *reader) codexOutput(p codexPayload) {
	f := rd.codex.pending[p.CallID]
	if f == nil {
		return
	}
	delete(rd.codex.pending, p.CallID)
	var out string
	var exit *int
	if len(p.Output) > 0 && p.Output[0] == '"' {
		_ = json.Unmarshal(p.Output, &out)
	} else if len(p.Output) > 0 {
		out = string(p.Output)
	}
	// The output is often itself JSON: {"output": "...", "metadata": {"exit_code": 1}}.
	var wrapped struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(out), "{") && json.Unmarshal([]byte(out), &wrapped) == nil {
		out, exit = wrapped.Output, wrapped.Metadata.ExitCode
	}
	f.done = true
	f.outcome, f.exit, f.hasExit = outcome(out, false)
	if exit != nil {
		f.exit, f.hasExit = *exit, true
	}
	f.failed = f.hasExit && f.exit != 0
	if f.failed && f.outcome == "" {
		f.outcome, _, _ = outcome(out, true)
	}
	if f.failed {
		rd.failed(f)
	}
}

// shellCommand is the command of an argv, unwrapped from bash -lc.
func shellCommand(argv []string) string {
	if len(argv) >= 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh" || strings.HasSuffix(argv[0], "/bash") || strings.HasSuffix(argv[0], "/sh")) && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// safeType is a type name from the file, as a short plain word.
func safeType(s string) string {
	s = cutBytes(oneLine(s), 40)
	if s == "" {
		return "untyped"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
