package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	e := newEnv(t)
	out := e.ok("ingest", hugeTranscript(t, e, true))
	if !strings.Contains(out, "2 new drafts") || !strings.Contains(out, "1 line over 16 MiB skipped (the rest was read)") {
		t.Fatalf("ingest of a transcript with a 1 GiB line:\n%s", out)
	}
}
