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

func streamRecords(n int) []memory.Record {
	recs := make([]memory.Record, n)
	for i := range recs {
		recs[i] = memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("streamed fact %d about the build", i)}
	}
	return recs
}

// settled waits for the store's imports to be over (an import that lost
// its connection is being undone) by running an empty one, which waits
// its turn, then counts the project's memories.
func settled(t *testing.T, db *store.DB) int {
	t.Helper()
	if _, err := db.Import(ctx, pid, nil, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	c, err := db.Count(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	return c.Total(memory.StatusActive)
}

// An import streams to the server in chunks; what fails on either side,
// early or late, leaves the store as it was, and the connection serves on.
func TestRemoteImportStreams(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	// Five chunks, the failures in the last: what matters is that chunks
	// were written before it, not their size (chunks of 1,000 records
	// took the race detector five times as long for the same steps).
	const chunk = 200
	recs := streamRecords(5 * chunk)

	badSource := errors.New("line 801: malformed JSON")
	chunks := memory.Chunks(recs, chunk)
	sent := 0
	_, err := c.ImportStream(ctx, pid, func() ([]memory.Record, error) {
		if sent == 4 {
			return nil, badSource
		}
		sent++
		return chunks()
	}, memory.ActorUser)
	if !errors.Is(err, badSource) || settled(t, db) != 0 {
		t.Fatalf("a source failing late: err %v, store changed", err)
	}

	secret := streamRecords(5 * chunk)
	late := 4*chunk + chunk/2
	secret[late].Body = "token: ghp_" + strings.Repeat("aB3", 12)
	_, err = c.ImportStream(ctx, pid, memory.Chunks(secret, chunk), memory.ActorUser)
	var ie *memory.ImportError
	if !errors.As(err, &ie) || ie.Index != late || !errors.Is(err, memory.ErrSecret) || settled(t, db) != 0 {
		t.Fatalf("a secret in a late chunk: err %v, store changed", err)
	}

	res, err := c.ImportStream(ctx, pid, memory.Chunks(recs, chunk), memory.ActorUser)
	if err != nil || res.Added != len(recs) || len(res.New) != len(recs) || settled(t, db) != len(recs) {
		t.Fatalf("streamed import: %+v %v", res.Added, err)
	}
}

// dropAt is a client connection that loses itself, once, when the
// server's answer to the n-th chunk arrives.
type dropAt struct {
	net.Conn
	n, seen *atomic.Int32
}

func (d *dropAt) Read(p []byte) (int, error) {
	n, err := d.Conn.Read(p)
	if k := int32(strings.Count(string(p[:n]), `"result":true`)); k > 0 && d.seen.Add(k) >= d.n.Load() && d.n.Load() > 0 {
		d.n.Store(0)
		d.Conn.Close()
		return 0, io.EOF
	}
	return n, err
}

// A connection lost half way through an import: the server undoes what
// it wrote; a stream says nothing was imported, and Import, which holds
// its records, sends them all again, once.
func TestRemoteImportLostHalfWay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	var at, seen atomic.Int32
	sock := filepath.Join(dir, "s.sock")
	_, stop := serveDB(t, db, sock)
	c := NewClient(func(ctx context.Context) (net.Conn, error) {
		cn, err := net.Dial("unix", sock)
		if err != nil {
			return nil, err
		}
		return &dropAt{Conn: cn, n: &at, seen: &seen}, nil
	})
	t.Cleanup(func() {
		c.Close()
		stop()
		db.Close()
	})
	// Import sends chunks of memory.ImportChunk records and is lost at the
	// third answer, so it needs three; the stream is lost at its third of
	// six chunks, whose size does not matter (a sixth of that is enough).
	recs := streamRecords(3 * memory.ImportChunk)

	at.Store(3)
	_, err = c.ImportStream(ctx, pid, memory.Chunks(recs[:len(recs)/6], len(recs)/36), memory.ActorUser)
	if !errors.Is(err, errLost) || !strings.Contains(err.Error(), "nothing was imported") || settled(t, db) != 0 {
		t.Fatalf("stream lost half way: %v", err)
	}

	seen.Store(0)
	at.Store(3)
	res, err := c.Import(ctx, pid, recs, memory.ActorUser)
	if err != nil || res.Added != len(recs) || at.Load() != 0 || settled(t, db) != len(recs) {
		t.Fatalf("import lost half way and sent again: %+v %v", res.Added, err)
	}
}
