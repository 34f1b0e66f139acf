package ui

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"cairn/ingest"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"

	"cairn/consolidate"
	"cairn/derive"
	"cairn/internal/config"
	"cairn/memory"
	"cairn/mirror"
	"cairn/recall"
	"cairn/safetext"
	"cairn/themes"
	"cairn/trust"
)

// Trust is what the workbench asks of a project's trust service: the wake
// check and the verify-first queue, reviews, calibration and binding. The
// service (trust.Service) reads the project's files, git and environment;
// the workbench never does.
type Trust interface {
	Wake(ctx context.Context) error
	Queue(ctx context.Context, salience func(memory.Salience) float64) ([]trust.Item, error)
	Confirm(ctx context.Context, m *memory.Memory) (*memory.Memory, error)
	Reject(ctx context.Context, m *memory.Memory) (*memory.Memory, error)
	Rebind(ctx context.Context, m *memory.Memory, specs []string) (*memory.Memory, error)
	Calibration(ctx context.Context) (trust.Calibration, error)
	Bind(ctx context.Context, asked []memory.Watermark, text string) ([]memory.Watermark, error)
	BindMany(ctx context.Context, texts []string) [][]memory.Watermark
}

var _ Trust = (*trust.Service)(nil)

// Store is what the workbench needs of cairn's store: all of it — the
// memories, the inbox and the timeline it shows, recall over them
// (recall.Source), consolidation and undo (the consolidate package takes a
// memory.Store) and the Repository section. A test wraps it by embedding.
type Store interface {
	memory.Store
}

// openEpisode finds the episode `cairn ingest` keeps for an agent session.
func openEpisode(ctx context.Context, st Store, project, session string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.GetByRef(ctx, project, ingest.EpisodeRef(session))
		if err != nil {
			return episodeFoundMsg{session: session, err: err}
		}
		return episodeFoundMsg{session: session, id: m.ID}
	}
}

// pageSize is how many memories the list loads at a time.
const pageSize = 100

func loadCounts(ctx context.Context, st Store, project string) tea.Cmd {
	return func() tea.Msg {
		c, err := st.Count(ctx, project)
		return countsLoadedMsg{project, c, err}
	}
}

func loadPage(ctx context.Context, st Store, req int, q memory.Query, more bool) tea.Cmd {
	return func() tea.Msg {
		q.Limit = pageSize
		p, err := st.List(ctx, q)
		return pageLoadedMsg{req: req, items: p.Memories, next: p.Next, more: more, err: err}
	}
}

// shortsOf works out how the memory ids shown together are shown: each by
// the shortest prefix that names it among them and in the whole store.
func shortsOf(ctx context.Context, st Store, ids ...string) map[string]string {
	ids = slices.DeleteFunc(ids, func(id string) bool { return id == "" })
	if len(ids) == 0 {
		return nil
	}
	return memory.ShortIDsIn(ctx, st, ids)
}

// loadMemory reads a memory for the detail, with its links and the titles
// of the memories they lead to. The short ids learned are those the detail
// shows: the memory's own (unless known), and a linked memory's that has
// no title to be named by. (Short ids made in one millisecond, an import's,
// take a dozen lookups each: worth sparing on every move of the selection.)
func loadMemory(ctx context.Context, st Store, id string, known bool) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Get(ctx, id)
		if err != nil {
			return memoryLoadedMsg{id: id, err: err}
		}
		out, in, err := st.Edges(ctx, id)
		titles := map[string]string{}
		ids := append([]string{m.SupersededBy}, m.Supersedes...)
		for _, e := range out {
			ids = append(ids, e.To)
		}
		for _, e := range in {
			ids = append(ids, e.From)
		}
		for _, other := range ids {
			if other == "" || titles[other] != "" {
				continue
			}
			if o, err := st.Get(ctx, other); err == nil {
				titles[other] = o.Title
			}
		}
		msg := memoryLoadedMsg{id: id, mem: m, out: out, in: in, titles: titles, err: err}
		ids = slices.DeleteFunc(ids, func(id string) bool { return titles[id] != "" })
		if !known {
			ids = append(ids, m.ID)
		}
		msg.shorts = shortsOf(ctx, st, ids...)
		return msg
	}
}

