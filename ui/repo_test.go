package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cairn/derive"
	"cairn/memory"
	"cairn/store"
	"cairn/themes"
)

// shopRepo writes a small repository to index: a README, a go.mod and a
// Makefile at the root, a main package, a nested Go package, and docs.
func shopRepo(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"README.md":     "# Shop\n\nA tiny shop service: carts, orders and a command line.\n\n## Running\n\nmake run starts it on port 8080.\n",
		"go.mod":        "module example.com/shop\n\ngo 1.22\n",
		"Makefile":      "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n\nrun:\n\tgo run .\n",
		"main.go":       "// Command shop serves the shop.\npackage main\n\n// main starts the server.\nfunc main() {}\n",
		"docs/guide.md": "# Guide\n\nHow to run the shop.\n\n## Retry policy\n\nFailed payments are retried three times, with backoff.\n",
		"internal/cart/cart.go": "// Package cart keeps what a customer is about to buy.\npackage cart\n\n" +
			"// Cart holds items by SKU.\ntype Cart struct{ items map[string]int }\n\n" +
			"// Add puts n of sku in the cart; a negative n takes them out.\nfunc (c *Cart) Add(sku string, n int) {\n\tc.items[sku] += n\n}\n\n" +
			"// Total is how many items the cart holds.\nfunc (c *Cart) Total() int { return len(c.items) }\n",
	}
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// indexRepo indexes root into the demo project, as cairn index does, and
// pins the time it says it was indexed (the screens show it).
func indexRepo(t testing.TB, db *store.DB, root string) {
	t.Helper()
	if _, err := derive.Index(bg, db, demoProject.ID, root, derive.Options{}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	sum, err := db.RepoSummary(bg, demoProject.ID)
	if err != nil {
		t.Fatal(err)
	}
	sum.IndexedAt, sum.Read, sum.Gone = now, 0, 0
	if err := db.UpdateDerived(bg, demoProject.ID, memory.DerivedUpdate{Summary: sum}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
}

// TestRepositoryScreens goldens the Repository section: its modules, a
// module's sections with one read in the detail, and a project never
// indexed, at 80×24 and 120×40, dark and without colour.
func TestRepositoryScreens(t *testing.T) {
	t.Parallel()
	open := []string{"/", "type:repository", "enter"}
	views := []struct {
		name    string
		indexed bool
		keys    []string
	}{
		{"repository", true, open},
		{"repository-sections", true, append(append([]string{}, open...), "f", "type:internal/cart", "enter", "enter", "down", "down")},
		{"repository-empty", false, open},
		// The root's sections by line (README.md:1, then :3), counted as
		// its module row counts them.
		{"repository-root", true, append(append([]string{}, open...), "enter")},
		// A long path cut in its middle, its name and line kept.
		{"repository-docs", true, append(append([]string{}, open...), "down", "enter")},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, theme := range []string{"dark", "plain"} {
			for _, v := range views {
				name := fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme)
				t.Run(name, func(t *testing.T) {
					db := openStore(t, true)
					if v.indexed {
						root := shopRepo(t)
						long := filepath.Join(root, "docs", "upgrading", "v2", "UPGRADE_GUIDE_V2.md")
						os.MkdirAll(filepath.Dir(long), 0o755)
						if err := os.WriteFile(long, []byte("# Upgrading to v2\n\nThe shop's second version renames carts to baskets.\n"), 0o644); err != nil {
							t.Fatal(err)
						}
						indexRepo(t, db, root)
					}
					m := app(t, db, size[0], size[1], theme)
					press(t, m, v.keys...)
					golden(t, name, shown(m, name))
				})
			}
		}
	}
}

// editorSpy stands in for the terminal hand-over: it keeps the command the
// workbench built and reports the editor closed.
type editorSpy struct{ cmds []*exec.Cmd }

func (s *editorSpy) exec(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	s.cmds = append(s.cmds, c)
	return func() tea.Msg { return fn(nil) }
}

// TestRepositoryModulesSectionsAndTheEditor: enter on a module lists its
// sections (and only its own: a nested package's files are not the root's),
// enter or e on a section builds the editor command at the section's line,
// esc goes back to the modules with the module selected again, and the
// curating keys and commands say derived memory is read-only.
func TestRepositoryModulesSectionsAndTheEditor(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	root := shopRepo(t)
	indexRepo(t, db, root)
	m := app(t, db, 120, 40, "plain")
	spy := &editorSpy{}
	env := map[string]string{"EDITOR": "nvim"}
	m.exec, m.getenv = spy.exec, func(k string) string { return env[k] }

	press(t, m, "/", "type:repository", "enter")
	s := screen(m)
	for _, want := range []string{"Repository 4 modules", "./", "docs/", "internal/", "internal/cart/", "indexed 2026-04-01 12:00"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the modules do not show %q:\n%s", want, s)
		}
	}

	// The root module holds only the root's files.
	press(t, m, "enter")
	s = screen(m)
	if !strings.Contains(s, "Repository › ./") || !strings.Contains(s, "README.md:1") || !strings.Contains(s, "main.go:") {
		t.Fatalf("the root module's sections do not show:\n%s", s)
	}
	if strings.Contains(s, "cart.go") || strings.Contains(s, "guide.md") {
		t.Fatalf("the root module lists files of other modules:\n%s", s)
	}
	press(t, m, "esc")

	// internal/cart: its sections, Add read in the detail, opened at its line.
	press(t, m, "f", "type:internal/cart", "enter", "enter")
	var add repoRow
	for _, r := range m.repo.vis {
		if r.sec != nil && r.sec.Name == "Cart.Add" {
			add = r
		}
	}
	if add.sec == nil {
		t.Fatalf("no section Cart.Add in internal/cart: %+v\n%s", m.repo.vis, screen(m))
	}
	for m.repo.selected().key() != add.key() {
		press(t, m, "down")
	}
	s = screen(m)
	if !strings.Contains(s, "func (c *Cart) Add(sku string, n int)") || !strings.Contains(s, "negative n takes them out") {
		t.Fatalf("the detail does not show Add's signature and doc:\n%s", s)
	}
	file := filepath.Join(root, "internal", "cart", "cart.go")
	press(t, m, "e")
	wantCmd(t, spy, `nvim "+$2" "$1"`, file, fmt.Sprint(add.sec.Line))
	env["EDITOR"] = "code --wait"
	press(t, m, "enter")
	wantCmd(t, spy, `code --wait -g "$1:$2"`, file, fmt.Sprint(add.sec.Line))

	// Read-only: a key and a command that would curate a memory say why not.
	for _, k := range []string{"a", "x", "s"} {
		press(t, m, k)
		if !strings.Contains(m.status, "derived memory is read-only") {
			t.Fatalf("%s in the Repository says %q", k, m.status)
		}
	}
	press(t, m, "/", "type:archive", "enter")
	if !strings.Contains(m.repl.hint, "derived memory is read-only") {
		t.Fatalf("/archive in the Repository says %q", m.repl.hint)
	}
	press(t, m, "esc")

	// A file gone since the index is said to be gone, not opened empty.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	press(t, m, "e")
	if !strings.Contains(m.status, "internal/cart/cart.go is not there any more") || len(spy.cmds) != 2 {
		t.Fatalf("a gone file: status %q, %d editor commands", m.status, len(spy.cmds))
	}

	// Back to the modules, on the module that was open.
	press(t, m, "esc")
	if m.repo.open || m.repo.selected() == nil || m.repo.selected().mod == nil || m.repo.selected().mod.Path != "internal/cart" {
		t.Fatalf("esc did not go back to the modules on internal/cart: open %v, selected %+v", m.repo.open, m.repo.selected())
	}
	if n := len(spy.cmds); n != 2 {
		t.Fatalf("%d editor commands, want 2", n)
	}
}

