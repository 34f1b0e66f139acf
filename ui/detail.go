package ui

import (
	"fmt"
	"strings"

	"cairn/memory"
	"cairn/themes"
)

// renderKey identifies a rendered body: a new version, width or theme
// needs a new render.
type renderKey struct {
	id      string
	version int
	width   int
	theme   string
}

// detailPane shows one memory: the facts that matter, its links (which
// can be followed) and its body rendered as markdown.
type detailPane struct {
	wantID   string
	mem      *memory.Memory
	out, in  []memory.Edge
	titles   map[string]string // titles of the linked memories
	link     int               // selected link, -1 for none
	scroll   int
	rendered map[renderKey]string
}

// linkRef is one navigable link of the shown memory.
type linkRef struct {
	label string
	id    string
}

func (d *detailPane) set(m *memory.Memory, out, in []memory.Edge, titles map[string]string) {
	if d.mem == nil || d.mem.ID != m.ID {
		d.scroll, d.link = 0, -1
	}
	d.mem, d.out, d.in, d.titles = m, out, in, titles
	if d.link >= len(d.links()) {
		d.link = -1
	}
}

func (d *detailPane) clear() {
	d.mem, d.out, d.in, d.wantID, d.link, d.scroll = nil, nil, nil, "", -1, 0
}

// links lists where one can go from the memory: supersession both ways,
// then every other edge out and in.
func (d *detailPane) links() []linkRef {
	if d.mem == nil {
		return nil
	}
	name := func(id string) string {
		if t := d.titles[id]; t != "" {
			return t
		}
		return short(id)
	}
	var ls []linkRef
	if d.mem.SupersededBy != "" {
		ls = append(ls, linkRef{"superseded by: " + name(d.mem.SupersededBy), d.mem.SupersededBy})
	}
	for _, s := range d.mem.Supersedes {
		ls = append(ls, linkRef{"supersedes: " + name(s), s})
	}
	for _, e := range d.out {
		if e.Kind != memory.EdgeSupersedes {
			ls = append(ls, linkRef{fmt.Sprintf("%s → %s", e.Kind, name(e.To)), e.To})
		}
	}
	for _, e := range d.in {
		if e.Kind != memory.EdgeSupersedes {
			ls = append(ls, linkRef{fmt.Sprintf("%s ← %s", e.Kind, name(e.From)), e.From})
		}
	}
	return ls
}

// view renders the detail in w×h cells.
func (d *detailPane) view(t themes.Theme, w, h int, focused bool) []string {
	st := t.Styles
	m := d.mem
	if m == nil {
		return []string{st.Muted.Render("select a memory to read it")}
	}
	li := strings.IndexByte("ABCDEF", byte(m.Layer))
	layer := m.Layer.Letter() + " " + m.Layer.Title()
	if li >= 0 {
		layer = st.Layer[li].Render(layer)
	}
	head := []string{
		st.Title.Render(m.Title),
		layer + st.Muted.Render(" · ") + string(m.Kind) + st.Muted.Render(" · ") + string(m.Status) + st.Muted.Render(fmt.Sprintf(" · v%d", m.Version)),
		fmt.Sprintf("%s · confidence %.2f · trust %s %.2f", m.Provenance, m.Confidence, trustBadge(m), memory.Trust(m)),
	}
	if len(m.Tags) > 0 {
		head = append(head, st.Muted.Render("tags ")+strings.Join(m.Tags, ", "))
	}
	valid := "valid from " + m.ValidFrom.Local().Format("2006-01-02 15:04")
	if !m.ValidUntil.IsZero() {
		valid += " until " + m.ValidUntil.Local().Format("2006-01-02 15:04")
	}
	head = append(head, st.Muted.Render(valid))
	for _, wm := range m.Watermarks {
		head = append(head, st.Muted.Render("bound to ")+wm.Spec()+st.Muted.Render(" ("+string(wm.State)+")"))
	}
	if len(m.Triggers) > 0 {
		head = append(head, st.Muted.Render("triggers ")+strings.Join(m.Triggers, "; "))
	}
	for i, l := range d.links() {
		mark := "  "
		if i == d.link {
			mark = "» "
		}
		line := mark + l.label
		if i == d.link && focused {
			line = st.Selected.Render(line)
		} else {
			line = st.Accent.Render(line)
		}
		head = append(head, line)
	}
	head = append(head, st.Muted.Render(strings.Repeat("─", max(w, 1))))
	body, ok := d.rendered[renderKey{m.ID, m.Version, w, t.Name}]
	if !ok {
		body = m.Body // shown raw until the render arrives
	}
	lines := append(head, wrapAll(strings.Split(body, "\n"), w)...)
	d.scroll = clamp(d.scroll, 0, max(len(lines)-h, 0))
	return lines[d.scroll:]
}
