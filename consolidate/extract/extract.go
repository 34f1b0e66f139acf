// Package extract reads drafts (notes, agents' transcripts) for candidate
// memories: by patterns (preferences, state, events, decisions with their
// because, failures with their cause, procedures, corrections), and by
// checking what a language model proposes against the same rules. It is
// pure: a draft in, candidates out; the planner decides what becomes of
// them.
package extract

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/ingest"
	"cairn/internal/lang"
	"cairn/internal/lazyre"
	"cairn/memory"
	"cairn/safetext"
	"cairn/secrets"
)

// Class is what kind of thing a candidate says (issue 11's classes).
type Class string

// The classes.
const (
	ClassPreference Class = "preference" // A: preferences and constraints the user states
	ClassState      Class = "state"      // B: current state and measurements
	ClassEvent      Class = "event"      // C: events with their outcome
	ClassDecision   Class = "decision"   // D: decisions with their reasons
	ClassFailure    Class = "failure"    // E: failures with their cause
	ClassProcedure  Class = "procedure"  // procedures with steps (kind procedure)
	ClassCorrection Class = "correction" // user corrections ("no, actually ...")
	ClassLesson     Class = "lesson"     // F: an agent's claim a failing command contradicted at once
)

// Candidate is a memory extraction proposes from a draft.
type Candidate struct {
	Class      Class
	Layer      memory.Layer
	Kind       memory.Kind
	Provenance memory.Provenance
	Title      string   // one line, <= 120 runes, no control characters
	Body       string   // the statement (may equal the span, cleaned); for a procedure, the steps as a markdown list
	Because    string   // decision: its reason as written ("because ...", "since ...", "so that ..."), "" if none
	Triggers   []string // failure: words/phrases a future task would mention (the thing that failed, the command, the flag)
	Span       string   // the exact substring of the draft the candidate came from (must occur in d.Text verbatim)
	Corrects   string   // correction: the wrong claim when the text names it ("X, not Y" -> "Y"; "no, it's not Y, it's X" -> "Y"), else ""
	Sure       bool     // false: cairn is not sure enough; it becomes a proposal for a person instead of a memory
}

// How the pattern extractor reads a draft.
//
// A draft is cut into statements: lines, the sentences of a line, list
// items, and procedures (a lead line such as "To release:" with the steps
// under it, or "first … then … finally …"). Each statement is read once,
// by cues tried in a fixed order, and the first that fits decides its
// class:
//
//  1. chatter (acknowledgements, greetings, questions, what the speaker is
//     about to do) makes nothing;
//  2. an explicit correction ("no, …", "actually …", "correction: …",
//     "that's wrong, …") is a correction;
//  3. a procedure is a procedure;
//  4. a failure cue in the main clause ("X failed", "broke", "doesn't work
//     with", "don't use X: it …") is a failure; a failure named only in a
//     reason ("reverted X because it broke Y") is not;
//  5. a decision verb ("decided", "chose", "went with") or a change with a
//     reason ("switched to X because …") is a decision;
//  6. a past action at the front ("Deployed …", "we migrated …") is an event;
//  7. a preference or a rule ("I prefer", "never", "must") is a preference;
//  8. a bare contrast ("X, not Y", "not Y but X") is a correction;
//  9. a plain statement of how things are, with a verb, is a state.
//
// Anything else makes nothing: a wrong memory costs more than a missed one.
// Statements read but not firmly (a hedge such as "maybe", a state with
// nothing concrete in it from an agent) are returned with Sure=false, and
// consolidation turns them into proposals for a person.
//
// Provenance. Who said a statement is the draft's actor, unless a
// transcript prefix on its line ("user:", "assistant:") says otherwise; the
// prefix holds until the next one. From a person: a correction is
// user-corrected, everything else user-stated. From an agent or the
// system: events and failures are observed (the agent saw them happen),
// corrections and the rest extracted (it read or inferred them). An
// agent's correction is user-corrected only when the draft reports the
// user's own words: a "user:" line, or "the user corrected: …" / "the user
// said: no, …". A state with a measured figure (a number with a unit of
// time, size, rate or percent; p50/p95/p99; "bench", "measured", "load
// test") is measured whoever wrote it, unless it is a setting (a timeout,
// a limit, a TTL): a configured number is not a measurement.
//
// Secrets never reach a candidate: a statement in which cairn/secrets finds
// a credential, a procedure with such a step, any line of a private key
// block, and a statement holding a redaction marker ("[REDACTED…") are
// skipped whole, and every candidate's fields are checked again before it
// is returned. A draft that is not valid UTF-8 makes nothing.

// MaxTitleRunes bounds a candidate's title (the patterns' and the
// model's).
const MaxTitleRunes = 120

// maxTriggers bounds a failure's trigger list.
const maxTriggers = 4

