package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"cairn/themes"
)

// pager scrolls the lines of a reading pane (a memory, the help, a diff, a
// report) through a bubbles viewport. The pane lays its lines out for its
// width; fit hands them to the pager after every update, so that View only
// reads, and the keys scroll what was laid out last. The viewport's own key
// map is not used: its d, u, b and f are the workbench's diff, undo and
// filter keys, so the workbench's bindings drive it.
//
// The memory list and the inbox list do not scroll through a pager: their
// rows are items with a cursor, not lines, and a big layer's list would
// have to lay out every loaded row (tens of thousands) to hand them over,
// where it now draws the twenty that show.
//
// The zero pager is ready to use.
type pager struct{ vp viewport.Model }

// wheelLines is how far a notch of the mouse wheel scrolls text (the
// viewport's own default).
const wheelLines = 3

// set lays lines into a w×h window, keeping the offset within them.
func (p *pager) set(lines []string, w, h int) {
	p.vp.SetWidth(max(w, 1))
	p.vp.SetHeight(max(h, 1))
	p.vp.SetContentLines(lines) // it clamps the offset to the new length
}

// top goes back to the first line (a new memory, a new item).
func (p *pager) top() { p.vp.SetYOffset(0) }

// scroll moves n lines down (up when n < 0).
func (p *pager) scroll(n int) {
	if n < 0 {
		p.vp.ScrollUp(-n)
	} else {
		p.vp.ScrollDown(n)
	}
}

// wheel scrolls as a mouse wheel notch does: a few lines, the viewport's step.
func (p *pager) wheel(up bool) {
	if up {
		p.scroll(-wheelLines)
	} else {
		p.scroll(wheelLines)
	}
}

// key scrolls for the workbench's reading keys (j/k, pgup/pgdn and space,
// g/G) and reports whether k was one of them.
func (p *pager) key(k tea.KeyPressMsg) bool {
	switch {
	case keys.Up.matches(k):
		p.scroll(-1)
	case keys.Down.matches(k):
		p.scroll(1)
	case keys.PageUp.matches(k):
		p.vp.PageUp()
	case keys.PageDown.matches(k), keys.Space.matches(k):
		p.vp.PageDown()
	case keys.Top.matches(k):
		p.vp.SetYOffset(0)
	case keys.Bottom.matches(k):
		p.vp.GotoBottom()
	default:
		return false
	}
	return true
}

// lines is what the window shows: at most its height of lines from the
// offset on.
func (p *pager) lines() []string {
	if p.vp.Height() == 0 {
		return nil // not laid out yet
	}
	out := strings.Split(p.vp.View(), "\n")
	// The viewport fills its height (the pane pads its own) and would wrap
	// a line wider than the window (the panes wrap their own first).
	return out[:min(len(out), p.vp.Height(), max(p.vp.TotalLineCount()-p.vp.YOffset(), 0))]
}

// linesWithMore is lines with, when more follows below, its last line
// saying how many and how to reach them.
func (p *pager) linesWithMore(t themes.Theme) []string {
	out := p.lines()
	h := p.vp.Height()
	if more := p.vp.TotalLineCount() - p.vp.YOffset() - h; more > 0 && len(out) == h && h > 1 {
		out[h-1] = t.Styles.Muted.Render(fmt.Sprintf("… %d more lines: ↓ scrolls", more+1))
	}
	return out
}
