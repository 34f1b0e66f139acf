package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"cairn/memory"
	"cairn/recall"
)

// Client is a memory.Store served by another process.
type Client struct {
	dial func(ctx context.Context) (net.Conn, error)

	mu      sync.Mutex
	conn    *conn
	closed  bool
	nextID  atomic.Uint64
	subsWG  sync.WaitGroup
	cancels []context.CancelFunc
	embed   embedCheck // see ExpectEmbedder
}

var _ memory.Store = (*Client)(nil)

// conn is one connection with its in-flight calls.
type conn struct {
	c       net.Conn
	wmu     sync.Mutex
	enc     *json.Encoder
	mu      sync.Mutex
	pending map[uint64]chan response
	err     error // set once the connection is dead
}

// NewClient makes a client that reaches its server through dial, which is
// called again (and may start a new server) whenever the connection is lost.
func NewClient(dial func(ctx context.Context) (net.Conn, error)) *Client {
	return &Client{dial: dial}
}

// errLost marks a connection that died under a call.
var errLost = errors.New("lost the connection to the cairn server")

func (c *Client) connection(ctx context.Context) (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, memory.ErrClosed
	}
	if c.conn != nil && c.conn.alive() {
		return c.conn, nil
	}
	nc, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	cn := &conn{c: nc, enc: json.NewEncoder(nc), pending: map[uint64]chan response{}}
	go cn.read()
	c.conn = cn
	return cn, nil
}

func (cn *conn) alive() bool {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.err == nil
}

func (cn *conn) read() {
	r := bufio.NewReaderSize(cn.c, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			cn.fail(errLost)
			return
		}
		var resp response
		if err := json.Unmarshal(line, &resp); err != nil {
			cn.fail(fmt.Errorf("%w: malformed response: %v", errLost, err))
			return
		}
		cn.mu.Lock()
		ch := cn.pending[resp.ID]
		delete(cn.pending, resp.ID)
		cn.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

func (cn *conn) fail(err error) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.err == nil {
		cn.err = err
	}
	for id, ch := range cn.pending {
		close(ch)
		delete(cn.pending, id)
	}
	cn.c.Close()
}

// roundTrip sends one request and waits for its answer. sent reports
// whether the request may have reached the server.
func (cn *conn) roundTrip(ctx context.Context, req request) (resp response, sent bool, err error) {
	ch := make(chan response, 1)
	cn.mu.Lock()
	if cn.err != nil {
		cn.mu.Unlock()
		return resp, false, cn.err
	}
	cn.pending[req.ID] = ch
	cn.mu.Unlock()
	cn.wmu.Lock()
	err = cn.enc.Encode(req)
	cn.wmu.Unlock()
	if err != nil {
		cn.fail(errLost)
		return resp, false, errLost
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return resp, true, errLost
		}
		return r, true, nil
	case <-ctx.Done():
		cn.mu.Lock()
		delete(cn.pending, req.ID)
		cn.mu.Unlock()
		return resp, true, ctx.Err()
	}
}

// call runs method on the server and decodes its result into out.
func (c *Client) call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", method, err)
	}
	for attempt := 0; ; attempt++ {
		cn, err := c.connection(ctx)
		if err != nil {
			return err
		}
		resp, sent, err := cn.roundTrip(ctx, request{ID: c.nextID.Add(1), Method: method, Params: raw})
		if errors.Is(err, errLost) {
			if attempt < 2 && (!sent || retrySafe(method)) {
				continue // reconnect, starting a new server if the old one is gone
			}
			return fmt.Errorf("%w during %s: it may or may not have happened — check, then run it again", errLost, method)
		}
		if err != nil {
			return err
		}
		if resp.Error != nil {
			return resp.Error.err()
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("decode %s result: %w", method, err)
		}
		return nil
	}
}

// Close closes the connection and every subscription.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cn := c.conn
	for _, cancel := range c.cancels {
		cancel()
	}
	c.mu.Unlock()
	if cn != nil {
		cn.fail(memory.ErrClosed)
	}
	c.subsWG.Wait()
	return nil
}

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error { return c.call(ctx, "Ping", struct{}{}, nil) }

func (c *Client) EnsureProject(ctx context.Context, p memory.Project) (memory.Project, error) {
	var out memory.Project
	return out, c.call(ctx, "EnsureProject", p, &out)
}