// Extract returns the candidates of a draft, in the order they appear.
// Chatter makes none. It is a pure function of the draft.
func Extract(d memory.Draft) []Candidate {
	if strings.TrimSpace(d.Text) == "" || !utf8.ValidString(d.Text) {
		return nil
	}
	if d.Actor == memory.ActorUser && FromTranscript(d) && pastedDocument(d.Text) {
		return nil // a slash command's prompt template, not what the person said
	}
	x, out, notes, harness := newExtractor(d)
	sts := x.statements(d.Actor)
	through := 0 // notes: the statements up to here went with a finding
	for i, st := range sts {
		if x.tainted(st) || overlaps(harness, st.start, st.end) {
			continue
		}
		var c Candidate
		var ok bool
		if notes {
			if i < through {
				continue // said with the finding before it
			}
			c, ok = noteFinding(sts, i)
			if ok {
				c.Body, through = explained(sts, i, c.Body)
			}
		} else {
			c, ok = classifyStatement(st)
		}
		if !ok {
			continue
		}
		c.Span = st.span
		if !finish(&c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// overlaps reports whether [start, end) meets one of spans.
// newExtractor readies d for reading: the tool facts of an agent's draft
// taken out (and returned), a notes draft's mark blanked, where the
// credentials are, and the spans the harness put into a person's message.
func newExtractor(d memory.Draft) (x extractor, tools []Candidate, notes bool, harness [][2]int) {
	x = extractor{text: d.Text, session: d.Actor != memory.ActorUser && FromTranscript(d), prompt: d.Actor == memory.ActorUser && FromTranscript(d)}
	if d.Actor != memory.ActorUser {
		x.text, tools = toolFacts(d.Text)
	}
	notes = d.Actor != memory.ActorUser && strings.HasPrefix(x.text, ingest.NotesMark)
	if notes {
		// Blank the mark: every statement keeps its place.
		x.text = strings.Repeat(" ", len(ingest.NotesMark)) + x.text[len(ingest.NotesMark):]
	}
	x.secretAt, x.keyLines = secretsOf(x.text)
	if d.Actor == memory.ActorUser {
		// What the harness put into the person's message (a reminder, a
		// hook's output) is never the person's: a draft ingested before
		// ingest took it out still holds it.
		harness = ingest.HarnessSpans(x.text)
	}
	return x, tools, notes, harness
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}

// extractor holds one draft while it is read.
type extractor struct {
	text     string
	session  bool         // an agent's words in its session log, read by ingest
	prompt   bool         // a person's prompt in a session log, read by ingest
	secretAt []int        // byte offsets where cairn/secrets finds a credential
	keyLines map[int]bool // the lines of private key blocks
}

// statement is one thing said in a draft.
type statement struct {
	span       string       // verbatim from the draft
	start, end int          // where span is in the draft
	first      int          // first line (1-based)
	last       int          // last line
	speaker    memory.Actor // who said it
	reported   bool         // an agent reports the user's own words ("the user corrected: …")
	item       bool         // a list item
	standing   bool         // said as a standing rule ("going forward", "from now on")
	core       string       // what to classify: the span without prefixes, fillers and labels
	body       string       // what to keep: core, with a measurement label ("Bench:") put back
	label      string       // a class label taken off the front, lower case ("correction", "decision")
	procedure  bool         // a procedure: lead and steps are set
	lead       string       // a procedure's lead ("To release")
	steps      []string     // a procedure's steps
	reproSteps bool         // the procedure reproduces a bug (its layer is B)
	session    bool         // an agent said it in its session log (not a capture)
	prompt     bool         // the person said it in a prompt of a session log
	todo       bool         // an item of a to-do list ("Still needed:", "Next steps:")
}

// secretsOf finds where cairn/secrets sees a credential in text (as byte
// offsets) and every line of a private key block (a finding names only
// where the block starts).
func secretsOf(text string) (at []int, keyLines map[int]bool) {
	found := secrets.Scan(text)
	if len(found) > 0 {
		// Findings give a line and a rune column; walk the text once to
		// turn them into offsets.
		k, line, col := 0, 1, 1
		for pos, r := range text {
			for k < len(found) && found[k].Line == line && found[k].Column == col {
				at = append(at, pos)
				k++
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		for ; k < len(found); k++ {
			at = append(at, len(text)) // past the end: taint the last statement
		}
	}
	keyLines = map[int]bool{}
	block := false
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "-----BEGIN") {
			block = true
		}
		if block {
			keyLines[i+1] = true
		}
		if strings.Contains(line, "-----END") {
			block = false
		}
	}
	return at, keyLines
}

// redactionMark finds the markers capture and ingest leave where they took a
// secret out.
var redactionMark = lazyre.New(`(?i)\[redacted|<redacted|\*{3}redacted|\{redacted`)

// tainted reports whether a statement touches a credential or a redaction.
func (x *extractor) tainted(st statement) bool {
	for _, at := range x.secretAt {
		if at >= st.start && at < st.end || at == len(x.text) && st.end == len(x.text) {
			return true
		}
	}
	for l := st.first; l <= st.last; l++ {
		if x.keyLines[l] {
			return true
		}
	}
	return redactionMark.MatchString(st.span) || len(secrets.Scan(st.span)) > 0
}

// finish finishes a candidate: titles are one short line without control
// characters, and nothing in it holds a credential.
func finish(c *Candidate) bool {
	c.Title = OneLineTitle(c.Title)
	c.Body = strings.TrimSpace(c.Body)
	c.Because = strings.TrimSpace(c.Because)
	c.Corrects = strings.TrimSpace(safetext.CleanLine(c.Corrects))
	if c.Title == "" || c.Body == "" {
		return false
	}
	if safetext.Valid("body", c.Body) != nil || safetext.Check("title", c.Title) != nil {
		return false
	}
	fields := []secrets.Field{{Name: "title", Text: c.Title}, {Name: "body", Text: c.Body},
		{Name: "because", Text: c.Because}, {Name: "corrects", Text: c.Corrects}}
	for _, t := range c.Triggers {
		fields = append(fields, secrets.Field{Name: "trigger", Text: t})
	}
	if secrets.Check(fields...) != nil || redactionMark.MatchString(c.Title+c.Body) {
		return false
	}
	return true
}

// OneLineTitle makes one line of at most MaxTitleRunes runes, cut at a word.
func OneLineTitle(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(safetext.CleanLine(s)), " ")
	r := []rune(s)
	if len(r) <= MaxTitleRunes {
		return s
	}
	cut := string(r[:MaxTitleRunes-1])
	if i := strings.LastIndexByte(cut, ' '); i > MaxTitleRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// ---- splitting a draft into statements

// textLine is one line of a draft, read.
type textLine struct {
	no         int // 1-based
	start, end int // the content, past a speaker prefix, quote and list marker; trailing space trimmed
	speaker    memory.Actor
	item       bool // a list item
	checkbox   bool // "- [ ]"
	skip       bool // blank, a code fence or inside one, or a heading's marks only
}

// speakerPrefix is a transcript's "who:" at the start of a line.
var speakerPrefix = lazyre.New(`(?i)^\s*(user|human|me|assistant|agent|ai|claude|codex|model|bot|system)\s*:\s*`)

// listMarker is a list item's bullet or number, and a checkbox after it.
var listMarker = lazyre.New(`^(?:([-*•+])|(\d{1,3})[.)])\s+(\[[ xX]\]\s+)?`)

func speakerOf(name string) memory.Actor {
	switch strings.ToLower(name) {
	case "user", "human", "me":
		return memory.ActorUser
	case "system":
		return memory.ActorSystem
	}
	return memory.ActorAgent
}

func readLines(text string, actor memory.Actor) []textLine {
	var out []textLine
	speaker := actor
	fence := false
	pos := 0
	for no := 1; pos <= len(text); no++ {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		l := textLine{no: no, start: pos, end: end, speaker: speaker}
		line := text[pos:end]
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = !fence
			l.skip = true
		case fence || trimmed == "" || strings.HasPrefix(trimmed, "|"):
			l.skip = true // a table row is data, not a statement
		default:
			s := pos + len(line) - len(strings.TrimLeft(line, " \t"))
			if m := speakerPrefix.FindStringSubmatchIndex(text[s:end]); m != nil {
				speaker = speakerOf(text[s+m[2] : s+m[3]])
				l.speaker = speaker
				s += m[1]
			}
			for s < end && text[s] == '>' { // a quoted line
				s++
				for s < end && (text[s] == ' ' || text[s] == '\t') {
					s++
				}
			}
			if m := listMarker.FindStringSubmatchIndex(text[s:end]); m != nil {
				l.item = true
				l.checkbox = m[6] >= 0
				s += m[1]
			} else if strings.HasPrefix(text[s:end], "#") {
				h := strings.TrimLeft(text[s:end], "#")
				if h == "" || h[0] == ' ' {
					s = end - len(strings.TrimLeft(h, " "))
				}
			}
			l.start = s
			l.end = s + len(strings.TrimRight(text[s:end], " \t\r"))
			l.skip = l.start >= l.end
		}
		out = append(out, l)
		pos = end + 1
	}
	return out
}

// statements cuts the draft into statements, in order.
func (x *extractor) statements(actor memory.Actor) []statement {
	if actor == memory.ActorSystem || actor == "" {
		actor = memory.ActorAgent
	}
	if actor != memory.ActorUser {
		actor = memory.ActorAgent
	}
	lines := readLines(x.text, actor)
	var out []statement
	todo := false // under a to-do list's lead
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.skip {
			continue
		}
		if !l.item {
			lead := emphasis.Replace(strings.TrimSpace(x.text[l.start:l.end]))
			todo = todoLead.MatchString(lead) || planLead.MatchString(lead)
			if todo {
				continue // the lead of a to-do list says nothing itself
			}
			if st, next, ok := x.blockProcedure(lines, i); ok {
				st.session = x.session && st.speaker == memory.ActorAgent
				st.prompt = x.prompt && st.speaker == memory.ActorUser
				out = append(out, st)
				i = next - 1
				continue
			}
		}
		for _, r := range sentenceRanges(x.text, l.start, l.end) {
			span := x.text[r[0]:r[1]]
			st := statement{span: span, start: r[0], end: r[1], first: l.no, last: l.no, speaker: l.speaker, item: l.item, todo: todo && l.item}
			if st.speaker == memory.ActorSystem {
				st.speaker = memory.ActorAgent
			}
			st.session = x.session && st.speaker == memory.ActorAgent
			st.prompt = x.prompt && st.speaker == memory.ActorUser
			prepareStatement(&st)
			out = append(out, st)
		}
	}
	return out
}

// abbreviations end in a full stop that does not end a sentence.
var abbreviations = lang.WordSet(`e.g i.e eg ie etc vs cf approx incl mr dr st`)

// sentenceRanges cuts text[start:end] at sentence ends: a full stop,
// question or exclamation mark followed by a space. A small number
// before a full stop is an enumeration ("1. run … 2. push …"), and a
// version, path or abbreviation does not end a sentence.
func sentenceRanges(text string, start, end int) [][2]int {
	var out [][2]int
	s := start
	code := false // inside a `code span`, where "..." ends nothing
	for i := start; i < end; i++ {
		c := text[i]
		if c == '`' {
			code = !code && strings.IndexByte(text[i+1:end], '`') >= 0
			continue
		}
		if code || c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i
		for j+1 < end && strings.IndexByte(".!?)\"'", text[j+1]) >= 0 {
			j++
		}
		if j+1 < end && text[j+1] != ' ' && text[j+1] != '\t' {
			continue // inside a token: v1.2, ./..., e.g.x
		}
		if c == '.' && i == j && !sentenceStop(text, start, i, end) {
			continue
		}
		addRange(&out, text, s, j+1)
		s = j + 1
		i = j
	}
	addRange(&out, text, s, end)
	return out
}

func addRange(out *[][2]int, text string, s, e int) {
	for s < e && (text[s] == ' ' || text[s] == '\t') {
		s++
	}
	for e > s && (text[e-1] == ' ' || text[e-1] == '\t') {
		e--
	}
	if e > s {
		*out = append(*out, [2]int{s, e})
	}
}

// stepReach is how far apart two numbered steps on one line may be.
const stepReach = 400

// sentenceStop reports whether the full stop at i ends a sentence.
func sentenceStop(text string, start, i, end int) bool {
	w := i
	for w > start && text[w-1] != ' ' && text[w-1] != '\t' {
		w--
	}
	word := strings.ToLower(strings.Trim(text[w:i], "(\"'"))
	if abbreviations[word] {
		return false
	}
	if n := len(word); n > 0 && n <= 2 && strings.Trim(word, "0123456789") == "" {
		// "1." starts a step when it opens the text or follows a colon, or
		// when the next number follows.
		before := strings.TrimRight(text[start:w], " \t")
		if before == "" || strings.HasSuffix(before, ":") {
			return false
		}
		if n == 2 || word[n-1] == '9' || word == "0" {
			return true
		}
		// Steps said on one line sit close together: look nearby only, so
		// that a long line costs linear time.
		next := string(rune(word[n-1]+1)) + "."
		prev := string(rune(word[n-1]-1)) + "."
		ahead, behind := text[i:min(end, i+stepReach)], text[max(start, w-stepReach):w]
		if strings.Contains(ahead, " "+next+" ") || word != "1" && strings.Contains(behind, prev+" ") {
			return false
		}
	}
	return true
}

// ---- procedures

// procLead is a line that says steps follow, with or without a colon.
// Other short lines ("Upgrading Postgres:", "When CI is red:") lead steps
// only with a colon and two steps or more.
var procLead = lazyre.New(`(?i)^(?:to\s+\w|how\s+(?:to|we|i|you)\s+\w|steps?\s+(?:to|for)\s|(?:the\s+)?(?:procedure|runbook|recipe|playbook)\b|[\w -]*\b(?:steps|checklist|procedure|runbook|recipe|instructions)\s*:?$)`)

// notLead are leads whose items are notes or plans, not steps.
var notLead = lazyre.New(`(?i)^(?:summary|notes?|status|updates?|todo|to\s?do|to-do|plan|next\s+steps?|next|findings|results?|changes|changelog|today|done|recap|fyi|context|background|questions?|issues?|problems?|decisions?|i'll|i will|let me|let's|we'll|here|what|why|things|remaining|open|timeline)\b`)

// firstPerson in a lead makes its items the speaker's plan ("Looking into
// it, I'll:").
var firstPerson = lazyre.New(`\b(?:i'll|i\s+will|let\s+me|let's|we'll|i'm\s+going|i\s+am\s+going|i\s+need|i\s+want|my\s+plan)\b`)

// reproLead names a bug's reproduction: its steps go stale with the bug.
var reproLead = lazyre.New(`(?i)\brepro(?:duce|duction)?\b`)

// blockProcedure reads a lead line at i and the list items under it.
func (x *extractor) blockProcedure(lines []textLine, i int) (statement, int, bool) {
	l := lines[i]
	lead := strings.TrimSpace(x.text[l.start:l.end])
	j := i + 1
	var items []textLine
	for ; j < len(lines) && lines[j].item && !lines[j].skip; j++ {
		items = append(items, lines[j])
	}
	lead = strings.TrimSpace(emphasis.Replace(lead))
	low := strings.ToLower(lead)
	if len(items) == 0 || len(strings.Fields(lead)) > 10 || notLead.MatchString(lead) || firstPerson.MatchString(low) || !namesSubject(lead) {
		return statement{}, 0, false
	}
	colon := strings.HasSuffix(lead, ":")
	strong := procLead.MatchString(strings.TrimSuffix(lead, ":"))
	if !strong && !(colon && len(items) >= 2) {
		return statement{}, 0, false
	}
	var steps []string
	imperative := 0
	for _, it := range items {
		s := strings.TrimSpace(x.text[it.start:it.end])
		if it.checkbox || startsImperative(s) {
			imperative++
		}
		steps = append(steps, s)
	}
	if imperative*2 < len(steps) || !(startsImperative(steps[0]) || items[0].checkbox) {
		return statement{}, 0, false
	}
	last := items[len(items)-1]
	st := statement{span: x.text[l.start:last.end], start: l.start, end: last.end, first: l.no, last: last.no, speaker: l.speaker,
		procedure: true, lead: strings.TrimSpace(strings.TrimSuffix(lead, ":")), steps: steps, reproSteps: reproLead.MatchString(lead)}
	if st.speaker == memory.ActorSystem {
		st.speaker = memory.ActorAgent
	}
	st.core = st.span
	st.body = st.span
	return st, j, true
}

// namesSubject reports whether a procedure's lead says what it is for:
// two words or more ("To release", "Deploy steps"), or a name ("Makefile:");
// "Actions:" or "Steps:" alone says nothing.
func namesSubject(lead string) bool {
	lead = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lead), ":"))
	return len(strings.Fields(lead)) >= 2 || codeToken.MatchString(lead)
}

// inlineLead is a procedure's lead and its steps on one line: "To X: a,
// b, then c", "How to X: 1) a 2) b", "To X, run y".
var inlineLead = lazyre.New(`(?i)^((?:to|how\s+to|steps?\s+(?:to|for)|how\s+we)\s+[^:,]{2,60}?)\s*[:,]\s+(.+)$`)

// labelledSteps is any short lead with numbered steps after it: "Bootstrap a
// service: 1) copy … 2) rename …".
var labelledSteps = lazyre.New(`^([^:]{3,60}?)\s*:\s+(1[.)]\s.+)$`)

// firstThen is "first a, then b, finally c".
var firstThen = lazyre.New(`(?i)^first\b,?\s*(.+?)[;,]?\s+(?:and\s+)?then\b,?\s*(.+)$`)

// pronounEnd is a lead about something said before ("to fix this"): an
// instruction for the task at hand, not a standing procedure.
var pronounEnd = lazyre.New(`(?i)\b(?:this|that|it|them|these|those)$`)

// stepBreak splits inline steps: "then", "finally", ";", and a comma.
var stepBreak = lazyre.New(`(?i)\s*(?:[;,]\s*(?:and\s+)?(?:then|finally|after that|next)?\b|\s+(?:and\s+)?(?:then|finally|after that)\b),?\s*`)

// enumerated splits "1) a 2) b" and "1. a 2. b".
var enumerated = lazyre.New(`(?:^|\s)\d{1,2}[.)]\s+`)

// inlineProcedure reads a procedure said on one line.
func inlineProcedure(core string) (lead string, steps []string, ok bool) {
	rest := ""
	switch m := inlineLead.FindStringSubmatch(core); {
	case firstThen.MatchString(core):
		rest = core
	case m != nil:
		lead, rest = strings.TrimSpace(m[1]), m[2]
	default:
		m = labelledSteps.FindStringSubmatch(core)
		if m == nil || len(enumerated.FindAllString(m[2], -1)) < 2 {
			return "", nil, false
		}
		lead, rest = strings.TrimSpace(m[1]), m[2]
	}
	if notLead.MatchString(lead) || pronounEnd.MatchString(lead) || firstPerson.MatchString(strings.ToLower(lead)) {
		return "", nil, false
	}
	if firstThen.MatchString(rest) {
		rest = rest[len("first"):] // "first" opens the steps; it is not one
	}
	rest = strings.TrimLeft(rest, ", ")
	var parts []string
	if enumerated.MatchString(rest) && strings.HasPrefix(strings.TrimSpace(rest), "1") {
		parts = enumerated.Split(rest, -1)
	} else {
		parts = stepBreak.Split(rest, -1)
	}
	for _, p := range parts {
		p = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(p), ".;,"))
		if p == "" {
			continue
		}
		// "run x and review y": two steps when the second is a verb too.
		if a, b, found := strings.Cut(p, " and "); found && startsImperative(b) && startsImperative(a) {
			steps = append(steps, a, b)
			continue
		}
		steps = append(steps, p)
	}
	if len(steps) == 0 || !startsImperative(steps[0]) {
		return "", nil, false
	}
	imperative := 0
	for _, s := range steps {
		if startsImperative(s) {
			imperative++
		}
	}
	if imperative*2 < len(steps) {
		return "", nil, false
	}
	return lead, steps, true
}

// imperativeVerbs start a step ("run …", "bump …").
var imperativeVerbs = lang.WordSet(`add analyse analyze announce apply assign avoid backfill bootstrap branch build bump call
	cd change check cherry-pick choose clean clear clone close commit compare configure copy cordon cp create cut
	debug decrease delete deploy disable document download drain drop edit enable ensure export fetch find fix
	flush follow freeze generate get grep increase install issue keep kill label load lock log login lower make
	mark merge migrate mkdir move mv notify open paste pick pin post promote publish pull push put raise rebase
	read rebuild reboot regenerate register release reload remove rename request re-run rerun reset restart restore retry
	resume review revert revoke rm roll rollback rotate run scale seed select set ship sign source ssh start stop
	switch tag tail take test trigger uncordon uninstall unlock unset update upgrade upload use validate verify
	visit wait warm watch write wipe`)

