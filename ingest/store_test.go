package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

func openStore(t *testing.T) (*store.DB, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dir
}

// copyTranscript puts a testdata transcript where an agent would have
// written it, minus its last lines (to append later).
func copyTranscript(t *testing.T, src string, dropLast int) (path string, rest []byte) {
	t.Helper()
	data := mustRead(t, src)
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	keep := len(lines) - dropLast
	path = filepath.Join(t.TempDir(), ".claude", "projects", "-home-ana-src-ratelimit", filepath.Base(src))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Join(lines[:keep], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, bytes.Join(lines[keep:], nil)
}

func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestIngestAgainAddsOnlyWhatIsNew(t *testing.T) {
	ctx := context.Background()
	db, dir := openStore(t)
	path, rest := copyTranscript(t, claudeFile, 4) // the last turn comes later

	// PreCompact: the session goes on, so its open turn waits.
	rep, err := Ingest(ctx, db, path, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatClaudeCode || rep.Project != "ratelimit" || rep.Added != 4 || !rep.EpisodeNew || len(rep.Malformed) != 1 {
		t.Fatalf("first ingest: %+v", rep)
	}
	pid := rep.ProjectID
	drafts, _ := db.Drafts(ctx, pid, 100)
	// (The sub-agent's side chain in the first turn is no draft; the
	// agent's working note in it is one.)
	if len(drafts) != 4 {
		t.Fatalf("%d drafts, want 4: the turn still open waits", len(drafts))
	}
	users := 0
	for _, d := range drafts {
		if d.Source.Session != rep.Session || d.Source.File != path || d.Source.Line == 0 || d.Source.Message == "" {
			t.Fatalf("draft source: %+v", d.Source)
		}
		if d.Actor == memory.ActorUser {
			users++
		}
	}
	if users != 1 || drafts[0].Time.Format("15:04:05") != "09:12:04" {
		t.Fatalf("%d drafts of the person's, first at %v", users, drafts[0].Time)
	}
	ep, err := db.Get(ctx, rep.Episode)
	if err != nil || ep.Layer != memory.LayerEpisode || ep.Ref != EpisodeRef(rep.Session) || !strings.Contains(ep.Body, "still running when last read") {
		t.Fatalf("episode: %+v, %v", ep, err)
	}

	// The same file again: nothing new.
	if rep, err = Ingest(ctx, db, path, IngestOptions{}); err != nil || rep.Added != 0 || rep.EpisodeNew {
		t.Fatalf("second ingest: %+v, %v", rep, err)
	}
	// The session ends with one more turn: the open turn and that one are
	// added, and the episode says how it ended.
	appendTo(t, path, rest)
	rep, err = Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || rep.Added != 6 || rep.Known != 0 || rep.EpisodeNew {
		t.Fatalf("final ingest: %+v, %v", rep, err)
	}
	ep, _ = db.Get(ctx, rep.Episode)
	if strings.Contains(ep.Body, "still running") || !strings.Contains(ep.Body, "ran `make lint` (1 failed)") {
		t.Fatalf("episode after the end:\n%s", ep.Body)
	}
	if ds, _ := db.Drafts(ctx, pid, 100); len(ds) != 10 {
		t.Fatalf("%d drafts after all, want 10", len(ds))
	}

	// A person drops a draft; the file is then rewritten (a new first
	// line): it is read from the top, and the dropped draft stays dropped.
	if err := db.DropDraft(ctx, drafts[0].ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	data := mustRead(t, path)
	if err := os.WriteFile(path, append([]byte(`{"type":"file-history-snapshot","messageId":"x"}`+"\n"), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err = Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || !rep.Restarted || rep.Added != 0 || rep.Known != 10 {
		t.Fatalf("re-read from the top: %+v, %v", rep, err)
	}

	// Nothing of the pasted secrets reached the store's files.
	db.Close()
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range pasted {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the pasted secret %q…", p, s[:6])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestForgottenEpisodeStaysForgotten(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	path, rest := copyTranscript(t, codexFile, 3)
	rep, err := Ingest(ctx, db, path, IngestOptions{})
	if err != nil || rep.Episode == "" || rep.Format != FormatCodex || rep.Project != "payments" {
		t.Fatalf("%+v, %v", rep, err)
	}
	if err := db.Forget(ctx, rep.Episode, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, rest)
	rep, err = Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || rep.Episode != "" || rep.Added == 0 {
		t.Fatalf("after the forget: %+v, %v", rep, err)
	}
	if _, err := db.GetByRef(ctx, rep.ProjectID, EpisodeRef(rep.Session)); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the forgotten episode came back: %v", err)
	}
}

// A hook acts for an agent, and an agent only in its own project.
func TestIngestOnlyInItsOwnProject(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	path, _ := copyTranscript(t, claudeFile, 0)
	_, err := Ingest(ctx, db, path, IngestOptions{Only: "some-other-project"})
	if err == nil || !strings.Contains(err.Error(), "belongs to project ratelimit") {
		t.Fatalf("err = %v", err)
	}
	ps, _ := db.Projects(ctx)
	for _, p := range ps {
		if ds, _ := db.Drafts(ctx, p.ID, 10); len(ds) > 0 {
			t.Fatalf("project %s got drafts from a refused ingest", p.Name)
		}
	}
}

func TestIngestRefusesWhatIsNotATranscript(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"notes.jsonl":  "just some text\nmore text\n",
		"empty.jsonl":  "",
		"nosess.jsonl": `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		_, err := Ingest(ctx, db, p, IngestOptions{Final: true})
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line", name, err)
		}
	}
	if _, err := Ingest(ctx, db, dir, IngestOptions{}); err == nil {
		t.Error("a directory was taken for a transcript")
	}
	if _, err := Ingest(ctx, db, filepath.Join(dir, "missing.jsonl"), IngestOptions{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
	files, err := Files([]string{filepath.Dir(filepath.Dir(codexFile))})
	if err != nil || len(files) != 1 {
		t.Errorf("Files of a sessions directory: %v, %v", files, err)
	}
}

// A transcript's text is data: escapes in a prompt neither stop the
// episode from being written nor reach it raw.
func TestIngestTakesEscapesAsData(t *testing.T) {
	ctx := context.Background()
	db, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "esc.jsonl")
	esc := "\x1b]0;pwned\x07\x1b[31m"
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	os.WriteFile(path, []byte(
		line(map[string]any{"type": "user", "uuid": "u1", "sessionId": "s-esc", "cwd": "/tmp/esc-proj", "timestamp": "2026-11-24T01:00:00Z", "message": map[string]any{"role": "user", "content": "We use " + esc + "port 9090."}})+
			line(map[string]any{"type": "assistant", "uuid": "a1", "sessionId": "s-esc", "timestamp": "2026-11-24T01:00:01Z", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Noted."}}}})), 0o600)
	rep, err := Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || rep.Added != 2 || !rep.EpisodeNew || len(rep.Errors) > 0 {
		t.Fatalf("%+v, %v", rep, err)
	}
	ep, _ := db.Get(ctx, rep.Episode)
	if strings.ContainsRune(ep.Title, 0x1b) || strings.ContainsRune(ep.Body, 0x1b) || !strings.Contains(ep.Title, "port 9090") {
		t.Fatalf("episode: %q\n%q", ep.Title, ep.Body)
	}
}

// A read leaves its file pending until a pass settles it; a read that
// moved on since keeps the mark for its own pass.
func TestPendingUntilSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openStore(t)
	path, rest := copyTranscript(t, claudeFile, 4)
	first, err := Ingest(ctx, db, path, IngestOptions{})
	if err != nil || !first.Pending {
		t.Fatalf("first read: pending %v, %v", first.Pending, err)
	}
	// Another read takes the rest before the first one's pass settles.
	appendTo(t, path, rest)
	second, err := Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || second.Added == 0 || !second.Pending {
		t.Fatalf("second read: %+v, %v", second, err)
	}
	if err := Settle(ctx, db, first); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.IngestState(ctx, second.File); !st.Pending {
		t.Fatal("an older read's pass settled drafts it never saw")
	}
	if err := Settle(ctx, db, second); err != nil {
		t.Fatal(err)
	}
	st, _ := db.IngestState(ctx, second.File)
	if st.Pending || st.Episode != second.Episode || st.Offset == 0 {
		t.Fatalf("after its pass: %+v", st)
	}
	again, err := Ingest(ctx, db, path, IngestOptions{Final: true})
	if err != nil || again.Added != 0 || again.Items != 0 || again.Pending {
		t.Fatalf("nothing new after the pass: %+v, %v", again, err)
	}
}

// A session recorded on Windows and read here (a teammate's log, Codex
// under WSL) names its working directory as C:\…: it goes to a project
// named by that directory, the same one each time, and another checkout
// path is another project.
func TestIngestSessionFromWindows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openStore(t)
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	write := func(name, id, cwd string) string {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(
			line(map[string]any{"timestamp": "2026-04-26T19:20:18Z", "type": "session_meta", "payload": map[string]any{"id": id, "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli"}})+
				line(map[string]any{"timestamp": "2026-04-26T19:21:00Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "The event pages are served by Next.js 15."}}}})+
				line(map[string]any{"timestamp": "2026-04-26T19:22:00Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Noted."}}}})), 0o600)
		return p
	}
	a, err := Ingest(ctx, db, write("a.jsonl", "019dcb3b-0001", `C:\Users\YAROSLAV\RAVE-ERA`), IngestOptions{Final: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Ingest(ctx, db, write("b.jsonl", "019dcb3b-0002", `c:/Users/YAROSLAV/RAVE-ERA/`), IngestOptions{Final: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Ingest(ctx, db, write("c.jsonl", "019dcb3b-0003", `D:\work\RAVE-ERA`), IngestOptions{Final: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Project != "RAVE-ERA" || a.Added == 0 || b.ProjectID != a.ProjectID || c.ProjectID == a.ProjectID {
		t.Fatalf("projects: %s %s (%d drafts), %s, %s", a.Project, a.ProjectID, a.Added, b.ProjectID, c.ProjectID)
	}
}
