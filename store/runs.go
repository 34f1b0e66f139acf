package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// runStep is one journal entry: how to take back one write of a run.
type runStep struct {
	Mem     string `json:"mem,omitempty"`     // a memory the run wrote
	Created bool   `json:"created,omitempty"` // … and created
	// Wrote is a hash of the memory as the run left it (see memHash) and
	// Sup what it superseded then; a different memory now means a later
	// writer changed it.
	Wrote   string       `json:"wrote,omitempty"`
	Sup     []string     `json:"sup,omitempty"`
	Edge    *memory.Edge `json:"edge,omitempty"`     // a link the run wrote
	OldEdge *memory.Edge `json:"old_edge,omitempty"` // its previous value; nil: created
	Draft   string       `json:"draft,omitempty"`    // a draft the run took
	Prop    string       `json:"prop,omitempty"`     // a proposal the run made, or decided
	Decided bool         `json:"decided,omitempty"`  // … decided (not made)
	// Event is a timeline entry the run wrote: it goes when a run is taken
	// back before its commit, and stays when a committed run is undone.
	Event *runEvent `json:"event,omitempty"`
}

// runEvent names an event a run wrote, and the memory it is about.
type runEvent struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Mem     string `json:"mem,omitempty"`
}

// memHash identifies a memory's state for undo: everything but its reads
// and feedback (reading a memory is no change) and the list of what it supersedes,
// which forgetting one of those shortens (see asWritten).
func memHash(m *memory.Memory) string {
	c := m.Clone()
	c.Salience.Accesses, c.Salience.AccessCount, c.Salience.Feedback = nil, 0, nil
	c.Supersedes, c.Dedup = nil, nil
	b, _ := json.Marshal(c)
	return valueHash(b)
}

// memStep is the journal entry of a run leaving m as it is.
func memStep(m *memory.Memory, created bool) runStep {
	return runStep{Mem: m.ID, Created: created, Wrote: memHash(m), Sup: slices.Clone(m.Supersedes)}
}