// CommandNames start a step as a program would be typed.
var CommandNames = lang.WordSet(`go make npm npx pnpm yarn git docker kubectl helm terraform pg_restore pg_dump pg_upgrade
	psql cargo pip pip3 python python3 node bun deno goreleaser gh aws gcloud az scp rsync curl systemctl
	journalctl brew apt apt-get bazel buf protoc sqlc certbot mvn gradle sudo tmux sed kustomize ansible
	redis-cli mysql mongosh openssl dotnet composer bundle rake poetry uv podman nix just task`)

// startsImperative reports whether s begins like a step: a verb in the
// imperative, a command, or code.
func startsImperative(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "`") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "$ ") {
		return true
	}
	w := strings.ToLower(strings.Trim(firstField(s), "`,.:;"))
	return imperativeVerbs[w] || CommandNames[w]
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// ---- preparing a statement

// fillerOpen opens a sentence without saying anything ("ok,", "anyway,").
var fillerOpen = lazyre.New(`(?i)^(?:ok(?:ay)?|thanks|thank you|great|cool|nice|perfect|hmm+|hm|so|anyway|also|and|but|btw|fyi|oh|well|lol|right|sure|alright|yeah|yes|yep|interesting|understood|morning|hey|hi|hello|sgtm|lgtm|got it|note that|note|ps|heads up|for the record|to be clear|just so you know|quick note|reminder|here's\s+what\s+(?:i|we)\s+found|what\s+(?:i|we)\s+found|turns\s+out|found\s+it)\b\s*[,!.:;—–-]*\s+`)

// standingOpeners make what follows a standing rule.
var standingOpeners = lazyre.New(`(?i)^(?:going forward|from now on|in future|in the future|henceforth|as a rule)\b[,:]?\s+`)

// reporter is an agent reporting the user's words: "the user corrected: …".
var reporter = lazyre.New(`(?i)^(?:the\s+)?user\s+(corrected(?:\s+me)?|clarified|said|says|replied|wrote|pointed out)\s*(?:that\s*)?[:,]?\s*`)

// labelPrefix is a short label before a colon or dash: "Correction: …".
// planLabel is a numbered step of a plan: "Fix 2:", "Step 3 —", "Option B:".
// A day of a schedule opens one too: "July 12:", "Day 2 —", "Week 1:",
// "Mon:".
var planLabel = lazyre.New(`(?i)^(?:(?:fix|step|option|phase|part|change|task|todo|approach|plan|stage|day|week|sprint|milestone|iteration)\s*#?(?:\d+|[a-e])\b[a-z]?|(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}(?:st|nd|rd|th)?|(?:mon|tues?|wed|thu|thurs|fri|sat|sun)(?:day)?)\s*(?:[:.)—–]|\s-)\s*`)

// planLead heads a plan, a schedule or a roadmap: the items under it are
// what is to be done, not what is so ("## Build plan", "Timeline:").
var planLead = lazyre.New(`(?i)^(?:#{1,6}\s*)?(?:[\w'/-]+\s+){0,3}(?:plan|roadmap|schedule|timeline|milestones|next\s+steps|phases)\s*(?:\([^)]*\))?\s*:?\s*$`)

var labelPrefix = lazyre.New(`(?i)^([\p{L}' ]{2,30}?)\s*(?:[:—–]|\s-)\s+`)

// emphasis marks are dropped before a statement is read.
var emphasis = strings.NewReplacer("**", "", "__", "")

// fileLabel is a file or code name before a colon.
var fileLabel = lazyre.New("^(?:`[^`]+`|[\\w.-]+(?:/[\\w.-]+)*\\.\\w+)\\s*:\\s+")

// statementLabels are the labels that say what class a statement is, and the ones
// that only introduce it. Measurement labels stay in the body ("Load test:
// the bucket holds 3000 rps" says where the figure came from).
var statementLabels = map[string]string{
	"correction": "correction", "small correction": "correction", "quick correction": "correction",
	"minor correction": "correction", "one correction": "correction", "to correct": "correction",
	"decision": "decision", "our decision": "decision", "our choice": "decision", "the decision": "decision",
	"bench": "measure", "benchmark": "measure", "benchmarks": "measure", "measured": "measure", "load test": "measure",
	"perf": "measure", "profile": "measure", "measurement": "measure",
	"note": "", "notes": "", "fyi": "", "ps": "", "update": "", "status": "", "summary": "", "context": "",
	"two things": "", "three things": "", "a few things": "", "quick notes": "", "heads up": "", "reminder": "",
	"btw": "", "tldr": "", "tl;dr": "", "info": "", "aside": "", "also": "", "rule of thumb": "", "tip": "",
	// What is still to do, or only wondered about, is not a memory yet.
	"todo": "skip", "to do": "skip", "fixme": "skip", "xxx": "skip", "wip": "skip", "tbd": "skip", "next": "skip",
	"later": "skip", "idea": "skip", "ideas": "skip", "question": "skip", "questions": "skip", "q": "skip",
	"thoughts": "skip", "maybe": "skip", "open question": "skip", "follow up": "skip", "follow-up": "skip",
}

// prepareStatement strips what a statement opens with and sets core and body.
func prepareStatement(st *statement) {
	s := strings.TrimSpace(st.span)
	s = strings.ReplaceAll(s, "’", "'")
	for range 4 {
		t := s
		if m := fillerOpen.FindString(s); m != "" && len(m) < len(s) {
			s = s[len(m):]
		}
		if m := standingOpeners.FindString(s); m != "" {
			st.standing = true
			s = s[len(m):]
		}
		if m := reporter.FindStringSubmatch(s); m != nil && st.speaker == memory.ActorAgent && len(m[0]) < len(s) {
			st.reported = true
			if strings.HasPrefix(strings.ToLower(m[1]), "corrected") {
				st.label = "correction"
			}
			s = s[len(m[0]):]
		}
		if s == t {
			break
		}
	}
	body := s
	// Markdown emphasis says nothing; a file name before a colon ("**store/db.go**:
	// delete …") labels a change list's item.
	s = emphasis.Replace(s)
	if m := fileLabel.FindString(s); m != "" && len(m) < len(s) {
		s = s[len(m):]
	}
	if planLabel.MatchString(s) {
		s, body = "", "" // "**Fix 2**: remove …", "Step 3: …": a step of the plan at hand
	}
	if m := labelPrefix.FindStringSubmatch(s); m != nil {
		name := strings.ToLower(strings.TrimSpace(m[1]))
		if class, ok := statementLabels[name]; ok && len(m[0]) < len(s) {
			rest := s[len(m[0]):]
			switch class {
			case "measure":
				st.label = class
				s = rest // classify the statement; keep the label in the body
			case "skip":
				st.label, s, body = class, "", ""
			case "":
				s, body = rest, rest
			default:
				st.label = class
				s, body = rest, rest
			}
		}
	}
	// Classify with plain apostrophes; the body keeps what was written.
	st.core = strings.ReplaceAll(strings.TrimSpace(s), "’", "'")
	st.body = strings.TrimSpace(body)
}

// ---- classification

// classifyStatement reads one statement.
func classifyStatement(st statement) (Candidate, bool) {
	if st.procedure {
		if l := strings.ToLower(strings.TrimSpace(st.lead)); agentOffer.MatchString(l) || questionStart.MatchString(l) {
			return Candidate{}, false // "Should I proceed to: 1. … 2. …": a question, not a procedure
		}
		return procedureCandidate(st, st.lead, st.steps)
	}
	core := st.core
	low := strings.ToLower(core)
	if core == "" || isChatter(low) || st.todo || workLog(st, low) || programOutput.MatchString(core) || stackFrame.MatchString(core) || agentOffer.MatchString(low) || backlogItem.MatchString(core) || frenchPlan.MatchString(low) || choiceOfTheMoment.MatchString(low) || st.speaker != memory.ActorUser && momentStatus.MatchString(low) || headless.MatchString(core) {
		return Candidate{}, false
	}
	if st.speaker == memory.ActorUser && taskRequest(low) {
		return Candidate{}, false // a request for work now
	}
	if c, ok, cued := explicitCorrection(st, core, low); ok || cued {
		// A reply that opens with "no," or "actually" and states nothing
		// ("no, let's not") is not read as anything else either.
		return c, ok
	}
	if planAhead.MatchString(low) && !letsDecide.MatchString(low) || testStatus.MatchString(low) {
		return Candidate{}, false
	}
	if progressive.MatchString(low) && !failureCue(mainClause(low)) && !measuredFigure.MatchString(low) {
		return Candidate{}, false
	}
	if lead, steps, ok := inlineProcedure(core); ok {
		st.reproSteps = reproLead.MatchString(lead)
		return procedureCandidate(st, lead, steps)
	}
	if c, ok := readFailure(st, core, low); ok {
		return c, true
	}
	if c, ok := readDecision(st, core, low); ok {
		return c, true
	}
	if st.session && (pastAction.MatchString(low) || eventStart.MatchString(low) || eventDone.MatchString(low)) {
		// What the agent did is the session's diary (and git's log), not
		// something to remember on its own.
		return Candidate{}, false
	}
	if c, ok := readEvent(st, core, low); ok {
		return c, true
	}
	if c, ok := readPreference(st, core, low); ok {
		return c, true
	}
	if c, ok := bareCorrection(st, core, low); ok {
		return c, true
	}
	return readState(st, core, low)
}

// chatterWords are the words of acknowledgements and greetings: a
// statement made of nothing else says nothing.
var chatterWords = lang.WordSet(`ok okay k kk thanks thank you thx ty cheers cool nice great perfect awesome sounds good
	sgtm lgtm got it understood will do done yes yep yeah yup no nope nah sure right agreed exactly hmm hmmm hm ah
	oh catch call point question makes sense fair enough worries problem problems np brb one sec moment hold on
	wait hi hello hey there morning evening afternoon night bye see ttyl i interesting wow lol haha oops whoops
	welcome work well go ahead for it ship all today that's that this is much so very really indeed alright fine
	true correct and a the now again too lgtm! please checking looking later soon tomorrow anything else yet
	idea sorry my bad nvm nevermind not quite`)

// questionStart opens a question without its question mark (a few
// openers of other languages people write to agents in too).
var questionStart = lazyre.New(`^(?:what|why|where|which|who|whom|whose|how\s+(?:do|does|did|can|could|should|is|are|come|about|many|much|long|often)|(?:can|could|would|will|do|does|did|is|are|should|shall|may|was|were|have|has)\s+(?:you|we|i|it|this|that|the|there|they|anyone|someone|somebody|our|your|my|its|their|a|an|any|all)\b|any\s+(?:idea|ideas|thoughts)|wdyt|est-ce\s+qu(?:e|')|qu'est-ce|pourquoi|comment\s+(?:je|on|faire|est-ce)|peux-tu|pouvez-vous|por\s+qu[eé]|c[oó]mo\s+(?:puedo|se|hago)|puedes|warum|wie\s+kann|kannst\s+du)\b`)

// agentOffer is an agent asking leave or offering more ("Should I proceed
// to …", "Would you like me to …", "If helpful, I can add …"): the
// moment's question, never a memory.
var agentOffer = lazyre.New(`^(?:should\s+i|shall\s+i|would\s+you\s+like|do\s+you\s+want|want\s+me\s+to|if\s+(?:helpful|useful|needed|you\s+(?:want|like|prefer)|you(?:'|’)d\s+like|you\s+would\s+like),?\s+i\s+(?:can|could)|let\s+me\s+know\s+if|i\s+can\s+also|happy\s+to)\b`)

// programOutput is a line a program printed, pasted or echoed as it came:
// a log line with its time or level, a build step, a traceback frame, a
// command line with its environment, a tool's usage error. What it says
// is the moment's; what it meant, a finding says.
var programOutput = lazyre.New(`(?i)^\s*(?:\d{4}[/-]\d{2}[/-]\d{2}[ t]\d{2}:\d{2}|\[(?:error|warn|warning|info|debug|fatal|trace|loop start)[^\]]*\]|\[\d+(?:\.\d+)?\]|=>\s|#\d+\s+\[|\d+\.\d+\s+[\w.-]+:|file\s+"[^"]+",\s+line\s+\d+|traceback\b|(?-i:(?:[A-Z][A-Z0-9_]*=\S+\s+)+)\S|[\w.-]+:\s+error:|error\[e\d+\]|panic:|refused\s+to\s|uncaught\s|npm\s+err!|\w*(?:error|fatal|exception):\s|[^\t\n]+\t[^\t\n]+\t|\w[\w .-]{0,30}:\s+failed\s+to\s|dependency\s+failed\s+to\s+start)`)

// headless is a sentence cut from its subject ("are used by `mix …` to
// diff …"): a fragment of a longer one, nothing alone.
var headless = lazyre.New(`^(?:are|is|was|were|has|have|had)\s`)

// forNow is the person's word for the moment ("don't make any changes
// yet", "skip the tests for now"): an instruction of the session, not a
// standing rule.
var forNow = lazyre.New(`^(?:please\s+)?(?:do\s+not|don't|dont)\b.*\b(?:yet|for\s+now|right\s+now|at\s+the\s+moment|this\s+time|until\s+i\s+say)\b`)

