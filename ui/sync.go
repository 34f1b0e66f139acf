package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
)

// cmdSync carries out /sync: the team mirror and the store are brought
// together in the background, and what shows memories reloads after.
func cmdSync(m *workbench, p parsed) (tea.Cmd, error) {
	if len(p.args) > 0 {
		return nil, fmt.Errorf("/sync takes nothing: another directory or --layers with cairn sync")
	}
	if m.opt.Sync == nil {
		return nil, fmt.Errorf("/sync needs the workbench opened on a project (cairn): run cairn sync instead")
	}
	if m.proj.ID == memory.GlobalID {
		return nil, fmt.Errorf("/sync mirrors a project's memories into its repository: the global scope has none (/project NAME first)")
	}
	if m.syncing {
		return nil, fmt.Errorf("/sync is already running")
	}
	m.syncing = true
	m.pending++
	m.statusSeq++ // stays until the sync is done
	m.status, m.statusBad = "syncing "+safetext.CleanLine(m.proj.Name)+" with its team mirror…", false
	return runSync(m.ctx, m.opt.Sync, m.proj), nil
}

// synced reports a sync and reloads what it may have changed.
func (msg syncedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	m.syncing = false
	if msg.err != nil {
		return m.fail("sync "+msg.project.Name, msg.err)
	}
	r := msg.rep
	text := "nothing to sync"
	if !r.Nothing() {
		text = fmt.Sprintf("synced: %s written, %d removed; %d new, %d edited, %d archived from the mirror",
			plural(r.Written, "file"), r.Removed, r.Added, r.Edited, r.Archived)
	}
	bad := false
	switch {
	case len(r.Refused) > 0:
		text += fmt.Sprintf(" — %s refused (conflict markers or bad input): cairn sync names them", plural(len(r.Refused), "file"))
		bad = true
	case len(r.Conflicts) > 0:
		text += fmt.Sprintf(" — %s changed on both sides: /verify to keep one", memories(len(r.Conflicts)))
		bad = true
	case len(r.Pending) > 0:
		text += fmt.Sprintf(" — teammates forgot %s: archived; cairn sync --forget forgets", memories(len(r.Pending)))
	}
	cmds := []tea.Cmd{m.say(safetext.CleanLine(text), bad)}
	if msg.project.ID == m.proj.ID {
		if !r.Nothing() {
			cmds = append(cmds, m.reloadAll())
		}
		cmds = append(cmds, m.loadMirror())
	}
	return tea.Batch(cmds...)
}

func memories(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}
