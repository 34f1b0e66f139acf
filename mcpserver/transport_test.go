package mcpserver

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// wire is a server on the other end of two pipes, spoken to line by line
// as an agent's client would.
type wire struct {
	t     *testing.T
	lines chan []byte // what the client sends, written in order by one goroutine
	out   *bufio.Reader
}

func serveWire(t *testing.T) *wire {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000aa", Name: "proj"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(db, p, nil, nil).Run(ctx, &Transport{In: inR, Out: outW}) }()
	w := &wire{t: t, lines: make(chan []byte), out: bufio.NewReader(outR)}
	// The client writes on its own goroutine: a 50 MB frame must not hold
	// up reading the answers.
	go func() {
		var err error
		for b := range w.lines {
			if err == nil { // once the server stops reading, drop the rest
				_, err = inW.Write(b)
			}
		}
		inW.Close()
	}()
	t.Cleanup(func() {
		close(w.lines)
		go io.Copy(io.Discard, outR) // let a pending answer through
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not end when its input closed")
		}
		outR.Close()
	})
	return w
}

func (w *wire) send(line string) { w.lines <- []byte(line + "\n") }

// recv is the next message the server writes; a server that stopped
// answering fails the test instead of hanging it.
func (w *wire) recv() map[string]any {
	w.t.Helper()
	got := make(chan []byte, 1)
	go func() {
		b, _ := w.out.ReadBytes('\n')
		got <- b
	}()
	select {
	case b := <-got:
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			w.t.Fatalf("the server wrote %q (%v): has it stopped serving?", b, err)
		}
		return m
	case <-time.After(20 * time.Second):
		w.t.Fatal("no answer from the server")
		return nil
	}
}

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// answered checks that the valid request with id is answered with a result.
func (w *wire) answered(id string) map[string]any {
	w.t.Helper()
	m := w.recv()
	if m["id"] != id || m["result"] == nil {
		w.t.Fatalf("want the result of %s, got %v", id, m)
	}
	return m["result"].(map[string]any)
}

// Malformed lines are answered with their JSON-RPC error and the session
// goes on: each, on a server of its own, is followed by a valid request,
// which must be answered.
func TestMalformedInputIsAnsweredAndServingGoesOn(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	huge := `{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"pad":"` + strings.Repeat("x", 50<<20) + `"}}`
	cases := []struct {
		name, line string
		code       int
		id         any // the id the error carries: nil for null
	}{
		{"not JSON", "tools/list please", -32700, nil},
		{"truncated JSON", `{"jsonrpc":"2.0","id":3,"method":"tools/li`, -32700, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, -32600, 7.0},
		{"no jsonrpc", `{"id":"x7","method":"tools/list"}`, -32600, "x7"},
		{"jsonrpc as a number", `{"jsonrpc":2.0,"id":8,"method":"tools/list"}`, -32600, 8.0},
		{"a batch", `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, -32600, nil},
		{"an empty batch", `[]`, -32600, nil},
		{"an object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, nil},
		{"an array as id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600, nil},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, -32600, nil},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":1e300,"method":"tools/list"}`, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, nil},
		{"a number as method", `{"jsonrpc":"2.0","id":10,"method":42}`, -32600, 10.0},
		{"no method", `{"jsonrpc":"2.0","id":11}`, -32600, 11.0},
		{"params a string", `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":"all"}`, -32600, 12.0},
		{"a bare string", `"tools/list"`, -32600, nil},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"capture\",\"arguments\":{\"text\":\"a\xff\xfeb\"}}}", -32700, nil},
		{"deep nesting", `{"jsonrpc":"2.0","id":14,"method":"tools/list","params":` + deep + `}`, -32600, nil},
		{"deeper than the JSON decoder allows", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700, nil},
		{"a 50 MB frame", huge, -32600, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := serveWire(t)
			w.send(initialize)
			w.answered("init")
			w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			w.send(c.line)
			m := w.recv()
			if errCode(m) != c.code || m["id"] != c.id {
				t.Errorf("want error %d with id %v, got %s", c.code, c.id, short(m))
			} else if msg, _ := m["error"].(map[string]any)["message"].(string); msg == "" {
				t.Error("the error says nothing")
			}
			w.send(`{"jsonrpc":"2.0","id":"next","method":"tools/list"}`)
			if tools, _ := w.answered("next")["tools"].([]any); len(tools) != 7 {
				t.Errorf("%d tools", len(tools))
			}
		})
	}

	// One session through all of it, starting before initialize; a blank
	// line is no message, a CRLF line end is a line end, and a tool call
	// still works at the end.
	w := serveWire(t)
	w.send("hello, is this MCP?")
	if m := w.recv(); errCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("non-JSON before initialize: %v", m)
	}
	w.send(initialize)
	w.answered("init")
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range cases {
		w.send(c.line)
		if m := w.recv(); errCode(m) != c.code {
			t.Errorf("%s in a long session: %s", c.name, short(m))
		}
	}
	w.send("")
	w.send(`{"jsonrpc":"2.0","id":"crlf","method":"tools/list"}` + "\r")
	w.answered("crlf")
	w.send(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"capture","arguments":{"text":"still here"}}}`)
	if res := w.answered("last"); res["isError"] == true {
		t.Fatalf("capture after malformed input: %v", res)
	}
}

// A response from the client that cannot be matched to a call gets no
// answer (JSON-RPC forbids answering a response) and does not end the
// session.
func TestUnmatchedResponsesAreDropped(t *testing.T) {
	t.Parallel()
	w := serveWire(t)
	w.send(initialize)
	w.answered("init")
	w.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	w.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	w.send(`{"jsonrpc":"2.0","id":{"x":1},"result":{}}`)
	w.send(`{"jsonrpc":"2.0","id":"next","method":"tools/list"}`)
	w.answered("next")
}

// short is a message as JSON, cut to a line.
func short(m map[string]any) string {
	b, _ := json.Marshal(m)
	if len(b) > 200 {
		b = append(b[:200], "…"...)
	}
	return string(b)
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

// An oversized frame is skipped as it streams in, never held whole: reading
// 200 MB without a newline allocates about one line's limit, not the frame.
func TestOversizedLineIsNotBuffered(t *testing.T) {
	const frame = 200 << 20
	in := io.MultiReader(strings.NewReader(`{"pad":"`), io.LimitReader(repeatReader('x'), frame), strings.NewReader("\"}\n{\"next\":1}\n"))
	r := bufio.NewReaderSize(in, 64<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	line, tooLong, err := readLine(r, MaxLine)
	runtime.ReadMemStats(&after)
	if err != nil || !tooLong || line != nil {
		t.Fatalf("oversized line: %d bytes, tooLong=%v, %v", len(line), tooLong, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*MaxLine {
		t.Fatalf("skipping a %d MB frame allocated %d MB", frame>>20, alloc>>20)
	}
	if line, tooLong, err := readLine(r, MaxLine); err != nil || tooLong || string(line) != `{"next":1}` {
		t.Fatalf("the line after it: %q %v %v", line, tooLong, err)
	}
}

type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}
