package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/memory"
	"cairn/secrets"
)

// Store is everything cairn does with its memories. *DB implements it over
// Badger; the CLI, the workbench and (later) the socket server use only this.
type Store interface {
	// Projects.
	EnsureProject(ctx context.Context, p memory.Project) (memory.Project, error)
	Project(ctx context.Context, id string) (memory.Project, error)
	ProjectByName(ctx context.Context, name string) (memory.Project, error)
	Projects(ctx context.Context) ([]memory.Project, error)

	// Memories.
	Remember(ctx context.Context, m *memory.Memory, by memory.Actor) (*memory.Memory, error)
	Get(ctx context.Context, id string) (*memory.Memory, error)
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
	GetByRef(ctx context.Context, project, ref string) (*memory.Memory, error)
	History(ctx context.Context, id string) ([]*memory.Memory, error)
	Edit(ctx context.Context, id string, p Patch, by memory.Actor) (*memory.Memory, error)
	Supersede(ctx context.Context, oldID string, m *memory.Memory, by memory.Actor) (*memory.Memory, error)
	Archive(ctx context.Context, id, reason string, by memory.Actor) (*memory.Memory, error)
	Unarchive(ctx context.Context, id string, by memory.Actor) (*memory.Memory, error)
	Forget(ctx context.Context, id string, by memory.Actor) error
	List(ctx context.Context, q Query) (Page, error)
	Count(ctx context.Context, project string) (Counts, error)

	// Edges.
	Link(ctx context.Context, e memory.Edge, by memory.Actor) error
	Edges(ctx context.Context, id string) (out, in []memory.Edge, err error)

	// Timeline and capture inbox.
	Timeline(ctx context.Context, project string, limit int) ([]memory.Event, error)
	Capture(ctx context.Context, d memory.Draft) (memory.Draft, error)
	Drafts(ctx context.Context, project string, limit int) ([]memory.Draft, error)
	// DropDraft deletes a draft for good, leaving only "a draft was deleted".
	DropDraft(ctx context.Context, id string, by memory.Actor) error

	// Triggered lists a project's active negatives and lessons whose
	// triggers text names (see DB.Triggered).
	Triggered(ctx context.Context, project, text string, limit int) ([]TriggerHit, error)

	// Agents' transcripts: drafts read from a session log in batches, and
	// where the last read of a file stopped (see DB.Ingest).
	Ingest(ctx context.Context, b IngestBatch) (IngestResult, error)
	IngestState(ctx context.Context, file string) (IngestState, error)

	// Recall in use: what a recall was worth (salience, never trust), and
	// the questions it could not answer.
	Feedback(ctx context.Context, id, query string, helpful bool, by memory.Actor) error
	RecordGap(ctx context.Context, project, query string, best float64) error
	Gaps(ctx context.Context, project string) ([]memory.Gap, error)
	DropGap(ctx context.Context, project, id string, by memory.Actor) error

	// Bulk.
	Import(ctx context.Context, project string, recs []memory.Record, by memory.Actor) (ImportResult, error)
	// ImportStream is Import of records handed over a chunk at a time by
	// next (io.EOF after the last), so neither side holds the whole input.
	ImportStream(ctx context.Context, project string, next func() ([]memory.Record, error), by memory.Actor) (ImportResult, error)
	Stats(ctx context.Context) (Stats, error)

	// Watermarks: the bound memories of a project, and recording their state.
	Bound(ctx context.Context, project string) ([]*memory.Memory, error)
	// BoundTargets sums the bound memories up as the distinct stamps they
	// carry, and BoundTo reads those bound to some targets: a wake check
	// compares the stamps and reads only the memories of what moved.
	BoundTargets(ctx context.Context, project string) ([]memory.BoundTarget, error)
	BoundTo(ctx context.Context, project string, targets []string) ([]*memory.Memory, error)
	SetWatermarks(ctx context.Context, id string, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error)
	// VerifyFirst lists the active memories whose trust at now is under
	// TrustThreshold, newest first, from an index (see verifyq.go).
	VerifyFirst(ctx context.Context, project string, now time.Time) ([]*memory.Memory, error)

	// Reviews: a person's verdict on a memory, carried out and kept as
	// evidence for calibration (see DB.Review); the project's reviews.
	Review(ctx context.Context, id string, v memory.Verdict, ws []memory.Watermark, summary string, by memory.Actor) (*memory.Memory, error)
	Reviews(ctx context.Context, project string) ([]memory.Review, error)

	// Consolidation: a run's changes applied all or nothing and undone
	// exactly (see DB.Apply); the proposals waiting for a person.
	Apply(ctx context.Context, run memory.Run, ops []Op) (memory.Run, error)
	UndoRun(ctx context.Context, project, id string, by memory.Actor) (memory.Run, error)
	Runs(ctx context.Context, project string, limit int) ([]memory.Run, error)
	Proposals(ctx context.Context, project string, state memory.ProposalState) ([]memory.Proposal, error)
	Proposal(ctx context.Context, id string) (memory.Proposal, error)

	// Subscribe streams timeline events as they are written, by any writer.
	Subscribe(ctx context.Context) (<-chan memory.Event, error)

	// Close releases the store; calls after it return ErrClosed.
	Close() error
}

// OpKind names one step of a consolidation run.
type OpKind string

// The steps a run may take. The run's planner chooses the ids of what it
// creates (NewID), so that later steps can name them.
const (
	OpCreate    OpKind = "create"    // write Memory as a new memory
	OpSupersede OpKind = "supersede" // Target becomes history of With, or of Memory written anew
	OpReinforce OpKind = "reinforce" // Target said again (Reason names the source)
	OpReopen    OpKind = "reopen"    // Target, a decision, to verify-first (Reason says why)
	OpArchive   OpKind = "archive"   // Target archived (Reason says why)
	OpLink      OpKind = "link"      // write Edge
	OpPropose   OpKind = "propose"   // Proposal waits in the inbox
	OpDecide    OpKind = "decide"    // Proposal (its ID) is accepted or rejected: State, Result
	OpDraftDone OpKind = "draft"     // Draft taken by this run
)

