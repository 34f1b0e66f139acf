package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/mirror"
)

// teammate is one person: a clone of the team's repository and a store.
type teammate struct {
	*env
	name string
	git  func(args ...string) (string, error)
}

// gitEnv isolates git from the user's configuration and names an author.
func gitEnv(t *testing.T, name string) []string {
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + name + "@example.com",
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + name + "@example.com", "GIT_TERMINAL_PROMPT=0"}
}

func runGit(t *testing.T, dir string, envv []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "pull.rebase=false"}, args...)...)
	cmd.Dir, cmd.Env = dir, envv
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// team makes a bare repository with one commit and two clones of it,
// each with its own person and store.
func team(t *testing.T) (alice, bob *teammate) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	must := func(out string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
	seedEnv := gitEnv(t, "seed")
	must(runGit(t, root, seedEnv, "init", "-q", "--bare", bare))
	seed := filepath.Join(root, "seed")
	must(runGit(t, root, seedEnv, "clone", "-q", bare, seed))
	must("", os.WriteFile(filepath.Join(seed, "README.md"), []byte("# proj\n"), 0o644))
	must(runGit(t, seed, seedEnv, "add", "-A"))
	must(runGit(t, seed, seedEnv, "commit", "-qm", "start"))
	must(runGit(t, seed, seedEnv, "push", "-q", "origin", "HEAD:main"))
	person := func(name string) *teammate {
		e := newEnv(t)
		wd := filepath.Join(root, name, "proj")
		ge := gitEnv(t, name)
		must(runGit(t, root, ge, "clone", "-q", bare, wd))
		e.wd = wd
		return &teammate{env: e, name: name, git: func(args ...string) (string, error) { return runGit(t, wd, ge, args...) }}
	}
	return person("alice"), person("bob")
}

// must runs a git command that has to succeed.
func (p *teammate) must(args ...string) string {
	p.t.Helper()
	out, err := p.git(args...)
	if err != nil {
		p.t.Fatalf("%s: git %s: %v\n%s", p.name, strings.Join(args, " "), err, out)
	}
	return out
}

// share syncs, commits what the sync wrote and pushes it.
func (p *teammate) share() string {
	p.t.Helper()
	out := p.ok("sync")
	p.must("add", "-A")
	if st := p.must("status", "--porcelain"); st != "" {
		p.must("commit", "-qm", p.name+" syncs memories")
	}
	p.must("push", "-q", "origin", "HEAD:main")
	return out
}

// pull pulls and syncs what came in.
func (p *teammate) pull() string {
	p.t.Helper()
	p.must("pull", "-q", "origin", "main")
	return p.ok("sync")
}

// memories are the project's memories, any status, by id, with each one's
// history as "version:title:body" lines.
func (p *teammate) memories() map[string]string {
	p.t.Helper()
	out := map[string]string{}
	for _, r := range p.list("--status", "all", "--limit", "1000") {
		var full struct {
			memory.Record
			History []memory.Record `json:"history"`
		}
		if err := json.Unmarshal([]byte(p.ok("show", r.ID, "--history", "--json")), &full); err != nil {
			p.t.Fatal(err)
		}
		// The versions' texts, as a set: two people's concurrent versions
		// reach each store in another order. Versions that differ only in
		// machine-local stamps are not the team's history.
		var lines []string
		for _, h := range full.History {
			lines = append(lines, h.Title+"\x00"+h.Body)
		}
		lines = append(lines, "now: "+full.Title+"\x00"+full.Body)
		slices.Sort(lines)
		lines = slices.Compact(lines)
		out[r.ID] = string(r.Status) + "|" + string(r.Layer.Letter()) + "|" + strings.Join(lines, "\n") +
			"|" + strings.Join(r.Supersedes, ",") + ">" + r.SupersededBy
	}
	return out
}

// mtimes are the modification times of every file under dir.
func mtimes(t *testing.T, dir string) map[string]time.Time {
	out := map[string]time.Time{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				out[path] = fi.ModTime()
			}
		}
		return nil
	})
	return out
}

