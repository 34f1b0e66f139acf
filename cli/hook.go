package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/consolidate"
	"cairn/ingest"
	"cairn/memory"
	"cairn/project"
	"cairn/recall"
	"cairn/remote"
	"cairn/safetext"
	"cairn/trust"
)

// hookEvent is what Claude Code sends a hook on standard input.
type hookEvent struct {
	Event          string `json:"hook_event_name"`
	Session        string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Prompt         string `json:"prompt"`
	Source         string `json:"source"`  // SessionStart: startup, resume, clear, compact
	Trigger        string `json:"trigger"` // PreCompact: manual, auto
	Reason         string `json:"reason"`  // SessionEnd
}

// Bounds of a hook: it must never hold the agent up.
const (
	maxHookInput   = 1 << 20
	hookReadLimit  = 5 * time.Second
	hookLogMax     = 256 << 10
	maxHookLines   = 5
	maxTriggered   = 3 // negatives and lessons a prompt brings, at most
	hookBudget     = 1200
	promptBudget   = 600 // tokens of what a prompt brings (UserPromptSubmit)
	hookLogName    = "hooks.log"
	hookQuickLimit = 8 * time.Second  // SessionStart, UserPromptSubmit (Claude Code's timeout: 10 s as set up)
	hookLongLimit  = 55 * time.Second // PreCompact, SessionEnd (60 s)
	// A SessionEnd handed to a cairn in the background (hookIngest): the
	// pass bounds its model by llm.deadline, this bounds the rest.
	hookDetachedLimit = 15 * time.Minute
	briefingHeader    = "cairn remembers this about %s (its memory; verify what is marked stale before relying on it):\n\n"
)

func (a *app) hookCommand() *cobra.Command {
	var budget, prompt int
	cmd := &cobra.Command{
		Use:   "hook claude-code",
		Short: "run as Claude Code's hook: briefing at start, warnings on prompts, sessions in",
		Long: `Claude Code runs this for its lifecycle events, with the event as JSON on
standard input ('cairn setup claude-code' registers it):

  SessionStart      prints the warm-up briefing of the session's project
  UserPromptSubmit  prints the negatives and lessons whose triggers the
                    prompt names (at most 3, the most specific trigger
                    first, each whole: what failed, why, what to do)
                    and the verify-first memories it is about, within
                    --prompt-budget tokens; nothing otherwise
  PreCompact        reads the session's transcript into the drafts inbox
  SessionEnd        the same, then a quick consolidation pass (with the
                    chat model when one is set), both in a cairn it
                    starts in the background: the agent does not wait

It acts only in the project of the event's working directory. It never
blocks or breaks the agent: whatever goes wrong, it exits 0 and prints
nothing, and the reason goes to hooks.log in cairn's home ('cairn doctor'
shows the last ones).`,
		Args:   cobra.ExactArgs(1),
		Hidden: false,
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "claude-code" {
				return usagef("unknown agent %q: cairn hooks into claude-code", args[0])
			}
			a.runHook(cmd, hookBudgets{briefing: budget, prompt: prompt})
			return nil
		},
	}
	cmd.Flags().IntVar(&budget, "budget", hookBudget, "token budget of the SessionStart briefing")
	cmd.Flags().IntVar(&prompt, "prompt-budget", promptBudget, "token budget of what a prompt brings (UserPromptSubmit)")
	return cmd
}

// hookBudgets are the token budgets of what a hook prints.
type hookBudgets struct{ briefing, prompt int }

