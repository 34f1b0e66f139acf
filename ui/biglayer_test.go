package ui

import (
	"fmt"
	"strings"
	"testing"

	"cairn/memory"
)

// TestFilterAsksTheStoreInABigLayer: a layer of 1,200 memories loads a
// page at a time; its heading counts the layer, not the page; after G
// (three pages loaded) f finds every one of the 38 matches, including
// those on pages never loaded, and esc brings the layer's own pages back.
func TestFilterAsksTheStoreInABigLayer(t *testing.T) {
	t.Parallel()
	db := openStore(t, false)
	var recs []memory.Record
	for i := range 1200 {
		title := fmt.Sprintf("Cache note %d about pkg%d", i, i%50)
		if i%32 == 7 {
			title = fmt.Sprintf("Deadlock %d in the scheduler", i)
		}
		recs = append(recs, memory.Record{Layer: memory.LayerEpisode, Title: title, Body: "found while profiling"})
	}
	if _, err := db.Import(bg, demoProject.ID, recs, memory.ActorSystem); err != nil {
		t.Fatal(err)
	}
	m := app(t, db, 120, 40, "plain")
	press(t, m, "3")
	if got := len(m.list.items); got != pageSize {
		t.Fatalf("first page: %d loaded, want %d", got, pageSize)
	}
	if s := screen(m); !strings.Contains(s, "C episodic 1200") || !strings.Contains(s, "1.2k") {
		t.Fatalf("the heading or sidebar does not count the layer:\n%s", s)
	}
	press(t, m, "G", "G", "G")
	loaded := len(m.list.items)
	if loaded <= pageSize || loaded >= 1200 {
		t.Fatalf("after G: %d loaded, want more than a page and less than all", loaded)
	}
	press(t, m, "f", "type:deadlock", "enter")
	v := m.list.visible()
	if len(v) != 38 {
		t.Fatalf("filter found %d of 38 matches", len(v))
	}
	for _, mem := range v {
		if !strings.Contains(mem.Title, "Deadlock") {
			t.Fatalf("a non-match shown: %q", mem.Title)
		}
	}
	s := screen(m)
	if !strings.Contains(s, "38 of 1200") {
		t.Fatalf("the heading does not count the matches:\n%s", s)
	}
	// The pane is filled with matches (not one row at the end of the
	// list), and what the filter left out is not news.
	if n := strings.Count(s, "Deadlock"); n < 30 {
		t.Fatalf("%d matches shown in a 40-line pane:\n%s", n, s)
	}
	if strings.Contains(s, "elsewhere") {
		t.Fatalf("the filter's departures were announced:\n%s", s)
	}
	press(t, m, "f", "type: 1191", "enter")
	if v := m.list.visible(); len(v) != 1 || !strings.HasPrefix(v[0].Title, "Deadlock 1191") {
		t.Fatalf("narrowed filter: %d", len(v))
	}
	press(t, m, "f", "esc")
	if m.list.filter != "" || len(m.list.items) != pageSize || m.list.next == "" {
		t.Fatalf("esc: filter %q, %d loaded, next %q", m.list.filter, len(m.list.items), m.list.next)
	}
}

func TestCountLabel(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{-1: "", 0: "0", 999: "999", 1000: "1k", 1234: "1.2k", 38_000: "38k",
		100_000: "100k", 999_999: "999k", 1_250_000: "1.2M", 12_000_000: "12M"} {
		if got := countLabel(n); got != want {
			t.Errorf("countLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWrapKeepsDatesWhole: a date, a version or a range never breaks at its
// hyphen; words with hyphens between letters still may.
func TestWrapKeepsDatesWhole(t *testing.T) {
	t.Parallel()
	for _, w := range []int{12, 15, 18, 21, 24} {
		for _, l := range wrapLines("valid from 2026-02-14 09:05 until 2026-12-31 (v1.2-3)", w) {
			if strings.HasSuffix(l, "-") && len(l) > 1 && l[len(l)-2] >= '0' && l[len(l)-2] <= '9' {
				t.Errorf("width %d: %q ends mid-date", w, l)
			}
		}
	}
	if got := strings.Join(wrapLines("a well-known fact", 8), "|"); got != "a well-|known|fact" {
		t.Errorf("hyphen between letters: %q", got)
	}
}

// TestShrunkListFillsThePane: a list that shrank under the cursor (a
// filter's answer after G) shows its last rows filling the pane, not one row.
func TestShrunkListFillsThePane(t *testing.T) {
	t.Parallel()
	l := listPane{offset: 290, cursor: 37}
	for i := range 38 {
		l.items = append(l.items, &memory.Memory{ID: fmt.Sprint(i), Title: fmt.Sprint("match ", i)})
	}
	l.scroll(33)
	if l.offset != 38-33 {
		t.Fatalf("offset %d after the list shrank to 38 rows in a pane of 33", l.offset)
	}
}

// TestVisibleFollowsItemsAndFilter: the filtered rows the list keeps are
// always those a fresh filter of the items gives, through pages appended,
// a filter typed longer and shorter, and the items replaced.
func TestVisibleFollowsItemsAndFilter(t *testing.T) {
	t.Parallel()
	page := func(from, n int) []*memory.Memory {
		var out []*memory.Memory
		for i := from; i < from+n; i++ {
			out = append(out, &memory.Memory{ID: fmt.Sprint(i), Title: fmt.Sprintf("note %d about pkg%d", i, i%7)})
		}
		return out
	}
	want := func(l *listPane) []string {
		var ids []string
		for _, m := range l.items {
			if memory.Matches(m, l.filter) {
				ids = append(ids, m.ID)
			}
		}
		return ids
	}
	check := func(l *listPane, step string) {
		t.Helper()
		var got []string
		for _, m := range l.visible() {
			got = append(got, m.ID)
		}
		if w := want(l); strings.Join(got, ",") != strings.Join(w, ",") {
			t.Fatalf("%s: visible %v, want %v", step, got, w)
		}
	}
	var l listPane
	l.set(page(0, 50), "next", false, "")
	l.filter = "pkg"
	check(&l, "filter set")
	l.filter = "pkg3"
	check(&l, "filter typed longer")
	l.set(page(50, 50), "next", true, "")
	check(&l, "a page appended")
	l.filter = "pkg3 note 9"
	check(&l, "a word added")
	l.filter = "pkg"
	check(&l, "filter shortened")
	l.set(page(200, 30), "", false, "")
	check(&l, "the items replaced")
	l.filter = "pkg1"
	l.set(page(230, 40), "", true, "")
	check(&l, "filter changed and a page appended at once")
	l.filter = ""
	if len(l.visible()) != len(l.items) {
		t.Fatal("no filter: not every item visible")
	}
}
