package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// The lines below are written here in the shape Claude Code 2.1 and the
// Codex CLI write them (fields, nesting, where the harness puts its text),
// short, with invented words.

// cc is one Claude Code line: its type, uuid and time, the fields given,
// the session's ids.
func cc(typ, uuid, at string, fields map[string]any) string {
	l := map[string]any{"type": typ, "uuid": uuid, "timestamp": "2026-02-12T" + at + "Z",
		"sessionId": "sess-1", "cwd": "/home/ana/src/shop", "gitBranch": "main", "isSidechain": false, "userType": "external", "version": "2.1.39"}
	for k, v := range fields {
		l[k] = v
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// ccUser is a user line whose content is a string.
func ccUser(uuid, at, text string, fields map[string]any) string {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["message"] = map[string]any{"role": "user", "content": text}
	return cc("user", uuid, at, fields)
}

// ccSay is an assistant line of one text block.
func ccSay(uuid, at, text string, fields map[string]any) string {
	if fields == nil {
		fields = map[string]any{}
	}
	model := "claude-opus-4-6"
	if m, ok := fields["model"].(string); ok {
		model = m
		delete(fields, "model")
	}
	fields["message"] = map[string]any{"role": "assistant", "model": model, "content": []any{map[string]any{"type": "text", "text": text}}}
	return cc("assistant", uuid, at, fields)
}

// ccCall is an assistant line of one tool call (and the fields given).
func ccCall(uuid, at, id, name string, input map[string]any, fields ...map[string]any) string {
	f := map[string]any{"message": map[string]any{"role": "assistant", "model": "claude-opus-4-6",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}}
	for _, more := range fields {
		for k, v := range more {
			f[k] = v
		}
	}
	return cc("assistant", uuid, at, f)
}

// ccResult is a user line of one tool result.
func ccResult(uuid, at, id, out string, isError bool, extra any) string {
	f := map[string]any{"message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": isError}}}}
	if extra != nil {
		f["toolUseResult"] = extra
	}
	return cc("user", uuid, at, f)
}

func readLines(t *testing.T, lines ...string) ([]Item, Result, *Diary) {
	t.Helper()
	d := &Diary{}
	items, res := readAll(t, []byte(strings.Join(lines, "\n")+"\n"), Options{Final: true, Diary: d})
	return items, res, d
}

func texts(items []Item, role Role) []string {
	var out []string
	for _, it := range items {
		if it.Role == role {
			out = append(out, it.Text)
		}
	}
	return out
}

// A prompt typed while the agent was busy is kept by Claude Code only as a
// queue-operation's content: it is the person's, with the time they typed
// it. Task notices queued the same way are not; and a queued prompt later
// delivered as a user line too is read once.
func TestQueuedPromptIsThePersons(t *testing.T) {
	t.Parallel()
	items, res, d := readLines(t,
		ccUser("u1", "10:00:00.000", "Implement the cart epic", nil),
		ccSay("a1", "10:00:05.000", "Working on it.", nil),
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T10:01:00.000Z","sessionId":"sess-1","content":"<task-notification>\n<task-id>b76</task-id>\n<status>completed</status>\n<summary>Background command \"Run cart tests\" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/claude/tasks/b76.output"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T10:02:00.000Z","sessionId":"sess-1","content":"new beads were added. tackle them"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-12T10:02:30.000Z","sessionId":"sess-1"}`,
		ccSay("a2", "10:03:00.000", "Tackled the new beads.", nil),
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T10:04:00.000Z","sessionId":"sess-1","content":"also bump the version"}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-02-12T10:04:10.000Z","sessionId":"sess-1"}`,
		ccUser("u2", "10:04:10.000", "also bump the version", nil),
		ccSay("a3", "10:05:00.000", "Bumped.", nil),
	)
	got := texts(items, RoleUser)
	want := []string{"Implement the cart epic", "new beads were added. tackle them", "also bump the version"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the person's prompts: got %q, want %q", got, want)
	}
	for _, it := range items {
		if it.Text == "new beads were added. tackle them" && !it.Time.Equal(time.Date(2026, 2, 12, 10, 2, 0, 0, time.UTC)) {
			t.Errorf("the queued prompt's time is %v, not when it was typed", it.Time)
		}
		if strings.Contains(it.Text, "Background command") || strings.Contains(it.Text, "Read the output file") {
			t.Errorf("a queued notice became an item: %q", it.Text)
		}
	}
	if res.Skipped["queued notice"] != 1 || res.Skipped["queued prompt read before"] != 1 || d.Prompts != 3 {
		t.Errorf("skipped %v, %d prompts", res.Skipped, d.Prompts)
	}
}