// runHook does the event's work; any failure is logged, never shown.
func (a *app) runHook(cmd *cobra.Command, budget hookBudgets) {
	ev := hookEvent{}
	defer func() {
		if r := recover(); r != nil {
			a.hookLog(ev.Event, fmt.Sprintf("internal error: %v", r))
		}
	}()
	raw, err := readHookInput(a.env.Stdin)
	if err != nil {
		a.hookLog("", err.Error())
		return
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		a.hookLog("", "the event on standard input is not JSON: "+jsonWhy(err))
		return
	}
	ev.Event = cleanLine(oneLine(ev.Event))
	switch ev.Event {
	case "SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd":
	default:
		return // not ours
	}
	// A watchdog: whatever blocks (a store held too long, a file that
	// never ends), the hook gives up inside the agent's own timeout.
	limit := hookQuickLimit
	if ev.Event == "PreCompact" || ev.Event == "SessionEnd" {
		limit = hookLongLimit
	}
	if ev.Event == "SessionEnd" && a.rawGetenv(detachedVar) != "" {
		limit = hookDetachedLimit // no agent waits for it (hookIngest)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), limit)
	defer cancel()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		out, err := a.hook(ctx, ev, budget)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		r.err = fmt.Errorf("gave up after %s", limit)
	}
	if r.err != nil {
		a.hookLog(ev.Event, oneLine(r.err.Error()))
		return
	}
	if r.out != "" {
		fmt.Fprint(cmd.OutOrStdout(), r.out)
	}
}

func (a *app) hook(ctx context.Context, ev hookEvent, budget hookBudgets) (string, error) {
	if ev.Event == "SessionEnd" && !wroteTranscript(ev.TranscriptPath) {
		return "", nil // a health check's session (see wroteTranscript): no failure
	}
	if ev.Cwd == "" || !filepath.IsAbs(ev.Cwd) {
		return "", errors.New("the event names no absolute working directory")
	}
	if info, err := os.Stat(ev.Cwd); err != nil || !info.IsDir() {
		return "", fmt.Errorf("the event's working directory %s is not a directory", cleanLine(ev.Cwd))
	}
	withModel := true
	if ev.Event == "SessionEnd" && a.env.Detach != nil && a.rawGetenv(detachedVar) == "" {
		// See hookIngest: the work goes to a cairn in the background.
		raw, err := json.Marshal(ev)
		if err == nil {
			err = a.env.Detach(raw, a.env.Args...)
		}
		if err == nil {
			return "", nil
		}
		a.hookLog(ev.Event, oneLine(err.Error())+": the hook reads the session itself, with the patterns")
		withModel = false // no model holds the hook up either
	}
	p, err := project.Detect(ev.Cwd)
	if err != nil {
		return "", err
	}
	if err := a.openStore(ctx); err != nil {
		return "", err
	}
	// The repository's project, whichever checkout or worktree of it the
	// agent runs in.
	stored, known, err := project.Find(ctx, a.st, p)
	switch {
	case err != nil:
		return "", err
	case !known && (ev.Event == "SessionStart" || ev.Event == "UserPromptSubmit"):
		return "", nil // nothing remembered for this project
	case known && ev.Event == "SessionStart" && project.Stale(stored, p, time.Now()):
		// A session's start notes the checkout it runs in (cairn
		// projects), at most hourly; the briefing goes on without it.
		if got, err := a.st.EnsureProject(ctx, p); err == nil {
			stored = got
		}
	}
	if known {
		stored.Root = p.Root // the checkout the agent works in
		p = stored
	}
	a.proj = p
	switch ev.Event {
	case "SessionStart":
		return a.hookBriefing(ctx, p, budget.briefing)
	case "UserPromptSubmit":
		return a.hookWarnings(ctx, p, ev.Prompt, budget.prompt)
	default:
		return "", a.hookIngest(ctx, p, ev, withModel)
	}
}

func (a *app) hookBriefing(ctx context.Context, p memory.Project, budget int) (string, error) {
	if budget <= 0 {
		budget = hookBudget
	}
	// What moved since is marked before it is served; a failed check is
	// logged, never shown (a hook's stderr reaches the agent's screen).
	if err := a.trustService().Wake(ctx); err != nil {
		a.hookLog("SessionStart", "wake check: "+oneLine(err.Error()))
	}
	// The project's brief is the repository's as it is now.
	if err := a.rederive(ctx); err != nil {
		a.hookLog("SessionStart", "re-index: "+oneLine(err.Error()))
	}
	b, err := recall.Context(ctx, a.st, a.scope(), budget)
	if err != nil {
		return "", err
	}
	if len(b.Sections) == 0 && b.Project == "" {
		return "", nil
	}
	return fmt.Sprintf(briefingHeader, cleanLine(p.Name)) + b.Markdown(), nil
}