// present keeps the ids of memories that still exist: a memory forgotten
// since a run is no change the undo has to take back or keep.
func present(txn *badger.Txn, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		_, err := getMem(txn, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// sameState reports whether cur reads as a memory of hash h superseding
// sup did, but for memories forgotten since.
func sameState(txn *badger.Txn, cur *memory.Memory, h string, sup []string) (bool, error) {
	if memHash(cur) != h {
		return false, nil
	}
	want, err := present(txn, sup)
	if err != nil {
		return false, err
	}
	return slices.Equal(cur.Supersedes, want), nil
}

// asWritten reports whether cur is as step s left it.
func asWritten(txn *badger.Txn, cur *memory.Memory, s runStep) (bool, error) {
	return sameState(txn, cur, s.Wrote, s.Sup)
}

// asBefore reports whether cur reads as it did before run changed it: a
// forget since may have undone the run's change itself (forgetting the
// successor a run wrote makes what it superseded current again).
func asBefore(txn *badger.Txn, run string, cur *memory.Memory) (bool, error) {
	var old memory.Memory
	err := get(txn, keyRunOld(cur.ID, run), &old)
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return sameState(txn, cur, memHash(&old), old.Supersedes)
}

// runStepHook, when set (by tests), is called after each batch of a run,
// of its rollback and of its undo, so a test can stop the process there.
// A test that sets it runs alone; a parallel test sets its store's
// testRunStep.
var runStepHook func(stage string, n int)

func (db *DB) runStepAt(stage string, n int) {
	if db.testRunStep != nil {
		db.testRunStep(stage, n)
	}
	if runStepHook != nil {
		runStepHook(stage, n)
	}
}

// Apply carries out a consolidation run: its steps, all or nothing. It is
// written in batches, each with its journal; the run record is the commit
// point. A run cut off (an error, a cancelled context, a dead process) is
// taken back from the journal — at once, or at the next Open — so no half
// of a run is ever left. A run whose id was already applied returns the
// stored record (a client retrying). Steps are checked against the store
// as it is when they are written: a memory that changed since the run was
// planned (no longer active, superseded, a draft already taken) fails the
// run with ErrStale, to be planned again.
func (db *DB) Apply(ctx context.Context, run memory.Run, ops []memory.Op) (memory.Run, error) {
	if run.ID == "" {
		run.ID = newID()
	} else if !validID(run.ID) {
		return run, invalidf("run id %q is not a ULID: leave it empty and cairn makes one", run.ID)
	}
	if run.Actor == "" {
		run.Actor = memory.ActorSystem
	}
	if !run.Actor.Valid() {
		return run, invalidf("unknown actor %q", run.Actor)
	}
	if err := memory.ValidReason(run.Summary); err != nil {
		return run, invalid(err)
	}
	db.importing.Lock()
	defer db.importing.Unlock()
	if err := ctx.Err(); err != nil {
		return run, err
	}
	if err := db.finishRuns(); err != nil {
		return run, err
	}
	if done, ok, err := db.runRecord(run.ID, true); ok || err != nil {
		if err == nil && done.Project != run.Project {
			err = invalidf("run id %s was used by another run: leave it empty and cairn makes one", run.ID)
		}
		return done, err
	}
	need := 0
	for i := range ops {
		if err := db.prepareOp(&ops[i], run.Project); err != nil {
			return run, fmt.Errorf("step %d (%s): %w", i+1, ops[i].Kind, err)
		}
		need += 1024
		if m := ops[i].Memory; m != nil {
			need += estimate(m)
		}
	}
	if len(ops) == 0 {
		return run, nil // nothing to do, nothing to record: a second run finds the same
	}
	if err := db.roomFor(uint64(need)); err != nil {
		return run, err
	}
	run.Time = db.now().UTC()
	run.Changes = make([]memory.Change, 0, len(ops))
	batch, size, n := 0, 0, 0
	var err error
	for start := 0; start < len(ops) && err == nil; start = n {
		n, size = start, 0
		for n < len(ops) && (n == start || n-start < batchOps && size < batchBytes) {
			size += 1024
			if m := ops[n].Memory; m != nil {
				size += estimate(m)
			}
			n++
		}
		batch++
		err = db.applyBatch(ctx, &run, ops[start:n], batch)
		if err == nil {
			db.runStepAt("batch", batch)
		}
	}
	if err == nil {
		err = db.commitRun(ctx, run)
	}
	if err != nil {
		if uerr := db.takeBackRun(run.ID); uerr != nil {
			return run, fmt.Errorf("%w; taking back the part already written failed too (%v): cairn takes it back when it next opens the store", err, uerr)
		}
		return run, err
	}
	db.runStepAt("done", 0)
	return run, nil
}

// prepareOp checks one step before anything is written.
func (db *DB) prepareOp(op *memory.Op, project string) error {
	needID := func(id, what string) error {
		if !validID(id) {
			return invalidf("%s %q is not a memory id", what, id)
		}
		return nil
	}
	switch op.Kind {
	case memory.OpCreate:
		if op.Memory == nil {
			return invalidf("nothing to create")
		}
	case memory.OpSupersede:
		if err := needID(op.Target, "target"); err != nil {
			return err
		}
		if op.Memory == nil {
			if err := needID(op.With, "successor"); err != nil {
				return err
			}
			if op.With == op.Target {
				return invalidf("memory %s cannot supersede itself", op.Target)
			}
		}
	case memory.OpReinforce, memory.OpReopen, memory.OpArchive:
		if err := needID(op.Target, "target"); err != nil {
			return err
		}
	case memory.OpLink:
		if op.Edge == nil || !op.Edge.Kind.Valid() || !validID(op.Edge.From) || !validID(op.Edge.To) || op.Edge.From == op.Edge.To {
			return invalidf("a link needs two different memories and a known kind")
		}
		if op.Edge.Kind == memory.EdgeSupersedes {
			return invalidf("supersession is not a plain link: use a supersede step, which also retires the old memory")
		}
		if op.Edge.Weight != 0 {
			if err := memory.ValidWeight(op.Edge.Weight); err != nil {
				return invalid(err)
			}
		}
	case memory.OpPropose:
		if op.Proposal == nil {
			return invalidf("nothing to propose")
		}
		op.Proposal.Project = project
		if op.Proposal.ID == "" {
			op.Proposal.ID = newID()
		}
	case memory.OpDecide:
		if op.Proposal == nil || !validID(op.Proposal.ID) {
			return invalidf("decide needs a proposal id")
		}
		if s := op.Proposal.State; s != memory.ProposalAccepted && s != memory.ProposalRejected {
			return invalidf("a proposal is accepted or rejected, not %q", s)
		}
	case memory.OpDraftDone:
		if !validID(op.Draft) {
			return invalidf("draft %q is not a draft id", op.Draft)
		}
	default:
		return invalidf("unknown step %q", op.Kind)
	}
	if err := memory.ValidReason(op.Reason); err != nil {
		return invalid(err)
	}
	if err := secrets.Check(secrets.Field{Name: "reason", Text: op.Reason}); err != nil {
		return err
	}
	if m := op.Memory; m != nil {
		if m.ID == "" {
			m.ID = newID()
		} else if !validID(m.ID) {
			return invalidf("id %q is not a ULID", m.ID)
		}
		m.Project = project
		m.Status = memory.StatusActive
		if m.Source.Actor == "" {
			m.Source.Actor = memory.ActorSystem
		}
		return db.prepare(m)
	}
	return nil
}

// applyBatch writes one batch of steps and its journal in one transaction.
func (db *DB) applyBatch(ctx context.Context, run *memory.Run, ops []memory.Op, batch int) error {
	var changes []memory.Change
	err := db.update(ctx, func(txn *badger.Txn) error {
		changes = changes[:0]
		if err := needProject(txn, run.Project); err != nil {
			return err
		}
		var journal []runStep
		for i := range ops {
			steps, ch, err := db.applyOp(txn, run, &ops[i])
			if err != nil {
				return fmt.Errorf("%s: %w", ops[i].Kind, err)
			}
			journal = append(journal, steps...)
			changes = append(changes, ch)
		}
		for c, b := range runJournalChunks(journal) {
			if err := txn.Set(keyRunJournal(run.ID, batch, c), b); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		run.Changes = append(run.Changes, changes...)
	}
	return err
}

// stale is the error of a step whose subject changed since it was planned.
func stale(format string, a ...any) error {
	return &kindError{memory.ErrStale, fmt.Errorf(format+": the store changed since the run was planned — run it again", a...)}
}

// applyOp writes one step inside txn, returning its journal entries and
// how the run reports it.
func (db *DB) applyOp(txn *badger.Txn, run *memory.Run, op *memory.Op) ([]runStep, memory.Change, error) {
	a := &opWrite{db: db, txn: txn, run: run, op: op, now: db.now().UTC(), ch: op.Change}
	if a.ch.Kind == "" {
		a.ch.Kind = memory.ChangeKind(op.Kind)
	}
	if a.ch.Reason == "" {
		a.ch.Reason = op.Reason
	}
	var err error
	switch op.Kind {
	case memory.OpCreate:
		err = a.create()
	case memory.OpSupersede:
		err = a.supersede()
	case memory.OpReinforce:
		summary := op.Reason
		if summary == "" {
			summary = "said again"
		}
		err = a.mark(memory.EventReinforce, summary, func(m *memory.Memory) { m.Salience.Reinforcements++ })
	case memory.OpReopen:
		err = a.mark(memory.EventReopen, op.Reason, func(m *memory.Memory) { m.ReopenedAt, m.Reopened = a.now, op.Reason })
	case memory.OpArchive:
		err = a.mark(memory.EventArchive, op.Reason, func(m *memory.Memory) { m.Status = memory.StatusArchived })
	case memory.OpLink:
		err = a.link()
	case memory.OpPropose:
		err = a.propose()
	case memory.OpDecide:
		err = a.decide()
	case memory.OpDraftDone:
		err = a.draftDone()
	}
	if err != nil {
		return nil, a.ch, err
	}
	return a.steps, a.ch, nil
}

// opWrite is one step of a run being written in a transaction: what it
// journals (steps, to be undone exactly) and how the run reports it (ch).
type opWrite struct {
	db    *DB
	txn   *badger.Txn
	run   *memory.Run
	op    *memory.Op
	now   time.Time
	steps []runStep
	ch    memory.Change
}

// keep saves m as it was before the run first changed it.
func (a *opWrite) keep(m *memory.Memory) error {
	k := keyRunOld(m.ID, a.run.ID)
	if ok, err := exists(a.txn, k); err != nil || ok {
		return err
	}
	return put(a.txn, k, m)
}

// change rewrites old as m and journals it.
func (a *opWrite) change(old, m *memory.Memory) error {
	if err := a.keep(old); err != nil {
		return err
	}
	if err := rewrite(a.txn, old, m); err != nil {
		return err
	}
	a.steps = append(a.steps, memStep(m, false))
	return nil
}

// event writes a timeline entry and journals it.
func (a *opWrite) event(kind memory.EventKind, mid, summary string) error {
	eid, err := a.db.appendEvent(a.txn, a.run.Project, a.run.Actor, kind, mid, summary)
	if err != nil {
		return err
	}
	a.steps = append(a.steps, runStep{Event: &runEvent{ID: eid, Project: a.run.Project, Mem: mid}})
	return nil
}

// active reads memory id, which the step may change only while it is an
// active memory of the run's project.
func (a *opWrite) active(id string) (*memory.Memory, error) {
	m, err := getMem(a.txn, id)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, stale("memory %s is gone", id)
	}
	if err != nil {
		return nil, err
	}
	if m.Project != a.run.Project {
		return nil, invalidf("memory %s belongs to another project", id)
	}
	if m.Status != memory.StatusActive {
		return nil, stale("memory %s is %s", id, m.Status)
	}
	return m, nil
}

// write stores in as a new memory (its id chosen by the planner) and
// journals it, remembering the draft it came from.
func (a *opWrite) write(in *memory.Memory) (*memory.Memory, error) {
	m := in.Clone()
	if ok, err := exists(a.txn, keyMem(m.ID)); err != nil {
		return nil, err
	} else if ok {
		return nil, invalidf("memory %s already exists", m.ID)
	}
	m.UpdatedAt = a.now
	m.CreatedAt, m.ValidFrom = saidAt(in.ValidFrom, a.now), saidAt(in.ValidFrom, a.now)
	m.Version, m.Dedup = 1, nil
	if err := a.db.insert(a.txn, m); err != nil {
		return nil, err
	}
	a.steps = append(a.steps, memStep(m, true))
	if a.op.Draft != "" && validID(a.op.Draft) {
		// The draft it came from holds its text too: forgetting the
		// memory drops the draft (see markForgotten).
		if err := a.txn.Set(keyFromDraft(m.ID), []byte(a.op.Draft)); err != nil {
			return nil, err
		}
	}
	return m, a.event(memory.EventRemember, m.ID, "consolidation "+a.run.ID)
}

// create writes the step's memory.
func (a *opWrite) create() error {
	m, err := a.write(a.op.Memory)
	if err != nil {
		return err
	}
	a.ch.Memory, a.ch.Layer = m.ID, m.Layer
	return nil
}

// supersede makes Target history of its successor: Memory written anew,
// or With, which takes Target's reinforcements.
func (a *opWrite) supersede() error {
	old, err := a.active(a.op.Target)
	if err != nil {
		return err
	}
	succ, err := a.successor(old)
	if err != nil {
		return err
	}
	next := old.Clone()
	next.Status, next.ValidUntil, next.SupersededBy = memory.StatusSuperseded, a.now, succ.ID
	if err := a.change(old, next); err != nil {
		return err
	}
	e := memory.Edge{From: succ.ID, Kind: memory.EdgeSupersedes, To: old.ID, Weight: 1, CreatedAt: a.now, Active: true}
	s, err := linkStep(a.txn, e)
	if err != nil {
		return err
	}
	a.steps = append(a.steps, s)
	a.ch.Memory, a.ch.Target, a.ch.Layer = succ.ID, old.ID, succ.Layer
	return a.event(memory.EventSupersede, old.ID, "superseded by "+succ.ID+" (consolidation "+a.run.ID+")")
}

// successor writes what supersedes old, naming it.
func (a *opWrite) successor(old *memory.Memory) (*memory.Memory, error) {
	if a.op.Memory != nil {
		in := a.op.Memory.Clone()
		in.Supersedes = []string{old.ID}
		return a.write(in)
	}
	w, err := a.active(a.op.With)
	if err != nil {
		return nil, err
	}
	succ := w.Clone()
	succ.Supersedes = append(succ.Supersedes, old.ID)
	succ.Salience.Reinforcements += old.Salience.Reinforcements
	return succ, a.change(w, succ)
}

// mark changes Target in place by edit (said again, reopened, archived)
// and writes the event of kind that says so.
func (a *opWrite) mark(kind memory.EventKind, summary string, edit func(*memory.Memory)) error {
	old, err := a.active(a.op.Target)
	if err != nil {
		return err
	}
	m := old.Clone()
	edit(m)
	if err := a.change(old, m); err != nil {
		return err
	}
	a.ch.Target, a.ch.Layer = old.ID, old.Layer
	return a.event(kind, old.ID, summary)
}

// link writes the step's edge between two memories of the run's project
// (or the global one).
func (a *opWrite) link() error {
	for _, id := range []string{a.op.Edge.From, a.op.Edge.To} {
		m, err := getMem(a.txn, id)
		if errors.Is(err, memory.ErrNotFound) {
			return stale("memory %s is gone", id)
		}
		if err != nil {
			return err
		}
		if m.Project != a.run.Project && m.Project != memory.GlobalID {
			return invalidf("memory %s belongs to another project", id)
		}
	}
	e := *a.op.Edge
	if e.CreatedAt.IsZero() {
		e.CreatedAt = a.now
	}
	if e.Weight == 0 {
		e.Weight = 1
	}
	e.Active = true
	s, err := linkStep(a.txn, e)
	if err != nil {
		return err
	}
	a.steps = append(a.steps, s)
	a.ch.Memory, a.ch.Target = e.From, e.To
	return nil
}

// propose puts the step's proposal in the inbox (unless the same one
// waits there already).
func (a *opWrite) propose() error {
	p := *a.op.Proposal
	if p.Memory != nil {
		p.Memory = p.Memory.Clone()
	}
	p.Run = a.run.ID
	eid, err := a.db.proposeAt(a.txn, &p)
	if err != nil {
		return err
	}
	if eid != "" { // made now, not found already made
		a.steps = append(a.steps, runStep{Prop: p.ID}, runStep{Event: &runEvent{ID: eid, Project: p.Project, Mem: p.Target}})
	}
	a.ch.Proposal, a.ch.Target = p.ID, p.Target
	if a.ch.Memory == "" {
		a.ch.Memory = p.Other
	}
	return nil
}

// decide records a person's decision on an open proposal of the project.
func (a *opWrite) decide() error {
	p, err := getProposal(a.txn, a.op.Proposal.ID)
	if errors.Is(err, memory.ErrNotFound) {
		return stale("proposal %s is gone", a.op.Proposal.ID)
	}
	if err != nil {
		return err
	}
	if p.Project != a.run.Project {
		return invalidf("proposal %s belongs to another project", p.ID)
	}
	if p.State != memory.ProposalOpen {
		return stale("proposal %s was already %s", p.ID, p.State)
	}
	p.State, p.DecidedAt, p.DecidedBy, p.Result = a.op.Proposal.State, a.now, a.run.Actor, a.op.Proposal.Result
	if err := putProposal(a.txn, p); err != nil {
		return err
	}
	a.steps = append(a.steps, runStep{Prop: p.ID, Decided: true})
	a.ch.Proposal, a.ch.Target, a.ch.Memory = p.ID, p.Target, p.Result
	return a.event(memory.EventDecide, p.Target, fmt.Sprintf("%s the %s proposal %s", p.State, p.Kind, p.ID))
}

// draftDone marks the step's draft as taken by the run.
func (a *opWrite) draftDone() error {
	var d memory.Draft
	err := get(a.txn, keyDraft(a.run.Project, a.op.Draft), &d)
	if errors.Is(err, memory.ErrNotFound) {
		return stale("draft %s is gone", a.op.Draft)
	}
	if err != nil {
		return stale("draft %s is being dropped", a.op.Draft)
	}
	if d.Done != "" {
		return stale("draft %s was taken by run %s", a.op.Draft, d.Done)
	}
	d.Done, d.DoneAt = a.run.ID, a.now
	if err := putCounted(a.txn, keyDraft(a.run.Project, d.ID), d); err != nil {
		return err
	}
	a.steps = append(a.steps, runStep{Draft: d.ID})
	a.ch.Draft = d.ID
	return nil
}

// linkStep writes a link and says how to take it back.
func linkStep(txn *badger.Txn, e memory.Edge) (runStep, error) {
	s := runStep{Edge: &e}
	var old memory.Edge
	switch err := get(txn, keyEdgeOut(e), &old); {
	case err == nil:
		s.OldEdge = &old
	case !errors.Is(err, memory.ErrNotFound):
		return s, err
	}
	return s, putEdge(txn, e)
}

// runJournalSteps bounds the steps of one journal chunk, which is taken
// back in one transaction: Badger sorts a transaction's pending writes
// each time an iterator opens in it, and taking back a created memory
// opens four, so a chunk of thousands of steps takes back in quadratic time.
const runJournalSteps = 128

// runJournalChunks encodes a batch's journal as values of bounded size.
func runJournalChunks(j []runStep) [][]byte {
	var out [][]byte
	cur := []byte{formatJSON, '['}
	n := 0
	for _, s := range j {
		b, _ := json.Marshal(s) // plain data: it cannot fail
		if n > 0 && (len(cur)+len(b) > journalChunk || n >= runJournalSteps) {
			out = append(out, append(cur, ']'))
			cur, n = []byte{formatJSON, '['}, 0
		}
		if n > 0 {
			cur = append(cur, ',')
		}
		cur = append(cur, b...)
		n++
	}
	return append(out, append(cur, ']'))
}

// runChangesChunk is how many changes one stored chunk holds.
const runChangesChunk = 2000

// commitRun is the commit point: the record, its changes, the index and
// the timeline event, in one transaction.
func (db *DB) commitRun(ctx context.Context, run memory.Run) error {
	rec := run
	rec.Changes = nil
	stored := slices.Clone(run.Changes)
	for i := range stored { // titles are read from the memories, so a forget takes them along
		stored[i].Title, stored[i].TargetTitle = "", ""
	}
	run.Changes = stored
	return db.update(ctx, func(txn *badger.Txn) error {
		if err := put(txn, keyRun(run.ID), rec); err != nil {
			return err
		}
		for n := 0; n*runChangesChunk < len(run.Changes); n++ {
			part := run.Changes[n*runChangesChunk : min(len(run.Changes), (n+1)*runChangesChunk)]
			if err := put(txn, keyRunChanges(run.ID, n), part); err != nil {
				return err
			}
		}
		if err := txn.Set(keyRunOf(run.Project, run.ID), nil); err != nil {
			return err
		}
		summary := run.Summary
		if summary == "" {
			summary = fmt.Sprintf("%d changes", len(run.Changes))
		}
		return db.event(txn, run.Project, run.Actor, memory.EventConsolidate, "", "run "+run.ID+": "+summary)
	})
}

// runRecord reads a committed run; with changes, its changes too.
func (db *DB) runRecord(id string, changes bool) (memory.Run, bool, error) {
	var run memory.Run
	found := false
	err := db.view(func(txn *badger.Txn) error {
		r, ok, err := readRun(txn, id, changes)
		run, found = r, ok
		return err
	})
	return run, found, err
}

func readRun(txn *badger.Txn, id string, changes bool) (memory.Run, bool, error) {
	var run memory.Run
	err := get(txn, keyRun(id), &run)
	if errors.Is(err, memory.ErrNotFound) {
		return run, false, nil
	}
	if err != nil || !changes {
		return run, err == nil, err
	}
	for _, k := range keys(txn, prefixRunChanges(id)) {
		var part []memory.Change
		if err := get(txn, k, &part); err != nil {
			return run, true, err
		}
		run.Changes = append(run.Changes, part...)
	}
	title := func(id string) string {
		if id == "" {
			return ""
		}
		if m, err := getMem(txn, id); err == nil {
			return m.Title
		}
		return ""
	}
	for i := range run.Changes {
		c := &run.Changes[i]
		c.Title, c.TargetTitle = title(c.Memory), title(c.Target)
	}
	return run, true, nil
}

// Runs lists a project's consolidation runs, newest first, with their
// changes (titles as the memories read now).
func (db *DB) Runs(ctx context.Context, project string, limit int) ([]memory.Run, error) {
	if limit <= 0 {
		limit = memory.DefaultLimit
	}
	var out []memory.Run
	err := db.view(func(txn *badger.Txn) error {
		ks := keys(txn, prefixRunsOf(project))
		for i := len(ks) - 1; i >= 0 && len(out) < limit; i-- {
			r, ok, err := readRun(txn, idFromKey(ks[i]), true)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, r)
			}
		}
		return nil
	})
	return out, err
}

// UndoRun takes back a committed run exactly: what it created goes, what
// it superseded, reinforced, reopened or archived is as it was, its drafts
// wait again and its proposals go (a proposal it decided is open again).
// A memory read since keeps its reads. When something the run wrote was
// changed since by someone else — edited, superseded, a proposal decided
// by a later run — nothing is undone and the error says what to undo or
// change first. A memory or draft deleted since stays deleted.
func (db *DB) UndoRun(ctx context.Context, project, id string, by memory.Actor) (memory.Run, error) {
	db.importing.Lock()
	defer db.importing.Unlock()
	var run memory.Run
	var full string
	err := db.view(func(txn *badger.Txn) error {
		var err error
		if full, err = resolvePrefix(txn, prefixRunsOf(project), id, "run"); err != nil {
			return err
		}
		r, ok, err := readRun(txn, full, false)
		if err == nil && !ok {
			err = fmt.Errorf("run %s: %w", id, memory.ErrNotFound)
		}
		run = r
		return err
	})
	if err != nil {
		return run, err
	}
	if !run.UndoneAt.IsZero() {
		return run, invalidf("run %s was already undone on %s", run.ID, run.UndoneAt.Local().Format("2006-01-02 15:04"))
	}
	if err := db.finishRuns(); err != nil {
		return run, err
	}
	// An undo of this run that failed half way is finished by now: the
	// run is undone as asked, and must not be undone twice.
	if again, _, err := db.runRecord(full, false); err != nil || !again.UndoneAt.IsZero() {
		return again, err
	}
	if err := db.undoConflicts(full); err != nil {
		return run, err
	}
	if err := db.update(ctx, func(txn *badger.Txn) error {
		return put(txn, keyRunUndoing(full), by)
	}); err != nil {
		return run, err
	}
	if err := db.takeBackRun(full); err != nil {
		return run, fmt.Errorf("undo run %s: %w (cairn finishes it when it next opens the store)", full, err)
	}
	out, _, err := db.runRecord(full, true)
	return out, err
}

// undoConflicts says what changed since run id wrote it, if anything.
func (db *DB) undoConflicts(id string) error {
	var found []string
	err := db.view(func(txn *badger.Txn) error {
		for _, k := range keys(txn, prefixRunJournalOf(id)) {
			var j []runStep
			if err := get(txn, k, &j); err != nil {
				return err
			}
			for _, s := range j {
				if why, err := conflict(txn, id, s); err != nil {
					return err
				} else if why != "" && !slices.Contains(found, why) {
					found = append(found, why)
				}
			}
		}
		return nil
	})
	if err != nil || len(found) == 0 {
		return err
	}
	more := ""
	if len(found) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(found)-3)
		found = found[:3]
	}
	return &kindError{memory.ErrStale, fmt.Errorf("cannot undo run %s exactly: %s%s — undo or revert those first; nothing was changed", id, strings.Join(found, "; "), more)}
}

