package ui

import (
	"fmt"

	"cairn/recall"
	"cairn/safetext"
)

// recaller is what answers /recall: the one given in Options, the store
// itself when it recalls (a client of the owning process does), or an
// engine built over the store once, on first use. It runs inside a
// command: building an engine reads the whole project.
func (m *workbench) recaller() (recall.Recaller, error) {
	m.recOnce.Do(func() {
		if m.opt.Recall != nil {
			m.rec = m.opt.Recall
			return
		}
		m.rec, m.recErr = recall.For(m.ctx, m.st)
	})
	return m.rec, m.recErr
}

// withExplain puts, above the detail of a recalled memory, why recall
// chose it (after e): its lexical, vector, trigger and graph evidence,
// salience and trust, each in words and figures.
func (m *workbench) withExplain(lines []string) []string {
	if m.mode != modeRecall || !m.showExplain || m.detail.mem == nil {
		return lines
	}
	x, ok := m.explains[m.detail.mem.ID]
	if !ok {
		return lines
	}
	st := m.theme.Styles
	w := m.layout().detail.w - 4
	why := fmt.Sprintf("why: lexical %.2f (#%d) · vector %.2f (#%d) · salience %.2f · trust %.2f · final %.2f",
		x.Lexical, x.LexicalRnk, x.Vector, x.VectorRnk, x.Salience, x.Trust, x.Final)
	if x.Trigger != "" {
		why += " · trigger " + x.Trigger
	}
	if x.Graph != "" {
		why += " · via " + x.Graph
	}
	if x.Context != 0 {
		why += fmt.Sprintf(" · beside %.2f in its session", x.Context)
	}
	if x.When != "" {
		why += " · of " + x.When
	}
	out := wrapAll([]string{st.Accent.Render(safetext.CleanLine(why))}, w)
	return append(out, lines...)
}

// withReasons puts, above the detail of a memory in the Verify-first
// section, why its trust fell and what can be done about it.
func (m *workbench) withReasons(lines []string) []string {
	if m.section != sectionVerify || m.mode != modeBrowse || m.detail.mem == nil {
		return lines
	}
	rs, ok := m.reasons[m.detail.mem.ID]
	if !ok {
		return lines
	}
	st := m.theme.Styles
	w := m.layout().detail.w - 4
	var out []string
	for _, r := range rs {
		out = append(out, wrapAll([]string{st.Warn.Render("! " + safetext.CleanLine(r))}, w)...)
	}
	out = append(out, wrapAll([]string{st.Muted.Render("c confirm · w reject · s supersede · a archive · b rebind")}, w)...)
	return append(out, lines...)
}