// render turns markdown into styled text with a fresh renderer (a shared
// glamour renderer is a data race).
func render(key renderKey, body string, theme themes.Theme) tea.Cmd {
	return func() tea.Msg {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(theme.Glamour()), glamour.WithWordWrap(max(key.width, 20)))
		if err != nil {
			return renderedMsg{key, body}
		}
		out, err := r.Render(body)
		if err != nil {
			return renderedMsg{key, body}
		}
		return renderedMsg{key, strings.Trim(out, "\n")}
	}
}

func loadTimeline(ctx context.Context, st Store, project string) tea.Cmd {
	return func() tea.Msg {
		evs, err := st.Timeline(ctx, project, 200)
		msg := timelineLoadedMsg{project: project, events: evs, err: err}
		var ids []string
		for _, e := range evs {
			if e.Title == "" { // the timeline names the others by their titles
				ids = append(ids, e.MemoryID)
			}
		}
		msg.shorts = shortsOf(ctx, st, ids...)
		return msg
	}
}

func loadProjects(ctx context.Context, st Store) tea.Cmd {
	return func() tea.Msg {
		ps, err := st.Projects(ctx)
		return projectsLoadedMsg{ps, err}
	}
}

// archive archives the memory ref names (an id or a unique prefix).
func archive(ctx context.Context, st Store, ref string) tea.Cmd {
	return func() tea.Msg {
		id, err := st.Resolve(ctx, ref)
		if err != nil {
			return actionDoneMsg{act: actArchive, id: ref, err: err}
		}
		m, err := st.Archive(ctx, id, "", memory.ActorUser)
		return actionDoneMsg{act: actArchive, mem: m, id: id, err: err}
	}
}

func unarchive(ctx context.Context, st Store, ref string) tea.Cmd {
	return func() tea.Msg {
		id, err := st.Resolve(ctx, ref)
		if err != nil {
			return actionDoneMsg{act: actUnarchive, id: ref, err: err}
		}
		m, err := st.Unarchive(ctx, id, memory.ActorUser)
		return actionDoneMsg{act: actUnarchive, mem: m, id: id, err: err}
	}
}

func forget(ctx context.Context, st Store, id string) tea.Cmd {
	return func() tea.Msg {
		return actionDoneMsg{act: actForget, id: id, err: st.Forget(ctx, id, memory.ActorUser)}
	}
}

// readForForget re-reads the stored text so the dialog shows what is really there.
func readForForget(ctx context.Context, st Store, ref string) tea.Cmd {
	return func() tea.Msg {
		m, err := getRef(ctx, st, ref)
		if err != nil {
			return forgetTextMsg{err: err}
		}
		return forgetTextMsg{learned{shortsOf(ctx, st, m.ID)}, m, err}
	}
}

// reread reads again the memory a dialog is open on.
func reread(ctx context.Context, st Store, id string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Get(ctx, id)
		return rereadMsg{id, m, err}
	}
}

// readForSupersede reads the memory /supersede names, to open the editor on it.
func readForSupersede(ctx context.Context, st Store, ref, text string) tea.Cmd {
	return func() tea.Msg {
		m, err := getRef(ctx, st, ref)
		if err != nil {
			return supersedeTargetMsg{err: err}
		}
		return supersedeTargetMsg{learned{shortsOf(ctx, st, m.ID)}, m, text, err}
	}
}

// confirmRef confirms the memory ref names (/confirm ID).
func confirmRef(ctx context.Context, st Store, svc Trust, ref string) tea.Cmd {
	return func() tea.Msg {
		m, err := getRef(ctx, st, ref)
		if err != nil {
			return actionDoneMsg{act: actConfirm, id: ref, err: err}
		}
		return confirm(ctx, svc, m)()
	}
}

// capture puts text in the project's drafts inbox, as cairn capture does.
func capture(ctx context.Context, st Store, project, text string) tea.Cmd {
	return func() tea.Msg {
		d, err := st.Capture(ctx, memory.Draft{Project: project, Text: text, Actor: memory.ActorUser})
		return capturedMsg{draft: d, err: err}
	}
}

// getRef reads the memory an id or a unique id prefix names.
func getRef(ctx context.Context, st Store, ref string) (*memory.Memory, error) {
	id, err := st.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return st.Get(ctx, id)
}

// remember stores m, bound first (with svc) to what its text names.
func remember(ctx context.Context, st Store, svc Trust, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		if err := bindText(ctx, svc, m); err != nil {
			return actionDoneMsg{act: actRemember, err: err}
		}
		got, err := st.Remember(ctx, m, memory.ActorUser)
		return actionDoneMsg{act: actRemember, mem: got, err: err}
	}
}

