package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"cairn/memory"
	"cairn/recall"
)

// Server serves one store to the clients that connect to its listener.
type Server struct {
	st   memory.Store
	rec  recall.Recaller // answers "Recall"; nil: recall is not served
	idle time.Duration

	mu      sync.Mutex
	clients int
	closing bool          // the idle timeout was reached: no new client is taken on
	stop    func()        // ends Serve (set by Serve)
	changed chan struct{} // a client came or went
}

// hello is the server's first line on a connection it has taken on. A
// client that gets none knows nothing it sent was read (the server was
// shutting down) and goes to the next server without doubt.
type hello struct {
	Server string `json:"server"` // always "cairn"
	PID    int    `json:"pid"`
}

// NewServer serves st; with idle > 0, Serve returns once no client has been
// connected for that long.
func NewServer(st memory.Store, idle time.Duration) *Server {
	return &Server{st: st, idle: idle, changed: make(chan struct{}, 1)}
}

// Serve accepts connections until ctx ends, the listener fails, or the
// server has been idle for its timeout. It closes the listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	s.mu.Lock()
	s.stop = cancel
	s.mu.Unlock()
	if s.idle > 0 {
		go s.watchIdle(ctx, cancel)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !s.admit(conn) {
			conn.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.track(-1)
			s.serveConn(ctx, conn)
		}()
	}
}

// reopen ends a server whose store was opened read-only for a full disk,
// once the disk has room again: it admits nobody more and stops, and the
// next client starts a server that opens the store read-write. Nothing is
// lost by cutting the other clients off: a read-only store has no write in
// flight, and clients retry reads on the next server.
func (s *Server) reopen() {
	s.mu.Lock()
	s.closing = true
	stop := s.stop
	s.mu.Unlock()
	fmt.Fprintln(os.Stderr, "cairn: the disk has room again: stopping so that the next server opens the store read-write")
	if stop != nil {
		stop()
	}
}

// admit takes a new connection on, or refuses it: one from another user
// (a socket's permissions are the first guard, the peer's uid the last),
// or any once the server has decided to exit for idleness, so that a
// client is either served to the end or told at once to go elsewhere.
func (s *Server) admit(conn net.Conn) bool {
	if uid, pid, err := peerCred(conn); err != nil || uid != os.Getuid() {
		fmt.Fprintf(os.Stderr, "cairn: refused a connection from uid %d (pid %d): the store is served to its owner only\n", uid, pid)
		return false
	}
	s.mu.Lock()
	ok := !s.closing
	if ok {
		s.clients++ // in the same step as the check: see watchIdle
	}
	s.mu.Unlock()
	if ok {
		s.notify()
	}
	return ok
}

func (s *Server) track(d int) {
	s.mu.Lock()
	s.clients += d
	s.mu.Unlock()
	s.notify()
}

func (s *Server) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// firstClientWait is the least a server waits for its first client: the
// client that started it connects once it listens, however short the idle
// timeout.
const firstClientWait = 5 * time.Second

// watchIdle cancels the server once it has had no client for s.idle.
func (s *Server) watchIdle(ctx context.Context, stop func()) {
	t := time.NewTimer(max(s.idle, firstClientWait))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
			s.mu.Lock()
			n := s.clients
			s.mu.Unlock()
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
			if n == 0 {
				t.Reset(s.idle)
			}
		case <-t.C:
			s.mu.Lock()
			s.closing = s.clients == 0
			closing := s.closing
			s.mu.Unlock()
			if closing {
				stop()
				return
			}
		}
	}
}

