package extract

import (
	"strings"

	"cairn/internal/lazyre"
	"cairn/memory"
)

// An agent's working notes (ingest.RoleNotes: what it said between its
// tool calls) are mostly narration of the moment — "Let me check the
// fixture", "10 of 12 pass now" — but they are also where it states what
// it found, usually right before it acts on it:
//
//	The auto-generated migration uses `ALTER TABLE ... modify` which
//	SQLite doesn't support for nullability changes. I need to rewrite it …
//
// A statement of the notes is kept only when it is such a finding: a
// state, a failure or limitation, a decision or a correction, about
// something named (a file, an identifier, a tool), said without a hedge,
// a modal or the speaker in it, about how things are rather than how the
// work stands, and either concluded — the next thing said is what the
// agent will do about it — or opened as one ("The issue is …"). Every
// other statement of the notes stays in the session's log.

// findingOpen opens a finding: "The issue is clear — …", "Found it: …".
var findingOpen = lazyre.New(`(?i)^(?:(?:ok(?:ay)?|so|good|great|right|ah|aha|interesting|confirmed|found\s+it|got\s+it)\s*[,.!:—–-]+\s*)*(?:the\s+)?(?:(?:real|actual|root|underlying|likely)\s+)?(?:issue|problem|cause|culprit|bug|reason|catch)\s+(?:here\s+)?(?:is|was)\s*(?:clear|obvious|simple|now\s+clear)?\s*(?:[:—–]|\s-\s|,|\s+that\b)\s*`)

// findingLead is a finding's opener that says nothing itself.
var findingLead = lazyre.New(`(?i)^(?:(?:ok(?:ay)?|so|good|great|right|ah|aha|interesting|confirmed|found\s+it|got\s+it|i\s+see)\s*[,.!:—–-]+\s*)+`)

// noteNext is what the agent will do next: the statement before it was
// what it concluded.
var noteNext = lazyre.New(`^(?:let\s+me|let's|i\s+need\s+to|i'll|i\s+will|i\s+should|i\s+can|we\s+need\s+to|need\s+to|now\s+(?:let|i|fix|update|add|run|check)|so\s+(?:i|we|let)|fix(?:ing)?\s|the\s+fix\s+is|that\s+means|this\s+means|i\s+have\s+two\s+options)`)

// noteMoment is how the work stands now, not how things are.
var noteMoment = lazyre.New(`\b(?:now|currently|still|yet|so\s+far|progress|this\s+time|again|just|remaining|anymore|any\s+more|passes|passing|pass|passed|fails\s+now|\d+\s+of\s+\d+|\d+/\d+|epics?|beads?|tasks?|subtasks?|tickets?|todos?|pushed|staged|diff|children|closed|pre-existing|the\s+actual|the\s+only\s+(?:issue|problem|one|thing|difference|failure|error)|[a-z]+-[a-z0-9]{2,5}\.\d+)\b|\b(?:was|were|has\s+been|have\s+been|got)\s+(?:\w+ly\s+)?(?:re-?)?[a-z]+(?:ed|en|wn)\b`)

// noteSpeaker is the speaker in a statement: what they did or will do.
var noteSpeaker = lazyre.New(`\b(?:i|i'm|i've|i'll|i'd|me|my|we|we're|we've|we'll|let's|us|our|you|you're|your)\b`)

// cannot is a limitation: "the LiveView process can't access the sandbox".
var cannot = lazyre.New(`\b(?:can't|cannot|can\s+not|isn't\s+able\s+to|is\s+unable\s+to|aren't\s+able\s+to|are\s+unable\s+to)\s+\w`)

// noteFinding reads statement i of an agent's working notes as a finding,
// or nothing.
func noteFinding(sts []statement, i int) (Candidate, bool) {
	st := sts[i]
	if st.item || st.procedure || st.todo {
		return Candidate{}, false // a plan's steps, a change list: the moment's
	}
	// The opener goes; what follows it is the finding, kept as said.
	opened := false
	if m := findingOpen.FindString(st.core); m != "" && len(m) < len(st.core) {
		st.core, opened = capitalizeSentence(st.core[len(m):]), true
		st.body = st.core
	} else if m := findingLead.FindString(st.core); m != "" && len(m) < len(st.core) {
		st.core = capitalizeSentence(st.core[len(m):])
		st.body = st.core
	}
	low := strings.ToLower(st.core)
	if !findingShaped(st, low) {
		return Candidate{}, false
	}
	c, ok := classifyStatement(st)
	if !ok && cannot.MatchString(low) && !isChatter(low) {
		c, ok = limitation(st, low)
	}
	// A name in backticks opens a finding about it ("`load_messages`
	// doesn't include `agent_id`"), not a command to run.
	named := strings.HasPrefix(st.core, "`")
	if !ok && noteVerb.MatchString(low) && !isChatter(low) && (named || !startsImperative(st.core)) {
		c, ok = Candidate{Class: ClassState, Layer: memory.LayerState, Kind: memory.KindFact, Title: st.body, Body: st.body, Provenance: memory.ProvObserved}, true
	}
	if !ok {
		return Candidate{}, false
	}
	switch c.Class {
	case ClassState, ClassFailure, ClassDecision, ClassCorrection:
	case ClassPreference:
		// "X must have a default", said by the agent of the code it reads:
		// how the code is, not a rule a person set.
		c = Candidate{Class: ClassState, Layer: memory.LayerState, Kind: memory.KindFact, Title: c.Title, Body: c.Body}
	default:
		return Candidate{}, false
	}
	concluded := false
	for _, n := range sts[i+1:] {
		if noteNext.MatchString(strings.ToLower(n.core)) {
			concluded = true
			break
		}
	}
	if !concluded && !opened && !(c.Class == ClassFailure && c.Sure) {
		return Candidate{}, false
	}
	c.Sure = true
	if c.Provenance == memory.ProvExtracted || c.Provenance == "" {
		c.Provenance = memory.ProvObserved
	}
	return c, true
}

