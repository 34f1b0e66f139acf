package consolidate

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cairn/consolidate/claims"
	"cairn/consolidate/extract"
	"cairn/consolidate/update"
	"cairn/ingest"
	"cairn/memory"
	"cairn/recall"
	"cairn/secrets"
)

// Consolidate runs one pass over the project's waiting drafts and active
// memories, and applies it as one run (or, dry, only reports it). A run
// planned against a store that changed before it was written is planned
// again.
func Consolidate(ctx context.Context, st memory.Store, p memory.Project, opt Options) (Report, error) {
	// One deadline for all the model's requests of the pass (planned
	// again or not); the patterns take the drafts after it.
	llmCtx := ctx
	if opt.LLM != nil {
		var cancel context.CancelFunc
		llmCtx, cancel = context.WithTimeout(ctx, opt.LLM.deadline())
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		rep, ops, mark, err := plan(ctx, llmCtx, st, p, opt)
		if err != nil {
			return rep, err
		}
		if opt.DryRun || len(ops) == 0 {
			if mark != nil && !opt.DryRun {
				// Only what the next pass saves: a store that cannot take
				// it (a full disk) costs that pass a full read, no more.
				_ = st.SetPassMark(ctx, p.ID, *mark)
			}
			rep.Answered, err = closeAnswered(ctx, st, p, opt)
			return rep, err
		}
		progress(opt, "writing", 0, 1)
		run, err := st.Apply(ctx, rep.Run, ops)
		if errors.Is(err, memory.ErrStale) && attempt < 3 {
			continue
		}
		if err != nil {
			return rep, err
		}
		progress(opt, "writing", 1, 1)
		rep.Run = run
		rep.Answered, err = closeAnswered(ctx, st, p, opt)
		return rep, err
	}
}

// closeAnswered asks each of the project's gaps again (a peek: it counts
// as no recall) and closes those a memory now answers well (not weakly),
// turning the gap log into what the pass learned. On a dry run it only
// lists those the stored memories answer (what the run would write is
// not stored, so no recall can find it yet). Closing a gap is not part of
// the run: an undo of the run leaves it closed (the next recall that finds
// nothing opens it again).
func closeAnswered(ctx context.Context, st memory.Store, p memory.Project, opt Options) ([]Answered, error) {
	if opt.Quick { // the hooks' pass: cheap, and the gap log can wait for a full one
		return nil, nil
	}
	gs, err := st.Gaps(ctx, p.ID)
	if err != nil || len(gs) == 0 {
		return nil, err
	}
	progress(opt, "gaps", 0, len(gs))
	r, err := recall.For(ctx, st)
	if err != nil {
		return nil, err
	}
	scope := []string{p.ID}
	if p.ID != memory.GlobalID {
		scope = append(scope, memory.GlobalID)
	}
	var out []Answered
	for i, g := range gs {
		m, err := recall.Answer(ctx, r, g.Query, scope, nil)
		if err != nil {
			return out, err
		}
		progress(opt, "gaps", i+1, len(gs))
		if m == nil {
			continue
		}
		if !opt.DryRun {
			if err := st.DropGap(ctx, p.ID, g.ID, memory.ActorSystem); err != nil && !errors.Is(err, memory.ErrNotFound) {
				return out, err
			}
		}
		out = append(out, Answered{Gap: g, By: m.ID, Title: m.Title})
	}
	return out, nil
}

func progress(opt Options, stage string, done, total int) {
	if opt.Progress != nil {
		opt.Progress(Progress{Stage: stage, Done: done, Total: total})
	}
}

// planner holds one pass's view of the project while it plans.
type planner struct {
	ctx context.Context
	// llmCtx bounds the model's requests: ctx with the pass's deadline.
	llmCtx context.Context
	// late counts the drafts the patterns extracted once it passed.
	late     int
	lateSeen bool
	// unreviewed counts the sessions the model did not review after it.
	unreviewed int
	// toReview are the sessions the model did not read whole (review).
	toReview map[string]bool
	st       memory.Store
	p        memory.Project
	opt      Options
	now      time.Time

	ops     []memory.Op
	dropped []string
	news    []*memory.Memory  // new memories, to bind before writing
	from    map[string]string // new memory → the draft it came from
	// updated: drafts something of which was read as an update;
	// readingWhole: a draft is being read whole (extract.Whole).
	updated      map[string]bool
	readingWhole bool
	isNew        map[string]bool

	mems    map[string]*memory.Memory // the active memories, and those the plan creates
	order   []string                  // mems' ids, oldest first
	byNorm  map[string]string         // normalised text → id
	norms   map[string]string         // id → normalised text
	sets    map[string][]uint64       // id → its words, hashed, sorted: for similarity
	bands   map[string][]string       // near-duplicate signature band → ids
	words   map[string][]string       // subject word → ids
	ukeys   map[string][]string       // update key (update.Keys) → ids; nil until a draft is read for updates
	gone    map[string]bool           // superseded by the plan
	touched map[string]bool           // reinforced, reopened or otherwise changed by the plan
	// contested are the memories a draft of this plan contradicts without
	// superseding them (a supersession proposal waits): a decision resting
	// on one is reopened all the same.
	contested map[string]string
	proposed  map[string]bool // keys of proposals open, rejected or planned

	// mark is what the last full pass that changed nothing left (see
	// memory.PassMark); the zero mark on a quick pass.
	mark memory.PassMark
}

// maxBand bounds how many memories one signature band may hold to be
// used for pairing: near duplicates come in twos and threes.
const maxBand = 64

// maxNear bounds how many memories one near-duplicate search compares.
const maxNear = 256

// maxPosting bounds how many memories one subject word may point at to be
// used for pairing: a word that common says nothing about a subject.
const maxPosting = 2000

