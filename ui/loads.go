package ui

import (
	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
)

// What the workbench reads from the store, in commands: the counts, the
// current section's page, the memory in the detail.

// load fetches what the first frame shows: counts, the first page (and
// through it the selected memory) and the project list.
func (m *workbench) load() tea.Cmd {
	return tea.Batch(m.reloadAll(), loadProjects(m.ctx, m.st), m.loadMirror())
}

// loadMirror reads where the project's memories stand against its team
// mirror (Options.MirrorStatus), in the background.
func (m *workbench) loadMirror() tea.Cmd {
	if m.opt.MirrorStatus == nil || m.proj.ID == memory.GlobalID {
		return nil
	}
	return loadMirrorStatus(m.ctx, m.opt.MirrorStatus, m.proj)
}

// reloadAll refreshes counts and the current section.
func (m *workbench) reloadAll() tea.Cmd {
	m.pending++
	cmds := []tea.Cmd{loadCounts(m.ctx, m.st, m.proj.ID), m.loadSection(false)}
	if m.section != sectionVerify {
		cmds = append(cmds, m.loadVerify(-1)) // keeps the sidebar's count current
	}
	if m.section != sectionInbox {
		cmds = append(cmds, m.countInbox())
	}
	if m.section != sectionRepo {
		cmds = append(cmds, m.countRepo())
	}
	return tea.Batch(cmds...)
}

// countRepo reads how many modules the repository's index holds, for the sidebar.
func (m *workbench) countRepo() tea.Cmd {
	m.pending++
	return loadRepoSummary(m.ctx, m.st, m.proj.ID, -1)
}

// countInbox reads how many drafts and proposals wait, for the sidebar.
func (m *workbench) countInbox() tea.Cmd {
	m.pending++
	return loadInbox(m.ctx, m.st, m.proj.ID, -1)
}

// loadVerify wakes the project and reads its verify-first queue; req is
// the list request it answers (-1: only the count).
func (m *workbench) loadVerify(req int) tea.Cmd {
	if m.opt.Trust == nil {
		return nil
	}
	m.pending++
	return loadQueue(m.ctx, m.opt.Trust(m.proj), m.proj.ID, req)
}

// query is the store query of the current section.
func (m *workbench) query() memory.Query {
	q := memory.Query{Project: m.proj.ID}
	switch {
	case m.section < sectionVerify:
		q.Layer, _ = m.section.layer()
	case m.section == sectionArchived:
		q.Status = memory.StatusArchived
	case m.section == sectionSuperseded:
		q.Status = memory.StatusSuperseded
	}
	if m.list.inStore {
		q.Match = m.list.filter
	}
	return q
}

// loadSection asks for the first (or next) page of the current section.
func (m *workbench) loadSection(more bool) tea.Cmd {
	if m.section == sectionTimeline {
		m.pending++
		return loadTimeline(m.ctx, m.st, m.proj.ID)
	}
	if m.section == sectionRepo {
		return m.repo.load(m)
	}
	if !more {
		m.reqSeq++
	}
	if m.section == sectionInbox {
		m.pending++
		return loadSessionInbox(m.ctx, m.st, m.proj.ID, m.inbox.session, m.reqSeq)
	}
	if m.section == sectionVerify {
		if m.opt.Trust == nil {
			m.list.set(nil, "", false, "")
			return nil
		}
		return m.loadVerify(m.reqSeq)
	}
	q := m.query()
	if more {
		q.After = m.list.next
	}
	m.pending++
	return loadPage(m.ctx, m.st, m.reqSeq, q, more)
}

// openSelected loads the detail of the list's selection.
func (m *workbench) openSelected() tea.Cmd {
	sel := m.list.selected()
	if sel == nil {
		m.detail.clear()
		return nil
	}
	if m.detail.mem != nil && m.detail.mem.ID == sel.ID && m.detail.mem.Version == sel.Version && m.detail.mem.Status == sel.Status {
		return nil
	}
	return m.loadDetail(sel.ID)
}

func (m *workbench) loadDetail(id string) tea.Cmd {
	m.detail.wantID = id
	m.pending++
	_, known := m.shorts[id]
	return loadMemory(m.ctx, m.st, id, known)
}

// renderDetail renders the shown memory's body for the current width, unless cached.
func (m *workbench) renderDetail() tea.Cmd {
	if m.mode == modeRepo {
		return m.repo.render(m)
	}
	if m.detail.mem == nil || m.w == 0 {
		return nil
	}
	k := renderKey{id: m.detail.mem.ID, version: m.detail.mem.Version, width: m.detailWidth(), theme: m.theme.Name}
	if _, ok := m.detail.rendered[k]; ok {
		return nil
	}
	return render(k, safetext.Clean(m.detail.mem.Body), m.theme)
}
