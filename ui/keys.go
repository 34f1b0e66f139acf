package ui

import "strings"

// binding is one key of the workbench: the keys that trigger it and what
// it does, for the help screen and the footer.
type binding struct {
	keys []string
	help string
}

func (b binding) matches(k string) bool {
	for _, x := range b.keys {
		if x == k {
			return true
		}
	}
	return false
}

func (b binding) label() string { return strings.Join(b.keys, " ") }

// keyMap names every binding by its action.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Next, Prev, Open, Back     binding
	Layer, Filter, Command, Archive, Unarchive, Forget, Supersede, Diff binding
	Timeline, Help, Reload, Quit, NextLink, PrevLink, Edit, Explain     binding
	Verify, Confirm, Reject, Rebind, Calibration                        binding
	Inbox, Accept, EditCandidate, Session, Helpful, Unhelpful           binding
}

var keys = keyMap{
	Up:          binding{[]string{"up", "k"}, "move up"},
	Down:        binding{[]string{"down", "j"}, "move down"},
	PageUp:      binding{[]string{"pgup", "ctrl+u"}, "page up"},
	PageDown:    binding{[]string{"pgdown", "ctrl+d"}, "page down"},
	Top:         binding{[]string{"home", "g"}, "first"},
	Bottom:      binding{[]string{"end", "G"}, "last"},
	Next:        binding{[]string{"tab", "right", "l"}, "next pane"},
	Prev:        binding{[]string{"shift+tab", "left", "h"}, "previous pane"},
	Open:        binding{[]string{"enter"}, "open / follow link"},
	Back:        binding{[]string{"esc"}, "back"},
	Layer:       binding{[]string{"1", "2", "3", "4", "5", "6"}, "jump to layer A–F"},
	Filter:      binding{[]string{"f"}, "filter the list as you type"},
	Command:     binding{[]string{"/", ":"}, "command line"},
	Archive:     binding{[]string{"a"}, "archive (undo with u)"},
	Unarchive:   binding{[]string{"u"}, "unarchive / undo archive"},
	Forget:      binding{[]string{"x"}, "forget… (asks, shows the text)"},
	Supersede:   binding{[]string{"s"}, "supersede: write the corrected version"},
	Diff:        binding{[]string{"d"}, "diff with successor or previous version"},
	Timeline:    binding{[]string{"t"}, "timeline"},
	Help:        binding{[]string{"?"}, "help"},
	Reload:      binding{[]string{"r"}, "reload"},
	Quit:        binding{[]string{"q", "ctrl+c"}, "quit"},
	NextLink:    binding{[]string{"]"}, "next link"},
	PrevLink:    binding{[]string{"["}, "previous link"},
	Edit:        binding{[]string{"ctrl+e"}, "edit in $EDITOR"},
	Explain:     binding{[]string{"e"}, "explain recall results (after /recall)"},
	Verify:      binding{[]string{"v"}, "the verify-first queue"},
	Confirm:     binding{[]string{"c"}, "confirm: the memory still holds (trust restored)"},
	Reject:      binding{[]string{"w"}, "reject: it no longer holds (s writes the fix)"}, // w: wrong (n answers the forget dialog)
	Rebind:      binding{[]string{"b"}, "rebind the memory (/rebind SPEC)"},
	Calibration: binding{[]string{"K"}, "calibration: do the bindings catch changes?"},
	Inbox:       binding{[]string{"i"}, "the inbox: drafts and proposals waiting for you"},
	// In the inbox and a proposal's diff, a accepts and w rejects (w as in
	// the verify-first queue: r stays reload everywhere, and "press r to
	// reload" must never reject a proposal).
	Accept:        binding{[]string{"a"}, "accept the proposal"},
	EditCandidate: binding{[]string{"e"}, "edit the proposal, then accept it"},
	Session:       binding{[]string{"o"}, "a session's drafts ⇄ its episode"},
	Helpful:       binding{[]string{"+"}, "a recalled memory helped (after /recall; trust unchanged)"},
	Unhelpful:     binding{[]string{"-"}, "a recalled memory did not help (after /recall)"},
}

// allBindings is the order of the help screen.
func allBindings() []binding {
	k := keys
	return []binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Next, k.Prev, k.Open, k.Back, k.Layer,
		k.Filter, k.Command, k.Archive, k.Unarchive, k.Forget, k.Supersede, k.Diff, k.Explain, k.Helpful, k.Unhelpful, k.NextLink, k.PrevLink,
		k.Verify, k.Confirm, k.Reject, k.Rebind, k.Calibration, k.Inbox, k.Session, k.Timeline, k.Reload, k.Help, k.Quit}
}
