package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// listPane is the memories of the selected section, with a filter typed
// over the loaded items.
type listPane struct {
	items     []*memory.Memory
	next      string // cursor of the next page, "" on the last
	cursor    int    // index into visible()
	offset    int    // first visible row
	filter    string
	filtering bool
	inStore   bool              // the section is bigger than what was loaded: the store filters it, page by page
	prefix    map[string]string // per memory, before its title: /why's tree
	asOf      time.Time         // ages are counted to this moment (set in Update: View never reads the clock)
	vis       filtered          // what visible() answered last
}

// filtered is the rows a filter let through, and what they were made of:
// the list asks for its visible rows on every key and every frame, and a
// filter reads every loaded memory's whole text.
type filtered struct {
	ok     bool
	filter string
	items  []*memory.Memory // the items the rows were filtered from (the same array, this long)
	rows   []*memory.Memory
}

// replace shows a new list (a recall's answer, /why's tree): no filter, no
// prefixes, the first row selected.
func (l *listPane) replace(items []*memory.Memory) {
	l.items, l.filter, l.filtering, l.inStore, l.cursor, l.offset, l.prefix = nil, "", false, false, 0, 0, nil
	l.set(items, "", false, "")
}

// set replaces the items (or, with more, appends a page) and keeps the
// selection on the same memory wherever it moved: other processes write at
// any time, and a row index would then name another memory. When the
// selected memory has left the list, its nearest neighbour that is still
// there is selected (below it first) and set returns the memory that left.
// prefer, when in the new list, is selected instead (a successor that
// replaces what was selected).
func (l *listPane) set(items []*memory.Memory, next string, more bool, prefer string) (left *memory.Memory) {
	was, at := l.visible(), l.cursor
	sel := l.selected()
	if more {
		l.items = append(l.items, items...)
	} else {
		l.items = items
	}
	l.next = next
	v := l.visible()
	rows := make(map[string]int, len(v))
	for i, m := range v {
		rows[m.ID] = i
	}
	if i, ok := rows[prefer]; ok && prefer != "" {
		l.cursor = i
		return nil
	}
	if sel == nil {
		l.cursor = clamp(l.cursor, 0, max(len(v)-1, 0))
		return nil
	}
	if i, ok := rows[sel.ID]; ok {
		l.cursor = i
		return nil
	}
	l.cursor = clamp(l.cursor, 0, max(len(v)-1, 0))
	for _, j := range neighbours(at, len(was)) {
		if i, ok := rows[was[j].ID]; ok {
			l.cursor = i
			break
		}
	}
	return sel
}

// neighbours lists the other rows of n: those below row i, nearest first,
// then those above it, nearest first.
func neighbours(i, n int) []int {
	var out []int
	for j := i + 1; j < n; j++ {
		out = append(out, j)
	}
	for j := i - 1; j >= 0; j-- {
		out = append(out, j)
	}
	return out
}

// visible is the items that pass the filter (words, any order, any case).
// The rows are filtered again only when what they come from changed: the
// items (a page loaded, the store's answer, another process's write all
// bring a new slice or a longer one) or the filter. A page appended is
// filtered alone; a filter typed longer narrows the rows it had (a memory
// that holds every word of the longer filter holds the shorter one's).
func (l *listPane) visible() []*memory.Memory {
	if l.filter == "" {
		return l.items
	}
	c := &l.vis
	grown := c.ok && len(c.items) <= len(l.items) && (len(c.items) == 0 || &c.items[0] == &l.items[0])
	switch {
	case grown && c.filter == l.filter && len(c.items) == len(l.items):
		return c.rows
	case grown && c.filter == l.filter:
		c.rows = matching(slices.Clip(c.rows), l.items[len(c.items):], l.filter)
	case grown && len(c.items) == len(l.items) && strings.HasPrefix(l.filter, c.filter):
		c.rows = matching(nil, c.rows, l.filter)
	default:
		c.rows = matching(nil, l.items, l.filter)
	}
	c.ok, c.items, c.filter = true, l.items, l.filter
	return c.rows
}

// matching appends to out the memories of ms that pass filter.
func matching(out, ms []*memory.Memory, filter string) []*memory.Memory {
	for _, m := range ms {
		if memory.Matches(m, filter) {
			out = append(out, m)
		}
	}
	return out
}

func (l *listPane) selected() *memory.Memory {
	v := l.visible()
	if l.cursor < 0 || l.cursor >= len(v) {
		return nil
	}
	return v[l.cursor]
}

func (l *listPane) move(d, height int) {
	n := len(l.visible())
	l.cursor = clamp(l.cursor+d, 0, max(n-1, 0))
	l.scroll(height)
}

// rowsFor is how many memories a list of h lines (inside its border) shows.
func (l *listPane) rowsFor(h int) int {
	if l.filtering || l.filter != "" {
		return h - 2
	}
	return h - 1
}

func (l *listPane) scroll(height int) {
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if height > 0 && l.cursor >= l.offset+height {
		l.offset = l.cursor - height + 1
	}
	if height > 0 {
		// a list that shrank (a filter, a store answer) fills the pane
		// rather than leaving rows empty above its end
		l.offset = max(min(l.offset, len(l.visible())-height), 0)
	}
}

// trustBadge shows trust as a mark, so it reads without colour: "!" is
// low trust (verify first).
func trustBadge(m *memory.Memory, asOf time.Time) string {
	switch t := memory.TrustAt(m, asOf); {
	case t >= 0.8:
		return "●"
	case t >= 0.5:
		return "◐"
	default:
		return "!"
	}
}

