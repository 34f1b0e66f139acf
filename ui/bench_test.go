package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cairn/derive"
	"cairn/memory"
	"cairn/store"
)

// bigStore is a store of 100,000 memories across the six layers, built
// once per benchmark binary.
var (
	bigOnce sync.Once
	bigDir  string
)

func bigStore(b *testing.B) *store.DB {
	b.Helper()
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-ui-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchTemp = dir // removed by TestMain
		bigDir = filepath.Join(dir, "store")
		db, err := store.Open(bigDir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.EnsureProject(bg, demoProject); err != nil {
			b.Fatal(err)
		}
		recs := make([]memory.Record, 0, 10000)
		for i := range 100_000 {
			recs = append(recs, memory.Record{Layer: memory.Layers[i%6],
				Title: fmt.Sprintf("memory %d about src/pkg%d/file%d.go", i, i%97, i%13),
				Body:  fmt.Sprintf("## Finding %d\n\nThe cache in `pkg%d` misses when the key has a trailing slash; fixed by normalising paths.\n\n```go\nkey = path.Clean(key)\n```\n", i, i%97)})
			if len(recs) == cap(recs) {
				if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
					b.Fatal(err)
				}
				recs = recs[:0]
			}
		}
		db.Close()
	})
	db, err := store.Open(bigDir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// settle runs cmd and what follows from it synchronously (no timers are
// involved in these paths) and feeds the messages back, as the runtime does.
func settle(m Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func sendKey(m Model, k string) {
	kp := keyMsg(k)
	settle(m, func() tea.Msg { return kp })
}

// BenchmarkFirstFrame100k: from nothing to the first frame that shows the
// counts, the first page of layer A and the selected memory rendered.
func BenchmarkFirstFrame100k(b *testing.B) {
	db := bigStore(b)
	for b.Loop() {
		m := New(db, Options{Project: demoProject, Theme: "dark", Now: time.Now})
		m.quiet = true
		settle(m, func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 40} })
		settle(m, m.load())
		if m.View().Content == "" || m.detail.mem == nil {
			b.Fatal("no first frame")
		}
	}
}

// benchKey measures the work of one key press on a 100k store, including
// the store reads, the markdown render and the frame it leads to.
func benchKey(b *testing.B, keys ...string) {
	db := bigStore(b)
	m := New(db, Options{Project: demoProject, Theme: "dark", Now: time.Now})
	m.quiet = true
	settle(m, func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 40} })
	settle(m, m.load())
	if n := m.tally.total(); n != 100_000 {
		b.Fatalf("the store holds %d memories, not 100,000", n)
	}
	i := 0
	for b.Loop() {
		sendKey(m, keys[i%len(keys)])
		_ = m.View()
		i++
	}
}

func BenchmarkMoveSelection100k(b *testing.B) { benchKey(b, "down", "down", "down", "up") }
func BenchmarkSwitchLayer100k(b *testing.B)   { benchKey(b, "1", "2", "3", "4", "5", "6") }
func BenchmarkOpenMemory100k(b *testing.B)    { benchKey(b, "down", "enter", "esc") }

// filteredList opens a workbench on a layer of 10,000 memories, every page
// of it loaded (G, a page at a time), filtered in the loaded rows to those
// that mention pkg7 (about one in ten).
func filteredList(b *testing.B) Model {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(bg, demoProject); err != nil {
		b.Fatal(err)
	}
	recs := make([]memory.Record, 0, 10_000)
	for i := range 10_000 {
		recs = append(recs, memory.Record{Layer: memory.LayerEpisode,
			Title: fmt.Sprintf("memory %d about src/pkg%d/file%d.go", i, i%97, i%13),
			Body:  fmt.Sprintf("## Finding %d\n\nThe cache in `pkg%d` misses when the key has a trailing slash; fixed by normalising paths.\n", i, i%97)})
	}
	if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
		b.Fatal(err)
	}
	m := New(db, Options{Project: demoProject, Theme: "dark", Now: time.Now})
	m.quiet = true
	settle(m, func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 40} })
	settle(m, m.load())
	sendKey(m, "3")
	for m.list.next != "" {
		sendKey(m, "G")
	}
	for _, k := range []string{"f", "p", "k", "g", "7", "enter"} {
		sendKey(m, k)
	}
	if n, v := len(m.list.items), len(m.list.visible()); n != 10_000 || v < 500 || v > 2000 {
		b.Fatalf("%d rows loaded, %d pass the filter", n, v)
	}
	return m
}

