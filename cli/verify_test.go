package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/memory"
)

// gitInit makes dir a repository with an author.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git is not installed")
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "user.email", "t@example.com")
	gitIn(t, dir, "config", "user.name", "t")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// TestVerifyFirstThroughTheCLI is scenario 1 of the trust issue end to end:
// a fact bound to a file in a real repository goes to the verify-first
// queue when the file changes, recall stops serving it as current, and a
// confirmation brings it back.
func TestVerifyFirstThroughTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	os.MkdirAll(filepath.Join(e.wd, "bench"), 0o755)
	os.MkdirAll(filepath.Join(e.wd, "docs"), 0o755)
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
	os.WriteFile(filepath.Join(e.wd, "docs", "a.md"), []byte("a\n"), 0o644)
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-q", "-m", "bench")

	m := e.rec("remember", "+229 % decode speed, measured in bench/decode.txt", "--provenance", "measured")
	if len(m.Watermarks) != 1 || m.Watermarks[0].Target != "bench/decode.txt" {
		t.Fatalf("not bound automatically: %+v", m.Watermarks)
	}
	if strings.TrimSpace(e.ok("verify")) != "nothing to verify: every memory is trusted as current" {
		t.Fatalf("queue not empty at first")
	}
	// A docs-only commit changes nothing.
	os.WriteFile(filepath.Join(e.wd, "docs", "a.md"), []byte("b\n"), 0o644)
	gitIn(t, e.wd, "commit", "-qam", "docs")
	if q := e.ok("verify"); !strings.Contains(q, "nothing to verify") {
		t.Fatalf("docs-only commit queued it:\n%s", q)
	}
	// The bound file changes.
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+31 %\n"), 0o644)
	gitIn(t, e.wd, "commit", "-qam", "numbers")
	q := e.ok("verify")
	if !strings.Contains(q, m.ID) || !strings.Contains(q, "bench/decode.txt: content changed since") {
		t.Fatalf("queue:\n%s", q)
	}
	var rec struct {
		Results     []memory.Record `json:"results"`
		VerifyFirst []memory.Record `json:"verify_first"`
	}
	json.Unmarshal([]byte(e.ok("recall", "decode speed", "--json")), &rec)
	if len(rec.Results) != 0 || len(rec.VerifyFirst) != 1 || rec.VerifyFirst[0].Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("recall served a moved fact as current: %+v", rec)
	}
	if tl := e.ok("timeline"); !strings.Contains(tl, "content changed") {
		t.Fatalf("the wake check left no trace on the timeline:\n%s", tl)
	}
	e.ok("verify", "confirm", m.ID)
	if q := e.ok("verify"); !strings.Contains(q, "nothing to verify") {
		t.Fatalf("confirm did not restore trust:\n%s", q)
	}
	// Bindings that do not resolve are refused; rebind replaces them.
	if r := e.run("", "remember", "x", "--bind", "file:src/does/not/exist.go"); r.code != 1 || !strings.Contains(r.err, "does not resolve") {
		t.Fatalf("unresolvable binding: %+v", r)
	}
	got := e.rec("verify", "rebind", m.ID, "git:bench/")
	if len(got.Watermarks) != 1 || got.Watermarks[0].Kind != memory.WatermarkGit || got.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("rebind: %+v", got.Watermarks)
	}
	none := e.rec("remember", "mentions src/does/not/exist.go only", "--bind", "none")
	if len(none.Watermarks) != 1 || none.Watermarks[0].Kind != memory.WatermarkNone {
		t.Fatalf("--bind none: %+v", none.Watermarks)
	}
}