func TestSyncTwoPeopleThroughGit(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	store := alice.rec("remember", "-l", "A", "-t", "The store is Badger", "Badger is the store; no in-memory stand-in.")
	recall := alice.rec("remember", "-l", "D", "-t", "Recall is BM25 plus salience", "Ranking uses BM25 and salience, never trust.")
	stale := alice.rec("remember", "-l", "B", "-t", "Port 7070 is taken", "The dev server cannot use 7070.")
	alice.ok("remember", "-l", "B", "--tag", "personal", "-t", "My editor is helix", "Alice's own note.")
	alice.ok("link", recall.ID, "depends_on", store.ID)
	if out := alice.share(); !strings.Contains(out, "3 files written") {
		t.Fatalf("alice's first sync: %s", out)
	}
	mirrorDir := filepath.Join(alice.wd, ".cairn", "memories")
	b, err := os.ReadFile(filepath.Join(mirrorDir, "D-decision", "recall-is-bm25-plus-salience-"+mirror.ShortID(recall.ID)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id: " + recall.ID, "## Links", "- depends_on [[the-store-is-badger-" + mirror.ShortID(store.ID) + "|The store is Badger]]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file lacks %q:\n%s", want, b)
		}
	}
	for _, never := range []string{"salience", "access", "trust", "fingerprint", "confidence"} {
		if strings.Contains(strings.SplitN(string(b), "\n---\n", 2)[0], never+":") {
			t.Errorf("the frontmatter holds the machine-local %s:\n%s", never, b)
		}
	}

	// Bob pulls: he has the same three memories, not Alice's personal one.
	if out := bob.pull(); !strings.Contains(out, "3 new") {
		t.Fatalf("bob's first sync: %s", out)
	}
	sameMemoriesBut(t, alice, bob, "My editor is helix")

	// Bob edits one and supersedes another; Alice forgets a third.
	bob.ok("edit", store.ID, "Badger is the store; no in-memory stand-in, ever.")
	bob.ok("supersede", recall.ID, "-t", "Recall is BM25, salience and vectors", "BM25, salience and a vector pass; never trust.")
	bob.share()
	alice.ok("forget", stale.ID, "--yes")
	alice.must("pull", "-q", "origin", "main")
	out := alice.ok("sync")
	if !strings.Contains(out, "1 new") || !strings.Contains(out, "edited") {
		t.Fatalf("alice's sync after bob's push: %s", out)
	}
	alice.must("add", "-A")
	alice.must("commit", "-qm", "alice forgets")
	alice.must("push", "-q", "origin", "HEAD:main")
	tombs, _ := os.ReadFile(filepath.Join(mirrorDir, mirror.TombstoneFile))
	if !strings.Contains(string(tombs), stale.ID) || strings.Contains(string(tombs), "7070") {
		t.Fatalf("the tombstones should name the forgotten id and no text:\n%s", tombs)
	}

	// Bob pulls the tombstone: archived at once, forgotten when he says so.
	out = bob.pull()
	if !strings.Contains(out, "cairn sync --forget") {
		t.Fatalf("bob should be asked to forget: %s", out)
	}
	if r := bob.rec("show", stale.ID); r.Status != memory.StatusArchived {
		t.Fatalf("a teammate's forget archives until the person forgets: %s", r.Status)
	}
	bob.ok("sync", "--forget")
	if r := bob.run("", "show", stale.ID); r.code == 0 {
		t.Fatalf("bob still has the forgotten memory")
	}
	sameMemoriesBut(t, alice, bob, "My editor is helix")

	// Nothing changed: nothing written, no file touched, git clean.
	for _, p := range []*teammate{alice, bob} {
		p.must("pull", "-q", "origin", "main")
		dir := filepath.Join(p.wd, ".cairn", "memories")
		before := mtimes(t, dir)
		if out := p.ok("sync"); !strings.Contains(out, "nothing to sync") {
			t.Errorf("%s: a sync with nothing changed: %s", p.name, out)
		}
		after := mtimes(t, dir)
		if len(after) != len(before) {
			t.Errorf("%s: files went or came: %d → %d", p.name, len(before), len(after))
		}
		for f, m := range before {
			if !after[f].Equal(m) {
				t.Errorf("%s: %s was written", p.name, f)
			}
		}
		if st := p.must("status", "--porcelain"); st != "" {
			t.Errorf("%s: git status after a sync with nothing changed:\n%s", p.name, st)
		}
	}
}

