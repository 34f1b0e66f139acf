package ui

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/sergi/go-diff/diffmatchpatch"

	"cairn/internal/inboxline"
	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// diffView shows two versions of a memory, side by side when there is room.
// It holds every version it can step through, oldest first: the versions
// of each memory of a supersession chain, in order. old and new index them.
type diffView struct {
	vers     []*memory.Memory
	old, new int
	title    string
	confirm  bool  // the supersession is not stored yet: enter stores it
	pg       pager // what shows of lines() under the title, laid out by fit
	// proposal is the inbox proposal the diff shows (a accepts, w rejects),
	// or, with confirm, the one the person's edit of it would accept.
	proposal string
}

// newDiff compares vers[old] with vers[new].
func newDiff(vers []*memory.Memory, old, new int, title string) *diffView {
	return &diffView{vers: vers, old: old, new: new, title: title}
}

func (d *diffView) a() *memory.Memory { return d.vers[d.old] }
func (d *diffView) b() *memory.Memory { return d.vers[d.new] }

// step moves the compared pair: by = -1 one version older, +1 newer; both
// moves the pair, otherwise only the older side (which stays older).
func (d *diffView) step(by int, both bool) {
	if d.confirm {
		return
	}
	if both {
		if o, n := d.old+by, d.new+by; o >= 0 && n < len(d.vers) {
			d.old, d.new = o, n
		}
	} else if o := d.old + by; o >= 0 && o < d.new {
		d.old = o
	}
	d.pg.top()
}

// versionLabel names a version for the diff's heading, by its short id.
func versionLabel(m *memory.Memory, sid func(string) string) string {
	if m.ID == "" {
		return "not stored yet"
	}
	return fmt.Sprintf("%s v%d · %s", sid(m.ID), m.Version, safetext.CleanLine(string(m.Status)))
}

// pairTitle says how the two compared versions relate.
func (d *diffView) pairTitle() string {
	a, b := d.a(), d.b()
	switch {
	case d.title != "":
		return d.title
	case a.ID == b.ID:
		return fmt.Sprintf("edits: v%d → v%d", a.Version, b.Version)
	case a.SupersededBy == b.ID:
		return "superseded → its successor"
	}
	return "older → newer in the supersession chain"
}

// sideBySide is the layout for terminals of at least this many columns.
const sideBySide = 100

// docText is what the diff compares, neutralised for the terminal.
func docText(m *memory.Memory) string {
	return safetext.CleanLine(m.Title) + "\n\n" + strings.TrimRight(safetext.Clean(m.Body), "\n")
}

// lines renders the diff for width w, naming versions by their short ids.
func (d *diffView) lines(t themes.Theme, w int, sid func(string) string) []string {
	spans := inboxline.Diff(docText(d.a()), docText(d.b()))
	// Markers ([-removed-] {+added+}) carry the change wherever colour
	// cannot: without colour, and in the unified view where old and new
	// words stand side by side in one line.
	markers := t.Plain || w < sideBySide
	mark := func(op diffmatchpatch.Operation, s string) string {
		switch op {
		case diffmatchpatch.DiffDelete:
			if markers {
				s = "[-" + s + "-]"
			}
			return t.Styles.Removed.Render(s)
		case diffmatchpatch.DiffInsert:
			if markers {
				s = "{+" + s + "+}"
			}
			return t.Styles.Added.Render(s)
		}
		return s
	}
	// build renders the spans that a side keeps, line by line.
	build := func(keep func(diffmatchpatch.Operation) bool) []string {
		var b strings.Builder
		for _, sp := range spans {
			if !keep(sp.Op) {
				continue
			}
			// Mark each line of a multi-line change separately so styles do not span newlines.
			parts := strings.Split(sp.Text, "\n")
			for i, p := range parts {
				if i > 0 {
					b.WriteString("\n")
				}
				if p != "" {
					b.WriteString(mark(sp.Op, p))
				}
			}
		}
		return strings.Split(b.String(), "\n")
	}
	if w >= sideBySide {
		col := (w - 3) / 2
		left := wrapAll(build(func(op diffmatchpatch.Operation) bool { return op != diffmatchpatch.DiffInsert }), col)
		right := wrapAll(build(func(op diffmatchpatch.Operation) bool { return op != diffmatchpatch.DiffDelete }), col)
		head := pad(t.Styles.Bold.Render("old · "+versionLabel(d.a(), sid)), col) + " │ " + t.Styles.Bold.Render("new · "+versionLabel(d.b(), sid))
		out := []string{head, strings.Repeat("─", col) + "─┼─" + strings.Repeat("─", col)}
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			out = append(out, pad(l, col)+" │ "+r)
		}
		return out
	}
	head := t.Styles.Bold.Render(pad("old "+versionLabel(d.a(), sid)+" → new "+versionLabel(d.b(), sid), w))
	return append([]string{head, strings.Repeat("─", w)}, wrapAll(build(func(diffmatchpatch.Operation) bool { return true }), w)...)
}

