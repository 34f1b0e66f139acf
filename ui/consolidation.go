package ui

import (
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"cairn/consolidate"
	"cairn/memory"
)

// The workbench's side of consolidation (DESIGN §5): the Inbox's keys —
// accept, reject, edit then accept, diff, drop a draft —, /consolidate
// with its progress and report, and /undo.

// rowsShown is how many items the inbox list shows at once.
func (i *inboxPane) rowsShown(m *workbench) int { return max(m.layout().list.h-3, 1) }

// The inbox's states: proposals marked, what the selection is.
var (
	inboxMarked cond = func(m *workbench) bool { return len(m.inbox.marked) > 0 }
	unmarked         = not(inboxMarked)
	inboxNone   cond = func(m *workbench) bool { return m.inbox.selected() == nil }
	inboxDraft  cond = func(m *workbench) bool { it := m.inbox.selected(); return it != nil && it.draft != nil }
	inboxGap    cond = func(m *workbench) bool { it := m.inbox.selected(); return it != nil && it.gap != nil }
	inboxProp   cond = func(m *workbench) bool { it := m.inbox.selected(); return it != nil && it.prop != nil }
	inSession   cond = func(m *workbench) bool { return m.inbox.session != "" }
	fromSession cond = func(m *workbench) bool {
		it := m.inbox.selected()
		return it != nil && it.draft != nil && it.draft.Source.Session != ""
	}
	archiveProp  cond = func(m *workbench) bool { return inboxProp(m) && m.inbox.selected().prop.Kind == memory.ProposeArchive }
	editedProp        = both(inboxProp, not(archiveProp))
	sessionDraft      = both(inboxDraft, inSession)
	anyDraft          = both(inboxDraft, not(inSession))
)

// inboxMove moves the inbox's cursor with by.
func inboxMove(by func(m *workbench, rows int) int) keyFn {
	return to(func(m *workbench) tea.Cmd {
		rows := m.inbox.rowsShown(m)
		m.inbox.move(by(m, rows), rows)
		return nil
	})
}

// inboxKeys are the Inbox's list's and detail's: the rows that act, then
// the footer's, which names the keys for what is selected.
var inboxKeys = slices.Concat(keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.inbox.pg.key(k); return nil }).when(onDetail),
}, cursorKeys(inboxMove, func(m *workbench) int { return len(m.inbox.items) }), keyTable{
	row(keys.Open, to(readItem)),
	row(keys.Next, to(readItem)),
	row(keys.Mark, to(func(m *workbench) tea.Cmd {
		if !m.inbox.toggleMark() {
			return m.say("space marks a proposal: drafts and gaps are not decided with a and w", true)
		}
		m.inbox.move(1, m.inbox.rowsShown(m))
		return nil
	})).when(onList),
	row(keys.MarkKind, to(func(m *workbench) tea.Cmd {
		kind, n, ok := m.inbox.markKind()
		if !ok {
			return m.say("* marks every proposal of the selected one's kind: select a proposal", true)
		}
		return m.say(fmt.Sprintf("%d marked (all %s) — a accepts, w rejects, esc unmarks", n, kind), false)
	})),
	row(keys.Back, to(func(m *workbench) tea.Cmd {
		m.inbox.marked = nil
		return m.say("unmarked every proposal", false)
	})).when(inboxMarked),
	row(keys.Back, to(func(m *workbench) tea.Cmd {
		m.inbox.session = "" // back to the whole inbox
		return m.selectSection(sectionInbox)
	})).when(both(onList, inSession)),
	row(keys.Session, to(openSessionEpisode)),
	row(keys.Prev, to(inboxBack)),
	row(keys.Back, to(inboxBack)),
	row(keys.Accept, to(func(m *workbench) tea.Cmd { return m.inbox.decideMany(m, m.inbox.markedIDs(), true) })).when(inboxMarked),
	row(keys.Reject, to(func(m *workbench) tea.Cmd { return m.inbox.decideMany(m, m.inbox.markedIDs(), false) })).when(inboxMarked),
	row(keys.Accept, inboxAct(func(m *workbench, it *inboxItem) tea.Cmd { return m.inbox.decide(m, it.prop.ID, true, nil) })),
	row(keys.Reject, inboxAct(func(m *workbench, it *inboxItem) tea.Cmd { return m.inbox.decide(m, it.prop.ID, false, nil) })),
	row(keys.EditCandidate, inboxAct(func(m *workbench, _ *inboxItem) tea.Cmd { return m.inbox.editProposal(m) })),
	row(keys.Diff, inboxAct(func(m *workbench, _ *inboxItem) tea.Cmd { return m.inbox.diff(m) })),
	row(keys.Forget, to(dropItem)),

	hint(keys.Up, onList),
	hint(keys.Up.as("scroll"), onDetail),
	hint(keys.Open, onList),
	hint(keys.Session.as("the episode"), both(unmarked, sessionDraft)),
	hint(keys.Session.as("its session's episode"), both(unmarked, both(anyDraft, fromSession))),
	hint(keys.Command.shown("/remember", "the answer"), both(unmarked, inboxGap)),
	hint(keys.Forget.as("drop the draft"), both(unmarked, inboxDraft)),
	hint(keys.Forget.as("close the gap"), both(unmarked, inboxGap)),
	hint(keys.Back.as("the whole inbox"), both(unmarked, sessionDraft)),
	hint(keys.Command.shown("/consolidate", "turns drafts into memories"), both(unmarked, anyDraft)),
	{b: keys.Accept, footer: either(inboxMarked, inboxProp), word: func(m *workbench) string {
		if n := len(m.inbox.marked); n > 0 {
			return fmt.Sprintf("accept the %d marked", n)
		}
		return "accept"
	}},
	{b: keys.Reject, footer: either(inboxMarked, inboxProp), word: func(m *workbench) string {
		if len(m.inbox.marked) > 0 {
			return "reject them"
		}
		return "reject"
	}},
	hint(keys.Mark, either(inboxMarked, inboxProp)),
	hint(keys.EditCandidate, both(unmarked, editedProp)),
	hint(keys.Diff, both(unmarked, editedProp)),
	hint(keys.Back.as("unmark all"), inboxMarked),
	hint(keys.Command.as("command (/consolidate)"), both(unmarked, inboxNone)),
	hint(keys.Back, both(onDetail, both(unmarked, not(sessionDraft)))),
	hint(keys.Command, both(unmarked, inboxProp)),
	hint(keys.Help, always),
})

