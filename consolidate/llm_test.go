package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/consolidate/extract"
	"cairn/memory"
	"cairn/safetext"
	"cairn/store"
)

// The endpoint path is tested against a server on loopback only.

// llmSeen is what a test server received.
type llmSeen struct {
	mu     sync.Mutex
	bodies []map[string]any
	raw    []string
	auth   []string
	paths  []string
}

func (s *llmSeen) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// llmServer serves h on loopback and records each request. Its cleanup
// closes the server (which waits for every handler to return), drops the
// idle connections of cairn's own client and checks that no HTTP goroutine
// of either side is left.
func llmServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body map[string]any)) (*httptest.Server, *llmSeen) {
	t.Helper()
	seen := &llmSeen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		seen.mu.Lock()
		seen.bodies = append(seen.bodies, body)
		seen.raw = append(seen.raw, string(raw))
		seen.auth = append(seen.auth, r.Header.Get("Authorization"))
		seen.paths = append(seen.paths, r.URL.Path)
		seen.mu.Unlock()
		h(w, r, body)
	}))
	if _, checked := llmChecked.LoadOrStore(t, true); !checked {
		// The first cleanup registered runs last: after every server of
		// the test is closed.
		t.Cleanup(func() { llmNoGoroutinesLeft(t) })
	}
	t.Cleanup(func() {
		srv.Close()
		llmTransport.CloseIdleConnections()
	})
	return srv, seen
}

// llmChecked holds the tests whose goroutines are checked at the end.
var llmChecked sync.Map

// llmNoGoroutinesLeft fails when an HTTP connection goroutine of the test
// server or of cairn's client, or an Extract, outlives the test. Closed
// connections end their goroutines asynchronously, so it waits for them
// (up to 5 s) before it fails.
func llmNoGoroutinesLeft(t *testing.T) {
	t.Helper()
	marks := []string{"net/http.(*persistConn)", "net/http.(*conn).serve", "consolidate.(*LLM)", "httptest.(*Server)"}
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		var left []string
		for _, g := range strings.Split(stacks, "\n\n") {
			for _, m := range marks {
				if strings.Contains(g, m) {
					left = append(left, g)
					break
				}
			}
		}
		if len(left) == 0 {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("%d goroutines left running after the test:\n%s", len(left), strings.Join(left, "\n\n"))
		case <-tick.C:
		}
	}
}

// chat writes a chat completion whose message content is content.
func chat(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

// candidatesJSON is an answer holding the given candidates.
func candidatesJSON(cands ...map[string]any) string {
	if cands == nil {
		cands = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"candidates": cands})
	return string(b)
}

func newLLM(srv *httptest.Server) *LLM {
	return &LLM{URL: srv.URL + "/v1", Model: "test-model", Key: "local-test-key", Timeout: 10 * time.Second}
}

func llmDraft(by memory.Actor, text string) memory.Draft {
	return memory.Draft{ID: "01JDRAFT0000000000000000AA", Project: "00000000000000c0", Actor: by, Text: text,
		Time:   time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Source: memory.Source{Session: "session-name-private", File: "notes/private-notes.md", Line: 7}}
}

const llmMorning = `ok, thanks.
We switched the queue to NATS because Kafka needed three brokers for a team of two.
let me look at the logs`

// A good answer: a decision whose span is in the draft is kept, with the
// layer, kind and provenance of its class (whatever the model says of
// them); one whose span the draft does not hold is dropped with a reason.
func TestLLMExtractSuccess(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(
			map[string]any{"class": "decision", "title": "Queue is NATS, not Kafka",
				"body": "We switched the queue to NATS.", "because": "Kafka needed three brokers for a team of two",
				"span": "We switched the queue to NATS because Kafka needed three brokers", "sure": true,
				// not the model's to say: ignored
				"layer": "A", "kind": "constraint", "provenance": "user-corrected"},
			map[string]any{"class": "state", "title": "Logs are rotated daily", "body": "Logs are rotated daily.",
				"span": "the logs are rotated daily", "sure": true},
		))
	})
	l := newLLM(srv)
	cands, dropped, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 {
		t.Fatalf("got %d candidates, want 1: %+v", len(cands), cands)
	}
	c := cands[0]
	if c.Class != extract.ClassDecision || c.Layer != memory.LayerDecision || c.Kind != memory.KindDecision || c.Provenance != memory.ProvUserStated {
		t.Errorf("decision mapped to %s/%s/%s/%s, want decision/D/decision/user-stated", c.Class, c.Layer.Letter(), c.Kind, c.Provenance)
	}
	if c.Title != "Queue is NATS, not Kafka" || c.Because != "Kafka needed three brokers for a team of two" || !c.Sure {
		t.Errorf("candidate = %+v", c)
	}
	if !strings.Contains(llmMorning, c.Span) || c.Span == "" {
		t.Errorf("span %q is not in the draft", c.Span)
	}
	if len(dropped) != 1 || !strings.Contains(dropped[0], "span is not in the draft") || !strings.Contains(dropped[0], "candidate 2") {
		t.Errorf("dropped = %q, want candidate 2's span named", dropped)
	}
	if seen.count() != 1 {
		t.Errorf("%d requests for one draft", seen.count())
	}
}

