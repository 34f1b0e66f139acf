package remote

import (
	"context"
	"fmt"
	"io"
	"sync"

	"cairn/memory"
)

// streams are the imports under way on one connection, by import id. An
// import streams its records: ImportBegin starts it (or answers with the
// result of the import of that id that already landed), each ImportChunk
// hands it a chunk, answered once the import has taken the chunk (so a
// client has a chunk or two in flight, never the whole file), and
// ImportEnd ends the input and answers with the result. An import is
// undone when the client aborts it, when it fails (the answer to the next
// chunk or to the end says why) and when the connection goes: an import
// lands only after its ImportEnd.
type streams struct {
	ctx context.Context // the connection's
	st  memory.Store
	wg  sync.WaitGroup // running imports

	mu sync.Mutex
	m  map[string]*stream
}

type stream struct {
	mu     sync.Mutex           // held while handing over a chunk, and to close chunks
	chunks chan []memory.Record // closed by ImportEnd: the input is over
	asked  chan struct{}        // closed when the import asks for its first chunk
	done   chan struct{}        // closed when the import has returned
	closed bool
	cancel context.CancelFunc
	res    memory.ImportResult
	err    error
}

func newStreams(ctx context.Context, st memory.Store) *streams {
	return &streams{ctx: ctx, st: st, m: map[string]*stream{}}
}

// wait waits for the imports of a connection that is closing (the
// connection's context is done, so they are being undone).
func (ss *streams) wait() { ss.wg.Wait() }

func (ss *streams) begin(p importBeginParams) (importBeginResult, error) {
	ctx, cancel := context.WithCancel(ss.ctx)
	s := &stream{chunks: make(chan []memory.Record), asked: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	ss.mu.Lock()
	if _, dup := ss.m[p.ID]; dup {
		ss.mu.Unlock()
		cancel()
		return importBeginResult{}, &remoteError{memory.ErrInvalid, fmt.Sprintf("import %s is already under way", p.ID)}
	}
	ss.m[p.ID] = s
	ss.mu.Unlock()
	var once sync.Once
	next := func() ([]memory.Record, error) {
		once.Do(func() { close(s.asked) })
		select {
		case recs, ok := <-s.chunks:
			if !ok {
				return nil, io.EOF
			}
			return recs, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		defer close(s.done)
		s.res, s.err = ss.st.ImportStream(memory.WithImportID(ctx, p.ID), p.Project, next, p.Actor)
	}()
	select {
	case <-s.asked:
		return importBeginResult{}, nil
	case <-s.done: // landed before, or refused at once
		ss.drop(p.ID)
		if s.err != nil {
			return importBeginResult{}, s.err
		}
		return importBeginResult{Landed: &s.res}, nil
	}
}

func (ss *streams) get(id string) (*stream, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[id]
	if s == nil {
		return nil, &remoteError{memory.ErrInvalid, fmt.Sprintf("no import %s is under way on this connection: run the import again", id)}
	}
	return s, nil
}

func (ss *streams) drop(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.m[id]; s != nil {
		s.cancel()
		delete(ss.m, id)
	}
}

func (ss *streams) chunk(p importChunkParams) (bool, error) {
	s, err := ss.get(p.ID)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, &remoteError{memory.ErrInvalid, fmt.Sprintf("import %s has ended its input", p.ID)}
	}
	select {
	case s.chunks <- p.Records:
		return true, nil
	case <-s.done: // the import failed (a bad record, a write): it is undone
		ss.drop(p.ID)
		return false, s.failed()
	}
}

func (ss *streams) end(p importEndParams) (memory.ImportResult, error) {
	s, err := ss.get(p.ID)
	if err != nil {
		return memory.ImportResult{}, err
	}
	if p.Abort {
		s.cancel()
	} else {
		s.mu.Lock()
		if !s.closed {
			s.closed = true
			close(s.chunks)
		}
		s.mu.Unlock()
	}
	<-s.done
	ss.drop(p.ID)
	if p.Abort {
		return memory.ImportResult{}, nil
	}
	return s.res, s.err
}

// failed is the error of an import that returned before its input ended.
func (s *stream) failed() error {
	if s.err != nil {
		return s.err
	}
	return fmt.Errorf("the import ended before its input did")
}
