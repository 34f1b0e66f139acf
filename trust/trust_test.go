package trust

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"cairn/memory"
)

var ctx = context.Background()

// repo is a real git repository in a temp dir.
type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &repo{t: t, root: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("config", "user.email", "t@example.com")
	r.git("config", "user.name", "t")
	r.write("README.md", "hello\n")
	r.commit("init")
	return r
}

// benchRepo is a repository with bench/a.txt committed, and its checker.
func benchRepo(t *testing.T) (*repo, *Checker) {
	t.Helper()
	r := newRepo(t)
	r.write("bench/a.txt", "1\n")
	r.commit("a")
	return r, NewChecker(r.root, nil)
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", r.root}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, path)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// fact is a user-stated memory with the bindings Bind finds in its text.
func fact(t *testing.T, c *Checker, text string) *memory.Memory {
	t.Helper()
	return &memory.Memory{ID: "01JD0000000000000000000AAA", Body: text, Confidence: 0.9, Provenance: memory.ProvUserStated,
		UpdatedAt: time.Now(), Watermarks: c.Bind(ctx, text)}
}

// wake runs a check and applies what it found, as the CLI does.
func wake(t *testing.T, c *Checker, m *memory.Memory) []string {
	t.Helper()
	changes, err := c.Check(ctx, []*memory.Memory{m})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		return nil
	}
	m.Watermarks = changes[0].Watermarks
	return changes[0].Reasons
}

// Scenario 1: a benchmark fact bound to bench/decode.txt.
func TestScenarioBenchmarkFact(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("bench/decode.txt", "decode: +229 %\n")
	r.write("docs/guide.md", "guide\n")
	r.commit("bench")
	c := NewChecker(r.root, func(string) string { return "" })
	m := fact(t, c, "+229 % decode speed, see bench/decode.txt")
	if len(m.Watermarks) != 1 || m.Watermarks[0].Kind != memory.WatermarkFile || m.Watermarks[0].Target != "bench/decode.txt" {
		t.Fatalf("binding: %+v", m.Watermarks)
	}
	r.write("docs/guide.md", "guide, edited\n")
	r.commit("docs only")
	if reasons := wake(t, c, m); len(reasons) != 0 || memory.Trust(m) != 0.9 {
		t.Fatalf("a docs-only commit moved the fact: %v, trust %.2f", reasons, memory.Trust(m))
	}
	r.write("bench/decode.txt", "decode: +31 %\n")
	r.commit("new numbers")
	reasons := wake(t, c, m)
	if len(reasons) != 1 || !strings.Contains(reasons[0], "bench/decode.txt: content changed since") || memory.Trust(m) >= 0.5 {
		t.Fatalf("the change was not noticed: %v, trust %.2f", reasons, memory.Trust(m))
	}
	// Confirming re-stamps: trust restored, the next wake check is quiet.
	for i, w := range m.Watermarks {
		m.Watermarks[i], _ = c.Stamp(ctx, w)
	}
	if memory.Trust(m) != 0.9 || len(wake(t, c, m)) != 0 {
		t.Fatalf("confirm did not restore trust: %.2f", memory.Trust(m))
	}
}

// Scenario 2: the bound file is deleted.
func TestScenarioDeletedFileIsGone(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("src/auth.go", "package auth\n")
	r.commit("auth")
	c := NewChecker(r.root, nil)
	m := fact(t, c, "sessions live in src/auth.go")
	os.Remove(filepath.Join(r.root, "src/auth.go"))
	reasons := wake(t, c, m)
	if m.Watermarks[0].State != memory.WatermarkGone || len(reasons) != 1 || !strings.Contains(reasons[0], "gone") {
		t.Fatalf("%+v %v", m.Watermarks, reasons)
	}
}

