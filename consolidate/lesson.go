package consolidate

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"cairn/consolidate/claims"
	"cairn/consolidate/extract"
	"cairn/memory"
	"cairn/safetext"
)

// Lesson is the layer-F memory cairn writes when wrong, a secondhand
// memory (inferred, extracted, observed), was superseded by right (a user
// correction or a measurement). It says what was claimed and by whom,
// what was true and who said or measured it, and what to check next time:
// the file, command, flag or commit that would have shown it — taken from
// the two memories' bindings first, then from what their texts name; only
// when they name nothing, to confirm the subject with the user or the
// source before stating it as current.
//
// It returns nil when the change teaches nothing about cairn's own
// mistakes: right is not user-corrected or measured, or wrong is not
// secondhand (an ordinary update of state is not a lesson).
func Lesson(wrong, right *memory.Memory, c Conflict) *memory.Memory {
	if wrong == nil || right == nil {
		return nil
	}
	if right.Provenance != memory.ProvUserCorrected && right.Provenance != memory.ProvMeasured {
		return nil
	}
	if !wrong.Provenance.Secondhand() {
		return nil
	}
	wt, rt := plainTitle(wrong), plainTitle(right)
	if wt == "" || rt == "" {
		return nil
	}
	subject := strings.TrimRight(flatLine(c.Subject), ".!;:,")
	if subject == "" {
		subject = shorten(strings.TrimRight(rt, ".!;:,"), 60)
	}
	old, now := strings.TrimRight(flatLine(c.Old), ".;:,"), strings.TrimRight(flatLine(c.New), ".;:,")
	if old == "" || now == "" {
		old, now = "“"+shorten(wt, 50)+"”", "“"+shorten(rt, 50)+"”"
	}
	checks := lessonChecks(wrong, right)

	var b strings.Builder
	fmt.Fprintf(&b, "Claimed: “%s” — %s.\n\n", shorten(wt, 160), claimedBy(wrong))
	fmt.Fprintf(&b, "True: “%s” — %s.\n\n", shorten(rt, 160), toldBy(right))
	fmt.Fprintf(&b, "What changed: %s: %s → %s.\n\n", subject, old, now)
	fmt.Fprintf(&b, "Why it went wrong: the claim was %s and was stated as current without checking it against its source.\n\n", howKnown(wrong.Provenance))
	if len(checks) == 0 {
		fmt.Fprintf(&b, "Next time: confirm %s with the user or the source before stating it as current.\n", subject)
	} else {
		var says []string
		for _, ch := range checks {
			says = append(says, ch.say)
		}
		fmt.Fprintf(&b, "Next time, before stating %s as current: %s.\n", subject, strings.Join(says, "; "))
	}

	project := right.Project
	if project == "" {
		project = wrong.Project
	}
	return &memory.Memory{
		Project:    project,
		Layer:      memory.LayerMeta,
		Kind:       memory.KindLesson,
		Title:      lessonTitle(subject, old, now, checks),
		Body:       b.String(),
		Tags:       []string{"lesson"},
		Provenance: right.Provenance,
		Confidence: right.Provenance.BaseConfidence(),
		Source:     memory.Source{Actor: memory.ActorSystem},
		Status:     memory.StatusActive,
		Triggers:   lessonTriggers(subject, triggerExtras(c), checks),
		Version:    1,
	}
}

// maxLessonTitle bounds a lesson's title: it must read in one list row.
const maxLessonTitle = 120

// lessonTitle: "Deploys go through: ArgoCD was wrong, Spinnaker is right —
// check deploy/pipeline.yaml". To fit, the subject and values are cut
// first to a fixed share, then the check is cut or left out.
func lessonTitle(subject, old, now string, checks []lessonCheck) string {
	s := []rune(shorten(subject, 40))
	if len(s) > 0 {
		s[0] = unicode.ToUpper(s[0])
	}
	base := fmt.Sprintf("%s: %s was wrong, %s is right", string(s), shorten(old, 30), shorten(now, 30))
	const check = " — check "
	tail := " — confirm before stating it as current"
	if len(checks) > 0 {
		tail = check + checks[0].target
	}
	if n := utf8.RuneCountInString(base); n+utf8.RuneCountInString(tail) > maxLessonTitle {
		room := maxLessonTitle - n - utf8.RuneCountInString(check)
		if len(checks) > 0 && room >= 8 {
			tail = check + shorten(checks[0].target, room)
		} else {
			tail = ""
		}
	}
	return shorten(base+tail, maxLessonTitle)
}

