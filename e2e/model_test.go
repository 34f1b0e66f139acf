package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
