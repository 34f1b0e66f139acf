package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"cairn/secrets"
)

// The store's contract: what cairn does with its memories (Store), the
// values it takes and returns, and the errors a caller tests for. The
// store package implements it over Badger; everything else — the
// workbench, recall, trust, the MCP server — sees only this.

// The store's contract is a set of roles, each what one kind of consumer
// reads or writes; Store composes them all. A consumer takes the roles it
// uses (recall.Source, trust.Store, ...), so what it needs is checked when
// it is compiled, never probed for while it runs. *DB implements every
// role over Badger, and the socket client (remote.Client) every role over
// the server's socket, one row of its method table per method.

// ProjectRegistry is the projects memories belong to.
type ProjectRegistry interface {
	EnsureProject(ctx context.Context, p Project) (Project, error)
	Project(ctx context.Context, id string) (Project, error)
	ProjectByName(ctx context.Context, name string) (Project, error)
	Projects(ctx context.Context) ([]Project, error)
}

// MemoryReader reads memories: one, its versions, a page, the counts, and
// the negatives and lessons a text triggers.
type MemoryReader interface {
	Lister
	Get(ctx context.Context, id string) (*Memory, error)
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
	GetByRef(ctx context.Context, project, ref string) (*Memory, error)
	History(ctx context.Context, id string) ([]*Memory, error)
	Count(ctx context.Context, project string) (Counts, error)
	// Triggered lists a project's active negatives and lessons whose
	// triggers text names (see DB.Triggered).
	Triggered(ctx context.Context, project, text string, limit int) ([]TriggerHit, error)
}

// MemoryWriter changes memories, one at a time, as an actor.
type MemoryWriter interface {
	Remember(ctx context.Context, m *Memory, by Actor) (*Memory, error)
	Edit(ctx context.Context, id string, p Patch, by Actor) (*Memory, error)
	Supersede(ctx context.Context, oldID string, m *Memory, by Actor) (*Memory, error)
	Archive(ctx context.Context, id, reason string, by Actor) (*Memory, error)
	Unarchive(ctx context.Context, id string, by Actor) (*Memory, error)
	Forget(ctx context.Context, id string, by Actor) error
}

// Memories reads and writes memories.
type Memories interface {
	MemoryReader
	MemoryWriter
}

// Graph is the edges between memories.
type Graph interface {
	Link(ctx context.Context, e Edge, by Actor) error
	Edges(ctx context.Context, id string) (out, in []Edge, err error)
}

// Timeline is what was done, by whom: a project's events, every event
// since a stamp, and the events as they are written.
type Timeline interface {
	Timeline(ctx context.Context, project string, limit int) ([]Event, error)
	// LastEvent is the id of the newest event of any project ("" when
	// there is none): a stamp of the store's state for what is derived
	// from it (the recall index saves it and catches up with EventsSince).
	LastEvent(ctx context.Context) (string, error)
	// EventsSince lists the events of every project newer than the event
	// id after, oldest first.
	EventsSince(ctx context.Context, after string) ([]Event, error)
	// Subscribe streams timeline events as they are written, by any writer.
	Subscribe(ctx context.Context) (<-chan Event, error)
}

// Inbox is what waits for consolidation and for a person: the captured
// drafts, agents' transcripts read into drafts, and the proposals.
type Inbox interface {
	Capture(ctx context.Context, d Draft) (Draft, error)
	Drafts(ctx context.Context, project string, limit int) ([]Draft, error)
	// ListDrafts pages through a project's drafts, oldest first, by cursor
	// (see DraftQuery): every draft can be reached however many there are.
	ListDrafts(ctx context.Context, q DraftQuery) (DraftPage, error)
	// DropDraft deletes a draft for good, leaving only "a draft was deleted".
	DropDraft(ctx context.Context, id string, by Actor) error
	// Ingest writes drafts read from a session log in batches, and
	// IngestState says where the last read of a file stopped (see DB.Ingest).
	Ingest(ctx context.Context, b IngestBatch) (IngestResult, error)
	IngestState(ctx context.Context, file string) (IngestState, error)
	Proposals(ctx context.Context, project string, state ProposalState) ([]Proposal, error)
	Proposal(ctx context.Context, id string) (Proposal, error)
}