// conflict says how step s of run was changed since, or "".
func conflict(txn *badger.Txn, run string, s runStep) (string, error) {
	switch {
	case s.Mem != "":
		cur, err := getMem(txn, s.Mem)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil // forgotten since: it stays forgotten
		}
		if err != nil {
			return "", err
		}
		if ok, err := asWritten(txn, cur, s); err != nil || ok {
			return "", err
		}
		// Changed by this same run later on (superseded after it was
		// created): the last step on it is the one to compare.
		if later, err := laterStep(txn, run, cur); err != nil || later {
			return "", err
		}
		if ok, err := asBefore(txn, run, cur); err != nil || ok {
			return "", err
		}
		return fmt.Sprintf("memory %s changed after the run", s.Mem), nil
	case s.Prop != "":
		p, err := getProposal(txn, s.Prop)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if !s.Decided && p.State != memory.ProposalOpen {
			return fmt.Sprintf("proposal %s was %s since", p.ID, p.State), nil
		}
		if s.Decided && p.State == memory.ProposalOpen {
			return fmt.Sprintf("proposal %s was reopened since", p.ID), nil
		}
	}
	return "", nil
}

// laterStep reports whether run has more than one step on memory cur and
// the memory stands as the last of them left it.
func laterStep(txn *badger.Txn, run string, cur *memory.Memory) (bool, error) {
	for _, k := range keys(txn, prefixRunJournalOf(run)) {
		var j []runStep
		if err := get(txn, k, &j); err != nil {
			return false, err
		}
		for _, s := range j {
			if s.Mem != cur.ID {
				continue
			}
			if ok, err := asWritten(txn, cur, s); err != nil || ok {
				return ok, err
			}
		}
	}
	return false, nil
}

