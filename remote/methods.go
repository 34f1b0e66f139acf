package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"cairn/memory"
	"cairn/recall"
)

// The socket protocol is this table: one row per method, with its name on
// the wire, the store methods it carries, whether a client may send it
// again after a lost connection, and how the server answers it. The server
// dispatches by it and the client reads its retry safety from it, so a new
// store method is a method of Client and a row here (TestEveryStoreMethodHasOneRow
// fails until it has one).

// method is one row of the protocol.
type method struct {
	name string
	// carries names the memory.Store methods the row carries when they
	// are not its own name (an import streams over three rows).
	carries []string
	// retry: a client may send it again after a lost connection — a
	// read, or a write that converges (remember, supersede and capture
	// carry an id chosen by the client; edit and link converge). An import
	// is not sent again piecemeal: its chunks belong to one connection.
	retry bool
	// serve answers a request. A row without one is no request and answer:
	// Subscribe is a stream of its own (see Server.subscribe), Close is
	// the client's own.
	serve handler
	// stream: the request starts a stream of events on its connection.
	stream bool
}

// session is what a request is answered with: the server, and the imports
// under way on the request's connection.
type session struct {
	srv     *Server
	imports *streams
}

type handler func(ctx context.Context, s *session, method string, raw json.RawMessage) (any, error)

// decode reads the parameters of a request into P; a malformed one is
// ErrInvalid, named after its method.
func decode[P any](method string, raw json.RawMessage) (P, error) {
	var p P
	if len(raw) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) || errors.Is(err, io.ErrUnexpectedEOF) {
			return p, &remoteError{memory.ErrInvalid, "malformed " + method + " request: " + err.Error()}
		}
		return p, &remoteError{memory.ErrInvalid, err.Error()}
	}
	return p, nil
}

// on answers with the server's store, from parameters P.
func on[P any](fn func(ctx context.Context, st memory.Store, p P) (any, error)) handler {
	return func(ctx context.Context, s *session, method string, raw json.RawMessage) (any, error) {
		p, err := decode[P](method, raw)
		if err != nil {
			return nil, err
		}
		return fn(ctx, s.srv.st, p)
	}
}

// onSession answers with the session (the server's recall and settings,
// the connection's imports), from parameters P.
func onSession[P any](fn func(ctx context.Context, s *session, p P) (any, error)) handler {
	return func(ctx context.Context, s *session, method string, raw json.RawMessage) (any, error) {
		p, err := decode[P](method, raw)
		if err != nil {
			return nil, err
		}
		return fn(ctx, s, p)
	}
}

// byID answers a store method whose one parameter is an id (of a memory,
// a project, a proposal).
func byID[R any](fn func(memory.Store, context.Context, string) (R, error)) handler {
	return on(func(ctx context.Context, st memory.Store, p idParams) (any, error) { return fn(st, ctx, p.ID) })
}

// bare answers a store method without parameters.
func bare[R any](fn func(memory.Store, context.Context) (R, error)) handler {
	return on(func(ctx context.Context, st memory.Store, _ struct{}) (any, error) { return fn(st, ctx) })
}

// done is the answer of a write that returns nothing but its error.
func done(err error) (any, error) { return true, err }

var errNoMemory = errors.New("request has no memory")

// The parameters of the methods this file alone uses.
type (
	boundToParams struct {
		Project string   `json:"project"`
		Targets []string `json:"targets"`
	}
	touchParams struct {
		IDs []string `json:"ids"`
	}
	vectorsParams struct {
		Embedder string               `json:"embedder"`
		Hashes   []string             `json:"hashes,omitempty"`
		Vectors  map[string][]float32 `json:"vectors,omitempty"`
	}
	sinceParams struct {
		After string `json:"after"`
	}
)