func (c *Client) Project(ctx context.Context, id string) (memory.Project, error) {
	var out memory.Project
	return out, c.call(ctx, "Project", idParams{id}, &out)
}

func (c *Client) ProjectByName(ctx context.Context, name string) (memory.Project, error) {
	var out memory.Project
	return out, c.call(ctx, "ProjectByName", idParams{name}, &out)
}

func (c *Client) Projects(ctx context.Context) ([]memory.Project, error) {
	var out []memory.Project
	return out, c.call(ctx, "Projects", struct{}{}, &out)
}

// Remember gives the memory its id here, so that a retry after a lost
// connection cannot store it twice.
func (c *Client) Remember(ctx context.Context, m *memory.Memory, by memory.Actor) (*memory.Memory, error) {
	m = m.Clone()
	if m.ID == "" {
		m.ID = memory.NewID()
	}
	return c.memory(ctx, "Remember", memParams{Memory: m, Actor: by})
}

func (c *Client) memory(ctx context.Context, method string, params any) (*memory.Memory, error) {
	var out *memory.Memory
	if err := c.call(ctx, method, params, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Client) Get(ctx context.Context, id string) (*memory.Memory, error) {
	return c.memory(ctx, "Get", idParams{id})
}

func (c *Client) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	var out string
	return out, c.call(ctx, "Resolve", idParams{idOrPrefix}, &out)
}

func (c *Client) GetByRef(ctx context.Context, project, ref string) (*memory.Memory, error) {
	return c.memory(ctx, "GetByRef", refParams{project, ref})
}

func (c *Client) History(ctx context.Context, id string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	return out, c.call(ctx, "History", idParams{id}, &out)
}

func (c *Client) Edit(ctx context.Context, id string, p memory.Patch, by memory.Actor) (*memory.Memory, error) {
	return c.memory(ctx, "Edit", editParams{id, patch(p), by})
}

func (c *Client) Supersede(ctx context.Context, oldID string, m *memory.Memory, by memory.Actor) (*memory.Memory, error) {
	m = m.Clone()
	if m.ID == "" {
		m.ID = memory.NewID()
	}
	return c.memory(ctx, "Supersede", memParams{ID: oldID, Memory: m, Actor: by})
}

func (c *Client) Archive(ctx context.Context, id, reason string, by memory.Actor) (*memory.Memory, error) {
	return c.memory(ctx, "Archive", archiveParams{id, reason, by})
}

func (c *Client) Unarchive(ctx context.Context, id string, by memory.Actor) (*memory.Memory, error) {
	return c.memory(ctx, "Unarchive", archiveParams{ID: id, Actor: by})
}

func (c *Client) Forget(ctx context.Context, id string, by memory.Actor) error {
	return c.call(ctx, "Forget", archiveParams{ID: id, Actor: by}, nil)
}

func (c *Client) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	var out memory.Page
	return out, c.call(ctx, "List", q, &out)
}

func (c *Client) Count(ctx context.Context, project string) (memory.Counts, error) {
	var out memory.Counts
	return out, c.call(ctx, "Count", idParams{project}, &out)
}

func (c *Client) Link(ctx context.Context, e memory.Edge, by memory.Actor) error {
	return c.call(ctx, "Link", linkParams{e, by}, nil)
}

func (c *Client) Edges(ctx context.Context, id string) (out, in []memory.Edge, err error) {
	var r edgesResult
	err = c.call(ctx, "Edges", idParams{id}, &r)
	return r.Out, r.In, err
}

func (c *Client) Timeline(ctx context.Context, project string, limit int) ([]memory.Event, error) {
	var out []memory.Event
	return out, c.call(ctx, "Timeline", listParams{project, limit}, &out)
}

func (c *Client) Capture(ctx context.Context, d memory.Draft) (memory.Draft, error) {
	if d.ID == "" {
		d.ID = memory.NewID()
	}
	var out memory.Draft
	return out, c.call(ctx, "Capture", d, &out)
}

func (c *Client) Drafts(ctx context.Context, project string, limit int) ([]memory.Draft, error) {
	var out []memory.Draft
	return out, c.call(ctx, "Drafts", listParams{project, limit}, &out)
}

func (c *Client) ListDrafts(ctx context.Context, q memory.DraftQuery) (memory.DraftPage, error) {
	var out memory.DraftPage
	return out, c.call(ctx, "ListDrafts", q, &out)
}