// takeBackRun takes back the journal of run id, newest step first, one
// transaction per journal chunk, each dropping its chunk: cut off half
// way, it goes on where it stopped at the next Open. A committed run is
// marked undone at the end.
func (db *DB) takeBackRun(id string) error {
	var chunks [][]byte
	committed := false
	if err := db.view(func(txn *badger.Txn) (err error) {
		chunks = keys(txn, prefixRunJournalOf(id))
		committed, err = exists(txn, keyRun(id))
		return err
	}); err != nil {
		return err
	}
	var project string
	for i := len(chunks) - 1; i >= 0; i-- {
		k := chunks[i]
		if err := db.roomToUndo(); err != nil {
			return err
		}
		err := db.writeUnchecked(func(txn *badger.Txn) error {
			var j []runStep
			if err := get(txn, k, &j); err != nil {
				return err
			}
			for _, s := range slices.Backward(j) {
				pid, err := db.takeBackStep(txn, id, s, committed)
				if err != nil {
					return err
				}
				if pid != "" {
					project = pid
				}
			}
			return txn.Delete(k)
		})
		if err != nil {
			return err
		}
		db.runStepAt("rollback", len(chunks)-i)
	}
	return db.writeUnchecked(func(txn *badger.Txn) error {
		var run memory.Run
		err := get(txn, keyRun(id), &run)
		if errors.Is(err, memory.ErrNotFound) {
			return nil // never committed: nothing else to take back
		}
		if err != nil {
			return err
		}
		if project == "" {
			project = run.Project
		}
		// A committed run whose journal is being taken back is being
		// undone, whether a person asked just now (undo) or a crash cut
		// the undo off (finishRuns): either way it ends marked undone.
		var by memory.Actor = memory.ActorUser
		_ = get(txn, keyRunUndoing(id), &by)
		run.UndoneAt = db.now().UTC()
		if err := put(txn, keyRun(id), run); err != nil {
			return err
		}
		if err := txn.Delete(keyRunUndoing(id)); err != nil {
			return err
		}
		return db.event(txn, project, by, memory.EventUndo, "", "undid run "+id)
	})
}

