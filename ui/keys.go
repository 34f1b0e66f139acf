package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// binding is one key of the workbench, on bubbles' key.Binding: its keys,
// its Help (the short form the footer shows: "a" "archive"), the longer
// description of the help screen and, for a key that means another thing
// elsewhere, where this meaning applies.
type binding struct {
	key.Binding
	long  string
	where string // "" everywhere; else the view this meaning belongs to
}

// bind makes a binding: keys, the footer's key label and word, the help
// screen's description.
func bind(keys []string, label, short, long string) binding {
	return binding{Binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(label, short)), long: long}
}

// in is the binding as one view's meaning of its key (the help says where).
func (b binding) in(where string) binding {
	b.where = where
	return b
}

// matches says whether the key press is one of b's keys.
func (b binding) matches(k tea.KeyPressMsg) bool { return key.Matches(k, b.Binding) }

func (b binding) label() string { return strings.Join(b.Keys(), " ") }

// hint is the binding as the footer shows it: "a archive".
func (b binding) hint() string { return b.Help().Key + " " + b.Help().Desc }

// as is the binding with another word in the footer ("enter follow").
func (b binding) as(desc string) binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// shown is the binding with another label and word in the footer
// ("/consolidate turns drafts into memories" on the command key).
func (b binding) shown(label, desc string) binding {
	b.SetHelp(label, desc)
	return b
}

// keyMap names every binding by its action.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Next, Prev, Open, Back     binding
	Layer, Filter, Command, Archive, Unarchive, Forget, Supersede, Diff binding
	Timeline, Help, Reload, Quit, NextLink, PrevLink, Edit, Explain     binding
	Verify, Confirm, Reject, Rebind, Calibration                        binding
	Inbox, Accept, EditCandidate, Session, Helpful, Unhelpful           binding
	OpenFile, Mark, MarkKind                                            binding

	// The keys of the views that take the keyboard for a while: the
	// overlays, the dialogs, and the lines one types into.
	Close, Older, Newer, Review, Space, Yes, No, Complete, Erase, ArrowUp, ArrowDown, Type binding
	Scroll, Interrupt                                                                      binding
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
	Explain:     bind([]string{"e"}, "e", "explain", "explain recall results").in("after /recall"),
	Verify:      bind([]string{"v"}, "v", "verify first", "the verify-first queue"),
	Confirm:     bind([]string{"c"}, "c", "confirm", "confirm: the memory still holds (trust restored)"),
	Reject:      bind([]string{"w"}, "w", "reject", "reject: it no longer holds (s writes the fix)"), // w: wrong (n answers the forget dialog)
	Rebind:      bind([]string{"b"}, "b", "rebind", "rebind the memory (/rebind SPEC)"),
	Calibration: bind([]string{"K"}, "K", "calibration", "calibration: do the bindings catch changes?"),
	Inbox:       bind([]string{"i"}, "i", "inbox", "the inbox: drafts and proposals waiting for you"),
	// In the inbox and a proposal's diff, a accepts and w rejects (w as in
	// the verify-first queue: r stays reload everywhere, and "press r to
	// reload" must never reject a proposal).
	Accept:        bind([]string{"a"}, "a", "accept", "accept the proposal").in("Inbox and a proposal's diff"),
	EditCandidate: bind([]string{"e"}, "e", "edit", "edit the proposal, then accept it").in("Inbox and a proposal's diff"),
	Mark:          bind([]string{"space"}, "space", "mark", "mark a proposal, to accept (a) or reject (w) the marked together").in("Inbox"),
	MarkKind:      bind([]string{"*"}, "*", "mark all", "mark every proposal of the selected one's kind (again: unmark)").in("Inbox"),
	Session:       bind([]string{"o"}, "o", "episode", "a session's drafts ⇄ its episode"),
	Helpful:       bind([]string{"+"}, "+", "helped", "a recalled memory helped (trust unchanged)").in("after /recall"),
	Unhelpful:     bind([]string{"-"}, "-", "did not", "a recalled memory did not help").in("after /recall"),
	// In the Repository section, e (as enter) opens a section's file at its
	// line: +LINE for vi, vim, nvim, nano, emacs, micro, kak and helix,
	// -g FILE:LINE for code and subl, the file alone for other editors.
	OpenFile: bind([]string{"e"}, "e", "$EDITOR", "open the section's file at its line in $VISUAL/$EDITOR (+LINE for vi, vim, nvim, nano, emacs, micro, kak, helix; -g FILE:LINE for code, subl; other editors get the file)").in("Repository"),

	Close:     bind([]string{"esc", "q"}, "esc", "close", "close"),
	Older:     bind([]string{"left", "h"}, "←/→", "older/newer pair", "the older pair of versions"),
	Newer:     bind([]string{"right", "l"}, "→", "newer pair", "the newer pair of versions"),
	Review:    bind([]string{"ctrl+s"}, "ctrl+s", "diff", "show the diff of the new version"),
	Space:     bind([]string{"space"}, "space", "page down", "page down"),
	Yes:       bind([]string{"y", "Y"}, "y", "forget", "yes"),
	No:        bind([]string{"n", "N", "esc", "enter", "q"}, "N/enter/esc", "keep", "no (the default)"),
	Complete:  bind([]string{"tab"}, "tab", "complete", "complete the command"),
	Erase:     bind([]string{"backspace"}, "backspace", "erase", "erase a character"),
	ArrowUp:   bind([]string{"up"}, "↑/↓", "history", "up"),
	ArrowDown: bind([]string{"down"}, "↓", "down", "down"),
	Type:      bind(nil, "type", "to filter", "type"),
	// Scroll is every reading key of a pager (pager.key tells them apart).
	Scroll:    bind([]string{"up", "k", "down", "j", "pgup", "ctrl+u", "pgdown", "ctrl+d", "space", "home", "g", "end", "G"}, "↑/↓", "scroll", "scroll"),
	Interrupt: bind([]string{"ctrl+c"}, "ctrl+c", "quit", "quit, whatever has the keyboard"),
}

