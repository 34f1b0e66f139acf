package ui

import (
	"fmt"

	"cairn/themes"
)

// reportPane shows what a consolidation pass did (or, dry, would do), one
// change a line in words; the lines are made when the pass ends.
type reportPane struct {
	title  string
	lines  []string
	scroll int
}

func (r *reportPane) all(t themes.Theme, w int) []string {
	return wrapAll(append([]string{t.Styles.Title.Render(r.title)}, r.lines...), w)
}

func (r *reportPane) view(t themes.Theme, w, h int) []string {
	lines := r.all(t, w)
	from := clamp(r.scroll, 0, max(len(lines)-h, 0))
	lines = lines[from:]
	if len(lines) > h {
		lines = append(lines[:h-1], t.Styles.Muted.Render(fmt.Sprintf("… %d more lines: ↓ scrolls", len(lines)-h+1)))
	}
	return lines
}

func (r *reportPane) scrollBy(n int, t themes.Theme, w, h int) {
	top := max(len(r.all(t, w))-h, 0)
	r.scroll = clamp(clamp(r.scroll, 0, top)+n, 0, top)
}