// plan reads the project and decides the run. A full pass that changes
// nothing returns the mark it leaves for the next (see quiet).
func plan(ctx, llmCtx context.Context, st memory.Store, p memory.Project, opt Options) (Report, []memory.Op, *memory.PassMark, error) {
	pl := newPlanner(ctx, llmCtx, st, p, opt)
	rep := Report{DryRun: opt.DryRun, Counts: map[memory.ChangeKind]int{}}

	progress(opt, "reading", 0, 0)
	// The project's newest event is read first: a write during the pass
	// adds one, and the next pass sees it.
	full := !opt.Quick && opt.Session == ""
	var event string
	if !opt.Quick {
		var err error
		if event, err = newestEvent(ctx, st, p.ID); err != nil {
			return rep, nil, nil, err
		}
		if pl.mark, err = st.PassMark(ctx, p.ID); err != nil {
			return rep, nil, nil, err
		}
	}
	drafts, err := pl.waiting()
	if err != nil {
		return rep, nil, nil, err
	}
	rep.Drafts = len(drafts)
	quiet := full && len(drafts) == 0 && pl.quiet(event)
	if !quiet {
		if err := pl.load(); err != nil {
			return rep, nil, nil, err
		}
	}
	if err := pl.loadProposals(); err != nil {
		return rep, nil, nil, err
	}
	if err := pl.readDrafts(drafts); err != nil {
		return rep, nil, nil, err
	}
	if err := pl.reconcileStored(quiet); err != nil {
		return rep, nil, nil, err
	}
	pl.bind()
	pl.finish(&rep)
	var mark *memory.PassMark
	if full && len(pl.ops) == 0 {
		mark = &memory.PassMark{Time: pl.now, Event: event, SecondhandLast: pl.mark.SecondhandLast}
		if !quiet {
			mark.SecondhandLast = pl.secondhandLast()
		}
	}
	return rep, pl.ops, mark, nil
}

// newPlanner is a planner for one pass, its clock read once (opt.Now, else
// the time of day).
func newPlanner(ctx, llmCtx context.Context, st memory.Store, p memory.Project, opt Options) *planner {
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	return &planner{ctx: ctx, llmCtx: llmCtx, st: st, p: p, opt: opt, now: now().UTC(),
		mems: map[string]*memory.Memory{}, byNorm: map[string]string{}, bands: map[string][]string{},
		words: map[string][]string{}, norms: map[string]string{}, from: map[string]string{}, updated: map[string]bool{}, sets: map[string][]uint64{}, isNew: map[string]bool{}, gone: map[string]bool{}, touched: map[string]bool{}, proposed: map[string]bool{}, contested: map[string]string{}, toReview: map[string]bool{}}
}

// waiting are the drafts this pass reads: those waiting, of the session
// asked for when one is.
func (pl *planner) waiting() ([]memory.Draft, error) {
	all, err := pl.st.Drafts(pl.ctx, pl.p.ID, 1<<30)
	if err != nil {
		return nil, err
	}
	drafts := memory.Waiting(all)
	if pl.opt.Session != "" {
		drafts = slices.DeleteFunc(drafts, func(d memory.Draft) bool { return d.Source.Session != pl.opt.Session })
	}
	return drafts, nil
}

// loadProposals notes the proposals already made (and not accepted), so
// that none is made twice.
func (pl *planner) loadProposals() error {
	props, err := pl.st.Proposals(pl.ctx, pl.p.ID, "")
	if err != nil {
		return err
	}
	for i := range props {
		if props[i].State != memory.ProposalAccepted {
			pl.proposed[props[i].Key()] = true
		}
	}
	return nil
}

// readDrafts extracts the drafts' candidates (within the sessions'
// budgets), then reads what extraction skipped, and short drafts whole,
// for what they update.
func (pl *planner) readDrafts(drafts []memory.Draft) error {
	var found []found
	var skipped []skippedOf
	took := func(d memory.Draft, cands []extract.Candidate) {
		for _, c := range cands {
			found = append(found, candidateOf(d, c))
		}
		if sk := extract.Skipped(d, cands); len(sk) > 0 {
			skipped = append(skipped, skippedOf{d, sk})
		}
	}
	// With a model, a transcript's messages wait to be sent a session at
	// a time.
	var waiting []memory.Draft
	for i, d := range drafts {
		if err := pl.ctx.Err(); err != nil {
			return err
		}
		progress(pl.opt, "extracting", i, len(drafts))
		switch why := extract.WorkingNotes(d); {
		case why != "":
			pl.drop(d, "%s: working notes, never a source of memories", why)
		case pl.opt.LLM != nil && extract.FromTranscript(d):
			waiting = append(waiting, d)
		default:
			took(d, pl.extract(d))
		}
		pl.add(memory.Op{Kind: memory.OpDraftDone, Draft: d.ID, Change: memory.Change{Kind: memory.ChangeDraftDone, Draft: d.ID}})
	}
	sessions, bySession := groupBySession(waiting, func(d memory.Draft) string { return d.Source.Session })
	for _, s := range sessions {
		if err := pl.ctx.Err(); err != nil {
			return err
		}
		ds := bySession[s]
		for i, cands := range pl.extractSession(ds) {
			took(ds[i], cands)
		}
	}
	found, passed := pl.review(found)
	skipped = append(skipped, passed...)
	for _, f := range pl.budget(found) {
		pl.candidate(f.d, f.c)
	}
	// What extraction skipped may still say a stored fact changed.
	for _, s := range skipped {
		for _, text := range s.texts {
			pl.skippedUpdate(s.d, text)
		}
	}
	// A short draft none of whose parts read as an update is read whole,
	// as a person wrote it: what changed may be said across its sentences
	// ("crash reports: Bugsnag. we pulled the firebase SDK entirely").
	for _, d := range drafts {
		if !pl.updated[d.ID] && extract.Whole(d) {
			pl.readingWhole = true
			pl.skippedUpdate(d, d.Text)
			pl.readingWhole = false
		}
	}
	progress(pl.opt, "extracting", len(drafts), len(drafts))
	return nil
}