// The request holds the instructions and the draft's text and nothing
// else: not the draft's source, project or id; the bearer key is sent;
// temperature 0 and a JSON answer are asked for.
func TestLLMRequestHoldsOnlyTheDraft(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON())
	})
	l := newLLM(srv)
	d := llmDraft(memory.ActorAgent, llmMorning)
	if _, _, err := l.Extract(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if seen.count() != 1 {
		t.Fatalf("%d requests", seen.count())
	}
	body, raw := seen.bodies[0], seen.raw[0]
	if seen.paths[0] != "/v1/chat/completions" {
		t.Errorf("posted to %s, want /v1/chat/completions", seen.paths[0])
	}
	if seen.auth[0] != "Bearer local-test-key" {
		t.Errorf("Authorization = %q", seen.auth[0])
	}
	if body["model"] != "test-model" || body["temperature"] != float64(0) {
		t.Errorf("model %v, temperature %v", body["model"], body["temperature"])
	}
	if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format = %v", body["response_format"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want system and user", len(msgs))
	}
	sys, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	if sys["role"] != "system" || user["role"] != "user" || user["content"] != d.Text {
		t.Errorf("messages = %v", msgs)
	}
	prompt, _ := sys["content"].(string)
	for _, want := range []string{"preference", "state", "event", "decision", "failure", "procedure", "correction",
		"Chatter makes nothing", "character for character", `{"candidates":[`, "layer D"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
	for _, private := range []string{d.Source.Session, d.Source.File, d.Project, d.ID} {
		if strings.Contains(raw, private) {
			t.Errorf("the request holds %q, which is not the draft's text", private)
		}
	}
}

// Answers in a ```json fence, after a reasoning block, or as an object
// where the content should be are read.
func TestLLMToleratesWrappedJSON(t *testing.T) {
	t.Parallel()
	cand := map[string]any{"class": "preference", "title": "Prefers pnpm over npm", "body": "The user prefers pnpm over npm.",
		"span": "I prefer pnpm over npm", "sure": true}
	for name, content := range map[string]any{
		"fenced":   "```json\n" + candidatesJSON(cand) + "\n```",
		"bare":     "```\n" + candidatesJSON(cand) + "\n```\n",
		"thinking": "<think>The note states a preference.</think>\n" + candidatesJSON(cand),
		"object":   map[string]any{"candidates": []any{cand}},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
				_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
					"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
			})
			cands, dropped, err := newLLM(srv).Extract(context.Background(), llmDraft(memory.ActorUser, "For JS work I prefer pnpm over npm."))
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) != 1 || len(dropped) != 0 {
				t.Fatalf("cands %+v, dropped %q", cands, dropped)
			}
			if c := cands[0]; c.Layer != memory.LayerInvariant || c.Kind != memory.KindPreference || c.Provenance != memory.ProvUserStated {
				t.Errorf("preference mapped to %s/%s/%s", c.Layer.Letter(), c.Kind, c.Provenance)
			}
		})
	}
}

// llmOneLine checks that an error is one line naming the endpoint.
func llmOneLine(t *testing.T, err error, srv *httptest.Server, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", wants)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r\x1b") {
		t.Errorf("error is not one clean line: %q", msg)
	}
	if !strings.HasPrefix(msg, "language model at "+srv.URL+"/v1: ") {
		t.Errorf("error %q does not name the endpoint", msg)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}

