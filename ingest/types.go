// Package ingest reads coding agents' session logs (Claude Code session
// JSONL, Codex CLI rollout JSONL) into the drafts inbox, where a
// consolidation pass turns them into memories, and keeps one diary episode
// per session.
//
// Reading is split in two. The readers (claude.go, codex.go) turn a
// transcript into Items and a running Diary, streaming, with secrets
// redacted; they know nothing of the store. Ingest (store.go) drives a
// reader from where the last ingest of the file stopped, writes the items
// as drafts with ids derived from the messages they came from (so reading a
// file twice adds only what is new), and keeps the session's episode.
package ingest

import (
	"time"
)

// Format is a transcript format.
type Format string

const (
	FormatAuto       Format = "auto"
	FormatClaudeCode Format = "claude-code"
	FormatCodex      Format = "codex"
)

// Role says who an item speaks for.
type Role string

const (
	RoleUser      Role = "user"      // the person's words: a prompt they typed, their answer to the agent's question
	RoleAssistant Role = "assistant" // the agent's final text of a turn
	RoleTools     Role = "tools"     // what the agent ran in a turn, as short facts
	// RolePasted is what the person pasted into a prompt (see PastedMark):
	// theirs to show, not their words. Its draft is the agent's.
	RolePasted Role = "pasted"
	// RoleNotes is what the agent said in a turn before its final text:
	// its working notes between tool calls, where it states what it found
	// ("The CSS isn't built by esbuild — it lives in priv/static/assets/.
	// Let me check …"). Its draft opens with NotesMark.
	RoleNotes Role = "notes"
)

// Item is one draft to be: a user prompt, an assistant's final text, or the
// tool calls of a turn as short facts. Its text is already redacted.
type Item struct {
	// Key identifies the item within its session, stably across reads of
	// the same file: the message uuid it came from (Claude Code), or the
	// line it starts on (Codex rollouts carry no message ids). The draft id
	// is derived from the session and the key.
	Key      string    `json:"key"`
	Role     Role      `json:"role"`
	Text     string    `json:"text"`
	Time     time.Time `json:"time"`
	Line     int       `json:"line"`               // 1-based line of the file it starts on
	Messages []string  `json:"messages,omitempty"` // the message ids (or lines) it came from
}

// Options says how to read.
type Options struct {
	Format Format // FormatAuto (or ""): look at the first lines
	// Offset is the byte offset to start at (a line start, from a previous
	// Result.Next) and Line the number of lines before it.
	Offset int64
	Line   int
	// Final says the session is over (SessionEnd, or a file read whole by
	// hand): the last, unfinished turn is emitted too. Otherwise reading
	// stops before a turn that may still grow, and Result.Next points at it.
	Final bool
	// Diary is the session's diary so far; the reader adds to it.
	Diary *Diary
	// Subagent says the file is a sub-agent's own transcript (a Codex
	// rollout whose session_meta names a parent; found by a peek at its
	// start, since a later read does not see that line): none of it is a
	// draft.
	Subagent bool
}

// Result is what one read found.
type Result struct {
	Format Format `json:"format"`
	// Session is the session's id, working directory and branch as the file
	// says them (the first that say so).
	Session string `json:"session"`
	Cwd     string `json:"cwd,omitempty"`
	Branch  string `json:"branch,omitempty"`

	Lines     int            `json:"lines"`               // lines read in this call
	Items     int            `json:"items"`               // items emitted
	Skipped   map[string]int `json:"skipped,omitempty"`   // lines of unknown or ignored types, by type
	Malformed []LineError    `json:"malformed,omitempty"` // lines that are not JSON (at most MaxLineErrors kept)
	Redacted  int            `json:"redacted"`            // secret spans replaced
	Long      int            `json:"long,omitempty"`      // lines over MaxLine, skipped
	Next      int64          `json:"next"`                // byte offset to resume at
	NextLine  int            `json:"next_line"`           // lines before Next
}

// LineError is a line that could not be read, and why (never its text).
type LineError struct {
	Line int    `json:"line"`
	Err  string `json:"error"`
}

// MaxLineErrors bounds the malformed lines a Result lists; the rest are
// counted in Skipped["malformed"].
const MaxLineErrors = 20

// Diary is the running summary of one session, kept between reads (it is
// stored with the file's read position) and rendered as the session's
// episode in layer C. Every string in it is redacted and bounded.
type Diary struct {
	Session   string      `json:"session"`
	Format    Format      `json:"format"`
	Cwd       string      `json:"cwd,omitempty"`
	Branch    string      `json:"branch,omitempty"`
	Start     time.Time   `json:"start,omitzero"`
	End       time.Time   `json:"end,omitzero"`
	Asked     []string    `json:"asked,omitempty"`    // the first prompts, one line each
	Prompts   int         `json:"prompts"`            // user prompts in all
	Commands  []Command   `json:"commands,omitempty"` // distinct commands run, in order of first use
	Files     []string    `json:"files,omitempty"`    // files written or edited, in order of first touch
	Tests     *TestResult `json:"tests,omitempty"`    // the last test run seen
	Failures  int         `json:"failures"`           // tool calls that failed
	Compacted int         `json:"compacted"`          // times the context was compacted
	Ended     bool        `json:"ended"`              // the session is over (a Final read)
}

// Command is a command the agent ran, how often, and how it last ended.
type Command struct {
	Text     string `json:"text"`
	Runs     int    `json:"runs"`
	LastExit int    `json:"last_exit"`
	Failed   int    `json:"failed"`
}

// TestResult is the outcome of a test command.
type TestResult struct {
	Command string    `json:"command"`
	Passed  bool      `json:"passed"`
	Summary string    `json:"summary,omitempty"` // "3 failures in store/"
	Time    time.Time `json:"time,omitzero"`
}