// stackFrame is a frame of a stack trace or a log line as a program
// printed it, wherever it stands in the line: a Go frame's arguments
// ("(*Step).Run(0x200911512c00, {…})"), a JavaScript or Java frame ("at
// f (file.js:12:5)"), a syslog time ("May 29 14:54:52.231 ERR …"), a
// usage line ("--ops-address The address to listen on …"), a test's
// failed assertion ("XCTUnwrap failed: …"), a numbered line of a build's
// output ("12 | RUN go install …").
var stackFrame = lazyre.New(`\(0x[0-9a-f]{6,}|\+0x[0-9a-f]+\s*$|^\s*at\s+[\w.$<>\[\] ]+\(\S+:\d+(?::\d+)?\)|^goroutine\s+\d+\s+\[|(?i)^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}|^\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\s+\S|^--?[a-z][\w-]*(?:[= ]<?[\w.-]+>?)?\s+(?-i:[A-Z])[a-z]+\s|^\w+\s+failed:\s|^\d+\s*\|\s`)

// choiceOfTheMoment is an answer whose subject is in the question it
// answers ("I like option 2 …", "I like two function approach", "I
// don't like any approach", "do not do this explicitly"): alone it says
// nothing.
var choiceOfTheMoment = lazyre.New(`^(?:i\s+(?:really\s+)?(?:like|prefer|love|want|don't\s+like|do\s+not\s+like|dislike|hate)|let's\s+(?:go\s+with|do)|go\s+with)\s+(?:option\s+\S+|(?:the\s+)?(?:first|second|third|last|other|latter|former)\b|(?:this|that|these|those|any|either|both|neither)\b|(?:the\s+)?(?:\d+|one|two|three|first|second|third|other|latter|former|same)\s+(?:\w+\s+)?(?:approach|option|one|way)\b|something\s+similar)|^(?:do\s+not|don't)\s+do\s+(?:this|that|it)\b`)

// momentStatus is how something looks right now or a thought on the way
// ("The CSS looks fine.", "Wait, that won't work …", "✅ **User edits never
// lost**"): the agent's moment, not the project's (a person's "wait, …"
// may well correct something).
var momentStatus = lazyre.New(`^(?:wait|hmm+|oh|ah)\b[,.!]?\s|^(?:[\w\x60./-]+\s+){0,4}(?:looks?|seems?)\s+(?:fine|good|great|ok|okay|correct|right|clean)\s*[.!]?$|^(?:✅|✔|☑|❌|⚠|🟢|🔴)`)

// backlogItem is a ticket of a plan being drafted ("#0.7 Frontend shell —
// …"): the plan's, and the tracker's.
var backlogItem = lazyre.New(`^#[A-Za-z0-9]+(?:\.\d+)+\s|^\d+\)\s`)

// hereIs introduces what follows ("here is the diff:"): nothing of its own.
var hereIs = lazyre.New(`^(?:here\s+is|here's|here\s+are|below\s+is|see\s+(?:below|above)|as\s+follows|the\s+following)\b`)

func isChatter(low string) bool {
	t := strings.TrimSpace(low)
	if strings.HasSuffix(strings.TrimRight(t, ` )"'`), "?") || questionStart.MatchString(t) || hereIs.MatchString(t) {
		return true
	}
	if strings.HasSuffix(t, ":") {
		return true // a lead with nothing after it
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		if !chatterWords[w] {
			return false
		}
	}
	return true
}

// planAhead is what the speaker is about to do, not what is so.
var planAhead = lazyre.New(`^(?:let\s+me|let's|lets|lemme|i'll|i\s+will|i'm\s+going\s+to|i\s+am\s+going\s+to|i'm\s+gonna|gonna|i\s+need\s+to|i'd\s+like\s+to|i\s+want\s+to|i\s+should|i\s+can|i\s+could|i\s+would|i\s+might|(?:now|next|first|then|after\s+that)\b,?\s*(?:i'll|i\s+will|let\s+me|let's|we'll)|will\s+\w+|going\s+to|time\s+to|about\s+to|trying\s+to|i'm\s+(?:now\s+)?\w+ing\b|i\s+am\s+(?:now\s+)?\w+ing\b|we're\s+(?:now\s+)?(?:checking|looking|running|trying|waiting|investigating|debugging)\b)`)

// letsDecide is "let's go with X because …": a decision said as a plan.
var letsDecide = lazyre.New(`^let's\s+(?:go\s+with|use|switch\s+to|pick|stick\s+with|keep)\b.*\b(?:because|since|so\s+that)\b`)

// progressive is narration of what is being done right now.
var progressive = lazyre.New(`^(?:checking|looking|running|trying|searching|reading|digging|working|waiting|investigating|debugging|testing|building|fetching|installing|opening|grepping|scanning|reviewing|writing|updating|fixing|adding|thinking|continuing|retrying|rerunning|re-running)\b`)

// testStatus is a run's passing state: progress of the moment.
var testStatus = lazyre.New(`^(?:and\s+)?(?:now\s+)?(?:all\s+)?(?:the\s+)?(?:\d+\s+)?(?:unit\s+|integration\s+|e2e\s+)?(?:tests?|checks?|specs?)\s+(?:now\s+)?(?:pass(?:es|ed)?|are\s+(?:passing|green)|succeed(?:s|ed)?)\b`)

// hedgeWord marks a statement said without conviction.
var hedgeWord = lazyre.New(`\b(?:maybe|probably|perhaps|might|possibly|i\s+think|i\s+guess|i\s+believe|not\s+sure|seems|seem|apparently|iirc|afaik|likely|could\s+be|unsure|i\s+suspect)\b`)

// ---- corrections

// correctionCue opens a correction.
var correctionCue = lazyre.New(`(?i)^(?:(?:no|nope|nah)(?:[\s,]+no)*\s*(?:[,—–:;]|\s-|\.\.\.)\s*(?:actually\b[,:]?\s*)?|actually\b[,:]?\s+|correction\s*[:—–-]\s*|(?:that's|that\s+is|this\s+is|that's\s+not|it's)\s+(?:wrong|not\s+right|incorrect|not\s+correct|not\s+true|outdated|out\s+of\s+date)\b\s*[,:;—–.-]*\s*|wrong\b\s*[,:;—–-]\s*|not\s+quite\b\s*[,:;—–-]\s*|i\s+was\s+wrong(?:\s+(?:earlier|before|above))?\s*[,:;—–-]\s*|to\s+correct\s+(?:myself|that)\s*[,:—–-]\s*|(?:that's|that\s+is|this\s+is)\s+not\s+what\s+i\s+(?:meant|asked\s+for|asked|wanted)\b\s*[,:;—–.-]*\s*|not\s+what\s+i\s+meant\b\s*[,:;—–.-]*\s*)`)

// rightOne is "the correct one is X": a correction said as the right value.
var rightOne = lazyre.New(`(?i)^(?:the\s+)?(?:correct|right|actual|proper)\s+(?:one|[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are)\b`)

// notBut is "not Y but X".
var notBut = lazyre.New(`(?i)^not\s+(.+?),?\s+but\s+(.+)$`)

// isntButIs is "it isn't Y; X" and "it's not Y, it's X".
var isntButIs = lazyre.New(`(?i)^(?:it|this|that)\s+(?:isn't|is\s+not|wasn't|was\s+not|'s\s+not|’s\s+not|s\s+not)\s+(.+?)\s*[;,—–:]\s*(?:it's\s+|it\s+is\s+|it\s+was\s+)?(.+)$`)

// commaNot is "…, not Y" at the end of a clause.
var commaNot = lazyre.New(`(?i),\s+not\s+((?:[^,;.]|\.\S)+?)\s*(?:[,;]|\.(?:\s|$)|$)`)

// explicitCorrection reads a statement that opens with a correction cue;
// cued reports whether it did, whatever it found after it.
func explicitCorrection(st statement, core, low string) (c Candidate, ok, cued bool) {
	rest := core
	if st.label == "correction" {
		// labelled "Correction:" or reported as the user's correction
	} else if m := correctionCue.FindString(core); m != "" {
		rest = core[len(m):]
	} else if m := isntButIs.FindStringSubmatch(core); m != nil && len(strings.Fields(m[2])) >= 3 {
		rest = core
	} else if rightOne.MatchString(core) {
		rest = core
	} else {
		return Candidate{}, false, false
	}
	rest = strings.TrimSpace(rest)
	rl := strings.ToLower(rest)
	if len(strings.Fields(rest)) < 2 || isChatter(rl) || planAhead.MatchString(rl) || progressive.MatchString(rl) || hereIs.MatchString(rl) {
		return Candidate{}, false, true
	}
	if startsImperative(rest) && !verbAfterFirst(rl) {
		return Candidate{}, false, true // "no, revert it": an instruction, not a fact
	}
	c, ok = correctionCandidate(st, rest, true)
	return c, ok, true
}

// verbAfterFirst reports whether a statement that opens with a verb or a
// command says how something is after it ("go test ./... takes 3 min").
func verbAfterFirst(low string) bool {
	_, rest, _ := strings.Cut(strings.TrimSpace(low), " ")
	return stateVerb.MatchString(rest)
}

// bareCorrection reads "not Y but X", "it isn't Y; X" and "X is Z, not Y".
func bareCorrection(st statement, core, low string) (Candidate, bool) {
	if notBut.MatchString(core) || isntButIs.MatchString(core) {
		return correctionCandidate(st, core, st.speaker == memory.ActorUser)
	}
	if m := commaNot.FindStringIndex(core); m != nil {
		head := strings.ToLower(core[:m[0]])
		if copulaVerb.MatchString(head) && !startsImperative(core) {
			return correctionCandidate(st, core, st.speaker == memory.ActorUser)
		}
	}
	return Candidate{}, false
}

// copulaVerb is a verb that states what something is.
var copulaVerb = lazyre.New(`(?:\b(?:is|are|was|were|runs|uses|lives|goes|go|listens|has|have|holds|owns|backs|sits|points|deploy|deploys|release|releases|run)\b|'s\b|’s\b)`)

// correctionCandidate makes a correction of what rest states.
func correctionCandidate(st statement, rest string, sure bool) (Candidate, bool) {
	body, wrong := rest, ""
	if m := notBut.FindStringSubmatch(rest); m != nil {
		wrong, body = m[1], m[2]
	} else if m := isntButIs.FindStringSubmatch(rest); m != nil {
		wrong, body = m[1], m[2]
	}
	if m := commaNot.FindStringSubmatch(body); m != nil && wrong == "" {
		wrong = m[1]
	}
	wrong = strings.TrimSpace(strings.Trim(wrong, ` "'`))
	body = capitalizeSentence(strings.TrimSpace(body))
	bl := strings.ToLower(body)
	if len(strings.Fields(body)) < 2 {
		return Candidate{}, false
	}
	c := Candidate{Class: ClassCorrection, Layer: memory.LayerState, Kind: memory.KindFact, Title: body, Body: body, Corrects: wrong}
	if tasteCue.MatchString(bl) || ruleWord.MatchString(bl) {
		c.Layer, c.Kind = memory.LayerInvariant, memory.KindPreference
	}
	switch {
	case st.speaker == memory.ActorUser:
		c.Provenance = memory.ProvUserCorrected
	case st.reported:
		c.Provenance = memory.ProvUserCorrected
	default:
		c.Provenance = memory.ProvExtracted
	}
	c.Sure = sure && !hedgeWord.MatchString(bl)
	return c, true
}