// The person's answer to the agent's AskUserQuestion comes back as that
// tool's result: the answer is theirs (the question is the agent's).
func TestAnswerToTheAgentsQuestionIsThePersons(t *testing.T) {
	t.Parallel()
	q := "Pre-commit hook blocks on old lint issues. How should we proceed?"
	answer := "User has answered your questions: \"" + q + "\"=\"main was clean; fix the issues\". You can now continue with the user's answers in mind."
	items, _, _ := readLines(t,
		ccUser("u1", "10:00:00.000", "Commit the cart work", nil),
		ccCall("a1", "10:01:00.000", "toolu_q1", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": q}}}),
		ccResult("r1", "10:02:00.000", "toolu_q1", answer, false, map[string]any{
			"questions": []any{map[string]any{"question": q, "header": "Commit", "options": []any{map[string]any{"label": "Skip hook (--no-verify)"}}}},
			"answers":   map[string]any{q: "main was clean; fix the issues"}}),
		ccCall("a2", "10:03:00.000", "toolu_q2", "AskUserQuestion", map[string]any{}),
		// The result's text alone, without toolUseResult.
		ccResult("r2", "10:04:00.000", "toolu_q2", `User has answered your questions: "Which branch?"="release-2". You can now continue with the user's answers in mind.`, false, nil),
		ccSay("a3", "10:05:00.000", "Fixed and committed.", nil),
	)
	got := texts(items, RoleUser)
	want := []string{"Commit the cart work", "main was clean; fix the issues", "release-2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the person's words: got %q, want %q", got, want)
	}
	for _, it := range items {
		if it.Role == RoleUser && strings.Contains(it.Text, "How should we proceed") {
			t.Errorf("the agent's question became the person's words: %q", it.Text)
		}
		if it.Text == "main was clean; fix the issues" && !it.Time.Equal(time.Date(2026, 2, 12, 10, 2, 0, 0, time.UTC)) {
			t.Errorf("the answer's time is %v", it.Time)
		}
	}
}

// A background task's notice (and a sub-agent's whole report in its
// <result>) is never the person's prompt; it ends the turn, so the
// agent's summary before it stays the turn's answer.
func TestTaskNotificationEndsTheTurnAndIsNoPrompt(t *testing.T) {
	t.Parallel()
	notice := "<task-notification>\n<task-id>a91</task-id>\n<status>completed</status>\n<summary>Agent \"Research the cache\" completed</summary>\n<result>The cache must always be flushed before deploys. Killed job: exit code 144.</result>\n</task-notification>\nRead the output file to retrieve the result: /tmp/claude/tasks/a91.output"
	items, res, d := readLines(t,
		ccUser("u1", "10:00:00.000", "Add the cache layer", nil),
		ccSay("a1", "10:10:00.000", "All done: the cache layer is in and tests pass.", nil),
		ccUser("n1", "10:11:00.000", notice, nil),
		ccSay("a2", "10:11:05.000", "That was a stale background task; nothing to do.", nil),
		cc("user", "i1", "10:12:00.000", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user for tool use]"}}}}),
	)
	want := []string{"user u1", "assistant a1", "assistant a2"}
	if got := summary(items); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("items: got %v, want %v", got, want)
	}
	for _, it := range items {
		if strings.Contains(it.Text, "flushed") || strings.Contains(it.Text, "144") || strings.Contains(it.Text, "output file") {
			t.Errorf("the notice's text became an item: %q", it.Text)
		}
	}
	if d.Prompts != 1 || len(d.Asked) != 1 || res.Skipped["meta"] != 2 {
		t.Errorf("diary %+v, skipped %v", d, res.Skipped)
	}
}