// lessonCheck is one thing that would have shown the truth.
type lessonCheck struct {
	target string // as the title names it: deploy/pipeline.yaml, `make deploy`, DEPLOY_TOOL
	say    string // as the body says it: "read deploy/pipeline.yaml"
	key    string // to drop the same thing named twice
}

// maxLessonChecks: a lesson names the few best things to check.
const maxLessonChecks = 3

// lessonChecks: right's bindings, wrong's bindings, then the paths,
// commands, flags, variables and commits right's and wrong's texts name.
func lessonChecks(wrong, right *memory.Memory) []lessonCheck {
	var out []lessonCheck
	seen := map[string]bool{}
	add := func(c lessonCheck) {
		if c.target == "" || seen[c.key] || len(out) >= maxLessonChecks {
			return
		}
		seen[c.key] = true
		out = append(out, c)
	}
	for _, m := range []*memory.Memory{right, wrong} {
		for _, w := range m.Watermarks {
			t := flatLine(w.Target)
			switch w.Kind {
			case memory.WatermarkFile:
				add(lessonCheck{target: t, say: "read " + t, key: "path:" + claims.PathKey(t)})
			case memory.WatermarkGit:
				cmd := "git log -1"
				if t != "" {
					cmd += " -- " + t
				}
				add(lessonCheck{target: "`" + cmd + "`", say: "run `" + cmd + "` to see when it last changed", key: "git:" + t})
			case memory.WatermarkFlag:
				add(lessonCheck{target: t, say: "check the value of " + t, key: "flag:" + t})
			}
		}
	}
	for _, m := range []*memory.Memory{right, wrong} {
		for _, c := range namedChecks(m.Text()) {
			add(c)
		}
	}
	return out
}

// namedChecks finds in a text what a person could check, in the order the
// text names them: `code` spans (commands), paths, --flags, UPPER_SNAKE
// variables and commit ids.
func namedChecks(text string) []lessonCheck {
	var out []lessonCheck
	for len(text) > 0 {
		i := strings.IndexByte(text, '`')
		plain := text
		if i >= 0 {
			plain = text[:i]
		}
		out = append(out, wordChecks(plain)...)
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i+1:], '`')
		if j < 0 {
			out = append(out, wordChecks(text[i+1:])...)
			break
		}
		code := flatLine(text[i+1 : i+1+j])
		text = text[i+1+j+1:]
		switch {
		case code == "" || utf8.RuneCountInString(code) > 80:
		case claims.LooksLikePath(code):
			out = append(out, lessonCheck{target: code, say: "read " + code, key: "path:" + claims.PathKey(code)})
		default:
			out = append(out, lessonCheck{target: "`" + code + "`", say: "run `" + code + "`", key: "code:" + code})
		}
	}
	return out
}

// wordChecks finds paths, flags, variables and commits among words.
func wordChecks(text string) []lessonCheck {
	var out []lessonCheck
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"“”'’,;()[]<>", r)
	}) {
		f = strings.TrimRight(f, ".:!?")
		if f == "" || utf8.RuneCountInString(f) > 120 || !printableLine(f) {
			continue
		}
		name, _, _ := strings.Cut(f, "=") // LOG_LEVEL=debug, --region=eu
		switch {
		case claims.LooksLikePath(f):
			out = append(out, lessonCheck{target: f, say: "read " + f, key: "path:" + claims.PathKey(f)})
		case strings.HasPrefix(name, "--") && len(name) > 3 && flagName(name[2:]):
			out = append(out, lessonCheck{target: name, say: "check how " + name + " is set", key: "flag:" + name})
		case upperSnake(name):
			out = append(out, lessonCheck{target: name, say: "check the value of " + name, key: "flag:" + name})
		case claims.CommitLike(f):
			out = append(out, lessonCheck{target: "`git show " + f + "`", say: "run `git show " + f + "`", key: "commit:" + f})
		}
	}
	return out
}