// sameMemoriesBut compares two stores, leaving out memories titled
// personal (which stay with their owner).
func sameMemoriesBut(t *testing.T, a, b *teammate, personal string) {
	t.Helper()
	ma, mb := a.memories(), b.memories()
	for id, s := range ma {
		if strings.Contains(s, personal) {
			if _, ok := mb[id]; ok {
				t.Errorf("%s's personal memory reached %s", a.name, b.name)
			}
			continue
		}
		if mb[id] != s {
			t.Errorf("%s:\n  %s: %q\n  %s: %q", id, a.name, s, b.name, mb[id])
		}
	}
	for id := range mb {
		if _, ok := ma[id]; !ok {
			t.Errorf("%s: only %s has it", id, b.name)
		}
	}
}

func TestSyncConcurrentEditsAndMergeConflicts(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	m := alice.rec("remember", "-l", "A", "-t", "Tests use t.TempDir", "Tests keep to t.TempDir().")
	other := alice.rec("remember", "-l", "A", "-t", "Benchmarks go in the README", "With the machine.")
	alice.share()
	bob.pull()

	// A concurrent edit git merges without a conflict (Bob had not synced
	// his): two versions, linked contradicts, and a person's item.
	alice.ok("edit", m.ID, "Tests keep to t.TempDir() and CAIRN_HOME.")
	alice.share()
	bob.ok("edit", m.ID, "Tests keep to t.TempDir() and a temporary HOME.")
	out := bob.pull()
	if !strings.Contains(out, "contradicts yours") {
		t.Fatalf("a concurrent edit should be put to bob: %s", out)
	}
	if r := bob.rec("show", m.ID); !strings.Contains(r.Body, "temporary HOME") {
		t.Fatalf("bob's own version was overwritten: %q", r.Body)
	}
	var copyID string
	for _, r := range bob.list("--limit", "100") {
		if strings.Contains(r.Body, "CAIRN_HOME") {
			copyID = r.ID
			if !slices.ContainsFunc(r.Edges, func(e memory.RecordEdge) bool { return e.Kind == memory.EdgeContradicts && e.To == m.ID }) {
				t.Errorf("alice's version should contradict bob's: %+v", r.Edges)
			}
		}
	}
	if copyID == "" {
		t.Fatal("alice's version was lost")
	}
	if !strings.Contains(bob.ok("verify", "--json"), copyID) {
		t.Errorf("alice's version should wait in bob's verify-first queue")
	}
	bob.share()
	alice.pull()
	if r := alice.rec("show", copyID); !strings.Contains(r.Body, "CAIRN_HOME") {
		t.Fatalf("alice should see both versions: %q", r.Body)
	}

	// A conflict git could not merge: refused with the file and line, the
	// rest of the sync goes on.
	alice.ok("edit", other.ID, "With the machine and its load.")
	alice.share()
	bob.ok("edit", other.ID, "With the machine and the Go version.")
	bob.ok("remember", "-l", "A", "-t", "Nothing acknowledged is lost", "Every write is durable.")
	bob.ok("sync")
	bob.must("add", "-A")
	bob.must("commit", "-qm", "bob's edit")
	if out, err := bob.git("pull", "-q", "origin", "main"); err == nil {
		t.Fatalf("the pull should conflict: %s", out)
	}
	r := bob.run("", "sync")
	if r.code == 0 || !strings.Contains(r.out, "benchmarks-go-in-the-readme-"+mirror.ShortID(other.ID)+".md:") ||
		!strings.Contains(r.out, "conflict marker") {
		t.Fatalf("a conflicted file should be refused with its file and line: %d\n%s%s", r.code, r.out, r.err)
	}
	if got := bob.rec("show", other.ID); !strings.Contains(got.Body, "Go version") || got.Status != memory.StatusActive {
		t.Fatalf("a refused file must leave its memory alone: %+v", got)
	}
	// Bob resolves the merge by taking Alice's text: a person's merge, so
	// it is the memory's next version; his own stays in its history.
	bob.must("checkout", "--theirs", ".")
	bob.must("add", "-A")
	bob.must("commit", "-qm", "merge")
	if out := bob.ok("sync"); !strings.Contains(out, "1 edited") {
		t.Fatalf("after the merge: %s", out)
	}
	if got := bob.rec("show", other.ID, "--history"); !strings.Contains(got.Body, "its load") {
		t.Fatalf("the merge's text should be the current version: %q", got.Body)
	}
	if h := bob.ok("show", other.ID, "--history", "--json"); !strings.Contains(h, "Go version") {
		t.Fatalf("bob's own version should stay in the history:\n%s", h)
	}
	bob.share()
	alice.pull()
	sameCurrent(t, alice, bob)
	sameCurrent(t, bob, alice)
}