// What the harness writes in other places is no item either: hook output
// and skill bodies (isMeta), local commands and their caveat, the
// compaction's summary, the usage-limit notice in the agent's place
// (model "<synthetic>"), an API error.
func TestHarnessLinesAreNoItems(t *testing.T) {
	t.Parallel()
	items, res, _ := readLines(t,
		ccUser("u1", "10:00:00.000", "Rename the cart helper", nil),
		ccUser("m1", "10:00:10.000", "<system-reminder>\nPostToolUse:Edit hook additional context: [CREDO]\nAlways prefer comparing against an empty list.\n</system-reminder>", map[string]any{"isMeta": true}),
		ccUser("m2", "10:00:20.000", "Base directory for this skill: /home/ana/.claude/skills/deploy\n\nAlways deploy on Fridays.", map[string]any{"isMeta": true}),
		ccUser("m3", "10:00:30.000", "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.</local-command-caveat>", map[string]any{"isMeta": true}),
		ccUser("m4", "10:00:31.000", "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>", nil),
		ccUser("m5", "10:00:32.000", "<local-command-stdout>Set model to Sonnet</local-command-stdout>", nil),
		ccUser("c1", "10:00:40.000", "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe user always wants force pushes.", map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true}),
		ccSay("s1", "10:00:50.000", "You've hit your limit · resets 5pm", map[string]any{"model": "<synthetic>"}),
		ccSay("e1", "10:00:55.000", "API Error: 529 overloaded", map[string]any{"isApiErrorMessage": true, "model": "<synthetic>"}),
		ccSay("a1", "10:01:00.000", "Renamed the helper to cart_total.", nil),
	)
	want := []string{"user u1", "assistant a1"}
	if got := summary(items); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("items: got %v, want %v", got, want)
	}
	if res.Skipped["synthetic"] != 2 || res.Skipped["compact summary"] != 1 || res.Skipped["meta"] != 5 {
		t.Errorf("skipped %v", res.Skipped)
	}
}

// A slash command's arguments are the person's words when they are words
// ("/compact keep the API notes"); a bare command, a flag or a model's
// name are not.
func TestSlashCommandArgumentsInWords(t *testing.T) {
	t.Parallel()
	items, _, _ := readLines(t,
		ccUser("c1", "10:00:00.000", "<command-message>compact</command-message>\n<command-name>/compact</command-name>\n<command-args>keep the payment API notes</command-args>", nil),
		ccUser("c2", "10:01:00.000", "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>sonnet</command-args>", nil),
	)
	if got := texts(items, RoleUser); len(got) != 1 || got[0] != "/compact keep the payment API notes" {
		t.Fatalf("the person's words: %q", got)
	}
}

// Harness tags are the harness's only where it puts them — opening or
// closing a user message. A tag in the middle of the person's words is
// theirs: a log or a transcript they pasted.
func TestHarnessTagsOnlyWhereTheHarnessPutsThem(t *testing.T) {
	t.Parallel()
	prompt := "Why does the viewer show this line?\n<system-reminder>Whenever you read a file, consider malware.</system-reminder>\nIt comes from our fixture file."
	items, _, _ := readLines(t, ccUser("u1", "10:00:00.000", prompt, nil))
	if got := texts(items, RoleUser); len(got) != 1 || got[0] != prompt {
		t.Fatalf("the person's prompt with a quoted tag: %q", got)
	}
	// Opening and closing the message, the harness's.
	spans := HarnessSpans("<ide_opened_file>cart.ex</ide_opened_file>\nFix it.\n<system-reminder>todo list</system-reminder>")
	if len(spans) != 2 {
		t.Fatalf("spans %v", spans)
	}
}

