package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/internal/lazyre"
	"cairn/memory"
	"cairn/safetext"
	"cairn/secrets"
)

// JSONError says what is wrong with JSON without quoting it.
func JSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%q is a JSON %s", te.Field, te.Value)
		}
		return "a JSON " + te.Value + " where an object was expected"
	}
	return "invalid JSON"
}

// llmCandidate is one candidate as the model writes it.
type llmCandidate struct {
	Class    string   `json:"class"`
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	Because  string   `json:"because"`
	Triggers []string `json:"triggers"`
	Span     string   `json:"span"`
	Corrects string   `json:"corrects"`
	Sure     *bool    `json:"sure"`
}

// FromModel turns what the model wrote into a candidate, or says (without
// quoting a credential) why it is dropped.
func FromModel(d memory.Draft, raw json.RawMessage) (Candidate, string) {
	var m llmCandidate
	if err := json.Unmarshal(raw, &m); err != nil {
		return Candidate{}, "is not a candidate object (" + JSONError(err) + ")"
	}
	trim := strings.TrimSpace
	m.Title, m.Body, m.Because, m.Span, m.Corrects = trim(m.Title), trim(m.Body), trim(m.Because), trim(m.Span), trim(m.Corrects)
	if why := m.credential(); why != "" {
		return Candidate{}, why
	}
	class := Class(strings.ToLower(m.Class))
	if !llmKnownClass(class) {
		return Candidate{}, fmt.Sprintf("has an unknown class %q", Short(m.Class, 30))
	}
	label := "(" + string(class) + ")"
	if m.Title != "" {
		label = fmt.Sprintf("(%s %q)", class, Short(m.Title, 40))
	}
	span, ok := FindSpan(d.Text, m.Span)
	if !ok {
		if m.Span == "" {
			return Candidate{}, label + " quotes no span of the draft"
		}
		return Candidate{}, label + ": its span is not in the draft"
	}
	if m.Title == "" {
		m.Title = memory.DeriveTitle(m.Body)
	}
	if m.Body == "" {
		m.Body = m.Title
	}
	if why := m.unfit(d, span); why != "" {
		return Candidate{}, label + why
	}
	triggers, why := m.triggers(class)
	if why != "" {
		return Candidate{}, label + ": " + why
	}
	layer, kind, prov := llmShape(class, d, span, m.Body)
	c := Candidate{
		Class: class, Layer: layer, Kind: kind, Provenance: prov,
		Title: m.Title, Body: m.Body, Because: m.Because, Triggers: triggers,
		Span: span, Corrects: m.Corrects,
		// The model's doubt stands (and a model that does not say is in
		// doubt); its confidence needs the draft's words behind it as well,
		// or a person decides.
		Sure: m.Sure != nil && *m.Sure && llmGrounded(d.Text, m.Title+" "+m.Body),
	}
	if class != ClassCorrection {
		c.Corrects = ""
	}
	if class != ClassDecision {
		c.Because = ""
	}
	return c, ""
}

// credential says why a candidate that holds a credential, or quotes a
// redacted passage, is left out (without quoting the credential); "" when
// it holds neither. Credentials are looked for first, so that no later
// reason can quote one.
func (m *llmCandidate) credential() string {
	fields := []secrets.Field{{Name: "class", Text: m.Class}, {Name: "title", Text: m.Title}, {Name: "body", Text: m.Body}, {Name: "because", Text: m.Because},
		{Name: "span", Text: m.Span}, {Name: "corrects", Text: m.Corrects}}
	for _, t := range m.Triggers {
		fields = append(fields, secrets.Field{Name: "trigger", Text: t})
	}
	if err := secrets.Check(fields...); err != nil {
		var se *secrets.Error
		what := "a credential"
		if errors.As(err, &se) && len(se.Findings) > 0 {
			what = "what looks like a credential in its " + se.Findings[0].Field
		}
		return "holds " + what + " and was left out"
	}
	// A redaction marks a statement that held a credential: nothing of it
	// becomes a memory, as on the pattern path.
	for _, f := range fields {
		if strings.Contains(strings.ToUpper(f.Text), "[REDACTED") {
			return "quotes a redacted passage and was left out"
		}
	}
	return ""
}