// capitalizeSentence upper-cases the first letter of a sentence that starts with
// an ordinary word (never a command or identifier such as "go test").
func capitalizeSentence(s string) string {
	w := strings.ToLower(firstField(s))
	switch strings.Trim(w, ",.;:") {
	case "the", "it's", "it", "its", "we", "we're", "we've", "our", "this", "that", "they", "there", "there's",
		"i", "i'm", "tests", "deploys", "all", "a", "an", "prod", "staging", "ci", "my":
		r, n := utf8.DecodeRuneInString(s)
		return string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}

// ---- failures

// failWords say that something failed or hurt.
var failWords = lazyre.New(`\b(?:failed|fails|failing|broke|breaks|broken|crash(?:es|ed|ing)?|doesn't\s+work|does\s+not\s+work|didn't\s+work|did\s+not\s+work|won't\s+work|isn't\s+working|is\s+not\s+working|doesn't\s+support|does\s+not\s+support|didn't\s+help|did\s+not\s+help|didn't\s+fix|did\s+not\s+fix|timed\s+out|times\s+out|ooms?|oomed|oom'd|oom-killed|ran\s+out\s+of|runs\s+out\s+of|hangs?|hung|deadlock(?:s|ed)?|starved|starves|regress(?:ed|es)|panick(?:ed|s)|panics\s+(?:when|on|if|with|because|at|in)|segfault(?:s|ed)?|errors\s+out|errored(?:\s+out)?|(?:is|are|was|were|became|becomes)\s+flaky|made\s+(?:\w+\s+){0,3}(?:flaky|worse|slower|meaningless|unusable|unstable))\b`)

// countsOfTests are outcomes, not failures: "412 passed, 0 failed".
var countsOfTests = lazyre.New(`\b\d+\s+(?:passed|failed|failing|skipped|errors?|failures?)\b|\b(?:no|without|zero)\s+(?:failures|errors)\b|\b(?:didn't|did\s+not|never|doesn't|does\s+not)\s+(?:fail|crash|break)\b`)

// reasonMarker opens the reason of a clause.
var reasonMarker = lazyre.New(`\b(?:because|since|as\s+(?:it|they|we|this|that|there|these|those|our|the\s+team)\b|so\s+that|given\s+that|due\s+to)\b|,\s*as\b`)

// mainClause is the part of a statement before its reason.
func mainClause(low string) string {
	if m := reasonMarker.FindStringIndex(low); m != nil {
		return low[:m[0]]
	}
	return low
}

func failureCue(low string) bool {
	return failWords.MatchString(countsOfTests.ReplaceAllString(low, " "))
}

// negativeAdvice is "don't use X: it …", "never use X — it …", "X: don't".
var negativeAdvice = lazyre.New(`^(?:please\s+)?(?:don't|do\s+not|never|avoid)\s+(?:ever\s+)?(?:use|using|run|running|call|calling|set|setting|enable|enabling|add|adding|try|trying|pass|passing|put|putting)?\s*(.+?)\s*(?:[:;—–]|\s-\s)\s*(?:it|they|this|that|doing\s+so)\b\s*(?:'s|\w+)`)

// adviceAfter is "X is dead, don't use it — …": the warning after its
// subject.
var adviceAfter = lazyre.New(`^(.+?)\s+(?:is|are|was|were)\s+[\w-]+(?:\s+[\w-]+)?\s*[,;]\s*(?:so\s+)?(?:don't|do\s+not|never|avoid)\s+(?:use|using|run|running|touch|call|calling)\s+(?:it|them|this|that)\b`)

// problemIs opens an explanation of a bug: "the issue is that …".
var problemIs = lazyre.New(`^(?:the\s+)?(?:issue|problem|bug|root\s+cause|cause|culprit)\s+(?:is|was)\b`)

// problemNoun is a kind of failure named in a main clause that has a
// reason after it: "the race happens because …".
var problemNoun = lazyre.New(`\b(?:race|data\s+race|race\s+condition|leak|memory\s+leak|deadlock|panic|crash|segfault|outage|regression|flake)\b`)

// xDont is "X: don't." — a warning with the failure before it.
var xDont = lazyre.New(`[:;—–]\s*(?:don't|do\s+not|never\s+again|avoid\s+it)\W*$`)

// triedX is "tried X, it broke Y".
var triedX = lazyre.New(`^(?:we\s+|i\s+)?tried\s+(?:upgrading\s+to|upgrading|bumping|running|using|switching\s+to|setting|adding|caching|enabling|moving\s+to|with)?\s*(.+?)\s*(?:[,;:—–]|\s-\s|\s+but\b|\s+and\b)`)

// gerundX is "Using X broke Y", "Setting X made Y worse".
var gerundX = lazyre.New(`^(?:using|setting|running|enabling|adding|caching|bumping|upgrading(?:\s+to)?|switching\s+to|calling|importing|mounting|pinning|disabling|turning\s+on|turning\s+off)\s+(.+?)\s+(?:broke|breaks|made|makes|caused|causes|crashed|crashes|didn't|did\s+not|doesn't|does\s+not|failed|fails|slowed|killed|hung|hangs)\b`)

// adverbs are left out of a trigger phrase ("the cron job silently failed").
var adverbs = lang.WordSet(`silently suddenly randomly intermittently occasionally consistently sometimes really
	completely totally immediately finally eventually apparently probably constantly repeatedly`)

// auxiliaries end a subject: "the deploy is broken" failed at "deploy".
var auxiliaries = lang.WordSet(`is are was were be been has have had keeps kept got gets will would can could does did do
	isn't aren't wasn't weren't doesn't didn't won't can't`)

// prepositions end a noun phrase.
var prepositions = lang.WordSet(`on in for to from with when at inside during across without against before after while unless under over via per by of into`)

// readFailure reads a failure with its cause.
func readFailure(st statement, core, low string) (Candidate, bool) {
	head := mainClause(low)
	advice := negativeAdvice.FindStringSubmatch(low)
	if m := adviceAfter.FindStringSubmatch(low); m != nil && advice == nil {
		advice = m
	}
	cue := failureCue(head) && !designProperty.MatchString(head) || problemIs.MatchString(low) || problemNoun.MatchString(head) && head != low
	dont := xDont.MatchString(low)
	if !cue && advice == nil && !dont {
		return Candidate{}, false
	}
	if resolutionStart.MatchString(low) {
		return Candidate{}, false // "Fixed the crash in X": an event
	}
	var subject string
	switch {
	case advice != nil:
		subject = advice[1]
	case triedX.MatchString(low):
		subject = triedX.FindStringSubmatch(low)[1]
	case gerundX.MatchString(low):
		subject = gerundX.FindStringSubmatch(low)[1]
	default:
		// Blank the test counts out ("0 failed") without moving the rest.
		blanked := countsOfTests.ReplaceAllStringFunc(head, func(m string) string { return strings.Repeat(" ", len(m)) })
		if m := failWords.FindStringIndex(blanked); m != nil {
			subject = head[:m[0]]
		}
		if dont && subject == "" {
			subject = low[:xDont.FindStringIndex(low)[0]]
		}
	}
	c := Candidate{Class: ClassFailure, Layer: memory.LayerNegative, Kind: memory.KindNegative,
		Title: st.body, Body: st.body, Triggers: failureTriggers(subject, core)}
	if len(c.Triggers) == 0 {
		return Candidate{}, false // nothing a task could mention to bring it back
	}
	if st.speaker == memory.ActorUser {
		c.Provenance = memory.ProvUserStated
	} else {
		c.Provenance = memory.ProvObserved
	}
	// A failure says why, or what it does not work with; a bare "it
	// failed" is for a person to judge.
	caused := reasonMarker.MatchString(low) || advice != nil || dont || strings.ContainsAny(core, ":;—–") ||
		condition.MatchString(low[len(head)/2:]) || strings.Contains(low, ", it ")
	c.Sure = caused && !hedgeWord.MatchString(low) && !forecast.MatchString(low)
	return c, true
}

// forecast is a failure foreseen, not seen: "may cause graph breaks",
// "it'll fire around epoch 14", "high risk".
var forecast = lazyre.New(`\b(?:may|might|could)\b|'ll\b|\b(?:high|low|some)\s+risk\b|\brisks?\s+(?:of|that)\b`)

// condition is what a failure happens with or under.
var condition = lazyre.New(`\b(?:with|on|when|under|after|if)\b`)

// resolutionStart verbs open an event about a failure that is over.
var resolutionStart = lazyre.New(`^(?:(?:we|i)\s+)?(?:fixed|resolved|patched|reverted|rolled\s+back|worked\s+around|mitigated|closed)\b`)

// codeToken finds words a task would name: flags, dotted or CamelCase
// identifiers, snake_case, UPPER_SNAKE names, paths, names with digits.
var codeToken = lazyre.New(`(?:^|[\s(\x60"'])(--?[a-zA-Z][\w-]*|[A-Za-z_][\w-]*(?:[./][\w-]+)+|[a-z]+[A-Z][\w]*|[A-Z][a-z]+[A-Z][\w]*|[A-Za-z]+_[\w]+|[A-Z][A-Z0-9]{2,}(?:_[A-Z0-9]+)*|[A-Za-z]+-\d[\w-]*|[a-z]+(?:-[a-z]+)+)\b`)

// failureTriggers draws a failure's triggers from what failed (the subject) and
// the code-like words of the statement: lower case, 1–4 of them.
func failureTriggers(subject, core string) []string {
	var out []string
	addT := func(t string) {
		t = strings.ToLower(strings.Trim(strings.TrimSpace(t), "`'\".,;:()"))
		if i := strings.IndexByte(t, '='); i > 0 {
			t = t[:i] // a setting's name, not its value
		}
		if t == "" || len([]rune(t)) > memory.MaxTag || len(out) >= maxTriggers || safetext.Check("trigger", t) != nil || !SpecificTrigger(t) {
			return
		}
		for _, o := range out {
			if o == t || strings.Contains(o, t) && len(t) < 4 {
				return
			}
		}
		out = append(out, t)
	}
	subject = strings.TrimSpace(subject)
	words := strings.Fields(subject)
	// The subject phrase: up to its first preposition, without articles
	// and adverbs.
	var phrase []string
	for _, w := range words {
		lw := strings.ToLower(strings.Trim(w, ",.;:"))
		if prepositions[lw] || auxiliaries[lw] {
			break
		}
		switch lw {
		case "the", "a", "an", "our", "my", "this", "that", "these", "those", "its", "their", "your", "flaky",
			"new", "old", "still", "always", "also", "just", "now":
			continue
		}
		if adverbs[lw] {
			continue
		}
		phrase = append(phrase, strings.Trim(w, ",.;:"))
	}
	// A command is a program and its subcommand; a word before a flag is
	// the program the flag belongs to.
	if len(phrase) > 0 {
		p0 := strings.ToLower(phrase[0])
		switch {
		case CommandNames[p0] && len(phrase) > 2 && !strings.HasPrefix(phrase[1], "-") && strings.HasPrefix(phrase[2], "-"):
			addT(p0 + " " + strings.ToLower(phrase[1]) + " " + strings.ToLower(phrase[2])) // go test -race
			addT(p0 + " " + strings.ToLower(phrase[1]))
		case CommandNames[p0] && len(phrase) > 1 && !strings.HasPrefix(phrase[1], "-"):
			addT(p0 + " " + strings.ToLower(phrase[1]))
		case len(phrase) > 1 && strings.HasPrefix(phrase[1], "-"):
			addT(p0)
		}
	}
	var codes []string
	for _, m := range codeToken.FindAllStringSubmatch(subject, -1) {
		codes = append(codes, m[1])
	}
	if len(codes) > 0 {
		for _, t := range codes {
			addT(t)
		}
	} else if len(phrase) > 0 && len(phrase) <= 4 {
		addT(strings.Join(phrase, " "))
	} else if len(phrase) > 4 {
		addT(strings.Join(phrase[:2], " "))
	}
	// Code-like words elsewhere in the statement name what failed too
	// ("the linter fails because golangci-lint v1.55 …").
	for _, m := range codeToken.FindAllStringSubmatch(core, -1) {
		t := m[1]
		if looksLikeVersion(t) {
			continue
		}
		addT(t)
	}
	// Nothing named: the first words that are not filler.
	if len(out) == 0 {
		var ws []string
		for _, w := range memory.Words(core) {
			if len(w) < 3 || stopTrigger[w] || prepositions[w] {
				continue
			}
			if ws = append(ws, w); len(ws) == 2 {
				break
			}
		}
		addT(strings.Join(ws, " "))
	}
	return out
}

// stopTrigger are words that name nothing a task would mention.
var stopTrigger = lang.WordSet(`the and but this that these those its our your their was were are is has have had
	not don't doesn't didn't never issue problem bug cause root culprit what which when then there here also
	just very really it's they them because since`)

func looksLikeVersion(t string) bool {
	t = strings.TrimPrefix(strings.ToLower(t), "v")
	return t != "" && strings.Trim(t, "0123456789.") == ""
}

// ---- decisions

// decisionStrong is a verb that says a choice was made.
var decisionStrong = lazyre.New(`\b(?:decided|decide\s+to|(?:the|our|my)\s+decision\s+(?:is|was)\b|chose|chosen|choose\s+to|picked|went\s+with|going\s+with|go\s+with|settled\s+on|opted|agreed\s+(?:to|on|that)|our\s+choice|made\s+the\s+call)\b`)

// notDecision are uses of those words that choose nothing.
var notDecision = lazyre.New(`\bdecision\s+(?:tree|table|log|record)s?\b|\b(?:haven't|have\s+not|not\s+yet|didn't|did\s+not|undecided)\s+(?:decided|chosen|picked)\b|\bwhy\s+we\s+chose\b`)

// decisionWeak is a change that is a decision when a reason comes with it.
var decisionWeak = lazyre.New(`^(?:(?:we|i|the\s+team|they)(?:'ll|'ve|'d)?\s+(?:have\s+|will\s+|now\s+)?)?(?:switched|switch|moved|move|replaced|replace|dropped|drop|parked|park|rejected|reject|kept|keep|use|using|stick\s+with|stuck\s+with|standardi[sz]ed\s+on|pinned|pin|store|adopted|adopt|retired|deprecated|disabled|enabled|removed|limited|capped|defaulted|split|ship|shipping|release|run|prefer|ditched|abandoned|scrapped|dumped|moved\s+off|migrated\s+off|went\s+back\s+to|gave\s+up\s+on)\b`)

// overRather is "X over Y", "X rather than Y", "X instead of Y".
var overRather = lazyre.New(`\b(?:over|rather\s+than|instead\s+of)\b`)

// reasonStart finds the reason of a decision.
var reasonStart = lazyre.New(`(?i)\b(?:because(?:\s+of)?|since|so\s+that|given\s+that|due\s+to)\b|,\s*as\b|\bas\s+(?:it|they|we|this|that|there|these|those|our|the\s+team)\b|:\s+`)

// sinceTime is "since" of time, not of reason.
var sinceTime = lazyre.New(`^\s*(?:then|last|yesterday|today|this|early|late|the\s+last|the\s+start|the\s+beginning|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|v?\d|we\s+started|forever)\b`)

// readDecision reads a decision and its reason.
func readDecision(st statement, core, low string) (Candidate, bool) {
	because := ""
	for _, m := range reasonStart.FindAllStringIndex(low, -1) {
		word := strings.TrimSpace(low[m[0]:m[1]])
		if strings.HasPrefix(word, "since") && sinceTime.MatchString(low[m[1]:]) {
			continue
		}
		if word == ":" && !strings.Contains(low[:m[0]], " over ") {
			continue
		}
		because = strings.TrimSpace(core[m[1]:])
		break
	}
	because = strings.TrimRight(because, ".!;, ")
	strong := decisionStrong.MatchString(mainClause(low)) || st.label == "decision"
	if notDecision.MatchString(low) {
		return Candidate{}, false
	}
	weak := because != "" && (decisionWeak.MatchString(low) || overRather.MatchString(mainClause(low)) || letsDecide.MatchString(low))
	if !strong && !weak {
		return Candidate{}, false
	}
	c := Candidate{Class: ClassDecision, Layer: memory.LayerDecision, Kind: memory.KindDecision,
		Title: st.body, Body: st.body, Because: because}
	if st.speaker == memory.ActorUser {
		c.Provenance = memory.ProvUserStated
	} else {
		c.Provenance = memory.ProvExtracted
	}
	c.Sure = !hedgeWord.MatchString(low)
	return c, true
}

// ---- events

// timeOpener is when an event happened, before it is told.
const timeOpener = `(?:(?:yesterday|today|tonight|earlier(?:\s+today)?|just\s+now|this\s+(?:morning|afternoon|evening|week|sprint|month)|last\s+(?:night|week|month|sprint|monday|tuesday|wednesday|thursday|friday)|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|on\s+\d{4}-\d\d-\d\d|\d{4}-\d\d-\d\d|at\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?)[,:]?\s+)?`

// eventVerbs are past actions worth remembering (reading, searching and
// looking are not).
const eventVerbs = `(?:deployed|merged|rolled\s+(?:back|out)|migrated|upgraded|downgraded|fixed|ran|re-ran|reran|applied|released|published|opened\s+(?:a\s+|the\s+)?(?:pr|pull\s+request|issue|ticket|incident|#)|closed|rotated|cut|regenerated|finished|completed|reverted|bumped|shipped|created|restarted|renamed|pointed|removed|added|enabled|disabled|installed|moved|switched|deleted|tagged|launched|backfilled|rebuilt|rebased|resolved|patched|configured|landed|promoted|provisioned|scaled|reindexed|imported|cleared|cleaned\s+up|flushed|got\s+paged|paged|killed|reproduced|updated|replaced|retired|deprecated|refactored|archived|cherry-picked|raised|lowered|increased|reduced|recovered|restored|failed\s+over|set\s+up|uploaded|synced|renewed|issued|onboarded|turned\s+(?:on|off)|wrote|benchmarked|profiled)`

// eventStart is a past action at the front of a statement.
var eventStart = lazyre.New(`^` + timeOpener + `(?:(?:we|i|they|the\s+team|on-?call|ops|ci|someone|he|she)\s+(?:just\s+|finally\s+|successfully\s+|have\s+|'ve\s+|already\s+)?)?` + eventVerbs + `\b`)

// eventDone is "<something> went out / was deployed / applied".
var eventDone = lazyre.New(`^` + timeOpener + `(?:(?:the|our|last\s+night's|today's|yesterday's|this\s+morning's|this\s+week's)\s+)?[\w.#/-]+(?:\s+[\w.#/-]+){0,3}\s+(?:was\s+|were\s+|got\s+|has\s+been\s+|have\s+been\s+)?(?:went\s+out|went\s+live|landed|shipped|applied|deployed|merged|released|completed|finished|succeeded|rolled\s+(?:out|back)|reverted|ran\s+(?:successfully|cleanly|fine|green|without\s+errors))\b`)

// measurementRun is an action whose point is a figure.
var measurementRun = lazyre.New(`\b(?:ran|re-ran|reran|did)\s+(?:the\s+|a\s+)?(?:\w+\s+)?(?:benchmarks?|bench|load\s+tests?|profil(?:e|er|ing))\b|\bbenchmarked\b|\bprofiled\b|\bmeasured\b`)

// habitual is the present passive: "docs are deployed from gh-pages" says
// how things are done, not that something happened.
var habitual = lazyre.New(`\b(?:is|are|be|get|gets|usually|always)\s+(?:\w+\s+)?(?:deployed|merged|released|applied|shipped|rolled\s+out|landed)\b`)

// concreteValue finds a value a fact is about: a number, version, path,
// identifier, flag, URL, address or name.
var concreteValue = lazyre.New(`\d|[\w-]/[\w.-]|\w\.\w|(?:^|\s)--?\w|\w_\w|[a-z][A-Z]|\b[A-Z]{2,}\b|@|#\w|\x60|\s[A-Z][a-zA-Z]+`)

// readEvent reads a dated action and its outcome.
func readEvent(st statement, core, low string) (Candidate, bool) {
	if !eventStart.MatchString(low) && !(eventDone.MatchString(low) && !habitual.MatchString(low)) {
		return Candidate{}, false
	}
	if measurementRun.MatchString(low) && measuredFigure.MatchString(low) {
		return Candidate{}, false // "ran the benchmark: X averages 2 ms": the figure is the memory (a state)
	}
	c := Candidate{Class: ClassEvent, Layer: memory.LayerEpisode, Kind: memory.KindEvent, Title: st.body, Body: st.body}
	if st.speaker == memory.ActorUser {
		c.Provenance = memory.ProvUserStated
	} else {
		c.Provenance = memory.ProvObserved
	}
	// An agent narrates many small actions; one with nothing concrete in
	// it is for a person to keep or drop.
	c.Sure = (st.speaker == memory.ActorUser || concreteValue.MatchString(core)) && !hedgeWord.MatchString(low)
	return c, true
}

// ---- preferences and constraints

// tasteCue is a liking: kind preference.
var tasteCue = lazyre.New(`\b(?:prefers?|preferred|preference|likes?|loves?|wants?|'d\s+rather|would\s+rather|'d\s+like|would\s+like|'d\s+prefer|would\s+prefer|dislikes?|hates?|favou?rs?)\b`)

// likesCue is a person's liking said of someone: "I prefer", "the user wants".
var likesCue = lazyre.New(`(?:^|\b(?:i|we|the\s+team|the\s+user|user|they|he|she|everyone)\s*(?:really\s+|strongly\s+|generally\s+|usually\s+|also\s+|still\s+|definitely\s+|much\s+)?)(?:prefers?|preferred|likes?|loves?|wants?|'d\s+rather|would\s+rather|'d\s+like|would\s+like|'d\s+prefer|would\s+prefer|don't\s+like|do\s+not\s+like|doesn't\s+like|dislikes?|hates?|favou?rs?)\b|\bmy\s+preference\b|^preference\b`)

// requestNow is a wish for something to be done now, not a standing liking.
var requestNow = lazyre.New(`\b(?:like|likes|want|wants|'d\s+like|would\s+like)\s+(?:to\s+(?:check|see|look|try|know|understand|run|read|ask|discuss|talk|confirm|verify|test|take|get|go|start|finish|fix|review|debug|investigate|figure|add|make|do|have|merge|deploy|ship)|you\s+to|me\s+to|us\s+to|it\s+to\s+be\s+done)\b`)

// ruleStart is a rule said as an imperative.
var ruleStart = lazyre.New(`^(?:please\s+)?(?:always\b|never\b|don't\s+ever\b|do\s+not\s+ever\b|don't\b|do\s+not\b|avoid\b|no\s+more\b|stop\s+\w+ing\b|please\s+stop\b)|^please\s+(?:use|keep|avoid|prefer|stick|follow|only)\b|^no\s+[\w.-]+(?:\s+[\w.-]+){0,3}\s*(?:,\s*ever|\s+(?:allowed|ever|in|on|to|without|outside))\b`)

// notRule are imperatives of the moment: "don't worry".
var notRule = lazyre.New(`^(?:please\s+)?(?:don't|do\s+not)\s+(?:worry|bother|mind|forget\s+to\s+(?:check|look|reply)|know|think|see|get\s+me\s+wrong)\b|^no\s+(?:worries|problem|idea|thanks|luck|clue|rush|way|need|biggie|prob|change|changes|issues?|comment|comments|more\s+questions)\b`)

// ruleWord is a rule said of a subject: "must", "never", "always".
var ruleWord = lazyre.New(`\b(?:must(?:\s+not|n't)?|should(?:\s+not|n't)?|shall(?:\s+not)?|has\s+to|(?:is|are)\s+required|(?:is|are)\s+(?:not\s+)?allowed|never|always|only\s+ever)\b|\w\s+needs\s+to\s+\w+|\w+s\s+need\s+\w+`)

// standingImperative is "use X, not Y", "keep X …, please".
var standingImperative = lazyre.New(`^(?:use|keep|write|pin|put|follow|prefer|stick\s+to|stick\s+with|name|format|wrap|sort|log|commit|squash|rebase|tag|avoid)\b.*(?:\balways\b|\bnever\b|,\s*not\s+|\binstead\s+of\b|\brather\s+than\b|\bin\s+this\s+repo\b|\beverywhere\b|\bfrom\s+now\s+on\b|\bgoing\s+forward\b|\bby\s+default\b|\bevery\s+time\b|\bat\s+all\s+times\b|\bfor\s+all\b|\bplease\b)`)

// pastTense in a statement makes "never" a report, not a rule ("the job
// never ran").
var pastTense = lazyre.New(`\b(?:was|were|did|didn't|had|ran|got|went|never\s+\w+ed|never\s+\w+s)\b`)

// readPreference reads a preference or a rule.
func readPreference(st statement, core, low string) (Candidate, bool) {
	liked := likesCue.MatchString(low) && !requestNow.MatchString(low)
	rule, firm := false, true
	switch {
	case notRule.MatchString(low):
		return Candidate{}, false
	case ruleStart.MatchString(low):
		rule = true
	case standingImperative.MatchString(low):
		// "use X instead of Y" is as often an instruction for the task at
		// hand as a standing rule: firm only when it says it stands.
		rule, firm = true, standingMark.MatchString(low)
	case st.standing && startsImperative(core):
		rule = true
	case ruleWord.MatchString(low) && !strings.HasPrefix(low, "i ") && !pastTense.MatchString(low) && !pronounSubject.MatchString(low):
		rule = true
		// "we should add caching": a suggestion, unless it is a rule
		// ("should never", "must").
		firm = !suggestion.MatchString(low)
	}
	if !liked && !rule {
		return Candidate{}, false
	}
	if rule && !liked && hedgeWord.MatchString(low) {
		return Candidate{}, false // "we should probably …": an idea, not a rule
	}
	if rule && !liked && prediction.MatchString(low) {
		return Candidate{}, false // "those queues will never be consumed": what will happen, not a rule
	}
	if conditionalOpen.MatchString(low) {
		firm = false // "Unless X, Y must …": a rule under a condition is for a person to judge
	}
	c := Candidate{Class: ClassPreference, Layer: memory.LayerInvariant, Kind: memory.KindConstraint, Title: st.body, Body: st.body}
	if tasteCue.MatchString(low) || strings.HasPrefix(low, "prefer") {
		c.Kind = memory.KindPreference
	}
	if st.speaker == memory.ActorUser {
		c.Provenance = memory.ProvUserStated
		c.Sure = true
	} else {
		c.Provenance = memory.ProvExtracted
		// An agent's rule is the user's only when it says so.
		c.Sure = st.reported || strings.Contains(low, "user")
	}
	if hedgeWord.MatchString(low) || !firm {
		c.Sure = false
	}
	return c, true
}

// standingMark says an imperative is meant to last.
var standingMark = lazyre.New(`\b(?:always|never|in\s+this\s+repo|everywhere|from\s+now\s+on|going\s+forward|by\s+default|every\s+time|at\s+all\s+times|for\s+all|in\s+(?:all|every)\b)`)

// suggestion is "should" with a plain verb after it.
var suggestion = lazyre.New(`\bshould\s+(?:\w+\s+)?(?:add|try|look|consider|think|check|maybe|also|use|move|switch|refactor|clean|split|write|make)\b`)

// ---- state

// stateVerb says how things are now.
var stateVerb = lazyre.New(`\b(?:is|are|was|were|am|runs?|uses?|lives?|listens?|takes?|took|holds?|has|have|reads?|sits?|points?|goes|go\s+through|deploys?|stores?|talks|depends|requires|supports?|contains?|builds?|serves?|owns?|keeps?|handles?|costs?|returns?|defaults?|falls?\s+back|expires?|stays?|calls?|writes?|sends?|publishes|backs|peaked|moved|dropped|rose|grew|fell|hosts?|exposes?|targets?|pins?|ships|emits?|replicates|generates?|means|lasts|weighs|averages|peaks|happens?)\b|\b(?:it|that|there|what|who|where|he|she)'s\b|\b(?:we|you|they)'re\b`)

// measuredFigure is a number with a unit of time, size, rate or share, a
// percentile, or a word that says a figure was measured.
var measuredFigure = lazyre.New(`(?:^|[^\p{L}\p{N}.])\d(?:[\d.,]*)\s?(?:ms|µs|μs|us|ns|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|rps|qps|req/s|rpm|ops/s|op/s|/op|ms/op|mb|gb|kb|tb|mib|gib|kib|%|x)(?:[^\p{L}\p{N}]|$)|\d+m\d+s|\b(?:p50|p90|p95|p99|p999)\b|\b(?:bench|benchmark|benchmarked|measured|load\s+test|load-test|profiled|requests\s+per\s+second)\b|\btook\s+\d`)

// settingWord makes a figure a configured value, not a measurement.
var settingWord = lazyre.New(`\b(?:timeout|ttl|limit|max|maximum|min|minimum|quota|interval|retention|expires?|expiry|set\s+to|defaults?\s+to|configured|deadline|cap|capped|budget|slo|sla|target|goal|objective|older\s+than)\b`)

// pronounSubject is a statement about something said before: it cannot
// stand alone as a memory.
var pronounSubject = lazyre.New(`^(?:it|it's|that|that's|this|this's|they|they're|these|those|he|she|which|what|i|i'm|i've|i'd|you|you're|here|there's\s+(?:no|nothing)|one|some)\b`)

// readState reads a statement of how things are.
func readState(st statement, core, low string) (Candidate, bool) {
	words := strings.Fields(low)
	value := concreteValue.MatchString(core)
	verb := stateVerb.MatchString(low) || presentVerb.MatchString(low)
	measured := (measuredFigure.MatchString(low) || st.label == "measure" && strings.ContainsAny(low, "0123456789")) &&
		!settingWord.MatchString(low)
	switch {
	case pronounSubject.MatchString(low) && !(strings.HasPrefix(low, "there") && value):
		return Candidate{}, false
	case modalVerb.MatchString(low):
		return Candidate{}, false // "we should add caching": an idea, not how things are
	case sessionMeta.MatchString(low):
		return Candidate{}, false // "the fix is minimal": about the work of the moment
	case startsImperative(core) && !verbAfterFirst(low):
		return Candidate{}, false
	case len(words) < 3 && !(st.item && value && len(words) >= 2):
		return Candidate{}, false
	case !verb && !(value && (st.item || measured)):
		return Candidate{}, false
	case !verb && st.session:
		return Candidate{}, false // "**Storage:** ETS table": a fragment of a report, no statement
	case st.prompt && !verb:
		return Candidate{}, false // "only 5 seconds": a reply to the agent's question, no statement
	case st.prompt && !measured && pastTense.MatchString(low):
		return Candidate{}, false // "new beads were added", "main was clean": news for the task at hand
	}
	c := Candidate{Class: ClassState, Layer: memory.LayerState, Kind: memory.KindFact, Title: st.body, Body: st.body}
	switch {
	case measured:
		c.Provenance = memory.ProvMeasured
	case st.speaker == memory.ActorUser:
		c.Provenance = memory.ProvUserStated
	default:
		c.Provenance = memory.ProvExtracted
	}
	c.Sure = (value || st.speaker == memory.ActorUser) && !hedgeWord.MatchString(low) && !conditionalOpen.MatchString(low)
	return c, true
}

// presentVerb is a subject with a determiner and a verb in -s after it:
// "the --force flag deletes …", "the VPN drops …".
var presentVerb = lazyre.New("^(?:the|our|this|a|an|each|every)\\s+(?:[\\w.`/-]+\\s+){1,4}[a-z]+[^s\\W]s\\b")

// sessionMeta is a statement about the change being made right now.
var sessionMeta = lazyre.New(`^(?:the|this|my|our)\s+(?:fix|change|changes|patch|diff|update|edit|edits|commit|pr|pull\s+request|approach|solution)\s+(?:is|are|was|looks|seems|should|does|doesn't|keeps|makes|only|now)\b`)

// modalVerb makes a statement a wish or a possibility.
var modalVerb = lazyre.New(`\b(?:should|shouldn't|could|couldn't|would|wouldn't|might|may|ought\s+to)\b`)

// conditionalOpen starts a statement that holds only sometimes: a person decides.
var conditionalOpen = lazyre.New(`^(?:if|when|once|unless|although|though|while|whenever)\b`)

// ---- procedures

func procedureCandidate(st statement, lead string, steps []string) (Candidate, bool) {
	if len(steps) == 0 {
		return Candidate{}, false
	}
	var b strings.Builder
	for i, s := range steps {
		s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".;,"))
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(stepNumber(i+1) + ". " + s)
	}
	title := strings.TrimSpace(strings.TrimLeft(strings.TrimRight(lead, ":, "), "# "))
	if title == "" {
		title = st.core
	}
	if r, n := utf8.DecodeRuneInString(title); unicode.IsLower(r) {
		title = string(unicode.ToUpper(r)) + title[n:]
	}
	c := Candidate{Class: ClassProcedure, Layer: memory.LayerInvariant, Kind: memory.KindProcedure, Title: title, Body: b.String()}
	if st.reproSteps {
		c.Layer = memory.LayerState
	}
	if st.speaker == memory.ActorUser {
		c.Provenance = memory.ProvUserStated
	} else {
		c.Provenance = memory.ProvExtracted
	}
	c.Sure = (len(steps) >= 2 || lead != "") && !hedgeWord.MatchString(strings.ToLower(st.span))
	return c, true
}

