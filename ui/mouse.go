package ui

import tea "charm.land/bubbletea/v2"

// pointer is where a mouse message points: over the list of the pane that
// shows (when it shows), over its reading part, and at which screen row.
type pointer struct {
	list, detail bool
	y            int
	at           rect // the list's place
}

// notch is the direction of a wheel notch (ok false: sideways, which
// nothing here scrolls).
func notch(ms tea.Mouse) (up, ok bool) {
	switch ms.Button {
	case tea.MouseWheelUp:
		return true, true
	case tea.MouseWheelDown:
		return false, true
	}
	return false, false
}

// step is a wheel notch as a list's move: a row.
func step(up bool) int {
	if up {
		return -1
	}
	return 1
}

// mouse routes a click or a wheel notch: nothing while a dialog or the
// command line has the keyboard; the top overlay scrolls; a click on the
// sidebar selects its section; else the pane under the pointer has it.
func (m *workbench) mouse(msg tea.MouseMsg) tea.Cmd {
	ms := msg.Mouse()
	_, wheel := msg.(tea.MouseWheelMsg)
	switch {
	case m.forget != nil || m.drop != nil || m.repl.active:
		return nil
	case m.stack.top() != nil:
		if wheel {
			return m.stack.top().update(m, msg)
		}
		return nil
	}
	l := m.layout()
	if !wheel && l.sidebar.contains(ms.X, ms.Y) {
		return clickSection(m, ms.Y-l.sidebar.y-2) // under the border and heading
	}
	shown := m.focus != focusDetail || m.w >= wide
	if m.mode == modeInbox {
		shown = m.focus != focusDetail || inboxBeside(m.w)
	}
	at := pointer{list: shown && l.list.contains(ms.X, ms.Y), detail: l.detail.contains(ms.X, ms.Y), y: ms.Y, at: l.list}
	switch m.mode {
	case modeInbox:
		return m.inbox.update(m, msg, at)
	case modeRepo:
		return m.repo.update(m, msg, at)
	case modeTimeline:
		return timelineMouse(m, msg, at)
	}
	return memoryMouse(m, msg, at)
}

// clickSection selects the section on the sidebar's row.
func clickSection(m *workbench, row int) tea.Cmd {
	m.focus = focusSidebar
	sections := []section{0, 1, 2, 3, 4, 5, -1, sectionVerify, sectionInbox, sectionArchived, sectionSuperseded, sectionTimeline, sectionRepo}
	if row >= 0 && row < len(sections) && sections[row] >= 0 {
		return m.selectSection(sections[row])
	}
	return nil
}

// timelineMouse: the wheel scrolls the timeline wherever it points; a
// click on it gives it the keyboard.
func timelineMouse(m *workbench, msg tea.MouseMsg, at pointer) tea.Cmd {
	if up, ok := notch(msg.Mouse()); ok {
		if _, wheel := msg.(tea.MouseWheelMsg); wheel {
			m.tl.pg.wheel(up)
			return nil
		}
	}
	if at.detail {
		m.focus = focusDetail
	}
	return nil
}

// memoryMouse: a click selects a memory in the list, a notch over it moves
// the selection a row, a notch over the detail scrolls it.
func memoryMouse(m *workbench, msg tea.MouseMsg, at pointer) tea.Cmd {
	pick := func(y int) tea.Cmd {
		top := at.at.y + 2
		if m.list.filtering || m.list.filter != "" {
			top++
		}
		if i := m.list.offset + y - top; i >= 0 && i < len(m.list.visible()) {
			m.list.cursor = i
			return m.openSelected()
		}
		return nil
	}
	move := func(d int) tea.Cmd {
		m.list.move(d, m.listRows())
		return tea.Batch(m.openSelected(), m.morePages())
	}
	return paneMouse(m, msg, at, pick, move, &m.detail.pg)
}

// paneMouse is a list pane's answer to the mouse: a click on the list
// selects the row at its screen row (pick), on the detail gives it the
// keyboard; a notch over the list moves a row (move), over the detail
// scrolls it (pg).
func paneMouse(m *workbench, msg tea.MouseMsg, at pointer, pick func(y int) tea.Cmd, move func(d int) tea.Cmd, pg *pager) tea.Cmd {
	if _, wheel := msg.(tea.MouseWheelMsg); wheel {
		up, ok := notch(msg.Mouse())
		switch {
		case !ok:
		case at.list:
			return move(step(up))
		case at.detail:
			pg.wheel(up)
		}
		return nil
	}
	switch {
	case at.list:
		m.focus = focusList
		return pick(at.y)
	case at.detail:
		m.focus = focusDetail
	}
	return nil
}

// update is the Inbox's answer to the mouse over it (its keys are
// inboxKeys): a click selects an item, the wheel moves or scrolls.
func (p *inboxPane) update(m *workbench, msg tea.MouseMsg, at pointer) tea.Cmd {
	pick := func(y int) tea.Cmd {
		if i := p.offset + y - (at.at.y + 2); i >= 0 && i < len(p.items) {
			p.move(i-p.cursor, p.rowsShown(m))
		}
		return nil
	}
	move := func(d int) tea.Cmd { p.move(d, p.rowsShown(m)); return nil }
	return paneMouse(m, msg, at, pick, move, &p.pg)
}

// update is the Repository's answer to the mouse over it (its keys are
// repoKeys): a click selects a row, the wheel moves or scrolls.
func (p *repoPane) update(m *workbench, msg tea.MouseMsg, at pointer) tea.Cmd {
	pick := func(y int) tea.Cmd {
		top := at.at.y + 1 + (at.at.h - 2 - p.rowsShown(m)) // border, heading and filter
		if i := p.offset + y - top; i >= 0 && i < len(p.vis) {
			p.move(i-p.cursor, p.rowsShown(m))
			return p.render(m)
		}
		return nil
	}
	move := func(d int) tea.Cmd { p.move(d, p.rowsShown(m)); return p.render(m) }
	return paneMouse(m, msg, at, pick, move, &p.pg)
}