// BenchmarkFilteredListKey10k: one key (down, down, up) and the frame it
// leads to, on a list of 10,000 loaded rows with a filter set.
func BenchmarkFilteredListKey10k(b *testing.B) {
	m := filteredList(b)
	i := 0
	for b.Loop() {
		sendKey(m, []string{"down", "down", "up"}[i%3])
		_ = m.View()
		i++
	}
}

// BenchmarkFilteredListView10k: a frame alone of that list.
func BenchmarkFilteredListView10k(b *testing.B) {
	m := filteredList(b)
	for b.Loop() {
		_ = m.View()
	}
}

// repoBench is a workbench on a project whose generated repository of
// 5,000 Go files (10 top-level directories of 50 packages of 10 files,
// each file a package doc and four documented functions) is indexed: the
// size of the derived-memory targets.
func repoBench(b *testing.B) Model {
	b.Helper()
	root := b.TempDir()
	for d := range 10 {
		for p := range 50 {
			dir := filepath.Join(root, fmt.Sprintf("svc%d", d), fmt.Sprintf("pkg%d", p))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range 10 {
				src := fmt.Sprintf("// Package pkg%d handles part %d of service %d.\npackage pkg%d\n", p, f, d, p)
				for fn := range 4 {
					src += fmt.Sprintf("\n// Handle%d%d retries a failed request %d times with backoff.\nfunc Handle%d%d(n int) int { return n + %d }\n", f, fn, fn, f, fn, fn)
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.go", f)), []byte(src), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	db, err := store.Open(filepath.Join(b.TempDir(), "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(bg, demoProject); err != nil {
		b.Fatal(err)
	}
	if rep, err := derive.Index(bg, db, demoProject.ID, root, derive.Options{}, memory.ActorUser); err != nil || rep.Files != 5000 {
		b.Fatalf("index: %d files, %v", rep.Files, err)
	}
	m := New(db, Options{Project: demoProject, Theme: "dark", Now: time.Now})
	m.quiet = true
	settle(m, func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 40} })
	settle(m, m.load())
	return m
}

// BenchmarkRepositoryOpen5000: the Repository section opened from a layer
// (the summary read, its 510 modules listed) and its frame.
func BenchmarkRepositoryOpen5000(b *testing.B) {
	m := repoBench(b)
	for b.Loop() {
		settle(m, m.selectSection(sectionRepo))
		_ = m.View()
		settle(m, m.selectSection(0))
	}
	if m.tally.repo != 510 {
		b.Fatalf("%d modules", m.tally.repo)
	}
}

// BenchmarkRepositoryModule5000: enter on a top-level module (500 files,
// 2,500 sections read from the store) and esc back, each with its frame.
func BenchmarkRepositoryModule5000(b *testing.B) {
	m := repoBench(b)
	settle(m, m.selectSection(sectionRepo))
	toModule(b, m, "svc0")
	for b.Loop() {
		sendKey(m, "enter")
		_ = m.View()
		if len(m.repo.vis) != 2500 {
			b.Fatalf("%d sections in %s", len(m.repo.vis), m.repo.module)
		}
		sendKey(m, "esc")
		_ = m.View()
	}
}

// BenchmarkRepositoryMove5000: a key (down, down, up) in that module's
// 2,500 sections, the doc's render and the frame.
func BenchmarkRepositoryMove5000(b *testing.B) {
	m := repoBench(b)
	settle(m, m.selectSection(sectionRepo))
	toModule(b, m, "svc0")
	sendKey(m, "enter")
	i := 0
	for b.Loop() {
		sendKey(m, []string{"down", "down", "up"}[i%3])
		_ = m.View()
		i++
	}
}

// toModule selects the module path in the Repository's list.
func toModule(b *testing.B, m Model, path string) {
	for i, r := range m.repo.vis {
		if r.mod != nil && r.mod.Path == path {
			m.repo.move(i-m.repo.cursor, m.repo.rowsShown(m.workbench))
			return
		}
	}
	b.Fatalf("no module %s", path)
}
