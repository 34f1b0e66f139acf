package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A loopback model server: just enough of the Anthropic Messages API and
// of the OpenAI Responses API for a real coding-agent client to run a
// one-turn session against it. Every request is recorded, so that a test
// can read what the client sent its model (the hooks' output, the tools
// it offers), and answered by the test's own script: text, or one call of
// a tool.

// modelRequest is one request a client made.
type modelRequest struct {
	Method, Path string
	Body         []byte
}

// turn is the model's answer to one request: a text, or a call (id) of
// the named tool with the given arguments (JSON). A Responses API tool in
// a namespace is named "namespace.tool".
type turn struct {
	text           string
	id, tool, args string
}

type modelServer struct {
	srv   *httptest.Server
	reply func(body []byte) turn

	mu   sync.Mutex
	reqs []modelRequest
}

// newModelServer serves the protocol on loopback until the test ends.
// reply decides each answer from the request's body.
func newModelServer(t *testing.T, protocol string, reply func(body []byte) turn) *modelServer {
	s := &modelServer{reply: reply}
	h := s.anthropic
	if protocol == "responses" {
		h = s.responses
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		s.mu.Lock()
		s.reqs = append(s.reqs, modelRequest{r.Method, r.URL.Path, body})
		s.mu.Unlock()
		h(w, r, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *modelServer) URL() string { return s.srv.URL }

// requests is what the clients sent, in order.
func (s *modelServer) requests() []modelRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]modelRequest(nil), s.reqs...)
}

// dump names each request the clients sent, for a failing test's log.
func (s *modelServer) dump() string {
	var b strings.Builder
	for i, r := range s.requests() {
		body := string(r.Body)
		if len(body) > 2000 {
			body = body[:2000] + "…"
		}
		fmt.Fprintf(&b, "request %d: %s %s %s\n", i, r.Method, r.Path, body)
	}
	return b.String()
}

type toolName struct {
	Name string `json:"name"`
}

// anthropicRequest is what the tests read of a Messages API request.
type anthropicRequest struct {
	Tools    []toolName `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (r anthropicRequest) hasTool(name string) bool {
	return slices.ContainsFunc(r.Tools, func(t toolName) bool { return t.Name == name })
}

// toolResults are the results of the tool calls the request carries
// back to the model, by call id, as text.
func (r anthropicRequest) toolResults() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out[b.ToolUseID] = contentText(b.Content)
			}
		}
	}
	return out
}

// contentText is a result's text: a string, or the texts of its parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text + "\n")
	}
	return b.String()
}

// responsesRequest is what the tests read of a Responses API request.
type responsesRequest struct {
	Tools []struct {
		Type  string     `json:"type"`
		Name  string     `json:"name"`
		Tools []toolName `json:"tools"`
	} `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

// hasTool reports whether the request offers the model the tool, named
// "namespace.tool" for a tool in a namespace.
func (r responsesRequest) hasTool(name string) bool {
	ns, tool, inNS := strings.Cut(name, ".")
	for _, t := range r.Tools {
		if !inNS && t.Name == name {
			return true
		}
		if inNS && t.Type == "namespace" && t.Name == ns {
			for _, f := range t.Tools {
				if f.Name == tool {
					return true
				}
			}
		}
	}
	return false
}

func (r responsesRequest) toolResults() map[string]string {
	out := map[string]string{}
	for _, in := range r.Input {
		if in.Type == "function_call_output" {
			out[in.CallID] = contentText(in.Output)
		}
	}
	return out
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
}

// anthropic answers POST /v1/messages, streamed (SSE) or not, as the
// request asks; any other path gets a 404 the client can live with.
func (s *modelServer) anthropic(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &req)
	tn := s.reply(body)
	var block map[string]any
	stop := "end_turn"
	if tn.tool != "" {
		block = map[string]any{"type": "tool_use", "id": tn.id, "name": tn.tool, "input": json.RawMessage(tn.args)}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": tn.text}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	msg := map[string]any{"id": "msg_cairn1", "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	if tn.tool != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": tn.id, "name": tn.tool, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": tn.args}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": tn.text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// responses answers POST /v1/responses with a streamed response (SSE).
func (s *modelServer) responses(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, `{"error":{"message":"not here","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	tn := s.reply(body)
	var item map[string]any
	if tn.tool != "" {
		item = map[string]any{"type": "function_call", "id": "fc_cairn1", "call_id": tn.id, "name": tn.tool, "arguments": tn.args, "status": "completed"}
		if ns, name, ok := strings.Cut(tn.tool, "."); ok {
			item["namespace"], item["name"] = ns, name
		}
	} else {
		item = map[string]any{"type": "message", "id": "msg_cairn1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": tn.text, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": "resp_cairn1", "object": "response", "status": "in_progress", "output": []any{}}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if tn.tool == "" {
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_cairn1", "delta": tn.text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": "resp_cairn1", "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": done})
}
