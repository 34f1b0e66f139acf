package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
)

// The key tables of the workbench's views: each row carries its binding,
// where it applies, why it may do nothing now, what it does and when the
// footer names it. key dispatches through them, the footer is read from
// them and the help screen lists their bindings.

// keyTables are the tables that take a key now, the first first; the last
// is what the footer names.
func (m *workbench) keyTables() []keyTable {
	switch {
	case m.forget != nil:
		return []keyTable{forgetKeys}
	case m.drop != nil:
		return []keyTable{dropKeys}
	case m.repl.active:
		return []keyTable{replKeys}
	case m.stack.top() != nil:
		return []keyTable{m.stack.top().keys()}
	case m.list.filtering:
		return []keyTable{listFilterKeys}
	case m.mode == modeRepo && m.repo.typing && m.focus != focusSidebar:
		return []keyTable{repoFilterKeys}
	}
	return []keyTable{globalKeys, paneKeys(m)}
}

// paneKeys is the table of the pane that has the keyboard.
func paneKeys(m *workbench) keyTable {
	switch {
	case m.focus == focusSidebar:
		return sidebarKeys
	case m.mode == modeInbox:
		return inboxKeys
	case m.mode == modeRepo:
		return repoKeys
	case m.mode == modeTimeline:
		return timelineKeys
	case m.focus == focusDetail:
		return detailKeys
	}
	return listKeys
}

// noProject is why a key or a command that needs a project's trust service
// does nothing ("" when the workbench has one).
func noProject(m *workbench, what string) string {
	if m.opt.Trust != nil {
		return ""
	}
	return what + " needs the workbench opened on a project (cairn)"
}

func needsProject(what string) func(*workbench) string {
	return func(m *workbench) string { return noProject(m, what) }
}

// The conditions the tables ask.
var (
	inRecall     cond = func(m *workbench) bool { return m.mode == modeRecall }
	inWhy        cond = func(m *workbench) bool { return m.mode == modeWhy }
	inResults    cond = func(m *workbench) bool { return m.mode == modeRecall || m.mode == modeWhy }
	inVerifyList cond = func(m *workbench) bool { return m.section == sectionVerify && m.mode == modeBrowse }
	inPlainList  cond = func(m *workbench) bool { return !inResults(m) && !inVerifyList(m) }
	onDetail     cond = func(m *workbench) bool { return m.focus == focusDetail }
	onList       cond = not(onDetail)
)

// to is a key that does f and nothing more.
func to(f func(*workbench) tea.Cmd) keyFn {
	return func(m *workbench, _ tea.KeyPressMsg) tea.Cmd { return f(m) }
}

// goSection moves the list to section s.
func goSection(s section) keyFn {
	return func(m *workbench, _ tea.KeyPressMsg) tea.Cmd {
		m.focus = focusList
		return m.selectSection(s)
	}
}

func quit(m *workbench) tea.Cmd {
	m.stop()
	return tea.Quit
}

func toSidebar(m *workbench) tea.Cmd {
	m.focus = focusSidebar
	return nil
}

// globalKeys work wherever a pane has the keyboard.
var globalKeys = keyTable{
	row(keys.Quit, to(quit)),
	row(keys.Command, to(func(m *workbench) tea.Cmd { return m.repl.open("") })),
	row(keys.Help, to(func(m *workbench) tea.Cmd { m.stack.push(&helpView{}); return nil })),
	row(keys.Layer, func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
		m.focus = focusList
		return m.selectSection(section(k.String()[0] - '1'))
	}),
	row(keys.Timeline, goSection(sectionTimeline)),
	row(keys.Verify, goSection(sectionVerify)),
	row(keys.Inbox, func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
		m.inbox.session = ""
		return goSection(sectionInbox)(m, k)
	}),
	row(keys.Calibration, to(func(m *workbench) tea.Cmd { return openCalibration(m) })).unless(needsProject("calibration")),
	row(keys.Explain, to(func(m *workbench) tea.Cmd { m.showExplain = !m.showExplain; return nil })).when(inRecall),
	row(keys.Helpful, helpful(true)).when(inRecall),
	row(keys.Unhelpful, helpful(false)).when(inRecall),
	row(keys.Reload, to(func(m *workbench) tea.Cmd { return tea.Batch(m.reloadAll(), loadProjects(m.ctx, m.st)) })),
}

// helpful records whether the selected recall result helped.
func helpful(yes bool) keyFn {
	return to(func(m *workbench) tea.Cmd {
		sel := m.list.selected()
		if sel == nil {
			return nil
		}
		m.pending++
		return feedback(m.ctx, m.st, sel.ID, m.recallWords, yes)
	})
}

