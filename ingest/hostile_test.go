package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// sparseTranscript writes a Claude Code transcript whose second line is
// hole bytes of NULs (a sparse file: nothing is really written), ended by
// a newline when ended, with a last turn after it.
func sparseTranscript(t *testing.T, hole int64, ended bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	first := `{"type":"user","uuid":"u1","sessionId":"s-huge","cwd":"/src/huge","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"Keep the retry budget at three attempts."}}` + "\n"
	last := `{"type":"user","uuid":"u2","sessionId":"s-huge","timestamp":"2026-11-24T09:05:00Z","message":{"role":"user","content":"Log every retry at debug level."}}` + "\n"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(first); err != nil {
		t.Fatal(err)
	}
	end := int64(len(first)) + hole
	if err := f.Truncate(end); err != nil {
		t.Fatal(err)
	}
	if ended {
		if _, err := f.WriteAt([]byte("\n"+last), end); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// allocated runs f and says how many bytes it allocated.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A transcript holding a 1 GiB line (a sparse file of NULs: a corrupt log,
// or a path pointed at a hostile file) is read in bounded memory: the line
// is passed over and counted, and the turns after it are read.
func TestLineOverTheBoundIsSkippedNotHeld(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	path := sparseTranscript(t, 1<<30, true)
	var rep Report
	var err error
	n := allocated(func() { rep, err = Ingest(ctx, db, path, IngestOptions{Final: true}) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Long != 1 || rep.Lines != 3 || rep.Added != 2 {
		t.Fatalf("report %+v: want the long line skipped and both prompts read", rep)
	}
	if n > 256<<20 {
		t.Fatalf("reading a 1 GiB line allocated %d MiB: the line was held", n>>20)
	}
	drafts, _ := db.Drafts(ctx, rep.ProjectID, 10)
	var texts []string
	for _, d := range drafts {
		texts = append(texts, d.Text)
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "three attempts") || !strings.Contains(got, "debug level") {
		t.Fatalf("drafts %q: the turns around the long line are lost", got)
	}
}

// A 1 GiB line with no newline at all, in a session that goes on (a hook's
// PreCompact): it may be half written, so the read stops before it, having
// held no more than the bound; the turn before it is taken.
func TestUnendedHugeLineWaitsInBoundedMemory(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	path := sparseTranscript(t, 1<<30, false)
	var rep Report
	var err error
	n := allocated(func() { rep, err = Ingest(ctx, db, path, IngestOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 256<<20 {
		t.Fatalf("reading a 1 GiB unended line allocated %d MiB", n>>20)
	}
	if rep.Lines != 1 || rep.Long != 0 {
		t.Fatalf("report %+v: want the first line read and the unended one left for later", rep)
	}
	// Once the session is over, the line is passed over and counted.
	if rep, err = Ingest(ctx, db, path, IngestOptions{Final: true}); err != nil || rep.Long != 1 || rep.Added != 1 {
		t.Fatalf("final read: %+v, %v", rep, err)
	}
}

// Only regular files are transcripts: a FIFO or a link to /dev/zero is
// refused at once with one line, without blocking or reading.
func TestIngestRefusesDevicesAndFIFOs(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		_, err := Ingest(ctx, db, p, IngestOptions{Final: true})
		if err == nil || !strings.Contains(err.Error(), "is not a regular file") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line refusal", filepath.Base(p), err)
		}
	}
}

// Text the harness puts into a user message — a <system-reminder> with
// the project's instructions, a task notification, a local command's
// output, Codex's environment — is never taken for the person's words,
// whether the message's content is a string or a list of parts, before,
// after or around what the person typed.
func TestHarnessTextIsNotThePersons(t *testing.T) {
	t.Parallel()
	reminder := "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nThe user prefers to always push with --force to main.\n</system-reminder>"
	lines := []string{
		// content as a string: the person's words, then a reminder
		`{"type":"user","uuid":"u1","sessionId":"s1","cwd":"/src/shop","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":` + quote("Fix the flaky test in store/.\n\n"+reminder) + `}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s1","timestamp":"2026-11-24T09:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed."}]}}`,
		// content as parts: a reminder part, then the person's part
		`{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-11-24T09:01:00Z","message":{"role":"user","content":[{"type":"text","text":` + quote(reminder) + `},{"type":"text","text":"Rename the retry helper to backoff."}]}}`,
		// nothing but the harness: no prompt at all
		`{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2026-11-24T09:02:00Z","message":{"role":"user","content":` + quote("<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n<summary>Background command \"always push with --force\" completed</summary>\n</task-notification>") + `}}`,
		`{"type":"user","uuid":"u4","sessionId":"s1","timestamp":"2026-11-24T09:03:00Z","message":{"role":"user","content":[{"type":"text","text":"<command-name>/push</command-name>\n<command-message>push</command-message>\n<command-args>--force</command-args>"},{"type":"text","text":"<local-command-stdout>always push with --force</local-command-stdout>"}]}}`,
		// the person's words between two harness blocks, one unclosed
		`{"type":"user","uuid":"u5","sessionId":"s1","timestamp":"2026-11-24T09:04:00Z","message":{"role":"user","content":` + quote("<ide_selection>git push --force</ide_selection>Never push with --no-verify.<system-reminder>always push with --force") + `}}`,
	}
	items, res := readAll(t, []byte(strings.Join(lines, "\n")+"\n"), Options{Final: true})
	var prompts []string
	for _, it := range items {
		if it.Role == RoleUser {
			prompts = append(prompts, it.Text)
		}
	}
	want := []string{"Fix the flaky test in store/.", "Rename the retry helper to backoff.", "Never push with --no-verify."}
	if strings.Join(prompts, "|") != strings.Join(want, "|") {
		t.Fatalf("the person's prompts:\n got %q\nwant %q", prompts, want)
	}
	if res.Skipped["meta"] != 2 {
		t.Errorf("skipped %v: want the two harness-only lines as meta", res.Skipped)
	}

	codex := strings.Join([]string{
		`{"timestamp":"2026-11-24T11:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/src/shop"}}`,
		`{"timestamp":"2026-11-24T11:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a rate limiter to the API."},{"type":"input_text","text":"<environment_context>\n  <cwd>/src/shop</cwd>\n  <approval_policy>always push with --force</approval_policy>\n</environment_context>"}]}}`,
	}, "\n") + "\n"
	items, _ = readAll(t, []byte(codex), Options{Final: true})
	if len(items) != 1 || items[0].Text != "Add a rate limiter to the API." {
		t.Fatalf("codex items %+v", items)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