// salienceMark shows how often a memory has been recalled.
func salienceMark(m *memory.Memory) string {
	switch n := m.Salience.AccessCount + m.Salience.Reinforcements; {
	case n >= 10:
		return "★"
	case n >= 1:
		return "☆"
	}
	return " "
}

func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
}

var provShort = map[memory.Provenance]string{
	memory.ProvUserStated: "user", memory.ProvUserCorrected: "corr", memory.ProvMeasured: "meas",
	memory.ProvObserved: "obs", memory.ProvExtracted: "extr", memory.ProvInferred: "inf",
}

// kindShort names a kind in at most six cells.
func kindShort(k memory.Kind) string {
	switch k {
	case memory.KindPreference:
		return "pref"
	case memory.KindProcedure:
		return "proc"
	case memory.KindConstraint:
		return "rule"
	case memory.KindDecision:
		return "dec"
	case memory.KindNegative:
		return "neg"
	}
	return string(k)
}

// view renders the list in w×h cells. total is how many the section holds
// (-1: what is loaded is all of it); with a filter the heading counts the
// matches, "200+" while the store has more to page in.
func (l *listPane) view(t themes.Theme, w, h int, focused bool, heading string, total int) []string {
	st := t.Styles
	v := l.visible()
	out := []string{st.Title.Render(heading) + st.Muted.Render(" "+l.count(total))}
	if l.filtering || l.filter != "" {
		cursor := ""
		if l.filtering {
			cursor = "▏"
		}
		out = append(out, st.Accent.Render("filter: ")+safetext.CleanLine(l.filter)+cursor)
	}
	rows := h - len(out)
	if len(v) == 0 {
		msg := "nothing here"
		if l.filter != "" {
			msg = "nothing matches the filter"
		}
		return append(out, st.Muted.Render(msg))
	}
	offset := l.offset
	if l.cursor < offset || l.cursor >= offset+rows { // not fitted yet: keep the cursor in view
		offset = max(l.cursor-rows+1, 0)
	}
	meta := metaWidth(w)
	for i := offset; i < len(v) && i < offset+rows; i++ {
		out = append(out, l.row(t, v[i], i == l.cursor, focused, w, meta))
	}
	return out
}

// count is the heading's count: what shows, of how many (total: the
// section's, or -1 where the loaded list is the whole of it).
func (l *listPane) count(total int) string {
	n := len(l.visible())
	switch {
	case l.filter != "" && total < 0:
		return fmt.Sprintf("%d of %d", n, len(l.items))
	case l.filter != "":
		more := ""
		if l.inStore && l.next != "" {
			more = "+"
		}
		return fmt.Sprintf("%d%s of %d", n, more, max(total, len(l.items)))
	case total >= 0:
		return fmt.Sprint(max(total, n)) // the counts may lag a write by a moment
	}
	return fmt.Sprint(n)
}

// metaWidth is the room a row of a list w cells wide gives the facts
// after the title: the title comes first, so narrower panes drop
// provenance (the detail shows it), then the kind, then the age.
func metaWidth(w int) int {
	switch {
	case w < 30:
		return 0
	case w < 40:
		return 4 // age
	case w < 56:
		return 11 // kind and age
	}
	return 16 // kind, provenance and age
}

// row is a memory's row: its marks, title and the facts meta has room for.
func (l *listPane) row(t themes.Theme, m *memory.Memory, selected, focused bool, w, meta int) string {
	st := t.Styles
	mark := "  "
	if selected {
		mark = "> "
	}
	badge := trustBadge(m, l.asOf) + salienceMark(m) + " "
	line := mark + badge + pad(l.prefix[m.ID]+safetext.CleanLine(m.Title), w-2-3-meta)
	facts := ""
	switch meta {
	case 16:
		facts = fmt.Sprintf(" %-6s %-4s %3s", kindShort(m.Kind), provShort[m.Provenance], age(l.asOf, m.CreatedAt))
	case 11:
		facts = fmt.Sprintf(" %-6s %3s", kindShort(m.Kind), age(l.asOf, m.CreatedAt))
	case 4:
		facts = fmt.Sprintf(" %3s", age(l.asOf, m.CreatedAt))
	}
	switch {
	case selected && focused:
		return st.Selected.Render(pad(line+facts, w))
	case selected:
		return st.Bold.Render(line) + st.Muted.Render(facts)
	}
	return line + st.Muted.Render(facts)
}

// isIDRef reports whether word names a memory rather than starting a text:
// a row of the loaded list, or what can only be a ULID or its prefix
// (Crockford base32, beginning "01", at least four characters).
func (l *listPane) isIDRef(word string) bool {
	if l.localID(word) != word {
		return true
	}
	up := strings.ToUpper(word)
	if len(up) < 4 || len(up) > 26 || !strings.HasPrefix(up, "01") {
		return false
	}
	for _, r := range up {
		if !strings.ContainsRune("0123456789ABCDEFGHJKMNPQRSTVWXYZ", r) {
			return false
		}
	}
	return true
}

// localID completes an id prefix from the loaded list when it names one
// memory there; otherwise the command resolves it against the store.
func (l *listPane) localID(ref string) string {
	up := strings.ToUpper(ref)
	hit := ""
	for _, it := range l.items {
		if strings.HasPrefix(it.ID, up) {
			if hit != "" && hit != it.ID {
				return ref
			}
			hit = it.ID
		}
	}
	if hit == "" {
		return ref
	}
	return hit
}
