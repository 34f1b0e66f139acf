package ui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// replLine is the command line at the bottom: completion on tab, history
// on up and down, errors shown inline under it.
type replLine struct {
	in      textinput.Model
	active  bool
	history []string
	hpos    int    // position in history while browsing it
	hint    string // completion candidates or an error, under the line
	hintBad bool
}

func newReplLine() replLine {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "remember, recall, archive, supersede, consolidate, help — tab completes"
	in.CharLimit = 4096
	st := in.Styles()
	st.Cursor.Blink = false // a steady cursor: no timer per key press
	in.SetStyles(st)
	return replLine{in: in}
}

func (r *replLine) open(prefill string) tea.Cmd {
	r.active, r.hint, r.hintBad = true, "", false
	r.in.SetValue(prefill)
	r.in.CursorEnd()
	r.hpos = len(r.history)
	return r.in.Focus()
}

func (r *replLine) close() {
	r.active = false
	r.in.Blur()
	r.in.SetValue("")
}

func (r *replLine) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	r.in, cmd = r.in.Update(msg)
	return cmd
}

// historyMove steps through earlier lines (d = -1 older, +1 newer).
func (r *replLine) historyMove(d int) {
	if len(r.history) == 0 {
		return
	}
	r.hpos = clamp(r.hpos+d, 0, len(r.history))
	if r.hpos == len(r.history) {
		r.in.SetValue("")
	} else {
		r.in.SetValue(r.history[r.hpos])
	}
	r.in.CursorEnd()
}

func (r *replLine) remember(line string) {
	if line == "" || (len(r.history) > 0 && r.history[len(r.history)-1] == line) {
		return
	}
	r.history = append(r.history, line)
}

// setWidth fits the line to w cells: prompt, text, one cell of cursor.
func (r *replLine) setWidth(w int) { r.in.SetWidth(max(w-3, 10)) }

func (r *replLine) view(t themes.Theme, w int) []string {
	lines := []string{r.in.View()}
	if r.hint != "" {
		hint := safetext.CleanLine(r.hint) // it may list ids and project names
		st := t.Styles.Muted
		if r.hintBad {
			st = t.Styles.Danger
			lines = append(lines, st.Render(pad("! "+hint, w)))
		} else {
			lines = append(lines, st.Render(pad(hint, w)))
		}
	}
	return lines
}

// completions are the words tab can finish in the current state.
func (m *workbench) completeLine() {
	var ids []string
	// Completion types these into the line: neutralised, as shown.
	for _, it := range m.list.items {
		ids = append(ids, safetext.CleanLine(it.ID))
	}
	var projects []string
	for _, p := range m.projects {
		projects = append(projects, safetext.CleanLine(p.Name))
	}
	layers := append(memory.LayerNames(), "A", "B", "C", "D", "E", "F")
	line, hits := complete(m.repl.in.Value(), ids, projects, memory.EdgeKindNames(), layers)
	m.repl.in.SetValue(strings.TrimLeft(line, "/:"))
	m.repl.in.CursorEnd()
	m.repl.hintBad = false
	switch {
	case len(hits) > 1:
		m.repl.hint = strings.Join(hits, "  ")
	case len(hits) == 0:
		m.repl.hint = "no completion"
	default:
		m.repl.hint = ""
	}
}