// reconcileStored reads the stored memories against each other: a quiet
// pass only for what went stale; a full one for pairs, reopened decisions
// and what went stale. A quick pass reads none.
func (pl *planner) reconcileStored(quiet bool) error {
	opt := pl.opt
	if quiet {
		progress(opt, "reconciling", 0, 1)
		if err := pl.staleQuiet(); err != nil {
			return err
		}
		progress(opt, "reconciling", 1, 1)
	} else if !opt.Quick {
		progress(opt, "reconciling", 0, 3)
		pl.existingPairs()
		progress(opt, "reconciling", 1, 3)
		if err := pl.reopen(); err != nil {
			return err
		}
		progress(opt, "reconciling", 2, 3)
		pl.stale()
		progress(opt, "reconciling", 3, 3)
	}
	return nil
}

// finish writes the pass's changes, counts and summary into rep.
func (pl *planner) finish(rep *Report) {
	opt := pl.opt
	rep.Dropped = pl.dropped
	rep.ModelLate, rep.ByPatterns, rep.Unreviewed = pl.lateSeen, pl.late, pl.unreviewed
	rep.Run = memory.Run{Project: pl.p.ID, Time: pl.now, Actor: memory.ActorSystem}
	for _, op := range pl.ops {
		rep.Run.Changes = append(rep.Run.Changes, op.Change)
		if op.Change.Kind != memory.ChangeDraftDone {
			rep.Counts[op.Change.Kind]++
		}
	}
	asked := opt.AskedBy
	if asked == "" {
		asked = memory.ActorUser
	}
	rep.Run.Summary = "asked by " + string(asked) + "; " + rep.Summary()
	if opt.Quick {
		// Not "asked by …": lastPass looks for full passes only.
		rep.Run.Summary = "quick pass for an agent's session, " + rep.Run.Summary
	}
	if !opt.DryRun && len(pl.ops) > 0 {
		rep.Run.ID = memory.NewID()
	}
}

// load reads the project's active memories into the working set.
func (pl *planner) load() error {
	var ms []*memory.Memory
	if err := memory.EachPage(pl.ctx, pl.st, memory.Query{Project: pl.p.ID, Limit: 1000}, func(page []*memory.Memory) error {
		ms = append(ms, page...)
		return nil
	}); err != nil {
		return err
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].ValidFrom.Before(ms[j].ValidFrom) })
	// Each memory is read on every core; the indexes are filled in order.
	rs := inParallel(len(ms), func(i int) memoryReading { return readMemory(ms[i]) })
	for i, m := range ms {
		pl.file(m, rs[i])
	}
	return nil
}

// memoryReading is what the planner's indexes hold of one memory.
type memoryReading struct {
	norm  string
	set   []uint64
	bands []string
	words []string
}

func readMemory(m *memory.Memory) memoryReading {
	norm := memory.NormalText(m)
	return memoryReading{norm: norm, set: hashedWords(norm), bands: memory.Signature(norm), words: subjectWords(m.Title)}
}

// remember puts m in the working set and its indexes.
func (pl *planner) remember(m *memory.Memory) { pl.file(m, readMemory(m)) }

// file puts m, read as r, in the working set and its indexes.
func (pl *planner) file(m *memory.Memory, r memoryReading) {
	pl.mems[m.ID] = m
	pl.order = append(pl.order, m.ID)
	pl.norms[m.ID] = r.norm
	pl.sets[m.ID] = r.set
	if _, ok := pl.byNorm[r.norm]; !ok {
		pl.byNorm[r.norm] = m.ID
	}
	for _, b := range r.bands {
		pl.bands[b] = append(pl.bands[b], m.ID)
	}
	for _, w := range r.words {
		pl.words[w] = append(pl.words[w], m.ID)
	}
	if pl.ukeys != nil {
		pl.indexUpdateKeys(m)
	}
}

