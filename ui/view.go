package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"cairn/memory"
	"cairn/safetext"
)

// wide is the width from which list and detail stand side by side.
const wide = 100

// inboxWide is the width from which the Inbox's list and detail stand side
// by side: its rows say old → new, and need the room more than a title.
const inboxWide = 160

// inboxBeside says whether the Inbox's detail stands beside its list
// (else below it, or in its place once opened).
func (m *workbench) inboxBeside() bool { return m.w >= inboxWide }

// rect is a pane's place on the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout computes where the panes go for the current size.
type layoutRects struct {
	sidebar, list, detail rect
	bodyH                 int
}

func (m *workbench) footerHeight() int {
	n := 2 // status or command line, and the key help
	if m.repl.active && m.repl.hint != "" {
		n++
	}
	if !m.repl.active {
		n += len(m.statusLines()) - 1
	}
	return n
}

func (m *workbench) layout() layoutRects {
	bodyH := max(m.h-1-m.footerHeight(), 3)
	side := m.sidebarWidth()
	if m.mode == modeInbox && m.w < wide && m.focus != focusSidebar && len(m.inbox.items) > 0 {
		side = 0 // deciding proposals needs the width: esc brings the sidebar back
	}
	var l layoutRects
	l.bodyH = bodyH
	l.sidebar = rect{0, 1, side, bodyH}
	rest := max(m.w-side, 10)
	inbox := m.mode == modeInbox
	switch {
	case inbox && m.inboxBeside():
		lw := min(rest/2, 80) // a proposal is read whole: its detail needs the room as much
		l.list = rect{side, 1, lw, bodyH}
		l.detail = rect{side + lw, 1, rest - lw, bodyH}
	case inbox && m.focus != focusDetail && len(m.inbox.items) > 0:
		// A proposal's row needs the width to say old → new: the detail
		// goes below the list, which keeps what rows it has room for;
		// enter gives the detail the whole height.
		lh := clamp(len(m.inbox.items)+3, 5, max(bodyH/2, 5))
		l.list = rect{side, 1, rest, lh}
		l.detail = rect{side, 1 + lh, rest, bodyH - lh}
	case !inbox && m.w >= wide:
		lw := min(rest*55/100, 96) // the list a little wider (titles need it more than prose), up to a point
		l.list = rect{side, 1, lw, bodyH}
		l.detail = rect{side + lw, 1, rest - lw, bodyH}
	default:
		l.list = rect{side, 1, rest, bodyH}
		l.detail = l.list // the detail takes the list's place when open
	}
	return l
}

// listRows is how many memories the list shows at once.
func (m *workbench) listRows() int { return m.list.rowsFor(m.layout().list.h - 2) }

// fit sizes the panes for the window and brings the list's cursor into
// view after every update, so that View only reads.
func (m *workbench) fit() {
	if m.w == 0 {
		return
	}
	m.list.scroll(m.listRows())
	m.repl.setWidth(m.w)
	if e := m.stack.editor(); e != nil {
		e.setSize(m.w-4, m.layout().bodyH-2)
	}
	if m.mode == modeInbox {
		m.inbox.move(0, m.inboxRows())
	}
	if m.mode == modeRepo {
		m.repo.move(0, m.repoRows())
	}
	m.layPager()
}

// layPager lays the reading pane that shows now into its pager, at the
// size it shows at: the keys scroll what was laid out, View draws it.
func (m *workbench) layPager() {
	l := m.layout()
	w, h := m.w-4, l.bodyH-2 // a full-screen pane inside its border
	switch {
	case m.forget != nil || m.drop != nil:
	case m.stack.top() != nil:
		m.stack.top().lay(m, w, h)
	case m.mode == modeTimeline:
		w = m.w - l.sidebar.w - 4
		m.tl.pg.set(m.tl.lines(m.theme, w, m.sid), w, h-1) // under its heading
	case m.mode == modeInbox:
		// the detail shows beside the list, below it, or in its place
		m.inbox.pg.set(m.inbox.detailLines(m.theme, l.detail.w-4, m.sid), l.detail.w-4, l.detail.h-2)
	case m.mode == modeRepo:
		if m.w >= wide || m.focus == focusDetail {
			m.repo.pg.set(m.repo.detailLines(m.theme, l.detail.w-4, m.detail.rendered), l.detail.w-4, l.detail.h-2)
		}
	case m.w >= wide || m.focus == focusDetail:
		w := l.detail.w - 4
		m.detail.pg.set(m.withReasons(m.withExplain(m.detail.lines(m.theme, w, m.focus == focusDetail, m.sid))), w, l.detail.h-2)
	}
}

