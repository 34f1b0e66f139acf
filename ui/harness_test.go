package ui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cairn/exchange"
	"cairn/memory"
	"cairn/store"
	"cairn/trust"
)

// bg is the tests' own context: the workbench's commands get its context.
var bg = context.Background()

// updating reports -update, the flag teatest's golden package defines,
// which rewrites the golden screens.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// now is the pinned clock of every test: ages and times on screen are stable.
var now = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

// benchTemp is the 100k-memory store the benchmarks share.
var benchTemp string

func TestMain(m *testing.M) {
	time.Local = time.UTC
	code := m.Run()
	if benchTemp != "" {
		os.RemoveAll(benchTemp)
	}
	os.Exit(code)
}

var demoProject = memory.Project{ID: "00000000000000de", Name: "demo"}

// openStore opens a real store in a temp dir, seeded from the demo sample set.
func openStore(t testing.TB, seed bool) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(bg, demoProject); err != nil {
		t.Fatal(err)
	}
	if seed {
		f, err := os.Open("../testdata/demo.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := exchange.ReadJSONL(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// app is a workbench over db at w×h, with every start-up command done.
// The project's files are in an empty directory: none of the demo's bound
// files exist there.
func app(t testing.TB, db *store.DB, w, h int, theme string) Model {
	t.Helper()
	return appIn(t, db, t.TempDir(), w, h, theme)
}

// appIn is app with the project's files in root.
func appIn(t testing.TB, db *store.DB, root string, w, h int, theme string) Model {
	t.Helper()
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: theme, NoColor: theme == "plain",
		Now: func() time.Time { return now },
		Trust: func(p memory.Project) Trust {
			return trust.For(db, p, func() (string, error) { return root, nil }, func(string) string { return "" })
		}})
	m.quiet = true // no spinner: its ticks are timers
	m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
	drain(t, m, m.Init())
	drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} })
	return m
}

// timerSet stands for a timer the model set (status expiry, the refresh
// after other writes): drain does not wait for timers, a test that needs
// one to fire sends its message itself.
type timerSet struct{}

// drain runs cmd and every command its messages lead to, feeding the
// messages to the model, as the Bubble Tea runtime would, and waits for
// each: a store call may be slow on a loaded machine. Timers are left out.
func drain(t testing.TB, m Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("commands never settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("a command did not answer in 30 s")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case timerSet, tea.QuitMsg, spinner.TickMsg, statusClearMsg:
			// the runtime's clockwork: nothing a screen test waits for
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// press sends keys: names like "enter", "esc", "ctrl+s", "tab", "up", or
// text typed character by character when prefixed with "type:".
func press(t testing.TB, m Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if sub, ok := strings.CutPrefix(k, "select:"); ok {
			selectTitle(t, m, sub)
			continue
		}
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				kp := tea.KeyPressMsg{Code: r, Text: string(r)}
				if r == ' ' {
					kp = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
				}
				drain(t, m, func() tea.Msg { return kp })
			}
			continue
		}
		kp := keyMsg(k)
		drain(t, m, func() tea.Msg { return kp })
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight}
	if k == "shift+tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if name, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(name[0]), Mod: tea.ModCtrl}
	}
	if r, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is what a person sees, without colours.
func screen(m Model) string {
	lines := strings.Split(ansi.Strip(m.View().Content), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// sgr is one Select Graphic Rendition sequence: how the terminal is told
// a colour or an emphasis.
var sgr = regexp.MustCompile("\x1b\\[([0-9;]*)m")

// styled is the screen with its styles written out where they change, as
// ⟦#7aa2f7 bold⟧ (a foreground), ⟦on#33467c⟧ (a background), ⟦/⟧ (plain
// again): the golden of a coloured theme holds its colours, so a colour
// that changes fails a test, and it still reads as the screen.
func styled(m Model) string {
	out := sgr.ReplaceAllStringFunc(m.View().Content, func(seq string) string {
		return "⟦" + sgrWords(sgr.FindStringSubmatch(seq)[1]) + "⟧"
	})
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// sgrWords names the parameters of an SGR sequence.
func sgrWords(params string) string {
	if params == "" || params == "0" {
		return "/"
	}
	ps := strings.Split(params, ";")
	var words []string
	for i := 0; i < len(ps); i++ {
		switch p := ps[i]; {
		case (p == "38" || p == "48") && i+4 < len(ps) && ps[i+1] == "2":
			var rgb [3]int
			for j := range rgb {
				rgb[j], _ = strconv.Atoi(ps[i+2+j])
			}
			words = append(words, map[string]string{"38": "", "48": "on"}[p]+fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2]))
			i += 4
		case (p == "38" || p == "48") && i+2 < len(ps) && ps[i+1] == "5":
			words = append(words, map[string]string{"38": "", "48": "on"}[p]+"@"+ps[i+2])
			i += 2
		default:
			w, ok := map[string]string{"0": "/", "1": "bold", "2": "faint", "3": "italic", "4": "underline", "7": "reverse", "9": "strike"}[p]
			if !ok {
				w = "sgr" + p
			}
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// shown is what a golden holds of the screen: the styles too for a
// coloured theme's (name ends in _dark or _light), the text alone without
// colour.
func shown(m Model, name string) string {
	if strings.HasSuffix(name, "_dark") || strings.HasSuffix(name, "_light") {
		return styled(m)
	}
	return screen(m)
}

// golden compares the screen with testdata/<name>.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("screen %s differs from its golden (go test ./ui -update rewrites it):\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}