// supersede stores m as oldID's successor, bound like a new memory.
func supersede(ctx context.Context, st Store, svc Trust, oldID string, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		if err := bindText(ctx, svc, m); err != nil {
			return actionDoneMsg{act: actSupersede, id: oldID, err: err}
		}
		got, err := st.Supersede(ctx, oldID, m, memory.ActorUser)
		return actionDoneMsg{act: actSupersede, mem: got, id: oldID, err: err}
	}
}

// bindText binds a memory about to be written to the files and flags its
// text names that resolve (none without a trust service).
func bindText(ctx context.Context, svc Trust, m *memory.Memory) error {
	if svc == nil {
		return nil
	}
	ws, err := svc.Bind(ctx, m.Watermarks, m.Title+"\n"+m.Body)
	m.Watermarks = ws
	return err
}

// link links e.From to e.To, each an id or a unique id prefix.
func link(ctx context.Context, st Store, e memory.Edge) tea.Cmd {
	return func() tea.Msg {
		var err error
		if e.From, err = st.Resolve(ctx, e.From); err != nil {
			return actionDoneMsg{act: actLink, err: err}
		}
		if e.To, err = st.Resolve(ctx, e.To); err != nil {
			return actionDoneMsg{act: actLink, err: err}
		}
		return actionDoneMsg{act: actLink, id: e.From, err: st.Link(ctx, e, memory.ActorUser)}
	}
}

// loadDiff gathers the versions of m's supersession chain (each memory's
// edit history, oldest first) and picks the pair to compare first: a
// superseded memory against its successor, else the previous version of m
// (its predecessor, or its previous edit) against m.
func loadDiff(ctx context.Context, st Store, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		chain := []*memory.Memory{m}
		for cur := m; len(cur.Supersedes) > 0 && len(chain) < maxChain; {
			prev, err := st.Get(ctx, cur.Supersedes[0])
			if err != nil {
				break // forgotten: the chain starts here
			}
			chain, cur = append([]*memory.Memory{prev}, chain...), prev
		}
		for cur := m; cur.SupersededBy != "" && len(chain) < maxChain; {
			next, err := st.Get(ctx, cur.SupersededBy)
			if err != nil {
				break
			}
			chain, cur = append(chain, next), next
		}
		var vers []*memory.Memory
		at := 0 // index of m's current version in vers
		for _, c := range chain {
			h, err := st.History(ctx, c.ID)
			if err != nil || len(h) == 0 {
				h = []*memory.Memory{c}
			}
			vers = append(vers, h...)
			if c.ID == m.ID {
				at = len(vers) - 1
			}
		}
		if len(vers) < 2 {
			return historyLoadedMsg{id: m.ID, err: errNothingToCompare}
		}
		msg := historyLoadedMsg{id: m.ID, vers: vers, old: at - 1, new: at}
		switch {
		case at+1 < len(vers) && m.SupersededBy != "":
			msg.old, msg.new = at, at+1
		case at == 0:
			msg.old, msg.new = 0, 1
		}
		var ids []string
		for _, c := range chain {
			ids = append(ids, c.ID)
		}
		msg.shorts = shortsOf(ctx, st, ids...)
		return msg
	}
}

// maxChain bounds how far loadDiff follows a supersession chain.
const maxChain = 100

func doRecall(ctx context.Context, r func() (recall.Recaller, error), projects []string, query, path string) tea.Cmd {
	shown := query
	if path != "" {
		shown = strings.TrimSpace("--path " + path + " " + query)
	}
	return func() tea.Msg {
		rec, err := r()
		if err != nil {
			return recallDoneMsg{query: shown, err: err}
		}
		// One ask: while the index is being built the answer says how far
		// it is, the status line shows it, and the workbench asks again.
		resp, err := rec.Recall(ctx, recall.Request{Query: query, Path: path, Projects: projects, Limit: 50, Budget: 1 << 20})
		return recallDoneMsg{query: shown, feedbackQuery: query, path: path, projects: projects, resp: resp, err: err}
	}
}

// subscribe starts following the store's timeline; waitEvent reads one event.
func subscribe(ctx context.Context, st Store) tea.Cmd {
	return func() tea.Msg {
		ch, err := st.Subscribe(ctx)
		if err != nil {
			return nil
		}
		return subscribedMsg{ch}
	}
}

