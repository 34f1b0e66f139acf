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
// event_msg lines repeat the messages for the terminal; compacted marks a
// compaction. Its messages carry no ids: an item is named by its line,
// which an append-only file keeps.

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
	// message
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
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

type codexState struct {
	pending map[string]*fact
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
	switch p.Type {
	case "message":
		var parts []string
		for _, c := range p.Content {
			if c.Type == "input_text" || c.Type == "output_text" || c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		switch p.Role {
		case "user":
			if text = stripHarness(text); text == "" || codexContext(text) {
				rd.skip("context")
				return nil
			}
			return rd.prompt(Item{Key: key, Text: text, Time: t, Line: rd.line, Messages: []string{key}}, start)
		case "assistant":
			rd.answer(Item{Key: key, Text: text, Time: t, Line: rd.line, Messages: []string{key}}, false)
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
// environment, the project's instructions.
func codexContext(s string) bool {
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<permissions", "<INSTRUCTIONS>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
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
