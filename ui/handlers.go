package ui

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/trust"
)

// The answers of the workbench's commands: each message type handles its
// own (update hands every message that has a handle method to it).

func (msg countsLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID {
		return nil
	}
	if msg.err != nil {
		return m.fail("count memories", msg.err)
	}
	m.tally.counts, m.tally.loaded = msg.counts, true
	return nil
}

func (msg queueLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID {
		return nil
	}
	if msg.err != nil {
		return m.fail("check what to verify", msg.err)
	}
	m.tally.verify = len(msg.items)
	m.reasons = map[string][]string{}
	items := make([]*memory.Memory, len(msg.items))
	for i, it := range msg.items {
		items[i] = it.Memory
		m.reasons[it.Memory.ID] = it.Reasons
	}
	if msg.req != m.reqSeq || m.section != sectionVerify {
		return nil // only the count was asked for, or the selection moved on
	}
	return m.listLoaded(msg.req, items, "", false)
}

func (msg pageLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.req != m.reqSeq {
		return nil // the selection moved on
	}
	if msg.err != nil {
		return m.fail("load the list", msg.err)
	}
	return m.listLoaded(msg.req, msg.items, msg.next, msg.more)
}

func (msg memoryLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if cur := m.list.selected(); msg.id != m.detail.wantID && (cur == nil || cur.ID != msg.id) {
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, memory.ErrNotFound) {
			return m.detailGone(msg.id)
		}
		return m.fail("open "+m.sid(msg.id), msg.err)
	}
	m.detail.set(msg.mem, msg.out, msg.in, msg.titles)
	return m.renderDetail()
}

func (msg renderedMsg) handle(m *workbench) tea.Cmd {
	if len(m.detail.rendered) >= maxRendered {
		m.detail.rendered = map[renderKey]string{} // a long browse: start the cache afresh
	}
	m.detail.rendered[msg.key] = msg.text
	return nil
}

func (msg timelineLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("load the timeline", msg.err)
	}
	if msg.project == m.proj.ID {
		m.tl.events = msg.events
	}
	return nil
}

func (msg calibrationLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID {
		return nil
	}
	if msg.err != nil {
		if _, ok := m.stack.top().(*calibrationPane); ok {
			m.stack.pop()
		}
		return m.fail("count the reviews", msg.err)
	}
	if c := find[*calibrationPane](m.stack); c != nil {
		c.set(msg.cal, msg.titles)
	}
	return nil
}

func (msg projectsLoadedMsg) handle(m *workbench) tea.Cmd {
	if msg.err == nil {
		m.projects = msg.projects
	}
	return nil
}

func (msg forgetTextMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("read the memory to forget", msg.err)
	}
	m.forget = &forgetDialog{mem: msg.mem}
	return nil
}

func (msg supersedeTargetMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("open the memory to supersede", msg.err)
	}
	return m.startSupersede(msg.mem, msg.text)
}

func (msg historyLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if errors.Is(msg.err, errNothingToCompare) {
		return m.say(msg.err.Error(), false)
	}
	if msg.err != nil {
		return m.fail("open the diff", msg.err)
	}
	m.stack.push(newDiff(msg.vers, msg.old, msg.new, ""))
	return nil
}

func (msg mirrorLoadedMsg) handle(m *workbench) tea.Cmd {
	if msg.project == m.proj.ID && msg.err == nil {
		m.detail.mirror = msg.pending
	}
	return nil
}

func (msg archivedLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil || msg.project != m.proj.ID {
		return nil
	}
	m.archived = msg.items
	if m.archived == nil {
		m.archived = []*memory.Memory{}
	}
	if m.repl.active && strings.HasPrefix(strings.TrimLeft(m.repl.in.Value(), "/:"), "unarchive ") {
		return m.completeLine()
	}
	return nil
}

func (msg capturedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("capture", msg.err)
	}
	return tea.Batch(m.say(fmt.Sprintf("captured %s into the inbox (%d bytes) — /consolidate turns drafts into memories", short(msg.draft.ID), len(msg.draft.Text)), false), m.countInbox())
}

func (msg editFileReadyMsg) handle(m *workbench) tea.Cmd {
	if m.stack.editor() == nil { // cancelled meanwhile
		return func() tea.Msg { os.Remove(msg.path); return nil }
	}
	return editExternally(m.ctx, msg.path)
}

func (msg editorDoneMsg) handle(m *workbench) tea.Cmd {
	e := m.stack.editor()
	if e == nil {
		return nil
	}
	if msg.err != nil {
		return m.fail("run the editor", msg.err)
	}
	e.setText(msg.text)
	return nil
}

func (msg subscribedMsg) handle(m *workbench) tea.Cmd {
	m.sub = msg.ch
	return waitEvent(m.sub)
}

func (msg storeEventMsg) handle(m *workbench) tea.Cmd {
	// Some process changed the store: refresh what is shown, once per burst.
	if msg.event.MemoryID != "" {
		if m.heard == nil || len(m.heard) > 256 {
			m.heard = map[string]memory.EventKind{}
		}
		m.heard[msg.event.MemoryID] = msg.event.Kind
	}
	var cmds []tea.Cmd
	if m.sub != nil {
		cmds = append(cmds, waitEvent(m.sub))
	}
	if !m.refreshDue {
		m.refreshDue = true
		cmds = append(cmds, m.after(150*time.Millisecond, refreshMsg{}))
	}
	return tea.Batch(cmds...)
}