// Op is one step of a run. Only the fields its kind names are read.
type Op struct {
	Kind     OpKind           `json:"kind"`
	Memory   *memory.Memory   `json:"memory,omitempty"`
	Target   string           `json:"target,omitempty"`
	With     string           `json:"with,omitempty"`
	Edge     *memory.Edge     `json:"edge,omitempty"`
	Proposal *memory.Proposal `json:"proposal,omitempty"`
	Draft    string           `json:"draft,omitempty"`
	Reason   string           `json:"reason,omitempty"`
	// Change is how the run reports this step (kind, titles, reason);
	// the store fills the ids.
	Change memory.Change `json:"change"`
}

// Query selects memories of one project for List. Zero fields do not filter.
type Query struct {
	Project string        `json:"project"`          // project id; required
	Layer   memory.Layer  `json:"layer,omitempty"`  // 0: every layer
	Status  memory.Status `json:"status,omitempty"` // "": active only; StatusAny: every status
	Tag     string        `json:"tag,omitempty"`    // "": any tag
	Match   string        `json:"match,omitempty"`  // "": all; else every word in the text (memory.Matches)
	Limit   int           `json:"limit,omitempty"`  // 0: DefaultLimit
	After   string        `json:"after,omitempty"`  // cursor from a previous Page.Next
}

// StatusAny in a Query lists memories of every status.
const StatusAny memory.Status = "any"

// DefaultLimit is the page size when a Query gives none.
const DefaultLimit = 50

// Page is one page of a List, newest first. Next is empty on the last page.
type Page struct {
	Memories []*memory.Memory `json:"memories"`
	Next     string           `json:"next,omitempty"`
}

// Patch is an in-place edit. Nil fields stay as they are.
type Patch struct {
	Title      *string
	Body       *string
	Layer      *memory.Layer
	Kind       *memory.Kind
	Tags       *[]string
	Provenance *memory.Provenance
	Confidence *float64
	Ref        *string
	Watermarks *[]memory.Watermark
	Triggers   *[]string
	// AddTags and RemoveTags change the tags the memory has when the edit
	// is written (after Tags, when both are given), so that two edits of
	// different tags do not undo each other.
	AddTags    []string
	RemoveTags []string
}

// Empty reports whether p changes nothing.
func (p Patch) Empty() bool {
	return p.Title == nil && p.Body == nil && p.Layer == nil && p.Kind == nil && p.Tags == nil &&
		p.Provenance == nil && p.Confidence == nil && p.Ref == nil && p.Watermarks == nil &&
		p.Triggers == nil && len(p.AddTags) == 0 && len(p.RemoveTags) == 0
}

// Counts are a project's memories by layer and status.
type Counts struct {
	ByLayer map[memory.Layer]map[memory.Status]int `json:"by_layer"`
}

// Active is the number of active memories in layer l.
func (c Counts) Active(l memory.Layer) int { return c.ByLayer[l][memory.StatusActive] }

// Total is the number of memories with status s across layers.
func (c Counts) Total(s memory.Status) int {
	n := 0
	for _, m := range c.ByLayer {
		n += m[s]
	}
	return n
}

// ImportResult says what an import did.
type ImportResult struct {
	Added     int     `json:"added"`
	New       []Added `json:"new,omitempty"` // which records became new memories, for binding them
	Updated   int     `json:"updated"`
	Unchanged int     `json:"unchanged"`
	Edges     int     `json:"edges"`

	Reinforced int `json:"reinforced"` // unchanged records that said an active memory's fact again: each reinforced it
}

// Added names a record of an import that became a new memory.
type Added struct {
	Record int    `json:"record"` // 0-based index into the imported records
	ID     string `json:"id"`
}

// Stats describe the whole store.
type Stats struct {
	Projects  int                   `json:"projects"`
	Memories  int                   `json:"memories"`
	ByStatus  map[memory.Status]int `json:"by_status"`
	ByLayer   map[string]int        `json:"by_layer"`
	Edges     int                   `json:"edges"`
	Events    int                   `json:"events"`
	Drafts    int                   `json:"drafts"`
	LSMBytes  int64                 `json:"lsm_bytes"`
	VlogBytes int64                 `json:"vlog_bytes"` // the value log and the memtables' logs
	Schema    int                   `json:"schema"`
	Dir       string                `json:"dir"`
	OpenedAt  time.Time             `json:"opened_at"`
}

// Errors a caller can test for with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrClosed   = errors.New("store is closed")
	ErrLocked   = errors.New("store is in use by another process")
	ErrSchema   = errors.New("store was written by a different version of cairn")
	ErrInvalid  = errors.New("invalid")
	ErrSecret   = secrets.ErrSecret
	ErrConflict = errors.New("conflict")
	ErrDiskFull = errors.New("disk full")
	// ErrStale: what a run or an undo acts on changed since it was planned.
	ErrStale = errors.New("changed since")
	// ErrAmbiguous: an id prefix names more than one memory. It is also
	// ErrInvalid.
	ErrAmbiguous = fmt.Errorf("ambiguous id: %w", ErrInvalid)
)

// kindError carries one of the sentinel errors without putting its text in
// the message, so a person reads only what is wrong and what to do.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }
func invalidf(format string, a ...any) error {
	return &kindError{ErrInvalid, fmt.Errorf(format, a...)}
}
func invalid(err error) error { return &kindError{ErrInvalid, err} }