// wantCmd checks the last editor command: sh runs line with the file and
// the line as its arguments.
func wantCmd(t *testing.T, spy *editorSpy, line, file, at string) {
	t.Helper()
	if len(spy.cmds) == 0 {
		t.Fatal("no editor command was built")
	}
	c := spy.cmds[len(spy.cmds)-1]
	want := []string{"sh", "-c", line, "sh", file, at}
	if strings.Join(c.Args, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("editor command %q, want %q", c.Args, want)
	}
}

// TestIndexCommand: before any index the section says how to start one;
// /index runs the project's index in a command and the modules show.
func TestIndexCommand(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	root := shopRepo(t)
	m := app(t, db, 120, 40, "plain")
	press(t, m, "/", "type:index", "enter")
	if !strings.Contains(m.repl.hint, "/index needs the workbench opened on a project") {
		t.Fatalf("/index without an indexer says %q", m.repl.hint)
	}
	press(t, m, "esc")
	m.opt.Index = func(ctx context.Context, p memory.Project) (derive.Report, error) {
		return derive.Index(ctx, db, p.ID, root, derive.Options{}, memory.ActorUser)
	}
	press(t, m, "/", "type:repository", "enter")
	if s := screen(m); !strings.Contains(s, "not indexed yet — run cairn index (or /index)") {
		t.Fatalf("a project never indexed does not say so:\n%s", s)
	}
	press(t, m, "/", "type:index", "enter")
	s := screen(m)
	if !strings.Contains(s, "indexed demo: 6 files") || !strings.Contains(s, "internal/cart/") {
		t.Fatalf("/index did not index and show the modules:\n%s", s)
	}
	if !regexp.MustCompile(`> Repository +4 `).MatchString(s) {
		t.Fatalf("the sidebar does not count the modules:\n%s", s)
	}
}

