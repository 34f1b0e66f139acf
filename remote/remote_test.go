package remote

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

var ctx = context.Background()

const pid = "00000000000000aa"

// serve runs a real server over a real store in a temp dir and returns a
// client of it; stop ends the server.
func serve(t *testing.T) (c *Client, db *store.DB, stop func()) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, stop = serveDB(t, db, filepath.Join(dir, "s.sock"))
	t.Cleanup(func() {
		c.Close()
		stop()
		db.Close()
	})
	if _, err := c.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	return c, db, stop
}

func TestRemoteBehavesLikeLocal(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	m, err := c.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerDecision, Body: "parked MTP", Tags: []string{"perf"}}, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	local, err := db.Get(ctx, m.ID)
	if err != nil || local.Body != "parked MTP" {
		t.Fatalf("the write did not reach the store: %v", err)
	}
	got, err := c.Get(ctx, m.ID)
	if err != nil || got.Layer != memory.LayerDecision || got.Tags[0] != "perf" {
		t.Fatalf("get: %+v %v", got, err)
	}
	n, err := c.Supersede(ctx, m.ID, &memory.Memory{Body: "resumed MTP"}, memory.ActorUser)
	if err != nil || n.Supersedes[0] != m.ID {
		t.Fatalf("supersede: %+v %v", n, err)
	}
	page, err := c.List(ctx, memory.Query{Project: pid, Status: memory.StatusAny})
	if err != nil || len(page.Memories) != 2 {
		t.Fatalf("list: %v %v", page, err)
	}
	cnt, err := c.Count(ctx, pid)
	if err != nil || cnt.Active(memory.LayerDecision) != 1 || cnt.Total(memory.StatusSuperseded) != 1 {
		t.Fatalf("count: %+v %v", cnt, err)
	}
	out, in, err := c.Edges(ctx, m.ID)
	if err != nil || len(out) != 0 || len(in) != 1 {
		t.Fatalf("edges: %v %v %v", out, in, err)
	}
	body := "resumed MTP after bench #42"
	if e, err := c.Edit(ctx, n.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil || e.Version != 2 {
		t.Fatalf("edit: %+v %v", e, err)
	}
	if _, err := c.Archive(ctx, n.ID, "done", memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	evs, err := c.Timeline(ctx, pid, 10)
	if err != nil || evs[0].Kind != memory.EventArchive || evs[0].Actor != memory.ActorAgent {
		t.Fatalf("timeline: %+v %v", evs, err)
	}
	if err := c.Forget(ctx, m.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	res, err := c.Import(ctx, pid, []memory.Record{{Layer: 'A', Body: "never commit .env"}}, memory.ActorUser)
	if err != nil || res.Added != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
}

func TestRemoteCarriesErrorKinds(t *testing.T) {
	t.Parallel()
	c, _, _ := serve(t)
	_, err := c.Get(ctx, "01JD0000000000000000000ZZZ")
	if !errors.Is(err, memory.ErrNotFound) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("not found: %v", err)
	}
	_, err = c.Remember(ctx, &memory.Memory{Project: pid, Layer: 'A', Body: "key AKIA" + "IOSFODNN7EXAMPLQ"}, memory.ActorAgent)
	if !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("secret: %v", err)
	}
	_, err = c.Remember(ctx, &memory.Memory{Project: pid, Layer: 'Z', Body: "x"}, memory.ActorAgent)
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "layer") {
		t.Fatalf("invalid: %v", err)
	}
	for _, id := range []string{"01JD0000000000000000000001", "01JD0000000000000000000002"} {
		if _, err := c.Remember(ctx, &memory.Memory{ID: id, Project: pid, Layer: 'B', Body: "memory " + id}, memory.ActorAgent); err != nil {
			t.Fatal(err)
		}
	}
	// Ambiguity crosses the wire as itself (memory.ShortIDsIn relies on it).
	_, err = c.Resolve(ctx, "01JD00000000")
	if !errors.Is(err, memory.ErrAmbiguous) || !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "01JD0000000000000000000001, 01JD0000000000000000000002") {
		t.Fatalf("ambiguous: %v", err)
	}
	_, err = c.Import(ctx, pid, []memory.Record{{Layer: 'A', Body: "ok"}, {Layer: 'A'}}, memory.ActorUser)
	var ie *memory.ImportError
	if !errors.As(err, &ie) || ie.Index != 1 || !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("import error: %#v", err)
	}
}

func TestRemoteRememberRetryIsIdempotent(t *testing.T) {
	t.Parallel()
	c, _, _ := serve(t)
	m := &memory.Memory{ID: memory.NewID(), Project: pid, Layer: 'B', Body: "release v1 is out"}
	a, err := c.Remember(ctx, m, memory.ActorAgent)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Remember(ctx, m, memory.ActorAgent) // as a retry after a lost connection sends it
	if err != nil || b.ID != a.ID || !b.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("retry: %+v %v", b, err)
	}
	page, _ := c.List(ctx, memory.Query{Project: pid})
	if len(page.Memories) != 1 {
		t.Fatalf("retry stored a copy: %d", len(page.Memories))
	}
	m.Body = "something else"
	if _, err := c.Remember(ctx, m, memory.ActorAgent); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("reused id with other content: %v", err)
	}
}

func TestRemoteSubscribeSeesOtherWriters(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	sub, err := c.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 100)
	go func() {
		for e := range sub {
			seen <- e.MemoryID
		}
		close(seen)
	}()
	// Another writer (here: the owner itself) writes until the subscriber hears it.
	deadline := time.After(5 * time.Second)
	var m *memory.Memory
	for heard := false; !heard; {
		m, err = db.Remember(ctx, &memory.Memory{Project: pid, Layer: 'C', Body: "deployed"}, memory.ActorAgent)
		if err != nil {
			t.Fatal(err)
		}
		for wait := true; wait; {
			select {
			case id := <-seen:
				heard = id == m.ID
				wait = !heard
			case <-time.After(100 * time.Millisecond):
				wait = false
			case <-deadline:
				t.Fatal("no event reached the subscriber")
			}
		}
	}
	c.Close()
	for range seen { // the stream ends when the client closes
	}
}

func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				m, err := c.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.Layers[(w+i)%6], Body: "concurrent write"}, memory.ActorAgent)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ids = append(ids, m.ID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if _, err := db.Get(ctx, id); err != nil {
			t.Fatalf("lost %s", id)
		}
	}
	if len(ids) != 200 {
		t.Fatalf("%d writes acknowledged", len(ids))
	}
}

func TestServerExitsWhenIdle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ln, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- NewServer(db, 100*time.Millisecond).Serve(ctx, ln) }()
	conn, err := net.Dial("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("server exited while a client was connected")
	case <-time.After(300 * time.Millisecond):
	}
	conn.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit after its last client left")
	}
}

// serveDB serves db on a socket at sock and returns a client and a stop.
func serveDB(t testing.TB, db *store.DB, sock string) (*Client, func()) {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		NewServer(db, 0).Serve(sctx, ln)
		close(done)
	}()
	c := NewClient(func(ctx context.Context) (net.Conn, error) { return net.Dial("unix", sock) })
	return c, func() {
		cancel()
		<-done
	}
}
