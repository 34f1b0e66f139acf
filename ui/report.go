package ui

import "cairn/themes"

// reportPane shows what a consolidation pass did (or, dry, would do), one
// change a line in words; the lines are made when the pass ends.
type reportPane struct {
	title string
	lines []string
	pg    pager // what shows of all(), laid out by fit
}

func (r *reportPane) all(t themes.Theme, w int) []string {
	return wrapAll(append([]string{t.Styles.Title.Render(r.title)}, r.lines...), w)
}
