package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// modelServer is a chat model on loopback that writes down, of a session,
// the person's rule about make check; it counts what it is asked.
func modelServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		asked.Add(1)
		content := `{"candidates": [{"class": "preference", "title": "Run make check before pushing", "body": "Always run make check before pushing.", "span": "Always run make check before pushing.", "sure": true}]}`
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// sessionEndEvent writes a short Claude Code session into e's project and
// returns its SessionEnd event.
func sessionEndEvent(t *testing.T, e *env) string {
	t.Helper()
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s1","cwd":"` + e.wd + `","gitBranch":"main","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"We deploy with ArgoCD."}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted."}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s1","cwd":"` + e.wd + `","timestamp":"2026-11-24T09:01:00Z","message":{"role":"user","content":"Always run make check before pushing."}}`,
	}
	if err := os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return hookJSON(t, map[string]string{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": e.wd, "transcript_path": tr, "reason": "exit"})
}

// hookEnv is the Env of a hook run in e with a model configured.
func (e *env) hookEnv(srv *httptest.Server, stdin string, vars map[string]string) Env {
	env := e.cliEnv("hook", "claude-code")
	env.Stdin = strings.NewReader(stdin)
	env.Getenv = func(k string) string {
		switch k {
		case "CAIRN_HOME":
			return e.home
		case "CAIRN_LLM_URL":
			return srv.URL + "/v1"
		case "CAIRN_LLM_MODEL":
			return "test-model"
		}
		return vars[k]
	}
	return env
}

// titles are the titles of e's active memories but the session's episode.
func (e *env) titles() []string {
	e.t.Helper()
	var ms []struct{ Title, Layer string }
	if err := json.Unmarshal([]byte(e.ok("list", "--json")), &ms); err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if m.Layer != "episode" {
			out = append(out, m.Title)
		}
	}
	slices.Sort(out)
	return out
}

// With a chat model configured, a session's end is handed to a cairn in
// the background (Claude Code is reported to cancel one when it exits, and an
// agent never waits for a model): the hook itself reads nothing and
// returns; the cairn it started gets the event and reads the session with
// the model. Without a way to start one (Env.Detach nil), the hook reads
// it with the model itself.
func TestHookSessionEndWithAModel(t *testing.T) {
	t.Parallel()
	want := []string{"Run make check before pushing"}

	t.Run("handed to the background", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		srv, asked := modelServer(t)
		event := sessionEndEvent(t, e)
		var handed []byte
		var args []string
		env := e.hookEnv(srv, event, nil)
		env.Detach = func(stdin []byte, a ...string) error {
			handed, args = stdin, a
			return nil
		}
		if code := Main(env); code != 0 {
			t.Fatalf("hook exit %d", code)
		}
		if asked.Load() != 0 || len(e.titles()) != 0 || strings.Contains(e.ok("inbox", "--all"), "ArgoCD") {
			t.Fatalf("the hook read the session itself (%d requests, memories %q)", asked.Load(), e.titles())
		}
		if !slices.Equal(args, []string{"hook", "claude-code"}) {
			t.Errorf("the background cairn was started with %q", args)
		}
		// The cairn in the background: the same command, the event on its
		// input, marked as the detached one.
		child := e.hookEnv(srv, string(handed), map[string]string{detachedVar: "1"})
		child.Detach = env.Detach
		handed = nil
		if code := Main(child); code != 0 {
			t.Fatalf("background hook exit %d", code)
		}
		if handed != nil {
			t.Fatal("the cairn in the background handed the work on again")
		}
		if got := e.titles(); !slices.Equal(got, want) || asked.Load() != 1 {
			t.Fatalf("after the background pass: %q (%d requests), want %q; hooks.log: %s", got, asked.Load(), want, e.hookLog())
		}
	})

	t.Run("in this process", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		srv, asked := modelServer(t)
		if code := Main(e.hookEnv(srv, sessionEndEvent(t, e), nil)); code != 0 {
			t.Fatalf("hook exit %d", code)
		}
		if got := e.titles(); !slices.Equal(got, want) || asked.Load() != 1 {
			t.Fatalf("memories %q (%d requests), want %q; hooks.log: %s", got, asked.Load(), want, e.hookLog())
		}
	})

	t.Run("a background that cannot start", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		srv, asked := modelServer(t)
		env := e.hookEnv(srv, sessionEndEvent(t, e), nil)
		env.Detach = func([]byte, ...string) error { return os.ErrPermission }
		if code := Main(env); code != 0 {
			t.Fatalf("hook exit %d", code)
		}
		// The hook reads it with the patterns, and the log says why.
		if got := e.titles(); len(got) == 0 || asked.Load() != 0 || !strings.Contains(e.hookLog(), "the hook reads the session itself, with the patterns") {
			t.Fatalf("memories %q (%d requests); hooks.log: %s", got, asked.Load(), e.hookLog())
		}
	})
}
