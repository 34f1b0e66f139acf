package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"cairn/memory"
	"cairn/safetext"
	"cairn/store"
)

// Launcher starts a server for a home: Exe is the cairn binary and Args
// the arguments that make it serve (e.g. "serve", "--home", home).
type Launcher struct {
	Home string
	Exe  string
	Args []string
	Env  []string // extra environment for the server (tests shorten its idle timeout)
	// Unset are variables of the starting process the server, which
	// outlives it and serves every client, does not inherit.
	Unset []string
}

// Connect returns a client of the home's server, starting one when none
// answers. Concurrent starters agree on a single server through a lock
// file; a server that died leaves a stale socket, which the next server
// removes. Nothing is sent to a socket served by another user.
func Connect(ctx context.Context, l Launcher) (*Client, error) {
	dial := func(ctx context.Context) (net.Conn, error) { return l.dialOrStart(ctx) }
	c := NewClient(dial)
	if _, err := c.connection(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

var (
	errNotUnix = errors.New("not a Unix socket")
	// errNoServer: nobody serves the home at the moment — no socket, a
	// stale one, or a server that is shutting down and did not take the
	// connection on. Nothing was sent; starting (or waiting for) the next
	// server is safe.
	errNoServer = errors.New("no cairn server answers")
)

// helloWait bounds how long a client waits for a server's greeting.
const helloWait = 10 * time.Second

// dial connects to the server at sock. Before sending anything it checks
// that the server runs as us (a socket can be planted by another user) and
// that it has taken the connection on (its hello).
func dial(ctx context.Context, sock string) (net.Conn, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoServer, err)
	}
	uid, pid, err := peerCred(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot tell who serves %s, so nothing was sent: %w", sock, err)
	}
	if uid != os.Getuid() {
		c.Close()
		return nil, fmt.Errorf("%s is served by uid %d (pid %d), not by you: someone may be impersonating cairn, and nothing was sent — remove it (rm %s) and try again",
			sock, uid, pid, sock)
	}
	if err := readHello(c, sock, pid); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// readHello reads the server's first line. It reads a byte at a time so
// that nothing meant for the client's reader is consumed here (the server
// sends nothing else before a request, but this does not rely on it).
func readHello(c net.Conn, sock string, pid int) error {
	c.SetReadDeadline(time.Now().Add(helloWait))
	defer c.SetReadDeadline(time.Time{})
	var line []byte
	b := make([]byte, 1)
	for len(line) < 4096 {
		if _, err := c.Read(b); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("the cairn server at %s (pid %d) does not answer: if it is stuck, stop it (kill %d) and try again", sock, pid, pid)
			}
			return fmt.Errorf("%w: the server at %s closed the connection (it is shutting down)", errNoServer, sock)
		}
		if b[0] == '\n' {
			var r response
			var h hello
			if json.Unmarshal(line, &r) != nil || json.Unmarshal(r.Result, &h) != nil || h.Server != "cairn" {
				return fmt.Errorf("%s does not answer like a cairn server: remove it (rm %s) and try again", sock, sock)
			}
			return nil
		}
		line = append(line, b[0])
	}
	return fmt.Errorf("%s does not answer like a cairn server: remove it (rm %s) and try again", sock, sock)
}

// startWait bounds how long a client waits for the server it started: the
// server itself waits up to storeWait for its predecessor.
const startWait = storeWait + 15*time.Second

