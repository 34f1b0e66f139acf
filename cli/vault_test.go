package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// The team mirror's files are the same markdown as an export: `cairn
// import` reads a mirror directory and a single mirror file, with their
// links, their layer letters, created times and history, and without the
// Links section in the bodies.
func TestImportMirrorFiles(t *testing.T) {
	t.Parallel()
	alice, _ := team(t)
	reason := alice.rec("remember", "bench 41 showed -4 % with MTP", "-l", "C", "--title", "Bench 41")
	dec := alice.rec("remember", "Park MTP: net-negative on MoE", "-l", "D", "--title", "Park MTP")
	alice.ok("edit", dec.ID, "Park MTP: net-negative on MoE (bench 41)")
	alice.ok("link", dec.ID, "because", reason.ID)
	alice.ok("sync")
	mirrorDir := filepath.Join(alice.wd, ".cairn")
	var decFile string
	filepath.WalkDir(mirrorDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "park-mtp-") {
			decFile = p
		}
		return err
	})
	b, err := os.ReadFile(decFile)
	if err != nil || !strings.Contains(string(b), "- because [[bench-41-") || strings.Contains(string(b), "\nupdated:") {
		t.Fatalf("the mirror file is not what this test reads: %v\n%s", err, b)
	}

	dst := newEnv(t)
	var res struct{ Added, Updated, Unchanged int }
	if err := json.Unmarshal([]byte(dst.ok("import", mirrorDir, "--format", "md", "--json")), &res); err != nil || res.Added != 2 {
		t.Fatalf("import of the mirror directory: %v %+v", err, res)
	}
	got := dst.rec("show", dec.ID)
	if got.Layer != memory.LayerDecision || got.Title != "Park MTP" || got.Body != "Park MTP: net-negative on MoE (bench 41)" || got.Version != 2 {
		t.Fatalf("the decision came back as %+v", got)
	}
	if len(got.Edges) != 1 || got.Edges[0].Kind != memory.EdgeBecause || got.Edges[0].To != reason.ID {
		t.Fatalf("the because link: %+v", got.Edges)
	}
	json.Unmarshal([]byte(dst.ok("import", mirrorDir, "--json")), &res)
	if res.Added != 0 || res.Updated != 0 {
		t.Fatalf("a second import of the mirror: %+v", res)
	}

	// One mirror file alone, into another store.
	one := newEnv(t)
	out := one.ok("import", decFile, "--format", "md")
	if !strings.Contains(out, "1 added") {
		t.Fatalf("import of one mirror file: %s", out)
	}
	if m := one.rec("show", dec.ID); m.Body != got.Body || strings.Contains(m.Body, "## Links") {
		t.Fatalf("one mirror file came back as %+v", m)
	}
}

