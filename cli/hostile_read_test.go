package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/derive"
)

// hugeTranscript is a session log of the env's project whose second line
// is a 1 GiB run of NULs (a sparse file), unended or ended by a newline
// and a last prompt.
func hugeTranscript(t *testing.T, e *env, ended bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	first := `{"type":"user","uuid":"u1","sessionId":"s-huge","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"Keep the retry budget at three attempts."}}` + "\n"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(first)
	end := int64(len(first)) + 1<<30
	if err := f.Truncate(end); err != nil {
		t.Fatal(err)
	}
	if ended {
		last := `{"type":"user","uuid":"u2","sessionId":"s-huge","timestamp":"2026-11-24T09:05:00Z","message":{"role":"user","content":"Log every retry at debug level."}}` + "\n"
		f.WriteAt([]byte("\n"+last), end)
	}
	return path
}

// A hook whose transcript_path names a 1 GiB file of one line, or a link
// to /dev/zero, exits 0 and prints nothing: never a crash or a stack trace
// in the agent's context.
func TestHookSurvivesHostileTranscripts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "The staging database is reset every Monday.")
	huge := hugeTranscript(t, e, false)
	for _, event := range []string{"PreCompact", "SessionEnd"} {
		os.Remove(filepath.Join(e.home, "hooks.log"))
		out := e.hook(hookJSON(t, map[string]string{"hook_event_name": event, "session_id": "s-huge", "cwd": e.wd, "transcript_path": huge}))
		if out != "" {
			t.Fatalf("%s printed %q", event, out)
		}
		if log := e.hookLog(); log != "" {
			t.Fatalf("%s on a huge line: %s", event, log)
		}
	}
	if inbox := e.ok("inbox", "--all"); !strings.Contains(inbox, "three attempts") {
		t.Fatalf("the prompt before the huge line is lost:\n%s", inbox)
	}
	zero := filepath.Join(t.TempDir(), "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(e.home, "hooks.log"))
	if out := e.hook(hookJSON(t, map[string]string{"hook_event_name": "SessionEnd", "cwd": e.wd, "transcript_path": zero})); out != "" {
		t.Fatalf("printed %q", out)
	}
	if log := e.hookLog(); !strings.Contains(log, "is not a regular file") || strings.Count(log, "\n") != 1 {
		t.Fatalf("hooks.log for a /dev/zero transcript: %q", log)
	}
}

// cairn ingest says how many lines were over the bound, and reads the rest.
func TestIngestReportsLinesOverTheBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := e.ok("ingest", hugeTranscript(t, e, true))
	if !strings.Contains(out, "2 new drafts") || !strings.Contains(out, "1 line over 16 MiB skipped (the rest was read)") {
		t.Fatalf("ingest of a transcript with a 1 GiB line:\n%s", out)
	}
}

