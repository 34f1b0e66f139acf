package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/trust"
)

// TestReplCommandsOfDailyUse: /link in the CLI's order, /supersede with
// the new text (straight to the diff, enter stores it), /capture into the
// inbox, /why's tree and walking it, and a failed command leaves a clean
// line with the error under it.
func TestReplCommandsOfDailyUse(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")

	// /link FROM KIND TO, as cairn link takes it.
	press(t, m, "/", "type:link 01KK1BFVM because 01KJZ0RG6", "enter")
	out, _, _ := db.Edges(bg, "01KK1BFVM0N28TD6547TWCRZTF")
	if !slices.ContainsFunc(out, func(e memory.Edge) bool { return e.To == "01KJZ0RG60TCCA0QGJCAW5BHYR" && e.Kind == memory.EdgeBecause }) {
		t.Fatalf("/link FROM KIND TO: %+v", out)
	}

	// /why on the decision: its because and evidence, the root first.
	press(t, m, "4", "select:Parked MTP", "/", "type:why", "enter")
	if m.screen() != modeWhy || len(m.list.items) != 3 {
		t.Fatalf("/why: mode %v, %d rows", m.screen(), len(m.list.items))
	}
	scr := screen(m)
	for _, want := range []string{"├ because → Router overhead", "└ evidence → Bench #41", "why \"Parked MTP for MoE models\": 2 linked"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("/why screen lacks %q:\n%s", want, scr)
		}
	}
	// enter walks to the reason: what rests on it is listed under it.
	press(t, m, "down", "enter")
	if m.screen() != modeWhy || m.list.items[0].ID != "01KJZ0RG60TCCA0QGJCAW5BHYR" {
		t.Fatalf("walking /why: %+v", m.list.items)
	}
	if scr := screen(m); !strings.Contains(scr, "← because Parked MTP") {
		t.Fatalf("what rests on the reason is not shown:\n%s", scr)
	}
	press(t, m, "esc")
	if m.screen() != modeBrowse || m.list.prefix != nil {
		t.Fatalf("esc from /why: mode %v", m.screen())
	}

	// /supersede ID TEXT: the diff at once, enter stores the text.
	press(t, m, "/", "type:supersede 01KJZ0RG6 Router overhead dominates at batch 1 and 2", "enter")
	if m.screen() != modeDiff {
		t.Fatalf("/supersede ID TEXT did not show the diff: mode %v", m.screen())
	}
	press(t, m, "enter")
	old, _ := db.Get(bg, "01KJZ0RG60TCCA0QGJCAW5BHYR")
	if old.Status != memory.StatusSuperseded {
		t.Fatalf("/supersede ID TEXT stored nothing: %s", old.Status)
	}
	if next, _ := db.Get(bg, old.SupersededBy); next == nil || !strings.Contains(next.Title+next.Body, "batch 1 and 2") {
		t.Fatalf("the new version lost the text: %+v", next)
	}

	// /capture TEXT: a draft in the inbox.
	press(t, m, "/", "type:capture the staging deploy needs a VPN", "enter")
	ds, _ := db.Drafts(bg, demoProject.ID, 10)
	if len(ds) != 1 || ds[0].Text != "the staging deploy needs a VPN" || ds[0].Actor != memory.ActorUser {
		t.Fatalf("/capture: %+v", ds)
	}

	// A failed command: the error under a clean line; ↑ brings it back.
	press(t, m, "/", "type:link because", "enter")
	if !m.repl.active || m.repl.in.Value() != "" || !m.repl.hintBad || !strings.Contains(m.repl.hint, "/link [FROM] KIND TO") {
		t.Fatalf("failed command: active %v, line %q, hint %q", m.repl.active, m.repl.in.Value(), m.repl.hint)
	}
	press(t, m, "up")
	if m.repl.in.Value() != "link because" {
		t.Fatalf("↑ after a failure: %q", m.repl.in.Value())
	}
}

// TestConfirmCommand: /confirm ID confirms the named memory, as c does.
func TestConfirmCommand(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "internal/ratelimit"), 0o755)
	os.WriteFile(filepath.Join(root, "internal/ratelimit/bucket.go"), []byte("package ratelimit\n"), 0o644)
	m := appIn(t, db, root, 120, 40, "plain")
	press(t, m, "v")
	sel := selected(t, m)
	press(t, m, "1", "/", "type:confirm "+sel.ID[:12], "enter")
	got, _ := db.Get(bg, sel.ID)
	if len(got.Watermarks) == 0 || got.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("/confirm did not re-stamp %s: %+v\n%s", sel.ID, got.Watermarks, screen(m))
	}
	evs, _ := db.Timeline(bg, demoProject.ID, 1)
	if evs[0].Kind != memory.EventVerify || evs[0].MemoryID != sel.ID {
		t.Fatalf("timeline: %+v", evs[0])
	}
}