// sameCurrent checks that b has every memory of a's with the same status
// and current text. (Histories may differ here: a version a person's merge
// left behind stays in the history of the store that wrote it.)
func sameCurrent(t *testing.T, a, b *teammate) {
	t.Helper()
	ma, mb := a.memories(), b.memories()
	for id, s := range ma {
		if current(s) != current(mb[id]) {
			t.Errorf("%s: %s has %q, %s has %q", id, a.name, current(s), b.name, current(mb[id]))
		}
	}
}

// current is a memories() line without the history.
func current(s string) string {
	status, rest, _ := strings.Cut(s, "|")
	_, rest, _ = strings.Cut(rest, "|")
	_, now, _ := strings.Cut(rest, "now: ")
	now, _, _ = strings.Cut(now, "|")
	now, _, _ = strings.Cut(now, "\n")
	return status + " " + now
}

// active are the titles of a teammate's active memories.
func (p *teammate) active() []string {
	p.t.Helper()
	var out []string
	for _, r := range p.list("--limit", "1000") {
		out = append(out, r.Title)
	}
	slices.Sort(out)
	return out
}

// mirrorFile is the path, under the mirror, of the one file whose name
// ends with id's short form.
func (p *teammate) mirrorFile(id string) string {
	p.t.Helper()
	var found []string
	filepath.WalkDir(filepath.Join(p.wd, ".cairn", "memories"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "id: "+id+"\n") {
				found = append(found, path)
			}
		}
		return nil
	})
	if len(found) != 1 {
		p.t.Fatalf("%s: %d files hold %s: %v", p.name, len(found), id, found)
	}
	return found[0]
}