func (l Launcher) dialOrStart(ctx context.Context) (net.Conn, error) {
	if err := PrepareHome(l.Home); err != nil {
		return nil, err
	}
	sock, err := SocketPath(l.Home)
	if err != nil {
		return nil, err
	}
	if c, err := dial(ctx, sock); !errors.Is(err, errNoServer) {
		return c, err
	}
	unlock, err := lockFile(filepath.Join(l.Home, "serve.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Someone may have started it while we waited for the lock.
	if c, err := dial(ctx, sock); !errors.Is(err, errNoServer) {
		return c, err
	}
	// Another client may get into the server we start, leave, and let it
	// exit for idleness before we connect: then we start the next one.
	deadline := time.Now().Add(startWait)
	for {
		r, err := l.start(filepath.Join(l.Home, "server.log"))
		if err != nil {
			return nil, err
		}
		if c, err := r.await(ctx, sock, deadline); !errors.Is(err, errIdledOut) {
			return c, err
		}
	}
}

// errIdledOut: the server we started served someone else and exited.
var errIdledOut = errors.New("the cairn server exited for idleness before we connected")

// await connects to the server once it listens. It may first wait for one
// that is shutting down to release the store; until then dials find no
// server.
func (r *serverRun) await(ctx context.Context, sock string, deadline time.Time) (net.Conn, error) {
	for {
		c, err := dial(ctx, sock)
		if !errors.Is(err, errNoServer) {
			return c, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case err := <-r.exited:
			if err == nil && time.Now().Before(deadline) {
				return nil, errIdledOut
			}
			return nil, errors.New("the cairn server stopped: " + r.failure(err))
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the cairn server did not start within %s: %s", startWait, r.failure(nil))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serverRun is a server this client started.
type serverRun struct {
	exited <-chan error // its exit, so that one that stops before it listens is reported
	log    string       // its log
	from   int64        // where its lines start in the log
	home   string
}

// startingLine marks where each run begins in server.log.
const startingLine = "starting cairn serve for"

// start launches a server, its output appended to logPath.
func (l Launcher) start(logPath string) (*serverRun, error) {
	logf, from, err := OpenLog(logPath)
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return nil, diskFull(l.Home)
		}
		return nil, fmt.Errorf("open the server log: %w", err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "%s %s %s (started by pid %d)\n", time.Now().Format(time.RFC3339), startingLine, l.Home, os.Getpid())
	cmd := exec.Command(l.Exe, l.Args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(l.Unset, k)
	})
	cmd.Env = append(cmd.Env, l.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not killed with the terminal of the first client
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the cairn server: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reap it when it exits
	return &serverRun{exited: done, log: logPath, from: from, home: l.Home}, nil
}

// failure says in one line why the server did not come up: what it said
// last, or the runtime's own words when it crashed, or that the disk is
// full when it crashed or could not even log, or how it exited.
func (r *serverRun) failure(exit error) string {
	said, crash := lastWords(r.log, r.from)
	if said != "" && crash == "" {
		return said
	}
	if free, ok := freeSpace(r.home); ok && free < fullBelow {
		return diskFull(r.home).Error()
	}
	if crash != "" {
		if strings.Contains(crash, "SIGBUS") {
			crash += " — a disk that filled up does this: check free space"
		}
		return "it crashed: " + crash + " (details in " + r.log + ")"
	}
	how := "it did not answer"
	var ee *exec.ExitError
	if errors.As(exit, &ee) {
		how = "it exited (" + ee.ProcessState.String() + ")"
	} else if exit != nil {
		how = "it stopped: " + exit.Error()
	}
	return how + " and logged nothing (see " + r.log + ")"
}

// fullBelow is the free space under which a server that crashed or logged
// nothing is taken to have run out of disk: the store refuses to open or
// write with less than a few MiB left, and a full disk kills a process that
// writes through a memory map with SIGBUS.
const fullBelow = 16 << 20

func diskFull(home string) error {
	return fmt.Errorf("the disk holding %s is full: free space and retry; nothing was lost", home)
}

func freeSpace(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

// lastWords reads a server's lines in its log from offset: the last line
// it wrote (without the "cairn: " of an error) and, when the Go runtime
// killed it, the runtime's reason ("fatal error: fault [signal SIGBUS: bus
// error …]") rather than the last line of a goroutine dump.
func lastWords(path string, from int64) (said, crash string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, from, 1<<20))
	if err != nil && len(b) == 0 {
		return "", ""
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if crash == "" && (strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ")) {
			crash = l
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "[signal ") {
				crash += " " + strings.TrimSpace(lines[i+1])
			}
		}
	}
	for i := len(lines) - 1; i >= 0 && said == ""; i-- {
		if !strings.Contains(lines[i], startingLine) {
			said = strings.TrimPrefix(strings.TrimSpace(lines[i]), "cairn: ")
		}
	}
	return safetext.CleanLine(said), safetext.CleanLine(crash)
}

// lockFile takes an exclusive flock on path, waiting for it.
func lockFile(path string) (func(), error) {
	f, err := openPrivate(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("open the start lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Serve is the body of `cairn serve`: it owns the store of home and serves
// it on the home's socket until it has had no client for idle (or ctx ends).
func Serve(ctx context.Context, home string, opt store.Options, idle time.Duration) error {
	// Everything the server creates — Badger's tables and logs among them,
	// which Badger makes 0644 — is its user's alone.
	syscall.Umask(0o077)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
	if err := PrepareHome(home); err != nil {
		return err
	}
	sock, err := SocketPath(home)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := OpenStore(ctx, filepath.Join(home, "store"), opt)
	if err != nil {
		return err
	}
	// Shutting down goes in this order: stop taking clients, remove the
	// socket, stop the recall engine, release the store. A server started
	// meanwhile waits for the store (openStore), so it never finds our
	// socket, and never loses its own to our clean-up. A store whose home
	// was deleted may never close (Badger retries its last flush forever):
	// it is given a moment, then left to the exit.
	home0 := stampHome(home)
	var gone homeWatch
	defer func() {
		if !gone.homeGone {
			st.Close()
			return
		}
		closeWithin(st, goneCloseWait)
	}()
	// We hold the store, so any socket file here belongs to a dead server.
	_ = os.Remove(sock)
	old := syscall.Umask(0o077)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", sock, err)
	}
	defer os.Remove(sock)
	// The recall engine lives with the store: built in the background (a
	// recall waits for it, nothing else does), kept current from events,
	// and built for the embedder of the settings file (see liveRecall).
	live, err := newLiveRecall(ctx, st, home, os.Getenv, func(msg string) { fmt.Fprintln(os.Stderr, "cairn: "+msg) })
	if err != nil {
		ln.Close()
		return err
	}
	stopWatch := gone.start(ctx, cancel, home, home0, sock)
	err = NewServer(st, idle).WithRecall(live).WithSettings(live.Settings).Serve(ctx, ln)
	stopWatch()
	os.Remove(sock)
	cancel()
	live.Close()
	return err
}

// serverGCPercent is the server's GOGC. Most of what it holds is live
// for as long as it runs (the recall index, Badger's memtable and block
// cache), and the collector's default of 100 lets garbage (each recall's
// candidates, records read and JSON written) grow the heap to twice that
// before it collects; 50 bounds it at one and a half times, for more
// frequent collections of a heap whose largest parts hold no pointers.
const serverGCPercent = 50

// storeWait bounds how long a new server waits for the store: the server
// it replaces may still be closing it (it reached its idle timeout just as
// a client arrived), and is given this long to finish.
const storeWait = 30 * time.Second

// OpenStore opens the store, waiting while another process holds it. A
// lock can outlive its holder's Close for a moment: Badger releases its
// directory lock by closing the file, and a child forked by any goroutine
// of the holder keeps a copy of that file until it execs.
func OpenStore(ctx context.Context, dir string, opt store.Options) (*store.DB, error) {
	deadline := time.Now().Add(storeWait)
	for told := false; ; told = true {
		st, err := store.Open(dir, opt)
		if !errors.Is(err, memory.ErrLocked) || time.Now().After(deadline) {
			return st, err
		}
		if !told {
			fmt.Fprintf(os.Stderr, "waiting up to %s for the store to be released (%v)\n", storeWait, err)
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
