package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cairn/memory"
	"cairn/recall"
	"cairn/trust"
)

// TestRejectKeepsTheMemoryQueuedAndUnserved: w on a queued memory marks it
// rejected; it stays in the verify-first queue with the date of the
// rejection as its first reason, with trust 0. /reject on a trusted memory
// elsewhere puts it in the queue too: its row turns to !, the sidebar
// counts it, and recall no longer serves it as current.
func TestRejectKeepsTheMemoryQueuedAndUnserved(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := app(t, db, 140, 40, "plain")
	press(t, m, "v")
	queued := selected(t, m)
	press(t, m, "w")
	if got, _ := db.Get(bg, queued.ID); got.RejectedAt.IsZero() {
		t.Fatalf("w did not reject %s", queued.ID)
	}
	scr := screen(m)
	if want := `✓ rejected "` + queued.Title + `": write the corrected fact (s supersedes)`; !strings.Contains(scr, want) {
		t.Fatalf("no status %q:\n%s", want, scr)
	}
	if sel := m.list.selected(); sel == nil || sel.ID != queued.ID || m.tally.verify != 1 {
		t.Fatalf("the rejected memory left the queue: %+v, %d queued", sel, m.tally.verify)
	}
	if !strings.Contains(scr, "! rejected on 2026-04-01: write the corrected") || !strings.Contains(scr, "trust ! 0.00") {
		t.Fatalf("the queue does not say it was rejected, or its trust is not 0:\n%s", scr)
	}

	press(t, m, "1")
	trusted := selected(t, m)
	if b := badge(t, m, trusted.Title); b != "●" {
		t.Fatalf("before /reject the row is marked %q, not trusted", b)
	}
	press(t, m, "/", "type:reject", "enter")
	if b := badge(t, m, trusted.Title); b != "!" {
		t.Fatalf("after /reject the row is marked %q, not !", b)
	}
	if !regexp.MustCompile(`! Verify first\s+2 `).MatchString(screen(m)) {
		t.Fatalf("the sidebar does not count the rejected memory:\n%s", screen(m))
	}
	if !strings.Contains(screen(m), "trust ! 0.00") {
		t.Fatalf("the detail still shows the old trust:\n%s", screen(m))
	}
	rec, err := recall.For(bg, db)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rec.Recall(bg, recall.Request{Query: trusted.Title, Projects: []string{demoProject.ID}, Limit: 50, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(resp.Results, func(h recall.Hit) bool { return h.Memory.ID == trusted.ID }) {
		t.Fatalf("recall serves the rejected memory as current")
	}
	if !slices.ContainsFunc(resp.VerifyFirst, func(h recall.Hit) bool { return h.Memory.ID == trusted.ID }) {
		t.Fatalf("recall does not list the rejected memory to verify first: %+v", resp.VerifyFirst)
	}
	press(t, m, "v")
	selectTitle(t, m, trusted.Title)
	if !strings.Contains(screen(m), "! rejected on 2026-04-01") {
		t.Fatalf("the queue does not give the reason:\n%s", screen(m))
	}
}

// badge is the trust mark of the list row that shows title.
func badge(t *testing.T, m Model, title string) string {
	t.Helper()
	row := regexp.MustCompile(`┃ [> ] ([●◐!]) .{0,2}` + regexp.QuoteMeta(title[:min(len(title), 20)]))
	if g := row.FindStringSubmatch(screen(m)); g != nil {
		return g[1]
	}
	t.Fatalf("no list row shows %q:\n%s", title, screen(m))
	return ""
}

// TestCalibrationCountsConfirmAndSupersede: two facts bound to files that
// then change. Confirming one says the binding fired while the fact held
// (noise); superseding the other, that it fired and the fact had changed
// (caught). K shows both in the file row; esc goes back to the queue.
func TestCalibrationCountsConfirmAndSupersede(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	root := t.TempDir()
	svc := trust.For(db, demoProject, func() (string, error) { return root, nil }, func(string) string { return "" })
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bound := func(file, body string) {
		w, err := memory.ParseBinding("file:" + file)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := svc.Bind(bg, []memory.Watermark{w}, body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerState, Body: body, Watermarks: ws}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	write("retry.go", "package net\n\nconst retries = 3\n")
	write("cache.go", "package net\n\nconst cacheTTL = 60\n")
	bound("retry.go", "Requests retry 3 times (retry.go)")
	bound("cache.go", "The cache keeps entries for 60 seconds (cache.go)")
	write("retry.go", "package net\n\n// retries: see the RFC\nconst retries = 3\n") // a comment: the fact holds
	write("cache.go", "package net\n\nconst cacheTTL = 300\n")                       // the fact changed

	m := appIn(t, db, root, 80, 24, "plain")
	press(t, m, "K")
	if !strings.Contains(screen(m), "no reviews yet: confirm, reject, rebind or supersede memories") {
		t.Fatalf("an empty calibration:\n%s", screen(m))
	}
	press(t, m, "esc", "v")
	if m.tally.verify != 2 {
		t.Fatalf("the moved facts are not queued: %d", m.tally.verify)
	}
	press(t, m, "select:Requests retry", "c")
	if !strings.Contains(screen(m), `confirmed "Requests retry 3 times`) {
		t.Fatalf("confirm:\n%s", screen(m))
	}
	press(t, m, "select:The cache keeps", "s")
	m.stack.editor().setText("The cache keeps entries for 300 seconds (cache.go)")
	press(t, m, "ctrl+s", "enter")
	if !strings.Contains(screen(m), "superseded") {
		t.Fatalf("supersede:\n%s", screen(m))
	}
	press(t, m, "/", "type:calibration", "enter")
	if m.screen() != modeCalibration {
		t.Fatalf("/calibration did not open the pane")
	}
	scr := screen(m)
	if !strings.Contains(scr, "Calibration 2 reviews") {
		t.Fatalf("the review count:\n%s", scr)
	}
	// kind, caught, noise, missed, quiet, noise %, missed %
	if !regexp.MustCompile(`(?m)^┃ file\s+1\s+1\s+0\s+0\s+50 %\s+0 %\s+┃$`).MatchString(scr) {
		t.Fatalf("the file row does not show 1 caught and 1 noise:\n%s", scr)
	}
	if !regexp.MustCompile(`(?m)^┃ none\s+0\s+0\s+0\s+0\s+-\s+-\s+┃$`).MatchString(scr) || !strings.Contains(scr, "✓ no binding flagged") {
		t.Fatalf("other kinds or flags:\n%s", scr)
	}
	press(t, m, "esc")
	if m.screen() != modeBrowse || m.section != sectionVerify {
		t.Fatalf("esc did not go back to the queue: mode %d section %d", m.screen(), m.section)
	}
}

// TestReviewsNeedAProject: without a trust service (no project opened
// from the command line) reject and calibration say what they need.
func TestReviewsNeedAProject(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true,
		Now: func() time.Time { return now }})
	m.quiet = true
	m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
	drain(t, m, m.Init())
	drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: 80, Height: 24} })
	sel := selected(t, m)
	press(t, m, "w")
	if !strings.Contains(screen(m), "reject needs the workbench opened on a project") {
		t.Fatalf("w without a project:\n%s", screen(m))
	}
	press(t, m, "K")
	if m.screen() == modeCalibration || !strings.Contains(screen(m), "calibration needs the workbench opened on a project") {
		t.Fatalf("K without a project:\n%s", screen(m))
	}
	press(t, m, "/", "type:reject", "enter")
	if !strings.Contains(screen(m), "/reject needs the workbench opened on a project") {
		t.Fatalf("/reject without a project:\n%s", screen(m))
	}
	if got, _ := db.Get(bg, sel.ID); !got.RejectedAt.IsZero() {
		t.Fatalf("rejected without a project")
	}
}

