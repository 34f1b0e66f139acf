package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// TestMCPSurvivesMalformedInput: the real `cairn mcp`, spoken to as an
// agent's client would over its stdin and stdout, answers a line that is
// not JSON with a parse error and goes on to answer the next request, and
// ends cleanly when its input closes.
func TestMCPSurvivesMalformedInput(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.ok("remember", "seed memory so the project exists")
	cmd := h.cmd("mcp")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	out := bufio.NewReader(outPipe)
	recv := func() map[string]any {
		t.Helper()
		got := make(chan []byte, 1)
		go func() {
			b, _ := out.ReadBytes('\n')
			got <- b
		}()
		select {
		case b := <-got:
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("cairn mcp wrote %q (%v): has it exited?", b, err)
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no answer from cairn mcp")
			return nil
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("writing to cairn mcp: %v", err)
		}
	}

	send("this is not JSON")
	m := recv()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32700.0 || m["id"] != nil {
		t.Fatalf("want a parse error with id null, got %v", m)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	m = recv()
	if r, _ := m["result"].(map[string]any); m["id"] != 1.0 || r == nil || r["serverInfo"] == nil {
		t.Fatalf("initialize after a malformed line: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}")
	if m = recv(); m["id"] != nil || m["error"] == nil {
		t.Fatalf("invalid UTF-8: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m = recv(); m["id"] != 3.0 || m["result"] == nil {
		t.Fatalf("tools/list: %v", m)
	}

	in.Close()
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("cairn mcp exited with %v when its input closed", waitErr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("cairn mcp still running 15 s after its input closed")
	}
}