// takeBackStep undoes one step inside txn, unless what the run wrote was
// changed since by someone else (a forget, a later edit): that stands.
// The events of a committed run stay on the timeline; those of a run
// taken back before its commit go, since it never happened. It returns
// the project of what it touched, when it knows it.
func (db *DB) takeBackStep(txn *badger.Txn, run string, s runStep, committed bool) (string, error) {
	switch {
	case s.Event != nil:
		if committed {
			return s.Event.Project, nil
		}
		k := keyEvent(s.Event.Project, s.Event.ID)
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return s.Event.Project, nil
		}
		if err != nil {
			return "", err
		}
		forgotten := false
		if err := item.Value(func(v []byte) error { forgotten = len(v) > 0 && v[0] == formatForgotten; return nil }); err != nil {
			return "", err
		}
		if forgotten {
			return s.Event.Project, nil // a forget's purge drops it
		}
		if s.Event.Mem != "" {
			if err := txn.Delete(keyEventOfMem(s.Event.Mem, s.Event.ID)); err != nil {
				return "", err
			}
		}
		return s.Event.Project, deleteCounted(txn, k)
	case s.Edge != nil:
		var cur memory.Edge
		err := get(txn, keyEdgeOut(*s.Edge), &cur)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if s.OldEdge == nil {
			return "", deleteEdge(txn, *s.Edge)
		}
		return "", putEdge(txn, *s.OldEdge)
	case s.Draft != "":
		pid, err := draftProject(txn, s.Draft)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil // dropped since
		}
		if err != nil {
			return "", err
		}
		var d memory.Draft
		if err := get(txn, keyDraft(pid, s.Draft), &d); err != nil {
			return "", nil // being dropped
		}
		if d.Done != run {
			return pid, nil
		}
		d.Done, d.DoneAt = "", time.Time{}
		return pid, putCounted(txn, keyDraft(pid, d.ID), d)
	case s.Prop != "":
		p, err := getProposal(txn, s.Prop)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if !s.Decided {
			if p.State != memory.ProposalOpen {
				return p.Project, nil // decided since: that decision stands
			}
			return p.Project, deleteProposal(txn, p)
		}
		p.State, p.DecidedAt, p.DecidedBy, p.Result = memory.ProposalOpen, time.Time{}, "", ""
		return p.Project, putProposal(txn, p)
	case s.Mem != "":
		pid, err := db.takeBackMem(txn, run, s)
		if err != nil {
			return "", err
		}
		// The state before the run goes with the step, restored or not.
		return pid, txn.Delete(keyRunOld(s.Mem, run))
	}
	return "", nil
}

