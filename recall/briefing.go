package recall

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"cairn/memory"
	"cairn/safetext"
)

// Section is one part of a warm-up briefing.
type Section struct {
	Title    string           `json:"title"`
	Memories []*memory.Memory `json:"memories"`
}

// Briefing is what the start of a session should know: invariants, the
// working state, recent decisions, negatives and lessons, within a budget.
type Briefing struct {
	// Project is what the repository says the project is — its commands
	// and main modules (derived memory's brief; "" before cairn index).
	Project  string    `json:"project,omitempty"`
	Sections []Section `json:"sections"`
	Cut      int       `json:"cut"` // memories left out for the budget
	// Settled counts the to-dos left out because the work moved on since
	// (see settled): they stay in the store and in their episodes.
	Settled int `json:"settled,omitempty"`
}

// briefingOrder is the order sections are filled in, most binding first.
var briefingOrder = []struct {
	layer memory.Layer
	title string
	max   int
}{
	{memory.LayerInvariant, "Invariants", 20},
	{memory.LayerState, "Working state", 10},
	{memory.LayerNegative, "What failed (don't repeat)", 10},
	{memory.LayerDecision, "Recent decisions", 8},
	{memory.LayerMeta, "Lessons", 5},
}

// maxToDos bounds the open to-dos a briefing lists, after everything else.
const maxToDos = 5

// Context builds the warm-up briefing of the projects within budget
// tokens: invariants, then the most salient negatives, the working state,
// recent decisions and lessons; memories whose trust fell below the
// serving threshold are listed apart under "Verify first", never as fact.
//
// To-dos are never briefed as rules. A memory that reads as a to-do or
// progress list (ReadsAsToDo: "Still needed …", "Next steps", "TODO:",
// checkboxes), whatever layer it was filed in, is the state of a piece of
// work when it was written, and work moves on. So, one rule: a to-do that
// the work has settled (see settled: a later session has begun since, or
// its own session ended with its tests green) is left out, counted in
// Settled; one still open is listed last, under "Open to-dos", after every
// durable rule, and only with what budget is left.
func Context(ctx context.Context, st Lister, projects []string, budget int) (Briefing, error) {
	if budget <= 0 {
		budget = 800
	}
	var b Briefing
	used := 0
	if r, ok := st.(interface {
		RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error)
	}); ok && len(projects) > 0 && projects[0] != memory.GlobalID {
		if sum, err := r.RepoSummary(ctx, projects[0]); err == nil && sum.Brief != "" {
			// The project's shape first, in at most half the budget: what
			// was learned is the rest.
			b.Project = cutWords(sum.Brief, budget/2*3/4)
			used += len(b.Project)/4 + 8
		}
	}
	verify := Section{Title: "Verify first (may be stale)"}
	todos := Section{Title: "Open to-dos (may be done already: check)"}
	var open []*memory.Memory
	work := workSessions{}
	now := time.Now()
	fit := func(target *Section, m *memory.Memory) {
		if t := Cost(m); used+t <= budget {
			target.Memories = append(target.Memories, m)
			used += t
		} else {
			b.Cut++
		}
	}
	for _, sec := range briefingOrder {
		s := Section{Title: sec.title}
		var ms []*memory.Memory
		for _, pid := range projects {
			limit := sec.max * 2 // room for the to-dos taken out below
			if sec.layer == memory.LayerNegative {
				limit = 200 // choose the most salient among many
			}
			page, err := st.List(ctx, memory.Query{Project: pid, Layer: sec.layer, Limit: limit})
			if err != nil {
				return b, err
			}
			ms = append(ms, page.Memories...)
		}
		if sec.layer == memory.LayerNegative {
			sort.SliceStable(ms, func(i, j int) bool {
				return Activation(ms[i].Salience, now) > Activation(ms[j].Salience, now)
			})
		}
		rules := ms[:0:0]
		for _, m := range ms {
			if !ReadsAsToDo(m) {
				rules = append(rules, m)
				continue
			}
			done, err := work.settled(ctx, st, m)
			if err != nil {
				return b, err
			}
			if done {
				b.Settled++
			} else {
				open = append(open, m)
			}
		}
		ms = rules
		if len(ms) > sec.max {
			b.Cut += len(ms) - sec.max
			ms = ms[:sec.max]
		}
		for _, m := range ms {
			target := &s
			if memory.Trust(m) < TrustThreshold {
				target = &verify
			}
			fit(target, m)
		}
		if len(s.Memories) > 0 {
			b.Sections = append(b.Sections, s)
		}
	}
	if len(verify.Memories) > 0 {
		b.Sections = append(b.Sections, verify)
	}
	// The open to-dos last, newest first: what the last session left.
	sort.SliceStable(open, func(i, j int) bool { return memoryTime(open[i]).After(memoryTime(open[j])) })
	if len(open) > maxToDos {
		b.Cut += len(open) - maxToDos
		open = open[:maxToDos]
	}
	for _, m := range open {
		fit(&todos, m)
	}
	if len(todos.Memories) > 0 {
		b.Sections = append(b.Sections, todos)
	}
	return b, nil
}