// A repository whose go.mod and Makefile are links to /dev/zero and whose
// package.json is a FIFO: cairn index finishes and says what it did not
// read; after a commit brings another such file, the automatic re-index
// neither crashes nor hangs the commands that trigger it, and their output
// is what it would be.
func TestIndexReadsOnlyRegularFilesInsideTheRoot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	write(t, e.wd, "README.md", "# Shop\n\nShop sells hand-made kites online.\n")
	write(t, e.wd, "main.go", "package main\n\nfunc main() {}\n")
	if err := os.Symlink("/dev/zero", filepath.Join(e.wd, "go.mod")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-qm", "first")
	if err := syscall.Mkfifo(filepath.Join(e.wd, "package.json"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := e.index()
	if r.Files != 2 || r.Skipped[derive.SkipSymlink] != 1 {
		t.Fatalf("index: %+v", r)
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "go.mod is a link out of the repository: not read") || !strings.Contains(notes, "package.json is not a regular file") {
		t.Fatalf("index notes:\n%s", notes)
	}
	if out := e.ok("index"); !strings.Contains(out, "note: go.mod is a link out of the repository") {
		t.Fatalf("cairn index says nothing of go.mod:\n%s", out)
	}

	m := e.rec("remember", "The staging database is reset every Monday.")
	list := e.run("", "list")
	// A pull brings a Makefile that points at /dev/zero: the next command
	// indexes the repository again by itself.
	if err := os.Symlink("/dev/zero", filepath.Join(e.wd, "Makefile")); err != nil {
		t.Fatal(err)
	}
	write(t, e.wd, "main.go", "package main\n\n// Serve starts the shop.\nfunc Serve() {}\n\nfunc main() {}\n")
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-qm", "second")
	after := e.run("", "list")
	if after.code != 0 || after.out != list.out || after.err != "" {
		t.Fatalf("list after the pull: exit %d\n%s\nstderr %q\nwant\n%s", after.code, after.out, after.err, list.out)
	}
	if r := e.run("", "recall", "staging database"); r.code != 0 || !strings.Contains(r.out, m.Title) || r.err != "" {
		t.Fatalf("recall after the pull: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if r := e.index(); r.Read != 0 || r.Files != 2 {
		t.Fatalf("the automatic re-index did not run: %+v", r)
	}
}

// Realistic secrets of the kinds cairn detects, in every kind of file the
// index reads: none reaches the store's files, recall or context.
func TestIndexKeepsSecretsOutOfTheStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gitInit(t, e.wd)
	var (
		gh     = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
		stripe = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
		aws    = "AKIA" + "IOSFODNN7EXAMPLQ"
		slack  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
		dbPass = "Tr0ub4dor-x9Q"
		keyA   = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
		keyB   = "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"
	)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + keyA + "\n" + keyB + "\nLlhIuCTSuB0MnL2Pe8IpzVKK2hd0ESxSPpNjBQIDAQABAoIBAQCmA7RL9bJzE4Rd\n-----END RSA PRIVATE KEY-----\n"
	write(t, e.wd, "README.md", "# Shop "+gh+"\n\nShop sells hand-made kites online; deploy with the token "+stripe+".\n\n"+
		"## Database\n\nConnect with postgres://app:"+dbPass+"@db.internal:5432/shop and nothing else.\n\n"+
		"## Deploy keys\n\n"+strings.Repeat("The deploy key below is rotated every quarter by the platform team. ", 16)+"\n\n```\n"+pem+"```\n")
	write(t, e.wd, "app.py", "\"\"\"Payments client; the service account is "+aws+".\"\"\"\n\nAPI_KEY = \""+stripe+"\"\n\n\ndef connect(token=\""+gh+"\"):\n    \"\"\"Connect to Slack with "+slack+".\"\"\"\n    pass\n")
	write(t, e.wd, "main.go", "// Package main runs the shop; its token is "+gh+".\npackage main\n\n// Token is the key "+stripe+".\nconst Token = \""+aws+"\"\n\nfunc main() {}\n")
	write(t, e.wd, "Makefile", "deploy:\n\tcurl -H \"Authorization: Bearer "+gh+"\" https://deploy.example.com/hook\n")
	write(t, e.wd, ".github/workflows/ci.yml", "on: push\njobs:\n  test:\n    steps:\n      - name: notify "+slack+"\n        run: TOKEN="+gh+" ./deploy.sh\n")
	write(t, e.wd, "package.json", `{"name":"shop","scripts":{"deploy":"STRIPE_KEY=`+stripe+` node deploy.js"},"dependencies":{"kites":"git+https://kites:`+gh+`@github.com/shop/kites.git"}}`)
	gitIn(t, e.wd, "add", "-A")
	gitIn(t, e.wd, "commit", "-qm", "first")

	r := e.index()
	if r.Files != 6 {
		t.Fatalf("index: %+v", r)
	}
	secrets := map[string]string{"GitHub token": gh, "Stripe key": stripe, "AWS key": aws, "Slack token": slack, "database password": dbPass, "private key": keyA, "private key, past the cut": keyB}
	err := filepath.WalkDir(filepath.Join(e.home, "store"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for what, s := range secrets {
			if strings.Contains(string(b), piece(s)) {
				t.Errorf("the %s reached the store's file %s", what, filepath.Base(p))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{"context": e.ok("context")}
	for _, q := range []string{"deploy token", "database connection", "payments client slack", "deploy key", "ci notify"} {
		outs["recall "+q] = e.ok("recall", q)
		outs["recall --json "+q] = e.ok("recall", "--json", q)
	}
	for cmd, out := range outs {
		for what, s := range secrets {
			if strings.Contains(out, piece(s)) {
				t.Errorf("cairn %s shows the %s:\n%s", cmd, what, out)
			}
		}
	}
	if !strings.Contains(outs["context"], "Shop sells hand-made kites online") || !strings.Contains(outs["context"], "[redacted:") {
		t.Errorf("context lost the rest of the text, or shows no marker:\n%s", outs["context"])
	}
}

// piece is enough of a secret to tell it: past its prefix, 12 bytes.
func piece(s string) string { return s[4:min(len(s), 16)] }