// sidebarKeys move between sections.
var sidebarKeys = keyTable{
	row(keys.Up.as("section"), to(func(m *workbench) tea.Cmd { return m.selectSection(m.section - 1) })).named(always),
	row(keys.Down, to(func(m *workbench) tea.Cmd { return m.selectSection(m.section + 1) })),
	row(keys.Open.shown("enter/→", "open"), to(toList)).named(always),
	row(keys.Next, to(toList)),
	hint(keys.Layer, always), hint(keys.Command, always), hint(keys.Help, always), hint(keys.Quit, always),
}

func toList(m *workbench) tea.Cmd {
	m.focus = focusList
	return nil
}

// timelineKeys scroll the timeline.
var timelineKeys = slices.Concat(keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.tl.pg.key(k); return nil }).named(always),
	row(keys.Next.as("sidebar"), to(toSidebar)).named(always),
	row(keys.Prev, to(toSidebar)),
	row(keys.Back, to(toSidebar)),
	hint(keys.Command, always), hint(keys.Help, always), hint(keys.Quit, always),
}, memoryKeys(nil))

// listMove moves the list's cursor with by (given the rows that show);
// moving down may load the next page.
func listMove(by func(m *workbench, rows int) int, down bool) keyFn {
	return to(func(m *workbench) tea.Cmd {
		rows := m.listRows()
		m.list.move(by(m, rows), rows)
		if down {
			return tea.Batch(m.openSelected(), m.morePages())
		}
		return m.openSelected()
	})
}

// cursorKeys move a list's cursor: a row, a page, to either end (n: how
// many rows it has); mv makes the key that moves it by a step.
func cursorKeys(mv func(by func(m *workbench, rows int) int) keyFn, n func(*workbench) int) keyTable {
	return keyTable{
		row(keys.Up, mv(rowUp)),
		row(keys.Down, mv(rowDown)),
		row(keys.PageUp, mv(pageUp)),
		row(keys.PageDown, mv(pageDown)),
		row(keys.Top, mv(func(m *workbench, _ int) int { return -n(m) })),
		row(keys.Bottom, mv(func(m *workbench, _ int) int { return n(m) })),
	}
}

// The steps of the lists: a row, a page, to either end.
var (
	rowUp    = func(*workbench, int) int { return -1 }
	rowDown  = func(*workbench, int) int { return 1 }
	pageUp   = func(_ *workbench, rows int) int { return -rows }
	pageDown = func(_ *workbench, rows int) int { return rows }
)

// listKeys are the memory list's: the recall and /why results, the
// verify-first queue and a layer's list name different keys in the footer.
var listKeys = slices.Concat(keyTable{
	row(keys.Up, listMove(rowUp, false)).named(always),
	row(keys.Down, listMove(rowDown, true)),
	row(keys.PageUp, listMove(pageUp, false)),
	row(keys.PageDown, listMove(pageDown, true)),
	row(keys.Top, listMove(func(m *workbench, _ int) int { return -len(m.list.items) }, false)),
	row(keys.Bottom, listMove(func(m *workbench, _ int) int { return len(m.list.items) }, true)),
	row(keys.Open.as("its own reasons"), to(whyOpen)).when(inWhy).named(always),
	row(keys.Open, to(openDetail)).named(not(inWhy)),
	row(keys.Next, to(openDetail)),
	hint(keys.Explain, inRecall), hint(keys.Helpful, inRecall), hint(keys.Unhelpful, inRecall),
	row(keys.Back, to(leaveResults)).when(inResults).named(always),
	row(keys.Back, to(toSidebar)),
	row(keys.Prev, to(toSidebar)),
	hint(keys.Command, not(inVerifyList)),
}, memoryKeys(inPlainList), keyTable{
	row(keys.Filter, to(func(m *workbench) tea.Cmd { m.list.filtering = true; return nil })).named(inPlainList),
	hint(keys.Calibration, inVerifyList),
	hint(keys.Help, always),
})

// openDetail gives the detail pane the keyboard, on the selection.
func openDetail(m *workbench) tea.Cmd {
	if m.list.selected() == nil {
		return nil
	}
	m.focus = focusDetail
	return tea.Batch(m.openSelected(), m.renderDetail())
}

