package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"cairn/ingest"
	"cairn/internal/inboxline"
	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// inboxItem is one row of the Inbox: a draft waiting for consolidation, or
// a proposal waiting for a person, with what the proposal is about read
// when the inbox was loaded (View does no I/O).
type inboxItem struct {
	draft *memory.Draft
	prop  *memory.Proposal
	gap   *memory.Gap // a question recall could not answer
	// reason is the proposal's reason with its memory ids expanded into
	// titles (consolidate.Explain).
	reason string
	// target and other are the stored memories the proposal names; nil
	// when it names none, or when one was forgotten since.
	target, other *memory.Memory
}

func (it inboxItem) id() string {
	switch {
	case it.draft != nil:
		return it.draft.ID
	case it.gap != nil:
		return it.gap.ID
	}
	return it.prop.ID
}

func (it inboxItem) when() time.Time {
	switch {
	case it.draft != nil:
		return it.draft.Time
	case it.gap != nil:
		return it.gap.Last
	}
	return it.prop.Time
}

// candidate is what accepting the proposal would write or keep: its
// candidate memory, else the stored memory Other.
func (it inboxItem) candidate() *memory.Memory {
	if it.prop == nil {
		return nil
	}
	if it.prop.Memory != nil {
		return it.prop.Memory
	}
	return it.other
}

// inboxPane lists the inbox, oldest first, and shows the selected item
// whole. Like the memory list it follows its selection by id: other
// processes capture drafts and decide proposals at any time.
type inboxPane struct {
	// session, when set, shows only that agent session's drafts (all of
	// them, taken by consolidation or not): an episode's "open its drafts".
	session string
	items   []inboxItem
	cursor  int
	offset  int
	pg      pager     // what shows of the detail, laid out by fit
	asOf    time.Time // ages are counted to this moment (set in Update)
	// marked holds the proposals marked (space, *) for a decision on
	// several at once: a and w then decide every marked one.
	marked map[string]bool
}

// toggleMark marks the selected proposal, or unmarks it.
func (p *inboxPane) toggleMark() bool {
	it := p.selected()
	if it == nil || it.prop == nil {
		return false
	}
	if p.marked == nil {
		p.marked = map[string]bool{}
	}
	if p.marked[it.prop.ID] {
		delete(p.marked, it.prop.ID)
	} else {
		p.marked[it.prop.ID] = true
	}
	return true
}

// markKind marks every proposal of the selected one's kind, or unmarks
// them all when they all are marked already; it says how many are marked.
func (p *inboxPane) markKind() (memory.ProposalKind, int, bool) {
	sel := p.selected()
	if sel == nil || sel.prop == nil {
		return "", 0, false
	}
	kind := sel.prop.Kind
	all := true
	for _, it := range p.items {
		if it.prop != nil && it.prop.Kind == kind && !p.marked[it.prop.ID] {
			all = false
		}
	}
	if p.marked == nil {
		p.marked = map[string]bool{}
	}
	for _, it := range p.items {
		if it.prop != nil && it.prop.Kind == kind {
			if all {
				delete(p.marked, it.prop.ID)
			} else {
				p.marked[it.prop.ID] = true
			}
		}
	}
	return kind, len(p.marked), true
}

// markedIDs is the marked proposals still in the inbox, in the list's order.
func (p *inboxPane) markedIDs() []string {
	var ids []string
	for _, it := range p.items {
		if it.prop != nil && p.marked[it.prop.ID] {
			ids = append(ids, it.prop.ID)
		}
	}
	return ids
}

// set replaces the items, keeping the selection on the same item; when it
// left (accepted, rejected, dropped), the one that took its row is selected.
func (p *inboxPane) set(items []inboxItem) {
	was := ""
	if sel := p.selected(); sel != nil {
		was = sel.id()
	}
	p.items = items
	if len(p.marked) > 0 {
		still := map[string]bool{}
		for _, it := range items {
			if it.prop != nil && p.marked[it.prop.ID] {
				still[it.prop.ID] = true
			}
		}
		p.marked = still
	}
	for i, it := range items {
		if it.id() == was {
			if i != p.cursor {
				p.pg.top()
			}
			p.cursor = i
			return
		}
	}
	p.cursor = clamp(p.cursor, 0, max(len(items)-1, 0))
	p.pg.top()
}

func (p *inboxPane) selected() *inboxItem {
	if p.cursor < 0 || p.cursor >= len(p.items) {
		return nil
	}
	return &p.items[p.cursor]
}

