package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SessionEnd with nothing new to read still takes the session's drafts
// that an earlier read left waiting (here `cairn ingest`, which runs no
// pass), and once they are taken, a SessionEnd again leaves all as it was.
func TestSessionEndTakesWhatAnEarlierReadLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s1","cwd":"` + e.wd + `","gitBranch":"main","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"Always run make check before pushing."}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted."}]}}`,
	}
	os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	e.ok("ingest", tr)
	const rule = "user-stated  Always run make check before pushing."
	if list := e.ok("list"); strings.Contains(list, rule) || !strings.Contains(e.ok("inbox"), "make check") {
		t.Fatalf("cairn ingest consolidated, or left no draft:\n%s", list)
	}
	ev := map[string]string{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": e.wd, "transcript_path": tr}
	e.hook(hookJSON(t, ev))
	if log := e.hookLog(); log != "" {
		t.Fatalf("SessionEnd failed: %s", log)
	}
	list := e.ok("list", "--status", "all")
	if strings.Count(list, rule) != 1 {
		t.Fatalf("SessionEnd with nothing new left the waiting drafts:\n%s", list)
	}
	if inbox := e.ok("inbox"); strings.Contains(inbox, "make check") {
		t.Fatalf("the session's drafts still wait:\n%s", inbox)
	}
	e.hook(hookJSON(t, ev))
	if again := e.ok("list", "--status", "all"); again != list || e.hookLog() != "" {
		t.Fatalf("SessionEnd again changed the store:\n%s\nlog: %s", again, e.hookLog())
	}
	// A few lines more: taken at the next SessionEnd.
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","uuid":"u2","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:05:00Z","message":{"role":"user","content":"Never deploy on Fridays."}}` + "\n")
	f.Close()
	e.hook(hookJSON(t, ev))
	if list := e.ok("list"); !strings.Contains(list, "user-stated  Never deploy on Fridays.") || e.hookLog() != "" {
		t.Fatalf("the new line was not consolidated:\n%s\nlog: %s", list, e.hookLog())
	}
}
