package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
)

// The command line's commands: each is the function its registry row
// names (commands.go), run with the words parsed from the line.

// runCommand carries out a slash command: the registry names its function.
func runCommand(m *workbench, line string) (tea.Cmd, error) {
	p, err := parseLine(line)
	if err != nil {
		return nil, err
	}
	if p.cmd.run == nil {
		return nil, fmt.Errorf("/%s is not available here", p.cmd.name)
	}
	if p.cmd.needsID && len(p.args) == 0 && m.mode == modeRepo && m.focus != focusSidebar {
		return nil, errDerivedReadOnly // no memory is selected here: a section is
	}
	return p.cmd.run(m, p)
}

// targetID is the memory a command acts on: the id it was given, else the
// selected memory.
func targetID(m *workbench, p parsed) (string, error) {
	if len(p.args) > 0 {
		return m.list.localID(p.args[0]), nil
	}
	if cur := m.current(); cur != nil {
		return cur.ID, nil
	}
	return "", fmt.Errorf("/%s needs a memory: select one or give its id", p.cmd.name)
}

// rejectRef marks the memory ref names as no longer holding.
func rejectRef(m *workbench, ref string) tea.Cmd {
	if why := noProject(m, "reject"); why != "" {
		return m.say(why, true)
	}
	m.pending++
	return reject(m.ctx, m.opt.Trust(m.proj), m.st, ref)
}

// cmdQuit carries out /quit.
func cmdQuit(m *workbench, p parsed) (tea.Cmd, error) {
	m.stop()
	return tea.Quit, nil
}

// cmdHelp carries out /help.
func cmdHelp(m *workbench, p parsed) (tea.Cmd, error) {
	m.stack.push(&helpView{})
	return nil, nil
}

// cmdTimeline carries out /timeline.
func cmdTimeline(m *workbench, p parsed) (tea.Cmd, error) {
	return m.selectSection(sectionTimeline), nil
}

// cmdVerify carries out /verify.
func cmdVerify(m *workbench, p parsed) (tea.Cmd, error) {
	return m.selectSection(sectionVerify), nil
}

// cmdInbox carries out /inbox.
func cmdInbox(m *workbench, p parsed) (tea.Cmd, error) {
	m.focus = focusList
	return m.selectSection(sectionInbox), nil
}

// cmdConsolidate carries out /consolidate.
func cmdConsolidate(m *workbench, p parsed) (tea.Cmd, error) {
	if len(p.args) == 0 {
		return consolidateDrafts(m, false)
	}
	switch strings.ToLower(p.args[0]) {
	case "dry", "--dry-run", "-n":
		if len(p.args) > 1 {
			return nil, fmt.Errorf("/consolidate dry takes nothing more: %q is one word too many", p.args[1])
		}
		return consolidateDrafts(m, true)
	case "undo":
		if len(p.args) != 2 {
			return nil, fmt.Errorf("/consolidate undo RUN: give the id of the run to take back")
		}
		return takeBack(m, p.args[1])
	}
	return nil, fmt.Errorf("/consolidate [dry | undo RUN]: %q is neither", p.args[0])
}

// cmdUndo carries out /undo.
func cmdUndo(m *workbench, p parsed) (tea.Cmd, error) {
	if len(p.args) > 1 {
		return nil, fmt.Errorf("/undo [RUN]: one run at a time")
	}
	return takeBack(m, strings.Join(p.args, ""))
}

// cmdCalibration carries out /calibration.
func cmdCalibration(m *workbench, p parsed) (tea.Cmd, error) {
	if why := noProject(m, "/calibration"); why != "" {
		return nil, errors.New(why)
	}
	return openCalibration(m), nil
}

// cmdReject carries out /reject.
func cmdReject(m *workbench, p parsed) (tea.Cmd, error) {
	id, err := targetID(m, p)
	if err != nil {
		return nil, err
	}
	if why := noProject(m, "/reject"); why != "" {
		return nil, errors.New(why)
	}
	return rejectRef(m, id), nil
}

// cmdRebind carries out /rebind.
func cmdRebind(m *workbench, p parsed) (tea.Cmd, error) {
	cur := m.current()
	if cur == nil {
		return nil, fmt.Errorf("/rebind needs a memory: select one")
	}
	if len(p.args) == 0 {
		return nil, fmt.Errorf("/rebind SPEC...: file:PATH, git:SCOPE, flag:NAME or none")
	}
	for _, spec := range p.args {
		if _, err := memory.ParseBinding(spec); err != nil {
			return nil, err
		}
	}
	if why := noProject(m, "/rebind"); why != "" {
		return nil, errors.New(why)
	}
	m.pending++
	return rebind(m.ctx, m.opt.Trust(m.proj), cur, p.args), nil
}

// cmdRemember carries out /remember.
func cmdRemember(m *workbench, p parsed) (tea.Cmd, error) {
	if p.rest == "" {
		return nil, fmt.Errorf("/remember needs the text to remember")
	}
	layer := memory.LayerState
	if l, ok := m.section.layer(); ok {
		layer = l
	}
	if p.layer != "" {
		l, err := memory.ParseLayer(p.layer)
		if err != nil {
			return nil, err
		}
		layer = l
	}
	m.pending++
	return remember(m.ctx, m.st, m.trust(), &memory.Memory{Project: m.proj.ID, Layer: layer, Body: p.rest}), nil
}

