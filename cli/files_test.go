package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/exchange"
	"cairn/memory"
)

// seedStore builds a project with every feature an export must carry:
// layers, a supersession, an archived memory, edges, refs, tags, triggers.
func seedStore(t *testing.T, e *env) {
	t.Helper()
	os.MkdirAll(filepath.Join(e.wd, "bench"), 0o755)
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
	a := e.rec("remember", "+229 % decode speed", "--tag", "bench", "--ref", "bench-1", "--bind", "file:bench/decode.txt")
	e.rec("supersede", a.ID, "+31 % decode speed\n\n```\nmake bench\n```\n")
	d := e.rec("remember", "Parked MTP: net-negative on MoE", "-l", "D", "--provenance", "measured")
	e.ok("edit", d.ID, "Parked MTP: net-negative on MoE (bench #41)")
	e.ok("edit", d.ID, "Parked MTP: net-negative on MoE (bench #41, twice)")
	b := e.rec("remember", "bench #41 showed -4 %", "-l", "C")
	e.ok("link", d.ID, "because", b.ID, "--weight", "0.8")
	n := e.rec("remember", "VGPR-256 starved occupancy: don't", "-l", "E", "--trigger", "VGPR", "--trigger", "occupancy")
	e.ok("archive", n.ID)
	e.ok("remember", "cited a number without checking provenance → check it", "-l", "F", "--title", "check provenance: on: cited numbers")
}

// exportParts is the project's JSON Lines export: its memories (with
// their history) and its timeline.
func exportParts(t *testing.T, e *env) ([]memory.Record, []memory.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "all.jsonl")
	e.ok("export", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []memory.Record
	var events []memory.Event
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r memory.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Event != nil {
			events = append(events, *r.Event)
			continue
		}
		r.Project, r.Trust = "", 0
		recs = append(recs, r)
	}
	return recs, events
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"jsonl", "md"} {
		t.Run(format, func(t *testing.T) {
			src := newEnv(t)
			seedStore(t, src)
			path := filepath.Join(t.TempDir(), "out."+format)
			if format == "md" {
				path = filepath.Join(t.TempDir(), "notes")
			}
			src.ok("export", path)

			dst := newEnv(t)
			// The same tree beside it, so that the bound file is as it was.
			os.MkdirAll(filepath.Join(dst.wd, "bench"), 0o755)
			os.WriteFile(filepath.Join(dst.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
			r := dst.run("", "import", path, "--json")
			if r.code != 0 {
				t.Fatalf("import: %s", r.err)
			}
			want, wantEvents := exportParts(t, src)
			got, gotEvents := exportParts(t, dst)
			if len(got) != len(want) {
				t.Fatalf("%d memories came back of %d", len(got), len(want))
			}
			// Field by field: every memory with its versions, statuses,
			// supersessions, edges and bindings.
			versions := 0
			for i := range want {
				versions += len(want[i].History)
				wb, _ := json.Marshal(want[i])
				gb, _ := json.Marshal(got[i])
				if string(wb) != string(gb) {
					t.Fatalf("memory %d differs:\nwant %s\n got %s", i, wb, gb)
				}
			}
			if versions != 2 {
				t.Fatalf("%d earlier versions exported, want the 2 edits made", versions)
			}
			// The timeline too (markdown keeps it in timeline.jsonl); the
			// import adds its own event.
			wb, _ := json.Marshal(wantEvents)
			gb, _ := json.Marshal(gotEvents[:len(gotEvents)-1])
			if len(wantEvents) < 8 || len(gotEvents) != len(wantEvents)+1 || string(wb) != string(gb) || gotEvents[len(gotEvents)-1].Kind != memory.EventImport {
				t.Fatalf("timeline differs:\nwant %s\n got %s", wb, gb)
			}
			// Idempotent: the same file again changes nothing.
			before := dst.ok("timeline", "--json")
			var res struct{ Added, Updated, Unchanged int }
			json.Unmarshal([]byte(dst.ok("import", path, "--json")), &res)
			if res.Added != 0 || res.Updated != 0 || res.Unchanged != len(want) {
				t.Fatalf("second import: %+v", res)
			}
			if dst.ok("timeline", "--json") != before {
				t.Fatalf("second import wrote events")
			}
		})
	}
}

func TestImportRefusesBadLinesAndChangesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, want string
	}{
		{"unknown field", `{"layer":"A","body":"ok"}` + "\n" + `{"layr":"A","body":"x"}`, "line 2"},
		{"bad layer", `{"layer":"A","body":"ok"}` + "\n\n" + `{"layer":"Q","body":"x"}`, "line 3"},
		{"malformed", `{"layer":"A","body":"ok"}` + "\n" + `{"layer":`, "line 2"},
		{"secret", `{"layer":"A","body":"ok"}` + "\n" + `{"layer":"A","body":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"}`, "line 2"},
		{"dangling link", `{"layer":"A","body":"ok","edges":[{"kind":"because","to":"01JD0000000000000000000ZZZ"}]}`, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.ok("remember", "already here")
			path := filepath.Join(t.TempDir(), "in.jsonl")
			os.WriteFile(path, []byte(c.content), 0o644)
			r := e.run("", "import", path)
			if r.code != 1 || !strings.Contains(r.err, c.want) || !strings.Contains(r.err, "nothing was imported") {
				t.Fatalf("import: %+v", r)
			}
			if rs := e.list("--status", "all"); len(rs) != 1 {
				t.Fatalf("store changed: %d", len(rs))
			}
		})
	}
}