// takeBackMem undoes a step on a memory.
func (db *DB) takeBackMem(txn *badger.Txn, run string, s runStep) (string, error) {
	{
		cur, err := getMem(txn, s.Mem)
		if errors.Is(err, memory.ErrNotFound) {
			return "", nil // forgotten since
		}
		if err != nil {
			return "", err
		}
		if ok, err := asWritten(txn, cur, s); err != nil {
			return "", err
		} else if !ok {
			// Changed since: already restored by a later step of this
			// run, or left as it was before the run by a forget.
			return cur.Project, nil
		}
		if s.Created {
			return cur.Project, db.unwrite(txn, cur)
		}
		var old memory.Memory
		if err := get(txn, keyRunOld(s.Mem, run), &old); errors.Is(err, memory.ErrNotFound) {
			return cur.Project, nil
		} else if err != nil {
			return "", err
		}
		restored := old.Clone()
		restored.Salience.Accesses, restored.Salience.AccessCount = cur.Salience.Accesses, cur.Salience.AccessCount
		restored.Salience.Feedback = cur.Salience.Feedback
		sup, err := present(txn, old.Supersedes) // what was forgotten since stays forgotten
		if err != nil {
			return "", err
		}
		if len(sup) == 0 {
			sup = nil
		}
		restored.Supersedes = sup
		return cur.Project, rewrite(txn, cur, restored)
	}
}

