package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// binding is one key of the workbench, on bubbles' key.Binding: its keys,
// its Help (the short form the footer shows: "a" "archive") and the longer
// description of the help screen. The footers, the help screen and the key
// dispatch all read this one table.
type binding struct {
	key.Binding
	long string
}

// bind makes a binding: keys, the footer's key label and word, the help
// screen's description.
func bind(keys []string, label, short, long string) binding {
	return binding{key.NewBinding(key.WithKeys(keys...), key.WithHelp(label, short)), long}
}

func (b binding) matches(k string) bool { return slices.Contains(b.Keys(), k) }

func (b binding) label() string { return strings.Join(b.Keys(), " ") }

// hint is the binding as the footer shows it: "a archive".
func (b binding) hint() string { return b.Help().Key + " " + b.Help().Desc }

// as is the binding with another word in the footer ("enter follow").
func (b binding) as(desc string) binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// hints joins bindings for the footer.
func hints(bs ...binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.hint()
	}
	return strings.Join(parts, " · ")
}

// keyMap names every binding by its action.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Next, Prev, Open, Back     binding
	Layer, Filter, Command, Archive, Unarchive, Forget, Supersede, Diff binding
	Timeline, Help, Reload, Quit, NextLink, PrevLink, Edit, Explain     binding
	Verify, Confirm, Reject, Rebind, Calibration                        binding
	Inbox, Accept, EditCandidate, Session, Helpful, Unhelpful           binding
	OpenFile, Mark, MarkKind                                            binding
}

var keys = keyMap{
	Up:          bind([]string{"up", "k"}, "↑/↓", "move", "move up"),
	Down:        bind([]string{"down", "j"}, "↓", "move down", "move down"),
	PageUp:      bind([]string{"pgup", "ctrl+u"}, "pgup", "page up", "page up"),
	PageDown:    bind([]string{"pgdown", "ctrl+d"}, "pgdown", "page down", "page down"),
	Top:         bind([]string{"home", "g"}, "g", "first", "first"),
	Bottom:      bind([]string{"end", "G"}, "G", "last", "last"),
	Next:        bind([]string{"tab", "right", "l"}, "tab", "next pane", "next pane"),
	Prev:        bind([]string{"shift+tab", "left", "h"}, "shift+tab", "previous pane", "previous pane"),
	Open:        bind([]string{"enter"}, "enter", "read", "open / follow link"),
	Back:        bind([]string{"esc"}, "esc", "back", "back"),
	Layer:       bind([]string{"1", "2", "3", "4", "5", "6"}, "1-6", "layer", "jump to layer A–F"),
	Filter:      bind([]string{"f"}, "f", "filter", "filter the list as you type"),
	Command:     bind([]string{"/", ":"}, "/", "command", "command line"),
	Archive:     bind([]string{"a"}, "a", "archive", "archive (undo with u)"),
	Unarchive:   bind([]string{"u"}, "u", "undo", "unarchive / undo archive"),
	Forget:      bind([]string{"x"}, "x", "forget", "forget… (asks, shows the text)"),
	Supersede:   bind([]string{"s"}, "s", "supersede", "supersede: write the corrected version"),
	Diff:        bind([]string{"d"}, "d", "diff", "diff with successor or previous version"),
	Timeline:    bind([]string{"t"}, "t", "timeline", "timeline"),
	Help:        bind([]string{"?"}, "?", "help", "help"),
	Reload:      bind([]string{"r"}, "r", "reload", "reload"),
	Quit:        bind([]string{"q", "ctrl+c"}, "q", "quit", "quit"),
	NextLink:    bind([]string{"]"}, "[/]", "link", "next link"),
	PrevLink:    bind([]string{"["}, "[", "previous link", "previous link"),
	Edit:        bind([]string{"ctrl+e"}, "ctrl+e", "$EDITOR", "edit in $EDITOR"),
	Explain:     bind([]string{"e"}, "e", "explain", "explain recall results (after /recall)"),
	Verify:      bind([]string{"v"}, "v", "verify first", "the verify-first queue"),
	Confirm:     bind([]string{"c"}, "c", "confirm", "confirm: the memory still holds (trust restored)"),
	Reject:      bind([]string{"w"}, "w", "reject", "reject: it no longer holds (s writes the fix)"), // w: wrong (n answers the forget dialog)
	Rebind:      bind([]string{"b"}, "b", "rebind", "rebind the memory (/rebind SPEC)"),
	Calibration: bind([]string{"K"}, "K", "calibration", "calibration: do the bindings catch changes?"),
	Inbox:       bind([]string{"i"}, "i", "inbox", "the inbox: drafts and proposals waiting for you"),
	// In the inbox and a proposal's diff, a accepts and w rejects (w as in
	// the verify-first queue: r stays reload everywhere, and "press r to
	// reload" must never reject a proposal).
	Accept:        bind([]string{"a"}, "a", "accept", "accept the proposal"),
	EditCandidate: bind([]string{"e"}, "e", "edit", "edit the proposal, then accept it"),
	Mark:          bind([]string{"space"}, "space", "mark", "Inbox: mark a proposal, to accept (a) or reject (w) the marked together"),
	MarkKind:      bind([]string{"*"}, "*", "mark all", "Inbox: mark every proposal of the selected one's kind (again: unmark)"),
	Session:       bind([]string{"o"}, "o", "episode", "a session's drafts ⇄ its episode"),
	Helpful:       bind([]string{"+"}, "+", "helped", "a recalled memory helped (after /recall; trust unchanged)"),
	Unhelpful:     bind([]string{"-"}, "-", "did not", "a recalled memory did not help (after /recall)"),
	// In the Repository section, e (as enter) opens a section's file at its
	// line: +LINE for vi, vim, nvim, nano, emacs, micro, kak and helix,
	// -g FILE:LINE for code and subl, the file alone for other editors.
	OpenFile: bind([]string{"e"}, "e", "$EDITOR", "Repository: open the section's file at its line in $VISUAL/$EDITOR (+LINE for vi, vim, nvim, nano, emacs, micro, kak, helix; -g FILE:LINE for code, subl; other editors get the file)"),
}

// allBindings is the order of the help screen.
func allBindings() []binding {
	k := keys
	return []binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Next, k.Prev, k.Open, k.Back, k.Layer,
		k.Filter, k.Command, k.Archive, k.Unarchive, k.Forget, k.Supersede, k.Diff, k.Explain, k.Helpful, k.Unhelpful, k.NextLink, k.PrevLink,
		k.Verify, k.Confirm, k.Reject, k.Rebind, k.Calibration, k.Inbox, k.Mark, k.MarkKind, k.Session, k.OpenFile, k.Timeline, k.Reload, k.Help, k.Quit}
}