func (p *inboxPane) move(d, rows int) {
	c := clamp(p.cursor+d, 0, max(len(p.items)-1, 0))
	if c != p.cursor {
		p.pg.top()
	}
	p.cursor = c
	p.offset = follow(p.cursor, p.offset, rows)
}

// follow is the first row a pane of rows rows shows so that the cursor
// stays in view, moving offset as little as it can (rows 0: not laid out).
func follow(cursor, offset, rows int) int {
	if cursor < offset {
		return cursor
	}
	if rows > 0 && cursor >= offset+rows {
		return cursor - rows + 1
	}
	return offset
}

// counts says how many drafts and proposals the inbox holds.
func (p *inboxPane) counts() (drafts, props, gaps int) {
	for _, it := range p.items {
		switch {
		case it.draft != nil:
			drafts++
		case it.gap != nil:
			gaps++
		default:
			props++
		}
	}
	return drafts, props, gaps
}

// draftSource names where a draft came from: its session and file, else
// who captured it.
func draftSource(d *memory.Draft) string {
	var parts []string
	if d.Source.Session != "" {
		parts = append(parts, "session "+d.Source.Session)
	}
	if d.Source.File != "" {
		f := d.Source.File
		if d.Source.Line > 0 {
			f += fmt.Sprintf(":%d", d.Source.Line)
		}
		parts = append(parts, f)
	}
	if len(parts) == 0 {
		return safetext.CleanLine(string(d.Actor))
	}
	return safetext.CleanLine(strings.Join(parts, " "))
}

// draftOrigin names where a draft came from in a few cells, for its row:
// its session, else its file's name, else who captured it.
func draftOrigin(d *memory.Draft) string {
	switch {
	case d.Source.Session != "":
		who := "agent"
		if d.Actor == memory.ActorUser {
			who = "you"
		}
		return who + " · " + shortSession(d.Source.Session)
	case d.Source.File != "":
		return safetext.CleanLine(truncateRunes(filepath.Base(d.Source.File), 16))
	}
	return safetext.CleanLine(string(d.Actor))
}

// sessionKind names the agent whose session log a file is, by where
// agents keep them.
func sessionKind(file string) string {
	switch {
	case strings.Contains(file, "/.codex/") || strings.Contains(filepath.Base(file), "rollout-"):
		return "a Codex session"
	case strings.Contains(file, "/.claude/"):
		return "a Claude Code session"
	}
	return "an agent's session"
}

// shortSession is an agent session's id as rows show it: its first eight
// characters (session ids are UUIDs).
func shortSession(s string) string {
	if r := []rune(s); len(r) > 8 {
		s = string(r[:8])
	}
	return safetext.CleanLine(s)
}

// row is what an item's row says, its kind and its text in room cells or
// more (a supersession keeps its change in sight).
func (it inboxItem) row(room int) (kind, text string) {
	switch {
	case it.draft != nil:
		return "draft", draftOrigin(it.draft) + " · " + oneLinePreview(ingest.Unmarked(it.draft.Text))
	case it.gap != nil:
		return "gap", fmt.Sprintf("asked %d× · %s", it.gap.Count, oneLinePreview(it.gap.Query))
	}
	text = inboxline.Proposal(*it.prop, it.target, it.other)
	if it.prop.Kind == memory.ProposeSupersede {
		text = keepChange(text, room)
	}
	return string(it.prop.Kind), text
}