// TestHistoryLastsAndKeepsNoSecret: the command line's history is read
// back by the next workbench, from a private file that never holds a line
// with what looks like a secret.
func TestHistoryLastsAndKeepsNoSecret(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	file := filepath.Join(t.TempDir(), "history")
	open := func() Model {
		m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true,
			Now: func() time.Time { return now }, HistoryFile: file,
			Trust: func(p memory.Project) Trust {
				return trust.For(db, p, func() (string, error) { return t.TempDir(), nil }, func(string) string { return "" })
			}})
		m.quiet = true
		m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
		drain(t, m, m.Init())
		drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: 120, Height: 40} })
		return m
	}
	m := open()
	secret := "remember the key is ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	press(t, m, "/", "type:recall rate limiter", "enter", "/", "type:"+secret, "enter", "esc", "/", "type:timeline", "enter")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "ghp_") {
		t.Fatalf("a secret reached the history file:\n%s", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v", fi.Mode().Perm())
	}
	m2 := open()
	press(t, m2, "/", "up")
	if got := m2.repl.in.Value(); got != "timeline" {
		t.Fatalf("↑ in a new workbench: %q", got)
	}
	press(t, m2, "up")
	if got := m2.repl.in.Value(); got != "recall rate limiter" {
		t.Fatalf("↑↑ in a new workbench: %q", got)
	}
}

// TestUnarchiveCompletesArchivedIDs: tab after /unarchive offers the
// archived memories, though the list shows a layer.
func TestUnarchiveCompletesArchivedIDs(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 120, 40, "plain")
	arch, _ := db.List(bg, memory.Query{Project: demoProject.ID, Status: memory.StatusArchived})
	if len(arch.Memories) != 1 {
		t.Fatalf("the demo has %d archived", len(arch.Memories))
	}
	press(t, m, "1", "/", "type:unarchive 01", "tab")
	if got := strings.TrimSpace(m.repl.in.Value()); got != "unarchive "+arch.Memories[0].ID {
		t.Fatalf("completion: %q", got)
	}
	press(t, m, "enter")
	if got, _ := db.Get(bg, arch.Memories[0].ID); got.Status != memory.StatusActive {
		t.Fatalf("unarchive: %s", got.Status)
	}
}

// TestProjectSwitchCountsItsOwnQueue: after /project, the sidebar's
// Verify-first count is the new project's, not the old one's.
func TestProjectSwitchCountsItsOwnQueue(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	other, err := db.EnsureProject(bg, memory.Project{ID: "00000000000000ff", Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject, other}, Theme: "plain", NoColor: true,
		Now: func() time.Time { return now },
		Trust: func(p memory.Project) Trust {
			return trust.For(db, p, func() (string, error) { return t.TempDir(), nil }, func(string) string { return "" })
		}})
	m.quiet = true
	m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
	drain(t, m, m.Init())
	drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: 120, Height: 40} })
	if m.tally.verify == 0 {
		t.Fatal("the demo project has nothing to verify first")
	}
	press(t, m, "/", "type:project other", "enter")
	if m.proj.ID != other.ID || m.tally.verify != 0 {
		t.Fatalf("after /project other: project %s, verify-first count %d", m.proj.Name, m.tally.verify)
	}
}

// TestEveryCommandIsDispatched: each command the registry lists (and so
// the parser, completion and /help know) names the method that carries it
// out, and run does; and every footer hint names a key that does
// what it says (the hints are made from the key table).
func TestEveryCommandIsDispatched(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	for _, c := range registry {
		if c.run == nil {
			t.Errorf("/%s has no method in the registry", c.name)
		}
		if c.name == "quit" {
			continue
		}
		m := app(t, db, 120, 40, "plain")
		press(t, m, "1")
		if _, err := runCommand(m.workbench, "/"+c.name); err != nil && strings.Contains(err.Error(), "not available here") {
			t.Errorf("/%s is listed but run does not carry it out", c.name)
		}
	}
	for _, b := range allBindings() {
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" || b.long == "" {
			t.Errorf("binding %q lacks its keys, footer label or help text", b.label())
		}
	}
}

// The history file in the home is never read or appended through a link
// (to /dev/zero, to someone's file) and never waited on as a FIFO.
func TestHistoryNeverFollowsALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(victim, []byte("mine\n"), 0o600)
	link := filepath.Join(dir, "history")
	os.Symlink(victim, link)
	if got := loadHistory(link); got != nil {
		t.Fatalf("read through a link: %q", got)
	}
	appendHistory(link, "recall x")
	if b, _ := os.ReadFile(victim); string(b) != "mine\n" {
		t.Fatalf("appended through a link: %q", b)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	for _, f := range []string{zero, fifo} {
		if got := loadHistory(f); got != nil {
			t.Fatalf("%s: %d lines", f, len(got))
		}
		appendHistory(f, "recall x")
	}
}
