package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// clone is one person of a team: a clone of the team's repository, a
// cairn home, and the real binary.
type clone struct {
	t    *testing.T
	name string
	wd   string
	home string // CAIRN_HOME
	env  []string
}

func (c *clone) cmd(name string, args ...string) (string, error) {
	c.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = c.wd, c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *clone) git(args ...string) string {
	c.t.Helper()
	out, err := c.cmd("git", args...)
	if err != nil {
		c.t.Fatalf("%s: git %s: %v\n%s", c.name, strings.Join(args, " "), err, out)
	}
	return out
}

// cairn runs the real binary and returns its standard output.
func (c *clone) cairn(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = c.wd, c.env
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("%s: cairn %s: %v\n%s%s", c.name, strings.Join(args, " "), err, out, errb.String())
	}
	return string(out)
}

// share syncs, commits everything and pushes.
func (c *clone) share() {
	c.t.Helper()
	c.cairn("sync")
	c.commitPush()
}

func (c *clone) commitPush() {
	c.t.Helper()
	c.git("add", "-A")
	if c.git("status", "--porcelain") != "" {
		c.git("commit", "-qm", c.name+"'s memories")
	}
	c.git("push", "-q", "origin", "HEAD:main")
}

type memRec struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
	Edges []struct {
		Kind string `json:"kind"`
		To   string `json:"to"`
	} `json:"edges"`
}

func (c *clone) memories() []memRec {
	c.t.Helper()
	var ms []memRec
	if err := json.Unmarshal([]byte(c.cairn("list", "--json", "--limit", "1000")), &ms); err != nil {
		c.t.Fatal(err)
	}
	return ms
}

func (c *clone) remember(title, body string) string {
	c.t.Helper()
	var m memRec
	if err := json.Unmarshal([]byte(c.cairn("remember", "--json", "-l", "A", "-t", title, body)), &m); err != nil {
		c.t.Fatal(err)
	}
	return m.ID
}

// teamOfTwo is a bare origin and two clones of it, each with its home.
func teamOfTwo(t *testing.T) (alice, bob *clone) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	person := func(name string) *clone {
		home := filepath.Join(root, name+"-home")
		os.MkdirAll(home, 0o700)
		return &clone{t: t, name: name, wd: filepath.Join(root, name), home: filepath.Join(home, "cairn"), env: append(os.Environ(),
			"HOME="+home, "CAIRN_HOME="+filepath.Join(home, "cairn"), "CAIRN_IDLE=700ms", "NO_COLOR=1",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+name+"@example.com",
			"GIT_COMMITTER_NAME="+name, "GIT_COMMITTER_EMAIL="+name+"@example.com")}
	}
	alice, bob = person("alice"), person("bob")
	seed := &clone{t: t, name: "seed", wd: root, env: alice.env}
	seed.git("init", "-q", "--bare", "-b", "main", "origin.git")
	seed.git("clone", "-q", "origin.git", "alice")
	os.WriteFile(filepath.Join(alice.wd, "README.md"), []byte("# proj\n"), 0o644)
	alice.git("add", "-A")
	alice.git("commit", "-qm", "start")
	alice.git("push", "-q", "origin", "HEAD:main")
	seed.git("clone", "-q", "origin.git", "bob")
	for _, c := range []*clone{alice, bob} {
		c.git("config", "pull.rebase", "false")
		t.Cleanup((&home{t: t, dir: c.home}).waitServerGone)
	}
	return alice, bob
}

