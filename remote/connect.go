package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"cairn/recall"
	"cairn/store"
)

// SocketPath is where the server of a cairn home listens. Unix socket paths
// are limited to about 100 bytes; a longer home gets a socket in a private
// directory under the system temp dir, named after the home.
func SocketPath(home string) string {
	p := filepath.Join(home, "cairn.sock")
	if len(p) < 100 {
		return p
	}
	h := sha256.Sum256([]byte(home))
	return filepath.Join(os.TempDir(), fmt.Sprintf("cairn-%d", os.Getuid()), hex.EncodeToString(h[:8])+".sock")
}

// Launcher starts a server for a home: Exe is the cairn binary and Args
// the arguments that make it serve (e.g. "serve", "--home", home).
type Launcher struct {
	Home string
	Exe  string
	Args []string
	Env  []string // extra environment for the server (tests shorten its idle timeout)
}

// Connect returns a client of the home's server, starting one when none
// answers. Concurrent starters agree on a single server through a lock
// file; a server that died leaves a stale socket, which is removed first.
func Connect(ctx context.Context, l Launcher) (*Client, error) {
	dial := func(ctx context.Context) (net.Conn, error) { return l.dialOrStart(ctx) }
	c := NewClient(dial)
	if _, err := c.connection(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func dial(sock string) (net.Conn, error) {
	return net.DialTimeout("unix", sock, 2*time.Second)
}

func (l Launcher) dialOrStart(ctx context.Context) (net.Conn, error) {
	sock := SocketPath(l.Home)
	if c, err := dial(sock); err == nil {
		return c, nil
	}
	if err := os.MkdirAll(l.Home, 0o700); err != nil {
		return nil, fmt.Errorf("create cairn home: %w", err)
	}
	unlock, err := lockFile(filepath.Join(l.Home, "serve.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Someone may have started it while we waited for the lock.
	if c, err := dial(sock); err == nil {
		return c, nil
	}
	logPath := filepath.Join(l.Home, "server.log")
	exited, err := l.start(logPath)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := dial(sock)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the cairn server did not start: %s", lastLine(logPath, "no answer on "+sock))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case err := <-exited:
			return nil, errors.New("the cairn server stopped: " + lastLine(logPath, fmt.Sprint(err)))
		default:
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// start launches a server; the channel yields its exit, so that a server
// that stops before it listens is reported rather than waited for.
func (l Launcher) start(logPath string) (<-chan error, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(l.Exe, l.Args...)
	cmd.Env = append(os.Environ(), l.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not killed with the terminal of the first client
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the cairn server: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reap it when it exits
	return done, nil
}

func lastLine(path, fallback string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fallback
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return strings.TrimPrefix(l, "cairn: ")
	}
	return fallback
}

// lockFile takes an exclusive flock on path, waiting for it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
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
	st, err := store.Open(filepath.Join(home, "store"), opt)
	if err != nil {
		return err
	}
	defer st.Close()
	sock := SocketPath(home)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return err
	}
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
	// recall waits for it, nothing else does) and kept current from events.
	engine := recall.NewEngine(st, recall.Configured(os.Getenv, func(msg string) { fmt.Fprintln(os.Stderr, "cairn: "+msg) }))
	events, err := st.Subscribe(ctx)
	if err != nil {
		return err
	}
	go engine.Follow(ctx, events)
	go engine.Build(ctx)
	return NewServer(st, idle).WithRecall(engine).Serve(ctx, ln)
}
