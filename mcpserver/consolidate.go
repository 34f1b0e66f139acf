package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/safetext"
)

const consolidateDescription = "Consolidate this project's memory (\"sleep\"): read the drafts waiting in the inbox " +
	"(what capture appended) and turn them into memories. It extracts facts, preferences, decisions with their because and " +
	"failures with their cause; folds duplicates (the same fact said again reinforces the existing memory instead of copying it); " +
	"supersedes a contradicted fact when the new one's provenance ranks at least as high as the old one's; writes a lesson (layer meta) " +
	"when what it corrects was second-hand; reopens decisions whose reason or evidence changed, for verification; and leaves what " +
	"is uncertain (near-duplicates, contradictions by a lower-ranked source, weak and stale memories) as proposals that a person " +
	"reviews with `cairn inbox` — agents cannot accept or reject them. Only this project's drafts and memories are touched. " +
	"Returns every change in words and the run id; every run can be undone by a person with `cairn consolidate --undo`. " +
	"dry_run reports what it would do and writes nothing."

type ConsolidateIn struct {
	DryRun bool `json:"dry_run,omitempty" jsonschema:"report what would change and write nothing"`
}

// Change is one change of a consolidation run, as tools return it.
type Change struct {
	Kind     string `json:"kind"`
	Text     string `json:"text"` // the change in words, memories named by title
	Memory   string `json:"memory,omitempty"`
	Target   string `json:"target,omitempty"`
	Proposal string `json:"proposal,omitempty"`
	Draft    string `json:"draft,omitempty"`
}

type ConsolidateOut struct {
	Run     string         `json:"run,omitempty"` // empty on a dry run and when nothing changed
	DryRun  bool           `json:"dry_run"`
	Drafts  int            `json:"drafts"`
	Summary string         `json:"summary"`
	Counts  map[string]int `json:"counts"`
	Changes []Change       `json:"changes"`
	Dropped []string       `json:"dropped,omitempty"`
	// ProposalsOpen is how many proposals of this project wait for a
	// person now (on a dry run, not counting those it would make).
	ProposalsOpen int `json:"proposals_open"`
	// Note says what was off without stopping the pass (a language model
	// that is misconfigured).
	Note string `json:"note,omitempty"`
}

func (s *Server) consolidate(ctx context.Context, req *mcp.CallToolRequest, in ConsolidateIn) (*mcp.CallToolResult, ConsolidateOut, error) {
	out := ConsolidateOut{DryRun: in.DryRun, Counts: map[string]int{}, Changes: []Change{}}
	opt := consolidate.Options{DryRun: in.DryRun, AskedBy: memory.ActorAgent, Progress: progressTo(ctx, req), Bind: s.bindMany}
	var llm *consolidate.LLM
	var err error
	if s.llm != nil {
		llm, err = s.llm()
	}
	if err != nil {
		// A misconfigured model should not stop the pass the patterns can
		// do on their own; the agent hears about it and can tell the person.
		out.Note = "language model not used: " + safetext.CleanLine(err.Error())
	} else {
		opt.LLM = llm
	}
	rep, err := consolidate.Consolidate(ctx, s.st, s.proj, opt)
	if errors.Is(err, memory.ErrStale) {
		return nil, out, fmt.Errorf("the memories changed while consolidating, again and again: call consolidate again")
	}
	if err != nil {
		return nil, out, err
	}
	out.Run, out.Drafts, out.Summary, out.Dropped = rep.Run.ID, rep.Drafts, rep.Summary(), rep.Dropped
	for k, n := range rep.Counts {
		out.Counts[string(k)] = n
	}
	explain := s.explainer(ctx)
	for _, c := range rep.Run.Changes {
		c.Reason = explain(c.Reason)
		out.Changes = append(out.Changes, Change{Kind: string(c.Kind), Text: consolidate.Describe(c),
			Memory: c.Memory, Target: c.Target, Proposal: c.Proposal, Draft: c.Draft})
	}
	for i, d := range out.Dropped {
		out.Dropped[i] = safetext.CleanLine(d)
	}
	open, err := s.st.Proposals(ctx, s.proj.ID, memory.ProposalOpen)
	if err != nil {
		return nil, out, err
	}
	out.ProposalsOpen = len(open)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.text()}}}, out, nil
}

// maxListed bounds the changes the report lists in words: a pass over a
// thousand drafts would otherwise fill the agent's context with a report.
const maxListed = 40

// text is the report in words, for the agent to read and pass on.
func (o ConsolidateOut) text() string {
	var b strings.Builder
	switch {
	case o.DryRun:
		fmt.Fprintf(&b, "dry run, nothing written: %s\n", o.Summary)
	case o.Run == "":
		fmt.Fprintf(&b, "nothing to do: %s\n", o.Summary)
	default:
		fmt.Fprintf(&b, "consolidated %s (run %s)\n", o.Summary, o.Run)
	}
	listed, more := 0, 0
	for _, c := range o.Changes {
		switch {
		case c.Kind == string(memory.ChangeDraftDone): // the summary counts them
		case listed == maxListed:
			more++
		default:
			b.WriteString("- " + c.Text + "\n")
			listed++
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "- … and %d more changes (the structured result lists them all)\n", more)
	}
	for i, d := range o.Dropped {
		if i == maxListed {
			fmt.Fprintf(&b, "left out: … and %d more\n", len(o.Dropped)-i)
			break
		}
		b.WriteString("left out: " + d + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	if n := o.ProposalsOpen; n > 0 {
		what := fmt.Sprintf("%d proposals wait", n)
		if n == 1 {
			what = "1 proposal waits"
		}
		fmt.Fprintf(&b, "%s for a person to review (`cairn inbox`); agents cannot accept or reject them.\n", what)
	}
	if o.Run != "" {
		fmt.Fprintf(&b, "A person can undo this run with `cairn consolidate --undo %s`.\n", o.Run)
	}
	return b.String()
}

// explainer expands the memory ids of a stored reason into titles, looking
// only at what this server may show: a memory of another project reads as
// absent, as it does everywhere else here.
func (s *Server) explainer(ctx context.Context) func(string) string {
	lookup := func(id string) (string, bool) {
		m, err := s.st.Get(ctx, id)
		if err != nil || !s.inScope(m.Project) {
			return "", false
		}
		return m.Title, true
	}
	return func(reason string) string { return consolidate.Explain(reason, lookup) }
}

// bindMany binds the texts of new memories to what they name, from the
// agent's side (its checkout and environment), in one batch.
func (s *Server) bindMany(ctx context.Context, texts []string) [][]memory.Watermark {
	if s.trust == nil {
		return nil
	}
	return s.trust.BindMany(ctx, texts)
}

// progressTo sends a pass's progress to the client as MCP progress
// notifications, when it asked for them with a progress token. A stage's
// steps are thinned to about twenty, so that ten thousand drafts do not
// make ten thousand messages.
func progressTo(ctx context.Context, req *mcp.CallToolRequest) func(consolidate.Progress) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	sent, stage, last := 0, "", -1
	return func(p consolidate.Progress) {
		step := max(p.Total/20, 1)
		if p.Stage == stage && p.Done != p.Total && p.Done-last < step {
			return
		}
		stage, last = p.Stage, p.Done
		sent++
		msg := p.Stage
		if p.Total > 0 {
			msg = fmt.Sprintf("%s %d/%d", p.Stage, p.Done, p.Total)
		}
		// Progress only has to grow; the message says where the pass is.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(sent), Message: msg})
	}
}
