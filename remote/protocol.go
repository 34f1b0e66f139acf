// Package remote lets many cairn processes share one store. Badger lets a
// single process open a directory for writing, so exactly one process (the
// server, `cairn serve`) owns the store and every other cairn process (the
// workbench, a CLI command, an MCP server) is a client of it over a Unix
// socket in the home directory, through the same memory.Store interface.
//
// The server is started on demand by the first client and exits once it
// has had no client for an idle timeout, so no process outlives its last
// client for long. A crashed server leaves at most a stale socket file,
// which the next client removes before starting a new server.
//
// The wire format is one JSON object per line in each direction. A request
// is {"id":N,"method":"Remember","params":{...}}; its response is
// {"id":N,"result":{...}} or {"id":N,"error":{"kind":"not_found","message":"...","index":-1}}.
// Events pushed to a subscribed connection are {"event":{...}} (id 0).
package remote

import (
	"encoding/json"
	"errors"
	"time"

	"cairn/memory"
)

type request struct {
	ID     uint64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type response struct {
	ID     uint64          `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
	Event  *memory.Event   `json:"event,omitempty"`
}

// wireError carries an error's kind, so that errors.Is works on the client
// exactly as it does against a local store, and its message unchanged.
type wireError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Index   int    `json:"index"` // record of a refused import, else -1
}

var kinds = []struct {
	name string
	err  error
}{
	{"not_found", memory.ErrNotFound},
	{"secret", memory.ErrSecret},
	{"ambiguous", memory.ErrAmbiguous}, // before invalid: it is also ErrInvalid
	{"invalid", memory.ErrInvalid},
	{"closed", memory.ErrClosed},
	{"locked", memory.ErrLocked},
	{"schema", memory.ErrSchema},
	{"conflict", memory.ErrConflict},
	{"disk_full", memory.ErrDiskFull},
	{"stale", memory.ErrStale},
}

func toWire(err error) *wireError {
	w := &wireError{Kind: "error", Message: err.Error(), Index: -1}
	var ie *memory.ImportError
	if errors.As(err, &ie) {
		w.Index, w.Message = ie.Index, ie.Err.Error()
		err = ie.Err
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			w.Kind = k.name
			break
		}
	}
	return w
}

// remoteError is an error that came over the wire.
type remoteError struct {
	kind error
	msg  string
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }

func (w *wireError) err() error {
	var kind error
	for _, k := range kinds {
		if k.name == w.Kind {
			kind = k.err
		}
	}
	e := error(&remoteError{kind: kind, msg: w.Message})
	if w.Index >= 0 {
		e = &memory.ImportError{Index: w.Index, Err: e}
	}
	return e
}

// Parameter shapes of the methods that take more than one value.
type (
	idParams struct {
		ID string `json:"id"`
	}
	refParams struct {
		Project string `json:"project"`
		Ref     string `json:"ref"`
	}
	memParams struct {
		ID     string         `json:"id,omitempty"`
		Memory *memory.Memory `json:"memory"`
		Actor  memory.Actor   `json:"actor"`
	}
	editParams struct {
		ID    string       `json:"id"`
		Patch patch        `json:"patch"`
		Actor memory.Actor `json:"actor"`
	}
	archiveParams struct {
		ID     string       `json:"id"`
		Reason string       `json:"reason,omitempty"`
		Actor  memory.Actor `json:"actor"`
	}
	linkParams struct {
		Edge  memory.Edge  `json:"edge"`
		Actor memory.Actor `json:"actor"`
	}
	applyParams struct {
		Run memory.Run  `json:"run"`
		Ops []memory.Op `json:"ops"`
	}
	undoRunParams struct {
		Project string       `json:"project"`
		ID      string       `json:"id"`
		Actor   memory.Actor `json:"actor"`
	}
	triggeredParams struct {
		Project string `json:"project"`
		Text    string `json:"text"`
		Limit   int    `json:"limit"`
	}
	feedbackParams struct {
		ID      string       `json:"id"`
		Query   string       `json:"query"`
		Helpful bool         `json:"helpful"`
		Actor   memory.Actor `json:"actor"`
	}
	gapParams struct {
		Project string       `json:"project"`
		ID      string       `json:"id,omitempty"`
		Query   string       `json:"query,omitempty"`
		Best    float64      `json:"best,omitempty"`
		Actor   memory.Actor `json:"actor,omitempty"`
	}
	derivedParams struct {
		Project string                `json:"project"`
		Prefix  string                `json:"prefix,omitempty"`
		Update  *memory.DerivedUpdate `json:"update,omitempty"`
		Actor   memory.Actor          `json:"actor,omitempty"`
	}
	ingestStateParams struct {
		File string `json:"file"`
	}
	proposalsParams struct {
		Project string               `json:"project"`
		State   memory.ProposalState `json:"state,omitempty"`
	}
	listParams struct {
		Project string `json:"project"`
		Limit   int    `json:"limit"`
	}
	passMarkParams struct {
		Project string          `json:"project"`
		Mark    memory.PassMark `json:"mark"`
	}
	// An import streams over one connection: ImportBegin, an ImportChunk
	// per chunk of records, ImportEnd (see streams).
	importBeginParams struct {
		ID      string       `json:"import_id"` // chosen by the client: a retry returns the first result
		Project string       `json:"project"`
		Actor   memory.Actor `json:"actor"`
	}
	importBeginResult struct {
		Landed *memory.ImportResult `json:"landed,omitempty"` // the import already landed: its result
	}
	importChunkParams struct {
		ID      string          `json:"import_id"`
		Records []memory.Record `json:"records"`
	}
	importEndParams struct {
		ID    string `json:"import_id"`
		Abort bool   `json:"abort,omitempty"` // the client gives up: undo what was written
	}
	watermarkParams struct {
		ID         string             `json:"id"`
		Watermarks []memory.Watermark `json:"watermarks"`
		Summary    string             `json:"summary"`
		Actor      memory.Actor       `json:"actor"`
	}
	reviewParams struct {
		ID         string             `json:"id"`
		Verdict    memory.Verdict     `json:"verdict"`
		Watermarks []memory.Watermark `json:"watermarks"`
		Summary    string             `json:"summary"`
		Actor      memory.Actor       `json:"actor"`
	}
	verifyParams struct {
		Project string    `json:"project"`
		Now     time.Time `json:"now"` // the client's clock: the queue it would compute itself
	}
	edgesResult struct {
		Out []memory.Edge `json:"out"`
		In  []memory.Edge `json:"in"`
	}
)

// patch is memory.Patch with JSON names.
type patch struct {
	Title      *string             `json:"title,omitempty"`
	Body       *string             `json:"body,omitempty"`
	Layer      *memory.Layer       `json:"layer,omitempty"`
	Kind       *memory.Kind        `json:"kind,omitempty"`
	Tags       *[]string           `json:"tags,omitempty"`
	Provenance *memory.Provenance  `json:"provenance,omitempty"`
	Confidence *float64            `json:"confidence,omitempty"`
	Ref        *string             `json:"ref,omitempty"`
	Watermarks *[]memory.Watermark `json:"watermarks,omitempty"`
	Triggers   *[]string           `json:"triggers,omitempty"`
	AddTags    []string            `json:"add_tags,omitempty"`
	RemoveTags []string            `json:"remove_tags,omitempty"`
}