// inParallel is f of 0 … n-1, computed on every core, in order.
func inParallel[T any](n int, f func(int) T) []T {
	const chunk = 256
	out := make([]T, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					out[i] = f(i)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// indexUpdateKeys files m under its update keys.
func (pl *planner) indexUpdateKeys(m *memory.Memory) {
	for _, k := range update.Keys(m.Title) {
		pl.ukeys[k] = append(pl.ukeys[k], m.ID)
	}
}

// current reports whether id is an active memory the plan has not
// superseded.
func (pl *planner) current(id string) bool { return pl.mems[id] != nil && !pl.gone[id] }

func (pl *planner) add(op memory.Op) { pl.ops = append(pl.ops, op) }

// drop notes a candidate left out, with the reason.
func (pl *planner) drop(d memory.Draft, format string, a ...any) {
	pl.dropped = append(pl.dropped, "draft "+d.ID+": "+fmt.Sprintf(format, a...))
}

// extract asks the language model when there is one (falling back to the
// patterns when it fails), else the patterns. A transcript's messages go
// to the model a session at a time (extractSession).
// Once the pass's deadline for the model passed, the patterns take the
// drafts left, the one whose request it cut short too.
func (pl *planner) extract(d memory.Draft) []extract.Candidate {
	if pl.opt.LLM != nil && pl.llmCtx.Err() == nil {
		cands, dropped, err := pl.opt.LLM.Extract(pl.llmCtx, d)
		for _, why := range dropped {
			pl.drop(d, "%s", why)
		}
		if err == nil {
			return cands
		}
		if pl.llmCtx.Err() == nil || pl.ctx.Err() != nil {
			pl.drop(d, "%v; the patterns were used instead", err)
			return extract.Extract(d)
		}
	}
	if pl.opt.LLM != nil && pl.ctx.Err() == nil {
		pl.lateSeen = true
		pl.late++
	}
	return extract.Extract(d)
}

// candidate plans what one extracted candidate becomes.
func (pl *planner) candidate(d memory.Draft, c extract.Candidate) {
	m := &memory.Memory{
		ID: memory.NewID(), Project: pl.p.ID, Layer: c.Layer, Kind: c.Kind,
		Title: strings.TrimSpace(c.Title), Body: strings.TrimSpace(c.Body), Provenance: c.Provenance,
		Triggers: slices.Clone(c.Triggers), Status: memory.StatusActive, Version: 1, ValidFrom: d.Time,
		Source: memory.Source{Actor: d.Actor, Session: d.Source.Session, File: d.Source.File, Line: d.Source.Line},
	}
	if m.Body == "" {
		m.Body = m.Title
	}
	pl.from[m.ID] = d.ID
	if c.Because != "" && !strings.Contains(m.Body, c.Because) {
		m.Body += "\n\nBecause " + strings.TrimSpace(c.Because)
	}
	if d.Actor == memory.ActorAgent && (m.Provenance == memory.ProvUserStated || m.Provenance == memory.ProvUserCorrected) {
		// An agent's capture never speaks as the user, whatever "user:"
		// lines it holds: an agent could write them. Transcripts cairn
		// reads itself, and a person's captures, keep who spoke.
		m.Provenance = memory.ProvExtracted
	}
	m.Confidence = m.Provenance.BaseConfidence()
	if err := m.Validate(); err != nil {
		pl.drop(d, "a candidate was left out: %v", err)
		return
	}
	if err := secrets.Check(secrets.Field{Name: "title", Text: m.Title}, secrets.Field{Name: "body", Text: m.Body}); err != nil {
		pl.drop(d, "a candidate held a credential and was left out")
		return
	}
	norm := memory.NormalText(m)

	// The same fact again: reinforce it.
	if id, ok := pl.byNorm[norm]; ok && pl.current(id) {
		pl.reinforce(id, d)
		return
	}
	// A contradiction: supersede, or propose when the new one ranks lower.
	for _, a := range pl.peers(m) {
		if conflict, ok := Contradicts(a, m); ok {
			pl.reconcile(a, m, conflict, d)
			return
		}
	}
	// An update in other words: supersede when certain, else propose —
	// unless what it only may update it says again in other words ("2+
	// minutes" and "2-3 min"): then it is a merge.
	if a, cf, s := pl.update(m, d); s != update.None {
		pl.updated[d.ID] = true
		// What an agent said in passing in its session, or what cairn is
		// unsure of, is never read as certain: a person looks first.
		if s == update.Certain && c.Sure && !(extract.FromTranscript(d) && d.Actor != memory.ActorUser) {
			pl.reconcile(a, m, cf, d)
		} else {
			pl.proposeUpdate(a, m, cf, d)
		}
		return
	}
	// Nearly the same: a merge for a person.
	if a, sim := pl.nearest(m, norm); a != nil {
		pl.propose(memory.Proposal{Kind: memory.ProposeMerge, Target: a.ID, Memory: m, Draft: d.ID,
			Reason: fmt.Sprintf("says nearly the same as %s (similarity %.2f)", a.ID, sim)}, a,
			fmt.Sprintf("a draft says nearly the same as %s (similarity %.2f)", a.ID, sim))
		return
	}
	if !c.Sure && extract.FromTranscript(d) && d.Actor != memory.ActorUser {
		// An agent's passing remark that cairn is unsure of: the episode
		// keeps the session, a person's inbox is not its notebook.
		pl.drop(d, "an agent's %s cairn is not sure of, left in the episode", c.Class)
		return
	}
	if !c.Sure {
		pl.propose(memory.Proposal{Kind: memory.ProposeRemember, Memory: m, Draft: d.ID,
			Reason: fmt.Sprintf("extracted from a draft (%s) but not sure enough to remember on its own", c.Class)}, nil,
			fmt.Sprintf("a %s from draft %s, not sure enough to remember on its own", c.Class, d.ID))
		return
	}
	pl.create(m, memory.ChangeCreate, "")
	if c.Class == extract.ClassCorrection && c.Corrects != "" {
		// The wrong claim was never stored (said in a session): the lesson
		// is about the claim as the correction names it.
		wrong := &memory.Memory{ID: "", Project: pl.p.ID, Layer: m.Layer, Kind: m.Kind, Title: c.Corrects,
			Body: c.Corrects, Provenance: memory.ProvInferred, ValidFrom: d.Time, Source: m.Source}
		if conflict, ok := Contradicts(wrong, m); ok {
			pl.lesson(wrong, m, conflict)
		} else if conflict, claimed, ok := correctedClaim(m, c.Corrects); ok {
			// "the port is 8081, not 8080": the wrong claim is the
			// sentence with the value it denies.
			wrong.Title, wrong.Body = claimed, claimed
			pl.lesson(wrong, m, conflict)
		} else {
			pl.lesson(wrong, m, Conflict{Subject: m.Title, Old: c.Corrects, New: m.Title, How: "not"})
		}
	}
	if c.Because != "" {
		pl.because(m, c.Because)
	}
}

// reinforce plans "said again" on id.
func (pl *planner) reinforce(id string, d memory.Draft) {
	a := pl.mems[id]
	pl.touched[id] = true
	pl.add(memory.Op{Kind: memory.OpReinforce, Target: id, Reason: "said again in draft " + d.ID + breadcrumb(d),
		Change: memory.Change{Kind: memory.ChangeReinforce, Target: id, TargetTitle: a.Title, Layer: a.Layer, Draft: d.ID}})
}

// breadcrumb names where a draft came from, for the timeline.
func breadcrumb(d memory.Draft) string {
	var parts []string
	parts = append(parts, "by "+string(d.Actor))
	if d.Source.Session != "" {
		parts = append(parts, "session "+d.Source.Session)
	}
	if d.Source.File != "" {
		f := d.Source.File
		if d.Source.Line > 0 {
			f += fmt.Sprintf(":%d", d.Source.Line)
		}
		parts = append(parts, f)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// create plans a new memory (a candidate, or a lesson).
func (pl *planner) create(m *memory.Memory, kind memory.ChangeKind, target string) {
	ch := memory.Change{Kind: kind, Memory: m.ID, Layer: m.Layer, Title: m.Title, Target: target}
	if t := pl.mems[target]; t != nil {
		ch.TargetTitle = t.Title
	}
	pl.add(memory.Op{Kind: memory.OpCreate, Memory: m, Draft: pl.from[m.ID], Change: ch})
	pl.news = append(pl.news, m)
	pl.isNew[m.ID] = true
	pl.remember(m)
}

// reconcile plans what happens when m contradicts a.
func (pl *planner) reconcile(a, m *memory.Memory, c Conflict, d memory.Draft) {
	newer := !m.ValidFrom.Before(a.ValidFrom)
	if m.Provenance.Rank() >= a.Provenance.Rank() && newer {
		pl.supersede(a, m, c)
		return
	}
	why := "is older than it"
	if newer {
		why = fmt.Sprintf("ranks lower (%s < %s)", m.Provenance, a.Provenance)
	}
	pl.propose(memory.Proposal{Kind: memory.ProposeSupersede, Target: a.ID, Memory: m, Draft: d.ID,
		Reason: fmt.Sprintf("contradicts %s (%s: %s → %s) but %s", a.ID, c.How, c.Old, c.New, why)}, a,
		fmt.Sprintf("a draft contradicts %s (%s) but %s", a.ID, differs(c), why))
}

// supersede plans m (new) as a's successor, with a lesson when a
// secondhand fact was corrected by a person or a measurement.
func (pl *planner) supersede(a, m *memory.Memory, c Conflict) {
	pl.gone[a.ID] = true
	pl.add(memory.Op{Kind: memory.OpSupersede, Target: a.ID, Memory: m, Draft: pl.from[m.ID],
		Change: memory.Change{Kind: memory.ChangeSupersede, Memory: m.ID, Target: a.ID, Layer: m.Layer, Title: m.Title, TargetTitle: a.Title,
			Reason: differs(c)}})
	pl.news = append(pl.news, m)
	pl.isNew[m.ID] = true
	pl.remember(m)
	pl.lesson(a, m, c)
}

// lesson plans the F-layer lesson of wrong corrected by right, if it
// teaches one; wrong without an id was never stored.
func (pl *planner) lesson(wrong, right *memory.Memory, c Conflict) {
	l := Lesson(wrong, right, c)
	if l == nil {
		return
	}
	l.ID, l.Project, l.Status, l.ValidFrom, l.Version = memory.NewID(), pl.p.ID, memory.StatusActive, right.ValidFrom, 1
	if l.Source.Actor == "" {
		l.Source = memory.Source{Actor: memory.ActorSystem}
	}
	if err := l.Validate(); err != nil {
		return
	}
	if id, ok := pl.byNorm[memory.NormalText(l)]; ok && pl.current(id) {
		return // the same lesson was learnt before
	}
	pl.create(l, memory.ChangeLesson, wrong.ID)
	to := wrong.ID
	if to == "" {
		to = right.ID
	}
	pl.add(memory.Op{Kind: memory.OpLink, Edge: &memory.Edge{From: l.ID, Kind: memory.EdgeLessonOf, To: to, Weight: 1},
		Change: memory.Change{Kind: memory.ChangeLink, Memory: l.ID, Target: to, Title: l.Title, TargetTitle: pl.titleOf(to), Reason: "lesson_of"}})
}

func (pl *planner) titleOf(id string) string {
	if m := pl.mems[id]; m != nil {
		return m.Title
	}
	return ""
}

// because links a new decision to a stored memory that says its reason.
func (pl *planner) because(m *memory.Memory, reason string) {
	r := &memory.Memory{Title: reason, Body: reason}
	norm := memory.NormalText(r)
	id, ok := pl.byNorm[norm]
	if !ok {
		if a, _ := pl.nearest(r, norm); a != nil {
			id, ok = a.ID, true
		}
	}
	if !ok || id == m.ID || !pl.current(id) {
		return
	}
	pl.add(memory.Op{Kind: memory.OpLink, Edge: &memory.Edge{From: m.ID, Kind: memory.EdgeBecause, To: id, Weight: 1},
		Change: memory.Change{Kind: memory.ChangeLink, Memory: m.ID, Target: id, Title: m.Title, TargetTitle: pl.titleOf(id), Reason: "because"}})
}

// propose plans a proposal unless the same one is open or was rejected.
// why is what the run's record keeps: ids and kinds of difference, never
// the values the proposal's reason quotes (they are a memory's text; the
// record outlives a forget, the proposal does not).
func (pl *planner) propose(p memory.Proposal, about *memory.Memory, why string) {
	p.Project = pl.p.ID
	key := p.Key()
	if pl.proposed[key] {
		return
	}
	pl.proposed[key] = true
	p.ID = memory.NewID()
	if p.Kind == memory.ProposeSupersede && p.Target != "" && p.Draft != "" {
		pl.contested[p.Target] = p.ID
	}
	ch := memory.Change{Kind: memory.ChangePropose, Proposal: p.ID, Target: p.Target, Reason: string(p.Kind) + ": " + why}
	if about != nil {
		ch.TargetTitle, ch.Layer = about.Title, about.Layer
	}
	if p.Memory != nil {
		ch.Title = p.Memory.Title
	} else if o := pl.mems[p.Other]; o != nil {
		ch.Title = o.Title
	}
	pl.add(memory.Op{Kind: memory.OpPropose, Proposal: &p, Change: ch})
}

// peers are the stored memories m may contradict: those sharing the most
// subject words with m's title, at most 12.
func (pl *planner) peers(m *memory.Memory) []*memory.Memory {
	ws := subjectWords(m.Title)
	if len(ws) == 0 {
		return nil
	}
	score := map[string]int{}
	for _, w := range ws {
		if ids := pl.words[w]; len(ids) <= maxPosting {
			for _, id := range ids {
				score[id]++
			}
		}
	}
	need := min(2, len(ws))
	var out []*memory.Memory
	for id, n := range score {
		if n >= need && id != m.ID && pl.current(id) {
			out = append(out, pl.mems[id])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if score[out[i].ID] != score[out[j].ID] {
			return score[out[i].ID] > score[out[j].ID]
		}
		return out[i].ValidFrom.After(out[j].ValidFrom)
	})
	return out[:min(len(out), 12)]
}

// nearest is the most similar current memory sharing a signature band
// with norm, when it is a near duplicate, else the one m says in other
// words (paraphrase); never one that a value, a name, a negation or
// another subject sets apart (update.Distinct).
// maxStoredParaphrase bounds the stored memories one pass reads for
// paraphrases of older ones (drafts' candidates are all read).
const maxStoredParaphrase = 2000

func (pl *planner) nearest(m *memory.Memory, norm string) (*memory.Memory, float64) {
	if a, sim := pl.nearestWords(m, norm); a != nil {
		return a, sim
	}
	return pl.paraphrase(m)
}

// nearestWords is the most similar current memory sharing a signature band
// with norm, when it is a near duplicate by its word set.
func (pl *planner) nearestWords(m *memory.Memory, norm string) (*memory.Memory, float64) {
	var best *memory.Memory
	bestSim := 0.0
	seen := map[string]bool{}
	set := pl.sets[m.ID]
	if set == nil {
		set = hashedWords(norm)
	}
	for _, b := range memory.Signature(norm) {
		ids := pl.bands[b]
		if len(ids) > maxBand {
			continue // a band that many texts share says little
		}
		for _, id := range ids {
			if seen[id] || id == m.ID || !pl.current(id) {
				continue
			}
			seen[id] = true
			if len(seen) > maxNear {
				return best, bestSim
			}
			a := pl.mems[id]
			if sim := jaccard(set, pl.sets[id]); sim >= memory.NearDuplicate && sim > bestSim && !update.Distinct(m, a) {
				best, bestSim = a, sim
			}
		}
	}
	return best, bestSim
}

// existingPairs finds duplicates and contradictions among the memories
// already stored (written before deduplication, imported, or by agents
// in other words).
func (pl *planner) existingPairs() {
	stored := slices.Clone(pl.order)
	pl.foldDuplicates(stored)
	// Contradictions and near duplicates between stored memories: those
	// written or changed since the last pass against all the others, newest
	// first, each memory in at most one change. The first pass looks at all.
	since := pl.lastPass()
	if !slices.ContainsFunc(stored, func(id string) bool {
		m := pl.mems[id]
		return m != nil && !pl.created(id) && m.UpdatedAt.After(since)
	}) {
		return // nothing written since the last pass: its pairs were looked at then
	}
	buckets := pl.subjectBuckets(stored)
	pairs := storedPairs{budget: 500} // proposals per run: a flood helps no one
	for i := len(stored) - 1; i >= 0; i-- {
		m := pl.mems[stored[i]]
		if m == nil || !pl.current(m.ID) || pl.touched[m.ID] || pl.created(m.ID) || !m.UpdatedAt.After(since) {
			continue
		}
		bucket := buckets[claims.SubjectKey(claims.ClaimText(m))]
		if len(bucket) > maxBand {
			bucket = nil // a subject that common is no subject
		}
		pl.storedContradiction(m, bucket, &pairs)
		if pl.gone[m.ID] || pairs.budget == 0 {
			continue
		}
		pl.storedParaphrase(m, &pairs)
	}
}

// storedPairs is what is left of one pass's reading of stored pairs: the
// proposals it may still make, and the paraphrases it has read.
type storedPairs struct {
	budget, paraphrased int
}

// foldDuplicates folds exact duplicates among the stored memories into the
// newest of each.
func (pl *planner) foldDuplicates(stored []string) {
	groups := map[string][]string{}
	for _, id := range stored {
		if m := pl.mems[id]; m != nil && pl.current(id) && !pl.created(id) {
			groups[pl.norms[id]] = append(groups[pl.norms[id]], id)
		}
	}
	for _, ids := range groups {
		if len(ids) < 2 {
			continue
		}
		keep := pl.mems[ids[len(ids)-1]]
		for _, id := range ids[:len(ids)-1] {
			if pl.touched[id] {
				continue
			}
			a := pl.mems[id]
			pl.gone[id] = true
			pl.add(memory.Op{Kind: memory.OpSupersede, Target: id, With: keep.ID,
				Change: memory.Change{Kind: memory.ChangeSupersede, Memory: keep.ID, Target: id, Layer: keep.Layer, Title: keep.Title, TargetTitle: a.Title,
					Reason: "the same fact: folded into " + keep.ID}})
		}
	}
}

// subjectBuckets are the current stored memories by their subject key.
func (pl *planner) subjectBuckets(stored []string) map[string][]string {
	buckets := map[string][]string{}
	keys := inParallel(len(stored), func(i int) string {
		if m := pl.mems[stored[i]]; m != nil && pl.current(stored[i]) && !pl.created(stored[i]) {
			return claims.SubjectKey(claims.ClaimText(m))
		}
		return ""
	})
	for i, id := range stored {
		if keys[i] != "" {
			buckets[keys[i]] = append(buckets[keys[i]], id)
		}
	}
	return buckets
}

// storedContradiction reads m against the older memories of its bucket:
// the first it contradicts is superseded (a lesson when it was inferred),
// or, when m ranks lower, a proposal.
func (pl *planner) storedContradiction(m *memory.Memory, bucket []string, pairs *storedPairs) {
	for _, id := range bucket {
		a := pl.mems[id]
		if a.ID == m.ID || !pl.current(a.ID) || pl.touched[a.ID] || !a.ValidFrom.Before(m.ValidFrom) {
			continue
		}
		c, ok := Contradicts(a, m)
		if !ok {
			continue
		}
		if m.Provenance.Rank() >= a.Provenance.Rank() {
			pl.gone[a.ID] = true
			pl.touched[m.ID] = true
			pl.add(memory.Op{Kind: memory.OpSupersede, Target: a.ID, With: m.ID,
				Change: memory.Change{Kind: memory.ChangeSupersede, Memory: m.ID, Target: a.ID, Layer: m.Layer, Title: m.Title, TargetTitle: a.Title,
					Reason: differs(c)}})
			pl.lesson(a, m, c)
		} else if pairs.budget > 0 {
			pairs.budget--
			pl.propose(memory.Proposal{Kind: memory.ProposeSupersede, Target: a.ID, Other: m.ID,
				Reason: fmt.Sprintf("%s contradicts it (%s: %s → %s) but ranks lower (%s < %s)", m.ID, c.How, c.Old, c.New, m.Provenance, a.Provenance)}, a,
				fmt.Sprintf("%s contradicts %s (%s) but ranks lower (%s < %s)", m.ID, a.ID, differs(c), m.Provenance, a.Provenance))
		}
		return
	}
}

// storedParaphrase proposes a merge of m into the older memory that says
// nearly the same, if one.
func (pl *planner) storedParaphrase(m *memory.Memory, pairs *storedPairs) {
	a, sim := pl.nearestWords(m, pl.norms[m.ID])
	if a == nil && pairs.paraphrased < maxStoredParaphrase {
		// Paraphrases among stored memories, newest first and bounded:
		// reading one is dear, and a store never consolidated would
		// read every memory at every pass.
		pairs.paraphrased++
		a, sim = pl.paraphrase(m)
	}
	if a != nil && a.ValidFrom.Before(m.ValidFrom) && !pl.created(a.ID) {
		pairs.budget--
		why := fmt.Sprintf("%s says nearly the same as %s (similarity %.2f)", m.ID, a.ID, sim)
		pl.propose(memory.Proposal{Kind: memory.ProposeMerge, Target: a.ID, Other: m.ID, Reason: why}, a, why)
	}
}

// lastPass is when the last full consolidation pass ran that still
// stands: the last run of one (not an accept or a reject) not undone, or
// the mark of a later one that changed nothing (see memory.PassMark),
// unless a run was undone since it (what the undo restored is dated before
// it, and must be looked at again); zero when none did.
func (pl *planner) lastPass() time.Time {
	runs, err := pl.st.Runs(pl.ctx, pl.p.ID, 50)
	if err != nil {
		return time.Time{}
	}
	mark := pl.mark.Time
	var last time.Time
	for _, r := range runs {
		if !r.UndoneAt.IsZero() && r.UndoneAt.After(mark) {
			mark = time.Time{}
		}
		if last.IsZero() && r.UndoneAt.IsZero() && strings.HasPrefix(r.Summary, "asked by ") {
			last = r.Time
		}
	}
	if mark.After(last) {
		return mark
	}
	return last
}

// newestEvent is the id of the project's newest event, "" for none.
func newestEvent(ctx context.Context, st memory.Store, pid string) (string, error) {
	evs, err := st.Timeline(ctx, pid, 1)
	if err != nil || len(evs) == 0 {
		return "", err
	}
	return evs[0].ID, nil
}

// A quiet pass. A full pass that changed nothing leaves a mark (see
// memory.PassMark). When the next finds no draft waiting and the project's
// newest event still the mark's, nothing was written since: the memories,
// their links, the proposals and the runs are those the marked pass read,
// and planning from them found nothing then — the pairs among stored
// memories and the decisions to reopen depend on them alone, not on the
// time, so they would find nothing again. What time alone can change is
// the stale check: a weak memory goes stale as it ages, and trust falls.
// So a quiet pass reads no memory but those that check may take: the
// memories under the trust threshold now (the store's verify-first index,
// whose threshold is the check's), and, when one may have aged past
// StaleAfter since, every secondhand one, which is weak at any trust — then
// the pass reads everything, as before.

// quiet reports whether the pass may be quiet (see above); event is the
// project's newest event.
func (pl *planner) quiet(event string) bool {
	m := pl.mark
	return !m.Time.IsZero() && m.Event == event &&
		(m.SecondhandLast.IsZero() || pl.now.Sub(m.SecondhandLast) < pl.staleAfter())
}

// staleQuiet is the stale check of a quiet pass: over the memories under
// the trust threshold now, in the order of load (oldest first; for the same
// time, the newest id first, as the store lists them).
func (pl *planner) staleQuiet() error {
	ms, err := pl.st.VerifyFirst(pl.ctx, pl.p.ID, pl.now)
	if err != nil {
		return err
	}
	slices.SortFunc(ms, func(a, b *memory.Memory) int { return strings.Compare(b.ID, a.ID) })
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].ValidFrom.Before(ms[j].ValidFrom) })
	for _, m := range ms {
		pl.mems[m.ID] = m
		pl.order = append(pl.order, m.ID)
	}
	pl.stale()
	return nil
}

// secondhandLast is the earliest last use of a memory that time alone can
// make stale whatever its trust: secondhand, never reinforced, recalled at
// most once, and not proposed for archiving already (open or rejected:
// the proposal stands until a person decides, which is a write); zero when
// there is none.
func (pl *planner) secondhandLast() time.Time {
	var first time.Time
	for _, id := range pl.order {
		m := pl.mems[id]
		if m == nil || !m.Provenance.Secondhand() || !rarelyUsed(m) {
			continue
		}
		if pl.proposed[(&memory.Proposal{Project: pl.p.ID, Kind: memory.ProposeArchive, Target: id}).Key()] {
			continue
		}
		if last := lastUse(m); first.IsZero() || last.Before(first) {
			first = last
		}
	}
	return first
}

// rarelyUsed: never reinforced and recalled at most once (half of weak).
func rarelyUsed(m *memory.Memory) bool {
	return m.Salience.Reinforcements == 0 && m.Salience.AccessCount <= 1
}

// lastUse is when m was last written, said or recalled.
func lastUse(m *memory.Memory) time.Time {
	last := m.UpdatedAt
	if m.ValidFrom.After(last) {
		last = m.ValidFrom
	}
	if k := len(m.Salience.Accesses); k > 0 && m.Salience.Accesses[k-1].After(last) {
		last = m.Salience.Accesses[k-1]
	}
	return last
}

// staleAfter is how long a weak memory may go unused before the pass
// proposes archiving it.
func (pl *planner) staleAfter() time.Duration {
	if pl.opt.StaleAfter > 0 {
		return pl.opt.StaleAfter
	}
	return DefaultStaleAfter
}

// created reports whether id is a memory this plan creates.
func (pl *planner) created(id string) bool { return pl.isNew[id] }

// hashedWords is the set of a normalised text's words as sorted hashes, so
// that the similarity of two texts is one merge of two short slices
// (memory.Similarity, without building maps).
func hashedWords(norm string) []uint64 {
	ws := strings.Fields(norm)
	out := make([]uint64, 0, len(ws))
	for _, w := range ws {
		h := fnv.New64a()
		h.Write([]byte(w))
		out = append(out, h.Sum64())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jaccard is the Jaccard similarity of two word sets (hashedWords).
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if float64(small) < memory.NearDuplicate*float64(large) {
		return float64(small) / float64(large) // cannot reach the threshold: an upper bound is enough
	}
	both, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			both++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// differs says in words how a contradiction differs, without its values.
func differs(c Conflict) string {
	switch c.How {
	case "not":
		return "corrected: X, not Y"
	case "negation":
		return "the opposite"
	case "replaced":
		return "replaced by a newer one"
	case "":
		return "a different value"
	}
	return "a different " + c.How
}

// found is a candidate with the draft it came from.
// skippedOf is a draft's statements extraction made nothing of.
type skippedOf struct {
	d     memory.Draft
	texts []string
}

type found struct {
	d memory.Draft
	c extract.Candidate
}

func candidateOf(d memory.Draft, c extract.Candidate) found { return found{d: d, c: c} }

// MaxPerSession bounds the memories (all but the session's own episode)
// one agent session leaves: a careful colleague writes down a
// handful of things after a long session, not a transcript.
const MaxPerSession = 15

// budget keeps, of the candidates read from transcripts, at most
// MaxPerSession durable ones per session, counting those the session left
// before (the hooks consolidate a session many times): the person's own
// words first, then the classes that teach most, each in the order said.
// Candidates from captures and episodes are not counted.
func (pl *planner) budget(fs []found) []found {
	left := map[string]int{}
	counted := inBudget
	for _, f := range fs {
		if s := f.d.Source.Session; counted(f) {
			left[s] = MaxPerSession
		}
	}
	if len(left) == 0 {
		return fs
	}
	for _, id := range pl.order {
		m := pl.mems[id]
		if _, ok := left[m.Source.Session]; ok && m.Ref != ingest.EpisodeRef(m.Source.Session) && m.Source.File != "" {
			left[m.Source.Session]--
		}
	}
	all := make([]int, len(fs))
	for i := range all {
		all[i] = i
	}
	order := byWorth(fs, all)
	keep := make([]bool, len(fs))
	for _, i := range order {
		f := fs[i]
		if !counted(f) {
			keep[i] = true
			continue
		}
		if s := f.d.Source.Session; left[s] > 0 {
			left[s]--
			keep[i] = true
		} else {
			pl.drop(f.d, "session %s left %d durable memories already: the %s %q stays in its episode", s, MaxPerSession, f.c.Class, f.c.Title)
		}
	}
	var out []found
	for i, f := range fs {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out
}

// inBudget reports whether a candidate counts against its session's
// budget: one read from a transcript, but an agent's unsure candidate,
// which is dropped later and costs nothing.
func inBudget(f found) bool {
	return extract.FromTranscript(f.d) && (f.c.Sure || f.d.Actor == memory.ActorUser)
}

// worth ranks a candidate for a session's budget: the person's
// corrections and rules, then lessons, failures and decisions, the person's
// other statements, the agent's findings, then the rest.
func worth(f found) int {
	w := 0
	if f.d.Actor == memory.ActorUser {
		// The person's corrections, rules, decisions and failures first; a
		// plain statement in a prompt is often the task's context.
		w += 30
		if f.c.Class != extract.ClassState && f.c.Class != extract.ClassEvent {
			w += 70
		}
	}
	if f.c.Provenance == memory.ProvObserved && f.c.Class == extract.ClassState {
		w += 20 // a finding the agent concluded and acted on (its notes)
	}
	switch f.c.Class {
	case extract.ClassCorrection, extract.ClassPreference:
		w += 50
	case extract.ClassLesson, extract.ClassFailure, extract.ClassDecision:
		w += 40
	case extract.ClassProcedure:
		w += 30
	}
	if f.c.Because != "" {
		w += 10
	}
	if f.c.Sure {
		w += 5
	}
	return w
}
