package ui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
)

// The workbench follows memories by id, never by row: other processes
// write at any time (an agent remembers, another shell archives), and a
// row index would then name another memory. The list keeps its selection
// (listPane.set); here the root decides what the detail shows and what an
// open dialog holds when the store changed under them, and says so when
// the memory the person was on has gone.

// listLoaded shows a loaded list (or queue) of request req, keeping the
// selection on its memory. The detail follows the selection, except after
// a refresh for other processes' writes while the person reads the detail:
// then it keeps its memory (the refresh reloads it by id). A selected
// memory that another process took out of the list is named, with the
// neighbour now selected.
func (m *workbench) listLoaded(req int, items []*memory.Memory, next string, more bool) tea.Cmd {
	prefer := ""
	if !more {
		prefer, m.prefer = m.prefer, ""
	}
	left := m.list.set(items, next, more, prefer)
	if req == m.filterReq {
		left = nil // the filter took it out: no news
	}
	var cmds []tea.Cmd
	if req != m.refreshReq || m.focus != focusDetail || m.detail.mem == nil {
		cmds = append(cmds, m.openSelected())
	}
	switch {
	case left == nil:
	case left.ID == m.acted:
		m.acted = "" // expected once: a later move of it is news again
	case left.ID != m.told:
		m.told = left.ID
		cmds = append(cmds, m.say(leftText(m, left), false))
	}
	if sel := m.list.selected(); sel != nil && sel.ID == m.told {
		m.told = "" // it is back: its next departure is news
	}
	return tea.Batch(cmds...)
}

// leftText says why the selection moved: which memory left, as far as the
// events tell, and which one is selected now.
func leftText(m *workbench, left *memory.Memory) string {
	how := map[memory.EventKind]string{memory.EventArchive: "archived", memory.EventForget: "forgotten",
		memory.EventSupersede: "superseded", memory.EventUnarchive: "unarchived", memory.EventVerify: "reviewed",
		memory.EventEdit: "edited"}[m.heard[left.ID]]
	if how == "" {
		how = "changed"
	}
	text := fmt.Sprintf("%s elsewhere: %q", how, left.Title)
	if sel := m.list.selected(); sel != nil {
		return text + fmt.Sprintf(" — now on %q", sel.Title)
	}
	return text + " — the list is empty now"
}

// detailGone handles a memory that could not be read because it is gone:
// if it was the one shown, the detail empties and, when the person was
// reading it, the keyboard goes back to the list, with a word of why.
func (m *workbench) detailGone(id string) tea.Cmd {
	shown := m.detail.mem
	m.detail.clear()
	if shown == nil || shown.ID != id || m.focus != focusDetail {
		return nil
	}
	m.focus = focusList
	if id == m.told {
		return m.openSelected()
	}
	m.told = id
	return tea.Batch(m.say(fmt.Sprintf("forgotten elsewhere: %q", shown.Title), true), m.openSelected())
}

// reread updates an open dialog with what is stored now, or closes it when
// its memory was forgotten by another process: it never acts on another.
func (msg rereadMsg) handle(m *workbench) tea.Cmd {
	m.done()
	gone := errors.Is(msg.err, memory.ErrNotFound)
	var cmds []tea.Cmd
	if d := m.forget; d != nil && d.mem.ID == msg.id {
		switch {
		case gone:
			m.forget, m.told = nil, d.mem.ID
			cmds = append(cmds, m.say(fmt.Sprintf("forgotten elsewhere, nothing left to forget: %q", d.mem.Title), true))
		case msg.err == nil:
			d.mem = msg.mem
		}
	}
	if e := m.stack.editor(); e != nil && e.old.ID == msg.id && gone {
		m.told = e.old.ID
		m.stack.remove(func(o overlay) bool { // the editor and its new version's diff
			d, isDiff := o.(*diffView)
			return o == overlay(e) || isDiff && d.confirm
		})
		cmds = append(cmds, m.say(fmt.Sprintf("forgotten elsewhere, supersede cancelled: %q", e.old.Title), true))
	}
	return tea.Batch(cmds...)
}