// serveConn answers one client's requests; each runs in its own goroutine
// so a slow import does not hold up a quick get.
func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	var wmu sync.Mutex
	enc := json.NewEncoder(conn)
	send := func(r response) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = enc.Encode(r)
	}
	var wg sync.WaitGroup
	imports := newStreams(ctx, s.st)
	defer func() {
		cancel() // ends subscriptions, which wait for the context, and undoes unfinished imports
		wg.Wait()
		imports.wait()
	}()
	greeting, _ := json.Marshal(hello{Server: "cairn", PID: os.Getpid()})
	send(response{Result: greeting})
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			send(response{Error: &wireError{Kind: "invalid", Message: "malformed request: " + err.Error(), Index: -1}})
			return
		}
		if req.Method == "Subscribe" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.subscribe(ctx, req.ID, send)
			}()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res any
			var err error
			if imports.serves(req.Method) {
				res, err = imports.call(req.Method, req.Params)
			} else {
				res, err = s.call(ctx, req.Method, req.Params)
			}
			out := response{ID: req.ID}
			if err != nil {
				out.Error = toWire(err)
			} else if out.Result, err = json.Marshal(res); err != nil {
				out.Error = toWire(err)
			}
			send(out)
			if errors.Is(err, memory.ErrRoomAgain) {
				s.reopen()
			}
		}()
	}
}

func (s *Server) subscribe(ctx context.Context, id uint64, send func(response)) {
	ch, err := s.st.Subscribe(ctx)
	if err != nil {
		send(response{ID: id, Error: toWire(err)})
		return
	}
	send(response{ID: id, Result: json.RawMessage("true")})
	for e := range ch {
		e := e
		send(response{Event: &e})
	}
}

// WithRecall makes the server answer recalls with r.
func (s *Server) WithRecall(r recall.Recaller) *Server {
	s.rec = r
	return s
}

// call runs one method against the store.
func (s *Server) call(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	if method == "Recall" {
		if s.rec == nil {
			return nil, fmt.Errorf("this cairn server does not answer recalls")
		}
		var req recall.Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, &remoteError{memory.ErrInvalid, "malformed Recall request: " + err.Error()}
		}
		return s.rec.Recall(ctx, req)
	}
	if method == "Settings" {
		if r, ok := s.rec.(interface{ Settings() ServerSettings }); ok {
			return r.Settings(), nil
		}
		return ServerSettings{}, nil
	}
	h, ok := handlers[method]
	if !ok {
		return nil, fmt.Errorf("unknown method %q: the client and server are different versions of cairn", method)
	}
	return h(ctx, s.st, method, raw)
}

type handler func(ctx context.Context, st memory.Store, method string, raw json.RawMessage) (any, error)

// with decodes the parameters into P and calls fn.
func with[P any](fn func(ctx context.Context, st memory.Store, p P) (any, error)) handler {
	return func(ctx context.Context, st memory.Store, method string, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &p); err != nil {
				var ute *json.UnmarshalTypeError
				if errors.As(err, &ute) || errors.Is(err, io.ErrUnexpectedEOF) {
					return nil, &remoteError{memory.ErrInvalid, "malformed " + method + " request: " + err.Error()}
				}
				return nil, &remoteError{memory.ErrInvalid, err.Error()}
			}
		}
		return fn(ctx, st, p)
	}
}

var errNoMemory = errors.New("request has no memory")