// devZero returns /dev/zero, a device whose reads never end.
func devZero(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/zero"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("/dev/zero is missing or not a device: %v", err)
		}
		t.Skip("/dev/zero is missing: cannot test importing a device")
	}
	return "/dev/zero"
}

func memoryFile(t *testing.T, path, title string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nlayer: A\ntitle: "+title+"\n---\nbody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Each of these once crashed the importer out of memory, hung it, or read
// a file from outside the directory being imported. Each is now refused in
// one line naming the file, and the store is left as it was.
func TestImportRefusesHostileSources(t *testing.T) {
	t.Parallel()
	zero := devZero(t)
	outside := filepath.Join(t.TempDir(), "private.md")
	memoryFile(t, outside, "read from outside")
	// A directory holding one good memory and whatever plant adds.
	mdDir := func(t *testing.T, plant func(dir string)) string {
		dir := filepath.Join(t.TempDir(), "notes")
		memoryFile(t, filepath.Join(dir, "A-state", "good.md"), "good")
		plant(filepath.Join(dir, "A-state"))
		return dir
	}
	fifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	bomb := "---\nlayer: A\ntitle: t\nlinks:\n  l0: &a0 [" + strings.Repeat(`"lol",`, 8) + `"lol"]` + "\n"
	for i := 1; i <= 9; i++ {
		bomb += fmt.Sprintf("  l%d: &a%d [%s*a%d]\n", i, i, strings.Repeat(fmt.Sprintf("*a%d,", i-1), 8), i-1)
	}
	bomb += "tags: *a9\n---\nbody\n"
	cases := []struct {
		name  string
		args  func(t *testing.T) []string
		wants []string
	}{
		{"device", func(t *testing.T) []string { return []string{zero} }, []string{zero, "is a device"}},
		{"device as jsonl", func(t *testing.T) []string { return []string{zero, "--format", "jsonl"} }, []string{"is a device"}},
		{"link to a device", func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "in.jsonl")
			os.Symlink(zero, p)
			return []string{p}
		}, []string{"in.jsonl", "is a device"}},
		{"FIFO", func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "in.jsonl")
			fifo(t, p)
			return []string{p}
		}, []string{"in.jsonl", "is a FIFO"}},
		{"FIFO as md", func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "in")
			fifo(t, p)
			return []string{p}
		}, []string{"is a FIFO"}},
		{"md link to a device", func(t *testing.T) []string {
			return []string{mdDir(t, func(d string) { os.Symlink(zero, filepath.Join(d, "z.md")) })}
		}, []string{filepath.Join("A-state", "z.md"), "outside the import directory"}},
		{"md FIFO", func(t *testing.T) []string {
			return []string{mdDir(t, func(d string) { fifo(t, filepath.Join(d, "f.md")) })}
		}, []string{filepath.Join("A-state", "f.md"), "is a FIFO"}},
		{"md link out", func(t *testing.T) []string {
			return []string{mdDir(t, func(d string) { os.Symlink(outside, filepath.Join(d, "s.md")) })}
		}, []string{filepath.Join("A-state", "s.md"), "outside the import directory"}},
		{"md alias bomb", func(t *testing.T) []string {
			return []string{mdDir(t, func(d string) { os.WriteFile(filepath.Join(d, "b.md"), []byte(bomb), 0o600) })}
		}, []string{filepath.Join("A-state", "b.md"), "anchors and aliases"}},
		{"jsonl invalid UTF-8", func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "in.jsonl")
			os.WriteFile(p, []byte(`{"layer":"A","body":"ok"}`+"\n"+`{"layer":"A","body":"caf`+"\xe9"+`"}`), 0o600)
			return []string{p}
		}, []string{"line 2", "not valid UTF-8"}},
		{"jsonl not an object", func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "in.jsonl")
			os.WriteFile(p, []byte(`{"layer":"A","body":"ok"}`+"\n"+`[{"layer":"A","body":"x"}]`), 0o600)
			return []string{p}
		}, []string{"line 2", "not a JSON object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.ok("remember", "already here")
			r := e.run("", append([]string{"import"}, c.args(t)...)...)
			if r.code != 1 || !strings.HasSuffix(strings.TrimSpace(r.err), "nothing was imported") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
				t.Fatalf("import: exit %d, stderr %q", r.code, r.err)
			}
			for _, w := range c.wants {
				if !strings.Contains(r.err, w) {
					t.Fatalf("stderr %q does not mention %q", r.err, w)
				}
			}
			if rs := e.list("--status", "all"); len(rs) != 1 {
				t.Fatalf("store changed: %d memories", len(rs))
			}
		})
	}
}

func TestImportFollowsLinksInsideTheDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	memoryFile(t, filepath.Join(dir, "drafts", "a.txt"), "kept beside")
	os.MkdirAll(filepath.Join(dir, "A-state"), 0o700)
	if err := os.Symlink(filepath.Join("..", "drafts", "a.txt"), filepath.Join(dir, "A-state", "a.md")); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.ok("import", dir)
	if rs := e.list(); len(rs) != 1 || rs[0].Title != "kept beside" {
		t.Fatalf("imported %+v", rs)
	}
}

func TestExportIsPrivateAndFollowsNoLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.rec("remember", "the rotation plan for the database password", "-l", "D")
	base := t.TempDir()

	md := filepath.Join(base, "notes")
	e.ok("export", md)
	file := filepath.Join(md, exchange.FileName(memory.Record{ID: m.ID, Layer: memory.LayerDecision, Title: m.Title}))
	for p, want := range map[string]os.FileMode{md: 0o700, filepath.Dir(file): 0o700, file: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v, want mode %v", p, err, want)
		}
	}
	jl := filepath.Join(base, "all.jsonl")
	e.ok("export", jl)
	if fi, err := os.Stat(jl); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v", jl, err)
	}

	// A link planted at a file's path is replaced, not written through.
	victim := filepath.Join(base, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	os.Remove(file)
	os.Symlink(victim, file)
	e.ok("export", md)
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("export wrote through a planted link: %q", b)
	}
	if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file: %v", file, err)
	}

	// An export path that is itself a link is refused.
	elsewhere := filepath.Join(base, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	linkDir := filepath.Join(base, "linkdir")
	os.Symlink(elsewhere, linkDir)
	linkFile := filepath.Join(base, "link.jsonl")
	os.Symlink(victim, linkFile)
	for _, p := range []string{linkDir, linkFile} {
		r := e.run("", "export", p)
		if r.code != 1 || !strings.Contains(r.err, "is a symbolic link to") {
			t.Fatalf("export %s: %+v", p, r)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("export wrote through a link: %q", b)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("export wrote into %s: %v", elsewhere, ents)
	}
}

// A big file streams to the store a chunk at a time: a malformed line far
// into it, after several chunks were written, still refuses the whole
// file in one line naming it, and the store is as it was. The import that
// succeeds prints no progress where stderr is not a terminal.
func TestStreamedImportRefusesALateBadLineAndChangesNothing(t *testing.T) {
	t.Parallel()
	const n, bad = 9000, 7001 // five chunks; the bad line is in the fourth
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == bad {
			b.WriteString(`{"layer":"B","body":"cut short` + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"layer":"B","body":"fact number %d about the build"}`+"\n", i)
	}
	e := newEnv(t)
	e.ok("remember", "already here")
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "import", path)
	if r.code != 1 || !strings.Contains(r.err, fmt.Sprintf("line %d: malformed JSON", bad)) ||
		!strings.Contains(r.err, "nothing was imported") || strings.Count(r.err, "\n") != 1 {
		t.Fatalf("import: %+v", r)
	}
	if rs := e.list("--status", "all", "--limit", "100"); len(rs) != 1 {
		t.Fatalf("store changed: %d memories", len(rs))
	}

	fixed := strings.Replace(b.String(), `"cut short`+"\n", `"cut short"}`+"\n", 1)
	if err := os.WriteFile(path, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("", "import", path)
	if r.code != 0 || r.err != "" || !strings.Contains(r.out, fmt.Sprintf("%d added", n)) {
		t.Fatalf("import: %+v", r)
	}
}

// An Obsidian vault imports as far as it holds memories: its settings,
// trash, plain notes and attachments are counted and passed over, and the
// links its bodies write become edges when they name a memory.
func TestImportObsidianVault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	known := e.rec("remember", "the staging port is 8443", "-l", "B", "--title", "Staging port")
	vault := filepath.Join(t.TempDir(), "vault")
	put := func(rel, text string) {
		p := filepath.Join(vault, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(".obsidian/app.json", "{}")
	put(".obsidian/workspace.json", "{}")
	put(".trash/x.md", "---\nlayer: A\ntitle: thrown away\n---\nx\n")
	put(".git/HEAD", "ref: refs/heads/main\n")
	put("Plain note.md", "a note of my own about [[Park MTP]]\n")
	put("attachments/plot.png", "png")
	put("decisions/Park MTP.md", "---\nlayer: D\ntitle: Park MTP\n---\nBecause of [[Bench 41|the bench]], on [["+known.ID[:10]+"]];\nsee [[Nowhere]].\n\n## Links\n\n- evidence: [[bench-41]]\n")
	put("episodes/bench-41.md", "---\nlayer: C\ntitle: Bench 41\n---\n-4 % with MTP; [[Staging port]]\n")

	out := e.ok("import", vault, "--format", "md")
	for _, want := range []string{"2 added", "3 links", "skipped 1 file without frontmatter, 1 file not .md, 1 under .git/, 2 under .obsidian/, 1 under .trash/", "1 [[links]] name nothing"} {
		if !strings.Contains(out, want) {
			t.Fatalf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(e.ok("list", "--json"), "thrown away") {
		t.Fatalf("a file in .trash/ was imported")
	}
	park := e.list("-l", "D")
	if len(park) != 1 || park[0].Title != "Park MTP" {
		t.Fatalf("decisions: %+v", park)
	}
	got := map[string]bool{}
	for _, ed := range e.rec("show", park[0].ID).Edges {
		got[string(ed.Kind)+" "+ed.To] = true
	}
	bench := e.list("-l", "C")
	if len(bench) != 1 || !got["evidence "+bench[0].ID] || !got["relates_to "+known.ID] || len(got) != 2 {
		t.Fatalf("edges of Park MTP: %v", got)
	}
	// Again: nothing new, no link made twice.
	var res struct {
		Added, Updated int
		BodyLinks      int `json:"body_links"`
	}
	json.Unmarshal([]byte(e.ok("import", vault, "--json")), &res)
	if res.Added != 0 || res.Updated != 0 || res.BodyLinks != 0 {
		t.Fatalf("second import: %+v", res)
	}
	// A file that is a memory but malformed refuses the whole vault.
	put("decisions/broken.md", "---\nlayer: D\ntitle: [unclosed\n---\nx\n")
	r := e.run("", "import", vault)
	if r.code == 0 || !strings.Contains(r.err, "broken.md") || !strings.Contains(r.err, "line") || !strings.Contains(r.err, "nothing was imported") {
		t.Fatalf("malformed memory file: %+v", r)
	}
}

// A recall between two markdown exports changes no exported byte, and a
// markdown export round trips through a fresh store to the same files.
func TestMarkdownExportIsDeterministic(t *testing.T) {
	t.Parallel()
	src := newEnv(t)
	seedStore(t, src)
	first := filepath.Join(t.TempDir(), "first")
	src.ok("export", first)
	src.ok("recall", "decode speed MTP bench")
	src.ok("recall", "provenance numbers")
	second := filepath.Join(t.TempDir(), "second")
	src.ok("export", second)
	a, b := readTree(t, first), readTree(t, second)
	if len(a) == 0 || !maps.Equal(a, b) {
		t.Fatalf("a recall changed the export:\n%v\n%v", keysOf(a), keysOf(b))
	}
	dst := newEnv(t) // the same project name, and the bound file as it was
	os.MkdirAll(filepath.Join(dst.wd, "bench"), 0o755)
	os.WriteFile(filepath.Join(dst.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
	if out := dst.ok("import", first); strings.Contains(out, "name nothing") || strings.Contains(out, "skipped") {
		t.Fatalf("an export read back as a vault: %s", out)
	}
	third := filepath.Join(t.TempDir(), "third")
	dst.ok("export", third)
	c := readTree(t, third)
	// The store that imported it has one more event: that import.
	if tl := c["timeline.jsonl"]; !strings.HasPrefix(tl, a["timeline.jsonl"]) || strings.Count(tl[len(a["timeline.jsonl"]):], "\n") != 1 || !strings.Contains(tl[len(a["timeline.jsonl"]):], `"kind":"import"`) {
		t.Fatalf("timeline after a round trip:\n%s\nwas\n%s", tl, a["timeline.jsonl"])
	}
	delete(a, "timeline.jsonl")
	delete(c, "timeline.jsonl")
	for name, text := range a {
		if c[name] != text {
			t.Fatalf("%s differs after a round trip:\n%s\n---\n%s", name, text, c[name])
		}
	}
	if len(c) != len(a) {
		t.Fatalf("%d files, want %d", len(c), len(a))
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return err
	})
	return out
}

func keysOf(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