// negated says what something does not do or have: a finding even without
// a name in it ("the root layout doesn't render flash messages").
var negated = lazyre.New(`\b(?:doesn't|does\s+not|don't|do\s+not|isn't|is\s+not|aren't|are\s+not|won't|can't|cannot|has\s+no|have\s+no|lacks?|never)\b`)

// noteVerb is a verb that says what something does or lacks, in a
// statement the patterns for states do not read ("Credo reports nesting
// too deep in `classify_text_lines`").
var noteVerb = lazyre.New(`\b(?:doesn't|does\s+not|don't|do\s+not|isn't|aren't|won't|lacks?|missing|has\s+no|have\s+no|reports?|expects?|needs|requires|includes?|ignores?|drops?|loses|overrides?|wraps?|accepts?|rejects?|treats?|relies\s+on|comes\s+from|refers\s+to|belongs\s+to|generates?|renders?|triggers?|matches|skips?|checks?|enforces?|blocks?)\b`)

// findingShaped reports whether a statement of the notes can be a finding
// at all: long enough, no plan, narration, check's status, work log, hedge,
// modal, speaker, moment, or pronoun for a subject, something named (or
// what something does not do), and not a lead ending in a colon.
// lineRef places what is said at a line of the code being worked on ("at
// line 622", "lines 745-781"): the moment's debugging, which the next edit
// moves.
var lineRef = lazyre.New(`\blines?\s+\d+(?:\s*[-–]\s*\d+)?\b`)

// fixIdea is a fix the agent is about to try ("The simplest fix: …", "The
// right approach is …"): a plan, not what is so.
var fixIdea = lazyre.New(`^(?:the\s+)?(?:simplest|easiest|best|right|cleanest|quickest|proper|correct|better)\s+(?:fix|approach|solution|way|option)\b|^(?:the\s+)?fix\s+(?:is|would\s+be)\s+to\b`)

// wontWork is a prediction of the moment ("won't work reliably"), or
// thinking aloud ("Wait — …").
var wontWork = lazyre.New(`\bwon't\b|\bwill\s+not\b|\bwouldn't\b|^(?:wait|hmm+|hm)\b`)

// bareIssue names where a problem is and no more ("The issue is the
// `printf` call.", "The problem is in `returned_type()`"): the moment's
// pointer, not a finding with its cause.
var bareIssue = lazyre.New(`^(?:the\s+)?(?:real\s+|actual\s+|root\s+)?(?:issue|problem|bug|error|culprit)\s+(?:is|was)\s+(?:in|with|the|that\s+the|from)\b[^.;:]{0,60}[.]?$`)

func findingShaped(st statement, low string) bool {
	switch {
	case len(strings.Fields(low)) < 5, strings.HasSuffix(strings.TrimSpace(st.core), ":"):
		return false
	case planAhead.MatchString(low), progressive.MatchString(low), testStatus.MatchString(low), workLog(st, low):
		return false
	case hedgeWord.MatchString(low), modalVerb.MatchString(low), noteSpeaker.MatchString(low), noteMoment.MatchString(low),
		pronounSubject.MatchString(low), lineRef.MatchString(low), fixIdea.MatchString(low), wontWork.MatchString(low), bareIssue.MatchString(low):
		return false
	}
	return concreteValue.MatchString(st.core) || negated.MatchString(low)
}

// limitation makes a failure of what something cannot do.
func limitation(st statement, low string) (Candidate, bool) {
	subject := low
	if m := cannot.FindStringIndex(low); m != nil {
		subject = low[:m[0]]
	}
	c := Candidate{Class: ClassFailure, Layer: memory.LayerNegative, Kind: memory.KindNegative,
		Title: st.body, Body: st.body, Triggers: failureTriggers(subject, st.core), Provenance: memory.ProvObserved}
	return c, len(c.Triggers) > 0
}

// maxExplained bounds what a finding takes of the statements after it.
const maxExplained = 3

// explained adds to a finding's body what the agent said right after it
// that explains it — the cause, the consequence, the detail ("`load_session_messages`
// doesn't include `agent_id`. The detection falls back to text matching.") —
// up to its plan, a hedge, the speaker or the moment, so that one finding
// is one memory with its reason. It returns the body and the index of the
// first statement not taken.
func explained(sts []statement, i int, body string) (string, int) {
	j := i + 1
	for ; j < len(sts) && j <= i+maxExplained; j++ {
		n := sts[j]
		low := strings.ToLower(n.core)
		if n.item || n.procedure || n.todo || n.first > sts[j-1].last+1 || n.core == "" || noteNext.MatchString(low) ||
			planAhead.MatchString(low) || progressive.MatchString(low) || hedgeWord.MatchString(low) || modalVerb.MatchString(low) ||
			noteSpeaker.MatchString(low) || noteMoment.MatchString(low) || isChatter(low) || strings.HasSuffix(strings.TrimSpace(n.core), ":") {
			break
		}
		body += " " + strings.TrimSpace(n.body)
	}
	return body, j
}
