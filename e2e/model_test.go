package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A Claude Code session ingested, then consolidated with a chat model
// configured (a server on loopback): the session's messages go to the
// model together, as the person and the agent said them and nothing of
// the harness; what the model writes down becomes memory when it quotes a
// message — dated when that message was said, the person's words as
// theirs — and nothing else of the session does.
func TestSessionConsolidatedWithAModel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil || len(req.Messages) != 2 || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("a request that is no chat completion: %s %s", r.URL.Path, b)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		asked = append(asked, req.Messages[1].Content)
		mu.Unlock()
		content := `{"candidates": []}`
		if strings.HasPrefix(req.Messages[0].Content, "You read part of one working session") {
			content = `{"candidates": [
				{"class": "preference", "title": "Always run make lint before committing", "body": "Always run make lint before committing.", "span": "Always run make lint before committing.", "sure": true},
				{"class": "state", "title": "The service runs on Kubernetes", "body": "The service runs on Kubernetes.", "span": "The service runs on Kubernetes.", "sure": true}]}`
		}
		answer, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()

	h := newHome(t)
	log, err := filepath.Abs("../ingest/testdata/claude-code/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h.ok("ingest", log, "--project", "rl")
	c := h.cmd("consolidate", "--project", "rl")
	c.Env = append(c.Env, "CAIRN_LLM_URL="+srv.URL+"/v1", "CAIRN_LLM_MODEL=test-model")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("consolidate with a model: %v\n%s", err, out)
	}
	var ms []struct {
		Layer, Kind, Provenance, Title string
		ValidFrom                      string `json:"valid_from"`
	}
	h.json(&ms, "list", "--project", "rl")
	var durable []string
	for _, m := range ms {
		if m.Layer == "episode" {
			continue
		}
		durable = append(durable, m.Title)
		if m.Title == "Always run make lint before committing" && (m.Provenance != "user-stated" || m.ValidFrom != "2026-11-24T10:05:00Z") {
			t.Errorf("%q is %s, valid from %s: want the person's words, dated when said (2026-11-24T10:05:00Z)", m.Title, m.Provenance, m.ValidFrom)
		}
	}
	if len(durable) != 1 || durable[0] != "Always run make lint before committing" {
		t.Errorf("formed %q: want the model's grounded memory alone, nothing invented, nothing else", durable)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("%d requests for a short session: want one", len(asked))
	}
	for _, want := range []string{"Always run make lint before committing.", "] person: Fix the flaky TestBucketRefill"} {
		if !strings.Contains(asked[0], want) {
			t.Errorf("the model was not shown %q:\n%s", want, asked[0])
		}
	}
	for _, never := range []string{"Caveat:", "7f3c9a10", "/home/ana/src/ratelimit", "fix-flaky-store"} {
		if strings.Contains(asked[0], never) {
			t.Errorf("the model was shown %q:\n%s", never, asked[0])
		}
	}
}

// detachedOf are the pids of the cairns running in the background for the
// home at dir (started by a hook: CAIRN_DETACHED in their environment).
func detachedOf(dir string) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		vars := strings.Split(string(env), "\x00")
		if slices.Contains(vars, "CAIRN_DETACHED=1") && slices.Contains(vars, "CAIRN_HOME="+dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The real Claude Code hook at a session's end, with a chat model
// configured: the hook returns at once, and a cairn of its own session
// (not the hook's child any more) reads the transcript with the model and
// forms the memory, then exits.
func TestSessionEndHandsTheModelPassToTheBackground(t *testing.T) {
	t.Parallel()
	returned := make(chan struct{})
	srv, answered := chatServer(t, returned)
	h := newHome(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s1","cwd":"` + h.work + `","gitBranch":"main","timestamp":"2026-11-24T09:00:00Z","message":{"role":"user","content":"We deploy with ArgoCD."}}`,
		`{"type":"user","uuid":"u2","sessionId":"s1","cwd":"` + h.work + `","timestamp":"2026-11-24T09:01:00Z","message":{"role":"user","content":"Always run make check before pushing."}}`,
	}
	if err := os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	event, _ := json.Marshal(map[string]string{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": h.work, "transcript_path": tr, "reason": "exit"})
	c := h.cmd("hook", "claude-code")
	c.Env = append(c.Env, "CAIRN_LLM_URL="+srv.URL+"/v1", "CAIRN_LLM_MODEL=test-model", "CAIRN_LLM_DEADLINE=5s")
	c.Stdin = strings.NewReader(string(event))
	out, err := c.CombinedOutput()
	close(returned)
	if err != nil || len(out) != 0 {
		t.Fatalf("hook: %v %q", err, out)
	}
	h.waitBackground(answered)
	if titles := h.durable(); len(titles) != 1 || titles[0] != "Run make check before pushing" || readLog(h) != "" {
		t.Fatalf("formed %q, want the model's memory; hooks.log: %s", titles, readLog(h))
	}
}

// chatServer is a chat model on loopback that writes down, of a session,
// the person's rule about make check, once after release is closed (nil:
// at once); each answer is signalled on answered.
func chatServer(t *testing.T, release chan struct{}) (*httptest.Server, chan struct{}) {
	t.Helper()
	answered := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if release != nil {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		content := `{"candidates": [{"class": "preference", "title": "Run make check before pushing", "body": "Always run make check before pushing.", "span": "Always run make check before pushing", "sure": true}]}`
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		answered <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv, answered
}

// waitBackground waits for the model to answer a cairn in the background
// (when answered is not nil), then for every such cairn of the home to
// exit, a minute at most each.
func (h *home) waitBackground(answered chan struct{}) {
	h.t.Helper()
	if answered != nil {
		select {
		case <-answered:
		case <-time.After(time.Minute):
			h.t.Fatal("no cairn in the background asked the model within a minute")
		}
	}
	deadline := time.Now().Add(time.Minute)
	for pids := detachedOf(h.dir); len(pids) > 0; pids = detachedOf(h.dir) {
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			h.t.Fatalf("the cairn in the background (pids %v) still runs a minute after the model answered", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// durable are the titles of the home's active memories but episodes.
func (h *home) durable() []string {
	h.t.Helper()
	var ms []struct{ Title, Layer string }
	h.json(&ms, "list")
	var titles []string
	for _, m := range ms {
		if m.Layer != "episode" {
			titles = append(titles, m.Title)
		}
	}
	return titles
}

func readLog(h *home) string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hooks.log"))
	return string(b)
}
