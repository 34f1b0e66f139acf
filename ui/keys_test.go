package ui

import (
	"strings"
	"testing"
)

// Every key the footer names in a view is carried out there: a footer row
// that only names a key has a row that acts on the same key in its table,
// or in the keys that work wherever a pane has the keyboard.
func TestFooterNamesOnlyKeysThatAct(t *testing.T) {
	t.Parallel()
	tables := map[string]keyTable{"sidebar": sidebarKeys, "list": listKeys, "detail": detailKeys, "timeline": timelineKeys,
		"inbox": inboxKeys, "repository": repoKeys, "diff": diffKeys, "help": helpKeys, "calibration": calibrationKeys,
		"report": reportKeys, "editor": editorKeys, "command line": replKeys, "filter": listFilterKeys, "forget": forgetKeys, "drop": dropKeys}
	global := map[string]bool{"sidebar": true, "list": true, "detail": true, "timeline": true, "inbox": true, "repository": true}
	for name, tab := range tables {
		acts := map[string]bool{}
		for _, r := range tab {
			if r.do != nil {
				for _, k := range r.b.Keys() {
					acts[k] = true
				}
			}
		}
		if global[name] {
			for _, r := range globalKeys {
				for _, k := range r.b.Keys() {
					acts[k] = true
				}
			}
		}
		for _, r := range tab {
			if r.footer == nil || r.typing {
				continue
			}
			for _, k := range r.b.Keys() {
				if !acts[k] {
					t.Errorf("%s: the footer names %q (%s) but no row of the view acts on it", name, k, r.b.hint())
				}
			}
		}
	}
}

// The help lists each key once: a key with a meaning per view says where
// each applies (e explains recall results, edits a proposal, opens a file).
func TestHelpListsEachKeyOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, e := range helpEntries() {
		if seen[e.label] {
			t.Errorf("the help lists %q twice", e.label)
		}
		seen[e.label] = true
	}
	var help string
	for _, e := range helpEntries() {
		if e.label == "e" {
			help = e.text
		}
	}
	for _, want := range []string{"after /recall: explain", "Inbox and a proposal's diff: edit the proposal", "Repository: open the section's file"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help does not say where e means %q:\n%s", want, help)
		}
	}
}

// The keys the footers named and did not carry out now act: tab leaves
// the timeline for the sidebar, / opens the command line over a run's
// report (for /undo), and the report still shows under it.
func TestFooterPromisesAreKept(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")
	press(t, m, "t")
	if !strings.Contains(screen(m), "tab sidebar") {
		t.Fatalf("the timeline's footer:\n%s", screen(m))
	}
	press(t, m, "tab")
	if m.focus != focusSidebar {
		t.Fatalf("tab in the timeline: focus %d, want the sidebar", m.focus)
	}
	m.stack.push(&reportPane{title: "Consolidation run 01TEST", lines: []string{"nothing changed"}})
	press(t, m, "/")
	if !m.repl.active || m.screen() != modeReport || !strings.Contains(screen(m), "Consolidation run 01TEST") {
		t.Fatalf("/ over a report: command line %v, screen %d:\n%s", m.repl.active, m.screen(), screen(m))
	}
}

// The help's "In views" lines are written for reading, so each is checked
// against its view's table: every key that acts there is named on its line
// (or, for a key with a meaning per view, in the Keys list with where it
// applies). Moving keys (arrows, pages, esc, typing) go without saying.
func TestHelpNamesEveryKeyOfEachView(t *testing.T) {
	t.Parallel()
	views := map[string]keyTable{
		"filter (f)": listFilterKeys, "command line": replKeys, "forget dialog": forgetKeys,
		"supersede editor": editorKeys, "calibration (K)": calibrationKeys, "diff": diffKeys,
		"inbox (i)": inboxKeys, "repository": repoKeys, "run report": reportKeys,
	}
	goesWithoutSaying := map[string]bool{}
	for _, b := range []binding{keys.Up, keys.Down, keys.PageUp, keys.PageDown, keys.Top, keys.Bottom,
		keys.Scroll, keys.Type, keys.Erase, keys.Interrupt, keys.Next, keys.Prev, keys.Back, keys.Close, keys.Help} {
		goesWithoutSaying[b.label()] = true
	}
	arrows := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→"}
	line := map[string]string{}
	for _, c := range contextKeys {
		line[c.where] = c.keys
	}
	keysList := map[string]string{}
	for _, e := range helpEntries() {
		keysList[e.label] = e.text
	}
	for where, table := range views {
		text, ok := line[where]
		if !ok {
			t.Errorf("the help has no line for %q", where)
			continue
		}
		words := map[string]bool{}
		for _, f := range strings.Fields(strings.NewReplacer("·", " ", ",", " ").Replace(text)) {
			words[f] = true
			for _, part := range strings.Split(f, "/") {
				words[part] = true
			}
		}
		for _, r := range table {
			if r.do == nil || r.typing || goesWithoutSaying[r.b.label()] {
				continue
			}
			named := false
			for _, k := range r.b.Keys() {
				if words[k] || words[arrows[k]] {
					named = true
				}
			}
			if !named && r.b.where != "" && keysList[r.b.label()] != "" {
				named = true // the Keys list says where this meaning applies
			}
			if !named {
				t.Errorf("help line %q does not name %q (%s), which acts there", where, r.b.label(), r.b.Help().Desc)
			}
		}
	}
}