// Output that is not the JSON asked for fails the draft with a message; it
// never panics and never yields candidates.
func TestLLMMalformedOutput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		write func(w http.ResponseWriter)
		want  string
	}{
		{"prose", func(w http.ResponseWriter) { chat(w, "Sure! Here are the memories: the queue is NATS.") }, "not the JSON asked for"},
		{"truncated", func(w http.ResponseWriter) { chat(w, `{"candidates":[{"class":"state","ti`) }, "not the JSON asked for"},
		{"array", func(w http.ResponseWriter) { chat(w, `[{"class":"state"}]`) }, "not the JSON asked for"},
		{"no candidates", func(w http.ResponseWriter) { chat(w, `{"memories":[]}`) }, `no "candidates" list`},
		{"candidates not a list", func(w http.ResponseWriter) { chat(w, `{"candidates":{"class":"state"}}`) }, `"candidates" is not a list`},
		{"empty", func(w http.ResponseWriter) { chat(w, "") }, "empty"},
		{"not a completion", func(w http.ResponseWriter) { _, _ = io.WriteString(w, "<html>hello</html>") }, "not a chat completion"},
		{"no choices", func(w http.ResponseWriter) { _, _ = io.WriteString(w, `{"choices":[]}`) }, "no choices"},
		{"content is a number", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":42}}]}`)
		}, "neither text nor a JSON object"},
		{"too large", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("x", llmMaxAnswer)+`"}}]}`)
		}, "larger than 1 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { tc.write(w) })
			cands, _, err := newLLM(srv).Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
			llmOneLine(t, err, srv, tc.want)
			if cands != nil {
				t.Errorf("candidates from a malformed answer: %+v", cands)
			}
		})
	}
}

// A server that never answers: the draft fails after Timeout with the
// message a person can act on, and the handler is released.
func TestLLMTimeout(t *testing.T) {
	t.Parallel()
	srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		<-r.Context().Done() // hold the request until the client gives up
	})
	l := newLLM(srv)
	l.Timeout = 50 * time.Millisecond
	start := time.Now()
	_, _, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
	llmOneLine(t, err, srv, "timed out after 50ms (set CAIRN_LLM_URL to a reachable server or unset it)")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up after %v, want about 50ms", took)
	}
	if got := llmDuration((&LLM{}).timeout()); got != "60s" {
		t.Errorf("the default timeout reads %q, want 60s", got)
	}
}

// A pass that is cancelled says so, not that the server was slow.
func TestLLMCancelledIsNotATimeout(t *testing.T) {
	t.Parallel()
	srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	l := newLLM(srv)
	l.Client = &http.Client{Transport: &cancelOnSend{base: llmTransport, cancel: cancel}}
	_, _, err := l.Extract(ctx, llmDraft(memory.ActorUser, llmMorning))
	llmOneLine(t, err, srv, "context canceled")
	if strings.Contains(err.Error(), "timed out") {
		t.Errorf("a cancelled pass reads as a timeout: %v", err)
	}
}

// cancelOnSend cancels the pass once the request is on its way.
type cancelOnSend struct {
	base   http.RoundTripper
	cancel context.CancelFunc
}

func (c *cancelOnSend) RoundTrip(r *http.Request) (*http.Response, error) {
	c.cancel()
	return c.base.RoundTrip(r)
}