// whyOpen walks /why's tree: the selected memory's own reasons (the root
// opens in the detail).
func whyOpen(m *workbench) tea.Cmd {
	if sel := m.list.selected(); sel != nil && m.list.cursor > 0 {
		m.pending++
		return loadWhy(m.ctx, m.st, sel.ID)
	}
	return openDetail(m)
}

// leaveResults goes from recall's or /why's results back to the section.
func leaveResults(m *workbench) tea.Cmd {
	m.recallQuery, m.whyRoot, m.list.prefix = "", "", nil
	return m.selectSection(m.section)
}

// detailKeys read the memory in the detail pane and follow its links.
var detailKeys = slices.Concat(keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.detail.pg.key(k); return nil }),
	row(keys.NextLink, to(func(m *workbench) tea.Cmd { m.detail.stepLink(1, m.sid); return nil })).named(always),
	row(keys.PrevLink, to(func(m *workbench) tea.Cmd { m.detail.stepLink(-1, m.sid); return nil })),
	row(keys.Open.as("follow"), to(followLink)).named(always),
	row(keys.Back, to(backToList)).named(always),
	row(keys.Prev, to(backToList)),
}, memoryKeys(nil))

// followLink opens the memory of the selected link.
func followLink(m *workbench) tea.Cmd {
	links := m.detail.links(m.sid)
	if m.detail.link < 0 || m.detail.link >= len(links) {
		return nil
	}
	target := links[m.detail.link].id
	m.detail.link = -1
	return m.loadDetail(target)
}

// backToList gives the list the keyboard again, its selection in the detail.
func backToList(m *workbench) tea.Cmd {
	m.focus = focusList
	if sel := m.list.selected(); sel != nil && (m.detail.mem == nil || m.detail.mem.ID != sel.ID) {
		return m.loadDetail(sel.ID)
	}
	return nil
}

// memoryKeys act on the memory in view (the detail's, else the list's
// selection). In the list (plain: a layer's list) the footer names them in
// one order, in the verify-first queue in another; in the detail pane
// (plain nil) in a third.
func memoryKeys(plain cond) keyTable {
	if plain == nil {
		detail := cond(func(m *workbench) bool { return m.mode != modeTimeline })
		return keyTable{
			onMemory(keys.Diff, diffKey).named(detail),
			onMemory(keys.Supersede, supersedeKey).named(detail),
			onMemory(keys.Archive, archiveKey).named(detail),
			onMemory(keys.Forget, forgetKey).named(detail),
			hint(keys.Command, detail), hint(keys.Help, detail),
			row(keys.Session, to(sessionKey)),
			row(keys.Unarchive, to(unarchiveKey)),
			onMemory(keys.Confirm, confirmKey).unless(needsProject("confirm")),
			onMemory(keys.Reject, rejectKey).unless(needsProject("reject")),
			onMemory(keys.Rebind, rebindKey),
		}
	}
	return keyTable{
		onMemory(keys.Confirm, confirmKey).unless(needsProject("confirm")).named(inVerifyList),
		onMemory(keys.Reject, rejectKey).unless(needsProject("reject")).named(inVerifyList),
		onMemory(keys.Archive, archiveKey).named(plain),
		row(keys.Unarchive, to(unarchiveKey)).named(plain),
		onMemory(keys.Supersede, supersedeKey).named(either(plain, inVerifyList)),
		onMemory(keys.Rebind, rebindKey).named(inVerifyList),
		hint(keys.Archive, inVerifyList),
		onMemory(keys.Forget, forgetKey).named(plain),
		onMemory(keys.Diff, diffKey).named(plain),
		row(keys.Session, to(sessionKey)),
	}
}

// either is the condition that a or b holds.
func either(a, b cond) cond { return func(m *workbench) bool { return a(m) || b(m) } }

// onMemory is a row acting on the memory in view (none: nothing happens).
func onMemory(b binding, f func(*workbench, *memory.Memory) tea.Cmd) keyRow {
	return row(b, to(func(m *workbench) tea.Cmd {
		if cur := m.current(); cur != nil {
			return f(m, cur)
		}
		return nil
	}))
}

func sessionKey(m *workbench) tea.Cmd {
	cur := m.current()
	if cur == nil || !strings.HasPrefix(cur.Ref, "session:") {
		return m.say("o opens the drafts of an agent session: select its episode (layer C, read in by cairn ingest or the hooks)", true)
	}
	m.inbox.session, m.focus = strings.TrimPrefix(cur.Ref, "session:"), focusList
	return m.selectSection(sectionInbox)
}

