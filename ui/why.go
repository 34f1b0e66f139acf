package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
)

// /why: the tree of what a memory rests on and what rests on it, shown in
// the list; enter walks to a row's own reasons.

// whyLoaded shows /why's tree in the list.
func (msg whyLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.err != nil {
		return m.fail("read why", msg.err)
	}
	m.reqSeq++
	m.whyRoot, m.recallQuery = msg.root.Title, ""
	m.list.replace(msg.items)
	m.list.prefix = map[string]string{}
	for i, it := range msg.items {
		m.list.prefix[it.ID] = msg.prefixes[i]
	}
	m.mode, m.focus, m.stack = modeWhy, focusList, nil
	n := len(msg.items) - 1
	if n == 0 {
		m.say(fmt.Sprintf("why %q: no reasons or evidence linked — /link because ID adds one", safetext.CleanLine(msg.root.Title)), false)
	} else {
		m.say(fmt.Sprintf("why %q: %d linked — enter walks to one · esc back", safetext.CleanLine(msg.root.Title), n), false)
	}
	return m.openSelected()
}

// whyDepth bounds how far /why follows reasons: a decision, its reasons,
// their evidence and one step more.
const whyDepth = 4

// reasonKinds are the links /why follows from a memory to what it rests on.
var reasonKinds = map[memory.EdgeKind]bool{memory.EdgeBecause: true, memory.EdgeEvidence: true,
	memory.EdgeDependsOn: true, memory.EdgeDerivedFrom: true, memory.EdgeContradicts: true}

// loadWhy reads the tree of what a memory rests on (because, evidence,
// depends on, derived from, contradicts, followed to whyDepth) and, below
// it, what rests on the memory, as rows with their tree prefixes.
func loadWhy(ctx context.Context, st Store, ref string) tea.Cmd {
	return func() tea.Msg {
		root, err := getRef(ctx, st, ref)
		if err != nil {
			return whyLoadedMsg{err: err}
		}
		w := whyMsgBuilder{ctx: ctx, st: st, seen: map[string]bool{root.ID: true}}
		w.add(root, "")
		if err := w.down(root.ID, "", 1); err != nil {
			return whyLoadedMsg{err: err}
		}
		_, in, err := st.Edges(ctx, root.ID)
		if err != nil {
			return whyLoadedMsg{err: err}
		}
		for _, e := range in {
			if !reasonKinds[e.Kind] || !e.Active || w.seen[e.From] {
				continue
			}
			if m, err := st.Get(ctx, e.From); err == nil {
				w.seen[m.ID] = true
				w.add(m, "← "+edgeLabel(e.Kind)+" ")
			}
		}
		return whyLoadedMsg{root: root, items: w.items, prefixes: w.prefixes}
	}
}

type whyMsgBuilder struct {
	ctx      context.Context
	st       Store
	seen     map[string]bool
	items    []*memory.Memory
	prefixes []string
}

func (w *whyMsgBuilder) add(m *memory.Memory, prefix string) {
	w.items, w.prefixes = append(w.items, m), append(w.prefixes, prefix)
}

// down adds the reasons of id under indent, depth levels from the root.
func (w *whyMsgBuilder) down(id, indent string, depth int) error {
	if depth > whyDepth {
		return nil
	}
	out, _, err := w.st.Edges(w.ctx, id)
	if err != nil {
		return err
	}
	var kids []memory.Edge
	for _, e := range out {
		if reasonKinds[e.Kind] && e.Active && !w.seen[e.To] {
			w.seen[e.To] = true // a memory shows once, where it is first reached
			kids = append(kids, e)
		}
	}
	for i, e := range kids {
		m, err := w.st.Get(w.ctx, e.To)
		if err != nil {
			continue // forgotten meanwhile
		}
		branch, next := "├ ", "│ "
		if i == len(kids)-1 {
			branch, next = "└ ", "  "
		}
		w.add(m, indent+branch+edgeLabel(e.Kind)+" → ")
		if err := w.down(m.ID, indent+next, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// edgeLabel names a link kind as a person reads it.
func edgeLabel(k memory.EdgeKind) string { return strings.ReplaceAll(string(k), "_", " ") }
