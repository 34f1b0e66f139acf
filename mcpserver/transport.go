package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits on one inbound message. Tool arguments are small and flat; a
// memory body is at most 64 KiB, so 4 MiB leaves room for any honest
// message while a hostile one cannot make the server buffer gigabytes.
const (
	MaxLine  = 4 << 20
	MaxDepth = 64
)

// Transport serves MCP as newline-delimited JSON on In and Out, like the
// SDK's stdio transport, but it reads the lines itself: the SDK closes the
// connection on the first line it cannot decode, so one malformed message
// would end an agent's session. Here every bad line is answered with its
// JSON-RPC error (-32700 parse error, -32600 invalid request) and the next
// line is served; only well-formed messages reach the SDK.
type Transport struct {
	In      io.Reader // closed with the connection when it is an io.Closer
	Out     io.Writer
	MaxLine int // bytes per message; 0: MaxLine
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = MaxLine
	}
	c := &lineConn{in: t.In, out: t.Out, msgs: make(chan jsonrpc.Message), done: make(chan struct{})}
	go c.readLoop(limit)
	return c, nil
}

type lineConn struct {
	in  io.Reader
	out io.Writer
	wmu sync.Mutex // one message per Write, whole, whoever writes

	msgs    chan jsonrpc.Message // closed when reading stops
	readErr error                // why it stopped; set before msgs is closed

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func (c *lineConn) SessionID() string { return "" }

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	case m, ok := <-c.msgs:
		if !ok {
			return nil, c.readErr
		}
		return m, nil
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection. Closing the input unblocks a pending
// read where the reader allows it (a pipe does; a terminal may not, and
// then the read goroutine ends with the process).
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		if cl, ok := c.in.(io.Closer); ok {
			c.closeErr = cl.Close()
		}
	})
	return c.closeErr
}

// readLoop reads lines until the input ends, answering bad ones itself and
// handing good ones to Read.
func (c *lineConn) readLoop(limit int) {
	defer close(c.msgs)
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, limit)
		if msg, reply := check(line, tooLong, limit); reply != nil {
			if werr := c.writeLine(reply); werr != nil {
				c.readErr = werr
				return
			}
		} else if msg != nil {
			select {
			case c.msgs <- msg:
			case <-c.done:
				c.readErr = io.EOF
				return
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine returns the next line without its line end. A line longer than
// limit is read to its end and dropped, never held whole: tooLong reports
// it. err is io.EOF after the last line.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > limit+2 { // +2: the line end is not counted
				tooLong, line = true, nil
			} else {
				if len(line)+len(frag) > cap(line) {
					// Double, so that a line near the limit costs about
					// twice its size in allocations, not append's 5×.
					grown := make([]byte, len(line), min(max(2*cap(line), len(line)+len(frag)), limit+2))
					line = append(grown[:0], line...)
				}
				line = append(line, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > limit {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// check decides what to do with one line: a message to pass on, a reply
// to send instead, or neither (a blank line, or a malformed response from
// the client, which JSON-RPC forbids answering).
func check(line []byte, tooLong bool, limit int) (jsonrpc.Message, []byte) {
	if tooLong {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: message longer than %d bytes; send each message on one line of at most %d bytes", limit, limit))
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !utf8.Valid(line) {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8; send UTF-8 JSON")
	}
	if !json.Valid(line) {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON; send one JSON-RPC message per line")
	}
	if depth(line) > MaxDepth {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: JSON nested deeper than %d levels", MaxDepth))
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one message per line")
	default:
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object")
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(line, &f); err != nil {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not a JSON object")
	}
	idRaw, hasID := f["id"]
	id := json.RawMessage(nil)
	if hasID && validID(idRaw) {
		id = idRaw
	}
	_, hasMethod := f["method"]
	_, hasResult := f["result"]
	_, hasError := f["error"]
	if !hasMethod && (hasResult || hasError) {
		// A response to something the server asked. One that cannot be
		// matched to a call is dropped: replying to a response is not allowed.
		if id == nil || hasResult == hasError || string(f["jsonrpc"]) != `"2.0"` {
			return nil, nil
		}
		return decode(line, id)
	}
	if v := f["jsonrpc"]; string(v) != `"2.0"` {
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if hasID && id == nil {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer")
	}
	if !hasMethod || !isString(f["method"]) {
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a string")
	}
	if p, ok := f["params"]; ok && p[0] != '{' && p[0] != '[' {
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object or an array")
	}
	return decode(line, id)
}

func decode(line []byte, id json.RawMessage) (jsonrpc.Message, []byte) {
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// Not reached with the checks above; answered rather than fatal if it is.
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: the message is not a JSON-RPC request or response")
	}
	return msg, nil
}

// validID: a string, or an integer a float64 holds exactly (the SDK
// decodes numbers as float64 and truncates to int64, so 1.5 would be
// answered as 1 and 1e300 would wrap).
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case float64:
		return v == math.Trunc(v) && math.Abs(v) <= 1<<53
	}
	return false
}

func isString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
}

// depth is how deeply arrays and objects nest in valid JSON.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// wireError is a JSON-RPC error response as it goes on the wire.
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// errorReply is a JSON-RPC error response. The SDK's encoder leaves out a
// missing id, but an error about a message whose id could not be read
// must carry "id": null.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	w := wireError{JSONRPC: "2.0", ID: id}
	w.Error.Code, w.Error.Message = code, message
	b, _ := json.Marshal(w)
	return b
}