func unarchiveKey(m *workbench) tea.Cmd {
	id := m.undoID
	if cur := m.current(); cur != nil && cur.Status == memory.StatusArchived {
		id = cur.ID
	}
	if id == "" {
		return m.say("nothing to unarchive: select an archived memory (sidebar: Archived)", true)
	}
	m.pending++
	return unarchive(m.ctx, m.st, id)
}

func archiveKey(m *workbench, cur *memory.Memory) tea.Cmd {
	if cur.Status != memory.StatusActive {
		return m.say(fmt.Sprintf("%s is %s: only active memories can be archived", m.sid(cur.ID), cur.Status), true)
	}
	m.pending++
	return archive(m.ctx, m.st, cur.ID)
}

func forgetKey(m *workbench, cur *memory.Memory) tea.Cmd {
	m.pending++
	return readForForget(m.ctx, m.st, cur.ID)
}

func supersedeKey(m *workbench, cur *memory.Memory) tea.Cmd { return m.startSupersede(cur, "") }

func diffKey(m *workbench, cur *memory.Memory) tea.Cmd {
	m.pending++
	return loadDiff(m.ctx, m.st, cur)
}

func confirmKey(m *workbench, cur *memory.Memory) tea.Cmd {
	m.pending++
	return confirm(m.ctx, m.opt.Trust(m.proj), cur)
}

func rejectKey(m *workbench, cur *memory.Memory) tea.Cmd { return rejectRef(m, cur.ID) }

func rebindKey(m *workbench, _ *memory.Memory) tea.Cmd { return m.repl.open("rebind ") }

// The keys of the views that take the keyboard for a while.

var forgetKeys = askKeys(keys.Yes, func(m *workbench) tea.Cmd {
	id := m.forget.mem.ID
	m.forget = nil
	m.pending++
	return forget(m.ctx, m.st, id)
}, func(m *workbench) tea.Cmd {
	m.forget = nil
	return m.say("kept: nothing was deleted", false)
})

var dropKeys = askKeys(keys.Yes.as("drop"), func(m *workbench) tea.Cmd {
	id := m.drop.draft.ID
	m.drop = nil
	m.pending++
	return dropDraft(m.ctx, m.st, id)
}, func(m *workbench) tea.Cmd {
	m.drop = nil
	return m.say("kept: the draft still waits", false)
})

// askKeys are a dialog's that asks before a deletion: y does it, n, esc
// or enter (the default: No) keep, and every other key does nothing.
func askKeys(yes binding, do, keep func(*workbench) tea.Cmd) keyTable {
	return keyTable{
		row(yes, to(do)).named(always),
		row(keys.No, to(keep)).named(always),
		{typing: true, do: func(*workbench, tea.KeyPressMsg) tea.Cmd { return nil }},
	}
}

// replKeys are the command line's.
var replKeys = keyTable{
	row(keys.Open.as("run"), to(runLine)).named(always),
	row(keys.Complete, to(func(m *workbench) tea.Cmd { return m.completeLine() })).named(always),
	row(keys.ArrowUp, to(func(m *workbench) tea.Cmd { m.repl.historyMove(-1); return nil })).named(always),
	row(keys.ArrowDown, to(func(m *workbench) tea.Cmd { m.repl.historyMove(1); return nil })),
	row(keys.Back.as("close"), to(func(m *workbench) tea.Cmd { m.repl.close(); return nil })).named(always),
	{typing: true, do: func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
		m.repl.hint = ""
		return m.repl.update(k)
	}},
}

// runLine runs the command line's command; an error stays under a clean
// line, and ↑ brings the command back to fix.
func runLine(m *workbench) tea.Cmd {
	line := m.repl.in.Value()
	keep := m.repl.remember(line)
	cmd, err := runCommand(m, line)
	if err != nil {
		m.repl.in.SetValue("")
		m.repl.hpos = len(m.repl.history)
		m.repl.hint, m.repl.hintBad = err.Error(), true
		return keep
	}
	m.repl.close()
	return tea.Batch(keep, cmd)
}