// Scenario 3: a flag. A variable lives in one process's environment: a
// process that does not see it has no evidence and changes nothing; one that
// sees another value records the move and says which process saw it.
func TestScenarioFlag(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CAIRN_TEST_MODE": "fast"}
	c := NewChecker(t.TempDir(), func(k string) string { return env[k] })
	m := fact(t, c, "tests run with CAIRN_TEST_MODE set; UNSET_THING is not bound")
	if len(m.Watermarks) != 1 || m.Watermarks[0].Kind != memory.WatermarkFlag || m.Watermarks[0].Target != "CAIRN_TEST_MODE" {
		t.Fatalf("binding: %+v", m.Watermarks)
	}
	delete(env, "CAIRN_TEST_MODE")
	if reasons := wake(t, c, m); m.Watermarks[0].State != memory.WatermarkIntact || len(reasons) != 0 {
		t.Fatalf("a process without the variable changed the state: %+v %v", m.Watermarks[0], reasons)
	}
	env["CAIRN_TEST_MODE"] = "slow"
	reasons := wake(t, c, m)
	if m.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("changed value: %+v", m.Watermarks[0])
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], "seen by "+c.Observer) || !strings.Contains(reasons[0], fmt.Sprint(os.Getpid())) {
		t.Fatalf("the reason does not say which process saw the change: %v", reasons)
	}
	delete(env, "CAIRN_TEST_MODE")
	reasons = wake(t, c, m)
	if m.Watermarks[0].State != memory.WatermarkMoved || len(reasons) != 1 || !strings.Contains(reasons[0], "another cairn process") {
		t.Fatalf("a process without the variable undid the move or lost its reason: %+v %v", m.Watermarks[0], reasons)
	}
	env["CAIRN_TEST_MODE"] = "fast"
	if wake(t, c, m); m.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("the value came back but the state did not: %+v", m.Watermarks[0])
	}
}

// Scenario 4: nothing is invented.
func TestScenarioNothingInvented(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	c := NewChecker(r.root, func(string) string { return "" })
	if ws := c.Bind(ctx, "the handler lives in src/does/not/exist.go, see https://example.com/a/b.go and NOT_SET_ANYWHERE"); len(ws) != 0 {
		t.Fatalf("bound what does not resolve: %+v", ws)
	}
	if _, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFile, Target: "src/does/not/exist.go"}); err == nil {
		t.Fatal("an explicit binding to a missing file was accepted")
	}
}

// Scenario 5: a long pause with nothing changed.
func TestScenarioLongPause(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("bench/decode.txt", "x\n")
	r.write("bench/other.txt", "y\n")
	r.commit("bench")
	c := NewChecker(r.root, nil)
	m := fact(t, c, "numbers in bench/decode.txt and the whole bench/ directory")
	m.UpdatedAt = time.Now().Add(-3 * 365 * 24 * time.Hour)
	for i := range m.Watermarks {
		m.Watermarks[i].StampedAt = m.UpdatedAt
	}
	if reasons := wake(t, c, m); len(reasons) != 0 || memory.Trust(m) != 0.9 {
		t.Fatalf("a pause lowered trust: %v %.2f", reasons, memory.Trust(m))
	}
}

// Scenario 6 is the time factor of memory.TrustAt (see memory's tests);
// here: an unbound fact two months old is nudged only after two months.
func TestScenarioUnboundNudge(t *testing.T) {
	t.Parallel()
	m := &memory.Memory{Confidence: 0.9, UpdatedAt: time.Now().Add(-61 * 24 * time.Hour)}
	if tr := memory.Trust(m); tr >= 0.9 || tr < 0.5 {
		t.Fatalf("two months unconfirmed: trust %.3f", tr)
	}
	m.UpdatedAt = time.Now().Add(-364 * 24 * time.Hour)
	if tr := memory.Trust(m); tr < 0.5 {
		t.Fatalf("time alone went below the threshold within a year: %.3f", tr)
	}
}