// The merge driver with real git: Alice and Bob change the same memories
// at once — the same line, different lines, and the title — and Alice's
// pull merges them with no conflict and no conflict marker. Her next sync
// keeps the newer version of each active and puts the other in her
// verify-first queue as a memory that contradicts it; Bob gets the pair
// after his pull. Nothing either wrote is lost.
func TestMergeDriverWithRealGit(t *testing.T) {
	t.Parallel()
	alice, bob := teamOfTwo(t)
	if out := alice.cairn("setup", "git", "--yes"); !strings.Contains(out, ".gitattributes") {
		t.Fatalf("setup: %s", out)
	}
	sameLine := alice.remember("Tests use TempDir", "Tests keep to t.TempDir().")
	otherLines := alice.remember("Benchmarks go in the README", "With the machine.")
	retitled := alice.remember("Release on Tuesdays", "Every Tuesday, from main.")
	alice.share()
	bob.git("pull", "-q", "origin", "main")
	bob.cairn("setup", "git", "--yes")
	bob.cairn("sync")

	// Bob's changes, shared first.
	bob.cairn("edit", sameLine, "Tests keep to t.TempDir() and a temporary HOME.")
	bob.cairn("edit", otherLines, "--add-tag", "docs")
	bob.share()
	// A retitle in the file itself (as a person in an editor does it): the
	// file keeps its name, its title line changes on both sides.
	retitle := func(c *clone, title string) {
		t.Helper()
		matches, _ := filepath.Glob(filepath.Join(c.wd, ".cairn", "memories", "A-invariant", "release-on-tuesdays-*.md"))
		if len(matches) != 1 {
			t.Fatalf("%s: the file of the memory to retitle: %v", c.name, matches)
		}
		b, _ := os.ReadFile(matches[0])
		os.WriteFile(matches[0], []byte(strings.Replace(string(b), "title: Release on Tuesdays", "title: "+title, 1)), 0o644)
	}
	retitle(bob, "Release every Tuesday")
	bob.commitPush()

	// Alice's, at the same time.
	alice.cairn("edit", sameLine, "Tests keep to t.TempDir() and CAIRN_HOME.")
	alice.cairn("edit", otherLines, "With the machine and its load.")
	alice.cairn("sync")
	retitle(alice, "Release on Tuesday mornings")
	alice.git("add", "-A")
	alice.git("commit", "-qm", "alice's edits")
	out, err := alice.cmd("git", "pull", "--no-edit", "origin", "main")
	if err != nil {
		t.Fatalf("the pull should merge: %v\n%s", err, out)
	}
	if st := alice.git("status", "--porcelain"); strings.Contains(st, "UU ") || strings.Contains(st, "AA ") {
		t.Fatalf("unmerged paths:\n%s", st)
	}
	filepath.WalkDir(filepath.Join(alice.wd, ".cairn"), func(p string, d os.DirEntry, err error) error {
		if b, _ := os.ReadFile(p); err == nil && !d.IsDir() && strings.Contains(string(b), "<<<<<<<") {
			t.Errorf("conflict markers in %s:\n%s", p, b)
		}
		return nil
	})

	out = alice.cairn("sync")
	pairs := map[string][2]string{ // memory → its two concurrent texts
		sameLine:   {"CAIRN_HOME", "temporary HOME"},
		otherLines: {"its load", "docs"},
		retitled:   {"Release on Tuesday mornings", "Release every Tuesday"},
	}
	check := func(c *clone, verifyFirst bool) {
		t.Helper()
		ms := c.memories()
		byID := map[string]memRec{}
		for _, m := range ms {
			byID[m.ID] = m
		}
		verify := c.cairn("verify", "--json")
		for id, texts := range pairs {
			m, ok := byID[id]
			if !ok {
				t.Fatalf("%s: memory %s is not active any more", c.name, id)
			}
			var copies []memRec
			for _, o := range ms {
				for _, e := range o.Edges {
					if e.Kind == "contradicts" && e.To == id {
						copies = append(copies, o)
					}
				}
			}
			if len(copies) != 1 {
				t.Fatalf("%s: %s should have one contradicting copy, has %d (sync said: %s)", c.name, m.Title, len(copies), out)
			}
			if verifyFirst && !strings.Contains(verify, copies[0].ID) {
				t.Errorf("%s: the copy of %s should wait in verify-first", c.name, m.Title)
			}
			// Both texts are there: one in the memory, the other in its copy.
			kept, other := c.cairn("show", m.ID, "--json"), c.cairn("show", copies[0].ID, "--json")
			if !(strings.Contains(kept, texts[0]) && strings.Contains(other, texts[1])) &&
				!(strings.Contains(kept, texts[1]) && strings.Contains(other, texts[0])) {
				t.Errorf("%s: one of %q should be the memory, the other its copy:\n%s\n%s", c.name, texts, kept, other)
			}
		}
	}
	check(alice, true)
	// Bob gets the pair too (the queue is Alice's: a person's trust is
	// their machine's, and the one who merged decides).
	alice.share()
	bob.git("pull", "-q", "origin", "main")
	bob.cairn("sync")
	check(bob, false)
}

