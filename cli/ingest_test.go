package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/ingest"
)

// cairn ingest as a person runs it: a directory of session logs, again,
// and with a file that is not one among them.
func TestIngestCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "sessions")
	for _, src := range []string{"../ingest/testdata/claude-code/session.jsonl", "../ingest/testdata/codex/2026/11/24/rollout-2026-11-24T11-00-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o600)
	}
	out := e.ok("ingest", dir)
	for _, want := range []string{"claude-code session 7f3c9a10-2b4e-4d61-9a7e-5c1f0e2d8b34 → project ratelimit: 10 new drafts", "3 secrets redacted", "line 23: not JSON", "codex session 019a2d7a", "project payments: 6 new drafts", "episode ", "next: cairn consolidate"} {
		if !strings.Contains(out, want) {
			t.Errorf("ingest output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_") || strings.Contains(out, "Pw7hQ2xZr9Kd") {
		t.Fatalf("a secret reached the output:\n%s", out)
	}
	var reps []ingest.Report
	if err := json.Unmarshal([]byte(e.ok("ingest", dir, "--json")), &reps); err != nil || len(reps) != 2 || reps[0].Added+reps[1].Added != 0 {
		t.Fatalf("second ingest: %+v, %v", reps, err)
	}
	inbox := e.ok("inbox", "--project", "ratelimit")
	if !strings.Contains(inbox, "Always run make lint before committing.") {
		t.Fatalf("the inbox lacks the session's drafts:\n%s", inbox)
	}
	cons := e.ok("consolidate", "--project", "ratelimit")
	if !strings.Contains(cons, "superseded 'We deploy with ArgoCD, and the service listens on port 8080.' → 'The service listens on port 8081, not 8080.'") ||
		!strings.Contains(cons, "Check with `go test ./store/...` before saying it works") {
		t.Fatalf("consolidating the session:\n%s", cons)
	}

	bad := filepath.Join(dir, "notes.jsonl")
	os.WriteFile(bad, []byte("not a transcript\n"), 0o600)
	r := e.run("", "ingest", dir)
	if r.code == 0 || !strings.Contains(r.err, "notes.jsonl") || !strings.Contains(r.err, "1 of 3 session logs could not be read") || strings.Count(strings.TrimSpace(r.err), "\n") > 2 {
		t.Fatalf("a bad file among good ones: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if r := e.run("", "ingest", dir, "--format", "vim"); r.code == 0 || !strings.Contains(r.err, "unknown format") {
		t.Fatalf("bad format: %+v", r)
	}
}