// protocol is the socket protocol, by role of the store (see memory.Store),
// then what is the protocol's own.
var protocol = []method{
	// Projects.
	{name: "EnsureProject", retry: true, serve: on(func(ctx context.Context, st memory.Store, p memory.Project) (any, error) {
		return st.EnsureProject(ctx, p)
	})},
	{name: "Project", retry: true, serve: byID(memory.Store.Project)},
	{name: "ProjectByName", retry: true, serve: byID(memory.Store.ProjectByName)},
	{name: "Projects", retry: true, serve: bare(memory.Store.Projects)},

	// Memories: reads.
	{name: "List", retry: true, serve: on(func(ctx context.Context, st memory.Store, q memory.Query) (any, error) {
		return st.List(ctx, q)
	})},
	{name: "Get", retry: true, serve: byID(memory.Store.Get)},
	{name: "Resolve", retry: true, serve: byID(memory.Store.Resolve)},
	{name: "GetByRef", retry: true, serve: on(func(ctx context.Context, st memory.Store, p refParams) (any, error) {
		return st.GetByRef(ctx, p.Project, p.Ref)
	})},
	{name: "History", retry: true, serve: byID(memory.Store.History)},
	{name: "Count", retry: true, serve: byID(memory.Store.Count)},
	{name: "Triggered", retry: true, serve: on(func(ctx context.Context, st memory.Store, p triggeredParams) (any, error) {
		return st.Triggered(ctx, p.Project, p.Text, p.Limit)
	})},

	// Memories: writes.
	{name: "Remember", retry: true, serve: on(func(ctx context.Context, st memory.Store, p memParams) (any, error) {
		if p.Memory == nil {
			return nil, errNoMemory
		}
		return st.Remember(ctx, p.Memory, p.Actor)
	})},
	{name: "Edit", retry: true, serve: on(func(ctx context.Context, st memory.Store, p editParams) (any, error) {
		return st.Edit(ctx, p.ID, memory.Patch(p.Patch), p.Actor)
	})},
	{name: "Supersede", retry: true, serve: on(func(ctx context.Context, st memory.Store, p memParams) (any, error) {
		if p.Memory == nil {
			return nil, errNoMemory
		}
		return st.Supersede(ctx, p.ID, p.Memory, p.Actor)
	})},
	{name: "Archive", serve: on(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return st.Archive(ctx, p.ID, p.Reason, p.Actor)
	})},
	{name: "Unarchive", serve: on(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return st.Unarchive(ctx, p.ID, p.Actor)
	})},
	{name: "Forget", serve: on(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return done(st.Forget(ctx, p.ID, p.Actor))
	})},

	// Graph.
	{name: "Link", retry: true, serve: on(func(ctx context.Context, st memory.Store, p linkParams) (any, error) {
		return done(st.Link(ctx, p.Edge, p.Actor))
	})},
	{name: "Edges", retry: true, serve: on(func(ctx context.Context, st memory.Store, p idParams) (any, error) {
		out, in, err := st.Edges(ctx, p.ID)
		return edgesResult{out, in}, err
	})},

	// Timeline.
	{name: "Timeline", retry: true, serve: on(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Timeline(ctx, p.Project, p.Limit)
	})},
	{name: "LastEvent", retry: true, serve: bare(memory.Store.LastEvent)},
	{name: "EventsSince", retry: true, serve: on(func(ctx context.Context, st memory.Store, p sinceParams) (any, error) {
		return st.EventsSince(ctx, p.After)
	})},
	// A subscription is a connection of its own: when it is lost the
	// client subscribes again and says so with a "reconnect" event.
	{name: "Subscribe", stream: true},

	// Inbox.
	{name: "Capture", retry: true, serve: on(func(ctx context.Context, st memory.Store, d memory.Draft) (any, error) {
		return st.Capture(ctx, d)
	})},
	{name: "Drafts", retry: true, serve: on(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Drafts(ctx, p.Project, p.Limit)
	})},
	{name: "ListDrafts", retry: true, serve: on(func(ctx context.Context, st memory.Store, q memory.DraftQuery) (any, error) {
		return st.ListDrafts(ctx, q)
	})},
	{name: "DropDraft", serve: on(func(ctx context.Context, st memory.Store, p archiveParams) (any, error) {
		return done(st.DropDraft(ctx, p.ID, p.Actor))
	})},
	// Ingest is safe to send again: the drafts' ids come from their
	// messages, so a batch that landed is known the second time.
	{name: "Ingest", retry: true, serve: on(func(ctx context.Context, st memory.Store, p memory.IngestBatch) (any, error) {
		return st.Ingest(ctx, p)
	})},
	{name: "IngestState", retry: true, serve: on(func(ctx context.Context, st memory.Store, p ingestStateParams) (any, error) {
		return st.IngestState(ctx, p.File)
	})},
	{name: "Proposals", serve: on(func(ctx context.Context, st memory.Store, p proposalsParams) (any, error) {
		return st.Proposals(ctx, p.Project, p.State)
	})},
	{name: "Proposal", serve: byID(memory.Store.Proposal)},

	// Runs. Apply is not sent again by the client: the run's id, chosen
	// by the client, makes a caller's second Apply return the run that
	// landed (see Client.Apply).
	{name: "Apply", serve: on(func(ctx context.Context, st memory.Store, p applyParams) (any, error) {
		return st.Apply(ctx, p.Run, p.Ops)
	})},
	{name: "UndoRun", serve: on(func(ctx context.Context, st memory.Store, p undoRunParams) (any, error) {
		return st.UndoRun(ctx, p.Project, p.ID, p.Actor)
	})},
	{name: "Runs", serve: on(func(ctx context.Context, st memory.Store, p listParams) (any, error) {
		return st.Runs(ctx, p.Project, p.Limit)
	})},
	{name: "PassMark", serve: byID(memory.Store.PassMark)},
	{name: "SetPassMark", serve: on(func(ctx context.Context, st memory.Store, p passMarkParams) (any, error) {
		return done(st.SetPassMark(ctx, p.Project, p.Mark))
	})},

	// Usage. Touch is not sent again: it would count one recall twice.
	{name: "Touch", serve: on(func(ctx context.Context, st memory.Store, p touchParams) (any, error) {
		return done(st.Touch(ctx, p.IDs))
	})},
	{name: "Feedback", serve: on(func(ctx context.Context, st memory.Store, p feedbackParams) (any, error) {
		return done(st.Feedback(ctx, p.ID, p.Query, p.Helpful, p.Actor))
	})},
	{name: "RecordGap", serve: on(func(ctx context.Context, st memory.Store, p gapParams) (any, error) {
		return done(st.RecordGap(ctx, p.Project, p.Query, p.Best))
	})},
	{name: "Gaps", retry: true, serve: on(func(ctx context.Context, st memory.Store, p gapParams) (any, error) {
		return st.Gaps(ctx, p.Project)
	})},
	{name: "DropGap", serve: on(func(ctx context.Context, st memory.Store, p gapParams) (any, error) {
		return done(st.DropGap(ctx, p.Project, p.ID, p.Actor))
	})},

	// Watermarks and reviews: the wake check's reads (see store/bound.go),
	// the summary of a project's bound stamps, then the memories of what
	// moved.
	{name: "Bound", retry: true, serve: byID(memory.Store.Bound)},
	{name: "BoundTargets", retry: true, serve: byID(memory.Store.BoundTargets)},
	{name: "BoundTo", retry: true, serve: on(func(ctx context.Context, st memory.Store, p boundToParams) (any, error) {
		return st.BoundTo(ctx, p.Project, p.Targets)
	})},
	{name: "SetWatermarks", retry: true, serve: on(func(ctx context.Context, st memory.Store, p watermarkParams) (any, error) {
		return st.SetWatermarks(ctx, p.ID, p.Watermarks, p.Summary, p.Actor)
	})},
	{name: "VerifyFirst", retry: true, serve: on(func(ctx context.Context, st memory.Store, p verifyParams) (any, error) {
		return st.VerifyFirst(ctx, p.Project, p.Now)
	})},
	{name: "Review", serve: on(func(ctx context.Context, st memory.Store, p reviewParams) (any, error) {
		return st.Review(ctx, p.ID, p.Verdict, p.Watermarks, p.Summary, p.Actor)
	})},
	{name: "Reviews", retry: true, serve: byID(memory.Store.Reviews)},

	// Bulk. An import streams over one connection: ImportBegin, an
	// ImportChunk per chunk of records, ImportEnd (see streams). The
	// client sends the whole import again when the connection is lost.
	{name: "ImportBegin", carries: []string{"Import", "ImportStream"}, serve: onSession(func(_ context.Context, s *session, p importBeginParams) (any, error) {
		return s.imports.begin(p)
	})},
	{name: "ImportChunk", serve: onSession(func(_ context.Context, s *session, p importChunkParams) (any, error) {
		return s.imports.chunk(p)
	})},
	{name: "ImportEnd", serve: onSession(func(_ context.Context, s *session, p importEndParams) (any, error) {
		return s.imports.end(p)
	})},
	{name: "Stats", retry: true, serve: bare(memory.Store.Stats)},

	// The vector cache. Putting the same vectors again writes the same.
	{name: "Vectors", retry: true, serve: on(func(ctx context.Context, st memory.Store, p vectorsParams) (any, error) {
		return st.Vectors(ctx, p.Embedder, p.Hashes)
	})},
	{name: "PutVectors", retry: true, serve: on(func(ctx context.Context, st memory.Store, p vectorsParams) (any, error) {
		return done(st.PutVectors(ctx, p.Embedder, p.Vectors))
	})},

	// Derived memory. A derived update writes whole records and stamps:
	// sent twice, it writes the same again.
	{name: "DerivedOutlines", retry: true, serve: on(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.DerivedOutlines(ctx, p.Project)
	})},
	{name: "UpdateDerived", retry: true, serve: on(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		if p.Update == nil {
			return nil, &remoteError{memory.ErrInvalid, "UpdateDerived request has no update"}
		}
		return done(st.UpdateDerived(ctx, p.Project, *p.Update, p.Actor))
	})},
	{name: "DerivedFiles", retry: true, serve: on(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.DerivedFiles(ctx, p.Project, p.Prefix)
	})},
	{name: "RepoSummary", retry: true, serve: on(func(ctx context.Context, st memory.Store, p derivedParams) (any, error) {
		return st.RepoSummary(ctx, p.Project)
	})},

	// The client closes its own connections: Close is not sent.
	{name: "Close"},

	// The protocol's own: is the server there, its recall and the
	// settings it runs with.
	{name: "Ping", retry: true, serve: on(func(context.Context, memory.Store, struct{}) (any, error) {
		return "pong", nil
	})},
	{name: "Recall", retry: true, serve: onSession(func(ctx context.Context, s *session, req recall.Request) (any, error) {
		if s.srv.rec == nil {
			return nil, fmt.Errorf("this cairn server does not answer recalls")
		}
		return s.srv.rec.Recall(ctx, req)
	})},
	{name: "Settings", retry: true, serve: onSession(func(_ context.Context, s *session, _ struct{}) (any, error) {
		if s.srv.settings == nil {
			return ServerSettings{}, nil
		}
		return s.srv.settings(), nil
	})},
}

// methods is the protocol by name.
var methods = func() map[string]*method {
	m := make(map[string]*method, len(protocol))
	for i := range protocol {
		m[protocol[i].name] = &protocol[i]
	}
	return m
}()

// retrySafe says whether a client may send method again after a lost
// connection (see method.retry).
func retrySafe(name string) bool {
	m := methods[name]
	return m != nil && m.retry
}
