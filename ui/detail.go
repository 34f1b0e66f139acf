package ui

import (
	"fmt"
	"strings"
	"time"

	"cairn/memory"
	"cairn/mirror"
	"cairn/safetext"
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
	asOf     time.Time // trust is computed at this moment (set in Update)
	wantID   string
	mem      *memory.Memory
	out, in  []memory.Edge
	titles   map[string]string // titles of the linked memories
	link     int               // selected link, -1 for none
	pg       pager             // what shows of lines(), laid out by fit
	rendered map[renderKey]string
	// mirror is where shared memories stand against the team mirror, as
	// last read (nil: no mirror, nothing shown).
	mirror map[string]mirror.Pending
}

// nbsp holds two words together while a line is wrapped; it is shown as
// a space.
const nbsp = "\u00a0"

// linkRef is one navigable link of the shown memory.
type linkRef struct {
	label string
	id    string
}

func (d *detailPane) set(m *memory.Memory, out, in []memory.Edge, titles map[string]string) {
	if d.mem == nil || d.mem.ID != m.ID {
		d.link = -1
		d.pg.top()
	}
	d.mem, d.out, d.in, d.titles = m, out, in, titles
	if d.link >= len(d.links(short)) {
		d.link = -1
	}
}

func (d *detailPane) clear() {
	d.mem, d.out, d.in, d.wantID, d.link = nil, nil, nil, "", -1
	d.pg.top()
}

// links lists where one can go from the memory: supersession both ways,
// then every other edge out and in. A memory without a title is named by
// its short id (sid).
// stepLink selects the next link (by 1) or the previous one (by -1).
func (d *detailPane) stepLink(by int, sid func(string) string) {
	if n := len(d.links(sid)); n > 0 {
		d.link = (d.link + by + n) % n
	}
}

func (d *detailPane) links(sid func(string) string) []linkRef {
	if d.mem == nil {
		return nil
	}
	name := func(id string) string {
		if t := d.titles[id]; t != "" {
			return safetext.CleanLine(t)
		}
		return sid(id)
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

// lines is the whole detail at width w: the facts, the links, the body.
// Ids show in their short form (sid).
func (d *detailPane) lines(t themes.Theme, w int, focused bool, sid func(string) string) []string {
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
	// Every string from the store is neutralised before it is laid out: a
	// title or body may hold escape sequences that would act on the terminal.
	line := safetext.CleanLine
	head := wrapAll([]string{st.Title.Render(line(m.Title))}, w)
	// "trust ● 0.90" is one fact: a narrow pane wraps before it, not inside.
	trustFact := fmt.Sprintf("trust%s%s%s%.2f", nbsp, trustBadge(m, d.asOf), nbsp, memory.TrustAt(m, d.asOf))
	head = append(head, wrapAll([]string{
		layer + st.Muted.Render(" · ") + line(string(m.Kind)) + st.Muted.Render(" · ") + line(string(m.Status)) + st.Muted.Render(fmt.Sprintf(" · v%d", m.Version)),
		fmt.Sprintf("%s · confidence %.2f · %s", m.Provenance, m.Confidence, trustFact),
	}, w)...)
	for i := range head {
		head[i] = strings.ReplaceAll(head[i], nbsp, " ")
	}
	var facts []string
	if memory.TrustAt(m, d.asOf) < 0.5 {
		facts = append(facts, st.Warn.Render("! low trust: verify before relying on it"))
	}
	if len(m.Tags) > 0 {
		facts = append(facts, st.Muted.Render("tags ")+line(strings.Join(m.Tags, ", ")))
	}
	valid := "valid from " + m.ValidFrom.Local().Format("2006-01-02 15:04")
	if !m.ValidUntil.IsZero() {
		valid += " until " + m.ValidUntil.Local().Format("2006-01-02 15:04")
	}
	facts = append(facts, st.Muted.Render(valid))
	for _, wm := range m.Watermarks {
		facts = append(facts, st.Muted.Render("bound to ")+line(wm.Spec())+st.Muted.Render(" ("+line(string(wm.State))+")"))
	}
	if len(m.Triggers) > 0 {
		facts = append(facts, st.Muted.Render("triggers ")+line(strings.Join(m.Triggers, "; ")))
	}
	if d.mirror != nil {
		if p, ok := d.mirror[m.ID]; ok {
			facts = append(facts, st.Muted.Render("team mirror ")+"shared · "+string(p))
		} else {
			facts = append(facts, st.Muted.Render("team mirror ")+"not shared")
		}
	}
	by := ""
	if m.Source.Actor != "" {
		by = " by " + line(string(m.Source.Actor))
	}
	id, created := "id "+sid(m.ID), "created "+m.CreatedAt.Local().Format("2006-01-02")+by
	if len(id)+3+len(created) <= w {
		facts = append(facts, st.Muted.Render(id+" · "+created))
	} else {
		facts = append(facts, st.Muted.Render(id), st.Muted.Render(created))
	}
	head = append(head, wrapAll(facts, w)...)
	for i, l := range d.links(sid) {
		mark := "  "
		if i == d.link {
			mark = "» "
		}
		line := pad(mark+l.label, w)
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
		body = safetext.Clean(m.Body) // shown unrendered until the render arrives
	}
	return append(head, wrapAll(strings.Split(body, "\n"), w)...)
}