// Apply names the run here (when the caller did not), so that a retry
// after a lost connection returns the run that landed instead of applying
// it twice.
func (c *Client) Apply(ctx context.Context, run memory.Run, ops []memory.Op) (memory.Run, error) {
	if run.ID == "" {
		run.ID = memory.NewID()
	}
	var out memory.Run
	return out, c.call(ctx, "Apply", applyParams{run, ops}, &out)
}

func (c *Client) UndoRun(ctx context.Context, project, id string, by memory.Actor) (memory.Run, error) {
	var out memory.Run
	return out, c.call(ctx, "UndoRun", undoRunParams{project, id, by}, &out)
}

func (c *Client) Runs(ctx context.Context, project string, limit int) ([]memory.Run, error) {
	var out []memory.Run
	return out, c.call(ctx, "Runs", listParams{project, limit}, &out)
}

func (c *Client) PassMark(ctx context.Context, project string) (memory.PassMark, error) {
	var out memory.PassMark
	return out, c.call(ctx, "PassMark", idParams{project}, &out)
}

func (c *Client) SetPassMark(ctx context.Context, project string, m memory.PassMark) error {
	return c.call(ctx, "SetPassMark", passMarkParams{project, m}, nil)
}

func (c *Client) Proposals(ctx context.Context, project string, state memory.ProposalState) ([]memory.Proposal, error) {
	var out []memory.Proposal
	return out, c.call(ctx, "Proposals", proposalsParams{project, state}, &out)
}

func (c *Client) Proposal(ctx context.Context, id string) (memory.Proposal, error) {
	var out memory.Proposal
	return out, c.call(ctx, "Proposal", idParams{id}, &out)
}

func (c *Client) Triggered(ctx context.Context, project, text string, limit int) ([]memory.TriggerHit, error) {
	var out []memory.TriggerHit
	return out, c.call(ctx, "Triggered", triggeredParams{project, text, limit}, &out)
}

// Ingest is safe to retry (see its row in methods.go).
func (c *Client) Ingest(ctx context.Context, b memory.IngestBatch) (memory.IngestResult, error) {
	var out memory.IngestResult
	return out, c.call(ctx, "Ingest", b, &out)
}

func (c *Client) IngestState(ctx context.Context, file string) (memory.IngestState, error) {
	var out memory.IngestState
	return out, c.call(ctx, "IngestState", ingestStateParams{file}, &out)
}

func (c *Client) DropDraft(ctx context.Context, id string, by memory.Actor) error {
	return c.call(ctx, "DropDraft", archiveParams{ID: id, Actor: by}, nil)
}

// Import names the import here, so that a retry after a lost connection
// returns the result of the attempt that landed instead of importing
// again. It streams the records in chunks, and sends them all again when
// the connection is lost on the way (the server undid what it had).
func (c *Client) Import(ctx context.Context, project string, recs []memory.Record, by memory.Actor) (memory.ImportResult, error) {
	id := memory.ImportID(ctx)
	if id == "" {
		id = memory.NewID()
	}
	for attempt := 0; ; attempt++ {
		res, err := c.importStream(ctx, id, project, memory.Chunks(recs, memory.ImportChunk), by)
		if errors.Is(err, errLost) && attempt < 2 {
			continue
		}
		return res, err
	}
}

// ImportStream sends the records next hands over to the server a chunk at
// a time (see streams): the server takes a chunk while it writes the one
// before, and neither side holds the whole input.
func (c *Client) ImportStream(ctx context.Context, project string, next func() ([]memory.Record, error), by memory.Actor) (memory.ImportResult, error) {
	id := memory.ImportID(ctx)
	if id == "" {
		id = memory.NewID()
	}
	return c.importStream(ctx, id, project, next, by)
}

// errImportLost says what a connection lost during an import means: the
// server undoes an import whose input did not end.
var errImportLost = fmt.Errorf("%w during the import: nothing was imported — run it again", errLost)