func TestDirectoryBindingAndNarrowest(t *testing.T) {
	t.Parallel()
	r, c := benchRepo(t)
	ws := c.Bind(ctx, "everything under bench/ is generated")
	if len(ws) != 1 || ws[0].Kind != memory.WatermarkGit || ws[0].Target != "bench/" {
		t.Fatalf("directory binding: %+v", ws)
	}
	ws = c.Bind(ctx, "bench/ holds bench/a.txt")
	if len(ws) != 1 || ws[0].Kind != memory.WatermarkFile {
		t.Fatalf("the file is narrower than its directory: %+v", ws)
	}
	m := &memory.Memory{Confidence: 0.9, UpdatedAt: time.Now(), Watermarks: c.Bind(ctx, "everything under bench/ is generated")}
	r.write("bench/b.txt", "2\n")
	r.commit("b")
	r.write("bench/c.txt", "3\n")
	r.commit("c")
	reasons := wake(t, c, m)
	if len(reasons) != 1 || !strings.Contains(reasons[0], "2 commits touched bench/") {
		t.Fatalf("reason: %v", reasons)
	}
}

// A git binding moves when what is under its scope changes, not when a
// commit merely passes through: a change and its revert leave it intact.
// A stamp written before fingerprints named the tree is compared by commit.
func TestGitScopeByContent(t *testing.T) {
	t.Parallel()
	r, c := benchRepo(t)
	m := &memory.Memory{Confidence: 0.9, UpdatedAt: time.Now(), Watermarks: c.Bind(ctx, "everything under bench/ is generated")}
	whole, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkGit})
	if err != nil {
		t.Fatal(err)
	}
	r.write("bench/a.txt", "2\n")
	r.commit("change")
	r.write("bench/a.txt", "1\n")
	r.commit("revert")
	if reasons := wake(t, c, m); len(reasons) != 0 {
		t.Fatalf("a change and its revert moved it: %v", reasons)
	}
	repo := &memory.Memory{Confidence: 0.9, Watermarks: []memory.Watermark{whole}}
	if reasons := wake(t, c, repo); len(reasons) != 0 {
		t.Fatalf("whole-repository binding after a change and its revert: %v", reasons)
	}
	legacy := &memory.Memory{Confidence: 0.9, Watermarks: []memory.Watermark{{Kind: memory.WatermarkGit, Target: "bench/",
		Fingerprint: "commit:" + r.git("log", "-1", "--format=%H", "--", "bench/"), State: memory.WatermarkIntact}}}
	if reasons := wake(t, c, legacy); len(reasons) != 0 {
		t.Fatalf("an old-style stamp of the last commit moved: %v", reasons)
	}
	r.write("bench/b.txt", "new\n")
	r.commit("b")
	if reasons := wake(t, c, legacy); len(reasons) != 1 || legacy.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("an old-style stamp did not notice a new commit: %v", reasons)
	}
	if reasons := wake(t, c, repo); len(reasons) != 1 || repo.Watermarks[0].State != memory.WatermarkMoved || !strings.Contains(reasons[0], "3 commits touched the repository") {
		t.Fatalf("whole-repository binding: %v %+v", reasons, repo.Watermarks)
	}
	os.RemoveAll(filepath.Join(r.root, "bench"))
	if wake(t, c, m); m.Watermarks[0].State != memory.WatermarkGone {
		t.Fatalf("a deleted directory: %+v", m.Watermarks)
	}
}

// Without git on the machine a git binding cannot be checked: that is no
// evidence that anything moved, so its state stays as it was.
func TestNoGitIsNoEvidence(t *testing.T) {
	_, c := benchRepo(t)
	m := &memory.Memory{Confidence: 0.9, UpdatedAt: time.Now(), Watermarks: c.Bind(ctx, "everything under bench/ is generated")}
	if len(m.Watermarks) != 1 || m.Watermarks[0].Kind != memory.WatermarkGit {
		t.Fatalf("binding: %+v", m.Watermarks)
	}
	t.Setenv("PATH", t.TempDir())
	if reasons := wake(t, c, m); len(reasons) != 0 || m.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("a machine without git moved the fact: %v %+v", reasons, m.Watermarks)
	}
}