// A compaction's own transcript (subagents/agent-acompact-*.jsonl) and a
// sub-agent's (subagents/agent-*.jsonl, or side-chain lines inline) give
// no item: the compaction is a summary of what was read already, and a
// sub-agent's report reaches the main agent as a tool result, whose own
// words say what it took from it.
func TestCompactionAndSubagentTranscriptsAreNoDrafts(t *testing.T) {
	t.Parallel()
	side := map[string]any{"isSidechain": true, "agentId": "acompact-e1f845"}
	items, res, _ := readLines(t,
		ccUser("m1", "10:00:00.000", "<system-reminder>\nPostToolUse:Edit hook additional context: [COMPILE ERROR]\n</system-reminder>", map[string]any{"isSidechain": true, "agentId": "acompact-e1f845", "isMeta": true}),
		ccUser("p1", "10:00:01.000", "Your task is to create a detailed summary of the conversation so far.", side),
		ccSay("s1", "10:01:00.000", "<analysis>\n1. User asked to work on bead spotter-dov.\n- Ran `bd show spotter-dov` to see the epic details\n</analysis>", side),
	)
	if len(items) != 0 || res.Skipped["compaction"] != 3 {
		t.Fatalf("a compaction's transcript gave %v (skipped %v)", summary(items), res.Skipped)
	}
	sub := map[string]any{"isSidechain": true, "agentId": "a2898e3"}
	items, res, d := readLines(t,
		ccUser("p1", "10:00:00.000", "Explore how the transcript is rendered.", sub),
		ccCall("s1", "10:00:10.000", "toolu_s1", "Grep", map[string]any{"pattern": "render"}, sub),
		ccSay("s2", "10:01:00.000", "## Comprehensive Exploration Report\nSessionLive renders lines 400-458.", sub),
	)
	if len(items) != 0 || res.Skipped["sub-agent"] != 3 || d.Prompts != 0 {
		t.Fatalf("a sub-agent's transcript gave %v (skipped %v, diary %+v)", summary(items), res.Skipped, d)
	}
}

// A tool call the person refused is their choice, not a failure.
func TestRefusedToolCallIsNoFailure(t *testing.T) {
	t.Parallel()
	items, _, d := readLines(t,
		ccUser("u1", "10:00:00.000", "Clean the build", nil),
		ccSay("a0", "10:00:01.000", "The build is clean now.", nil),
		ccCall("a1", "10:00:02.000", "toolu_1", "Bash", map[string]any{"command": "rm -rf _build"}),
		ccResult("r1", "10:00:03.000", "toolu_1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true, nil),
	)
	var tools string
	for _, it := range items {
		if it.Role == RoleTools {
			tools = it.Text
		}
	}
	if tools != "ran `rm -rf _build`: refused by the person" || d.Failures != 0 || d.Commands[0].Failed != 0 {
		t.Fatalf("tools %q, diary %+v", tools, d)
	}
}

// Text the person pasted (a reviewer's note under their question, the
// agent's own output pasted back, another chatbot's long analysis) is
// split off their words: an item of its own, marked, that is not the
// person's.
func TestPastedTextIsNotThePersonsWords(t *testing.T) {
	t.Parallel()
	note := "Responding to the note below, why would jobs go to worker-2? I thought workers pulled from one queue:\n\nThe compose file now comments out worker-2, leaving only worker-1 active. Existing workflows enqueue tasks onto the worker-2 queue, so those jobs will stall indefinitely unless the routing changes."
	earlier := "Summary of the change:\n- The cart total is now computed in cents everywhere.\n- Rounding happens once, at display time only.\n- The legacy float path was removed from checkout."
	analysis := "Please review this plan from another assistant.\n\n## Architecture review\n\n" + strings.Repeat("The service layer should always own its transactions and retries. ", 20) + "\n\n## Recommendations\n\n" + strings.Repeat("Never call the payment API from a controller directly. ", 10)
	items, _, d := readLines(t,
		ccUser("u1", "10:00:00.000", note, nil),
		ccSay("a1", "10:01:00.000", earlier, nil),
		ccUser("u2", "10:02:00.000", "this bit:\n- The cart total is now computed in cents everywhere.\n- Rounding happens once, at display time only.\n- The legacy float path was removed from checkout.", nil),
		ccSay("a2", "10:03:00.000", "Yes, that is what changed.", nil),
		ccUser("u3", "10:04:00.000", analysis, nil),
		ccUser("u4", "10:05:00.000", "Do the following:\n\n1. rename the cart helper\n2. always run mix test before committing", nil),
	)
	users := texts(items, RoleUser)
	wantUsers := []string{
		"Responding to the note below, why would jobs go to worker-2? I thought workers pulled from one queue:",
		"this bit:",
		"Please review this plan from another assistant.",
		"Do the following:\n\n1. rename the cart helper\n2. always run mix test before committing",
	}
	if strings.Join(users, "|") != strings.Join(wantUsers, "|") {
		t.Fatalf("the person's words:\n got %q\nwant %q", users, wantUsers)
	}
	pasted := texts(items, RolePasted)
	if len(pasted) != 3 || !strings.HasPrefix(pasted[0], PastedMark+"\nThe compose file") ||
		!strings.Contains(pasted[1], "computed in cents") || !strings.Contains(pasted[2], "## Architecture review") {
		t.Fatalf("pasted items: %q", pasted)
	}
	if d.Prompts != 4 {
		t.Errorf("%d prompts, want 4", d.Prompts)
	}

	// Another chatbot's answer pasted whole, emphasised all over: its first
	// paragraph is the chatbot's too. A short plain line before it stays
	// the person's.
	chatbot := "We are entering the **Scale-Up** phase. Moving to a cloud GPU is like switching from a go-kart to a jet.\n\n" +
		strings.Repeat("Here is your **Mentor Checklist**: keep the **batch size** modest and watch the **VRAM** closely. ", 16)
	items, _, _ = readLines(t,
		ccUser("u1", "10:00:00.000", chatbot, nil),
		ccSay("a1", "10:01:00.000", "Noted.", nil),
		ccUser("u2", "10:02:00.000", "gemini says this, thoughts?\n\n"+chatbot, nil),
	)
	users = texts(items, RoleUser)
	if strings.Join(users, "|") != "gemini says this, thoughts?" {
		t.Fatalf("the person's words of two chatbot pastes: %q", users)
	}
	if pasted := texts(items, RolePasted); len(pasted) != 2 || !strings.Contains(pasted[0], "Scale-Up") {
		t.Fatalf("pasted items: %q", pasted)
	}
}

func cx(at, typ string, payload any) string {
	b, _ := json.Marshal(map[string]any{"timestamp": "2025-11-13T" + at + "Z", "type": typ, "payload": payload})
	return string(b)
}

func cxUser(at, text string) string {
	return cx(at, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}})
}