// A refusal, a content filter and an HTTP error fail the draft, naming
// what happened; an error body is cut to 200 bytes and cannot act on the
// terminal.
func TestLLMRefusalsAndHTTPErrors(t *testing.T) {
	t.Parallel()
	long := "\x1b]0;pwned\x07upstream model crashed: " + strings.Repeat("é", 300)
	cases := []struct {
		name  string
		write func(w http.ResponseWriter)
		want  []string
	}{
		{"refusal", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`)
		}, []string{"the model refused: I can't help with that."}},
		{"content filter", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"choices":[{"finish_reason":"content_filter","message":{"content":""}}]}`)
		}, []string{"content filter"}},
		{"500", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, long)
		}, []string{"answered 500 Internal Server Error: ", "upstream model crashed", "…"}},
		{"401", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: local-test-key"}}`)
		}, []string{"answered 401 Unauthorized", "check CAIRN_LLM_KEY", "[key]"}},
		{"404", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"model 'test-model' not found"}`)
		}, []string{"answered 404 Not Found", "check CAIRN_LLM_URL and CAIRN_LLM_MODEL"}},
		{"redirect", func(w http.ResponseWriter) {
			w.Header().Set("Location", "https://elsewhere.invalid/v1/chat/completions")
			w.WriteHeader(http.StatusMovedPermanently)
		}, []string{"answered 301 Moved Permanently"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { tc.write(w) })
			cands, _, err := newLLM(srv).Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
			llmOneLine(t, err, srv, tc.want...)
			if cands != nil {
				t.Errorf("candidates from a failed answer: %+v", cands)
			}
			if strings.Contains(err.Error(), "local-test-key") {
				t.Errorf("the error repeats the key: %v", err)
			}
			if tc.name == "500" {
				// 200 bytes of the body, in which ESC and BEL (one byte
				// each) are shown as their pictures (three each).
				shown := strings.TrimSuffix(strings.SplitN(err.Error(), "Internal Server Error: ", 2)[1], "…")
				if n := len(shown); n > 200+2+2 || !strings.HasPrefix(safetext.CleanLine(long), shown) {
					t.Errorf("the body shown is %d bytes (%q), want the first 200 of the body, neutralised", n, shown)
				}
				if strings.ContainsAny(err.Error(), "\x1b\x07") {
					t.Errorf("the body was not neutralised: %q", err)
				}
			}
			if seen.count() != 1 {
				t.Errorf("%d requests, want 1 (no retry but on 400)", seen.count())
			}
		})
	}
}

// A server that refuses response_format with 400 is asked again without
// it, and later drafts are sent without it at once.
func TestLLMRetriesWithoutResponseFormat(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if _, ok := body["response_format"]; ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"unknown field response_format"}`)
			return
		}
		chat(w, candidatesJSON(map[string]any{"class": "failure", "title": "go test -race flaky on CI",
			"body": "go test -race times out on the CI runner because it has 2 cores.", "triggers": []string{"Go Test -race", "CI", "ci"},
			"span": "go test -race times out on the CI runner because it has 2 cores", "sure": true}))
	})
	l := newLLM(srv)
	d := llmDraft(memory.ActorAgent, "Note: go test -race times out on the CI runner because it has 2 cores.")
	cands, dropped, err := l.Extract(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || len(dropped) != 0 {
		t.Fatalf("cands %+v, dropped %q", cands, dropped)
	}
	c := cands[0]
	if c.Layer != memory.LayerNegative || c.Kind != memory.KindNegative || c.Provenance != memory.ProvObserved {
		t.Errorf("an agent's failure mapped to %s/%s/%s, want E/negative/observed", c.Layer.Letter(), c.Kind, c.Provenance)
	}
	if strings.Join(c.Triggers, ",") != "go test -race,ci" {
		t.Errorf("triggers = %q, want lowercased and deduplicated", c.Triggers)
	}
	if _, _, err := l.Extract(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if seen.count() != 3 {
		t.Fatalf("%d requests, want 400, retry, and one for the second draft", seen.count())
	}
	for i, want := range []bool{true, false, false} {
		if _, has := seen.bodies[i]["response_format"]; has != want {
			t.Errorf("request %d: response_format sent %v, want %v", i+1, has, want)
		}
	}
}

// A server down: one line, with what to do.
func TestLLMUnreachable(t *testing.T) {
	t.Parallel()
	srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {})
	l := newLLM(srv)
	srv.Close()
	_, _, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
	llmOneLine(t, err, srv, "unreachable: ", "connection refused", "(set CAIRN_LLM_URL to a reachable server or unset it)")
}

const llmGitHubToken = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

// A candidate that holds a credential is dropped without repeating it; a
// draft that holds one is never sent.
func TestLLMSecrets(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(
			map[string]any{"class": "state", "title": "CI token", "body": "The CI token is " + llmGitHubToken,
				"span": "We switched the queue to NATS", "sure": true},
			map[string]any{"class": "state", "title": "Queue is NATS", "body": "The queue is NATS.",
				"span": "We switched the queue to NATS", "sure": true},
		))
	})
	l := newLLM(srv)
	cands, dropped, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Title != "Queue is NATS" {
		t.Errorf("cands = %+v, want only the clean one", cands)
	}
	if len(dropped) != 1 || !strings.Contains(dropped[0], "credential in its body") {
		t.Errorf("dropped = %q, want the credential named", dropped)
	}
	for _, why := range dropped {
		if strings.Contains(why, "a1B2c3D4") {
			t.Errorf("a reason repeats the secret: %q", why)
		}
	}

	before := seen.count()
	_, _, err = l.Extract(context.Background(), llmDraft(memory.ActorUser, "the deploy token is "+llmGitHubToken))
	if err == nil || !strings.Contains(err.Error(), "not sent") || strings.Contains(err.Error(), "a1B2c3D4") {
		t.Errorf("a draft holding a secret: err = %v", err)
	}
	if seen.count() != before {
		t.Errorf("a draft holding a secret was sent to the model")
	}
}