func waitEvent(ch <-chan memory.Event) tea.Cmd {
	return func() tea.Msg {
		e, ok := <-ch
		if !ok {
			return nil
		}
		return storeEventMsg{e}
	}
}

// writeEditFile puts text in a temporary file for $EDITOR.
func writeEditFile(text string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "cairn-*.md")
		if err != nil {
			return editorDoneMsg{err: err}
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return editorDoneMsg{err: err}
		}
		return editFileReadyMsg{path: f.Name()}
	}
}

// editExternally opens $VISUAL or $EDITOR (vi if neither is set) on path,
// handing it the terminal, and reads the file back when it exits.
func editExternally(ctx context.Context, path string) tea.Cmd {
	c := config.EditorCommand(ctx, os.Getenv, path)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: err}
		}
		b, err := os.ReadFile(path)
		return editorDoneMsg{text: string(b), err: err}
	})
}

// timer delivers msg after d.
func timer(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// loadQueue runs a wake check and reads the verify-first queue.
func loadQueue(ctx context.Context, svc Trust, project string, req int) tea.Cmd {
	return func() tea.Msg {
		if err := svc.Wake(ctx); err != nil {
			return queueLoadedMsg{project: project, req: req, err: err}
		}
		items, err := svc.Queue(ctx, recall.ActivationNow)
		return queueLoadedMsg{project: project, req: req, items: items, err: err}
	}
}

// confirm re-stamps a memory's watermarks: it still holds.
func confirm(ctx context.Context, svc Trust, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		got, err := svc.Confirm(ctx, m)
		return actionDoneMsg{act: actConfirm, mem: got, id: m.ID, err: err}
	}
}

// rebind binds a memory to other referents.
func rebind(ctx context.Context, svc Trust, m *memory.Memory, specs []string) tea.Cmd {
	return func() tea.Msg {
		got, err := svc.Rebind(ctx, m, specs)
		return actionDoneMsg{act: actRebind, mem: got, id: m.ID, err: err}
	}
}

// reject says the memory ref names (an id or a unique prefix) no longer
// holds: it stays in the verify-first queue, not served, until corrected.
func reject(ctx context.Context, svc Trust, st Store, ref string) tea.Cmd {
	return func() tea.Msg {
		m, err := getRef(ctx, st, ref)
		if err != nil {
			return actionDoneMsg{act: actReject, id: ref, err: err}
		}
		got, err := svc.Reject(ctx, m)
		return actionDoneMsg{act: actReject, mem: got, id: m.ID, err: err}
	}
}

// loadCalibration counts the project's reviews per watermark kind and
// reads the titles of the memories behind the flagged bindings.
func loadCalibration(ctx context.Context, svc Trust, st Store, project string) tea.Cmd {
	return func() tea.Msg {
		c, err := svc.Calibration(ctx)
		if err != nil {
			return calibrationLoadedMsg{project: project, err: err}
		}
		titles := map[string]string{}
		var ids []string
		for _, f := range c.Flagged {
			for _, id := range f.Memories[:min(len(f.Memories), shownPerBinding)] {
				if _, ok := titles[id]; ok {
					continue
				}
				ids = append(ids, id)
				if m, err := st.Get(ctx, id); err == nil {
					titles[id] = m.Title
				}
			}
		}
		return calibrationLoadedMsg{learned: learned{shortsOf(ctx, st, ids...)}, project: project, cal: c, titles: titles}
	}
}

// inboxLimit bounds how many drafts the inbox reads at once (the store
// keeps consolidated drafts too, until a person drops them).
const inboxLimit = 10000

// loadInbox reads the waiting drafts and the open proposals of project,
// oldest first, each proposal with its reason in words and the memories it
// names; req -1 only counts them.
func loadInbox(ctx context.Context, st Store, project string, req int) tea.Cmd {
	return loadSessionInbox(ctx, st, project, "", req)
}

