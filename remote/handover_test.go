package remote

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

type connected struct {
	c   *Client
	err error
}

// A client that arrives while the old server is shutting down (its socket
// already gone, the store not yet released) starts the next server, which
// waits for the store instead of failing with "store is in use".
//
// The test holds the store itself, as the closing server does, and lets
// go only once the new server has said it is waiting; before the fix the
// new server gave up at once and the client failed.
func TestClientArrivingDuringShutdownGetsTheNextServer(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	old, err := store.Open(filepath.Join(home, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan connected, 1)
	go func() {
		c, err := Connect(ctx, launcher(t, home, "serve"))
		done <- connected{c, err}
	}()
	// Wait for whichever comes first: the new server waiting for the
	// store, or the client giving up.
	log := filepath.Join(home, "server.log")
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if strings.Contains(string(b), "waiting up to") {
			break
		}
		select {
		case r := <-done:
			if r.err == nil {
				r.c.Close()
			}
			t.Fatalf("a client that arrived while the old server held the store: %v", r.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new server never waited for the store; its log: %q", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := old.Close(); err != nil { // the old server finishes shutting down
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("after the old server let go: %v", r.err)
	}
	stopServer(t, home)
	defer r.c.Close()
	if _, err := r.c.Remember(ctx, &memory.Memory{Project: pid, Layer: 'B', Body: "handed over"}, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
}

// A connection that reaches a server which has already decided to exit is
// closed before the server greets it, so the client knows nothing it sent
// was read and goes to the next server, instead of losing a call halfway.
func TestConnectionRefusedWhileClosingIsNotAFailedCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(db, 0)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	c, err := dial(ctx, sock)
	if err != nil {
		t.Fatalf("a serving server: %v", err)
	}
	c.Close()
	s.mu.Lock()
	s.closing = true // as watchIdle decides when the idle timeout is reached
	s.mu.Unlock()
	if c, err := dial(ctx, sock); !errors.Is(err, errNoServer) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("a closing server's connection: %v, want errNoServer", err)
	}
}

// The server decides to exit for idleness and takes no new client in one
// step: a client that arrives just as the last one leaves is either served
// to the end or turned away before anything is read, never cut off.
func TestIdleExitNeverDropsAnAdmittedClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sock := filepath.Join(dir, "s.sock")
	turnedAway := 0
	for i := range 300 {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- NewServer(db, time.Nanosecond).Serve(ctx, ln) }()
		first, err := dial(ctx, sock)
		if err != nil {
			t.Fatal(err)
		}
		first.Close() // the last client leaves: the server exits at once
		c, err := dial(ctx, sock)
		if errors.Is(err, errNoServer) {
			turnedAway++
			<-done // it was closing: this client would start the next server
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// Greeted: the server must answer, however close to its timeout.
		cl := NewClient(func(context.Context) (net.Conn, error) { return c, nil })
		if err := cl.Ping(ctx); err != nil {
			t.Fatalf("round %d: a greeted client lost its server: %v", i, err)
		}
		cl.Close()
		<-done
	}
	t.Logf("%d of 300 late clients were turned away before anything was read; the rest were served", turnedAway)
}