// A checkout of a branch without the mirror, or of an older commit with
// fewer of its files, is not a deletion: the sync says so and changes
// nothing; back on main nothing was archived or lost, and a commit -am
// carries nothing that archives anything for a teammate.
func TestSyncBranchWithoutTheMirror(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	alice.must("branch", "old") // before the mirror
	first := alice.rec("remember", "-l", "A", "-t", "The store is Badger", "Badger is the store.")
	alice.share()
	older := strings.TrimSpace(alice.must("rev-parse", "HEAD"))
	for i := range 6 {
		alice.ok("remember", "-l", "D", "-t", fmt.Sprintf("Decision %d", i), fmt.Sprintf("We decided %d.", i))
	}
	// A superseded memory: its file's absence once stopped a sync half-way.
	was := alice.rec("remember", "-l", "B", "-t", "Release on Tuesdays", "Every Tuesday.")
	alice.ok("supersede", was.ID, "-t", "Release on Wednesdays", "Every Wednesday.")
	alice.share()
	bob.pull()
	want := alice.active()
	if len(want) != 8 {
		t.Fatalf("active: %v", want)
	}

	// An older commit: 7 of the 9 files gone at once.
	alice.must("checkout", "-q", older)
	r := alice.run("", "sync")
	if r.code == 0 || !strings.Contains(r.err, "are gone (a checkout of an older commit?)") || !strings.Contains(r.err, "nothing was changed") {
		t.Fatalf("an older commit's mirror: %d\n%s%s", r.code, r.out, r.err)
	}
	// The branch without the mirror.
	alice.must("checkout", "-q", "old")
	if _, err := os.Stat(filepath.Join(alice.wd, ".cairn")); err == nil {
		t.Fatal("the old branch should have no mirror")
	}
	r = alice.run("", "sync")
	if r.code == 0 || !strings.Contains(r.err, "is missing (a checkout of a branch without it?)") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Fatalf("a branch without the mirror: %d\n%s%s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(alice.wd, ".cairn")); err == nil {
		t.Fatal("the sync wrote a mirror into the old branch")
	}
	// Saying it was removed on purpose still names the memories and asks.
	r = alice.run("", "sync", "--mirror-removed")
	if r.code != ExitUsage || !strings.Contains(r.err, "archive 8 memories") || !strings.Contains(r.err, `"Decision 0"`) || !strings.Contains(r.err, "--yes") {
		t.Fatalf("a mass archive without --yes: %d\n%s%s", r.code, r.out, r.err)
	}
	alice.tty = true
	r = alice.run("no\n", "sync", "--mirror-removed")
	alice.tty = false
	if r.code != 0 || !strings.Contains(r.out, "Decision 5") || !strings.Contains(r.out, "nothing was changed") {
		t.Fatalf("a person who says no: %d\n%s%s", r.code, r.out, r.err)
	}
	if got := alice.active(); !slices.Equal(got, want) {
		t.Fatalf("on the old branch: %v, want %v", got, want)
	}

	// Back on main: nothing to sync, nothing to commit, nothing lost.
	alice.must("checkout", "-q", "main")
	if out := alice.ok("sync"); !strings.Contains(out, "nothing to sync") {
		t.Fatalf("back on main: %s", out)
	}
	if out, err := alice.git("commit", "-qam", "after the checkout"); err == nil {
		t.Fatalf("nothing should be left to commit: %s", out)
	}
	alice.must("push", "-q", "origin", "HEAD:main")
	bob.pull()
	for _, p := range []*teammate{alice, bob} {
		if got := p.active(); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", p.name, got, want)
		}
		if got := p.rec("show", first.ID); got.Status != memory.StatusActive {
			t.Errorf("%s: %s", p.name, got.Status)
		}
	}
}