// hookWarnings is what a prompt should not go ahead without: the
// negatives and lessons whose triggers it names, and the memories it is
// about whose trust fell, within budget tokens. It reads only the negative
// and lesson layers and the bound and reopened memories, not the whole
// store.
//
// A negative is told whole — its title and body, what failed, why and
// what to do instead: the part a title leaves out ("… with STAGE=staging
// first") is often the part that prevents the mistake. At most
// maxTriggered come, the most specific trigger first, each whole while the
// budget holds; the first that does not fit is cut at a sentence's end
// and says where the rest is (cairn show ID), and those after it are
// named by id only.
func (a *app) hookWarnings(ctx context.Context, p memory.Project, prompt string, budget int) (string, error) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return "", nil
	}
	if budget <= 0 {
		budget = promptBudget
	}
	hits, err := a.triggered(ctx, prompt)
	if err != nil {
		return "", err
	}
	out := hookOut{left: budget}
	seen := map[string]bool{}
	sids := make([]string, len(hits))
	for i, h := range hits {
		seen[h.Memory.ID] = true
		sids[i] = a.sid(ctx, h.Memory.ID)
	}
	for i, h := range hits {
		m := h.Memory
		what := "avoid"
		if m.Layer == memory.LayerMeta {
			what = "lesson"
		}
		head, trigger := "cairn: "+what+" — ", fmt.Sprintf("trigger %q", cleanLine(h.Trigger))
		text := warningText(m)
		if out.add(head + indentLines(text) + " [" + trigger + ", id " + sids[i] + "]\n") {
			continue
		}
		// The first that does not fit whole is cut, leaving room to name
		// the ones after it.
		more := ""
		if rest := sids[i+1:]; len(rest) > 0 {
			more = fmt.Sprintf("cairn: also triggered, left out for the budget: %s (cairn show ID)\n", strings.Join(rest, ", "))
		}
		reserve := recall.TextCost(more)
		out.left -= reserve
		if !out.addCut(head, text, " [… cut: cairn show "+sids[i]+"; "+trigger+"]\n") {
			more = fmt.Sprintf("cairn: also triggered, left out for the budget: %s (cairn show ID)\n", strings.Join(sids[i:], ", "))
		}
		out.left += reserve
		if more != "" {
			out.add(more)
		}
		break
	}
	// Verify first: the memories that can go stale (bound) or were sent
	// back (reopened decisions), when the prompt names them.
	var cands []*memory.Memory
	bound, err := a.fired(ctx, p.ID)
	if err != nil {
		return "", err
	}
	for _, b := range bound { // ids and bindings only: read those that moved
		if !stale(b) {
			continue
		}
		m, err := a.st.Get(ctx, b.ID)
		if err != nil {
			continue // forgotten since
		}
		cands = append(cands, m)
	}
	ds, err := listAll(ctx, a.st, memory.Query{Project: p.ID, Layer: memory.LayerDecision})
	if err != nil {
		return "", err
	}
	cands = append(cands, ds...)
	now := time.Now()
	words := promptWords(prompt)
	for _, m := range cands {
		if seen[m.ID] || m.Status != memory.StatusActive || memory.TrustAt(m, now) >= trust.Threshold || out.lines >= maxHookLines {
			continue
		}
		if about(m, prompt, words) {
			seen[m.ID] = true
			why := "its trust fell"
			if !m.ReopenedAt.IsZero() {
				why = "its grounds changed"
			} else if stale(m) {
				why = "what it is about changed since"
			}
			out.add(fmt.Sprintf("cairn: verify first — %s (%s: %s)\n", cleanLine(m.Title), a.sid(ctx, m.ID), why))
		}
	}
	return out.b.String(), nil
}