// readItem gives the inbox's detail the keyboard, on the selected item.
func readItem(m *workbench) tea.Cmd {
	if m.inbox.selected() != nil {
		m.focus = focusDetail
	}
	return nil
}

// inboxBack goes from the detail to the list, from the list to the sidebar.
func inboxBack(m *workbench) tea.Cmd {
	if m.focus == focusDetail {
		m.focus = focusList
	} else {
		m.focus = focusSidebar
	}
	return nil
}

// openSessionEpisode selects the episode of the selected draft's session.
func openSessionEpisode(m *workbench) tea.Cmd {
	it := m.inbox.selected()
	if it == nil || it.draft == nil || it.draft.Source.Session == "" {
		return m.say("o opens an agent session's episode: select a draft that came from a session", true)
	}
	m.pending++
	return openEpisode(m.ctx, m.st, m.proj.ID, it.draft.Source.Session)
}

// dropItem asks before a draft is dropped; it closes a gap; a proposal
// is rejected, not dropped.
func dropItem(m *workbench) tea.Cmd {
	it := m.inbox.selected()
	switch {
	case it == nil:
		return nil
	case it.prop != nil:
		return m.say("a proposal is not dropped: w rejects it (it is not made again)", true)
	case it.gap != nil:
		m.pending++
		return dropGap(m.ctx, m.st, m.proj.ID, it.gap.ID)
	}
	m.pending++
	return readDraft(m.ctx, m.st, m.proj.ID, it.draft.ID)
}

// inboxAct is a key acting on the selected proposal; on a draft or a gap
// it says what that takes instead.
func inboxAct(act func(*workbench, *inboxItem) tea.Cmd) keyFn {
	return to(func(m *workbench) tea.Cmd {
		it := m.inbox.selected()
		switch {
		case it == nil:
			return nil
		case it.draft != nil:
			return m.say("a draft is not decided one by one: /consolidate turns the drafts into memories (x drops this one)", true)
		case it.gap != nil:
			return m.say("a gap is answered by remembering what you know: /remember TEXT (x closes it)", true)
		}
		return act(m, it)
	})
}

// decide accepts or rejects proposal id (accepting with the person's
// version of the candidate when edited is not nil).
func (p *inboxPane) decide(m *workbench, id string, accept bool, edited *memory.Memory) tea.Cmd {
	m.pending++
	return decide(m.ctx, m.st, m.proj, id, accept, edited)
}

// decideMany accepts or rejects the proposals ids, one run each.
func (p *inboxPane) decideMany(m *workbench, ids []string, accept bool) tea.Cmd {
	m.pending++
	return decideMany(m.ctx, m.st, m.proj, ids, accept)
}