// unfit says why a candidate's fields cannot make a memory (said after its
// label), "" when they can: it turns its span around, a title too long or
// of several lines, a body too long, unsafe text, or a number the draft
// does not hold.
func (m *llmCandidate) unfit(d memory.Draft, span string) string {
	// A model may turn the rule it quotes around ("never push with
	// --no-verify" became "Always push with --no-verify"): a title or
	// body that says the opposite of its own span is not what was said.
	if llmInverts(span, m.Title) || llmInverts(span, m.Body) {
		return ": it says the opposite of the span it quotes"
	}
	switch {
	case m.Title == "":
		return " has neither title nor body"
	case strings.ContainsAny(m.Title, "\r\n"):
		return ": its title spans several lines"
	case utf8.RuneCountInString(m.Title) > MaxTitleRunes:
		return fmt.Sprintf(": its title is longer than %d characters", MaxTitleRunes)
	case len(m.Body) > memory.MaxBody:
		return ": its body is too long"
	case strings.ContainsAny(m.Corrects, "\r\n") || utf8.RuneCountInString(m.Corrects) > memory.MaxTitle:
		return ": what it corrects is not one short line"
	}
	for _, f := range [][2]string{{"title", m.Title}, {"corrects", m.Corrects}} {
		if err := safetext.Check(f[0], f[1]); err != nil {
			return ": " + err.Error()
		}
	}
	for _, f := range [][2]string{{"body", m.Body}, {"because", m.Because}} {
		if err := safetext.Valid(f[0], f[1]); err != nil {
			return ": " + err.Error()
		}
	}
	// A value the draft does not hold is the model's invention, and a
	// wrong value is the costliest memory there is.
	if n := llmInventedNumber(d.Text, m.Title, m.Body, m.Because, m.Corrects); n != "" {
		return fmt.Sprintf(" states %s, which the draft does not", n)
	}
	return ""
}

// triggers are a failure's triggers (lower case, distinct, at most
// maxTriggers); other classes have none. An unsafe one says why.
func (m *llmCandidate) triggers(class Class) ([]string, string) {
	if class != ClassFailure {
		return nil, ""
	}
	var triggers []string
	for _, t := range m.Triggers {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || utf8.RuneCountInString(t) > memory.MaxTag || slices.Contains(triggers, t) {
			continue
		}
		if err := safetext.Check("trigger", t); err != nil {
			return nil, err.Error()
		}
		if triggers = append(triggers, t); len(triggers) == maxTriggers {
			break
		}
	}
	return triggers, ""
}

func llmKnownClass(c Class) bool {
	switch c {
	case ClassPreference, ClassState, ClassEvent, ClassDecision, ClassFailure, ClassProcedure, ClassCorrection:
		return true
	}
	return false
}

// Short is s for a message: one line, neutralised, at most n runes.
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(safetext.CleanLine(s)), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// llmInverts reports whether text turns span's polarity around: the span
// says what not to do (never, not, don't, no, avoid …; "must never" is a
// negation) and the text only what to do (always, must, do …), or the
// other way round. A text that states without either (a rephrasing:
// "Integration tests use a real database" for "don't mock the database")
// or a span that says both passes. It is conservative: a double negation
// ("never skip" for "always run") is refused too, and a person can still
// write it.
func llmInverts(span, text string) bool {
	sNeg, sPos := llmPolarity(span)
	tNeg, tPos := llmPolarity(text)
	return sNeg && !sPos && tPos && !tNeg || sPos && !sNeg && tNeg && !tPos
}