// Reject and calibration through the CLI, on a real repository: a
// rejected fact leaves what recall serves as current and stays queued
// until it is corrected; the calibration shows the binding that fired on
// noise and the one that stayed silent.
func TestRejectAndCalibrationThroughTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	os.WriteFile(filepath.Join(e.wd, "go.sum"), []byte("v1\n"), 0o644)
	os.WriteFile(filepath.Join(e.wd, "decode.txt"), []byte("+229 %\n"), 0o644)
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-q", "-m", "init")

	if out := e.ok("verify", "--calibration"); !strings.Contains(out, "no reviews yet") {
		t.Fatalf("calibration of nothing:\n%s", out)
	}
	deps := e.rec("remember", "module versions are pinned in go.sum")
	bench := e.rec("remember", "decode runs at +229 %, see decode.txt", "--provenance", "measured")
	for i := range 2 {
		os.WriteFile(filepath.Join(e.wd, "go.sum"), []byte(strings.Repeat("v", i+2)+"\n"), 0o644)
		gitIn(t, e.wd, "commit", "-qam", "bump")
		if q := e.ok("verify"); !strings.Contains(q, deps.ID) {
			t.Fatalf("round %d: go.sum moved and the queue is:\n%s", i, q)
		}
		e.ok("verify", "confirm", deps.ID)
	}

	rej := e.rec("verify", "reject", bench.ID)
	if rej.RejectedAt == nil || rej.Trust != 0 {
		t.Fatalf("reject: %+v", rej)
	}
	if q := e.ok("verify"); !strings.Contains(q, bench.ID) || !strings.Contains(q, "rejected on") {
		t.Fatalf("the rejected fact is not queued with its reason:\n%s", q)
	}
	var rec struct {
		Results     []memory.Record `json:"results"`
		VerifyFirst []memory.Record `json:"verify_first"`
	}
	json.Unmarshal([]byte(e.ok("recall", "decode speed", "--json")), &rec)
	if len(rec.Results) != 0 || len(rec.VerifyFirst) != 1 || rec.VerifyFirst[0].ID != bench.ID {
		t.Fatalf("recall served a rejected fact as current: %+v", rec)
	}
	e.ok("supersede", bench.ID, "decode runs at +31 %, see decode.txt")
	if q := e.ok("verify"); !strings.Contains(q, "nothing to verify") {
		t.Fatalf("the corrected fact is still queued:\n%s", q)
	}

	var cal struct {
		Reviews int `json:"reviews"`
		Kinds   []struct {
			Kind   string `json:"kind"`
			Caught int    `json:"caught"`
			Noise  int    `json:"noise"`
			Missed int    `json:"missed"`
		} `json:"kinds"`
		Flagged []struct {
			Binding string `json:"binding"`
			Problem string `json:"problem"`
		} `json:"flagged"`
	}
	if err := json.Unmarshal([]byte(e.ok("verify", "--calibration", "--json")), &cal); err != nil {
		t.Fatal(err)
	}
	if cal.Reviews != 3 || cal.Kinds[0].Kind != "file" || cal.Kinds[0].Noise != 2 || cal.Kinds[0].Missed != 1 || cal.Kinds[0].Caught != 0 {
		t.Fatalf("calibration: %+v", cal)
	}
	got := map[string]string{}
	for _, f := range cal.Flagged {
		got[f.Binding] = f.Problem
	}
	if got["file:go.sum"] != "noise" || got["file:decode.txt"] != "silent" {
		t.Fatalf("flagged: %+v", cal.Flagged)
	}
	if out := e.ok("verify", "--calibration"); !strings.Contains(out, "file:go.sum  (noise)") || !strings.Contains(out, "3 reviews") {
		t.Fatalf("calibration text:\n%s", out)
	}
	if r := e.run("", "verify", "reject", "NOPE1234"); r.code != 1 || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Fatalf("reject of nothing: %+v", r)
	}
}

// An import binds the new memories that come without bindings, keeps the
// ones that bring their own, and a second import of the same file changes
// nothing.
func TestImportBindsNewMemories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.wd, "decode.txt"), []byte("+229 %\n"), 0o644)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"layer":"B","ref":"a","body":"decode is +229 %, see decode.txt"}
{"layer":"B","ref":"b","body":"nothing here names a file that exists: src/gone.go"}
{"layer":"B","ref":"c","body":"kept as given, decode.txt","watermarks":[{"kind":"none","state":"unbound"}]}
`), 0o644)
	if out := e.ok("import", in); !strings.Contains(out, "3 added (1 bound to files or flags)") {
		t.Fatalf("import: %s", out)
	}
	byRef := map[string]memory.Record{}
	for _, r := range e.list() {
		byRef[r.Ref] = r
	}
	if ws := byRef["a"].Watermarks; len(ws) != 1 || ws[0].Target != "decode.txt" || ws[0].State != memory.WatermarkIntact {
		t.Fatalf("a: %+v", ws)
	}
	if ws := byRef["b"].Watermarks; len(ws) != 0 {
		t.Fatalf("b: bound to what does not exist: %+v", ws)
	}
	if ws := byRef["c"].Watermarks; len(ws) != 1 || ws[0].Kind != memory.WatermarkNone {
		t.Fatalf("c: its own binding was replaced: %+v", ws)
	}
	if out := e.ok("import", in); !strings.Contains(out, "0 added (0 bound to files or flags), 0 updated, 3 unchanged") {
		t.Fatalf("second import: %s", out)
	}
}

// TestFlagDoesNotFlapWithTheEnvironment: a memory bound to a variable keeps
// its trust when a cairn process runs in a shell without the variable (it
// has no evidence), and the timeline gains nothing from that process; a
// process that sees another value moves it and is named in the reason.
func TestFlagDoesNotFlapWithTheEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	with := func(value string, args ...string) string {
		t.Helper()
		var out, errb strings.Builder
		code := Main(Env{
			Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				switch k {
				case "CAIRN_HOME":
					return e.home
				case "DEPLOY_TARGET_FLAG":
					return value
				}
				return ""
			},
			Getwd:      func() (string, error) { return e.wd, nil },
			IsTerminal: func() bool { return false },
		})
		if code != 0 {
			t.Fatalf("cairn %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	var m memory.Record
	if err := json.Unmarshal([]byte(with("blue", "remember", "deploys go to the blue fleet while DEPLOY_TARGET_FLAG is set", "--json")), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Watermarks) != 1 || m.Watermarks[0].Target != "DEPLOY_TARGET_FLAG" {
		t.Fatalf("not bound to the flag: %+v", m.Watermarks)
	}
	before := with("blue", "timeline")
	for range 3 { // shells without the variable
		if q := with("", "verify"); !strings.Contains(q, "nothing to verify") {
			t.Fatalf("a process without the variable queued the memory:\n%s", q)
		}
	}
	if after := with("blue", "timeline"); after != before {
		t.Fatalf("processes without the variable wrote to the timeline:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	q := with("green", "verify")
	if !strings.Contains(q, "DEPLOY_TARGET_FLAG: its value changed") || !strings.Contains(q, "seen by") {
		t.Fatalf("a changed value was not queued with who saw it:\n%s", q)
	}
	if q := with("", "verify"); !strings.Contains(q, "as another cairn process saw it") {
		t.Fatalf("a process without the variable lost the reason:\n%s", q)
	}
}
