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
	// MoreNegatives counts the active negatives not briefed (past
	// maxBriefNegatives, or the budget): cairn list --layer negative
	// lists them. They are not counted in Cut.
	MoreNegatives int `json:"more_negatives,omitempty"`
}

// briefingOrder is the order sections are filled in, most binding first.
var briefingOrder = []struct {
	layer memory.Layer
	title string
	max   int
}{
	{memory.LayerInvariant, "Invariants", 20},
	{memory.LayerState, "Working state", 10},
	{memory.LayerNegative, "What failed (don't repeat)", maxBriefNegatives},
	{memory.LayerDecision, "Recent decisions", 8},
	{memory.LayerMeta, "Lessons", 5},
}

// maxToDos bounds the open to-dos a briefing lists, after everything else.
const maxToDos = 5

// maxBriefNegatives bounds the negatives a briefing tells, the most
// reinforced and recently used first, then the newest: a project gathers
// many, and a wall of them would hide everything else. The prompt hook and
// recall bring the ones a task names; the rest are counted (MoreNegatives)
// with the command that lists them.
const maxBriefNegatives = 5

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
	return ContextAt(ctx, st, projects, budget, time.Now())
}

// ContextAt is Context at the time now: the negatives are ranked by how
// alive they are then (Activation).
func ContextAt(ctx context.Context, st Lister, projects []string, budget int, now time.Time) (Briefing, error) {
	if budget <= 0 {
		budget = 800
	}
	br := &briefer{st: st, budget: budget, now: now, work: workSessions{},
		verify: Section{Title: "Verify first (may be stale)"}}
	br.projectBrief(ctx, projects)
	for _, sec := range briefingOrder {
		if err := br.section(ctx, projects, sec.layer, sec.title, sec.max); err != nil {
			return br.b, err
		}
	}
	if len(br.verify.Memories) > 0 {
		br.b.Sections = append(br.b.Sections, br.verify)
	}
	br.openToDos()
	return br.b, nil
}

// briefer fills one briefing within its budget.
type briefer struct {
	st     Lister
	budget int
	now    time.Time
	b      Briefing
	used   int // tokens spent
	verify Section
	open   []*memory.Memory // to-dos not settled, briefed last
	work   workSessions
}

// projectBrief puts the project's shape first, in at most half the
// budget: what was learned is the rest.
func (br *briefer) projectBrief(ctx context.Context, projects []string) {
	if len(projects) == 0 || projects[0] == memory.GlobalID {
		return
	}
	if sum, err := br.st.RepoSummary(ctx, projects[0]); err == nil && sum.Brief != "" {
		br.b.Project = cutWords(sum.Brief, br.budget/2*3/4)
		br.used += len(br.b.Project)/4 + 8
	}
}

// fit adds m to target if the budget has room for it.
func (br *briefer) fit(target *Section, m *memory.Memory) bool {
	if t := Cost(m); br.used+t <= br.budget {
		target.Memories = append(target.Memories, m)
		br.used += t
		return true
	}
	return false
}

// section briefs one layer: its rules (the to-dos set aside), at most
// max of them, low trust ones under "Verify first".
func (br *briefer) section(ctx context.Context, projects []string, layer memory.Layer, title string, most int) error {
	negatives := layer == memory.LayerNegative
	ms, err := br.list(ctx, projects, layer, most)
	if err != nil {
		return err
	}
	if negatives {
		sort.SliceStable(ms, func(i, j int) bool {
			ai, aj := Activation(ms[i].Salience, br.now), Activation(ms[j].Salience, br.now)
			if ai != aj {
				return ai > aj
			}
			return memoryTime(ms[i]).After(memoryTime(ms[j]))
		})
	}
	if ms, err = br.setToDosAside(ctx, ms); err != nil {
		return err
	}
	if len(ms) > most {
		if negatives {
			br.b.MoreNegatives += len(ms) - most
		} else {
			br.b.Cut += len(ms) - most
		}
		ms = ms[:most]
	}
	s := Section{Title: title}
	for _, m := range ms {
		target := &s
		if memory.Trust(m) < TrustThreshold {
			target = &br.verify
		}
		switch {
		case br.fit(target, m):
		case negatives:
			br.b.MoreNegatives++
		default:
			br.b.Cut++
		}
	}
	if len(s.Memories) > 0 {
		br.b.Sections = append(br.b.Sections, s)
	}
	return nil
}

// list reads a layer's memories of the projects: twice as many as are
// briefed (room for the to-dos taken out), of negatives up to 200 to
// choose the most salient among, counting those past what was read.
func (br *briefer) list(ctx context.Context, projects []string, layer memory.Layer, most int) ([]*memory.Memory, error) {
	var ms []*memory.Memory
	for _, pid := range projects {
		limit := most * 2
		if layer == memory.LayerNegative {
			limit = 200
		}
		page, err := br.st.List(ctx, memory.Query{Project: pid, Layer: layer, Limit: limit})
		if err != nil {
			return nil, err
		}
		ms = append(ms, page.Memories...)
		if page.Next != "" && layer == memory.LayerNegative {
			if n, err := br.st.Count(ctx, pid); err == nil { // more than were read: count them
				br.b.MoreNegatives += max(n.Active(memory.LayerNegative)-len(page.Memories), 0)
			}
		}
	}
	return ms, nil
}

// setToDosAside returns the memories of ms that are rules; of the to-dos,
// the settled ones are counted and the open ones kept for the end.
func (br *briefer) setToDosAside(ctx context.Context, ms []*memory.Memory) ([]*memory.Memory, error) {
	rules := ms[:0:0]
	for _, m := range ms {
		if !ReadsAsToDo(m) {
			rules = append(rules, m)
			continue
		}
		done, err := br.work.settled(ctx, br.st, m)
		if err != nil {
			return nil, err
		}
		if done {
			br.b.Settled++
		} else {
			br.open = append(br.open, m)
		}
	}
	return rules, nil
}

// openToDos briefs the open to-dos last, newest first: what the last
// session left.
func (br *briefer) openToDos() {
	todos := Section{Title: "Open to-dos (may be done already: check)"}
	open := br.open
	sort.SliceStable(open, func(i, j int) bool { return memoryTime(open[i]).After(memoryTime(open[j])) })
	if len(open) > maxToDos {
		br.b.Cut += len(open) - maxToDos
		open = open[:maxToDos]
	}
	for _, m := range open {
		if !br.fit(&todos, m) {
			br.b.Cut++
		}
	}
	if len(todos.Memories) > 0 {
		br.b.Sections = append(br.b.Sections, todos)
	}
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
	if b.MoreNegatives > 0 {
		fmt.Fprintf(&w, "_%d more negatives not shown: `cairn list --layer negative` lists them; recall and the prompt hook bring the ones a task names._\n", b.MoreNegatives)
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
