package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/recall"
	"cairn/safetext"
)

// lazyRecaller is what answers /recall: the one given in Options, the
// store itself when it recalls (a client of the owning process does), or
// an engine built over the store once, on first use. It runs inside a
// command: building an engine reads the whole project.
func lazyRecaller(ctx context.Context, st Store, opt *Options) func() (recall.Recaller, error) {
	var once sync.Once
	var rec recall.Recaller
	var err error
	return func() (recall.Recaller, error) {
		once.Do(func() {
			if opt.Recall != nil {
				rec = opt.Recall
				return
			}
			rec, err = recall.For(ctx, st)
		})
		return rec, err
	}
}

// withExplain puts, above the detail of a recalled memory, why recall
// chose it (after e): its lexical, vector, trigger and graph evidence,
// salience and trust, each in words and figures.
func withExplain(m *workbench, lines []string) []string {
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
func withReasons(m *workbench, lines []string) []string {
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

// recallDone shows a recall's answer in the list (or, while the index is
// built, says how far it is and asks again).
func (msg recallDoneMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("recall", msg.err)
	}
	if msg.resp.Building { // never a frozen screen: say how far, ask again
		// The engine tells a caller to ask again; the workbench does that
		// itself, so the person is told the answer follows.
		note, _, _ := strings.Cut(msg.resp.Note, ": ask again")
		m.say(note+" — the answer follows when it is built", false)
		m.pending++
		return doRecall(m.ctx, m.recaller, msg.projects, msg.feedbackQuery, msg.path)
	}
	m.recallQuery, m.recallWords = msg.query, msg.feedbackQuery
	m.whyRoot = ""
	m.explains = map[string]recall.Explain{}
	var items []*memory.Memory
	for _, h := range append(msg.resp.Results, msg.resp.VerifyFirst...) {
		items = append(items, h.Memory)
		m.explains[h.Memory.ID] = h.Explain
	}
	m.reqSeq++
	// A new list, not a refresh: the best hit is selected.
	m.list.replace(items)
	m.mode, m.focus, m.stack = modeRecall, focusList, nil
	switch {
	case msg.resp.Nothing && len(items) == 0:
		m.say(fmt.Sprintf("recall %q: nothing known about this — noted in the inbox as a gap; /remember what you know", msg.query), false)
	case msg.resp.Weak:
		m.say(fmt.Sprintf("recall %q: only weak answers (%d; noted as a gap) — e explains · + helped · - did not", msg.query, len(items)), false)
	case msg.resp.Cut > 0:
		// The workbench asks for the best 50 with no budget to speak of:
		// what else matched was cut by that count, not by a budget.
		m.say(fmt.Sprintf("recall %q: the best %d of %d that matched — e explains · + helped · - did not", msg.query, len(items), len(items)+msg.resp.Cut), false)
	default:
		m.say(fmt.Sprintf("recall %q: %d found — e explains · + helped · - did not", msg.query, len(items)), false)
	}
	return m.openSelected()
}