// editProposal opens the editor on the selected proposal's candidate.
func (p *inboxPane) editProposal(m *workbench) tea.Cmd {
	it := p.selected()
	if it == nil || it.prop == nil {
		return nil
	}
	if it.prop.Kind == memory.ProposeArchive {
		return m.say("an archive proposal has nothing to edit: a accepts it, w rejects it", true)
	}
	cand := it.candidate()
	if cand == nil {
		return m.say("the memory it proposes was forgotten since: w rejects the proposal", true)
	}
	if _, ok := m.stack.top().(*diffView); ok {
		m.stack.pop() // the editor takes the proposal's diff's place
	}
	e := newEditor(cand, m.theme.Dark)
	e.proposal, e.about = it.prop.ID, it.target
	m.stack.push(e)
	return e.ta.Focus()
}

// diff opens a merge or supersede proposal in the diff view: the
// memory it is about against what would take its place.
func (p *inboxPane) diff(m *workbench) tea.Cmd {
	it := p.selected()
	if it == nil || it.prop == nil {
		return nil
	}
	pr := it.prop
	if pr.Kind != memory.ProposeMerge && pr.Kind != memory.ProposeSupersede {
		return m.say(fmt.Sprintf("a %s proposal has nothing to compare: enter reads it", pr.Kind), true)
	}
	cand := it.candidate()
	if it.target == nil || cand == nil {
		return m.say("one of its memories was forgotten since: nothing to compare — w rejects the proposal", true)
	}
	if pr.Memory != nil {
		c := *cand
		c.ID = "" // a candidate: shown as not stored yet
		cand = &c
	}
	d := newDiff([]*memory.Memory{it.target, cand}, 0, 1, "proposed "+string(pr.Kind)+": a accepts, w rejects")
	d.proposal = pr.ID
	m.stack.push(d)
	return nil
}

// consolidateDrafts starts a pass over the project's drafts (dry: only report).
func consolidateDrafts(m *workbench, dry bool) (tea.Cmd, error) {
	if m.sleeping != nil {
		return nil, fmt.Errorf("a consolidation is already running: its report comes when it ends")
	}
	opt := consolidate.Options{DryRun: dry, AskedBy: memory.ActorUser, Now: m.now}
	if svc := m.trust(); svc != nil {
		opt.Bind = svc.BindMany
	}
	m.pending++
	m.progress = "consolidating"
	m.sleeping = &consolidation{} // a placeholder until the pass answers: one at a time
	return startConsolidation(m.ctx, m.st, m.proj, opt, m.opt.LLM), nil
}

// takeBack takes back run ref (an id or a unique prefix; "" is the last run
// this workbench made).
func takeBack(m *workbench, ref string) (tea.Cmd, error) {
	if ref == "" && len(m.lastBatch) > 0 {
		batch := m.lastBatch
		m.pending++
		return undoRuns(m.ctx, m.st, m.proj, batch), nil
	}
	if ref == "" {
		if m.lastRun == "" {
			return nil, fmt.Errorf("/undo RUN: give the id of the run to take back (cairn consolidate --runs lists them)")
		}
		ref = m.lastRun
	}
	m.pending++
	return undoRun(m.ctx, m.st, m.proj, ref), nil
}

// progressText is a pass's progress in words: "extracting 120/400".
func progressText(p consolidate.Progress) string {
	if p.Total <= 0 {
		return p.Stage
	}
	return fmt.Sprintf("%s %d/%d", p.Stage, p.Done, p.Total)
}

// The answers of the inbox's and the consolidation's commands.

func (msg inboxLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID {
		return nil
	}
	if msg.err != nil {
		return m.fail("read the inbox", msg.err)
	}
	if msg.session == "" {
		m.tally.inbox = msg.count
	}
	if msg.req >= 0 && msg.req == m.reqSeq && m.section == sectionInbox && msg.session == m.inbox.session {
		m.inbox.set(msg.items)
	}
	return nil
}

func (msg episodeFoundMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if errors.Is(msg.err, memory.ErrNotFound) {
		return m.say("session "+shortSession(msg.session)+" has no episode (forgotten, or its drafts were not read by cairn ingest)", true)
	}
	if msg.err != nil {
		return m.fail("find the session's episode", msg.err)
	}
	m.prefer, m.focus = msg.id, focusList
	return m.selectSection(layerSection(memory.LayerEpisode)) // the episode selected
}

func (msg draftTextMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return tea.Batch(m.fail("read the draft to drop", msg.err), m.reloadAll())
	}
	m.drop = &dropDialog{draft: msg.draft}
	return nil
}

func (msg gapDroppedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.say("close failed: "+oneLine(msg.err.Error()), true)
	}
	return tea.Batch(m.say("closed the gap "+msg.id, false), m.reloadAll())
}

