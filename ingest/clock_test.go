package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rolloutLine is one line of a Codex rollout; at "" leaves its time out.
func rolloutLine(at, typ string, payload map[string]any) string {
	v := map[string]any{"type": typ, "payload": payload}
	if at != "" {
		v["timestamp"] = at
	}
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

func codexSay(at, role, text string) string {
	kind := "input_text"
	if role == "assistant" {
		kind = "output_text"
	}
	return rolloutLine(at, "response_item", map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}})
}

// writeRollout writes a Codex rollout of session id, begun at start in
// /home/ana/src/ratelimit, with the lines after its session_meta.
func writeRollout(t *testing.T, id, start string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	body := rolloutLine(start, "session_meta", map[string]any{"id": id, "cwd": "/home/ana/src/ratelimit", "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli"}) +
		strings.Join(lines, "")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A message with no time of its own, read at a later ingest, is dated
// when the ingest before read the file (by the ingest's clock), not by
// the system clock or the file's; and each ingest stamps its read with
// its clock.
func TestIngestDatesUntimedMessagesByTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openStore(t)
	path := writeRollout(t, "019dcb3b-0a0a", "2026-04-26T19:20:18Z",
		codexSay("2026-04-26T19:21:00Z", "user", "The limiter keys requests by API token, not by IP."),
		codexSay("2026-04-26T19:22:00Z", "assistant", "Noted: the limiter keys by token."))
	first := time.Date(2026, 4, 26, 20, 0, 0, 0, time.UTC)
	rep, err := Ingest(ctx, db, path, IngestOptions{Final: true, Now: func() time.Time { return first }})
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, []byte(codexSay("", "user", "Bursts over the limit get a 429 with a Retry-After header.")+
		codexSay("", "assistant", "Understood: 429 with Retry-After.")))
	second := first.Add(48 * time.Hour)
	if _, err := Ingest(ctx, db, path, IngestOptions{Final: true, Now: func() time.Time { return second }}); err != nil {
		t.Fatal(err)
	}
	drafts, err := db.Drafts(ctx, rep.ProjectID, 100)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, d := range drafts {
		if strings.Contains(d.Text, "Retry-After") {
			found++
			if !d.Time.Equal(first) {
				t.Errorf("untimed draft %q dated %v, want the first ingest's clock %v", d.Text, d.Time, first)
			}
		}
	}
	if found == 0 {
		t.Fatalf("no draft of the untimed lines among %d", len(drafts))
	}
	abs, _ := filepath.Abs(path)
	if st, err := db.IngestState(ctx, abs); err != nil || !st.Time.Equal(second) {
		t.Errorf("read stamped %v (%v), want the second ingest's clock %v", st.Time, err, second)
	}
}

// The episode tells the session's times in the zone asked for: a session
// late on 26 April in UTC is of 27 April two hours east.
func TestEpisodeTimesInTheZoneAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openStore(t)
	path := writeRollout(t, "019dcb3b-0b0b", "2026-04-26T23:20:18Z",
		codexSay("2026-04-26T23:21:00Z", "user", "Why does the limiter reset at midnight?"),
		codexSay("2026-04-26T23:52:00Z", "assistant", "Its window is a calendar day."))
	rep, err := Ingest(ctx, db, path, IngestOptions{Final: true, Zone: time.FixedZone("UTC+2", 2*3600)})
	if err != nil || rep.Episode == "" {
		t.Fatalf("ingest: %+v, %v", rep, err)
	}
	ep, err := db.Get(ctx, rep.Episode)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep.Title, "Session 2026-04-27 01:21–01:52") || !strings.Contains(ep.Body, ", 2026-04-27 01:21, 31m") {
		t.Errorf("episode in UTC+2:\n%s\n%s", ep.Title, ep.Body)
	}
}