// TestEveryKeyAroundReviews presses every key of the workbench in the
// states this feature adds (the queue after a rejection, the calibration
// pane while it loads, empty, and with reviews): nothing panics and every
// screen draws.
func TestEveryKeyAroundReviews(t *testing.T) {
	t.Parallel()
	var every []string
	for _, b := range allBindings() {
		for _, k := range b.Keys() {
			if k != "q" && k != "ctrl+c" { // quit: the test would go on in a stopped workbench
				every = append(every, k)
			}
		}
	}
	every = append(every, "space", "y", "n", "N", "W", "?")
	db := openStore(t, true)
	m := app(t, db, 80, 24, "dark")

	// The pane before its numbers arrive: keys go to it, not to the list.
	m.Update(keyMsg("K"))
	if m.screen() != modeCalibration || !strings.Contains(screen(m), "counting the reviews") {
		t.Fatalf("the loading pane:\n%s", screen(m))
	}
	for _, k := range every {
		m.Update(keyMsg(k))
		_ = screen(m)
	}
	press(t, m, "esc", "esc", "1")
	for _, state := range [][]string{{"K"}, {"v", "w", "K"}} {
		press(t, m, state...)
		for _, k := range every {
			if m.screen() != modeCalibration {
				press(t, m, "K")
			}
			press(t, m, k)
			_ = screen(m)
		}
	}
	for _, k := range []string{"esc", "q", "K", "v"} { // each closes it
		press(t, m, "K", k)
		if m.screen() == modeCalibration {
			t.Fatalf("%s did not close the calibration", k)
		}
	}
	if m.section != sectionVerify {
		t.Fatalf("v in the calibration did not open the queue: section %d", m.section)
	}

	// The queue holding a rejected memory, from the list and from the detail.
	for _, state := range [][]string{{"v"}, {"v", "enter"}} {
		for _, k := range every {
			press(t, m, "esc", "esc", "esc")
			press(t, m, state...)
			press(t, m, k)
			_ = screen(m)
		}
	}
	if page, _ := db.List(bg, memory.Query{Project: demoProject.ID}); len(page.Memories) == 0 {
		t.Fatal("the store is empty after the keys")
	}
}

// What is written in the workbench is bound like any write: /remember
// binds to a file its text names that exists in the project, and only to
// that.
func TestRememberInTheWorkbenchBinds(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "decode.txt"), []byte("+229 %\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := appIn(t, db, root, 140, 40, "plain")
	press(t, m, "/", "type:remember -l B decode is +229 %, see decode.txt and src/missing.go", "enter")
	page, err := db.List(bg, memory.Query{Project: demoProject.ID, Layer: memory.LayerState, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got *memory.Memory
	for _, mm := range page.Memories {
		if strings.HasPrefix(mm.Body, "decode is +229 %") {
			got = mm
		}
	}
	if got == nil {
		t.Fatalf("not remembered:\n%s", screen(m))
	}
	if len(got.Watermarks) != 1 || got.Watermarks[0].Spec() != "file:decode.txt" || got.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("bindings: %+v", got.Watermarks)
	}
}