func (msg feedbackMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.say("feedback failed: "+oneLine(msg.err.Error()), true)
	}
	verdict := "unhelpful: similar queries will find it lower"
	if msg.helpful {
		verdict = "helpful: similar queries will find it sooner"
	}
	return m.say("noted "+m.sid(msg.id)+" as "+verdict+" (trust unchanged)", false)
}

func (msg draftDroppedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.say("drop failed: "+oneLine(msg.err.Error()), true)
	}
	return tea.Batch(m.say("dropped draft "+short(msg.id)+" for good", false), m.reloadAll())
}

func (msg decidedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		verb := "reject"
		if msg.accepted {
			verb = "accept"
		}
		return m.say(fmt.Sprintf("%s failed: %s", verb, oneLine(msg.err.Error())), true)
	}
	m.stack.remove(func(o overlay) bool { // the proposal's editor and diffs
		e, isEditor := o.(*editorPane)
		d, isDiff := o.(*diffView)
		return isEditor && e.proposal == msg.id || isDiff && d.proposal == msg.id
	})
	text := "rejected: it will not be proposed again"
	if msg.accepted {
		text = "accepted"
		if msg.text != "" {
			text += ": " + msg.text
		}
	}
	m.lastRun, m.lastBatch = msg.run.ID, nil
	return tea.Batch(m.say(text+" — /undo takes it back", false), m.reloadAll())
}

func (msg decidedManyMsg) handle(m *workbench) tea.Cmd {
	m.done()
	verb := "rejected"
	if msg.accepted {
		verb = "accepted"
	}
	for _, id := range msg.ids {
		delete(m.inbox.marked, id)
	}
	if len(msg.runs) > 0 {
		m.lastRun, m.lastBatch = msg.runs[len(msg.runs)-1], msg.runs
	}
	text := fmt.Sprintf("%s %s — /undo takes them back", verb, plural(len(msg.ids), "proposal"))
	if msg.err != nil {
		text = fmt.Sprintf("%s %s; then failed: %s (still marked)", verb, plural(len(msg.ids), "proposal"), oneLine(msg.err.Error()))
	}
	return tea.Batch(m.say(text, msg.err != nil), m.reloadAll())
}

func (msg consolidationStartedMsg) handle(m *workbench) tea.Cmd {
	m.sleeping = msg.c
	return waitConsolidation(msg.c)
}

func (msg consolidationProgressMsg) handle(m *workbench) tea.Cmd {
	if msg.c == m.sleeping {
		m.progress = progressText(msg.p)
	}
	return waitConsolidation(msg.c)
}

func (msg consolidatedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	m.sleeping, m.progress = nil, ""
	if msg.err != nil {
		return tea.Batch(m.say("consolidate failed: "+oneLine(msg.err.Error()), true), m.reloadAll())
	}
	rep := msg.rep
	report := &reportPane{title: "Consolidation", lines: msg.lines}
	var text string
	switch {
	case rep.DryRun:
		report.title = "Consolidation, dry run: nothing was written"
		text = "dry run, nothing written — " + rep.Summary()
	case rep.Run.ID == "":
		text = "consolidated " + rep.Summary()
	default:
		report.title = "Consolidation run " + rep.Run.ID
		m.lastRun, m.lastBatch = rep.Run.ID, nil
		text = "consolidated " + rep.Summary() + " — /undo takes it back"
	}
	if rep.Changed() || len(rep.Dropped) > 0 {
		if _, ok := m.stack.top().(*reportPane); ok {
			m.stack.pop() // the new report in the old one's place
		}
		m.stack.push(report)
	}
	return tea.Batch(m.say(text, false), m.reloadAll())
}

func (msg undoneMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil && msg.runs > 0 {
		m.lastRun, m.lastBatch = "", nil
		return tea.Batch(m.say(fmt.Sprintf("undid %d runs, then failed: %s", msg.runs, oneLine(msg.err.Error())), true), m.reloadAll())
	}
	if msg.err != nil {
		return m.say("undo failed: "+oneLine(msg.err.Error()), true)
	}
	if msg.run.ID == m.lastRun || msg.runs > 1 {
		m.lastRun, m.lastBatch = "", nil // a run is undone once
	}
	if msg.runs > 1 {
		return tea.Batch(m.say(fmt.Sprintf("undid %d runs: the decisions on %s taken back", msg.runs, plural(msg.runs, "proposal")), msg.err != nil), m.reloadAll())
	}
	n := 0
	for _, c := range msg.run.Changes {
		if c.Kind != memory.ChangeDraftDone {
			n++
		}
	}
	return tea.Batch(m.say(fmt.Sprintf("undid run %s: %s taken back", short(msg.run.ID), plural(n, "change")), false), m.reloadAll())
}