func (m *workbench) detailWidth() int { return max(m.layout().detail.w-4, 10) }

// pane draws lines inside a bordered box of r's size.
func (m *workbench) pane(r rect, lines []string, focused bool) string {
	st := m.theme.Styles.Pane
	if focused {
		st = m.theme.Styles.PaneFocused
	}
	cw, ch := max(r.w-4, 1), max(r.h-2, 1)
	if len(lines) > ch {
		lines = lines[:ch]
	}
	for i := range lines {
		lines[i] = pad(lines[i], cw)
	}
	for len(lines) < ch {
		lines = append(lines, strings.Repeat(" ", cw))
	}
	return st.Width(r.w).Height(r.h).Render(strings.Join(lines, "\n"))
}

// View draws the workbench. It reads fields only.
func (m Model) View() tea.View {
	v := tea.NewView(m.content())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "cairn · " + safetext.CleanLine(m.proj.Name)
	return v
}

func (m *workbench) content() string {
	if m.w == 0 {
		return "loading…"
	}
	if m.w < 60 || m.h < 16 {
		return strings.Join(wrapAll([]string{fmt.Sprintf("cairn needs at least 60×16 (this terminal is %d×%d) — make it larger", m.w, m.h)}, m.w), "\n")
	}
	l := m.layout()
	var body string
	switch {
	case m.forget != nil:
		body = lipgloss.Place(m.w, l.bodyH, lipgloss.Center, lipgloss.Center, m.forget.view(m.theme, m.w, l.bodyH, m.sid))
	case m.drop != nil:
		body = lipgloss.Place(m.w, l.bodyH, lipgloss.Center, lipgloss.Center, m.drop.view(m.theme, m.w, l.bodyH))
	case m.stack.top() != nil:
		body = m.pane(rect{0, 1, m.w, l.bodyH}, m.stack.top().draw(m, m.w-4, l.bodyH-2), true)
	default:
		body = m.browse(l)
	}
	return strings.Join([]string{m.header(), body, m.footer()}, "\n")
}

func (m *workbench) browse(l layoutRects) string {
	side := ""
	if l.sidebar.w > 0 {
		side = m.pane(l.sidebar, m.sidebar(l.sidebar.w-4), m.focus == focusSidebar)
	}
	if m.loaded && m.total() == 0 && m.mode == modeBrowse && m.section < sectionVerify {
		r := rect{l.sidebar.w, 1, m.w - l.sidebar.w, l.bodyH}
		return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(r, m.welcome(r.w-4), m.focus != focusSidebar))
	}
	if m.mode == modeTimeline {
		r := rect{l.sidebar.w, 1, m.w - l.sidebar.w, l.bodyH}
		return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(r, m.tl.view(m.theme), m.focus != focusSidebar))
	}
	if m.mode == modeInbox {
		list := m.pane(l.list, m.inbox.view(m.theme, l.list.w-4, l.list.h-2, m.focus == focusList), m.focus == focusList)
		detail := func() string {
			return m.pane(l.detail, m.inbox.pg.lines(), m.focus == focusDetail)
		}
		switch {
		case m.inboxBeside():
			return lipgloss.JoinHorizontal(lipgloss.Top, side, list, detail())
		case m.focus == focusDetail:
			return lipgloss.JoinHorizontal(lipgloss.Top, side, detail())
		case len(m.inbox.items) == 0:
			return lipgloss.JoinHorizontal(lipgloss.Top, side, list) // nothing to read: the list says so
		}
		return lipgloss.JoinHorizontal(lipgloss.Top, side, lipgloss.JoinVertical(lipgloss.Left, list, detail()))
	}
	if m.mode == modeRepo {
		list := m.pane(l.list, m.repo.view(m.theme, l.list.w-4, l.list.h-2, m.focus == focusList), m.focus == focusList)
		switch {
		case m.w >= wide:
			return lipgloss.JoinHorizontal(lipgloss.Top, side, list, m.pane(l.detail, m.repo.pg.lines(), m.focus == focusDetail))
		case m.focus == focusDetail:
			return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(l.detail, m.repo.pg.lines(), true))
		}
		return lipgloss.JoinHorizontal(lipgloss.Top, side, list)
	}
	heading := m.sectionTitle()
	switch m.mode {
	case modeRecall:
		heading = fmt.Sprintf("recall %q", m.recallQuery)
	case modeWhy:
		heading = "why"
	}
	list := m.pane(l.list, m.list.view(m.theme, l.list.w-4, l.list.h-2, m.focus == focusList, heading, m.sectionTotal()), m.focus == focusList)
	if m.w >= wide {
		detail := m.pane(l.detail, m.detail.pg.lines(), m.focus == focusDetail)
		return lipgloss.JoinHorizontal(lipgloss.Top, side, list, detail)
	}
	if m.focus == focusDetail {
		return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(l.detail, m.detail.pg.lines(), true))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, side, list)
}