// view is the title over what the pager shows of the diff.
func (d *diffView) view(t themes.Theme, w int) []string {
	title := t.Styles.Title.Render("Supersession diff") + t.Styles.Muted.Render(" · "+d.pairTitle())
	if len(d.vers) > 2 {
		title += t.Styles.Muted.Render(fmt.Sprintf(" · versions %d and %d of %d", d.old+1, d.new+1, len(d.vers)))
	}
	return append([]string{pad(title, w)}, d.pg.lines()...)
}

// wrapAll wraps styled lines to width w.
func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, wrapLines(l, w)...)
	}
	return out
}

// nbHyphen stands in, while a line is wrapped, for a hyphen between two
// digits: a date, a version or a range is one word (the wrapper breaks
// after every hyphen, and "2026-" / "02-25" is no date).
const nbHyphen = "\u2011"

var digitHyphen = regexp.MustCompile(`([0-9])-([0-9])`)

// wrapLines wraps s to w cells at spaces (and hyphens between letters).
// A tab becomes four spaces first: the terminal would move it to its own
// tab stops, past the pane's border, and the wrapper counts it as nothing.
func wrapLines(s string, w int) []string {
	s = strings.ReplaceAll(s, "\t", "    ")
	protect := !strings.Contains(s, nbHyphen) && strings.Contains(s, "-")
	if protect {
		// twice: "2026-02-14" has overlapping matches
		s = digitHyphen.ReplaceAllString(digitHyphen.ReplaceAllString(s, "$1"+nbHyphen+"$2"), "$1"+nbHyphen+"$2")
	}
	out := ansi.Wrap(s, max(w, 1), " ")
	if protect {
		out = strings.ReplaceAll(out, nbHyphen, "-")
	}
	return strings.Split(out, "\n")
}

// pad cuts or fills a styled string to exactly w cells.
func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func clamp[T cmp.Ordered](v, lo, hi T) T { return max(lo, min(v, hi)) }

// short is the first ten characters of an id, safe to show.
func short(id string) string {
	if len(id) > 10 {
		id = id[:10]
	}
	return safetext.CleanLine(id)
}

// The diff's states: a new version to store (confirm), a proposal to
// decide, a memory's chain of versions.
var (
	diffConfirm  cond = func(m *workbench) bool { return m.stack.diff().confirm }
	diffProposal cond = func(m *workbench) bool { return m.stack.diff().proposal != "" }
	diffDeciding      = both(diffProposal, not(diffConfirm))
	diffChain    cond = func(m *workbench) bool {
		d := m.stack.diff()
		return !d.confirm && d.proposal == "" && len(d.vers) > 2
	}
)

// diffKeys step through the versions, store a new one, or decide the
// proposal shown.
var diffKeys = keyTable{
	row(keys.Open.as("accept your version"), to(func(m *workbench) tea.Cmd { d := m.stack.diff(); return m.inbox.decide(m, d.proposal, true, d.b()) })).
		when(both(diffConfirm, diffProposal)).named(always),
	row(keys.Open.as("store the new version"), to(func(m *workbench) tea.Cmd {
		m.pending++
		return supersede(m.ctx, m.st, m.trust(), m.stack.editor().old.ID, m.stack.diff().b())
	})).when(both(diffConfirm, not(diffProposal))).named(always),
	row(keys.Accept, to(func(m *workbench) tea.Cmd { return m.inbox.decide(m, m.stack.diff().proposal, true, nil) })).when(diffDeciding).named(always),
	row(keys.Reject, to(func(m *workbench) tea.Cmd { return m.inbox.decide(m, m.stack.diff().proposal, false, nil) })).when(diffDeciding).named(always),
	row(keys.EditCandidate.as("edit, then accept"), to(func(m *workbench) tea.Cmd { return m.inbox.editProposal(m) })).when(diffDeciding).named(always),
	row(keys.Older, diffStep(-1, true)).named(diffChain),
	row(keys.Newer, diffStep(1, true)),
	row(keys.NextLink.as("move the old side"), diffStep(1, false)).named(diffChain),
	row(keys.PrevLink, diffStep(-1, false)),
	row(keys.Close.as("back to the editor"), to(closeTop)).when(both(diffConfirm, func(m *workbench) bool { return m.stack.editor() != nil })).named(always),
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.stack.diff().pg.key(k); return nil }).named(always),
	row(keys.Close, to(func(m *workbench) tea.Cmd {
		// a diff of a new version closes with its editor, gone meanwhile
		m.stack.remove(func(o overlay) bool { _, ok := o.(*diffView); return ok })
		return nil
	})).named(not(diffConfirm)),
}

// diffStep moves the pair (both) or its old side by one version.
func diffStep(by int, both bool) keyFn {
	return to(func(m *workbench) tea.Cmd { m.stack.diff().step(by, both); return nil })
}