// A to-do reads as one by how it opens: a title or body that starts with
// "Still needed", "Next steps", "Remaining tasks", "Left to do", "To do:",
// "TODO" (in capitals: "todo app" is a name), after any bullet, number or
// heading mark; or a body most of whose lines are checkbox items ("- [ ]",
// "- [x]"). A sentence that only says something is still needed ("a
// lockfile is still needed for reproducible builds"), or a rule whose
// body ends with its next steps, is no list and stays what it was filed as.
var (
	toDoHead = regexp.MustCompile(`(?i)^[\s>*#+-]*(?:\d+[.)]\s*)?(?:still (?:needed|to do|to be done|missing|open)|next steps?\b|remaining (?:tasks?|work|items?|steps?|to-?dos?)\b|left to do\b|open (?:tasks|items|to-?dos)\b|action items\b|follow[- ]ups?\s*:|to[- ]?dos?\s*[:(])`)
	toDoCaps = regexp.MustCompile(`^[\s>*#+-]*(?:\d+[.)]\s*)?TODO\b`)
	checkbox = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]`)
)

// ReadsAsToDo reports whether a memory's text is a to-do or progress list
// rather than something that holds: see toDoHead.
func ReadsAsToDo(m *memory.Memory) bool {
	opens := func(text string) bool {
		text = strings.TrimSpace(text)
		return toDoHead.MatchString(text) || toDoCaps.MatchString(text) || checkbox.MatchString(text)
	}
	if opens(m.Title) || opens(m.Body) {
		return true
	}
	lines, boxes := 0, 0
	for _, l := range strings.Split(m.Body, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if checkbox.MatchString(l) {
			boxes++
		}
	}
	return boxes > 0 && boxes*2 >= lines
}

// workSessions knows, per project, the sessions its episodes record: when
// the latest began and which ended with the work done. Read once per
// project, and only when a to-do is met.
type workSessions map[string]*sessionsOf

type sessionsOf struct {
	latest        time.Time // when the newest session began
	latestSession string
	done          map[string]bool // session → it ended with its tests green
}

// recentEpisodes is how many of a project's newest episodes are read: a
// to-do older than all of them is older than a later session anyway.
const recentEpisodes = 50

// settled reports whether the work has moved on past a to-do: a later
// session of its project began after it was written (that session was
// briefed on it, and what it did is in its episode), or the session it
// was written in has ended with its tests green (its episode's "Ended:"
// line, see ingest's Diary.Episode). Neither says each item was done; both
// say the list is no longer the state of play, which is what a briefing
// must not present as current.
func (w workSessions) settled(ctx context.Context, st Lister, m *memory.Memory) (bool, error) {
	s, ok := w[m.Project]
	if !ok {
		page, err := st.List(ctx, memory.Query{Project: m.Project, Layer: memory.LayerEpisode, Limit: recentEpisodes})
		if err != nil {
			return false, err
		}
		s = &sessionsOf{done: map[string]bool{}}
		for _, ep := range page.Memories {
			session := ep.Source.Session
			if !strings.HasPrefix(ep.Ref, "session:") || session == "" {
				continue // an event, not a session's diary
			}
			if at := memoryTime(ep); at.After(s.latest) {
				s.latest, s.latestSession = at, session
			}
			s.done[session] = endedDone(ep.Body)
		}
		w[m.Project] = s
	}
	if s.latestSession != "" && s.latestSession != m.Source.Session && s.latest.After(memoryTime(m)) {
		return true, nil
	}
	return m.Source.Session != "" && s.done[m.Source.Session], nil
}

// endedDone reads an episode's "Ended:" line: the session is over (not
// "still running when last read") and its last tests passed.
func endedDone(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, "Ended: "); ok {
			return strings.Contains(rest, "tests green") && !strings.Contains(rest, "still running")
		}
	}
	return false
}

// Markdown renders a briefing for an agent or a person. Titles and bodies
// are shown through safetext: a body may hold escape sequences that would
// act on the terminal the briefing is printed to.
func (b Briefing) Markdown() string {
	var w strings.Builder
	if b.Project != "" {
		fmt.Fprintf(&w, "## The project\n\n%s\n\n", strings.TrimSpace(safetext.Clean(b.Project)))
	}
	if len(b.Sections) == 0 {
		w.WriteString("Nothing remembered for this project yet.\n")
		return w.String()
	}
	for _, s := range b.Sections {
		fmt.Fprintf(&w, "## %s\n\n", s.Title)
		for _, m := range s.Memories {
			title := safetext.CleanLine(m.Title)
			fmt.Fprintf(&w, "- **%s** (%s, %s, id %s)", title, m.Kind, m.Provenance, m.ID)
			if body := strings.TrimSpace(safetext.Clean(m.Body)); body != "" && body != title {
				fmt.Fprintf(&w, "\n  %s", strings.ReplaceAll(body, "\n", "\n  "))
			}
			w.WriteString("\n")
		}
		w.WriteString("\n")
	}
	if b.Cut > 0 {
		fmt.Fprintf(&w, "_%d more memories left out for the token budget._\n", b.Cut)
	}
	if b.Settled > 0 {
		fmt.Fprintf(&w, "_%d to-dos of earlier sessions left out: the work moved on since (they are in the sessions' episodes)._\n", b.Settled)
	}
	return w.String()
}

// cutWords keeps text's lines while they stay within n words.
func cutWords(text string, n int) string {
	var out []string
	used := 0
	for _, line := range strings.Split(text, "\n") {
		k := len(strings.Fields(line))
		if used+k > n {
			break
		}
		out = append(out, line)
		used += k
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// TextCost estimates the tokens of a text as Cost does a memory's: about
// four characters a token, rounded up.
func TextCost(text string) int { return (len(text) + 3) / 4 }

// CutText is the longest start of text that costs at most tokens (see
// TextCost) and ends where a sentence does (after '.', '!' or '?' and any
// closing quote or bracket, before a space or the end) or a line does.
// When not even the first sentence fits it ends after a whole word; it
// never cuts one. It is "" when not even a word fits, and text itself
// (trimmed) when all of it does.
func CutText(text string, tokens int) string {
	text = strings.TrimSpace(text)
	if TextCost(text) <= tokens {
		return text
	}
	sentence, word := 0, 0
	for i := 1; i <= tokens*4; i++ { // len(text) > tokens*4: text[i] exists
		// text[:i] is a candidate when the character after it parts words.
		if !isSpace(text[i]) {
			continue
		}
		word = i
		end := strings.TrimRight(text[:i], `"')]*_`+"`")
		if text[i] == '\n' || end != "" && strings.ContainsRune(".!?", rune(end[len(end)-1])) {
			sentence = i
		}
	}
	if sentence == 0 {
		sentence = word
	}
	return strings.TrimSpace(text[:sentence])
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