func stepNumber(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return stepNumber(n/10) + string(rune('0'+n%10))
}

// ---- an agent's tool calls

// toolFact is a line of what an agent ran, as `cairn ingest` writes it
// ("ran `go test ./...`: exit 1 — …", "edited store/db.go", …). Such
// lines are the session's diary, not memories; one kind tells something:
// a command that failed right after the agent claimed something (",
// right after the agent said: \"…\"") is a lesson about checking first.
var (
	toolFact     = lazyre.New("^(?:ran `|edited |wrote |searched |tool |… and \\d+ more tool calls)")
	claimRefuted = lazyre.New("^ran `([^`]+)`: (exit -?\\d+|failed)(?: — (.*?))?, right after the agent said: \"(.+)\"$")
)

// toolFacts takes the tool-fact lines out of an agent's draft (blanked, so
// that every other statement keeps its place) and returns the lessons of
// the refuted claims among them.
func toolFacts(text string) (string, []Candidate) {
	if !strings.Contains(text, "ran `") && !strings.Contains(text, "edited ") && !strings.Contains(text, "wrote ") &&
		!strings.Contains(text, "searched ") && !strings.Contains(text, "tool ") {
		return text, nil
	}
	lines := strings.Split(text, "\n")
	var out []Candidate
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !toolFact.MatchString(t) {
			continue
		}
		lines[i] = strings.Repeat(" ", len(l))
		m := claimRefuted.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		cmd, how, outcome, claim := m[1], m[2], m[3], m[4]
		if refusal.MatchString(outcome) || !claimsSuccess(claim) || !aboutClaim(cmd, claim) {
			continue // a person said no, the agent claimed nothing, or not this
		}
		c := Candidate{
			Class: ClassLesson, Layer: memory.LayerMeta, Kind: memory.KindLesson, Provenance: memory.ProvObserved, Sure: true,
			Title: OneLineTitle(fmt.Sprintf("Check with `%s` before saying it works", cmd)),
			Body: fmt.Sprintf("The agent said \"%s\", and right after `%s` failed (%s%s). What to do next time: run `%s` and read its result before claiming success.",
				claim, cmd, how, dashed(outcome), cmd),
			Triggers: commandTriggers(cmd),
			Span:     t,
		}
		if finish(&c) {
			out = append(out, c)
		}
	}
	return strings.Join(lines, "\n"), out
}

