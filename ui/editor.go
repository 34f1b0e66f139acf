package ui

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/themes"
)

// editorPane writes the new version of a memory being superseded.
type editorPane struct {
	old *memory.Memory
	ta  textarea.Model
}

func newEditor(old *memory.Memory, isDark bool) *editorPane {
	ta := textarea.New()
	st := textarea.DefaultStyles(isDark)
	st.Cursor.Blink = false
	ta.SetStyles(st)
	ta.ShowLineNumbers = false
	ta.CharLimit = memory.MaxBody
	ta.SetValue(old.Body)
	ta.Focus()
	return &editorPane{old: old, ta: ta}
}

func (e *editorPane) setText(s string) { e.ta.SetValue(s) }

func (e *editorPane) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

// next is the memory the editor holds, to supersede the old one with.
func (e *editorPane) next() *memory.Memory {
	body := e.ta.Value()
	return &memory.Memory{Project: e.old.Project, Layer: e.old.Layer, Kind: e.old.Kind, Body: body,
		Title: memory.DeriveTitle(body), Tags: e.old.Tags, Triggers: e.old.Triggers, Provenance: memory.ProvUserCorrected}
}

func (e *editorPane) view(t themes.Theme, w, h int) string {
	st := t.Styles
	e.ta.SetWidth(max(w, 10))
	e.ta.SetHeight(max(h-4, 3))
	return strings.Join([]string{
		st.Title.Render("Supersede ") + st.Muted.Render(short(e.old.ID)+" · "+e.old.Title),
		st.Muted.Render("Write the corrected version; its first line becomes the title. The old one stays as history."),
		e.ta.View(),
		st.Key.Render("ctrl+s") + " show the diff   " + st.Key.Render("ctrl+e") + " edit in $EDITOR   " + st.Key.Render("esc") + " cancel",
	}, "\n")
}