// A real-looking Obsidian vault imports: its settings, attachments and a
// note without frontmatter are passed over and counted; aliases, dates,
// tags as a string, fields cairn does not know, notes without a title
// and links by file name, path, title or alias are understood; a link
// that names two notes is reported, not linked; and importing the vault
// again after one note was edited updates that note's memory.
func TestImportRealVault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	vault := filepath.Join(t.TempDir(), "Second Brain")
	put := func(rel, text string) {
		p := filepath.Join(vault, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(".obsidian/app.json", `{"legacyEditor":false}`)
	put(".obsidian/plugins/dataview/data.json", "{}")
	put("attachments/plot.png", "\x89PNG\r\n")
	put("attachments/paper.pdf", "%PDF-1.7\n")
	put("Inbox.md", "just a thought, no frontmatter\n")
	put("Daily/2026-11-01.md", "---\nlayer: C\ncreated: 2026-11-01\ntags: \"#daily #money\"\n---\nPaid the [[Tax advisor]]; see [[Index]].\n")
	put("Projects/Budget/Budget 2027.md", "---\nlayer: B\naliases:\n  - Budget\n  - Money plan\ncreated: 2026-11-02T09:30\ntags: [finance, \"#money\"]\ncssclasses: [wide]\ntype: plan\nstatus: draft\n---\nThe plan for 2027, after [[Daily/2026-11-01|the first]].\n")
	put("People/Tax advisor.md", "---\nlayer: A\ntitle: Our tax advisor\naliases: Steuerberater\n---\nAsk before any [[Money plan]] change.\n")
	put("Projects/Index.md", "---\nlayer: F\n---\nprojects index\n")
	put("People/Index.md", "---\nlayer: F\n---\npeople index\n")

	var res struct {
		Added, Updated, Unchanged int
		BodyLinks                 int `json:"body_links"`
		Skipped                   struct {
			NoFrontmatter int            `json:"no_frontmatter"`
			NotMarkdown   int            `json:"not_markdown"`
			Hidden        map[string]int `json:"hidden"`
		}
		Fields struct {
			AsTags  int `json:"as_tags"`
			Ignored int
			Names   []string
		} `json:"unknown_fields"`
		Ambiguous []struct {
			File, Link string
			Candidates []string
		} `json:"ambiguous_links"`
	}
	out := e.ok("import", vault, "--format", "md", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Added != 5 || res.Skipped.NoFrontmatter != 1 || res.Skipped.NotMarkdown != 2 || res.Skipped.Hidden[".obsidian"] != 2 {
		t.Fatalf("import: %s", out)
	}
	if res.Fields.AsTags != 2 || res.Fields.Ignored != 1 || !slices.Equal(res.Fields.Names, []string{"cssclasses", "status", "type"}) {
		t.Fatalf("unknown fields: %s", out)
	}
	if len(res.Ambiguous) != 1 || res.Ambiguous[0].Link != "[[Index]]" || !slices.Equal(res.Ambiguous[0].Candidates, []string{"People/Index.md", "Projects/Index.md"}) {
		t.Fatalf("ambiguous links: %s", out)
	}
	// The daily note, the tax advisor (by its file name) and the budget
	// (by path, and by alias): 3 links.
	if res.BodyLinks != 3 {
		t.Fatalf("links: %s", out)
	}
	byTitle := map[string]memory.Record{}
	for _, m := range e.list("--limit", "50") {
		byTitle[m.Title] = m
	}
	daily, budget, advisor := byTitle["2026-11-01"], byTitle["Budget 2027"], byTitle["Our tax advisor"]
	if daily.ID == "" || budget.ID == "" || advisor.ID == "" {
		t.Fatalf("titles: %v", slices.Collect(maps.Keys(byTitle)))
	}
	if !daily.CreatedAt.Equal(mustTime(t, "2026-11-01T00:00:00Z")) || !slices.Equal(daily.Tags, []string{"daily", "money"}) {
		t.Fatalf("daily note: %v %v", daily.CreatedAt, daily.Tags)
	}
	if !budget.CreatedAt.Equal(mustTime(t, "2026-11-02T09:30:00Z")) || !slices.Equal(budget.Tags, []string{"finance", "money", "status/draft", "type/plan"}) || budget.Status != memory.StatusActive {
		t.Fatalf("budget: %v %v %v", budget.CreatedAt, budget.Tags, budget.Status)
	}
	edges := func(id string) []string {
		var out []string
		for _, ed := range e.rec("show", id).Edges {
			out = append(out, string(ed.Kind)+" "+ed.To)
		}
		slices.Sort(out)
		return out
	}
	if got := edges(daily.ID); !slices.Equal(got, []string{"relates_to " + advisor.ID}) {
		t.Fatalf("daily note's links: %v", got)
	}
	if got := edges(advisor.ID); !slices.Equal(got, []string{"relates_to " + budget.ID}) {
		t.Fatalf("advisor's links (by alias): %v", got)
	}

	// Edited in Obsidian, imported again: the same memory, updated; the
	// other notes neither duplicated nor changed.
	put("Projects/Budget/Budget 2027.md", "---\nlayer: B\naliases: [Budget]\ncreated: 2026-11-02T09:30\ntags: [finance]\n---\nThe plan for 2027, revised.\n")
	if err := json.Unmarshal([]byte(e.ok("import", vault, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Added != 0 || res.Updated != 1 || res.Unchanged != 4 {
		t.Fatalf("re-import after an edit: %+v", res)
	}
	if m := e.rec("show", budget.ID); m.Body != "The plan for 2027, revised.\n" || m.Version != 2 {
		t.Fatalf("the edited note's memory: %+v", m)
	}
	if n := len(e.list("--limit", "50")); n != 5 {
		t.Fatalf("%d memories after the re-import, want 5", n)
	}
	// The human report says the same.
	text := e.ok("import", vault)
	for _, want := range []string{"skipped 1 file without frontmatter, 2 files not .md, 2 under .obsidian/", "[[Index]] names People/Index.md and Projects/Index.md: not linked"} {
		if !strings.Contains(text, want) {
			t.Fatalf("report lacks %q:\n%s", want, text)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// A vault that was never cairn's — notes without frontmatter, or with
// Obsidian's but no layer — imports whole with --notes: each note a memory
// of that layer, titled by its file name, dated by its created field, its
// links made; without the flag they are counted and the import says how.
// A second import changes nothing; a layer that is none is refused.
func TestImportPlainNotesWithALayer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	vault := filepath.Join(t.TempDir(), "notes")
	for rel, text := range map[string]string{
		"Budget.md":           "Budget is 10k a month.\n",
		"Projects/Billing.md": "---\naliases: [Invoices]\ncreated: 2026-11-01\ntags: \"#money\"\n---\n\nWe pay invoices on the 1st. See [[Budget]].\n",
		".obsidian/app.json":  "{}",
	} {
		p := filepath.Join(vault, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := e.ok("import", vault)
	if !strings.Contains(out, "0 added") || !strings.Contains(out, "--notes LAYER") {
		t.Fatalf("without --notes: %s", out)
	}
	out = e.ok("import", vault, "--notes", "episode")
	if !strings.Contains(out, "2 added") || !strings.Contains(out, "1 links") {
		t.Fatalf("with --notes: %s", out)
	}
	var mems []memory.Record
	if err := json.Unmarshal([]byte(e.ok("list", "--json")), &mems); err != nil {
		t.Fatal(err)
	}
	titles := map[string]memory.Record{}
	for _, m := range mems {
		titles[m.Title] = m
	}
	billing, budget := titles["Billing"], titles["Budget"]
	if billing.Layer != memory.LayerEpisode || budget.Layer != memory.LayerEpisode ||
		!billing.CreatedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !slices.Contains(billing.Tags, "money") {
		t.Fatalf("the notes came in as %+v and %+v", billing, budget)
	}
	if out := e.ok("import", vault, "--notes", "C"); !strings.Contains(out, "0 added") || !strings.Contains(out, "2 unchanged") {
		t.Fatalf("a second import: %s", out)
	}
	if r := e.run("", "import", vault, "--notes", "Q"); r.code == 0 || !strings.Contains(r.err, "unknown layer") {
		t.Fatalf("a layer that is none: %+v", r)
	}
}
