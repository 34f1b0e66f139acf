package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"cairn/safetext"
)

// wide is the width from which list and detail stand side by side.
const wide = 100

// inboxWide is the width from which the Inbox's list and detail stand side
// by side: its rows say old → new, and need the room more than a title.
const inboxWide = 160

// inboxBeside says whether the Inbox's detail stands beside its list
// (else below it, or in its place once opened).
func inboxBeside(w int) bool { return w >= inboxWide }

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
	side := m.tally.width()
	if m.mode == modeInbox && m.w < wide && m.focus != focusSidebar && len(m.inbox.items) > 0 {
		side = 0 // deciding proposals needs the width: esc brings the sidebar back
	}
	var l layoutRects
	l.bodyH = bodyH
	l.sidebar = rect{0, 1, side, bodyH}
	rest := max(m.w-side, 10)
	inbox := m.mode == modeInbox
	switch {
	case inbox && inboxBeside(m.w):
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
		m.inbox.move(0, m.inbox.rowsShown(m))
	}
	if m.mode == modeRepo {
		m.repo.move(0, m.repo.rowsShown(m))
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
		m.detail.pg.set(withReasons(m, withExplain(m, m.detail.lines(m.theme, w, m.focus == focusDetail, m.sid))), w, l.detail.h-2)
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
		side = m.pane(l.sidebar, m.tally.lines(m.theme, l.sidebar.w-4, m.section, m.focus == focusSidebar), m.focus == focusSidebar)
	}
	if m.tally.loaded && m.tally.total() == 0 && m.mode == modeBrowse && m.section < sectionVerify {
		r := rect{l.sidebar.w, 1, m.w - l.sidebar.w, l.bodyH}
		return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(r, welcome(m.theme, m.proj.Name, m.tally.inbox, r.w-4), m.focus != focusSidebar))
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
		case inboxBeside(m.w):
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
	heading, total := m.section.title(), m.tally.of(m.section)
	switch m.mode {
	case modeRecall:
		heading, total = fmt.Sprintf("recall %q", m.recallQuery), -1
	case modeWhy:
		heading, total = "why", -1
	}
	list := m.pane(l.list, m.list.view(m.theme, l.list.w-4, l.list.h-2, m.focus == focusList, heading, total), m.focus == focusList)
	if m.w >= wide {
		detail := m.pane(l.detail, m.detail.pg.lines(), m.focus == focusDetail)
		return lipgloss.JoinHorizontal(lipgloss.Top, side, list, detail)
	}
	if m.focus == focusDetail {
		return lipgloss.JoinHorizontal(lipgloss.Top, side, m.pane(l.detail, m.detail.pg.lines(), true))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, side, list)
}

func (m *workbench) header() string {
	st := m.theme.Styles
	left := st.Header.Render("cairn") + st.Muted.Render(" · ") + st.Accent.Render(safetext.CleanLine(m.proj.Name))
	right := ""
	if m.pending > 0 {
		right = m.spin.View() + " "
	}
	if p := strings.TrimSpace(m.progress); m.sleeping != nil && p != "" {
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
	// The keys of what has the keyboard: the footer of its table.
	tables := m.keyTables()
	lines = append(lines, st.Footer.Render(pad(fit(tables[len(tables)-1].hints(m), m.w), m.w)))
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