func (c *Client) importStream(ctx context.Context, id, project string, next func() ([]memory.Record, error), by memory.Actor) (memory.ImportResult, error) {
	begin := importBeginParams{ID: id, Project: project, Actor: by}
	var begun importBeginResult
	if err := c.call(ctx, "ImportBegin", begin, &begun); err != nil {
		return memory.ImportResult{}, lostImport(err)
	}
	if begun.Landed != nil {
		return *begun.Landed, nil
	}
	for {
		recs, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.abortImport(id)
			return memory.ImportResult{}, err
		}
		if err := c.call(ctx, "ImportChunk", importChunkParams{ID: id, Records: recs}, nil); err != nil {
			if ctx.Err() != nil {
				c.abortImport(id)
			}
			return memory.ImportResult{}, lostImport(err)
		}
	}
	var res memory.ImportResult
	err := c.call(ctx, "ImportEnd", importEndParams{ID: id}, &res)
	if !errors.Is(err, errLost) {
		return res, err
	}
	// The answer was lost: the import landed, or was undone. A new
	// connection asks which (the server answers once the attempt is over).
	var again importBeginResult
	if err := c.call(ctx, "ImportBegin", begin, &again); err != nil {
		return memory.ImportResult{}, err
	}
	if again.Landed != nil {
		return *again.Landed, nil
	}
	c.abortImport(id)
	return memory.ImportResult{}, errImportLost
}

// lostImport turns a lost connection during an import into errImportLost.
func lostImport(err error) error {
	if errors.Is(err, errLost) {
		return errImportLost
	}
	return err
}

// abortImport tells the server to undo an import the client gives up.
// Without an answer the server undoes it anyway when the connection goes.
func (c *Client) abortImport(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.call(ctx, "ImportEnd", importEndParams{ID: id, Abort: true}, nil)
}

func (c *Client) Stats(ctx context.Context) (memory.Stats, error) {
	var out memory.Stats
	return out, c.call(ctx, "Stats", struct{}{}, &out)
}

func (c *Client) Bound(ctx context.Context, project string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	return out, c.call(ctx, "Bound", idParams{project}, &out)
}

func (c *Client) VerifyFirst(ctx context.Context, project string, now time.Time) ([]*memory.Memory, error) {
	var out []*memory.Memory
	return out, c.call(ctx, "VerifyFirst", verifyParams{project, now}, &out)
}

func (c *Client) SetWatermarks(ctx context.Context, id string, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error) {
	return c.memory(ctx, "SetWatermarks", watermarkParams{id, ws, summary, by})
}

func (c *Client) Review(ctx context.Context, id string, v memory.Verdict, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error) {
	return c.memory(ctx, "Review", reviewParams{id, v, ws, summary, by})
}

func (c *Client) Reviews(ctx context.Context, project string) ([]memory.Review, error) {
	var out []memory.Review
	return out, c.call(ctx, "Reviews", idParams{project}, &out)
}

// Feedback is written at once; the next recall reads it with the memory.
func (c *Client) Feedback(ctx context.Context, id, query string, helpful bool, by memory.Actor) error {
	return c.call(ctx, "Feedback", feedbackParams{id, query, helpful, by}, nil)
}

func (c *Client) RecordGap(ctx context.Context, project, query string, best float64) error {
	return c.call(ctx, "RecordGap", gapParams{Project: project, Query: query, Best: best}, nil)
}

func (c *Client) Gaps(ctx context.Context, project string) ([]memory.Gap, error) {
	var out []memory.Gap
	return out, c.call(ctx, "Gaps", gapParams{Project: project}, &out)
}

func (c *Client) DropGap(ctx context.Context, project, id string, by memory.Actor) error {
	return c.call(ctx, "DropGap", gapParams{Project: project, ID: id, Actor: by}, nil)
}

// Touch is sent once: a retry would count one recall twice.
func (c *Client) Touch(ctx context.Context, ids []string) error {
	return c.call(ctx, "Touch", touchParams{ids}, nil)
}

func (c *Client) LastEvent(ctx context.Context) (string, error) {
	var out string
	return out, c.call(ctx, "LastEvent", struct{}{}, &out)
}

func (c *Client) EventsSince(ctx context.Context, after string) ([]memory.Event, error) {
	var out []memory.Event
	return out, c.call(ctx, "EventsSince", sinceParams{after}, &out)
}

func (c *Client) Vectors(ctx context.Context, embedder string, hashes []string) (map[string][]float32, error) {
	var out map[string][]float32
	return out, c.call(ctx, "Vectors", vectorsParams{Embedder: embedder, Hashes: hashes}, &out)
}

func (c *Client) PutVectors(ctx context.Context, embedder string, vecs map[string][]float32) error {
	return c.call(ctx, "PutVectors", vectorsParams{Embedder: embedder, Vectors: vecs}, nil)
}