// Each mechanical check on a candidate, and the layer, kind and provenance
// that come from its class and the draft.
func TestLLMCandidateChecks(t *testing.T) {
	t.Parallel()
	const text = "p99 latency is 41 ms after the change.\n" +
		"We must never commit .env files.\n" +
		"Deploys go through ArgoCD.\n" +
		"The request timeout is 30 s.\n" +
		"user: no, the API listens on port 8081, not 8080.\n" +
		"assistant: Fixed the   session-timeout\n  bug; the tests pass."
	yes, no := true, false
	cases := []struct {
		name   string
		by     memory.Actor
		cand   map[string]any
		why    string // a dropped candidate's reason holds this
		layer  memory.Layer
		kind   memory.Kind
		prov   memory.Provenance
		sure   bool
		span   string
		title  string
		nobody bool
	}{
		{name: "reflowed span", by: memory.ActorAgent,
			cand:  map[string]any{"class": "event", "title": "Fixed the session-timeout bug", "body": "Fixed the session-timeout bug; the tests pass.", "span": "Fixed the session-timeout bug; the tests pass.", "sure": yes},
			layer: memory.LayerEpisode, kind: memory.KindEvent, prov: memory.ProvObserved, sure: true,
			span: "Fixed the   session-timeout\n  bug; the tests pass."},
		{name: "user correction", by: memory.ActorUser,
			cand:  map[string]any{"class": "correction", "title": "The API listens on port 8081", "body": "The API listens on port 8081.", "corrects": "The API listens on port 8080", "span": "the API listens on port 8081, not 8080", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvUserCorrected, sure: true},
		{name: "agent reports the user's correction", by: memory.ActorAgent,
			cand:  map[string]any{"class": "Correction", "title": "The API listens on port 8081", "body": "The API listens on port 8081.", "span": "the API listens on port 8081, not 8080", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvUserCorrected, sure: true},
		{name: "agent correction elsewhere", by: memory.ActorAgent,
			cand:  map[string]any{"class": "correction", "title": "Deploys go through ArgoCD", "body": "Deploys go through ArgoCD.", "span": "Deploys go through ArgoCD.", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvExtracted, sure: true},
		{name: "measured by an agent", by: memory.ActorAgent,
			cand:  map[string]any{"class": "state", "title": "p99 latency is 41 ms", "body": "p99 latency is 41ms after the change.", "span": "p99 latency is 41 ms after the change.", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvMeasured, sure: true},
		{name: "the agent's words in a person's draft", by: memory.ActorUser,
			cand:  map[string]any{"class": "event", "title": "Fixed the session-timeout bug", "span": "Fixed the   session-timeout\n  bug", "sure": yes},
			layer: memory.LayerEpisode, kind: memory.KindEvent, prov: memory.ProvObserved, sure: true},
		{name: "a setting is not a measurement", by: memory.ActorAgent,
			cand:  map[string]any{"class": "state", "title": "The request timeout is 30 s", "span": "The request timeout is 30 s.", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvExtracted, sure: true},
		{name: "a taste only the model states", by: memory.ActorUser,
			cand:  map[string]any{"class": "preference", "title": "Prefers ArgoCD for deploys", "body": "Deploys go through ArgoCD, which the user prefers.", "span": "Deploys go through ArgoCD.", "sure": yes},
			layer: memory.LayerInvariant, kind: memory.KindConstraint, prov: memory.ProvUserStated, sure: true},
		{name: "rule", by: memory.ActorUser,
			cand:  map[string]any{"class": "preference", "title": "Never commit .env files", "body": "Never commit .env files.", "span": "We must never commit .env files.", "sure": yes},
			layer: memory.LayerInvariant, kind: memory.KindConstraint, prov: memory.ProvUserStated, sure: true},
		{name: "agent's state", by: memory.ActorAgent,
			cand:  map[string]any{"class": "state", "body": "Deploys go through ArgoCD.", "span": "Deploys go through ArgoCD.", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvExtracted, sure: true, title: "Deploys go through ArgoCD."},
		{name: "procedure", by: memory.ActorUser,
			cand:  map[string]any{"class": "procedure", "title": "Deploying", "body": "- deploy through ArgoCD", "span": "Deploys go through ArgoCD.", "sure": yes},
			layer: memory.LayerInvariant, kind: memory.KindProcedure, prov: memory.ProvUserStated, sure: true},
		{name: "model in doubt", by: memory.ActorUser,
			cand:  map[string]any{"class": "state", "title": "Deploys go through ArgoCD", "span": "Deploys go through ArgoCD.", "sure": no},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvUserStated, sure: false},
		{name: "model silent on sureness", by: memory.ActorUser,
			cand:  map[string]any{"class": "state", "title": "Deploys go through ArgoCD", "span": "Deploys go through ArgoCD."},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvUserStated, sure: false},
		{name: "wandering summary", by: memory.ActorUser,
			cand:  map[string]any{"class": "state", "title": "Kubernetes manifests reconciled continuously", "body": "Kubernetes manifests are reconciled continuously by GitOps tooling.", "span": "Deploys go through ArgoCD.", "sure": yes},
			layer: memory.LayerState, kind: memory.KindFact, prov: memory.ProvUserStated, sure: false},
		{name: "invented number", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "The API listens on port 9090", "span": "the API listens on port 8081", "sure": yes},
			why:  "states 9090, which the draft does not"},
		{name: "unknown class", by: memory.ActorUser,
			cand: map[string]any{"class": "opinion", "title": "ArgoCD is nice", "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  `unknown class "opinion"`},
		{name: "no span", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Deploys go through ArgoCD", "sure": yes},
			why:  "quotes no span"},
		{name: "paraphrased span", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Deploys use ArgoCD", "span": "Deploys use ArgoCD.", "sure": yes},
			why:  "span is not in the draft"},
		{name: "long title", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": strings.Repeat("ArgoCD ", 20), "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  "longer than 120 characters"},
		{name: "two-line title", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Deploys\ngo through ArgoCD", "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  "title spans several lines"},
		{name: "control character", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Deploys \x1b[2J go through ArgoCD", "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  "control character"},
		{name: "empty", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  "neither title nor body"},
		{name: "redacted", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Staging password is [REDACTED:password]", "span": "Deploys go through ArgoCD.", "sure": yes},
			why:  "redacted passage"},
		{name: "not an object", by: memory.ActorUser,
			cand: map[string]any{"class": "state", "title": "Deploys go through ArgoCD", "span": "Deploys go through ArgoCD.", "sure": "yes"},
			why:  `"sure" is a JSON string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.cand)
			c, why := extract.FromModel(llmDraft(tc.by, text), raw)
			if tc.why != "" {
				if !strings.Contains(why, tc.why) {
					t.Fatalf("reason %q, want it to say %q (candidate %+v)", why, tc.why, c)
				}
				return
			}
			if why != "" {
				t.Fatalf("dropped: %s", why)
			}
			if c.Layer != tc.layer || c.Kind != tc.kind || c.Provenance != tc.prov || c.Sure != tc.sure {
				t.Errorf("got %s/%s/%s sure=%v, want %s/%s/%s sure=%v", c.Layer.Letter(), c.Kind, c.Provenance, c.Sure,
					tc.layer.Letter(), tc.kind, tc.prov, tc.sure)
			}
			if !strings.Contains(text, c.Span) || c.Span == "" {
				t.Errorf("span %q is not a substring of the draft", c.Span)
			}
			if tc.span != "" && c.Span != tc.span {
				t.Errorf("span %q, want the draft's own %q", c.Span, tc.span)
			}
			if tc.title != "" && c.Title != tc.title {
				t.Errorf("title %q, want %q", c.Title, tc.title)
			}
			if c.Class != extract.ClassCorrection && c.Corrects != "" || c.Class != extract.ClassDecision && c.Because != "" {
				t.Errorf("fields of another class kept: %+v", c)
			}
		})
	}
}

// At most 20 candidates of one draft are considered, and a repeat is
// dropped.
func TestLLMCandidateLimits(t *testing.T) {
	t.Parallel()
	var many []map[string]any
	for i := range 25 {
		many = append(many, map[string]any{"class": "state", "title": fmt.Sprintf("Service %d is up", i%21),
			"body": fmt.Sprintf("Service %d is up.", i%21), "span": "Service", "sure": true})
	}
	var text strings.Builder
	text.WriteString("Service status:")
	for i := range 25 {
		fmt.Fprintf(&text, " %d", i)
	}
	srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(many...))
	})
	cands, dropped, err := newLLM(srv).Extract(context.Background(), llmDraft(memory.ActorAgent, text.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 20 {
		t.Errorf("%d candidates kept, want 20", len(cands))
	}
	if len(dropped) != 1 || !strings.Contains(dropped[0], "proposed 25 candidates: the 5 after the first 20") {
		t.Errorf("dropped = %q", dropped)
	}

	// a repeat within the first 20
	srv2, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(many[0], many[1], many[0]))
	})
	cands, dropped, err = newLLM(srv2).Extract(context.Background(), llmDraft(memory.ActorAgent, text.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2 || len(dropped) != 1 || !strings.Contains(dropped[0], "candidate 3 repeats candidate 1") {
		t.Errorf("cands %d, dropped %q", len(cands), dropped)
	}
}

// With no client of its own an LLM uses cairn's, which follows no
// redirect; chatter gets no candidates and no request goes out for an
// empty draft.
func TestLLMOwnClientAndEmptyDraft(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { chat(w, candidatesJSON()) })
	l := &LLM{URL: srv.URL + "/v1/", Model: "m"}
	cands, dropped, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, "ok, thanks! let me look."))
	if err != nil || cands != nil || dropped != nil {
		t.Fatalf("chatter: %+v %q %v", cands, dropped, err)
	}
	if seen.auth[0] != "" {
		t.Errorf("a key was sent though none is set: %q", seen.auth[0])
	}
	if seen.paths[0] != "/v1/chat/completions" {
		t.Errorf("posted to %s", seen.paths[0])
	}
	if _, _, err := l.Extract(context.Background(), llmDraft(memory.ActorUser, " \n ")); err != nil || seen.count() != 1 {
		t.Errorf("an empty draft: err %v, %d requests", err, seen.count())
	}
	bad := &LLM{URL: "file:///etc/passwd", Model: "m"}
	if _, _, err := bad.Extract(context.Background(), llmDraft(memory.ActorUser, llmMorning)); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("a file URL: %v", err)
	}
}

func TestLLMFromEnv(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want *LLM   // nil with no error: not configured
		err  string // the error says this
	}{
		{name: "unset", env: map[string]string{"CAIRN_LLM_MODEL": "m", "OPENAI_API_KEY": "sk-x"}},
		{name: "local", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "llama3.1"},
			want: &LLM{URL: "http://127.0.0.1:11434/v1", Model: "llama3.1"}},
		{name: "own key", env: map[string]string{"CAIRN_LLM_URL": "https://llm.example.test/v1", "CAIRN_LLM_MODEL": "m", "CAIRN_LLM_KEY": "k1", "OPENAI_API_KEY": "k2"},
			want: &LLM{URL: "https://llm.example.test/v1", Model: "m", Key: "k1"}},
		{name: "openai key for openai", env: map[string]string{"CAIRN_LLM_URL": "https://API.openai.com/v1", "CAIRN_LLM_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "k2"},
			want: &LLM{URL: "https://API.openai.com/v1", Model: "gpt-4o-mini", Key: "k2"}},
		{name: "openai key never elsewhere", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:8080/v1", "CAIRN_LLM_MODEL": "m", "OPENAI_API_KEY": "k2"},
			want: &LLM{URL: "http://127.0.0.1:8080/v1", Model: "m"}},
		{name: "not http", env: map[string]string{"CAIRN_LLM_URL": "ftp://user:hunter2@llm.example.test/v1", "CAIRN_LLM_MODEL": "m"},
			err: "is not an http(s) URL"},
		{name: "no host", env: map[string]string{"CAIRN_LLM_URL": "http:///v1", "CAIRN_LLM_MODEL": "m"},
			err: "is not an http(s) URL"},
		{name: "no scheme", env: map[string]string{"CAIRN_LLM_URL": "127.0.0.1:11434", "CAIRN_LLM_MODEL": "m"},
			err: "CAIRN_LLM_URL"},
		{name: "no model", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1"},
			err: "CAIRN_LLM_MODEL is not set"},
		{name: "key with a newline", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "m", "CAIRN_LLM_KEY": "abc\ndef"},
			err: "CAIRN_LLM_KEY holds a space or control character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := LLMFromEnv(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to say %q", err, tc.err)
				}
				if l != nil || strings.Contains(err.Error(), "hunter2") || strings.ContainsAny(err.Error(), "\n") {
					t.Errorf("err = %q, llm = %v", err, l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (l == nil) != (tc.want == nil) {
				t.Fatalf("got %+v, want %+v", l, tc.want)
			}
			if l != nil && (l.URL != tc.want.URL || l.Model != tc.want.Model || l.Key != tc.want.Key || l.Timeout != 0 || l.Client != nil) {
				t.Errorf("got %+v, want %+v", l, tc.want)
			}
		})
	}
}

// The span finder returns the draft's own text, whatever the whitespace of
// the quote, and nothing for a quote that is not there.
func TestLLMFindSpan(t *testing.T) {
	t.Parallel()
	text := "Line one.\n\tThe  build\r\n uses Go 1.27 — and é works.\nEnd"
	for _, tc := range []struct{ quote, want string }{
		{"Line one.", "Line one."},
		{"The build uses Go 1.27", "The  build\r\n uses Go 1.27"},
		{" one. The build ", "one.\n\tThe  build"},
		{"— and é works. End", "— and é works.\nEnd"},
		{"The build uses Go 1.26", ""},
		{"   ", ""},
		{"", ""},
	} {
		got, ok := extract.FindSpan(text, strings.TrimSpace(tc.quote))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("extract.FindSpan(%q) = %q, %v; want %q", tc.quote, got, ok, tc.want)
		}
		if ok && !strings.Contains(text, got) {
			t.Errorf("%q is not the draft's text", got)
		}
	}
}

// FuzzLLMCheck: whatever a model answers, checking it never panics, and a
// kept candidate's span is the draft's own text and its title one line.
func FuzzLLMCheck(f *testing.F) {
	f.Add("Deploys go through ArgoCD.\nWe use NATS.", `{"class":"state","title":"Deploys","span":"Deploys  go through","sure":true}`)
	f.Add("a b c", `{"class":"failure","triggers":["A","a",""],"span":"b c","body":"b c"}`)
	f.Add("x", `[]`)
	f.Fuzz(func(t *testing.T, text, answer string) {
		c, why := extract.FromModel(llmDraft(memory.ActorAgent, text), json.RawMessage(answer))
		if why != "" {
			return
		}
		if !strings.Contains(text, c.Span) || c.Span == "" {
			t.Fatalf("span %q is not in %q", c.Span, text)
		}
		if c.Title == "" || strings.ContainsAny(c.Title, "\r\n") || len([]rune(c.Title)) > extract.MaxTitleRunes {
			t.Fatalf("title %q", c.Title)
		}
		if !c.Layer.Valid() || !c.Kind.Valid() || !c.Provenance.Valid() {
			t.Fatalf("fields %+v", c)
		}
	})
}

// Through a whole pass over a real store: the model's candidates are
// checked, deduplicated and reconciled like the patterns' (a correction
// supersedes what it corrects, a fact said again reinforces), and a model
// that fails leaves the draft to the patterns with the reason reported.
func TestLLMThroughConsolidate(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := memory.Project{ID: "00000000000000d1", Name: "llm-test"}
	if _, err := st.EnsureProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	argo, err := st.Remember(bg, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "Deploys go through ArgoCD.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	tues, err := st.Remember(bg, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Body: "We deploy on Tuesdays.", Provenance: memory.ProvUserStated}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	text := "No, actually deploys go through Spinnaker, not ArgoCD.\nWe deploy on Tuesdays.\nok, thanks"
	if _, err := st.Capture(bg, memory.Draft{Project: p.ID, Actor: memory.ActorUser, Text: text}); err != nil {
		t.Fatal(err)
	}
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(
			map[string]any{"class": "correction", "title": "Deploys go through Spinnaker, not ArgoCD", "body": "Deploys go through Spinnaker, not ArgoCD.",
				"corrects": "Deploys go through ArgoCD", "span": "deploys go through Spinnaker, not ArgoCD.", "sure": true,
				"provenance": "inferred", "layer": "F"},
			map[string]any{"class": "state", "title": "We deploy on Tuesdays.", "body": "We deploy on Tuesdays.", "span": "We deploy on Tuesdays.", "sure": true},
			map[string]any{"class": "state", "title": "Thanks were given", "body": "Thanks were given.", "span": "thank you", "sure": true},
		))
	})
	rep, err := Consolidate(bg, st, p, Options{AskedBy: memory.ActorUser, LLM: newLLM(srv)})
	if err != nil {
		t.Fatal(err)
	}
	if seen.count() != 1 {
		t.Errorf("%d requests for one draft", seen.count())
	}
	old, err := st.Get(bg, argo.ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != memory.StatusSuperseded || old.SupersededBy == "" {
		t.Fatalf("the corrected fact is %s (superseded by %q); report: %s; dropped %q", old.Status, old.SupersededBy, rep.Summary(), rep.Dropped)
	}
	spin, err := st.Get(bg, old.SupersededBy)
	if err != nil {
		t.Fatal(err)
	}
	if spin.Layer != memory.LayerState || spin.Provenance != memory.ProvUserCorrected || !strings.Contains(spin.Body, "Spinnaker") {
		t.Errorf("the correction was written as %s/%s %q", spin.Layer.Letter(), spin.Provenance, spin.Body)
	}
	if rep.Counts[memory.ChangeReinforce] != 1 {
		t.Errorf("%d reinforced, want the Tuesday fact reinforced once: %s", rep.Counts[memory.ChangeReinforce], rep.Summary())
	}
	if again, err := st.Get(bg, tues.ID); err != nil || again.Status != memory.StatusActive {
		t.Errorf("the Tuesday fact: %v %v", again, err)
	}
	if !slices.ContainsFunc(rep.Dropped, func(s string) bool { return strings.Contains(s, "span is not in the draft") }) {
		t.Errorf("the invented candidate's reason is not reported: %q", rep.Dropped)
	}

	// A model that fails: the pass goes on with the patterns and says why.
	if _, err := st.Capture(bg, memory.Draft{Project: p.ID, Actor: memory.ActorUser, Text: "I prefer table-driven tests for parsers."}); err != nil {
		t.Fatal(err)
	}
	down, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		w.WriteHeader(http.StatusInternalServerError)
	})
	rep, err = Consolidate(bg, st, p, Options{AskedBy: memory.ActorUser, LLM: newLLM(down)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drafts != 1 || !slices.ContainsFunc(rep.Dropped, func(s string) bool {
		return strings.Contains(s, "answered 500") && strings.Contains(s, "patterns were used instead")
	}) {
		t.Errorf("a failing model: %d drafts, dropped %q", rep.Drafts, rep.Dropped)
	}
	if !slices.ContainsFunc(rep.Run.Changes, func(c memory.Change) bool {
		return c.Kind == memory.ChangeCreate && strings.Contains(c.Title, "table-driven")
	}) {
		t.Errorf("the patterns did not take the draft over: %s", rep.Summary())
	}
}
