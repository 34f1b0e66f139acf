package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// dropFirst is a client connection that loses itself, once, when the
// server's answer containing match arrives: the request was carried out
// but its answer never reaches the client.
type dropFirst struct {
	net.Conn
	match   string
	dropped *atomic.Bool
}

func (d *dropFirst) Read(p []byte) (int, error) {
	n, err := d.Conn.Read(p)
	if n > 0 && strings.Contains(string(p[:n]), d.match) && d.dropped.CompareAndSwap(false, true) {
		d.Conn.Close()
		return 0, io.EOF
	}
	return n, err
}

// An import whose answer was lost is sent again by the client; the answer
// to the retry is what the import that landed did, not "all unchanged".
func TestRemoteImportRetryReportsWhatLanded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
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
	t.Cleanup(func() { cancel(); <-done })
	var dropped atomic.Bool
	c := NewClient(func(ctx context.Context) (net.Conn, error) {
		cn, err := net.Dial("unix", sock)
		if err != nil {
			return nil, err
		}
		return &dropFirst{Conn: cn, match: `"added"`, dropped: &dropped}, nil
	})
	t.Cleanup(func() { c.Close() })

	var recs []memory.Record
	for i := range 3 {
		recs = append(recs, memory.Record{Layer: memory.LayerState, Body: fmt.Sprintf("fact %d", i)})
	}
	res, err := c.Import(ctx, pid, recs, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if !dropped.Load() {
		t.Fatal("the first answer was not lost: the test proves nothing")
	}
	if res.Added != 3 || res.Unchanged != 0 || len(res.New) != 3 {
		t.Fatalf("the retry reports %+v; the import that landed added 3", res)
	}
	for _, a := range res.New {
		m, err := db.Get(ctx, a.ID)
		if err != nil || m.Body != recs[a.Record].Body {
			t.Fatalf("reported new memory %+v: %v %v", a, m, err)
		}
	}
	evs, _ := db.Timeline(ctx, pid, 10)
	if len(evs) != 1 || evs[0].Kind != memory.EventImport {
		t.Fatalf("timeline after the retried import: %+v", evs)
	}
}

// diskFullErr is an error of kind ErrDiskFull, as the store returns one.
type diskFullErr struct{ msg string }

func (e diskFullErr) Error() string { return e.msg }
func (e diskFullErr) Unwrap() error { return memory.ErrDiskFull }

// A full disk crosses the wire as itself, so the client says the same line
// and exits the same way as against a local store.
func TestRemoteCarriesDiskFull(t *testing.T) {
	t.Parallel()
	err := diskFullErr{"the disk holding /x is full: free space and retry; nothing was lost"}
	got := toWire(err).err()
	if !errors.Is(got, memory.ErrDiskFull) || got.Error() != err.Error() {
		t.Fatalf("over the wire: %v (disk full: %v)", got, errors.Is(got, memory.ErrDiskFull))
	}
}
