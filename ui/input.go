package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
)

// key routes a key press: ctrl+c quits whatever has the keyboard; else
// the tables of what has it now take the key, the first first.
func (m *workbench) key(k tea.KeyPressMsg) tea.Cmd {
	if keys.Interrupt.matches(k) {
		return quit(m)
	}
	if o := m.stack.top(); o != nil && m.forget == nil && m.drop == nil && !m.repl.active {
		return o.update(m, k) // the overlay on top has the keyboard (keyTables: its footer)
	}
	for _, t := range m.keyTables() {
		if cmd, ok := t.dispatch(m, k); ok {
			return cmd
		}
	}
	return nil
}

// morePages loads the next page when the cursor nears the end of what is loaded.
func (m *workbench) morePages() tea.Cmd {
	if m.list.next == "" || (m.list.filter != "" && !m.list.inStore) || m.mode == modeRecall || m.mode == modeWhy || m.list.cursor < len(m.list.items)-10 {
		return nil
	}
	next := m.list.next
	m.list.next = "" // one request at a time
	q := m.query()
	q.After = next
	m.pending++
	return loadPage(m.ctx, m.st, m.reqSeq, q, true)
}

// trust is the project's trust service, or nil without one.
func (m *workbench) trust() Trust {
	if m.opt.Trust == nil {
		return nil
	}
	return m.opt.Trust(m.proj)
}

// current is the memory the keys act on: the one in the detail pane when
// it has focus, else the list's selection.
func (m *workbench) current() *memory.Memory {
	if m.focus == focusDetail && m.detail.mem != nil {
		return m.detail.mem
	}
	return m.list.selected()
}

// startSupersede opens the editor on cur; with text (/supersede ID TEXT)
// the editor holds that text and the diff is shown at once.
func (m *workbench) startSupersede(cur *memory.Memory, text string) tea.Cmd {
	if cur.Status == memory.StatusSuperseded {
		return m.say(fmt.Sprintf("%s is already superseded by %s — supersede that one", m.sid(cur.ID), m.sid(cur.SupersededBy)), true)
	}
	e := newEditor(cur, m.theme.Dark)
	m.stack.push(e)
	focus := e.ta.Focus()
	if text == "" {
		return focus
	}
	e.setText(text)
	return tea.Batch(focus, m.reviewEdit())
}

// reviewEdit shows the editor's new version beside the old, to store with
// enter (ctrl+s in the editor; /supersede ID TEXT goes straight here).
func (m *workbench) reviewEdit() tea.Cmd {
	e := m.stack.editor()
	next := e.next()
	if strings.TrimSpace(next.Body) == "" {
		return m.say("the new version is empty: write the corrected fact", true)
	}
	if title, body := splitEdit(editText(e.old)); next.Title == title && next.Body == body {
		if e.proposal != "" {
			return m.say("unchanged: esc, then a accepts it as proposed", true)
		}
		return m.say("the new version is the same as the old: change something, or esc to cancel", true)
	}
	if e.proposal != "" {
		// Compared with the memory the proposal is about, when there is
		// one: that is what accepting changes.
		old := e.about
		if old == nil {
			old = e.old
		}
		d := newDiff([]*memory.Memory{old, next}, 0, 1, "your version of the proposal, not stored yet")
		d.confirm, d.proposal = true, e.proposal
		m.stack.push(d)
		return nil
	}
	d := newDiff([]*memory.Memory{e.old, next}, 0, 1, "your new version, not stored yet")
	d.confirm = true
	m.stack.push(d)
	return nil
}