// loadSessionInbox is loadInbox of one agent session's drafts — all of
// them, taken by consolidation or not — when session is set.
func loadSessionInbox(ctx context.Context, st Store, project, session string, req int) tea.Cmd {
	return func() tea.Msg {
		ds, err := st.Drafts(ctx, project, inboxLimit)
		if err != nil {
			return inboxLoadedMsg{project: project, req: req, err: err}
		}
		var ps []memory.Proposal
		if session == "" {
			if ps, err = st.Proposals(ctx, project, memory.ProposalOpen); err != nil {
				return inboxLoadedMsg{project: project, req: req, err: err}
			}
			ds = memory.Waiting(ds)
		} else {
			ds = slices.DeleteFunc(ds, func(d memory.Draft) bool { return d.Source.Session != session })
		}
		var gs []memory.Gap
		if session == "" {
			if gs, err = st.Gaps(ctx, project); err != nil {
				return inboxLoadedMsg{project: project, req: req, err: err}
			}
		}
		msg := inboxLoadedMsg{project: project, req: req, count: len(ds) + len(ps) + len(gs), session: session}
		if req < 0 {
			return msg
		}
		read := map[string]*memory.Memory{}
		get := func(id string) *memory.Memory {
			if id == "" {
				return nil
			}
			if m, ok := read[id]; ok {
				return m
			}
			m, err := st.Get(ctx, id)
			if err != nil {
				m = nil // forgotten since: the detail says so
			}
			read[id] = m
			return m
		}
		lookup := func(id string) (string, bool) {
			if m := get(id); m != nil {
				return m.Title, true
			}
			return "", false
		}
		for i := range ds {
			msg.items = append(msg.items, inboxItem{draft: &ds[i]})
		}
		for i := range gs {
			msg.items = append(msg.items, inboxItem{gap: &gs[i]})
		}
		for i := range ps {
			p := &ps[i]
			msg.items = append(msg.items, inboxItem{prop: p, reason: consolidate.Explain(p.Reason, lookup), target: get(p.Target), other: get(p.Other)})
		}
		var ids []string
		for _, m := range read {
			if m != nil {
				ids = append(ids, m.ID)
			}
		}
		msg.shorts = shortsOf(ctx, st, ids...)
		sort.SliceStable(msg.items, func(i, j int) bool {
			a, b := msg.items[i], msg.items[j]
			if !a.when().Equal(b.when()) {
				return a.when().Before(b.when())
			}
			return a.id() < b.id()
		})
		return msg
	}
}

// readDraft re-reads a draft, so the drop dialog shows what is stored.
func readDraft(ctx context.Context, st Store, project, id string) tea.Cmd {
	return func() tea.Msg {
		ds, err := st.Drafts(ctx, project, inboxLimit)
		if err != nil {
			return draftTextMsg{err: err}
		}
		for _, d := range ds {
			if d.ID == id {
				return draftTextMsg{draft: d}
			}
		}
		return draftTextMsg{err: fmt.Errorf("draft %s is no longer there: it was dropped elsewhere", short(id))}
	}
}

func dropGap(ctx context.Context, st Store, project, id string) tea.Cmd {
	return func() tea.Msg {
		return gapDroppedMsg{id: id, err: st.DropGap(ctx, project, id, memory.ActorUser)}
	}
}

// feedback says whether the recalled memory id helped with query.
func feedback(ctx context.Context, st Store, id, query string, helpful bool) tea.Cmd {
	return func() tea.Msg {
		return feedbackMsg{id: id, helpful: helpful, err: st.Feedback(ctx, id, query, helpful, memory.ActorUser)}
	}
}

func dropDraft(ctx context.Context, st Store, id string) tea.Cmd {
	return func() tea.Msg {
		return draftDroppedMsg{id: id, err: st.DropDraft(ctx, id, memory.ActorUser)}
	}
}

// decide accepts (with the person's edit of the candidate, when edited is
// not nil) or rejects a proposal, each as a run of its own.
func decide(ctx context.Context, st memory.Store, p memory.Project, id string, accept bool, edited *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		run, err := decideOne(ctx, st, p, id, accept, edited)
		msg := decidedMsg{accepted: accept, id: id, run: run, err: err}
		if err == nil {
			var parts []string
			for _, c := range run.Changes {
				switch c.Kind {
				case memory.ChangeAccept, memory.ChangeReject, memory.ChangeDraftDone, memory.ChangeLink:
					continue // the decision itself, and its bookkeeping
				}
				parts = append(parts, describe(ctx, st, run, c))
			}
			msg.text = strings.Join(parts, "; ")
		}
		return msg
	}
}