// refusal is a tool call a person turned down or interrupted: not a
// failure of the work.
var refusal = lazyre.New(`(?i)user\s+(?:doesn't|does\s+not)\s+want\s+to\s+proceed|tool\s+use\s+was\s+rejected|rejected\s+by\s+(?:the\s+)?user|user\s+(?:rejected|denied|declined|interrupted)|request\s+interrupted|permission\s+denied\s+by\s+(?:the\s+)?user|aborted\s+by\s+(?:the\s+)?user`)

// successWord is what a claim of success says: it works, the tests pass,
// it is fixed, done, green.
var successWord = lazyre.New(`\b(?:works?|working|passe[sd]|passing|green|fixed|done|complete[d]?|succeed(?:s|ed)?|successful(?:ly)?|resolved|clean|compiles?|builds?\s+(?:fine|cleanly|ok)|all\s+good|no\s+(?:errors|failures|issues|warnings)|0\s+(?:errors|failures))\b`)

// claimsSuccess reports whether the words before a command claimed
// success (not an intention to check: "Now let me run the tests.").
func claimsSuccess(claim string) bool {
	if announcesCheck.MatchString(strings.ToLower(strings.ReplaceAll(claim, "’", "'"))) {
		return false // "The edits are in place. I'll run `mix precommit` now to validate": the check is to come
	}
	for _, r := range sentenceRanges(claim, 0, len(claim)) {
		sent := strings.TrimSpace(claim[r[0]:r[1]])
		low := strings.ToLower(strings.Trim(emphasis.Replace(sent), " -*"))
		if m := fillerOpen.FindString(low); m != "" && len(m) < len(low) {
			low = low[len(m):]
		}
		if low == "" || planAhead.MatchString(low) || strings.HasSuffix(low, ":") || strings.HasSuffix(low, "?") || hedgeWord.MatchString(low) {
			continue
		}
		if successWord.MatchString(low) {
			return true
		}
	}
	return false
}

// announcesCheck is an agent saying it is about to check what it did: no
// claim that it works.
var announcesCheck = lazyre.New(`\b(?:i'll|i will|i'm going to|let me|going to|about to|next i'll|then i'll)\s+(?:now\s+)?(?:run|re-?run|check|verify|validate|test)\b|\bnow\s+to\s+(?:validate|verify|check)\b`)

// checkWords name what a kind of check checks, as a claim says it.
var checkWords = map[string]lazyre.Regexp{
	"test":  lazyre.New(`\b(?:tests?|specs?|suite|green|passe[sd]|passing)\b`),
	"lint":  lazyre.New(`\b(?:lint\w*|credo|dialyzer|clippy|ruff|eslint|rubocop|mypy|vet|staticcheck|warnings?|format\w*|types?|typecheck\w*|green)\b`),
	"build": lazyre.New(`\b(?:build\w*|compiles?|compiled|compil\w+|green)\b`),
}

// aboutClaim reports whether a command that failed checks what the claim
// said: a test, lint or build command after a claim about those (or a
// general "done", "works", "fixed"), or a command naming what the claim
// names (a file, an identifier, the command itself). A push or a commit
// after "All green" is not about the tests.
func aboutClaim(cmd, claim string) bool {
	low := strings.ToLower(claim)
	if kind := ingest.CheckKind(cmd); kind != "" {
		if checkWords[kind].MatchString(low) {
			return true
		}
		if !checkWords["test"].MatchString(low) && !checkWords["lint"].MatchString(low) && !checkWords["build"].MatchString(low) {
			return true // "Fixed.", "It works now." — the check says whether it does
		}
	}
	for _, w := range commandWords(cmd) {
		name := strings.TrimPrefix(w, "./")
		if strings.HasPrefix(name, "-") || len(name) < 4 || !strings.ContainsAny(name, "/._") {
			continue // a file or an identifier, not a word any claim says
		}
		if strings.Contains(low, name) || strings.Contains(low, path.Base(name)) {
			return true
		}
	}
	if f := commandWords(cmd); len(f) >= 2 && strings.Contains(low, strings.Join(f[:2], " ")) {
		return true
	}
	return false
}