// Runs are consolidation's changes: a run applied all or nothing and undone
// exactly (see DB.Apply), and the mark a pass that changed nothing leaves.
type Runs interface {
	Apply(ctx context.Context, run Run, ops []Op) (Run, error)
	UndoRun(ctx context.Context, project, id string, by Actor) (Run, error)
	Runs(ctx context.Context, project string, limit int) ([]Run, error)
	// PassMark is what the project's last full consolidation pass that
	// changed nothing left for the next (zero when none did); SetPassMark
	// records it.
	PassMark(ctx context.Context, project string) (PassMark, error)
	SetPassMark(ctx context.Context, project string, m PassMark) error
}

// Usage is recall in use: what a recall was worth (salience, never trust),
// and the questions it could not answer.
type Usage interface {
	// Touch records that memories were recalled (their salience; see
	// DB.Touch): no new version, no event.
	Touch(ctx context.Context, ids []string) error
	Feedback(ctx context.Context, id, query string, helpful bool, by Actor) error
	RecordGap(ctx context.Context, project, query string, best float64) error
	Gaps(ctx context.Context, project string) ([]Gap, error)
	DropGap(ctx context.Context, project, id string, by Actor) error
}

// Watermarks are what memories are bound to, and a person's reviews.
type Watermarks interface {
	// Bound lists the bound memories of a project.
	Bound(ctx context.Context, project string) ([]*Memory, error)
	// BoundTargets sums the bound memories up as the distinct stamps they
	// carry, and BoundTo reads those bound to some targets: a wake check
	// compares the stamps and reads only the memories of what moved.
	BoundTargets(ctx context.Context, project string) ([]BoundTarget, error)
	BoundTo(ctx context.Context, project string, targets []string) ([]*Memory, error)
	SetWatermarks(ctx context.Context, id string, ws []Watermark, summary string, by Actor) (*Memory, error)
	// VerifyFirst lists the active memories whose trust at now is under
	// TrustThreshold, newest first, from an index (see verifyq.go).
	VerifyFirst(ctx context.Context, project string, now time.Time) ([]*Memory, error)
	// Review carries out a person's verdict on a memory and keeps it as
	// evidence for calibration (see DB.Review); Reviews are the project's.
	Review(ctx context.Context, id string, v Verdict, ws []Watermark, summary string, by Actor) (*Memory, error)
	Reviews(ctx context.Context, project string) ([]Review, error)
}

// Bulk moves many memories at once, and sums the store up.
type Bulk interface {
	Import(ctx context.Context, project string, recs []Record, by Actor) (ImportResult, error)
	// ImportStream is Import of records handed over a chunk at a time by
	// next (io.EOF after the last), so neither side holds the whole input.
	ImportStream(ctx context.Context, project string, next func() ([]Record, error), by Actor) (ImportResult, error)
	Stats(ctx context.Context) (Stats, error)
}

// VectorCache keeps the vectors of memories' contents by embedder, so that
// a recall index is not embedded again from nothing (see DB.Vectors).
type VectorCache interface {
	Vectors(ctx context.Context, embedder string, hashes []string) (map[string][]float32, error)
	PutVectors(ctx context.Context, embedder string, vecs map[string][]float32) error
}

