package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// overlay is a view over the panes that takes the whole body and the
// keyboard while it shows: the help, the calibration pane, a run's report,
// a diff, the editor. Overlays stack: a new version's diff lies over its
// editor, and closing one shows what lay under it.
type overlay interface {
	kind() mode                               // what the workbench shows while it is on top
	keys() keyTable                           // its keys, its footer
	update(m *workbench, msg tea.Msg) tea.Cmd // a key (through keys) or a wheel notch
	lay(m *workbench, w, h int)               // lays its text out for a w×h pane (fit)
	draw(m *workbench, w, h int) []string     // what its pane shows (View)
}

// overlays is the stack, the top last.
type overlays []overlay

func (s overlays) top() overlay {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

func (s *overlays) push(o overlay) { *s = append(*s, o) }

// pop closes the top overlay.
func (s *overlays) pop() {
	if len(*s) > 0 {
		*s = (*s)[:len(*s)-1]
	}
}

// remove closes the overlays drop names, wherever they lie.
func (s *overlays) remove(drop func(overlay) bool) {
	out := (*s)[:0]
	for _, o := range *s {
		if !drop(o) {
			out = append(out, o)
		}
	}
	*s = out
}

// find is the topmost overlay of type T (its zero value: none).
func find[T overlay](s overlays) T {
	for i := len(s) - 1; i >= 0; i-- {
		if o, ok := s[i].(T); ok {
			return o
		}
	}
	var none T
	return none
}

// editor is the editor on the stack (nil: none).
func (s overlays) editor() *editorPane { return find[*editorPane](s) }

// diff is the diff on the stack (nil: none).
func (s overlays) diff() *diffView { return find[*diffView](s) }

// screen is what shows: the top overlay, else the panes' mode.
func (m *workbench) screen() mode {
	if o := m.stack.top(); o != nil {
		return o.kind()
	}
	return m.mode
}

// scrolled is an overlay's update: its keys through its table, a wheel
// notch scrolls its pager (pg nil: nothing scrolls).
func scrolled(m *workbench, t keyTable, pg *pager, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		cmd, _ := t.dispatch(m, msg)
		return cmd
	case tea.MouseWheelMsg:
		if up, ok := notch(msg.Mouse()); ok && pg != nil {
			pg.wheel(up)
		}
	}
	return nil
}

// helpView is the help screen, laid out by fit.
type helpView struct{ pg pager }

func (*helpView) kind() mode                             { return modeHelp }
func (*helpView) keys() keyTable                         { return helpKeys }
func (v *helpView) lay(m *workbench, w, h int)           { v.pg.set(helpLines(m.theme, w), w, h) }
func (v *helpView) draw(m *workbench, _, _ int) []string { return v.pg.linesWithMore(m.theme) }
func (v *helpView) update(m *workbench, msg tea.Msg) tea.Cmd {
	return scrolled(m, helpKeys, &v.pg, msg)
}

func (*calibrationPane) kind() mode     { return modeCalibration }
func (*calibrationPane) keys() keyTable { return calibrationKeys }
func (p *calibrationPane) lay(m *workbench, w, h int) {
	p.pg.set(p.lines(m.theme, w, m.sid), w, h)
}
func (p *calibrationPane) draw(m *workbench, _, _ int) []string { return p.pg.linesWithMore(m.theme) }
func (p *calibrationPane) update(m *workbench, msg tea.Msg) tea.Cmd {
	return scrolled(m, calibrationKeys, &p.pg, msg)
}

func (*reportPane) kind() mode                             { return modeReport }
func (*reportPane) keys() keyTable                         { return reportKeys }
func (r *reportPane) lay(m *workbench, w, h int)           { r.pg.set(r.all(m.theme, w), w, h) }
func (r *reportPane) draw(m *workbench, _, _ int) []string { return r.pg.linesWithMore(m.theme) }
func (r *reportPane) update(m *workbench, msg tea.Msg) tea.Cmd {
	return scrolled(m, reportKeys, &r.pg, msg)
}

func (*diffView) kind() mode     { return modeDiff }
func (*diffView) keys() keyTable { return diffKeys }
func (d *diffView) lay(m *workbench, w, h int) {
	d.pg.set(d.lines(m.theme, w, m.sid), w, h-1) // under its title
}
func (d *diffView) draw(m *workbench, w, _ int) []string { return d.view(m.theme, w) }

// update is the diff's: its keys step through versions, store a new one or
// decide a proposal (diffKeys); the wheel scrolls it.
func (d *diffView) update(m *workbench, msg tea.Msg) tea.Cmd {
	return scrolled(m, diffKeys, &d.pg, msg)
}

func (*editorPane) kind() mode                   { return modeEditor }
func (*editorPane) keys() keyTable               { return editorKeys }
func (e *editorPane) lay(_ *workbench, w, h int) { e.setSize(w, h) }
func (e *editorPane) draw(m *workbench, w, h int) []string {
	return strings.Split(e.view(m.theme, w, h, m.sid), "\n")
}
func (*editorPane) update(m *workbench, msg tea.Msg) tea.Cmd {
	return scrolled(m, editorKeys, nil, msg)
}

// closeTop is a key that closes the top overlay.
func closeTop(m *workbench) tea.Cmd {
	m.stack.pop()
	return nil
}