// Two people retitle one memory at once. Its file keeps its name on both
// sides, so git sees one file edited twice: merged into both versions to
// decide when git can, a conflict a person resolves when it cannot — never
// two files with one id, never a memory lost.
func TestSyncConcurrentRetitles(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	m := alice.rec("remember", "-l", "A", "-t", "Deploys go through CI", "Never by hand.")
	alice.share()
	bob.pull()
	path := alice.mirrorFile(m.ID)
	rel, _ := filepath.Rel(alice.wd, path)

	// Both synced and committed their retitle: a content conflict in one
	// file, refused with its line until a person resolves it.
	alice.ok("edit", m.ID, "-t", "Deploys go through the CI pipeline", "Never by hand.")
	alice.share()
	if alice.mirrorFile(m.ID) != path {
		t.Fatalf("a retitle renamed the file: %s", alice.mirrorFile(m.ID))
	}
	bob.ok("edit", m.ID, "-t", "Deploys go through GitHub Actions", "Never by hand.")
	bob.ok("sync")
	bob.must("commit", "-qam", "bob retitles")
	if out, err := bob.git("pull", "-q", "origin", "main"); err == nil || !strings.Contains(out, "CONFLICT (content)") {
		t.Fatalf("want a content conflict in one file: %v\n%s", err, out)
	}
	r := bob.run("", "sync")
	if r.code == 0 || !strings.Contains(r.out, filepath.Base(rel)+":") || !strings.Contains(r.out, "conflict marker") || strings.Contains(r.out, "holds the id") {
		t.Fatalf("the conflict should be shown with its file and line: %d\n%s%s", r.code, r.out, r.err)
	}
	if got := bob.rec("show", m.ID); got.Title != "Deploys go through GitHub Actions" {
		t.Fatalf("a refused file changed the memory: %q", got.Title)
	}
	// Bob takes Alice's: the next version; his own stays in the history.
	bob.must("checkout", "--theirs", "--", rel)
	bob.must("add", "--", rel)
	bob.must("commit", "-qm", "merge")
	if out := bob.ok("sync"); !strings.Contains(out, "1 edited") {
		t.Fatalf("after the merge: %s", out)
	}
	if got := bob.rec("show", m.ID); got.Title != "Deploys go through the CI pipeline" {
		t.Fatalf("the merge's title should be current: %q", got.Title)
	}
	if h := bob.ok("show", m.ID, "--history", "--json"); !strings.Contains(h, "GitHub Actions") {
		t.Fatalf("bob's title should stay in the history:\n%s", h)
	}
	bob.share()
	alice.pull()
	sameCurrent(t, alice, bob)

	// Bob retitles without syncing; Alice retitles again and pushes: git
	// merges the file, and the sync keeps both versions to decide.
	bob.ok("edit", m.ID, "-t", "Deploys go through Buildkite", "Never by hand.")
	alice.ok("edit", m.ID, "-t", "Deploys go through CI, tagged", "Never by hand.")
	alice.share()
	out := bob.pull()
	if !strings.Contains(out, "contradicts yours") {
		t.Fatalf("a concurrent retitle should be put to bob: %s", out)
	}
	titles := bob.active()
	if !slices.Contains(titles, "Deploys go through Buildkite") || !slices.Contains(titles, "Deploys go through CI, tagged") {
		t.Fatalf("both titles should be active: %v", titles)
	}
	bob.share()
	alice.pull()
	sameCurrent(t, alice, bob)
	sameCurrent(t, bob, alice)
	if got := alice.active(); !slices.Equal(got, titles) {
		t.Fatalf("alice: %v, bob: %v", got, titles)
	}
}

// A file renamed in Obsidian (the links to it rewritten, as Obsidian does)
// keeps its memory and its links: by the name it has now.
func TestSyncObsidianRename(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	reason := alice.rec("remember", "-l", "E", "-t", "MTP was net-negative on MoE", "Bench 41.")
	dec := alice.rec("remember", "-l", "D", "-t", "Parked MTP", "Not worth it now.")
	alice.ok("link", dec.ID, "because", reason.ID)
	alice.share()
	bob.pull()

	from := alice.mirrorFile(reason.ID)
	to := filepath.Join(filepath.Dir(from), "MTP on MoE.md")
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	decPath := alice.mirrorFile(dec.ID)
	b, _ := os.ReadFile(decPath)
	old := "[[" + strings.TrimSuffix(filepath.Base(from), ".md") + "|"
	if !strings.Contains(string(b), old) {
		t.Fatalf("no link to rewrite:\n%s", b)
	}
	os.WriteFile(decPath, []byte(strings.Replace(string(b), old, "[[MTP on MoE|", 1)), 0o644)
	alice.must("add", "-A")
	alice.must("commit", "-qm", "rename in obsidian")
	alice.must("push", "-q", "origin", "HEAD:main")

	because := func(p *teammate) bool {
		r := p.rec("show", dec.ID)
		return slices.ContainsFunc(r.Edges, func(e memory.RecordEdge) bool {
			return e.Kind == memory.EdgeBecause && e.To == reason.ID && (e.Active == nil || *e.Active)
		})
	}
	for _, p := range []*teammate{alice, bob} {
		if p == bob {
			p.must("pull", "-q", "origin", "main")
		}
		out := p.ok("sync")
		if !because(p) {
			t.Errorf("%s: the because link went off after the rename: %s", p.name, out)
		}
		if got := p.rec("show", reason.ID); got.Status != memory.StatusActive {
			t.Errorf("%s: the renamed memory is %s", p.name, got.Status)
		}
		if got := p.mirrorFile(reason.ID); filepath.Base(got) != "MTP on MoE.md" {
			t.Errorf("%s: the sync renamed the file back: %s", p.name, got)
		}
		if out := p.ok("sync"); !strings.Contains(out, "nothing to sync") {
			t.Errorf("%s: then nothing to sync: %s", p.name, out)
		}
		if st := p.must("status", "--porcelain"); st != "" {
			t.Errorf("%s: git status:\n%s", p.name, st)
		}
	}
}