// Store is everything cairn does with its memories: every role, and Close.
// *DB implements it over Badger; the CLI, the workbench and the socket
// server use only this, or the roles they need.
type Store interface {
	ProjectRegistry
	Memories
	Graph
	Timeline
	Inbox
	Runs
	Usage
	Watermarks
	Bulk
	VectorCache
	// Derived memory: what the repository says (see Deriver).
	Deriver

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
	Kind     OpKind    `json:"kind"`
	Memory   *Memory   `json:"memory,omitempty"`
	Target   string    `json:"target,omitempty"`
	With     string    `json:"with,omitempty"`
	Edge     *Edge     `json:"edge,omitempty"`
	Proposal *Proposal `json:"proposal,omitempty"`
	Draft    string    `json:"draft,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	// Change is how the run reports this step (kind, titles, reason);
	// the store fills the ids.
	Change Change `json:"change"`
}

// Query selects memories of one project for List. Zero fields do not filter.
type Query struct {
	Project string `json:"project"`          // project id; required
	Layer   Layer  `json:"layer,omitempty"`  // 0: every layer
	Status  Status `json:"status,omitempty"` // "": active only; StatusAny: every status
	Tag     string `json:"tag,omitempty"`    // "": any tag
	Match   string `json:"match,omitempty"`  // "": all; else every word in the text (Matches)
	Limit   int    `json:"limit,omitempty"`  // 0: DefaultLimit
	After   string `json:"after,omitempty"`  // cursor from a previous Page.Next
}

// DraftQuery asks for one page of a project's drafts, oldest first.
type DraftQuery struct {
	Project string `json:"project"`           // project id; required
	Waiting bool   `json:"waiting,omitempty"` // only those no consolidation took
	Prefix  string `json:"prefix,omitempty"`  // only ids that start so
	Limit   int    `json:"limit,omitempty"`   // 0: DefaultLimit; at most MaxDraftPage
	After   string `json:"after,omitempty"`   // cursor from a previous DraftPage.Next
}

// MaxDraftPage bounds a page of drafts (a draft holds up to 4 × MaxBody).
const MaxDraftPage = 1000

// DraftPage is one page of ListDrafts, oldest first. Next is empty on the
// last page.
type DraftPage struct {
	Drafts []Draft `json:"drafts"`
	Next   string  `json:"next,omitempty"`
}

// StatusAny in a Query lists memories of every status.
const StatusAny Status = "any"

// DefaultLimit is the page size when a Query gives none.
const DefaultLimit = 50

// Page is one page of a List, newest first. Next is empty on the last page.
type Page struct {
	Memories []*Memory `json:"memories"`
	Next     string    `json:"next,omitempty"`
}

// Patch is an in-place edit. Nil fields stay as they are.
type Patch struct {
	Title      *string
	Body       *string
	Layer      *Layer
	Kind       *Kind
	Tags       *[]string
	Provenance *Provenance
	Confidence *float64
	Ref        *string
	Watermarks *[]Watermark
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
	ByLayer map[Layer]map[Status]int `json:"by_layer"`
}

// Active is the number of active memories in layer l.
func (c Counts) Active(l Layer) int { return c.ByLayer[l][StatusActive] }

// Total is the number of memories with status s across layers.
func (c Counts) Total(s Status) int {
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

	Reinforced int `json:"reinforced"`       // unchanged records that said an active memory's fact again: each reinforced it
	Events     int `json:"events,omitempty"` // timeline entries written (an export's {"event": …} records)
}

// Added names a record of an import that became a new
type Added struct {
	Record int    `json:"record"` // 0-based index into the imported records
	ID     string `json:"id"`
}

// Stats describe the whole store.
type Stats struct {
	Projects  int            `json:"projects"`
	Memories  int            `json:"memories"`
	ByStatus  map[Status]int `json:"by_status"`
	ByLayer   map[string]int `json:"by_layer"`
	Edges     int            `json:"edges"`
	Events    int            `json:"events"`
	Drafts    int            `json:"drafts"`
	LSMBytes  int64          `json:"lsm_bytes"`
	VlogBytes int64          `json:"vlog_bytes"` // the value log and the memtables' logs
	Schema    int            `json:"schema"`
	Dir       string         `json:"dir"`
	OpenedAt  time.Time      `json:"opened_at"`
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
	// ErrAmbiguous: an id prefix names more than one  It is also
	// ErrInvalid.
	ErrAmbiguous = fmt.Errorf("ambiguous id: %w", ErrInvalid)
)

// ContentHash identifies a memory's content (layer, kind, title, body):
// the key of import deduplication and of cached vectors.
func ContentHash(m *Memory) string {
	h := sha256.New()
	fmt.Fprintf(h, "%c\x00%s\x00%s\x00%s", m.Layer, m.Kind, m.Title, m.Body)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// GapID names a question: the same words, in any case and spacing, are
// one gap.
func GapID(query string) string {
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(query)), " ")))
	return hex.EncodeToString(h[:6])
}

// ImportError names the record (0-based Index) that refused an import.
type ImportError struct {
	Index int
	Err   error
}

func (e *ImportError) Error() string { return fmt.Sprintf("record %d: %v", e.Index+1, e.Err) }

func (e *ImportError) Unwrap() error { return e.Err }

// ImportChunk is how many records a chunk of an import holds: enough that
// a chunk's round trip and transaction cost little per record.
const ImportChunk = 2000

// Chunks hands recs to ImportStream n at a time.
func Chunks(recs []Record, n int) func() ([]Record, error) {
	return func() ([]Record, error) {
		if len(recs) == 0 {
			return nil, io.EOF
		}
		c := recs[:min(n, len(recs))]
		recs = recs[len(c):]
		return c, nil
	}
}

type importIDKey struct{}

// WithImportID names the import that ctx carries out (a ULID), so that
// sending it again returns the first result instead of importing twice.
func WithImportID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, importIDKey{}, id)
}

// ImportID is the import id ctx carries, or "".
func ImportID(ctx context.Context) string {
	id, _ := ctx.Value(importIDKey{}).(string)
	return id
}

// IngestState is where the last ingest of one agent transcript stopped:
// the byte offset and line to go on from, what the file began with (a file
// that was replaced starts again from the top), and the session's episode.
type IngestState struct {
	Project string    `json:"project"`
	File    string    `json:"file"` // absolute path of the transcript
	Session string    `json:"session,omitempty"`
	Offset  int64     `json:"offset"`
	Line    int       `json:"line"`
	Head    string    `json:"head,omitempty"` // hash of the file's first bytes
	Time    time.Time `json:"time,omitzero"`  // of the last ingest
	// Episode is the session's episode  NoEpisode says a person
	// forgot it: the session gets none again.
	Episode   string `json:"episode,omitempty"`
	NoEpisode bool   `json:"no_episode,omitempty"`
	// Pending says drafts were read from the file that an agent's hook
	// has not consolidated since: a hook with nothing new to read and
	// nothing pending has nothing to do, whatever the store holds.
	Pending bool `json:"pending,omitempty"`
	// Diary is the reader's running summary of the session. It quotes the
	// session, so it is stored with the episode (under its id) and goes
	// when the episode is forgotten; it is never kept without one.
	Diary json.RawMessage `json:"diary,omitempty"`
}

// IngestBatch is drafts read from a transcript, and, with the last batch
// of a read, where the read stopped. The drafts' ids are derived from the
// messages they came from, so a draft already taken (or dropped by a
// person) is not written again.
type IngestBatch struct {
	Project string       `json:"project"`
	Drafts  []Draft      `json:"drafts,omitempty"`
	State   *IngestState `json:"state,omitempty"`
	// Summary is the timeline's line for the batch ("ingested 12 drafts
	// from session …"); empty for none.
	Summary string `json:"summary,omitempty"`
}

// IngestResult counts what a batch did with its drafts.
type IngestResult struct {
	Added   int `json:"added"`
	Known   int `json:"known"`   // already there, consolidated, or dropped by a person
	Refused int `json:"refused"` // invalid or holding a secret: never written
	// Errors says why drafts were refused (at most a few, never their text).
	Errors []string `json:"errors,omitempty"`
}

// MaxIngestBatch bounds the drafts of one batch (one transaction).
const MaxIngestBatch = 500

// TriggerHit is a memory whose trigger a text names, and which trigger.
type TriggerHit struct {
	Memory  *Memory `json:"memory"`
	Trigger string  `json:"trigger"`
}

// NewID makes a new memory, event or draft id (a ULID).
func NewID() string { return ulid.Make().String() }

// Lister lists a page of memories: the store, its client, a test's wrapper.
type Lister interface {
	List(ctx context.Context, q Query) (Page, error)
}

// EachPage calls fn with every page q lists, in order, until the last page
// or fn's error (which it returns).
func EachPage(ctx context.Context, l Lister, q Query, fn func([]*Memory) error) error {
	for {
		page, err := l.List(ctx, q)
		if err != nil {
			return err
		}
		if err := fn(page.Memories); err != nil {
			return err
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}

// ErrReadOnly comes with ErrDiskFull when a write reaches a store that Open
// opened read-only for lack of space (see openReadOnly): even with room
// again, the store writes only once it is opened again.
var ErrReadOnly = errors.New("store opened read-only")

// ErrRoomAgain comes with ErrReadOnly once the disk has room again: the
// owner of a read-only store should close it so that the next open is
// read-write (the server does: see remote.Server).
var ErrRoomAgain = errors.New("room again: reopen the store")

// TrustThreshold is the serving threshold: below it a memory is not served
// as current truth but listed to verify first. The verify-first index is
// built for it (trust.Threshold is this value).
const TrustThreshold = 0.5

// PassMark is what a full consolidation pass that changed nothing leaves
// for the next: when it ran, the project's newest event when it began (every
// write adds one, so the same newest event means nothing was written
// since), and the earliest last use of a memory that time alone could make
// stale (secondhand, never reinforced, recalled at most once, not already
// proposed for archiving).
type PassMark struct {
	Time           time.Time `json:"time"`
	Event          string    `json:"event,omitempty"`
	SecondhandLast time.Time `json:"secondhand_last,omitzero"`
}