func (m *workbench) total() int {
	n := 0
	for _, s := range memory.Statuses {
		n += m.counts.Total(s)
	}
	return n
}

func (m *workbench) sectionTitle() string {
	switch {
	case m.section < 6:
		l := memory.Layers[m.section]
		return l.Letter() + " " + l.Title()
	case m.section == sectionVerify:
		return "Verify first"
	case m.section == sectionInbox:
		return "Inbox"
	case m.section == sectionArchived:
		return "Archived"
	case m.section == sectionSuperseded:
		return "Superseded (history)"
	case m.section == sectionRepo:
		return "Repository"
	}
	return "Timeline"
}

// sectionTotal is how many memories the section holds, as the sidebar
// counts them (the list loads them a page at a time), or -1 where the loaded
// list is the whole of it.
func (m *workbench) sectionTotal() int {
	switch {
	case m.mode == modeRecall || m.mode == modeWhy:
		return -1
	case m.section < sectionVerify:
		l, _ := m.section.layer()
		return m.counts.Active(l)
	case m.section == sectionArchived:
		return m.counts.Total(memory.StatusArchived)
	case m.section == sectionSuperseded:
		return m.counts.Total(memory.StatusSuperseded)
	}
	return -1
}

// countLabel is a sidebar count in at most four cells: 999, 1.2k, 38k,
// 100k, 1.2M (a count is read at a glance, and "1…" said nothing).
func countLabel(n int) string {
	switch {
	case n < 0:
		return ""
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// sidebarWidth fits the longest label ("  B working state") and the widest
// count beside it, inside the border and padding: 24 cells, a little more
// for four-character counts.
func (m *workbench) sidebarWidth() int {
	widest := len(countLabel(m.verifyCount))
	for _, n := range []int{m.inboxCount, m.repoCount, m.counts.Total(memory.StatusArchived), m.counts.Total(memory.StatusSuperseded)} {
		widest = max(widest, len(countLabel(n)))
	}
	for _, l := range memory.Layers {
		widest = max(widest, len(countLabel(m.counts.Active(l))))
	}
	return max(24, 22+widest)
}

func (m *workbench) sidebar(w int) []string {
	st := m.theme.Styles
	out := []string{st.Title.Render("Layers")}
	row := func(i section, label string, n int, style lipgloss.Style) string {
		mark := "  "
		if i == m.section {
			mark = "> "
		}
		count := countLabel(n)
		text := mark + style.Render(label)
		line := text + strings.Repeat(" ", max(w-lipgloss.Width(text)-len(count), 1)) + st.Muted.Render(count)
		if i == m.section && m.focus == focusSidebar {
			return st.Selected.Render(pad(mark+label+strings.Repeat(" ", max(w-len(mark)-lipgloss.Width(label)-len(count), 1))+count, w))
		}
		return line
	}
	for i, l := range memory.Layers {
		out = append(out, row(layerSection(l), l.Letter()+" "+l.Title(), m.counts.Active(l), st.Layer[i]))
	}
	out = append(out, st.Muted.Render(strings.Repeat("─", w)))
	out = append(out, row(sectionVerify, "! Verify first", m.verifyCount, st.Warn))
	out = append(out, row(sectionInbox, "Inbox", m.inboxCount, st.Accent))
	out = append(out, row(sectionArchived, "Archived", m.counts.Total(memory.StatusArchived), lipgloss.NewStyle()))
	out = append(out, row(sectionSuperseded, "Superseded", m.counts.Total(memory.StatusSuperseded), lipgloss.NewStyle()))
	out = append(out, row(sectionTimeline, "Timeline", -1, lipgloss.NewStyle()))
	repo := -1 // not indexed: no count, the section says how
	if m.repoCount > 0 {
		repo = m.repoCount
	}
	out = append(out, row(sectionRepo, "Repository", repo, lipgloss.NewStyle()))
	return out
}

// welcome greets an empty project.
func (m *workbench) welcome(w int) []string {
	st := m.theme.Styles
	lines := []string{
		st.Title.Render("Welcome to cairn"),
		"",
		"cairn is long-term memory for coding agents and the people who work with them: facts, decisions and their reasons, what failed — versioned instead of overwritten, and yours to correct.",
		"",
		"Nothing is remembered in " + st.Accent.Render(safetext.CleanLine(m.proj.Name)) + " yet. Three ways to start:",
		"",
		"  " + st.Key.Render("/remember -l A Never commit .env files"),
		"      press / here and type it",
		"  " + st.Key.Render("cairn mcp"),
		"      let your coding agent remember and recall",
		"  " + st.Key.Render("cairn demo"),
		"      look around a sample project first",
		"",
		st.Muted.Render("? shows every key · q quits"),
	}
	if m.inboxCount > 0 {
		lines = append(lines[:5], append([]string{
			st.Warn.Render(waiting(m.inboxCount)+" in the inbox:") + " " + st.Key.Render("i") + " shows them, " + st.Key.Render("/consolidate") + " turns drafts into memories.",
			"",
		}, lines[5:]...)...)
	}
	return wrapAll(lines, w)
}

// waiting says how many items wait: "1 item waits", "3 items wait".
func waiting(n int) string {
	if n == 1 {
		return "1 item waits"
	}
	return fmt.Sprintf("%d items wait", n)
}

func (m *workbench) header() string {
	st := m.theme.Styles
	left := st.Header.Render("cairn") + st.Muted.Render(" · ") + st.Accent.Render(safetext.CleanLine(m.proj.Name))
	right := ""
	if m.pending > 0 {
		right = m.spin.View() + " "
	}
	if p := m.consolidating(); p != "" {
		right += st.Accent.Render(p) + "  "
	}
	if m.indexing {
		right += st.Accent.Render("indexing…") + "  "
	}
	right += st.Muted.Render(m.theme.Name)
	left = ansi.Truncate(left, max(m.w-lipgloss.Width(right)-1, 1), "…") // a long project name
	return left + strings.Repeat(" ", max(m.w-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
}

func (m *workbench) footer() string {
	st := m.theme.Styles
	var lines []string
	if m.repl.active {
		lines = append(lines, m.repl.view(m.theme, m.w)...)
	} else {
		lines = append(lines, m.statusLines()...)
	}
	lines = append(lines, st.Footer.Render(pad(fit(m.keyHints(), m.w), m.w)))
	return strings.Join(lines, "\n")
}

// maxStatusLines is how tall the status line may grow: an error and its
// advice are read whole, but never at the cost of the panes.
const maxStatusLines = 3

// statusLines is the status message wrapped to the width (so the advice
// after an error is never cut), at most maxStatusLines, or one empty line.
func (m *workbench) statusLines() []string {
	if m.status == "" {
		return []string{""}
	}
	st := m.theme.Styles
	mark, style := "✓ ", st.OK
	if m.statusBad {
		mark, style = "! ", st.Danger
	}
	w := max(m.w, 10)
	if ansi.StringWidth(m.status) <= w-2 { // the common case, asked on every layout: no wrapping
		return []string{style.Render(pad(mark+m.status, w))}
	}
	lines := wrapLines(m.status, w-2)
	if len(lines) > maxStatusLines {
		lines = lines[:maxStatusLines]
		lines[maxStatusLines-1] = ansi.Truncate(lines[maxStatusLines-1]+" …", w-2, "…")
	}
	for i, l := range lines {
		if i == 0 {
			l = mark + l
		} else {
			l = "  " + l
		}
		lines[i] = style.Render(pad(l, w))
	}
	return lines
}

// fit keeps as many " · "-separated hints as fit in w, always ending with
// the last one (the way to help or out).
func fit(hints string, w int) string {
	parts := strings.Split(hints, " · ")
	last := parts[len(parts)-1]
	out := ""
	for _, p := range parts[:len(parts)-1] {
		next := p
		if out != "" {
			next = out + " · " + p
		}
		if lipgloss.Width(next+" · "+last) > w {
			break
		}
		out = next
	}
	if out == "" {
		return last
	}
	return out + " · " + last
}

// keyHints is the one-line help for what has the keyboard now: the
// footer of its key table.
func (m *workbench) keyHints() string {
	t := m.keyTables()
	return t[len(t)-1].hints(m)
}