// TestRepositoryFollowsAnIndex runs the real program (teatest): another
// process indexes the repository again after a new package appeared, and
// the open Repository section shows it without a key pressed.
func TestRepositoryFollowsAnIndex(t *testing.T) {
	t.Parallel()
	db := openStore(t, true)
	root := shopRepo(t)
	indexRepo(t, db, root)
	m := New(db, Options{Project: demoProject, Projects: []memory.Project{demoProject}, Theme: "plain", NoColor: true, Live: true,
		Now: func() time.Time { return now }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "Run the whole suite")
	tm.Send(tea.KeyPressMsg{Code: '/', Text: "/"})
	tm.Type("repository")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, tm, "internal/cart/")

	dir := filepath.Join(root, "payments")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pay.go"), []byte("// Package payments charges cards.\npackage payments\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := derive.Index(bg, db, demoProject.ID, root, derive.Options{}, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "payments/")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestModuleFilesMatchTheirCounts: the files a module lists are the files
// its summary counts, for the root, top-level directories and nested
// packages with deeper packages of their own.
func TestModuleFilesMatchTheirCounts(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	root := shopRepo(t)
	for p, text := range map[string]string{
		"internal/cart/promo/promo.go": "// Package promo applies discounts.\npackage promo\n",
		"internal/cart/notes.md":       "# Notes\n\nCart notes.\n",
		"internal/README.md":           "# Internal\n\nPackages not for import.\n",
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indexRepo(t, db, root)
	sum, err := db.RepoSummary(bg, demoProject.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Modules) < 5 {
		t.Fatalf("modules %+v", sum.Modules)
	}
	for _, mod := range sum.Modules {
		msg := loadRepoFiles(bg, db, demoProject.ID, mod.Path, 1)().(repoFilesLoadedMsg)
		if msg.err != nil {
			t.Fatal(msg.err)
		}
		got := moduleFiles(msg.files, mod.Path, sum.Modules)
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Path)
		}
		if len(got) != mod.Files {
			t.Errorf("module %q counts %d files, lists %d: %v", mod.Path, mod.Files, len(got), paths)
		}
	}
}

func TestCutMiddle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"docs/upgrading/v2/UPGRADE_GUIDE_V2.md:1", 30, "docs/…/UPGRADE_GUIDE_V2.md:1"},
		{"docs/upgrading/v2/UPGRADE_GUIDE_V2.md:1", 33, "docs/…/v2/UPGRADE_GUIDE_V2.md:1"},
		{"examples/altscreen-toggle/", 24, "examp…/altscreen-toggle/"},
		{"examples/autocomplete/", 16, "…/autocomplete/"},
		{"examples/keyboard-enhancements/", 16, "examp…ancements/"},
		{"README.md:10", 12, "README.md:10"},
		{"a_very_long_file_name_without_dirs.go:120", 12, "a_v…s.go:120"},
	} {
		if got := cutMiddle(c.in, c.n); got != c.want || ansi.StringWidth(got) > c.n {
			t.Errorf("cutMiddle(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A module's sections, once open, are by file and line, and the heading
// counts what the module's row counts: sections, not the rows of files
// without any.
func TestModuleSectionsByLineAndCounted(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	root := shopRepo(t)
	os.WriteFile(filepath.Join(root, "NOTES.txt"), []byte("no reader reads this\n"), 0o644)
	indexRepo(t, db, root)
	sum, err := db.RepoSummary(bg, demoProject.ID)
	if err != nil {
		t.Fatal(err)
	}
	theme := themes.Get("plain")
	for _, mod := range sum.Modules {
		msg := loadRepoFiles(bg, db, demoProject.ID, mod.Path, 1)().(repoFilesLoadedMsg)
		if msg.err != nil {
			t.Fatal(msg.err)
		}
		p := repoPane{loaded: true, sum: &sum, open: true, module: mod.Path}
		p.files = moduleFiles(msg.files, mod.Path, sum.Modules)
		p.setRows(sectionRows(p.files), "")
		head := ansi.Strip(strings.Join(p.heading(theme, 200), "\n"))
		if want := plural(mod.Sections, "section"); !strings.Contains(head, " "+want+"\n") {
			t.Errorf("module %q counts %s, its open heading says:\n%s", mod.Path, want, head)
		}
		for i := 1; i < len(p.rows); i++ {
			a, b := p.rows[i-1], p.rows[i]
			if a.file == b.file && a.sec != nil && b.sec != nil && a.sec.Line > b.sec.Line {
				t.Errorf("%s:%d before %s:%d", a.file.Path, a.sec.Line, b.file.Path, b.sec.Line)
			}
		}
		if mod.Path == "" {
			var lines []string
			for _, r := range p.rows {
				lines = append(lines, p.firstColumn(r))
			}
			if i := slices.Index(lines, "README.md:1"); i < 0 || i+1 >= len(lines) || lines[i+1] != "README.md:3" {
				t.Errorf("the root's rows: %q", lines)
			}
			if !strings.Contains(head, "without sections") {
				t.Errorf("the root's heading does not say a file has no sections:\n%s", head)
			}
		}
	}
}