func (c *Client) DerivedOutlines(ctx context.Context, project string) (map[string]memory.Outline, error) {
	var out map[string]memory.Outline
	return out, c.call(ctx, "DerivedOutlines", derivedParams{Project: project}, &out)
}

func (c *Client) UpdateDerived(ctx context.Context, project string, u memory.DerivedUpdate, by memory.Actor) error {
	return c.call(ctx, "UpdateDerived", derivedParams{Project: project, Update: &u, Actor: by}, nil)
}

func (c *Client) DerivedFiles(ctx context.Context, project, prefix string) ([]memory.DerivedFile, error) {
	var out []memory.DerivedFile
	return out, c.call(ctx, "DerivedFiles", derivedParams{Project: project, Prefix: prefix}, &out)
}

func (c *Client) RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error) {
	var out memory.RepoSummary
	return out, c.call(ctx, "RepoSummary", derivedParams{Project: project}, &out)
}

// Recall asks the server's recall engine.
func (c *Client) Recall(ctx context.Context, req recall.Request) (recall.Response, error) {
	c.checkEmbedder(ctx)
	var out recall.Response
	return out, c.call(ctx, "Recall", req, &out)
}

// Subscribe streams events over a connection of its own. If the server
// goes away it reconnects and re-subscribes, and sends an event of kind
// "reconnect" so the consumer reloads what it may have missed.
func (c *Client) Subscribe(ctx context.Context) (<-chan memory.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return nil, memory.ErrClosed
	}
	c.cancels = append(c.cancels, cancel)
	c.subsWG.Add(1)
	c.mu.Unlock()
	first := make(chan error, 1)
	ch := make(chan memory.Event, 256)
	go func() {
		defer c.subsWG.Done()
		defer close(ch)
		ready := func(err error) { first <- err }
		for attempt := 0; ctx.Err() == nil && attempt < 100; attempt++ {
			if err := c.follow(ctx, ch, attempt > 0, ready); err != nil && attempt == 0 {
				return
			}
			ready = func(error) {}
			if attempt > 0 {
				time.Sleep(100 * time.Millisecond) // the server is restarting
			}
		}
	}()
	if err := <-first; err != nil {
		cancel()
		return nil, err
	}
	return ch, nil
}

// maxEventLine bounds one line of the event stream: an event is a few
// hundred bytes (ids, a kind, a one-line summary), so a longer line is not
// one, and reading it whole could take the workbench's memory.
const maxEventLine = 1 << 20

var errLongEvent = errors.New("an event line over the bound")

// eventLine reads one line of the event stream, at most maxEventLine
// bytes; a longer one is read to its end, dropped, and is errLongEvent.
func eventLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		part, err := r.ReadSlice('\n')
		if !long && len(line)+len(part) <= maxEventLine {
			line = append(line, part...)
		} else {
			long, line = true, nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return nil, err
		case long:
			return nil, errLongEvent
		}
		return line, nil
	}
}

// follow subscribes on a new connection and forwards events until it dies.
// ready hears nil once the server has acknowledged, or the error that
// prevented it; follow returns when the stream ends.
func (c *Client) follow(ctx context.Context, ch chan<- memory.Event, again bool, ready func(error)) (err error) {
	subscribed := false
	defer func() {
		if !subscribed {
			ready(err)
		}
	}()
	nc, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	go func() {
		<-ctx.Done()
		nc.Close()
	}()
	if err := json.NewEncoder(nc).Encode(request{ID: 1, Method: "Subscribe"}); err != nil {
		return err
	}
	r := bufio.NewReaderSize(nc, 64<<10)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return errLost
	}
	var ack response
	if err := json.Unmarshal(line, &ack); err != nil || ack.Error != nil {
		if ack.Error != nil {
			return ack.Error.err()
		}
		return fmt.Errorf("%w: bad subscription answer", errLost)
	}
	subscribed = true
	ready(nil)
	if again {
		select {
		case ch <- memory.Event{Kind: "reconnect", Actor: memory.ActorSystem}:
		default:
		}
	}
	for {
		line, err := eventLine(r)
		if errors.Is(err, errLongEvent) {
			continue // not an event: skipped, the stream goes on
		}
		if err != nil {
			return nil
		}
		var resp response
		if json.Unmarshal(line, &resp) != nil || resp.Event == nil {
			continue
		}
		select {
		case ch <- *resp.Event:
		default:
		}
	}
}