// triggered are the negatives and lessons of the projects in scope whose
// triggers the prompt names, at most maxTriggered: the most specific
// trigger first (see recall.MoreSpecific), then negatives before lessons and the
// project's before the global ones, newest first. Each hit carries the
// most specific of its triggers that fired.
func (a *app) triggered(ctx context.Context, prompt string) ([]memory.TriggerHit, error) {
	var hits []memory.TriggerHit
	seen := map[string]bool{}
	text := memory.PrepareTriggerText(prompt)
	for _, pid := range a.scope() {
		got, err := a.st.Triggered(ctx, pid, prompt, 4*maxTriggered)
		if err != nil {
			return nil, err
		}
		for _, h := range got {
			if seen[h.Memory.ID] {
				continue
			}
			seen[h.Memory.ID] = true
			for _, tr := range h.Memory.Triggers {
				if recall.MoreSpecific(tr, h.Trigger) && text.Match([]string{tr}) != "" {
					h.Trigger = strings.TrimSpace(tr)
				}
			}
			hits = append(hits, h)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return recall.MoreSpecific(hits[i].Trigger, hits[j].Trigger) })
	if len(hits) > maxTriggered {
		hits = hits[:maxTriggered]
	}
	return hits, nil
}

// warningText is a memory's whole text for an agent: the title, then the
// body when it says more (a title cut from the body's start is not said
// twice), on lines cleaned of escapes.
func warningText(m *memory.Memory) string {
	title := cleanLine(m.Title)
	var lines []string
	for _, l := range strings.Split(safetext.Clean(m.Body), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	body := strings.Join(lines, "\n")
	switch {
	case body == "":
		return title
	case m.TitleDerived() || strings.HasPrefix(body, strings.TrimSpace(strings.TrimSuffix(title, "…"))):
		return body
	}
	return title + "\n" + body
}

func indentLines(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// hookOut is a hook's output within a token budget (recall.TextCost).
type hookOut struct {
	b     strings.Builder
	left  int // tokens
	lines int // warnings written
}

// add writes block when it fits what is left of the budget.
func (o *hookOut) add(block string) bool {
	c := recall.TextCost(block)
	if c > o.left {
		return false
	}
	o.b.WriteString(block)
	o.left -= c
	o.lines++
	return true
}

// addCut writes head, as much of text as fits cut at a sentence's end
// (recall.CutText), and marker; or head and marker alone when not a word
// fits; false when not even those do.
func (o *hookOut) addCut(head, text, marker string) bool {
	room := o.left - recall.TextCost(head) - recall.TextCost(marker)
	for room > 0 {
		part := recall.CutText(text, room)
		if part == "" {
			break
		}
		if o.add(head + indentLines(part) + marker) {
			return true
		}
		room -= max(1, recall.TextCost(head+indentLines(part)+marker)-o.left)
	}
	return o.add(head + strings.TrimPrefix(marker, " "))
}

// fired is the bound memories of a project that carry a watermark that
// moved or is gone (and maybe others): read by the stamps that fired, not
// by reading every bound memory.
func (a *app) fired(ctx context.Context, project string) ([]*memory.Memory, error) {
	sum, err := a.st.BoundTargets(ctx, project)
	if err != nil {
		return nil, err
	}
	var targets []string
	for _, bt := range sum {
		if bt.State.Fired() {
			targets = append(targets, bt.Target)
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	return a.st.BoundTo(ctx, project, targets)
}

func stale(m *memory.Memory) bool {
	for _, w := range m.Watermarks {
		if w.State.Fired() {
			return true
		}
	}
	return false
}

// about reports whether a prompt is about a memory: it names one of the
// files or names the memory is bound to, or shares most of the title's
// content words.
func about(m *memory.Memory, prompt string, words map[string]bool) bool {
	low := strings.ToLower(prompt)
	for _, w := range m.Watermarks {
		if t := strings.ToLower(w.Target); len(t) >= 3 && (strings.Contains(low, t) || strings.Contains(low, filepath.Base(t)) && len(filepath.Base(t)) >= 5) {
			return true
		}
	}
	title := promptWords(m.Title)
	if len(title) == 0 {
		return false
	}
	shared := 0
	for w := range title {
		if words[w] {
			shared++
		}
	}
	return shared >= 2 && shared*2 >= len(title)
}

// promptWords are a text's content words, stemmed as recall stems them.
func promptWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range recall.Tokens(s) {
		out[w] = true
	}
	return out
}

func listAll(ctx context.Context, st memory.Store, q memory.Query) ([]*memory.Memory, error) {
	q.Limit = 1000
	var out []*memory.Memory
	err := memory.EachPage(ctx, st, q, func(page []*memory.Memory) error {
		out = append(out, page...)
		return nil
	})
	return out, err
}

// hookIngest reads the session's transcript (from where the last read
// stopped) and, when the session ended, runs the quick consolidation pass
// over its drafts — with the chat model, when one is configured and
// withModel.
//
// A session's end comes here in a cairn in the background (see hook),
// which does the work and exits: Claude Code is reported to cancel a
// SessionEnd hook still running when it exits (after Ctrl+C, with MCP
// servers to stop; not seen here), and an agent must not wait for a chat
// model, which the pass waits for at most llm.deadline (the patterns
// finish). When no cairn can be started, the hook does the work itself,
// with the patterns.
func (a *app) hookIngest(ctx context.Context, p memory.Project, ev hookEvent, withModel bool) error {
	if ev.TranscriptPath == "" {
		return errors.New("the event names no transcript")
	}
	final := ev.Event == "SessionEnd"
	var llm *consolidate.LLM
	if final && withModel {
		var err error
		if llm, err = a.llm(); err != nil {
			a.hookLog(ev.Event, oneLine(err.Error())+": the patterns read the session")
			llm = nil
		}
	}
	rep, err := ingest.Ingest(ctx, a.st, ev.TranscriptPath, ingest.IngestOptions{Final: final, Only: p.ID})
	if final && errors.Is(err, fs.ErrNotExist) {
		// A session that wrote nothing: Claude Code runs SessionEnd for its
		// own health checks (`claude mcp list`, `claude doctor`) with a
		// transcript it never writes. Nothing to read is no failure.
		return nil
	}
	if err != nil {
		return err
	}
	if rep.Added == 0 && (!final || !rep.Pending) {
		// Nothing new, and the pass after the last read took what it
		// read: no pass, which would read the whole project to find
		// nothing to do.
		return nil
	}
	_, err = consolidate.Consolidate(ctx, a.st, p, consolidate.Options{
		AskedBy: memory.ActorAgent, Quick: true, Session: rep.Session,
		Bind: a.trustService().BindMany, LLM: llm,
	})
	if err != nil {
		return err
	}
	return ingest.Settle(ctx, a.st, rep)
}

// readHookInput reads the event, bounded in size and time: an agent that
// never closes standard input must not hang the hook.
func readHookInput(r io.Reader) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
		done <- read{b, err}
	}()
	select {
	case got := <-done:
		if got.err != nil {
			return nil, fmt.Errorf("read the event: %v", got.err)
		}
		if len(got.b) > maxHookInput {
			return nil, fmt.Errorf("the event is over %d bytes", maxHookInput)
		}
		if len(strings.TrimSpace(string(got.b))) == 0 {
			return nil, errors.New("no event on standard input")
		}
		return got.b, nil
	case <-time.After(hookReadLimit):
		return nil, errors.New("no event on standard input after 5s")
	}
}

// hookLog appends one line to hooks.log in cairn's home, keeping the file
// small. It names the event and the reason, never a prompt.
func (a *app) hookLog(event, reason string) {
	home, err := a.homeDir()
	if err != nil {
		return
	}
	if event == "" {
		event = "hook"
	}
	line := fmt.Sprintf("%s %s: %s", time.Now().UTC().Format(time.RFC3339), cleanLine(event), cleanLine(oneLine(reason)))
	// Never through a link planted at the name: what a failing hook trims
	// is its own log, never what a link points at.
	_ = remote.AppendLine(filepath.Join(home, hookLogName), hookLogMax, line)
}

// jsonWhy is a JSON error in a few words, without the text it quotes.
func jsonWhy(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s has the wrong type", te.Field)
	}
	return "not an object of the expected shape"
}