// commandWords are a command's program and arguments, up to its first
// shell operator, without redirections.
func commandWords(cmd string) []string {
	var out []string
	for _, w := range strings.Fields(cmd) {
		if strings.ContainsAny(w, "|;&") || w == "--" {
			break
		}
		if strings.HasPrefix(w, "2>") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") {
			continue
		}
		out = append(out, strings.ToLower(strings.Trim(w, "\"'`")))
	}
	return out
}

// commandTriggers bring a command's lesson up when a task names the same
// command: the program with its subcommand and first argument.
func commandTriggers(cmd string) []string {
	ws := commandWords(cmd)
	if len(ws) > 3 {
		ws = ws[:3]
	}
	var out []string
	for n := len(ws); n >= 2 && len(out) == 0; n-- {
		if t := strings.Join(ws[:n], " "); SpecificTrigger(t) {
			out = append(out, t)
		}
	}
	return out
}

func dashed(s string) string {
	if s == "" {
		return ""
	}
	return " — " + s
}

// taskOpen is a request for work ("fix the flaky test", "add a flag"): what
// the person wants done now, not something to remember. A standing rule
// ("always run make lint", "never push to main", "run the linter before
// committing") is not a task.
var (
	taskVerbs = lang.WordSet(`fix add implement refactor migrate write create make build find investigate look check update
		change remove delete rename move debug explain show help try review bump upgrade port clean split merge rewrite
		optimize optimise speed improve convert generate document finish continue resume start open read summarize
		summarise list search grep install set go retry rerun re-run run revert tackle do let's lets please can could would
		extend enable disable integrate verify validate alter modify replace adjust tweak wire hook
		fais faites relance relancer lance ajoute corrige mets supprime vérifie essaie teste refais télécharge installe exécute ouvre configure crée
		haz añade ejecuta prueba elimina bitte mach`)
	standingCue = lazyre.New(`\b(?:always|never|must|should|shouldn't|don't|do not|prefer|make sure|remember|from now on|going forward|every time|whenever|before|after|unless|only|instead of)\b`)
)

func taskRequest(low string) bool {
	if bugReport.MatchString(low) || frenchPlan.MatchString(low) || forNow.MatchString(low) {
		return true
	}
	fs := strings.Fields(low)
	for len(fs) > 1 && requestLead[strings.Trim(fs[0], ",.:;!")] {
		fs = fs[1:] // "then try and run the gui", "now I'd like to see …"
	}
	if len(fs) > 0 && planAhead.MatchString(strings.Join(fs, " ")) {
		return true
	}
	if len(fs) == 0 || strings.HasPrefix(fs[0], "`") {
		return false // a command named first is what the sentence is about
	}
	w := strings.Trim(fs[0], ",.:;!")
	if !taskVerbs[w] || standingCue.MatchString(low) {
		return false
	}
	// The verb's word used as a noun: "search runs on OpenSearch now",
	// "go 1.22", "build is green".
	if len(fs) > 1 {
		next := strings.Trim(fs[1], ",.:;!")
		if nounAfter[next] || next != "" && (next[0] >= '0' && next[0] <= '9') {
			return false
		}
		// A two-word subject before its verb: "search TL is Rin now",
		// "build cache was wiped" (an order says what: "find what is
		// wrong", "check the config is right").
		if len(fs) > 2 && copulas[strings.Trim(fs[2], ",.:;!")] && !objectLead[next] {
			return false
		}
	}
	return true
}

// copulas link a subject to what it is: third in a sentence, after a verb's
// word and a noun, they make the verb's word a noun ("search TL is Rin").
var copulas = lang.WordSet(`is are was were`)

// objectLead are words that open what an order is about ("find what is
// wrong", "check the config is right", "make sure it is"): after them a
// copula belongs to the object.
var objectLead = lang.WordSet(`the a an this that these those what why how where when who which if whether it its all everything something out sure our my your their every each`)

// requestLead are words that open a request before its verb.
var requestLead = lang.WordSet(`then and so also now next please ok okay alright great cool`)

// bugReport is a person telling the agent of a bug to fix now ("there is a
// bug where …", "when I try to …, it fails"): work of the moment.
var bugReport = lazyre.New(`^(?:currently,?\s+|right\s+now,?\s+)?there(?:'s|\s+is)\s+(?:still\s+)?(?:a|an|another)\s+(?:\w+\s+)?(?:bug|issue|problem)\b|^when\s+i\s+(?:try|run|call|open|click)\b|^we\s+need\s+to\s+(?:add|fix|implement|create|build|make|write|update|change|support|extend)\b`)

// frenchPlan opens a plan or an instruction in French, as people write to
// agents in their language: "je vais …", "il faut …", an infinitive
// ("Installer X puis relancer Y").
var frenchPlan = lazyre.New(`^(?:je\s+vais|on\s+va|il\s+faut|prochaine\s+étape|ensuite|installer|relancer|lancer|vérifier|télécharger|configurer|ajouter|créer|dimensionner|assigner|démarrer|vérifie|télécharge|installe|lance|relance|ouvre|exécute|ajoute|configure|crée|mets|si\s+\S+.{0,60}\séchoue)(?:\s|[.,;:!]|$)`)

// nounAfter are words that, second in a sentence, make its first word a
// noun rather than an order: "search runs on …", "build is green".
var nounAfter = lang.WordSet(`is are was were runs ran uses used lives lives needs requires has have goes points listens deploys
	now moved moves switched takes took stays fails failed works worked`)

// todoLead opens a list of what is still to do: working state of the
// moment, which the session's end settles (its items are no memories).
var todoLead = lazyre.New(`(?i)^(?:(?:manual|suggested|possible|recommended|remaining)\s+(?:follow[\s-]?ups?|next\s+steps?)\b|still\s+(?:needed|to\s+do|todo|missing|open|left|pending)|remaining\b|not\s+(?:yet\s+)?(?:done|committed|finished|implemented)(?:\s+yet)?\b|to\s*-?\s*dos?\b|todos?\b|next\s+(?:steps?|up)\b|what's\s+left|what\s+is\s+left|left\s+to\s+do|pending\b|outstanding\b|open\s+(?:items|tasks|work)\b|follow[\s-]?ups?\b|current\s+(?:state|status|progress)\b|in\s+progress\b|progress\b|status\b|blocked\b|wip\b|tasks?\b).{0,60}:?$`)

// trackerChatter is a task tracker's bookkeeping: claiming, closing and
// listing tickets (beads' bd, gh issue, jira) is the session's diary.
var trackerChatter = lazyre.New(`(?i)\b(?:bd|beads|gh\s+issue|jira|linear)\s+(?:update|close|create|show|ready|list|dep|claim|sync|reopen|comment)\b|--status[\s=]+\w|\bin_progress\b|^(?:claimed|closed|reopened|marked)\b.*\b(?:bead|task|ticket|issue|epic|spotter-\w+|as\s+(?:done|complete|in\s+progress))\b`)

// testTally is a count of tests or checks: how a run went, at that moment.
var testTally = lazyre.New(`(?i)^total\b|\b\d+\s+(?:new\s+|existing\s+|unit\s+|integration\s+|e2e\s+)?(?:tests?|specs?|examples?|doctests?|assertions?|properties|failures?|warnings?|errors?|issues?|files?)\b|\ball\s+(?:\d+\s+)?(?:\w+\s+)?(?:tests?|checks?|specs?)\s+(?:pass\w*|green|preserved|still\s+pass\w*|unchanged)\b|\b(?:credo|dialyzer|eslint|ruff|mypy|clippy|rubocop|tsc|lint|linter|typecheck|type\s+check|build|compile|format(?:ter)?|checks?)\s+(?:is\s+|are\s+)?(?:clean|green|passe[sd]|passing|ok|succeeded)\b`)

// filler is placeholder text (lorem ipsum) pasted to try something out.
var filler = lazyre.New(`(?i)\blorem\s+ipsum\b|\bdolor\s+sit\s+amet\b|\bconsectetur\s+adipiscing\b`)

// workLog reports whether a statement is the bookkeeping of the work of
// the moment: a tracker's chatter, a test tally, placeholder text.
func workLog(st statement, low string) bool {
	if trackerChatter.MatchString(low) || filler.MatchString(low) {
		return true
	}
	return st.speaker != memory.ActorUser && (testTally.MatchString(low) || gitState.MatchString(low) || statusReport.MatchString(low) || frenchStatus.MatchString(low) || st.session && changeReport.MatchString(low))
}

// statusReport is an agent's account of where the work stands: what is
// complete, where the changes are, a review's graded finding, the id of a
// run it started. True when said; git, the tracker and the episode keep it.
var statusReport = lazyre.New(`\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+|all\s+|fully\s+)?(?:complete|completed|done|finished|implemented|in\s+place|marked|checked\s+off)\b|\b(?:changes|updates|edits|fixes|modifications)\s+(?:are|were|live)\s+in\b|^\[(?:p[0-4]|high|medium|low|critical|major|minor|blocker|nit)\]|\bpid\s*:?\s*\d+|\b(?:run|job|task|process)\s+(?:id\s+)?(?:is|=)\s+` + "`?[a-z0-9]{6,}`?" + `\s*\.?$`)

// frenchStatus is an agent's account of the moment in French: tests run,
// what was changed ("… ont été enrichis"), what could not be done here.
var frenchStatus = lazyre.New(`^tests?\s+(?:exécutés|lancés|passés)|\b(?:ont|a)\s+été\s+\pL+(?:é|ée|és|ées|is|ies|it|its)(?:\s|[.,;:]|$)|^(?:vérification\s+\S+\s+)?impossible\b|\bimpossible\s+ici\b|\bdispo\s*:`)

// gitState is where the work stands in git and the tracker: what git and
// the tracker already hold.
var gitState = lazyre.New(`\b(?:is|are|was|were)\s+(?:now\s+)?(?:pushed|committed|merged|clean)\b|\bon\s+(?:` + "`" + `)?origin/|\b(?:epic|bead|ticket|story)\s+(?:is|was)\s+(?:now\s+)?(?:closed|done|complete)|\bno\s+tests\s+(?:were\s+)?run\b|\btests?\s*:?\s*(?:were\s+)?not\s+run\b`)

// changeReport is an agent's report of the change it made: "X now frames
// …", "API contracts generated under …", "Plan refreshed and …".
var changeReport = lazyre.New("^new\\s+(?:[\\w`./:(),-]+\\s+){1,8}(?:live|lives|are|is)\\s+(?:now\\s+)?in\\s|^(?:[\\w`./:()-]+\\s+){1,6}(?:was|were|has\\s+been|have\\s+been)\\s+(?:\\w+ly\\s+)?(?:replaced|reorganized|reorganised|updated|added|removed|moved|renamed|refactored|rewritten|converted|migrated|restructured|extracted|deleted|introduced|switched|bumped|upgraded|cleaned\\s+up)\\s+(?:with|to|in|into|around|under|from|by|so|and|across|for)\\b|^(?:[\\w`./:()-]+\\s+){0,3}now\\s+(?:[a-z]+s|is|are|has|have)\\b|^(?:[\\w`./:()-]+\\s+){1,3}(?:(?:re-?)?[a-z]+ed|re-?run|rewritten|written|done|made|built)\\b(?:\\s+(?:and|or)\\s+[a-z]+ed\\b)?\\s+(?:under|in|to|at|for|per|as|after|with|and)\\b")

// pastAction is an agent's report of what it just did ("Designed …",
// "Explored …", "Template: replaced …", "Ran `x` to see …").
var pastAction = lazyre.New("^(?:[\\w .`/()-]{1,40}:\\s+)?(?:(?:i|we)\\s+(?:also\\s+|then\\s+|just\\s+)?)?(?:[a-z]+ed|ran|found|wrote|rewrote|made|built|rebuilt|took|got|kept|left|put|went|saw|did|began|brought|chose|split|set\\s+up|re-?ran)\\b")

// designProperty is how a design means to fail ("fails silently",
// "degrades gracefully"): a property, not a failure.
var designProperty = lazyre.New(`\bfails?\s+(?:silently|gracefully|safe|safely|open|closed|fast|soft|softly)\b|\bdegrades?\s+gracefully\b|\bgraceful(?:ly)?\s+degrad`)

// pastedDocument reports whether a prompt in a session log is a document
// rather than what the person typed: a custom command's template (Spec
// Kit's "## User Input … ## Outline …") arrives as the person's message,
// with three headings or more.
func pastedDocument(text string) bool {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "#") && strings.HasPrefix(strings.TrimLeft(l, "#"), " ") {
			if n++; n >= 3 {
				return true
			}
		}
	}
	// Long text with emphasis all over it is written for reading, not
	// typed at a prompt: a chatbot's answer or a document pasted in.
	return strings.Contains(text, "$ARGUMENTS") || len(text) >= 600 && strings.Count(text, "**") >= 6
}

// prediction is what will (never) happen: a consequence, not a rule.
var prediction = lazyre.New(`\bwill\s+(?:never|always)\b`)