// filterKeys are a filter line's: what it edits (its text and whether
// one is typing), how the cursor moves, and what follows a change.
func filterKeys(get func(*workbench) (*string, *bool), move func(*workbench, int), after func(*workbench, string) tea.Cmd) keyTable {
	edit := func(f func(m *workbench, text *string, typing *bool, k tea.KeyPressMsg)) keyFn {
		return func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
			text, typing := get(m)
			was := *text
			f(m, text, typing, k)
			return after(m, was)
		}
	}
	return keyTable{
		{b: keys.Type, typing: true, footer: always, do: edit(func(_ *workbench, text *string, _ *bool, k tea.KeyPressMsg) {
			if t := k.Text; t != "" {
				*text += t
			} else if keys.Space.matches(k) {
				*text += " "
			}
		})},
		row(keys.Open.as("keep"), edit(func(_ *workbench, _ *string, typing *bool, _ tea.KeyPressMsg) { *typing = false })).named(always),
		row(keys.Back.as("clear"), edit(func(_ *workbench, text *string, typing *bool, _ tea.KeyPressMsg) { *text, *typing = "", false })).named(always),
		row(keys.Erase, edit(func(_ *workbench, text *string, _ *bool, _ tea.KeyPressMsg) {
			if r := []rune(*text); len(r) > 0 {
				*text = string(r[:len(r)-1])
			}
		})),
		row(keys.ArrowUp, edit(func(m *workbench, _ *string, _ *bool, _ tea.KeyPressMsg) { move(m, -1) })),
		row(keys.ArrowDown, edit(func(m *workbench, _ *string, _ *bool, _ tea.KeyPressMsg) { move(m, 1) })),
	}
}

var listFilterKeys = filterKeys(
	func(m *workbench) (*string, *bool) { return &m.list.filter, &m.list.filtering },
	func(m *workbench, d int) { m.list.move(d, m.listRows()) },
	listFiltered)

// listFiltered narrows the list after its filter changed from was.
func listFiltered(m *workbench, was string) tea.Cmd {
	m.list.cursor = clamp(m.list.cursor, 0, max(len(m.list.visible())-1, 0))
	if m.list.filter == was {
		return m.openSelected()
	}
	// The loaded rows narrow at once; when the section has more than was
	// loaded, the store is asked for every match (its answer replaces the
	// rows; a later keystroke's request supersedes an earlier one).
	if m.list.next != "" && m.mode == modeBrowse && m.section != sectionVerify && m.section != sectionInbox {
		m.list.inStore = true
	}
	if !m.list.inStore {
		return m.openSelected()
	}
	if m.list.filter == "" {
		m.list.inStore = false // the section's own pages again
	}
	load := m.loadSection(false)
	m.filterReq = m.reqSeq // what leaves the list was filtered out, not changed elsewhere
	return tea.Batch(m.openSelected(), load)
}

// editorKeys are the supersede editor's (and a proposal's candidate's).
var editorKeys = keyTable{
	{b: keys.Review, do: to(func(m *workbench) tea.Cmd { return m.reviewEdit() }), footer: always, word: func(m *workbench) string {
		if m.stack.editor().proposal != "" {
			return "diff, then enter accepts"
		}
		return "diff"
	}},
	row(keys.Edit, to(func(m *workbench) tea.Cmd { return writeEditFile(m.stack.editor().ta.Value()) })).named(always),
	row(keys.Back.as("cancel"), to(cancelEdit)).named(always),
	{typing: true, do: func(m *workbench, k tea.KeyPressMsg) tea.Cmd { return m.stack.editor().edit(k) }},
}

func cancelEdit(m *workbench) tea.Cmd {
	text := "supersede cancelled: nothing was stored"
	if m.stack.editor().proposal != "" {
		text = "edit cancelled: the proposal still waits"
	}
	m.stack.pop()
	return m.say(text, false)
}

// helpKeys scroll and close the help screen.
var helpKeys = keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.stack.top().(*helpView).pg.key(k); return nil }).named(always),
	row(keys.Close.as("close help"), to(closeTop)).named(always),
	row(keys.Help, to(closeTop)),
}

// calibrationKeys scroll or close the calibration pane, or go on to the
// verify-first queue.
var calibrationKeys = keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.stack.top().(*calibrationPane).pg.key(k); return nil }).named(always),
	row(keys.Verify.as("verify-first queue"), func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
		return goSection(sectionVerify)(m, k)
	}).named(always),
	row(keys.Close.as("close calibration"), to(closeTop)).named(always),
	row(keys.Calibration, to(closeTop)),
}

// reportKeys scroll a consolidation's report, or go on to the inbox.
var reportKeys = keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.stack.top().(*reportPane).pg.key(k); return nil }).named(always),
	row(keys.Inbox, func(m *workbench, k tea.KeyPressMsg) tea.Cmd {
		return goSection(sectionInbox)(m, k)
	}).named(always),
	row(keys.Command, to(func(m *workbench) tea.Cmd { return m.repl.open("") })).named(always),
	row(keys.Close, to(closeTop)).named(always),
}