func cxSay(at, text string) string {
	return cx(at, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}})
}

// In a Codex rollout the person's words are what they typed: not AGENTS.md
// nor the environment (sent as user messages), not the terminal's copy of
// each message (event_msg), not a /review's findings (<user_action>), and
// of an expanded custom prompt only its "## User Input"; an IDE's context
// above "## My request for Codex:" is not theirs either.
func TestCodexPersonsWords(t *testing.T) {
	t.Parallel()
	const agentsMD = "This is a web application written with the Phoenix framework.\n\n## Project guidelines\n\n- Always run the linter before you say a change works."
	template := "\n## User Input\n\n```text\n%s\n```\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n1. **Setup**: Run `.specify/scripts/bash/setup-plan.sh --json` and always parse JSON."
	lines := []string{
		cx("01:48:11.461", "session_meta", map[string]any{"id": "019a7ae6", "cwd": "/mnt/d/ai/shop", "originator": "codex_cli_rs", "cli_version": "0.57.0", "source": "cli"}),
		cxUser("01:48:11.553", "# AGENTS.md instructions for /mnt/d/ai/shop\n\n<INSTRUCTIONS>\n"+agentsMD+"\n</INSTRUCTIONS>"),
		cxUser("01:48:11.554", "<environment_context>\n  <cwd>/mnt/d/ai/shop</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"),
		// Some Codex versions send AGENTS.md's text again on its own (part
		// of it, laid out anew); a person who quotes it and asks something
		// is still heard.
		cxUser("01:48:11.555", strings.ReplaceAll(agentsMD, "\n\n", "\n")),
		cxUser("01:48:12.000", agentsMD+"\n\nWhy does the linter rule matter here?"),
		cxUser("01:50:40.642", strings.Replace(template, "%s", "Create a spec for the orchestrator", 1)),
		cx("01:50:40.643", "event_msg", map[string]any{"type": "user_message", "message": strings.Replace(template, "%s", "Create a spec for the orchestrator", 1)}),
		cxSay("01:55:00.000", "Drafted the spec."),
		cxUser("02:00:00.000", strings.Replace(template, "%s", "", 1)),
		cxSay("02:05:00.000", "Planned."),
		cxUser("02:10:00.000", "<user_action>\n  <context>User initiated a review task.</context>\n  <action>review</action>\n  <results>\n  Never merge without the checklist.\n  </results>\n</user_action>"),
		cxUser("02:11:00.000", "# Context from my IDE setup:\n\n## Active file: src/pay.py\n\n## My request for Codex:\nadd retry to charge"),
		cxSay("02:12:00.000", "Added retries."),
	}
	items, _, d := readLines(t, lines...)
	got := texts(items, RoleUser)
	want := []string{agentsMD + "\n\nWhy does the linter rule matter here?", "Create a spec for the orchestrator", "add retry to charge"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the person's words: got %q, want %q", got, want)
	}
	if answers := texts(items, RoleAssistant); strings.Join(answers, "|") != "Drafted the spec.|Planned.|Added retries." {
		t.Errorf("answers %q: a custom prompt without words still starts a turn", answers)
	}
	for _, it := range items {
		if strings.Contains(it.Text, "MUST") || strings.Contains(it.Text, "linter") && !strings.Contains(it.Text, "Why does") || strings.Contains(it.Text, "checklist") || strings.Contains(it.Text, "Active file") {
			t.Errorf("Codex's own text became an item: %q", it.Text)
		}
	}
	if d.Prompts != 3 {
		t.Errorf("%d prompts, want 3", d.Prompts)
	}

	// A sub-agent's rollout (a /review) gives nothing.
	sub := []string{
		cx("16:48:36.779", "session_meta", map[string]any{"id": "019b5669", "cwd": "/mnt/d/ai/shop", "source": map[string]any{"subagent": "review"}}),
		cxUser("16:48:37.000", "Review the current changes."),
		cx("16:48:40.000", "response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-lc","git diff"]}`, "call_id": "c1"}),
		cxSay("16:49:20.000", "Findings: the retry loop never backs off."),
	}
	if items, _, d := readLines(t, sub...); len(items) != 0 || len(d.Commands) != 0 {
		t.Fatalf("a sub-agent's rollout gave %v, commands %v", summary(items), d.Commands)
	}
}

// Through the store: each draft carries the time its message was said and
// who said it — the person for what they typed (queued or answered too),
// the agent for its words and for what the person pasted.
func TestDraftsCarryTheirTimeAndSpeaker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openStore(t)
	lines := []string{
		ccUser("u1", "10:00:00.000", "Fix the cart rounding", nil),
		ccSay("a1", "10:05:00.000", "Fixed the rounding.", nil),
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T10:06:00.000Z","sessionId":"sess-1","content":"also check the refunds"}`,
		ccSay("a2", "10:07:00.000", "Refunds checked.", nil),
		ccUser("u2", "10:08:00.000", "See the output below:\n\n"+strings.Repeat("ERROR cart.ex:12 float used for money\n", 6), nil),
		ccSay("a3", "10:09:00.000", "Replaced the floats.", nil),
	}
	path := filepath.Join(t.TempDir(), "sess-1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := memory.Project{ID: "5b0c1e2d3f4a5b6c", Name: "shop"}
	if _, err := Ingest(ctx, db, path, IngestOptions{Final: true, Project: &p}); err != nil {
		t.Fatal(err)
	}
	ds, err := db.Drafts(ctx, p.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		at    string
		actor memory.Actor
	}{
		"Fix the cart rounding":  {"10:00:00", memory.ActorUser},
		"Fixed the rounding.":    {"10:05:00", memory.ActorAgent},
		"also check the refunds": {"10:06:00", memory.ActorUser},
		"Refunds checked.":       {"10:07:00", memory.ActorAgent},
		"See the output below:":  {"10:08:00", memory.ActorUser},
		"Replaced the floats.":   {"10:09:00", memory.ActorAgent},
	}
	seen := 0
	for _, d := range ds {
		if strings.HasPrefix(d.Text, PastedMark) {
			if d.Actor != memory.ActorAgent || d.Time.Format("15:04:05") != "10:08:00" {
				t.Errorf("pasted draft: %s at %v", d.Actor, d.Time)
			}
			seen++
			continue
		}
		w, ok := want[d.Text]
		if !ok {
			t.Errorf("unexpected draft %q", d.Text)
			continue
		}
		seen++
		if d.Actor != w.actor || d.Source.Actor != w.actor || d.Time.Format("15:04:05") != w.at {
			t.Errorf("draft %q: %s at %v, want %s at %s", d.Text, d.Actor, d.Time, w.actor, w.at)
		}
	}
	if seen != len(want)+1 {
		t.Errorf("%d drafts seen, want %d", seen, len(want)+1)
	}
}