// decideOne accepts or rejects proposal id as the person.
func decideOne(ctx context.Context, st memory.Store, p memory.Project, id string, accept bool, edited *memory.Memory) (memory.Run, error) {
	if accept {
		return consolidate.Accept(ctx, st, p, id, edited, memory.ActorUser)
	}
	return consolidate.Reject(ctx, st, p, id, memory.ActorUser)
}

// decideMany accepts or rejects several proposals, one run each, and
// stops at the first that fails: what was decided stays decided (and
// /undo takes it back), the rest stay open.
func decideMany(ctx context.Context, st memory.Store, p memory.Project, ids []string, accept bool) tea.Cmd {
	return func() tea.Msg {
		msg := decidedManyMsg{accepted: accept}
		for _, id := range ids {
			run, err := decideOne(ctx, st, p, id, accept, nil)
			if err != nil {
				msg.err = fmt.Errorf("proposal %s: %w", short(id), err)
				return msg
			}
			msg.ids = append(msg.ids, id)
			if run.ID != "" {
				msg.runs = append(msg.runs, run.ID)
			}
		}
		return msg
	}
}

// describe is a change of run in words, the memory ids of its reason
// expanded into titles: those the run itself names first (on a dry run its
// new memories are not stored), then the store's.
func describe(ctx context.Context, st Store, run memory.Run, c memory.Change) string {
	c.Reason = consolidate.Explain(c.Reason, func(id string) (string, bool) {
		for _, o := range run.Changes {
			if o.Memory == id && o.Title != "" {
				return o.Title, true
			}
			if o.Target == id && o.TargetTitle != "" {
				return o.TargetTitle, true
			}
		}
		m, err := st.Get(ctx, id)
		if err != nil {
			return "", false
		}
		return m.Title, true
	})
	return consolidate.Describe(c)
}

// reportOrder is the order in which a report lists a run's changes: what
// changed the most first.
var reportOrder = []memory.ChangeKind{memory.ChangeSupersede, memory.ChangeCreate, memory.ChangeReinforce,
	memory.ChangeLesson, memory.ChangeReopen, memory.ChangeArchive, memory.ChangePropose, memory.ChangeLink}

// reportLines is a pass's report for people: its summary, then each change
// in words, grouped by kind, then the candidates it left out and why.
func reportLines(ctx context.Context, st Store, rep consolidate.Report) []string {
	lines := []string{rep.Summary()}
	var changes []string
	for _, k := range reportOrder {
		for _, c := range rep.Run.Changes {
			if c.Kind == k {
				changes = append(changes, "• "+describe(ctx, st, rep.Run, c))
			}
		}
	}
	if len(changes) > 0 {
		lines = append(append(lines, ""), changes...)
	}
	if len(rep.Dropped) > 0 {
		lines = append(lines, "", "Left out:")
		for _, d := range rep.Dropped {
			lines = append(lines, "• "+safetext.CleanLine(d))
		}
	}
	switch {
	case rep.DryRun:
		lines = append(lines, "", "A dry run: nothing was written. /consolidate does it.")
	case rep.Run.ID != "":
		lines = append(lines, "", "/undo takes the whole run back; elsewhere:", "  cairn consolidate --undo "+rep.Run.ID)
	}
	return lines
}

// consolidation is a pass under way. Its progress goes through a channel
// of one that keeps only the latest step (a busy screen skips steps; the
// pass never waits for the screen), its end through another.
type consolidation struct {
	progress chan consolidate.Progress
	done     chan consolidatedMsg
	finished chan struct{} // closed when the pass has returned
}

// report hands on p without ever blocking the pass: a step the screen has
// not read yet is replaced.
func (c *consolidation) report(p consolidate.Progress) {
	for {
		select {
		case c.progress <- p:
			return
		default:
		}
		select {
		case <-c.progress:
		default:
		}
	}
}

// startConsolidation runs a pass in the background and answers at once;
// waitConsolidation then reads its progress and its end. llm (may be nil)
// builds the language model the pass asks.
func startConsolidation(ctx context.Context, st memory.Store, p memory.Project, opt consolidate.Options, llm func() (*consolidate.LLM, error)) tea.Cmd {
	return func() tea.Msg {
		c := &consolidation{progress: make(chan consolidate.Progress, 1), done: make(chan consolidatedMsg, 1), finished: make(chan struct{})}
		opt.Progress = c.report
		go func() {
			defer close(c.finished)
			if llm != nil {
				model, err := llm()
				if err != nil {
					c.done <- consolidatedMsg{err: err}
					return
				}
				opt.LLM = model
			}
			rep, err := consolidate.Consolidate(ctx, st, p, opt)
			msg := consolidatedMsg{rep: rep, err: err}
			if err == nil {
				msg.lines = reportLines(ctx, st, rep)
			}
			c.done <- msg
		}()
		return consolidationStartedMsg{c}
	}
}