// cairn setup git writes .gitattributes (keeping what it held) and the
// repository's git config; again, it changes nothing; --remove restores
// both exactly.
func TestSetupGitIsReversible(t *testing.T) {
	t.Parallel()
	alice, _ := teamOfTwo(t)
	attrs, config := filepath.Join(alice.wd, ".gitattributes"), filepath.Join(alice.wd, ".git", "config")
	os.WriteFile(attrs, []byte("*.png binary\n"), 0o644)
	beforeAttrs, _ := os.ReadFile(attrs)
	beforeConfig, _ := os.ReadFile(config)
	alice.cairn("setup", "git", "--yes")
	if got := alice.git("check-attr", "merge", ".cairn/memories/A-invariant/x-abcdefgh.md"); !strings.Contains(got, "merge: cairn") {
		t.Fatalf("attributes: %s", got)
	}
	if got := alice.git("config", "--get", "merge.cairn.driver"); got != "'"+bin+"' merge-file %O %A %B %P\n" {
		t.Fatalf("driver: %q", got)
	}
	if b, _ := os.ReadFile(attrs); !strings.HasPrefix(string(b), string(beforeAttrs)) {
		t.Fatalf("setup lost what .gitattributes held:\n%s", b)
	}
	if out := alice.cairn("setup", "git", "--yes"); !strings.Contains(out, "nothing to change") {
		t.Fatalf("a second setup: %s", out)
	}
	alice.cairn("setup", "git", "--remove", "--yes")
	if b, _ := os.ReadFile(attrs); string(b) != string(beforeAttrs) {
		t.Fatalf(".gitattributes not restored:\n%s", b)
	}
	if b, _ := os.ReadFile(config); string(b) != string(beforeConfig) {
		t.Fatalf("git config not restored:\n%s", b)
	}
	// A .gitattributes setup created goes again with --remove.
	os.Remove(attrs)
	alice.cairn("setup", "git", "--yes")
	alice.cairn("setup", "git", "--remove", "--yes")
	if _, err := os.Stat(attrs); err == nil {
		t.Fatal("the .gitattributes setup created is still there")
	}
}

// What the driver cannot read as memory files (a note without
// frontmatter, edited on both sides) is git's own conflict, for a person.
func TestMergeDriverLeavesOtherFilesToGit(t *testing.T) {
	t.Parallel()
	alice, bob := teamOfTwo(t)
	alice.cairn("setup", "git", "--yes")
	note := filepath.Join(".cairn", "memories", "A-invariant", "NOTES.md")
	os.MkdirAll(filepath.Join(alice.wd, filepath.Dir(note)), 0o755)
	os.WriteFile(filepath.Join(alice.wd, note), []byte("notes\n"), 0o644)
	alice.commitPush()
	bob.git("pull", "-q", "origin", "main")
	bob.cairn("setup", "git", "--yes")
	os.WriteFile(filepath.Join(bob.wd, note), []byte("bob's notes\n"), 0o644)
	bob.commitPush()
	os.WriteFile(filepath.Join(alice.wd, note), []byte("alice's notes\n"), 0o644)
	alice.git("commit", "-qam", "alice's notes")
	out, err := alice.cmd("git", "pull", "--no-edit", "origin", "main")
	if err == nil || !strings.Contains(out, "CONFLICT") || !strings.Contains(out, "NOTES.md: not merged as memories") {
		t.Fatalf("want git's conflict and the driver's reason: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(alice.wd, note)); !strings.Contains(string(b), "<<<<<<< ours") || !strings.Contains(string(b), "bob's notes") {
		t.Fatalf("git's conflict should be in the file:\n%s", b)
	}
	if help := alice.cairn("--help"); strings.Contains(help, "merge-file") {
		t.Errorf("the driver's command is git's, not in the main help:\n%s", help)
	}
}

// The real binary against a teammate's hostile commit: .tombstones as a
// link to /dev/zero and a memory file as a FIFO. cairn sync says one line
// for each, syncs the rest and exits non-zero — no out-of-memory, no hang,
// no stack trace — and the memory whose file is the FIFO stays active.
func TestSyncRefusesHostileFilesWholeProcess(t *testing.T) {
	t.Parallel()
	alice, _ := teamOfTwo(t)
	id := alice.remember("Never commit .env files", "Secrets stay out of git.")
	alice.cairn("sync")
	dir := filepath.Join(alice.wd, ".cairn", "memories")
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".tombstones")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "A-invariant", "*.md"))
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	os.Remove(files[0])
	if err := syscall.Mkfifo(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "A-invariant", "new.md"), []byte("---\ntitle: No sleeps in tests\nlayer: A\n---\n\nSynchronise on events.\n"), 0o644)
	cmd := exec.Command(bin, "sync")
	cmd.Dir, cmd.Env = alice.wd, alice.env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err == nil || strings.Contains(errb.String(), "goroutine") || strings.Contains(errb.String(), "fatal error") {
		t.Fatalf("want a refusal, got %v\n%s%s", err, out.String(), errb.String())
	}
	for _, want := range []string{"refused " + filepath.Join(dir, ".tombstones") + ": is a symbolic link", "refused " + files[0] + ": is a FIFO", "1 new"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in:\n%s", want, out.String())
		}
	}
	if show := alice.cairn("show", id, "--json"); !strings.Contains(show, `"status": "active"`) && !strings.Contains(show, `"status":"active"`) {
		t.Fatalf("the memory whose file is a FIFO: %s", show)
	}
}
