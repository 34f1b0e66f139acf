package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	st  memory.Store
	rec recall.Recaller // answers "Recall"; nil: recall is not served
	// settings are what the server runs with (answers "Settings"); nil:
	// the defaults.
	settings func() ServerSettings
	idle     time.Duration

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
	sess := &session{srv: s, imports: imports}
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
		if m := methods[req.Method]; m != nil && m.stream {
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
			res, err := s.answer(ctx, sess, req.Method, req.Params)
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

// WithSettings makes the server answer "Settings" with what settings says.
func (s *Server) WithSettings(settings func() ServerSettings) *Server {
	s.settings = settings
	return s
}

// answer runs one request by its row of the protocol.
func (s *Server) answer(ctx context.Context, sess *session, name string, raw json.RawMessage) (any, error) {
	m := methods[name]
	if m == nil || m.serve == nil {
		return nil, fmt.Errorf("unknown method %q: the client and server are different versions of cairn", name)
	}
	return m.serve(ctx, sess, name, raw)
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