// allBindings is the order of the help screen. A key that means another
// thing in another view comes once, with each meaning and where it applies.
func allBindings() []binding {
	k := keys
	return []binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Next, k.Prev, k.Open, k.Back, k.Layer,
		k.Filter, k.Command, k.Archive, k.Accept, k.Unarchive, k.Forget, k.Supersede, k.Diff, k.Explain, k.EditCandidate, k.OpenFile,
		k.Helpful, k.Unhelpful, k.NextLink, k.PrevLink,
		k.Verify, k.Confirm, k.Reject, k.Rebind, k.Calibration, k.Inbox, k.Mark, k.MarkKind, k.Session, k.Timeline, k.Reload, k.Help, k.Quit}
}

// keyFn is what a key does.
type keyFn func(*workbench, tea.KeyPressMsg) tea.Cmd

// cond is a question about the workbench's state (where a row applies,
// when the footer names it).
type cond func(*workbench) bool

// keyRow is one binding in one view: where it applies (on; nil: wherever
// its table is asked), why it does nothing now (off: a reason said in
// the status line, or ""), what it does, and when the footer names it
// (footer; nil: never). A row that does nothing (do nil) only names, in
// the footer, a key another row carries out; a typing row takes every key
// no other row of its table took (a filter, the command line, an editor).
type keyRow struct {
	b      binding
	on     cond
	off    func(*workbench) string
	do     keyFn
	footer cond
	typing bool
	word   func(*workbench) string // the footer's word, when it depends on the state
}

// always is the condition that always holds.
func always(*workbench) bool { return true }

// keyTable is the keys of one view, in the order the footer names them.
type keyTable []keyRow

// dispatch carries out the first row whose binding matches k and that
// applies now (a typing row only when no other row took k); ok is false
// when no row of the table took k.
func (t keyTable) dispatch(m *workbench, k tea.KeyPressMsg) (tea.Cmd, bool) {
	var typing *keyRow
	for i := range t {
		r := &t[i]
		if r.on != nil && !r.on(m) {
			continue
		}
		if r.typing && typing == nil {
			typing = r
		}
		if r.do == nil || r.typing || !r.b.matches(k) {
			continue
		}
		return r.run(m, k), true
	}
	if typing != nil {
		return typing.run(m, k), true
	}
	return nil, false
}

func (r *keyRow) run(m *workbench, k tea.KeyPressMsg) tea.Cmd {
	if r.off != nil {
		if why := r.off(m); why != "" {
			return m.say(why, true)
		}
	}
	return r.do(m, k)
}

// hints is the footer of the table: the rows it names now.
func (t keyTable) hints(m *workbench) string {
	var parts []string
	for _, r := range t {
		if r.footer == nil || !r.footer(m) || (r.on != nil && !r.on(m)) {
			continue
		}
		b := r.b
		if r.word != nil {
			b = b.as(r.word(m))
		}
		parts = append(parts, b.hint())
	}
	return strings.Join(parts, " · ")
}

// row is a binding's row in a table: it does do wherever the table applies.
func row(b binding, do keyFn) keyRow { return keyRow{b: b, do: do} }

// hint is a row that only names b in the footer when c holds.
func hint(b binding, c cond) keyRow { return keyRow{b: b, footer: c} }

// when is r applying only where c holds.
func (r keyRow) when(c cond) keyRow {
	if r.on != nil {
		on := r.on
		r.on = func(m *workbench) bool { return on(m) && c(m) }
		return r
	}
	r.on = c
	return r
}

// named is r named in the footer when c holds.
func (r keyRow) named(c cond) keyRow {
	r.footer = c
	return r
}

// unless is r saying why instead of acting while reason gives one.
func (r keyRow) unless(reason func(*workbench) string) keyRow {
	r.off = reason
	return r
}

// not is the condition that c does not hold.
func not(c cond) cond { return func(m *workbench) bool { return !c(m) } }

// both is the condition that a and b hold.
func both(a, b cond) cond { return func(m *workbench) bool { return a(m) && b(m) } }