// A retitle, a new memory, a layer moved and a memory archived, then
// git commit -am: the sync staged all of it, so the teammate gets the whole
// change and loses nothing.
func TestSyncCommitAllAfterARetitle(t *testing.T) {
	t.Parallel()
	alice, bob := team(t)
	keep := alice.rec("remember", "-l", "B", "-t", "Staging is on port 8080", "Use 8080.")
	move := alice.rec("remember", "-l", "B", "-t", "Go 1.27 is required", "The toolchain.")
	gone := alice.rec("remember", "-l", "B", "-t", "The freeze is on", "Until Monday.")
	alice.share()
	bob.pull()

	alice.ok("edit", keep.ID, "-t", "Staging is on port 8081", "Use 8081.")
	alice.ok("edit", move.ID, "-l", "A")
	alice.ok("archive", gone.ID)
	added := alice.rec("remember", "-l", "D", "-t", "Ship on Wednesdays", "Midweek.")
	out := alice.ok("sync")
	if !strings.Contains(out, "staged in git") {
		t.Fatalf("the sync should say it staged: %s", out)
	}
	status := alice.must("status", "--porcelain")
	if strings.Contains(status, "??") || !strings.Contains(status, "R  ") {
		t.Fatalf("everything staged, the move as a rename:\n%s", status)
	}
	alice.must("commit", "-qam", "alice's memories")
	if st := alice.must("status", "--porcelain"); st != "" {
		t.Fatalf("commit -am left something behind:\n%s", st)
	}
	alice.must("push", "-q", "origin", "HEAD:main")
	bob.pull()
	sameMemoriesBut(t, alice, bob, "\x00nothing personal")
	if got := bob.rec("show", added.ID); got.Title != "Ship on Wednesdays" {
		t.Fatalf("the new memory did not travel: %+v", got)
	}
	if got := bob.rec("show", keep.ID); got.Status != memory.StatusActive || got.Title != "Staging is on port 8081" {
		t.Fatalf("the retitled memory: %s %q", got.Status, got.Title)
	}
	if got := bob.rec("show", move.ID); got.Layer != memory.LayerInvariant || got.Status != memory.StatusActive {
		t.Fatalf("the moved memory: %s %s", got.Layer, got.Status)
	}
}

// A personal tag takes a memory out of the mirror, which archives it in
// teammates' stores: the sync names it and asks, then stages the removal.
func TestSyncUnshareIsAsked(t *testing.T) {
	t.Parallel()
	alice, _ := team(t)
	m := alice.rec("remember", "-l", "B", "-t", "My editor is helix", "Alice's.")
	alice.share()
	path := alice.mirrorFile(m.ID)
	alice.ok("edit", m.ID, "--add-tag", "personal")
	r := alice.run("", "sync")
	if r.code != ExitUsage || !strings.Contains(r.err, `"My editor is helix"`) || !strings.Contains(r.err, "no longer shared") {
		t.Fatalf("unsharing should be asked: %d\n%s%s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("a sync not confirmed removed the file: %v", err)
	}
	out := alice.ok("sync", "--yes")
	if !strings.Contains(out, "My editor is helix: no longer shared") {
		t.Fatalf("the removal should be said: %s", out)
	}
	if st := alice.must("status", "--porcelain"); !strings.HasPrefix(st, "D  ") {
		t.Fatalf("the removal should be staged:\n%s", st)
	}
	if got := alice.rec("show", m.ID); got.Status != memory.StatusActive {
		t.Fatalf("unsharing archived the memory here: %s", got.Status)
	}
}