func waitConsolidation(c *consolidation) tea.Cmd {
	return func() tea.Msg {
		select {
		case msg := <-c.done:
			return msg
		case p := <-c.progress:
			return consolidationProgressMsg{c, p}
		}
	}
}

// undoRun takes back a run (an id or a unique prefix) exactly.
// undoRuns takes back a decision on several proposals: its runs, newest
// first, stopping at the first that fails.
func undoRuns(ctx context.Context, st memory.Store, p memory.Project, ids []string) tea.Cmd {
	return func() tea.Msg {
		msg := undoneMsg{}
		for i := len(ids) - 1; i >= 0; i-- {
			run, err := consolidate.Undo(ctx, st, p, ids[i], memory.ActorUser)
			if err != nil {
				msg.err = err
				return msg
			}
			msg.run = run
			msg.runs++
		}
		return msg
	}
}

func undoRun(ctx context.Context, st memory.Store, p memory.Project, id string) tea.Cmd {
	return func() tea.Msg {
		run, err := consolidate.Undo(ctx, st, p, id, memory.ActorUser)
		return undoneMsg{run: run, err: err}
	}
}

// loadArchived reads a project's archived memories (newest first, up to a
// page) for /unarchive's completion.
func loadArchived(ctx context.Context, st Store, project string) tea.Cmd {
	return func() tea.Msg {
		p, err := st.List(ctx, memory.Query{Project: project, Status: memory.StatusArchived, Limit: pageSize})
		return archivedLoadedMsg{project: project, items: p.Memories, err: err}
	}
}

// loadRepoSummary reads the project's repository summary.
func loadRepoSummary(ctx context.Context, st Store, project string, req int) tea.Cmd {
	return func() tea.Msg {
		sum, err := st.RepoSummary(ctx, project)
		return repoLoadedMsg{project: project, req: req, sum: sum, err: err}
	}
}

// loadRepoFiles reads the indexed files of a module. The root module
// holds only the files directly in the root: they are read one by one
// (from the outlines' paths), not every file of the project.
func loadRepoFiles(ctx context.Context, st Store, project, module string, req int) tea.Cmd {
	return func() tea.Msg {
		msg := repoFilesLoadedMsg{project: project, module: module, req: req}
		if module != "" {
			msg.files, msg.err = st.DerivedFiles(ctx, project, module)
			return msg
		}
		outlines, err := st.DerivedOutlines(ctx, project)
		if err != nil {
			msg.err = err
			return msg
		}
		var top []string
		for p := range outlines {
			if !strings.Contains(p, "/") {
				top = append(top, p)
			}
		}
		sort.Strings(top)
		for _, p := range top {
			fs, err := st.DerivedFiles(ctx, project, p)
			if err != nil {
				msg.err = err
				return msg
			}
			msg.files = append(msg.files, fs...)
		}
		return msg
	}
}

// runIndex brings the project's derived memory up to date (Options.Index).
func runIndex(ctx context.Context, index func(context.Context, memory.Project) (derive.Report, error), p memory.Project) tea.Cmd {
	return func() tea.Msg {
		rep, err := index(ctx, p)
		return indexedMsg{project: p, rep: rep, err: err}
	}
}

// runSync syncs the project with its team mirror (Options.Sync).
func runSync(ctx context.Context, sync func(context.Context, memory.Project) (mirror.Report, error), p memory.Project) tea.Cmd {
	return func() tea.Msg {
		rep, err := sync(ctx, p)
		return syncedMsg{project: p, rep: rep, err: err}
	}
}

// loadMirrorStatus reads where a project's memories stand against its team
// mirror (Options.MirrorStatus).
func loadMirrorStatus(ctx context.Context, status func(context.Context, memory.Project) (map[string]mirror.Pending, error), p memory.Project) tea.Cmd {
	return func() tea.Msg {
		pending, err := status(ctx, p)
		return mirrorLoadedMsg{project: p.ID, pending: pending, err: err}
	}
}
