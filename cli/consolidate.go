package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"cairn/consolidate"
	"cairn/memory"
)

func (a *app) consolidateCommand() *cobra.Command {
	var dry, runs bool
	var undo string
	var limit int
	c := &cobra.Command{
		Use:   "consolidate",
		Short: "turn waiting drafts into memories, fold duplicates, supersede contradicted facts (--dry-run to preview, --undo RUN to take back)",
		Long: `consolidate runs one pass ("sleep") over the project's waiting drafts and its
active memories: it extracts memories from the drafts, folds duplicates into
the memory they repeat, supersedes a contradicted fact when the newer one's
provenance ranks at least as high, writes lessons about corrected guesses,
reopens decisions whose reason or evidence changed, and leaves what is
uncertain as proposals in the inbox (cairn inbox).

Every change is printed, and the pass is one run that can be undone exactly:
  cairn consolidate --dry-run      what it would do; nothing is written
  cairn consolidate --undo RUN     take a whole run back
  cairn consolidate --runs         the project's recent runs

A language model is asked for candidates when CAIRN_LLM_URL and
CAIRN_LLM_MODEL name an OpenAI-compatible endpoint; without one the
patterns do all of it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			undoing := cmd.Flags().Changed("undo")
			switch {
			case undoing && (dry || runs):
				return usagef("--undo cannot be combined with --dry-run or --runs: undo a run on its own")
			case runs && dry:
				return usagef("--runs lists runs; --dry-run previews a pass: give one of them")
			case undoing && strings.TrimSpace(undo) == "":
				return usagef("--undo needs a run id: list them with: cairn consolidate --runs")
			case limit <= 0:
				return usagef("--limit %d: use a positive number", limit)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			switch {
			case undoing:
				return a.undoRun(cmd, undo)
			case runs:
				return a.listRuns(cmd, limit)
			}
			return a.consolidate(cmd, dry)
		},
	}
	c.Flags().BoolVar(&dry, "dry-run", false, "report what the pass would do and write nothing")
	c.Flags().StringVar(&undo, "undo", "", "take back the whole run RUN (an id or a unique prefix of at least 4 characters)")
	c.Flags().BoolVar(&runs, "runs", false, "list the project's recent runs, newest first")
	c.Flags().IntVarP(&limit, "limit", "n", 20, "with --runs: at most this many")
	return c
}

// llm builds the language model a pass asks, from the settings in force
// (loaded once, when the command starts); nil when none is configured.
func (a *app) llm() (*consolidate.LLM, error) { return consolidate.LLMFromEnv(a.env.Getenv) }

// consolidate runs one pass and prints its report.
func (a *app) consolidate(cmd *cobra.Command, dry bool) error {
	ctx := cmd.Context()
	llm, err := a.llm()
	if err != nil {
		return err
	}
	opt := consolidate.Options{DryRun: dry, AskedBy: memory.ActorUser, LLM: llm,
		Bind: a.trustService().Checker.BindMany}
	var pl *progressLine
	if f, ok := a.env.Stderr.(*os.File); ok && term.IsTerminal(f.Fd()) {
		pl = newProgressLine(f)
		opt.Progress = pl.show
	}
	rep, err := consolidate.Consolidate(ctx, a.st, a.proj, opt)
	pl.clear() // before the report: stdout and stderr may share the terminal
	if errors.Is(err, memory.ErrStale) {
		return errors.New("the memories kept changing while consolidating (another writer is busy): run cairn consolidate again")
	}
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if a.json {
		if rep.Run.Changes == nil {
			rep.Run.Changes = []memory.Change{}
		}
		rep.Run.Project = a.projectName(cmd.Context(), rep.Run.Project)
		return writeJSON(w, rep)
	}
	if dry {
		fmt.Fprintln(w, "dry run: nothing was written")
	}
	defer writeAnswered(w, rep.Answered, dry)
	if !rep.Changed() {
		fmt.Fprintf(w, "nothing to consolidate (%s read)\n", plural(rep.Drafts, "waiting draft", "waiting drafts"))
		writeDropped(w, rep.Dropped)
		writeLate(w, rep)
		return nil
	}
	explain := a.explainer(ctx, rep.Run.Changes)
	for _, line := range describeChanges(rep.Run.Changes, explain) {
		fmt.Fprintln(w, line)
	}
	writeDropped(w, rep.Dropped)
	writeLate(w, rep)
	counts := countChanges(rep.Run.Changes)
	from := plural(rep.Drafts, "draft", "drafts")
	if dry {
		fmt.Fprintf(w, "would make: %s (from %s)\n", counts, from)
		return nil
	}
	fmt.Fprintf(w, "run %s: %s (from %s) — undo with: cairn consolidate --undo %s\n", rep.Run.ID, counts, from, rep.Run.ID)
	if n := rep.Counts[memory.ChangePropose]; n > 0 {
		fmt.Fprintf(w, "%s for you: cairn inbox\n", plural(n, "proposal waits", "proposals wait"))
	}
	return nil
}

// writeLate says when the model's deadline for the pass passed.
func writeLate(w io.Writer, rep consolidate.Report) {
	if n := rep.LateNote(); n != "" {
		fmt.Fprintln(w, n)
	}
}

// writeAnswered lists the gaps the memories answer now (closed, or on a
// dry run, to be closed).
func writeAnswered(w io.Writer, as []consolidate.Answered, dry bool) {
	verb := "closed"
	if dry {
		verb = "would close"
	}
	for _, a := range as {
		fmt.Fprintf(w, "%s the gap %q: answered by %s '%s'\n", verb, preview(a.Gap.Query, 60), a.By, preview(a.Title, 50))
	}
}

// undoRun takes back a whole run and says what it took back.
func (a *app) undoRun(cmd *cobra.Command, id string) error {
	ctx := cmd.Context()
	// The changes are read before the undo: afterwards what the run
	// created is gone, and its titles with it.
	var changes []memory.Change
	if rs, err := a.st.Runs(ctx, a.proj.ID, 1000); err == nil {
		want := strings.ToUpper(strings.TrimSpace(id))
		for _, r := range rs {
			if strings.HasPrefix(r.ID, want) {
				if changes != nil {
					changes = nil // ambiguous: the store says so below
					break
				}
				changes = r.Changes
			}
		}
	}
	run, err := consolidate.Undo(ctx, a.st, a.proj, id, memory.ActorUser)
	if errors.Is(err, memory.ErrNotFound) {
		return hintf("list them with: cairn consolidate --runs", "no run %s in project %s", cleanLine(id), cleanLine(a.proj.Name))
	}
	if err != nil {
		return err // a stale run says what changed since and what to do
	}
	if len(run.Changes) == 0 {
		run.Changes = changes
	}
	w := cmd.OutOrStdout()
	if a.json {
		if run.Changes == nil {
			run.Changes = []memory.Change{}
		}
		run.Project = a.projectName(cmd.Context(), run.Project)
		return writeJSON(w, run)
	}
	taken, drafts := 0, 0
	for _, c := range run.Changes {
		switch {
		case c.Kind == memory.ChangeDraftDone:
			drafts++
		case !lessonLink(c): // counted as its lesson, as the lines below show
			taken++
		}
	}
	line := fmt.Sprintf("undid run %s: %s taken back", run.ID, plural(taken, "change", "changes"))
	if drafts > 0 {
		line += ", " + plural(drafts, "draft waits", "drafts wait") + " again"
	}
	fmt.Fprintln(w, line)
	for _, l := range describeChanges(run.Changes, a.explainer(ctx, run.Changes)) {
		fmt.Fprintln(w, "  "+l)
	}
	return nil
}

// listRuns prints the project's recent runs, newest first.
func (a *app) listRuns(cmd *cobra.Command, limit int) error {
	rs, err := a.st.Runs(cmd.Context(), a.proj.ID, limit)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if a.json {
		if rs == nil {
			rs = []memory.Run{}
		}
		a.nameRuns(cmd.Context(), rs)
		return writeJSON(w, rs)
	}
	if len(rs) == 0 {
		fmt.Fprintf(w, "no consolidation runs in project %s yet — run: cairn consolidate\n", cleanLine(a.proj.Name))
		return nil
	}
	for _, r := range rs {
		state := ""
		if !r.UndoneAt.IsZero() {
			state = "  [undone " + r.UndoneAt.Local().Format(timeFmt) + "]"
		}
		fmt.Fprintf(w, "%s  %s  %s%s\n", r.ID, r.Time.Local().Format(timeFmt), cleanLine(r.Summary), state)
	}
	return nil
}

// changeOrder is the order in which a report lists changes: what was
// corrected first, then what is new, what was said again, what was learnt,
// what needs a look, and what waits for a person.
var changeOrder = []memory.ChangeKind{
	memory.ChangeSupersede, memory.ChangeCreate, memory.ChangeReinforce, memory.ChangeLesson,
	memory.ChangeReopen, memory.ChangeLink, memory.ChangeArchive, memory.ChangePropose,
	memory.ChangeAccept, memory.ChangeReject,
}

// describeChanges is one line per change, grouped by kind in changeOrder.
// Drafts taken are left to the summary, and so are lessons' lesson_of
// links (the lesson's own line says what it is about).
func describeChanges(cs []memory.Change, explain func(string) string) []string {
	var out []string
	for _, k := range changeOrder {
		for _, c := range cs {
			if c.Kind != k || lessonLink(c) {
				continue
			}
			c.Reason = explain(c.Reason)
			line := consolidate.Describe(c)
			if c.Kind == memory.ChangePropose && c.Proposal != "" {
				line += " — cairn inbox show " + c.Proposal
			}
			out = append(out, cleanLine(line))
		}
	}
	return out
}

// lessonLink reports whether c is the lesson_of link of a lesson, which
// the lesson's own line already says.
func lessonLink(c memory.Change) bool {
	return c.Kind == memory.ChangeLink && c.Reason == string(memory.EdgeLessonOf)
}

// countChanges is "5 new, 2 reinforced, 1 superseded, …" for a run.
func countChanges(cs []memory.Change) string {
	n := map[memory.ChangeKind]int{}
	for _, c := range cs {
		if !lessonLink(c) {
			n[c.Kind]++
		}
	}
	names := []struct {
		k         memory.ChangeKind
		one, more string
	}{
		{memory.ChangeCreate, "new", "new"}, {memory.ChangeReinforce, "reinforced", "reinforced"},
		{memory.ChangeSupersede, "superseded", "superseded"}, {memory.ChangeLesson, "lesson", "lessons"},
		{memory.ChangeReopen, "reopened", "reopened"}, {memory.ChangeLink, "link", "links"},
		{memory.ChangeArchive, "archived", "archived"}, {memory.ChangePropose, "proposal", "proposals"},
		{memory.ChangeAccept, "accepted", "accepted"}, {memory.ChangeReject, "rejected", "rejected"},
	}
	var parts []string
	for _, nm := range names {
		if c := n[nm.k]; c > 0 {
			parts = append(parts, plural(c, nm.one, nm.more))
		}
	}
	if len(parts) == 0 {
		return "no memory changed"
	}
	return strings.Join(parts, ", ")
}

// writeDropped lists the candidates a pass left out, a few of them.
func writeDropped(w io.Writer, dropped []string) {
	const show = 10
	for i, d := range dropped {
		if i == show {
			fmt.Fprintf(w, "… and %d more left out (--json lists them all)\n", len(dropped)-show)
			break
		}
		fmt.Fprintln(w, "left out: "+cleanLine(d))
	}
}

func plural(n int, one, more string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, more)
}

// explainer expands the memory ids in a stored reason into titles: those
// of the changes at hand first (a dry run's new memories are in no store),
// then the store's, of this project or global only.
func (a *app) explainer(ctx context.Context, cs []memory.Change) func(string) string {
	titles := map[string]string{}
	for _, c := range cs {
		if c.Memory != "" && c.Title != "" {
			titles[c.Memory] = c.Title
		}
		if c.Target != "" && c.TargetTitle != "" {
			titles[c.Target] = c.TargetTitle
		}
	}
	lookup := func(id string) (string, bool) {
		if t, ok := titles[id]; ok {
			return t, true
		}
		m, err := a.st.Get(ctx, id)
		if err != nil || m.Project != a.proj.ID && m.Project != memory.GlobalID {
			return "", false
		}
		return m.Title, true
	}
	return func(s string) string { return consolidate.Explain(s, lookup) }
}

// progressLine shows a pass's progress on a terminal as one line that is
// rewritten in place, at most every tick, and erased when the pass ends.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	last  time.Time
	stage string
	shown bool
}

// progressTick bounds how often the line is rewritten: a pass over ten
// thousand drafts reports each one, and a terminal need not draw them all.
const progressTick = 100 * time.Millisecond

func newProgressLine(w io.Writer) *progressLine { return &progressLine{w: w, now: time.Now} }

func (p *progressLine) show(pr consolidate.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	final := pr.Total > 0 && pr.Done >= pr.Total
	if pr.Stage == p.stage && !final && now.Sub(p.last) < progressTick {
		return
	}
	p.stage, p.last, p.shown = pr.Stage, now, true
	line := "consolidating: " + cleanLine(pr.Stage)
	if pr.Total > 0 {
		line += fmt.Sprintf(" %d/%d", pr.Done, pr.Total)
	}
	// Carriage return, the line, then erase what a longer line left.
	fmt.Fprint(p.w, "\r"+line+"\x1b[K")
}

// clear erases the line, so the report starts on a clean screen.
func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