// llmPolarity says whether s holds a negation and whether it holds an
// affirmation, by its words: flags and code ("--no-verify", "no-op",
// "`do`") are not words.
func llmPolarity(s string) (neg, pos bool) {
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(s, "’", "'")))
	for i, w := range words {
		w = strings.Trim(w, ".,;:!?\"'()[]{}*_")
		if w == "" || strings.ContainsAny(w, "-/`=$<>") {
			continue
		}
		switch {
		case llmNegations[w] || strings.HasSuffix(w, "n't"):
			neg = true
		case llmAffirmations[w] || w == "make" && i+1 < len(words) && strings.HasPrefix(words[i+1], "sure"):
			// "must never", "do not": the negation says it.
			if i+1 == len(words) || !llmNegations[strings.Trim(words[i+1], ".,;:!?\"'")] {
				pos = true
			}
		}
	}
	return neg, pos
}

var (
	llmNegations = map[string]bool{"never": true, "not": true, "no": true, "avoid": true, "avoids": true,
		"dont": true, "cannot": true, "nor": true, "neither": true, "stop": true, "forbidden": true, "prohibited": true}
	llmAffirmations = map[string]bool{"always": true, "must": true, "do": true, "should": true, "ensure": true,
		"required": true, "requires": true}
)

// FindSpan finds the model's quote in the draft: verbatim, or the same
// text with whitespace laid out differently (models reflow lines). It
// returns the draft's own substring.
func FindSpan(text, span string) (string, bool) {
	if span == "" {
		return "", false
	}
	if strings.Contains(text, span) {
		return span, true
	}
	ct, at := llmCollapse(text)
	cs, _ := llmCollapse(span)
	cs = strings.TrimSpace(cs)
	i := strings.Index(ct, cs)
	if cs == "" || i < 0 {
		return "", false
	}
	// cs neither starts nor ends with a space, so both ends map to bytes
	// of the draft itself.
	return text[at[i] : at[i+len(cs)-1]+1], true
}

// llmCollapse writes each run of white space as one space, and for each
// byte of the result the offset of the byte it came from.
func llmCollapse(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				at = append(at, i)
			}
			space = true
			continue
		}
		space = false
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		b.WriteString(s[i : i+n])
		for k := range n {
			at = append(at, i+k)
		}
	}
	return b.String(), at
}

// llmDigits finds the numbers in a text.
var llmDigits = lazyre.New(`[0-9]+`)

// llmInventedNumber returns a number the texts state that the draft does
// not hold, or "". Numbers are compared as runs of digits, so "41ms" in a
// candidate matches "41 ms" in the draft.
func llmInventedNumber(draft string, texts ...string) string {
	have := map[string]bool{}
	for _, n := range llmDigits.FindAllString(draft, -1) {
		have[n] = true
	}
	for _, t := range texts {
		for _, n := range llmDigits.FindAllString(t, -1) {
			if !have[n] {
				return n
			}
		}
	}
	return ""
}

// llmCommon are words a model adds when it restates a note ("the user
// prefers…"); they say nothing about whether the note said it.
var llmCommon = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`user users team project should will would that this they them their there these those
		with from have has had which when what were been being into also does uses used using than then must about`) {
		llmCommon[w] = true
	}
}

// llmGrounded reports whether most of a candidate's words are the draft's
// (by a 4-letter stem, so "prefers" meets "preferred"): a model's summary
// that wanders from the text goes to a person.
func llmGrounded(draft, text string) bool {
	stem := func(w string) string {
		if r := []rune(w); len(r) > 4 {
			return string(r[:4])
		}
		return w
	}
	have := map[string]bool{}
	for _, w := range memory.Words(draft) {
		have[stem(w)] = true
	}
	total, found := 0, 0
	for _, w := range memory.Words(text) {
		if utf8.RuneCountInString(w) < 4 || llmCommon[w] {
			continue
		}
		total++
		if have[stem(w)] {
			found++
		}
	}
	return total == 0 || found*2 >= total
}