var handlers = map[string]handler{
	"EnsureProject": with(func(ctx context.Context, st memory.Store, p memory.Project) (any, error) {
		return st.EnsureProject(ctx, p)
	}),
	"Project": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Project(ctx, p.ID) }),
	"ProjectByName": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) {
		return st.ProjectByName(ctx, p.ID)
	}),
	"Projects": with(func(ctx context.Context, st memory.Store, _ struct{}) (any, error) { return st.Projects(ctx) }),
	"Remember": with(func(ctx context.Context, st memory.Store, p memParams) (any, error) {
		if p.Memory == nil {
			return nil, errNoMemory
		}
		return st.Remember(ctx, p.Memory, p.Actor)
	}),
	"Get":     with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Get(ctx, p.ID) }),
	"Resolve": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Resolve(ctx, p.ID) }),
	"GetByRef": with(func(ctx context.Context, st memory.Store, p refParams) (any, error) {
		return st.GetByRef(ctx, p.Project, p.Ref)
	}),
	"History": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.History(ctx, p.ID) }),
	"Edit": with(func(ctx context.Context, st memory.Store, p editParams) (any, error) {
		return st.Edit(ctx, p.ID, memory.Patch(p.Patch), p.Actor)
	}),
	"Supersede": with(func(ctx context.Context, st memory.Store, p memParams) (any, error) {
		if p.Memory == nil {
			return nil, errNoMemory
		}
		return st.Supersede(ctx, p.ID, p.Memory, p.Actor)
	}),
	"Archive": with(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return st.Archive(ctx, p.ID, p.Reason, p.Actor)
	}),
	"Unarchive": with(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return st.Unarchive(ctx, p.ID, p.Actor)
	}),
	"Forget": with(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return true, st.Forget(ctx, p.ID, p.Actor)
	}),
	"List":  with(func(ctx context.Context, st memory.Store, q memory.Query) (any, error) { return st.List(ctx, q) }),
	"Count": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Count(ctx, p.ID) }),
	"Link": with(func(ctx context.Context, st memory.Store, p linkParams) (any, error) {
		return true, st.Link(ctx, p.Edge, p.Actor)
	}),
	"Edges": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) {
		out, in, err := st.Edges(ctx, p.ID)
		return edgesResult{out, in}, err
	}),
	"Timeline": with(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Timeline(ctx, p.Project, p.Limit)
	}),
	"Capture": with(func(ctx context.Context, st memory.Store, d memory.Draft) (any, error) { return st.Capture(ctx, d) }),
	"Drafts": with(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Drafts(ctx, p.Project, p.Limit)
	}),
	"ListDrafts": with(func(ctx context.Context, st memory.Store, q memory.DraftQuery) (any, error) {
		return st.ListDrafts(ctx, q)
	}),
	"Apply": with(func(ctx context.Context, st memory.Store, p applyParams) (any, error) {
		return st.Apply(ctx, p.Run, p.Ops)
	}),
	"UndoRun": with(func(ctx context.Context, st memory.Store, p undoRunParams) (any, error) {
		return st.UndoRun(ctx, p.Project, p.ID, p.Actor)
	}),
	"Runs": with(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Runs(ctx, p.Project, p.Limit)
	}),
	"PassMark": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.PassMark(ctx, p.ID) }),
	"SetPassMark": with(func(ctx context.Context, st memory.Store, p passMarkParams) (any, error) {
		return true, st.SetPassMark(ctx, p.Project, p.Mark)
	}),
	"Proposals": with(func(ctx context.Context, st memory.Store, p proposalsParams) (any, error) {
		return st.Proposals(ctx, p.Project, p.State)
	}),
	"Proposal": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Proposal(ctx, p.ID) }),
	"Triggered": with(func(ctx context.Context, st memory.Store, p triggeredParams) (any, error) {
		return st.Triggered(ctx, p.Project, p.Text, p.Limit)
	}),
	"Feedback": with(func(ctx context.Context, st memory.Store, p feedbackParams) (any, error) {
		return true, st.Feedback(ctx, p.ID, p.Query, p.Helpful, p.Actor)
	}),
	"RecordGap": with(func(ctx context.Context, st memory.Store, p gapParams) (any, error) {
		return true, st.RecordGap(ctx, p.Project, p.Query, p.Best)
	}),
	"Gaps": with(func(ctx context.Context, st memory.Store, p gapParams) (any, error) { return st.Gaps(ctx, p.Project) }),
	"DropGap": with(func(ctx context.Context, st memory.Store, p gapParams) (any, error) {
		return true, st.DropGap(ctx, p.Project, p.ID, p.Actor)
	}),
	"DerivedOutlines": with(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.DerivedOutlines(ctx, p.Project)
	}),
	"UpdateDerived": with(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		if p.Update == nil {
			return nil, &remoteError{memory.ErrInvalid, "UpdateDerived request has no update"}
		}
		return true, st.UpdateDerived(ctx, p.Project, *p.Update, p.Actor)
	}),
	"DerivedFiles": with(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.DerivedFiles(ctx, p.Project, p.Prefix)
	}),
	"RepoSummary": with(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.RepoSummary(ctx, p.Project)
	}),
	"Ingest": with(func(ctx context.Context, st memory.Store, p memory.IngestBatch) (any, error) {
		return st.Ingest(ctx, p)
	}),
	"IngestState": with(func(ctx context.Context, st memory.Store, p ingestStateParams) (any, error) {
		return st.IngestState(ctx, p.File)
	}),
	"DropDraft": with(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return true, st.DropDraft(ctx, p.ID, p.Actor)
	}),
	"Stats": with(func(ctx context.Context, st memory.Store, _ struct{}) (any, error) { return st.Stats(ctx) }),
	"Bound": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Bound(ctx, p.ID) }),
	"VerifyFirst": with(func(ctx context.Context, st memory.Store, p verifyParams) (any, error) {
		return st.VerifyFirst(ctx, p.Project, p.Now)
	}),
	"SetWatermarks": with(func(ctx context.Context, st memory.Store, p watermarkParams) (any, error) {
		return st.SetWatermarks(ctx, p.ID, p.Watermarks, p.Summary, p.Actor)
	}),
	"Review": with(func(ctx context.Context, st memory.Store, p reviewParams) (any, error) {
		return st.Review(ctx, p.ID, p.Verdict, p.Watermarks, p.Summary, p.Actor)
	}),
	"Reviews": with(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return st.Reviews(ctx, p.ID) }),
	"Ping":    with(func(ctx context.Context, st memory.Store, _ struct{}) (any, error) { return "pong", nil }),
}