// unwrite removes a memory a run created: record, index entries, ref,
// edges, proposals naming it. Its events stay on the timeline, without a
// title to show, like a forgotten memory's.
func (db *DB) unwrite(txn *badger.Txn, m *memory.Memory) error {
	if err := unindex(txn, m); err != nil {
		return err
	}
	if err := txn.Delete(keyFromDraft(m.ID)); err != nil {
		return err
	}
	if m.Ref != "" {
		if holder, err := refHolder(txn, m.Project, m.Ref); err != nil {
			return err
		} else if holder == m.ID {
			if err := txn.Delete(keyRef(m.Project, m.Ref)); err != nil {
				return err
			}
		}
	}
	out, in, err := edgesOf(txn, m.ID)
	if err != nil {
		return err
	}
	for _, e := range append(out, in...) {
		if err := deleteEdge(txn, e); err != nil {
			return err
		}
	}
	ps, err := proposalsNaming(txn, m.ID)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := deleteProposal(txn, p); err != nil {
			return err
		}
	}
	return txn.Delete(keyMem(m.ID))
}

// finishRuns takes back the runs a dead process left half written and
// finishes the undos it left half done. Callers hold db.importing, or run
// at Open.
func (db *DB) finishRuns() error {
	var ids []string
	if err := db.view(func(txn *badger.Txn) error {
		for _, k := range keys(txn, prefixRunUndoing) {
			ids = append(ids, string(k[len(prefixRunUndoing):]))
		}
		// One look per run, not per journal chunk: journals are kept for
		// undo, so they grow with history.
		o := badger.DefaultIteratorOptions
		o.Prefix, o.PrefetchValues = prefixRunJournal, false
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); {
			id, _, _ := strings.Cut(string(it.Item().Key()[len(prefixRunJournal):]), "/")
			if !slices.Contains(ids, id) {
				if ok, err := exists(txn, keyRun(id)); err != nil {
					return err
				} else if !ok {
					ids = append(ids, id)
				}
			}
			it.Seek(append(prefixRunJournalOf(id), 0xFF))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := db.takeBackRun(id); err != nil {
			return fmt.Errorf("take back the interrupted consolidation run %s: %w", id, err)
		}
	}
	return nil
}