// keepChange fits a row's "old → new" in n cells by cutting the old text,
// so what changes stays in sight ("The token bucket holds 5k req/s at p99
// under 4 ms on th… → 12"); a new side too long for half the room is cut
// with the rest.
func keepChange(s string, n int) string {
	i := strings.LastIndex(s, " → ")
	if i < 0 || ansi.StringWidth(s) <= n {
		return s
	}
	after := s[i:]
	room := n - ansi.StringWidth(after)
	if room < n/2 {
		return s
	}
	return ansi.Truncate(s[:i], room, "…") + after
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// oneLinePreview is a text on one line, its runs of space folded.
func oneLinePreview(s string) string {
	return strings.Join(strings.Fields(safetext.CleanLine(s)), " ")
}

// view renders the list in w×h cells.
func (p *inboxPane) view(t themes.Theme, w, h int, focused bool) []string {
	st := t.Styles
	drafts, props, gaps := p.counts()
	// What waits, in one order: drafts and proposals (as ever), and gaps
	// when there are some — then only the kinds there are, to fit.
	parts := []string{plural(drafts, "draft"), plural(props, "proposal")}
	if gaps > 0 {
		parts = parts[:0]
		for _, k := range []struct {
			n    int
			what string
		}{{drafts, "draft"}, {props, "proposal"}, {gaps, "gap"}} {
			if k.n > 0 {
				parts = append(parts, plural(k.n, k.what))
			}
		}
	}
	if n := len(p.marked); n > 0 {
		parts = append(parts, fmt.Sprintf("%d marked", n))
	}
	head := " " + strings.Join(parts, " · ")
	out := []string{st.Title.Render("Inbox") + st.Muted.Render(head)}
	if p.session != "" {
		out[0] = st.Title.Render("Session "+shortSession(p.session)) + st.Muted.Render(fmt.Sprintf(" %s · esc: all", plural(drafts, "draft")))
	}
	if len(p.items) == 0 {
		return append(out, wrapAll([]string{"",
			st.Muted.Render("Nothing waits for you."),
			"",
			st.Muted.Render("Drafts that agents capture (cairn capture, the MCP capture tool, session hooks) wait here until /consolidate turns them into memories; what it is not sure of comes back here as proposals."),
		}, w)...)
	}
	rows := h - len(out)
	offset := p.offset
	if p.cursor < offset || p.cursor >= offset+rows { // not fitted yet: keep the cursor in view
		offset = max(p.cursor-rows+1, 0)
	}
	const label = 10
	for i := offset; i < len(p.items) && i < offset+rows; i++ {
		it := p.items[i]
		mark := " "
		if i == p.cursor {
			mark = ">"
		}
		if it.prop != nil && p.marked[it.prop.ID] {
			mark += "*"
		} else {
			mark += " "
		}
		when := fmt.Sprintf(" %3s", age(p.asOf, it.when()))
		room := max(w-2-label-len(when), 1)
		kind, text := it.row(room)
		line := mark + pad(safetext.CleanLine(kind), label) + pad(text, room)
		switch {
		case i == p.cursor && focused:
			line = st.Selected.Render(pad(line+when, w))
		case i == p.cursor:
			line = st.Bold.Render(line) + st.Muted.Render(when)
		default:
			line += st.Muted.Render(when)
		}
		out = append(out, line)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// detailLines is the whole of the selected item: a draft's text as
// captured, or a proposal with its reason, the candidate and the memory it
// is about.
func (p *inboxPane) detailLines(t themes.Theme, w int, sid func(string) string) []string {
	st := t.Styles
	it := p.selected()
	if it == nil {
		return []string{st.Muted.Render("select a draft or a proposal to read it")}
	}
	rule := st.Muted.Render(strings.Repeat("─", max(w, 1)))
	if d := it.draft; d != nil {
		state := " · waiting for /consolidate"
		if d.Done != "" {
			state = " · taken by run " + safetext.CleanLine(d.Done)
		}
		when := "captured " + d.Time.Local().Format("2006-01-02 15:04") + " by " + safetext.CleanLine(string(d.Actor))
		if d.Source.Session != "" && d.Source.Message != "" { // read from an agent's session log
			who := "the agent"
			if d.Actor == memory.ActorUser {
				who = "you"
			}
			when = "said by " + who + " " + d.Time.Local().Format("2006-01-02 15:04") + " in " + sessionKind(d.Source.File)
		}
		head := []string{
			st.Title.Render("Draft") + st.Muted.Render(state),
			st.Muted.Render("id " + safetext.CleanLine(d.ID) + " · " + when),
		}
		if d.Source.Session != "" || d.Source.File != "" {
			head = append(head, st.Muted.Render("from "+draftSource(d)))
		}
		out := wrapAll(append(head, st.Muted.Render("x drops it for good · /consolidate turns drafts into memories")), w)
		out = append(out, rule)
		return append(out, wrapAll(strings.Split(strings.TrimRight(safetext.Clean(d.Text), "\n"), "\n"), w)...)
	}
	if g := it.gap; g != nil {
		what := "nothing known"
		if g.Best > 0 {
			what = fmt.Sprintf("only weak answers (best %.2f)", g.Best)
		}
		out := wrapAll([]string{
			st.Title.Render("Gap") + st.Muted.Render(" · a question recall could not answer"),
			st.Muted.Render(fmt.Sprintf("asked %s, last %s · %s", plural(g.Count, "time"), g.Last.Local().Format("2006-01-02 15:04"), what)),
			st.Muted.Render("answer it: /remember what you know · x closes the gap"),
		}, w)
		out = append(out, rule)
		return append(out, wrapAll([]string{safetext.CleanLine(g.Query)}, w)...)
	}
	pr := it.prop
	decide := st.Key.Render("a") + " accept · " + st.Key.Render("w") + " reject" + editHint(t, pr) + diffHint(t, pr) + " · " + st.Key.Render("space") + " mark"
	if n := len(p.marked); n > 0 {
		decide = st.Key.Render("a") + fmt.Sprintf(" accepts the %d marked · ", n) + st.Key.Render("w") + " rejects them"
	}
	head := []string{
		st.Title.Render(proposalHeading[pr.Kind]) + st.Muted.Render(": ") + decide,
		st.Muted.Render("why: ") + safetext.CleanLine(it.reason),
	}
	out := append(wrapAll(head, w), rule)
	first, second := sectionNames(pr)
	if pr.Target != "" {
		out = append(out, memoryLines(t, first, it.target, true, w, sid)...)
	}
	if c := it.candidate(); c != nil || pr.Kind != memory.ProposeArchive {
		out = append(out, memoryLines(t, second, c, pr.Memory == nil, w, sid)...)
	}
	out = append(out, rule)
	return append(out, wrapAll([]string{
		st.Muted.Render("proposal " + safetext.CleanLine(pr.ID) + " · " + pr.Time.Local().Format("2006-01-02 15:04") + proposalOrigin(pr)),
		st.Key.Render("*") + st.Muted.Render(" marks every "+safetext.CleanLine(string(pr.Kind))+" proposal · ") + st.Key.Render("esc") + st.Muted.Render(" unmarks all"),
	}, w)...)
}

var proposalHeading = map[memory.ProposalKind]string{
	memory.ProposeMerge:     "Proposed merge",
	memory.ProposeSupersede: "Proposed supersession",
	memory.ProposeArchive:   "Proposed archive",
	memory.ProposeRemember:  "Proposed memory",
}

// sectionNames names the detail's two memories for a proposal's kind:
// the stored one it is about first, then what would take its place.
func sectionNames(pr *memory.Proposal) (about, cand string) {
	stored := pr.Memory == nil
	switch pr.Kind {
	case memory.ProposeMerge:
		if stored {
			return "Would be folded:", "Into (kept):"
		}
		return "Stored:", "Says nearly the same (new wording):"
	case memory.ProposeSupersede:
		if stored {
			return "Now:", "Superseded by (stored already):"
		}
		return "Now:", "Would become:"
	case memory.ProposeArchive:
		return "Would archive:", ""
	}
	return "", "Would remember:"
}

func proposalOrigin(pr *memory.Proposal) string {
	s := ""
	if pr.Draft != "" {
		s += " · from draft " + short(pr.Draft)
	}
	if pr.Run != "" {
		s += " · run " + short(pr.Run)
	}
	return s
}

func editHint(t themes.Theme, pr *memory.Proposal) string {
	if pr.Kind == memory.ProposeArchive {
		return ""
	}
	return " · " + t.Styles.Key.Render("e") + " edit"
}

func diffHint(t themes.Theme, pr *memory.Proposal) string {
	if pr.Kind == memory.ProposeMerge || pr.Kind == memory.ProposeSupersede {
		return " · " + t.Styles.Key.Render("d") + " diff"
	}
	return ""
}

// memoryLines shows a memory of a proposal (stored, or a candidate) under
// label: its layer, kind, provenance and status, its title and its body,
// neutralised for the terminal; its id in its short form (sid).
func memoryLines(t themes.Theme, label string, m *memory.Memory, stored bool, w int, sid func(string) string) []string {
	st := t.Styles
	if m == nil {
		return wrapAll([]string{st.Bold.Render(label) + " " + st.Muted.Render("a forgotten memory: nothing of it is left")}, w)
	}
	layer := m.Layer.Letter() + " " + m.Layer.Title()
	if li := strings.IndexByte("ABCDEF", byte(m.Layer)); li >= 0 {
		layer = st.Layer[li].Render(layer)
	}
	facts := st.Bold.Render(label) + " " + layer + st.Muted.Render(" · ") + safetext.CleanLine(string(m.Kind)) + st.Muted.Render(" · ") + safetext.CleanLine(string(m.Provenance))
	if stored {
		facts += st.Muted.Render(" · " + safetext.CleanLine(string(m.Status)) + " · id " + sid(m.ID))
	} else {
		facts += st.Muted.Render(" · not stored yet")
	}
	out := wrapAll([]string{facts, st.Accent.Render(safetext.CleanLine(m.Title))}, w)
	if body := strings.TrimSpace(safetext.Clean(m.Body)); body != "" && body != safetext.CleanLine(m.Title) {
		out = append(out, wrapAll(strings.Split(body, "\n"), w)...)
	}
	return out
}