// cmdRecall carries out /recall.
func cmdRecall(m *workbench, p parsed) (tea.Cmd, error) {
	query, path := p.rest, ""
	if rest, ok := strings.CutPrefix(query, "--path "); ok {
		// /recall --path PATTERN [QUERY]: what is known about those files first
		path, query, _ = strings.Cut(strings.TrimSpace(rest), " ")
		if err := memory.ValidPathPattern(path); err != nil {
			return nil, err
		}
		query = strings.TrimSpace(query)
	}
	if query == "" && path == "" {
		return nil, fmt.Errorf("/recall needs a query (or --path PATTERN)")
	}
	m.pending++
	return doRecall(m.ctx, m.recaller, memory.Scope(m.proj.ID), query, path), nil
}

// cmdSupersede carries out /supersede.
func cmdSupersede(m *workbench, p parsed) (tea.Cmd, error) {
	// /supersede [ID] [TEXT]: the first word is an id when it names one.
	ref, text := "", p.rest
	if len(p.args) > 0 && m.list.isIDRef(p.args[0]) {
		ref = m.list.localID(p.args[0])
		text = strings.TrimSpace(strings.TrimPrefix(p.rest, p.args[0]))
	}
	cur := m.current()
	if ref == "" {
		if cur == nil {
			return nil, fmt.Errorf("/supersede needs a memory: select one or give its id")
		}
		ref = cur.ID
	}
	if cur != nil && cur.ID == ref {
		return m.startSupersede(cur, text), nil
	}
	m.pending++
	return readForSupersede(m.ctx, m.st, ref, text), nil
}

// cmdOnMemory carries out /archive, /unarchive, /forget, /confirm, /why.
func cmdOnMemory(m *workbench, p parsed) (tea.Cmd, error) {
	id, err := targetID(m, p)
	if err != nil {
		return nil, err
	}
	if why := noProject(m, "/confirm"); p.cmd.name == "confirm" && why != "" {
		return nil, errors.New(why)
	}
	m.pending++
	switch p.cmd.name {
	case "archive":
		return archive(m.ctx, m.st, id), nil
	case "unarchive":
		return unarchive(m.ctx, m.st, id), nil
	case "confirm":
		return confirmRef(m.ctx, m.st, m.opt.Trust(m.proj), id), nil
	case "why":
		return loadWhy(m.ctx, m.st, id), nil
	}
	return readForForget(m.ctx, m.st, id), nil
}

// cmdCapture carries out /capture.
func cmdCapture(m *workbench, p parsed) (tea.Cmd, error) {
	if p.rest == "" {
		return nil, fmt.Errorf("/capture needs the text to put in the inbox")
	}
	m.pending++
	return capture(m.ctx, m.st, m.proj.ID, p.rest), nil
}

// cmdLink carries out /link.
func cmdLink(m *workbench, p parsed) (tea.Cmd, error) {
	// The CLI's order: /link FROM KIND TO, or /link KIND TO from the
	// selected memory.
	args := p.args
	if len(args) == 3 {
		if _, err := memory.ParseEdgeKind(args[0]); err != nil {
			args = []string{args[1], args[2], args[0]}
		}
	}
	if len(args) < 2 || len(args) > 3 {
		return nil, fmt.Errorf("/link [FROM] KIND TO: e.g. /link because 01J… (from the selected memory)")
	}
	kind, err := memory.ParseEdgeKind(args[0])
	if err != nil {
		return nil, err
	}
	to, from := m.list.localID(args[1]), ""
	if len(args) > 2 {
		from = m.list.localID(args[2])
	} else if cur := m.current(); cur != nil {
		from = cur.ID
	} else {
		return nil, fmt.Errorf("/link needs a memory to link from: select one, or /link FROM KIND TO")
	}
	m.pending++
	return link(m.ctx, m.st, memory.Edge{From: from, Kind: kind, To: to}), nil
}

// cmdProject carries out /project.
func cmdProject(m *workbench, p parsed) (tea.Cmd, error) {
	if len(p.args) == 0 {
		return nil, fmt.Errorf("/project NAME: one of %s", strings.Join(projectNames(m.projects), ", "))
	}
	for _, pr := range m.projects {
		if strings.EqualFold(pr.Name, p.args[0]) || strings.EqualFold(safetext.CleanLine(pr.Name), p.args[0]) {
			return switchProject(m, pr), nil
		}
	}
	return nil, fmt.Errorf("no project %q: known are %s", p.args[0], strings.Join(projectNames(m.projects), ", "))
}

func projectNames(ps []memory.Project) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// openCalibration shows the calibration pane and counts the reviews anew.
func openCalibration(m *workbench) tea.Cmd {
	if why := noProject(m, "calibration"); why != "" {
		return m.say(why, true)
	}
	m.stack.push(&calibrationPane{})
	m.pending++
	return loadCalibration(m.ctx, m.opt.Trust(m.proj), m.st, m.proj.ID)
}

// switchProject moves the workbench to another project.
func switchProject(m *workbench, p memory.Project) tea.Cmd {
	m.proj = p
	m.tally.counts, m.tally.loaded = memory.Counts{}, false
	m.detail.clear()
	m.tl.events = nil
	m.inbox, m.tally.inbox = inboxPane{}, 0
	m.repo, m.tally.repo = repoPane{}, 0
	m.tally.verify, m.archived = 0, nil // the new project's, once read
	return tea.Batch(m.selectSection(0), loadCounts(m.ctx, m.st, p.ID), m.countInbox(), m.countRepo(), m.loadVerify(-1), m.say("project "+p.Name, false))
}