func (msg refreshMsg) handle(m *workbench) tea.Cmd {
	m.refreshDue, m.archived = false, nil
	cmds := []tea.Cmd{loadCounts(m.ctx, m.st, m.proj.ID), loadProjects(m.ctx, m.st)}
	m.pending++
	if m.mode != modeRecall && m.mode != modeWhy {
		cmds = append(cmds, m.loadSection(false))
		m.refreshReq = m.reqSeq
	}
	if m.section != sectionInbox || m.mode == modeRecall || m.mode == modeWhy {
		cmds = append(cmds, m.countInbox()) // agents capture drafts while the workbench is open
	}
	if m.section != sectionRepo || m.mode != modeRepo {
		cmds = append(cmds, m.countRepo()) // another process indexed
	}
	if m.mode == modeTimeline && m.section != sectionTimeline {
		m.pending++
		cmds = append(cmds, loadTimeline(m.ctx, m.st, m.proj.ID))
	}
	if m.detail.mem != nil {
		cmds = append(cmds, m.loadDetail(m.detail.mem.ID))
	}
	// An open dialog shows, and acts on, what is stored now. (An editor
	// on a proposal's candidate holds nothing stored yet.)
	if m.forget != nil {
		m.pending++
		cmds = append(cmds, reread(m.ctx, m.st, m.forget.mem.ID))
	}
	if e := m.stack.editor(); e != nil && e.proposal == "" && (m.forget == nil || m.forget.mem.ID != e.old.ID) {
		m.pending++
		cmds = append(cmds, reread(m.ctx, m.st, e.old.ID))
	}
	return tea.Batch(cmds...)
}

func (msg statusClearMsg) handle(m *workbench) tea.Cmd {
	if msg.seq == m.statusSeq {
		m.status = ""
	}
	return nil
}

// handle reports an action on a memory and reloads what shows it.
func (msg actionDoneMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return msg.failed(m)
	}
	m.acted = msg.id
	switch msg.act {
	case actArchive:
		m.undoID = msg.id
	case actUnarchive:
		m.undoID = ""
	case actForget:
		m.detail.clear()
	case actSupersede:
		m.stack, m.mode = nil, modeBrowse
		m.detail.wantID = msg.mem.ID
		m.prefer = msg.mem.ID // the successor takes its predecessor's place in the list
		return tea.Batch(m.say(msg.said(m), false), m.reloadAll(), m.loadDetail(msg.mem.ID))
	case actLink:
		return tea.Batch(m.say(msg.said(m), false), m.loadDetail(msg.id))
	}
	cmds := []tea.Cmd{m.say(msg.said(m), false), m.reloadAll()}
	if msg.act.review() && m.detail.mem != nil && m.detail.mem.ID == msg.id {
		// A review keeps the version: the reloaded list would not refresh the detail.
		cmds = append(cmds, m.loadDetail(msg.id))
	}
	return tea.Batch(cmds...)
}

// failed says why the action failed (a memory forgotten elsewhere first
// is no failure: nothing was deleted twice).
func (msg actionDoneMsg) failed(m *workbench) tea.Cmd {
	if msg.act == actForget && errors.Is(msg.err, memory.ErrNotFound) {
		m.told = msg.id
		return tea.Batch(m.say("forgotten elsewhere already: "+m.sid(msg.id)+" — nothing was deleted", true), m.reloadAll())
	}
	text := fmt.Sprintf("%s failed: %s", msg.act.verb(), oneLine(msg.err.Error()))
	if _, ok := errors.AsType[*trust.UnresolvedError](msg.err); ok && msg.act == actConfirm {
		text += " — b rebinds it to what it is about now"
	}
	return m.say(text, true)
}

// said is what the status line says of the action done.
func (msg actionDoneMsg) said(m *workbench) string {
	switch msg.act {
	case actArchive:
		return fmt.Sprintf("archived %q — press u to undo", msg.mem.Title)
	case actUnarchive:
		return fmt.Sprintf("unarchived %q", msg.mem.Title)
	case actForget:
		return "forgot " + m.sid(msg.id) + " for good"
	case actSupersede:
		return fmt.Sprintf("superseded %s with %q", m.sid(msg.id), msg.mem.Title)
	case actRemember:
		if d := msg.mem.Dedup; d != nil && d.Reinforced != "" {
			return fmt.Sprintf("already known: reinforced %q (said %d times)", msg.mem.Title, msg.mem.Salience.Reinforcements+1)
		} else if d != nil && d.Near != "" {
			return fmt.Sprintf("remembered %q in %s", msg.mem.Title, msg.mem.Layer.Title()) + " — nearly the same as another memory: a merge proposal waits in the Inbox"
		}
		return fmt.Sprintf("remembered %q in %s", msg.mem.Title, msg.mem.Layer.Title())
	case actLink:
		return "linked"
	case actConfirm:
		return fmt.Sprintf("confirmed %q: trust restored", msg.mem.Title)
	case actRebind:
		return fmt.Sprintf("rebound %q", msg.mem.Title)
	case actReject:
		return fmt.Sprintf("rejected %q: write the corrected fact (s supersedes)", msg.mem.Title)
	}
	return ""
}
