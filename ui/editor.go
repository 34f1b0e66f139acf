package ui

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// editorPane writes the new version of a memory being superseded.
type editorPane struct {
	old *memory.Memory
	ta  textarea.Model
	// proposal, when set, is the inbox proposal whose candidate (old) is
	// being edited before it is accepted; about is the stored memory the
	// proposal is about (nil for a new memory).
	proposal string
	about    *memory.Memory
}

func newEditor(old *memory.Memory, isDark bool) *editorPane {
	ta := textarea.New()
	st := textarea.DefaultStyles(isDark)
	st.Cursor.Blink = false
	ta.SetStyles(st)
	ta.ShowLineNumbers = false
	ta.CharLimit = memory.MaxBody
	ta.SetValue(editText(old))
	ta.Focus()
	return &editorPane{old: old, ta: ta}
}

func (e *editorPane) setText(s string) { e.ta.SetValue(s) }

// edit hands a key or a paste to the text area.
func (e *editorPane) edit(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

// editText is a memory as the editor holds it: the title on the first
// line, a blank line, the body. It is neutralised (escapes shown as
// pictures): the editor shows it, and what it shows is what is stored.
func editText(m *memory.Memory) string {
	return safetext.CleanLine(m.Title) + "\n\n" + safetext.Clean(m.Body)
}

// splitEdit reads the editor's text back: the first non-empty line is the
// title (a leading "# " is dropped), the rest is the body; a single line
// is both.
func splitEdit(text string) (title, body string) {
	text = strings.TrimSpace(text)
	first, rest, _ := strings.Cut(text, "\n")
	title = strings.TrimSpace(first)
	if h := strings.TrimLeft(title, "#"); h != title && strings.HasPrefix(h, " ") {
		title = strings.TrimSpace(h) // a markdown heading
	}
	body = strings.TrimSpace(rest)
	if body == "" {
		body = title
	}
	return title, body
}

// next is the memory the editor holds, to supersede the old one with.
func (e *editorPane) next() *memory.Memory {
	title, body := splitEdit(e.ta.Value())
	return &memory.Memory{Project: e.old.Project, Layer: e.old.Layer, Kind: e.old.Kind, Body: body,
		Title: title, Tags: e.old.Tags, Triggers: e.old.Triggers, Provenance: memory.ProvUserCorrected}
}

// setSize fits the text area into a w×h view, under its two lines of
// heading and over its line of keys.
func (e *editorPane) setSize(w, h int) {
	e.ta.SetWidth(max(w, 10))
	e.ta.SetHeight(max(h-4, 3))
}

func (e *editorPane) view(t themes.Theme, w, h int, sid func(string) string) string {
	st := t.Styles
	if e.proposal != "" {
		return strings.Join([]string{
			st.Title.Render("Edit the proposal ") + st.Muted.Render(short(e.proposal)+" · "+safetext.CleanLine(e.old.Title)),
			st.Muted.Render("First line: the title; then the body. Accepting stores your version."),
			e.ta.View(),
			st.Key.Render("ctrl+s") + " show the diff   " + st.Key.Render("ctrl+e") + " edit in $EDITOR   " + st.Key.Render("esc") + " cancel",
		}, "\n")
	}
	return strings.Join([]string{
		st.Title.Render("Supersede ") + st.Muted.Render(sid(e.old.ID)+" · "+safetext.CleanLine(e.old.Title)),
		st.Muted.Render("First line: the title; then the body. The old version stays as history."),
		e.ta.View(),
		st.Key.Render("ctrl+s") + " show the diff   " + st.Key.Render("ctrl+e") + " edit in $EDITOR   " + st.Key.Render("esc") + " cancel",
	}, "\n")
}