// Scopes are named relative to the project's root: an absolute path
// inside it binds, one that leaves the repository is simply not bound and
// does not spoil the others, and a root below the repository's top reads
// its own paths.
func TestGitScopesOutsideAndAbsolute(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("bench/a.txt", "1\n")
	r.write("sub/pkg/b.go", "package pkg\n")
	r.commit("a")
	sib := filepath.Join(filepath.Dir(r.root), "sib")
	os.MkdirAll(sib, 0o755)
	c := NewChecker(r.root, nil)
	ws := c.Bind(ctx, "numbers in bench/, protos in ../sib/ and "+filepath.Join(r.root, "sub")+"/")
	specs := []string{}
	for _, w := range ws {
		specs = append(specs, w.Spec())
	}
	if strings.Join(specs, " ") != "git:"+filepath.Join(r.root, "sub")+"/ git:bench/" {
		t.Fatalf("bindings: %v", specs)
	}
	m := &memory.Memory{Confidence: 0.9, Watermarks: ws}
	other := &memory.Memory{Confidence: 0.9, Watermarks: []memory.Watermark{{Kind: memory.WatermarkGit, Target: "../sib/", Fingerprint: "commit:x tree:y", State: memory.WatermarkIntact}}}
	changes, err := c.Check(ctx, []*memory.Memory{m, other})
	if err != nil || len(changes) != 1 || changes[0].Memory != other {
		t.Fatalf("a scope outside the repository spoiled the others: %+v %v", changes, err)
	}
	inner := NewChecker(filepath.Join(r.root, "sub"), nil)
	if ws := inner.Bind(ctx, "the package lives in pkg/"); len(ws) != 1 || ws[0].Target != "pkg/" {
		t.Fatalf("root below the repository's top: %+v", ws)
	}
}

// Two memories on one scope, one stamped before a change and one after:
// the older one's reason counts the commits whatever the order.
func TestGitReasonDoesNotDependOnOrder(t *testing.T) {
	t.Parallel()
	r, c := benchRepo(t)
	before := &memory.Memory{Confidence: 0.9, Watermarks: c.Bind(ctx, "bench/ is generated")}
	r.write("bench/b.txt", "2\n")
	r.commit("b")
	r.write("bench/c.txt", "3\n")
	r.commit("c")
	after := &memory.Memory{Confidence: 0.9, Watermarks: c.Bind(ctx, "bench/ is generated")}
	for _, order := range [][]*memory.Memory{{before, after}, {after, before}} {
		changes, _ := c.Check(ctx, order)
		if len(changes) != 1 || !strings.Contains(changes[0].Reasons[0], "2 commits touched bench/") {
			t.Fatalf("reasons: %+v", changes)
		}
	}
}

// The shortcut around the path expression never skips a text it would
// match: wherever pathRe finds a path, mayNamePath says yes.
func TestMayNamePathNeverSkipsAPath(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"see store/import.go", "edit schema.sql", "cmd/", "v1.2", "./run", "a.b"} {
		if !mayNamePath(s) {
			t.Errorf("%q: skipped", s)
		}
	}
	if mayNamePath("Deploys go through ArgoCD. Never by hand.") {
		t.Error("prose with sentence dots only")
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune("ab1_-./ \t(),;:`'\"Z."))).Draw(t, "text")
		if pathRe.MatchString(s) && !mayNamePath(s) {
			t.Fatalf("%q: pathRe matches, the shortcut skips it", s)
		}
		if flagRe.MatchString(s) && !strings.Contains(s, "_") {
			t.Fatalf("%q: flagRe matches without an underscore", s)
		}
	})
}
