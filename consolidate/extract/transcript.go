package extract

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"cairn/internal/lazyre"
	"cairn/memory"
)

// FromTranscript reports whether ingest read the draft from an agent's
// session log (a capture names no file).
func FromTranscript(d memory.Draft) bool { return d.Source.File != "" && d.Source.Session != "" }

// compactOpening is how Claude Code's compaction summary opens when it is
// replayed to the model as a message.
var compactOpening = lazyre.New(`^\s*(?:This session is being continued from a previous conversation|<analysis>|Your task is to create a detailed summary of the conversation)`)

// WorkingNotes says why a draft is never a source of memories, "" when it
// is one: a compaction run (Claude Code writes the whole conversation again
// to subagents/agent-acompact-*.jsonl, then the model's summary of it, with
// its stale to-dos), and a sub-agent's transcript (subagents/agent-*.jsonl:
// a research report for the main agent, whose own answer says what it
// adopted).
func WorkingNotes(d memory.Draft) string {
	if !FromTranscript(d) {
		return ""
	}
	file := filepath.ToSlash(d.Source.File)
	base := path.Base(file)
	switch {
	case strings.HasPrefix(base, "agent-acompact-") || compactOpening.MatchString(d.Text):
		return "a compaction summary"
	case strings.HasPrefix(base, "agent-") && path.Base(path.Dir(file)) == "subagents":
		return "a sub-agent's report"
	}
	return ""
}

// maxWholeUpdate bounds a draft read whole for what it updates.
const maxWholeUpdate = 600

// maxSkippedLen bounds a statement read for updates when extraction made
// nothing of it: a terse note or a sentence, not a paragraph.
const maxSkippedLen = 300

// Whole reports whether a draft may be read whole for what it
// updates: a person's short note, not from a transcript, not working
// notes, that opens on a statement (not a question, a request, a plan or
// chatter; what follows may be: "moved to X, we'll delete Y next sprint").
func Whole(d memory.Draft) bool {
	if len(d.Text) > maxWholeUpdate || FromTranscript(d) || WorkingNotes(d) != "" || pastedDocument(d.Text) {
		return false
	}
	first := strings.TrimSpace(d.Text)
	if i := strings.IndexAny(first, ".!?\n"); i >= 0 {
		if first[i] == '?' {
			return false // it opens on a question
		}
		first = first[:i]
	}
	low := strings.ToLower(first)
	return low != "" && !isChatter(low) && !(taskRequest(low) && !TerseNote.MatchString(first)) && !planAhead.MatchString(low) && !progressive.MatchString(low) && !hedgeWord.MatchString(strings.ToLower(d.Text))
}

// Skipped are the statements of d that extraction made no
// candidate of and that still state something: not chatter, not a
// question, not a request for work or a plan, no credential, no to-do
// item, no bookkeeping of the work of the moment. Each is read for what
// it updates; it never becomes a memory on its own.
func Skipped(d memory.Draft, cands []Candidate) []string {
	if strings.TrimSpace(d.Text) == "" || !utf8.ValidString(d.Text) || len(d.Text) > 64<<10 {
		return nil
	}
	if d.Actor == memory.ActorUser && FromTranscript(d) && pastedDocument(d.Text) {
		return nil
	}
	x, _, notes, harness := newExtractor(d)
	if notes {
		return nil // working notes: their findings are extraction's
	}
	var out []string
	for _, st := range x.statements(d.Actor) {
		if st.procedure || st.todo || len(st.core) > maxSkippedLen || x.tainted(st) || overlaps(harness, st.start, st.end) {
			continue
		}
		core := st.core
		low := strings.ToLower(core)
		if core == "" || isChatter(low) || workLog(st, low) || taskRequest(low) && !TerseNote.MatchString(core) || planAhead.MatchString(low) || progressive.MatchString(low) {
			continue
		}
		if slices.ContainsFunc(cands, func(c Candidate) bool {
			return c.Span != "" && (strings.Contains(c.Span, core) || strings.Contains(core, strings.TrimSpace(c.Span)))
		}) {
			continue
		}
		text := st.body
		if text == "" {
			text = core
		}
		out = append(out, text)
	}
	return out
}

// TerseNote is a note of a current value: "key: value", "key = value",
// "X set to Y", "set X to Y".
var TerseNote = regexp.MustCompile(`(?i)^\s*(?:[a-z][\w.'/-]*(?:\s+[a-z][\w.'/-]*){0,5}\s*(?::|=)\s*\S+(?:\s+\S+){0,7}|(?:[a-z][\w.'/-]*\s+){1,6}(?:is\s+now\s+|now\s+)?set\s+to\s+\S+(?:\s+\S+){0,7}|set\s+(?:[\w.'/-]+\s+){1,6}to\s+\S+(?:\s+\S+){0,5})\s*\.?\s*$`)