// goneCloseWait is how long a server whose home was removed waits for its
// store to close before it exits without it.
const goneCloseWait = 5 * time.Second

// closeWithin closes st, giving up after wait.
func closeWithin(st interface{ Close() error }, wait time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.Close()
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		fmt.Fprintln(os.Stderr, "cairn: the store cannot be closed, its directory is gone: exiting without it")
	}
}

// homeCheck is how often a server looks whether its home and socket are
// still there: a stat each, not a spin.
const homeCheck = time.Second

// homeWatch ends a server whose home (or socket) was removed from under
// it: nothing it keeps could be found again, no client could reach it, and
// a store whose directory is gone never closes.
type homeWatch struct {
	homeGone bool // set once start's stop returns: the home was removed
}

// inode identifies a file by device and inode (zero: none).
type inode struct{ dev, ino uint64 }

func stampHome(path string) inode {
	fi, err := os.Stat(path)
	if err != nil {
		return inode{}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return inode{uint64(st.Dev), uint64(st.Ino)}
	}
	return inode{}
}

func stampSock(path string) inode {
	fi, err := os.Lstat(path)
	if err != nil {
		return inode{}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return inode{uint64(st.Dev), uint64(st.Ino)}
	}
	return inode{}
}

// start watches home (as it was when the server began: home0) and sock
// until ctx ends or the returned stop is called; when either is removed or
// replaced it says so on stderr and calls cancel. After stop returns,
// w.homeGone is final.
func (w *homeWatch) start(ctx context.Context, cancel func(), home string, home0 inode, sock string) (stop func()) {
	sock0 := stampSock(sock)
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(homeCheck)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
			}
			switch {
			case home0 != (inode{}) && stampHome(home) != home0:
				w.homeGone = true
				fmt.Fprintf(os.Stderr, "cairn: the home %s was removed: stopping (nothing more can be kept there)\n", home)
			case sock0 != (inode{}) && stampSock(sock) != sock0:
				fmt.Fprintf(os.Stderr, "cairn: the socket %s was removed: stopping (no client can reach this server; the next one starts another)\n", sock)
			default:
				continue
			}
			cancel()
			return
		}
	}()
	return func() {
		wcancel()
		<-done
	}
}