// llmShape gives a candidate the layer, kind and provenance its class and
// its draft call for; the model's say is not asked. The rules are the
// pattern extractor's (extract.go), read from the span, the draft's own
// words, rather than from the model's restatement where they can be:
//
//   - preference → A, kind constraint, or preference when it states a
//     taste ("prefer", "would rather"); state → B fact; event → C event;
//     decision → D decision; failure → E negative; procedure → A
//     procedure (B when it reproduces a bug); correction → what it states:
//     A preference when that is a taste or a rule, else B fact.
//   - Who said it is the draft's actor, unless a transcript prefix
//     ("user:", "assistant:") on or above the span's line says otherwise.
//     From a person: user-stated, a correction user-corrected. From an
//     agent or the system: events and failures observed, the rest
//     extracted; a correction user-corrected only when it reports the
//     user's words ("the user corrected: …").
//   - A state holding a measured figure is measured whoever said it,
//     unless the figure is a setting (a timeout, a limit).
func llmShape(c Class, d memory.Draft, span, body string) (memory.Layer, memory.Kind, memory.Provenance) {
	low, lowBody := strings.ToLower(span), strings.ToLower(body)
	var layer memory.Layer
	var kind memory.Kind
	switch c {
	case ClassPreference:
		layer, kind = memory.LayerInvariant, memory.KindConstraint
		if tasteCue.MatchString(low) || strings.HasPrefix(low, "prefer") {
			kind = memory.KindPreference
		}
	case ClassState:
		layer, kind = memory.LayerState, memory.KindFact
	case ClassEvent:
		layer, kind = memory.LayerEpisode, memory.KindEvent
	case ClassDecision:
		layer, kind = memory.LayerDecision, memory.KindDecision
	case ClassFailure:
		layer, kind = memory.LayerNegative, memory.KindNegative
	case ClassProcedure:
		layer, kind = memory.LayerInvariant, memory.KindProcedure
		if reproLead.MatchString(low) {
			layer = memory.LayerState
		}
	case ClassCorrection:
		layer, kind = memory.LayerState, memory.KindFact
		if tasteCue.MatchString(lowBody) || ruleWord.MatchString(lowBody) {
			layer, kind = memory.LayerInvariant, memory.KindPreference
		}
	}

	line, speaker := llmSpeaker(d, span)
	var prov memory.Provenance
	switch {
	case c == ClassState && measuredFigure.MatchString(low) && !settingWord.MatchString(low):
		prov = memory.ProvMeasured
	case speaker == memory.ActorUser && c == ClassCorrection:
		prov = memory.ProvUserCorrected
	case speaker == memory.ActorUser:
		prov = memory.ProvUserStated
	case c == ClassCorrection && (reporter.MatchString(line) || reporter.MatchString(span)):
		prov = memory.ProvUserCorrected
	case c == ClassEvent || c == ClassFailure:
		prov = memory.ProvObserved
	default:
		prov = memory.ProvExtracted
	}
	return layer, kind, prov
}

// llmSpeaker is who said the span: the draft's actor, or the speaker of
// the last transcript prefix on or above its line; and the span's line
// after that prefix.
func llmSpeaker(d memory.Draft, span string) (string, memory.Actor) {
	at := strings.Index(d.Text, span)
	speaker := d.Actor
	if at < 0 {
		return "", speaker
	}
	pos := 0
	for pos <= at {
		end := strings.IndexByte(d.Text[pos:], '\n')
		if end < 0 {
			end = len(d.Text)
		} else {
			end += pos
		}
		line := d.Text[pos:end]
		if m := speakerPrefix.FindStringSubmatchIndex(line); m != nil {
			speaker = speakerOf(line[m[2]:m[3]])
			line = line[m[1]:]
		}
		if at <= end {
			return strings.TrimSpace(line), speaker
		}
		pos = end + 1
	}
	return "", speaker
}