func flagName(s string) bool {
	name, _, _ := strings.Cut(s, "=")
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// upperSnake: an environment variable or config key, DEPLOY_TOOL.
func upperSnake(s string) bool {
	if len(s) < 3 || !strings.Contains(s, "_") || s[0] < 'A' || s[0] > 'Z' || strings.HasSuffix(s, "_") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func printableLine(s string) bool { return safetext.Check("", s) == nil }

// triggerExtras are the words besides the subject's that should bring the
// lesson up: the wrong value when it is a name, a path or a command; the
// words of the negated phrase ("enabled", "prod"); never a bare number.
func triggerExtras(c Conflict) []string {
	switch c.How {
	case "number", "version", "port":
		return nil
	case "negation":
		var out []string
		for _, w := range strings.Fields(c.Old + " " + c.New) {
			lw := strings.ToLower(w)
			if lw != "not" && lw != "no" && lw != "longer" && lw != "never" && !claims.FuncWords[lw] && !extract.CommonVerbs[lw] {
				out = append(out, lw)
			}
		}
		return out
	}
	if v := strings.Trim(flatLine(c.Old), "`“”\""); v != "" {
		return []string{v}
	}
	return nil
}

// lessonTriggers are the words of a task that should bring the lesson up
// (recall matches them as lower-case substrings), two to four: the
// subject's words, the extras, the files and flags to check; when that is
// not two, short words ("ci", "s3"), the subject as a phrase ("go
// version"), its verbs.
func lessonTriggers(subject string, extras []string, checks []lessonCheck) []string {
	var ts triggerList
	words, shorts, verbs := subjectTerms(subject)
	for _, w := range words {
		ts.add(w, 3)
	}
	for _, w := range extras {
		ts.add(w, 3)
	}
	for _, c := range checks {
		if len(ts) < 2 && (strings.HasPrefix(c.key, "path:") || strings.HasPrefix(c.key, "flag:")) {
			ts.add(c.target, 3)
		}
	}
	for _, w := range append(shorts, extras...) {
		if len(ts) < 2 {
			ts.add(w, 2)
		}
	}
	if fs := strings.Fields(subject); len(ts) < 2 && len(fs) >= 2 && len(fs) <= 3 && !strings.Contains(subject, "…") {
		ts.add(strings.Join(fs, " "), 3)
	}
	for _, w := range verbs {
		if len(ts) < 2 {
			ts.add(w, 3)
		}
	}
	if len(ts) < 2 {
		// The subject's first content words, as a phrase: narrower than
		// any of them alone.
		if cw := leadingContent(subject); len(cw) >= 2 {
			ts.add(strings.Join(cw, " "), 3)
		}
	}
	return ts
}

// triggerList is a lesson's triggers, at most four.
type triggerList []string

// add adds t when it is specific, at least least runes long, and not a
// word that holds another already there (or is held by one).
func (ts *triggerList) add(t string, least int) {
	t = strings.ToLower(strings.TrimSpace(t))
	if len(*ts) >= 4 || utf8.RuneCountInString(t) < least || utf8.RuneCountInString(t) > 40 || !printableLine(t) {
		return
	}
	if strings.IndexFunc(t, unicode.IsLetter) < 0 || !extract.SpecificTrigger(t) {
		return
	}
	// A word that holds another adds nothing: "deploy" already finds
	// "deploys". (A phrase, "go version", is narrower and may stay.)
	if slices.Contains(*ts, t) || !strings.Contains(t, " ") && slices.ContainsFunc(*ts, func(o string) bool {
		return !strings.Contains(o, " ") && (strings.Contains(t, o) || strings.Contains(o, t))
	}) {
		return
	}
	*ts = append(*ts, t)
}

// subjectTerms sorts a subject's words: content words (a plural taken to
// its singular, so that "deploys" finds "deploy" and "deploying" too; a
// name stays as it is), short words and common verbs.
func subjectTerms(subject string) (words, shorts, verbs []string) {
	for _, w := range strings.Fields(subject) {
		lw := strings.ToLower(strings.Trim(w, ".,:;…"))
		switch {
		case claims.FuncWords[lw] || claims.FillerWords[lw] || claims.CanonWords[lw] != "" || strings.IndexFunc(lw, unicode.IsLetter) < 0:
		case extract.CommonVerbs[lw]:
			verbs = append(verbs, lw)
		case utf8.RuneCountInString(lw) < 3:
			shorts = append(shorts, lw)
		default:
			if n := len(lw); n > 4 && lw[n-1] == 's' && lw[n-2] != 's' && strings.ToLower(w) == w {
				lw = lw[:n-1]
			}
			words = append(words, lw)
		}
	}
	return words, shorts, verbs
}

// leadingContent are the first three content words of a subject.
func leadingContent(subject string) []string {
	var cw []string
	for _, w := range strings.Fields(subject) {
		lw := strings.ToLower(strings.Trim(w, ".,:;…`\"'()"))
		if lw != "" && !claims.FuncWords[lw] && !claims.FillerWords[lw] && !extract.CommonTriggerWords[lw] && strings.IndexFunc(lw, unicode.IsLetter) >= 0 && len(cw) < 3 {
			cw = append(cw, lw)
		}
	}
	return cw
}

// claimedBy says how the wrong claim came to be: "extracted by an agent,
// session s-41, notes.md:12, 2026-03-01".
func claimedBy(m *memory.Memory) string {
	parts := []string{string(m.Provenance) + byWhom(m.Source.Actor)}
	return strings.Join(append(parts, whereFrom(m)...), ", ")
}

// toldBy says who set it right: "corrected by the user, 2026-03-07" or
// "measured by an agent, session s-42, 2026-03-07".
func toldBy(m *memory.Memory) string {
	head := "measured" + byWhom(m.Source.Actor)
	if m.Provenance == memory.ProvUserCorrected {
		head = "corrected by the user"
	}
	return strings.Join(append([]string{head}, whereFrom(m)...), ", ")
}

func byWhom(a memory.Actor) string {
	switch a {
	case memory.ActorUser:
		return " by the user"
	case memory.ActorAgent:
		return " by an agent"
	case memory.ActorSystem:
		return " by cairn"
	}
	return ""
}

// whereFrom: the session, the file and line, and the date a memory names.
func whereFrom(m *memory.Memory) []string {
	var out []string
	if s := flatLine(m.Source.Session); s != "" {
		out = append(out, "session "+shorten(s, 40))
	}
	if f := flatLine(m.Source.File); f != "" {
		if m.Source.Line > 0 {
			f += fmt.Sprintf(":%d", m.Source.Line)
		}
		out = append(out, shorten(f, 80))
	}
	if d := earliestSet(m.ValidFrom, m.CreatedAt); !d.IsZero() {
		out = append(out, d.UTC().Format("2006-01-02"))
	}
	return out
}

func earliestSet(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// howKnown says what a secondhand provenance means, for the lesson.
func howKnown(p memory.Provenance) string {
	switch p {
	case memory.ProvInferred:
		return "inferred (a guess, never confirmed)"
	case memory.ProvExtracted:
		return "extracted from text (what someone wrote, not what is)"
	case memory.ProvObserved:
		return "observed once (and not observed again)"
	}
	return string(p)
}

// plainTitle is a memory's title as one clean line (its text's first line
// when it has none).
func plainTitle(m *memory.Memory) string {
	if t := flatLine(m.Title); t != "" {
		return t
	}
	return flatLine(memory.DeriveTitle(m.Body))
}

// flatLine makes s one line of plain text: control characters shown as
// stand-ins, whitespace collapsed.
func flatLine(s string) string {
	return strings.Join(strings.Fields(safetext.CleanLine(s)), " ")
}

// shorten cuts s to at most n runes, ending with "…" when cut.
func shorten(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:—-") + "…"
}
