package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/consolidate"
	"cairn/ingest"
	"cairn/internal/inboxline"
	"cairn/memory"
	"cairn/safetext"
)

// proposalOut is a proposal as inbox --json lists it: with its preview in
// words (memories named by title), the line the text listing shows.
type proposalOut struct {
	memory.Proposal
	Preview string `json:"preview"`
	// Change is what accepting it would change, in one line: the line
	// the text listing shows.
	Change string `json:"change"`
}

func (a *app) inboxCommand() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "inbox",
		Short: "what waits for you: drafts to consolidate and proposals to accept or reject",
		Long: `inbox lists what waits in this project, oldest first: the drafts captured
(by capture, agents and transcripts) that no consolidation has taken yet, and
the proposals consolidation left for a person (merge, supersede, archive,
remember), each with its time and what it would change: a supersession's old
→ new words, a merge's two titles, a new memory's title and kind.

  cairn inbox show ID      a draft whole, or a proposal with both texts and a word diff
  cairn inbox accept ID... carry out proposals (--title, --body, --layer edit one first)
  cairn inbox reject ID... close proposals; they are not made again
  cairn inbox accept --every merge   all open proposals of one kind, after a list and a yes
  cairn inbox drop ID      delete a draft for good (drafts hold raw text)

--all also lists the drafts consolidation already took (kept so a run can
be undone), so that a person can still erase them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			ctx := cmd.Context()
			ds, done, err := a.inboxDrafts(ctx, all)
			if err != nil {
				return err
			}
			ps, err := a.st.Proposals(ctx, a.proj.ID, memory.ProposalOpen)
			if err != nil {
				return err
			}
			explain := a.explainer(ctx, nil)
			outs := make([]proposalOut, 0, len(ps))
			for _, p := range ps {
				outs = append(outs, proposalOut{p, proposalPreview(p, explain), a.proposalChange(ctx, p)})
			}
			if a.json {
				if ds == nil {
					ds = []memory.Draft{}
				}
				a.nameDrafts(ctx, ds)
				for i := range outs {
					a.nameProposal(ctx, &outs[i].Proposal)
				}
				return writeJSON(cmd.OutOrStdout(), map[string]any{"drafts": ds, "proposals": outs})
			}
			if err := writeInbox(cmd.OutOrStdout(), ds, outs, all, done); err != nil {
				return err
			}
			// The workbench's Inbox lists the questions nothing answered
			// too; here they are cairn gaps's, and said so.
			if gs, err := a.st.Gaps(ctx, a.proj.ID); err == nil && len(gs) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s nothing answered: cairn gaps\n", plural(len(gs), "question", "questions"))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "also list the drafts consolidation already took")
	c.AddCommand(a.inboxShowCommand(), a.inboxAcceptCommand(), a.inboxRejectCommand(), a.inboxDropCommand())
	return c
}

// inboxDrafts reads the project's drafts page by page: those waiting for
// consolidation (every draft, with all) and how many consolidation took.
func (a *app) inboxDrafts(ctx context.Context, all bool) ([]memory.Draft, int, error) {
	var out []memory.Draft
	done := 0
	q := memory.DraftQuery{Project: a.proj.ID, Limit: memory.MaxDraftPage}
	for {
		page, err := a.st.ListDrafts(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for _, d := range page.Drafts {
			if d.Done != "" {
				done++
				if !all {
					continue
				}
			}
			out = append(out, d)
		}
		if page.Next == "" {
			return out, done, nil
		}
		q.After = page.Next
	}
}

// writeInbox prints drafts and proposals as one list, oldest first.
func writeInbox(w io.Writer, ds []memory.Draft, ps []proposalOut, all bool, done int) error {
	if len(ds) == 0 && len(ps) == 0 {
		if done > 0 && !all {
			fmt.Fprintf(w, "the inbox is empty (%s kept for undo: cairn inbox --all)\n", plural(done, "consolidated draft is", "consolidated drafts are"))
		} else {
			fmt.Fprintln(w, "the inbox is empty")
		}
		return nil
	}
	type row struct {
		t    time.Time
		id   string
		line string
	}
	var rows []row
	waiting := 0
	for _, d := range ds {
		line := fmt.Sprintf("%s  %s  %-28s  %s", d.ID, d.Time.Local().Format(timeFmt), "draft · "+draftSource(d), preview(ingest.Unmarked(d.Text), 60))
		if d.Done != "" {
			line += "  [done by run " + cleanLine(d.Done) + "]"
		} else {
			waiting++
		}
		rows = append(rows, row{d.Time, d.ID, line})
	}
	for _, p := range ps {
		line := fmt.Sprintf("%s  %s  %-28s  %s", p.ID, p.Time.Local().Format(timeFmt), cleanLine(string(p.Kind))+" proposal", preview(p.Change, 100))
		rows = append(rows, row{p.Time, p.ID, line})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].t.Equal(rows[j].t) {
			return rows[i].t.Before(rows[j].t)
		}
		return rows[i].id < rows[j].id
	})
	for _, r := range rows {
		fmt.Fprintln(w, r.line)
	}
	var hints []string
	if waiting > 0 {
		hints = append(hints, "consolidate the drafts: cairn consolidate")
	}
	if len(ps) > 0 {
		hints = append(hints, "decide: cairn inbox show|accept|reject ID...")
	}
	if len(hints) > 0 {
		fmt.Fprintln(w, strings.Join(hints, " · "))
	}
	return nil
}

// proposalChange is what accepting p would change, in one line, the
// memories it names read from the store (nil when forgotten since).
func (a *app) proposalChange(ctx context.Context, p memory.Proposal) string {
	return inboxline.Proposal(p, a.named(ctx, p.Target), a.named(ctx, p.Other))
}

// named is the stored memory a proposal names, nil when it names none or
// the memory was forgotten since (the proposal goes with it).
func (a *app) named(ctx context.Context, id string) *memory.Memory {
	if id == "" {
		return nil
	}
	m, err := a.st.Get(ctx, id)
	if err != nil {
		return nil
	}
	return m
}

// proposalPreview is a proposal in one line of words: what it is about
// and why, memories named by title.
func proposalPreview(p memory.Proposal, explain func(string) string) string {
	why := explain(p.Reason)
	switch {
	case p.Memory != nil:
		return quote(candidateTitle(p.Memory)) + " " + why
	case p.Other != "" && strings.Contains(p.Reason, p.Target):
		// "says nearly the same as TARGET": the other one says it
		return explain(p.Other) + ": " + why
	case p.Target != "":
		return explain(p.Target) + ": " + why
	}
	return why
}

func candidateTitle(m *memory.Memory) string {
	if m.Title != "" {
		return m.Title
	}
	return memory.DeriveTitle(m.Body)
}

func quote(s string) string { return "'" + cleanLine(s) + "'" }

func (a *app) inboxShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "print a draft whole, or a proposal with both texts and a word diff",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, p, err := a.inboxItem(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if p != nil {
				return a.showProposal(cmd, *p)
			}
			if a.json {
				d.Project = a.projectName(cmd.Context(), d.Project)
				return writeJSON(cmd.OutOrStdout(), d)
			}
			showDraft(cmd, *d)
			return nil
		},
	}
}

// proposalShown is a proposal as inbox show --json prints it: with the
// stored memories it names.
type proposalShown struct {
	proposalOut
	TargetMemory *memory.Record `json:"target_memory,omitempty"`
	OtherMemory  *memory.Record `json:"other_memory,omitempty"`
}

// showProposal prints a proposal: what it would do and why, the texts it
// is about, and for a merge or supersession a word diff of the two.
func (a *app) showProposal(cmd *cobra.Command, p memory.Proposal) error {
	ctx := cmd.Context()
	target, other := a.named(ctx, p.Target), a.named(ctx, p.Other)
	explain := a.explainer(ctx, nil)
	w := cmd.OutOrStdout()
	if a.json {
		out := proposalShown{proposalOut: proposalOut{p, proposalPreview(p, explain), inboxline.Proposal(p, target, other)}}
		a.nameProposal(ctx, &out.Proposal)
		for _, x := range []struct {
			m  *memory.Memory
			to **memory.Record
		}{{target, &out.TargetMemory}, {other, &out.OtherMemory}} {
			if x.m != nil {
				r, err := a.record(ctx, x.m)
				if err != nil {
					return err
				}
				*x.to = &r
			}
		}
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "%s proposal %s  %s\n", cleanLine(string(p.Kind)), p.ID, p.State)
	made := "made " + p.Time.Local().Format(timeFmt)
	if p.Run != "" {
		made += " by run " + cleanLine(p.Run)
	}
	if p.Draft != "" {
		made += " from draft " + cleanLine(p.Draft)
	}
	if p.State != memory.ProposalOpen {
		made += fmt.Sprintf("; %s %s by %s", p.State, p.DecidedAt.Local().Format(timeFmt), p.DecidedBy)
	}
	fmt.Fprintln(w, made)
	fmt.Fprintln(w, "change: "+inboxline.Proposal(p, target, other))
	fmt.Fprintln(w, "why: "+cleanLine(proposalPreview(p, explain)))

	now := target
	var next *memory.Memory
	nextLabel := "proposed"
	switch {
	case p.Memory != nil:
		next, nextLabel = p.Memory, "proposed (new)"
	case other != nil:
		next = other
	}
	if now != nil {
		fmt.Fprintln(w)
		writeBrief(w, "now", now, true)
	}
	if next != nil {
		fmt.Fprintln(w)
		writeBrief(w, nextLabel, next, p.Memory == nil)
	}
	if now != nil && next != nil && (p.Kind == memory.ProposeMerge || p.Kind == memory.ProposeSupersede) {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "word diff ([-now-] {+proposed+}):")
		fmt.Fprintln(w, cleanText(inboxline.Marked(shownText(now), shownText(next))))
	}
	if p.State == memory.ProposalOpen {
		fmt.Fprintln(w)
		edit := ""
		if p.Kind != memory.ProposeArchive {
			edit = " (edit first with --title, --body, --layer)"
		}
		fmt.Fprintf(w, "accept: cairn inbox accept %s%s · reject: cairn inbox reject %s\n", p.ID, edit, p.ID)
	}
	return nil
}

// writeBrief prints a memory as a proposal shows it: a header and its
// text; a candidate (stored false) has no id or status yet.
func writeBrief(w io.Writer, label string, m *memory.Memory, stored bool) {
	head := fmt.Sprintf("%s · %s · %s · %s", m.Layer.Letter(), m.Layer.Title(), m.Kind, m.Provenance)
	if stored {
		head = fmt.Sprintf("%s  %s  %s", m.ID, head, m.Status)
	}
	fmt.Fprintf(w, "%s  %s\n", label, head)
	for line := range strings.Lines(cleanText(shownText(m))) {
		fmt.Fprintln(w, "  "+strings.TrimRight(line, "\n"))
	}
}

// shownText is a memory's text as a person reads it: the body, with the
// title in front when a person chose one.
func shownText(m *memory.Memory) string {
	body := strings.TrimRight(m.Body, "\n")
	if m.Title == "" || m.Title == memory.DeriveTitle(m.Body) || strings.TrimSpace(m.Body) == "" {
		if body == "" {
			return m.Title
		}
		return body
	}
	return m.Title + "\n" + body
}

func (a *app) inboxAcceptCommand() *cobra.Command {
	var title, body, layer, kind, every string
	var tags []string
	var yes bool
	c := &cobra.Command{
		Use:   "accept ID...",
		Short: "carry out proposals (--title, --body, --layer, --kind, --tag edit one's text first)",
		Long: `accept carries out open proposals, each as a run of its own, which
cairn consolidate --undo RUN takes back. Every id is checked before any is
decided. The flags edit the proposed memory before it is written (one id
only); an edited memory counts as stated by you.

--every KIND accepts every open proposal of one kind (merge, supersede,
archive, remember) instead of ids: it lists them and asks first on a
terminal; without a terminal it needs --yes.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if every != "" || len(args) == 0 {
				if fs.Changed("title") || fs.Changed("body") || fs.Changed("layer") || fs.Changed("kind") || fs.Changed("tag") {
					return usagef("--title, --body, --layer, --kind and --tag edit one proposal: give its id, not --every")
				}
				ps, err := a.proposalsOfKind(cmd, every, args, "accept", yes)
				if err != nil || len(ps) == 0 {
					return err
				}
				return a.decideAll(cmd, "accepted", ps, func(p memory.Proposal) (memory.Run, error) {
					return consolidate.Accept(cmd.Context(), a.st, a.proj, p.ID, nil, memory.ActorUser)
				})
			}
			var edited *memory.Memory
			if fs.Changed("title") || fs.Changed("body") || fs.Changed("layer") || fs.Changed("kind") || fs.Changed("tag") {
				edited = &memory.Memory{}
				if err := safetext.Check("title", title); err != nil {
					return usage(err)
				}
				if err := safetext.Valid("body", body); err != nil {
					return usage(err)
				}
				if len(title) > memory.MaxTitle || len(body) > memory.MaxBody {
					return usagef("--title is at most %d bytes and --body at most %d", memory.MaxTitle, memory.MaxBody)
				}
				if fs.Changed("title") && strings.TrimSpace(title) == "" || fs.Changed("body") && strings.TrimSpace(body) == "" {
					return usagef("an empty --title or --body would erase the text: leave the flag out to keep it")
				}
				edited.Title, edited.Body = title, body
				var err error
				if fs.Changed("layer") {
					if edited.Layer, err = memory.ParseLayer(layer); err != nil {
						return usage(err)
					}
				}
				if fs.Changed("kind") {
					if edited.Kind, err = memory.ParseKind(kind); err != nil {
						return usage(err)
					}
				}
				if fs.Changed("tag") {
					for _, t := range tags {
						if err := safetext.Check("tag", t); err != nil {
							return usage(err)
						}
					}
					edited.Tags = memory.NormalizeTags(tags)
				}
			}
			if edited != nil && len(args) > 1 {
				return usagef("--title, --body, --layer, --kind and --tag edit one proposal: give one id, not %d", len(args))
			}
			ps, err := a.proposalArgs(cmd.Context(), args)
			if err != nil {
				return err
			}
			if edited != nil && ps[0].Kind == memory.ProposeArchive {
				return hint(usagef("proposal %s archives a memory and writes none: there is no text to edit", ps[0].ID), "accept it without flags")
			}
			return a.decideAll(cmd, "accepted", ps, func(p memory.Proposal) (memory.Run, error) {
				return consolidate.Accept(cmd.Context(), a.st, a.proj, p.ID, edited, memory.ActorUser)
			})
		},
	}
	fs := c.Flags()
	fs.StringVarP(&title, "title", "t", "", "the title to write instead of the proposed one")
	fs.StringVarP(&body, "body", "b", "", "the text to write instead of the proposed one")
	fs.StringVarP(&layer, "layer", "l", "", "the layer to write it in: A-F or "+strings.Join(memory.LayerNames(), ", "))
	fs.StringVarP(&kind, "kind", "k", "", "the kind: "+strings.Join(memory.KindNames(), ", "))
	fs.StringSliceVar(&tags, "tag", nil, "tags instead of the proposed ones (repeat or separate with commas)")
	fs.StringVar(&every, "every", "", "accept every open proposal of this kind: "+proposalKindNames())
	fs.BoolVarP(&yes, "yes", "y", false, "with --every: do not ask (needed when not on a terminal)")
	return c
}

func (a *app) inboxRejectCommand() *cobra.Command {
	var every string
	var yes bool
	c := &cobra.Command{
		Use:   "reject ID...",
		Short: "close proposals without changing any memory; they are not made again",
		Long: `reject closes open proposals without changing any memory; the same
proposal is not made again. --every KIND rejects every open proposal of one
kind instead of ids, after listing them (a yes on a terminal, --yes elsewhere).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var ps []memory.Proposal
			var err error
			if every != "" || len(args) == 0 {
				ps, err = a.proposalsOfKind(cmd, every, args, "reject", yes)
			} else {
				ps, err = a.proposalArgs(cmd.Context(), args)
			}
			if err != nil || len(ps) == 0 {
				return err
			}
			return a.decideAll(cmd, "rejected", ps, func(p memory.Proposal) (memory.Run, error) {
				return consolidate.Reject(cmd.Context(), a.st, a.proj, p.ID, memory.ActorUser)
			})
		},
	}
	c.Flags().StringVar(&every, "every", "", "reject every open proposal of this kind: "+proposalKindNames())
	c.Flags().BoolVarP(&yes, "yes", "y", false, "with --every: do not ask (needed when not on a terminal)")
	return c
}

func proposalKindNames() string {
	var ns []string
	for _, k := range memory.ProposalKinds {
		ns = append(ns, string(k))
	}
	return strings.Join(ns, ", ")
}

// proposalsOfKind are the open proposals of the kind --every names, once
// the person has seen them listed and said yes (or gave --yes); none when
// there are none or the person said no. verb is "accept" or "reject".
func (a *app) proposalsOfKind(cmd *cobra.Command, every string, args []string, verb string, yes bool) ([]memory.Proposal, error) {
	switch {
	case every == "":
		return nil, hint(usagef("give the ids of the proposals to %s, or --every KIND", verb), "cairn inbox "+verb+" ID... or cairn inbox "+verb+" --every merge")
	case len(args) > 0:
		return nil, usagef("give ids or --every %s, not both", every)
	case !slices.Contains(memory.ProposalKinds, memory.ProposalKind(every)):
		return nil, usagef("--every %q is no kind of proposal: use one of %s", every, proposalKindNames())
	}
	if err := a.open(cmd.Context(), false); err != nil {
		return nil, err
	}
	all, err := a.st.Proposals(cmd.Context(), a.proj.ID, memory.ProposalOpen)
	if err != nil {
		return nil, err
	}
	var ps []memory.Proposal
	for _, p := range all {
		if string(p.Kind) == every {
			ps = append(ps, p)
		}
	}
	out := cmd.OutOrStdout()
	if len(ps) == 0 {
		if !a.json {
			fmt.Fprintf(out, "no open %s proposals: nothing to %s\n", every, verb)
		} else {
			return nil, writeJSON(out, []memory.Run{})
		}
		return nil, nil
	}
	if yes {
		return ps, nil
	}
	if !a.env.IsTerminal() {
		return nil, usagef("refusing to %s %s without confirmation: run it on a terminal to see them and confirm, or add --yes", verb, plural(len(ps), "open "+every+" proposal", "open "+every+" proposals"))
	}
	for _, p := range ps {
		fmt.Fprintf(out, "  %s  %s\n", p.ID, a.proposalChange(cmd.Context(), p))
	}
	fmt.Fprintf(out, "\n%s %s? Each is a run of its own that cairn consolidate --undo takes back. Type yes to %s: ", strings.ToUpper(verb[:1])+verb[1:], plural(len(ps), every+" proposal", every+" proposals"), verb)
	line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if strings.TrimSpace(strings.ToLower(line)) != "yes" {
		fmt.Fprintln(out, "nothing was decided")
		return nil, nil
	}
	return ps, nil
}

// proposalArgs finds every proposal ids name before any is decided, so
// that a mistyped id leaves all of them open; an id named twice counts once.
func (a *app) proposalArgs(ctx context.Context, ids []string) ([]memory.Proposal, error) {
	var ps []memory.Proposal
	seen := map[string]bool{}
	for _, id := range ids {
		p, err := a.proposalArg(ctx, id)
		if err != nil {
			return nil, err
		}
		if !seen[p.ID] {
			seen[p.ID] = true
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// decideAll decides ps in order, one run each, and reports each decision;
// it stops at the first that fails, saying which were decided already.
func (a *app) decideAll(cmd *cobra.Command, verb string, ps []memory.Proposal, decide func(memory.Proposal) (memory.Run, error)) error {
	var runs []memory.Run
	for i, p := range ps {
		run, err := decide(p)
		if err != nil {
			if i > 0 && !a.json {
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s before proposal %s failed\n", verb, plural(i, "proposal", "proposals"), p.ID)
			}
			return decideError(err)
		}
		runs = append(runs, run)
		if !a.json {
			if err := a.printDecision(cmd, verb, p, run); err != nil {
				return err
			}
		}
	}
	if !a.json {
		return nil
	}
	if len(runs) == 1 {
		return a.printDecision(cmd, verb, ps[0], runs[0])
	}
	for i := range runs {
		if runs[i].Changes == nil {
			runs[i].Changes = []memory.Change{}
		}
		runs[i].Project = a.projectName(cmd.Context(), runs[i].Project)
	}
	return writeJSON(cmd.OutOrStdout(), runs)
}

// decideError is a decision's failure as the store says it: a proposal
// that changed under the decision already says what to do (decide again),
// and one hint is enough.
func decideError(err error) error { return err }

// printDecision reports an accepted or rejected proposal and how to undo it.
func (a *app) printDecision(cmd *cobra.Command, verb string, p memory.Proposal, run memory.Run) error {
	w := cmd.OutOrStdout()
	if a.json {
		if run.Changes == nil {
			run.Changes = []memory.Change{}
		}
		run.Project = a.projectName(cmd.Context(), run.Project)
		return writeJSON(w, run)
	}
	fmt.Fprintf(w, "%s %s proposal %s\n", verb, cleanLine(string(p.Kind)), p.ID)
	var rest []memory.Change
	for _, c := range run.Changes {
		if c.Kind != memory.ChangeAccept && c.Kind != memory.ChangeReject {
			rest = append(rest, c)
		}
	}
	for _, l := range describeChanges(rest, a.explainer(cmd.Context(), run.Changes)) {
		fmt.Fprintln(w, "  "+l)
	}
	if verb == "rejected" {
		fmt.Fprintln(w, "no memory was changed, and the same proposal will not be made again")
	}
	if run.ID != "" {
		fmt.Fprintf(w, "undo with: cairn consolidate --undo %s\n", run.ID)
	}
	return nil
}

func (a *app) inboxDropCommand() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "drop ID",
		Short: "delete a draft for good, after showing its text",
		Long: `drop deletes a draft and its capture event for good; the timeline keeps only
that a draft was deleted. On a terminal it shows the text and asks; without a
terminal it needs --yes. A proposal is not dropped but rejected (inbox reject).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, p, err := a.inboxItem(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if p != nil {
				return hint(usagef("%s is a %s proposal, not a draft: a proposal is rejected, not dropped", p.ID, cleanLine(string(p.Kind))), "cairn inbox reject "+p.ID)
			}
			if !yes {
				if !a.env.IsTerminal() {
					return usagef("refusing to drop draft %s without confirmation: run it on a terminal to see the text and confirm, or add --yes", d.ID)
				}
				showDraft(cmd, *d)
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "\nDrop draft %s for good? It cannot be undone. Type yes to drop: ", d.ID)
				line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if strings.TrimSpace(strings.ToLower(line)) != "yes" {
					fmt.Fprintln(out, "kept: nothing was deleted")
					return nil
				}
			}
			if err := a.st.DropDraft(cmd.Context(), d.ID, memory.ActorUser); err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"dropped": d.ID})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dropped draft %s\n", d.ID)
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask (needed when not on a terminal)")
	return c
}

// proposalArg finds the proposal an accept or reject names, and says what
// to do instead when the id is a draft's.
func (a *app) proposalArg(ctx context.Context, id string) (memory.Proposal, error) {
	d, p, err := a.inboxItem(ctx, id)
	if err != nil {
		return memory.Proposal{}, err
	}
	if p == nil {
		return memory.Proposal{}, hint(usagef("%s is a draft, not a proposal: only proposals are accepted or rejected", d.ID), "consolidate drafts with: cairn consolidate, or erase one with: cairn inbox drop "+d.ID)
	}
	return *p, nil
}

// inboxItem finds the draft or the proposal of this project named by an id
// or a unique prefix of one; exactly one of the two results is set.
func (a *app) inboxItem(ctx context.Context, idOrPrefix string) (*memory.Draft, *memory.Proposal, error) {
	if err := a.open(ctx, false); err != nil {
		return nil, nil, err
	}
	want := strings.ToUpper(strings.TrimSpace(idOrPrefix))
	var found []memory.Draft
	if want != "" && !strings.Contains(want, "/") {
		// Two are enough to tell a unique prefix from an ambiguous one.
		page, err := a.st.ListDrafts(ctx, memory.DraftQuery{Project: a.proj.ID, Prefix: want, Limit: 2})
		if err != nil {
			return nil, nil, err
		}
		found = page.Drafts
	}
	var prop *memory.Proposal
	// The store looks proposals up by at least 4 characters; a shorter
	// prefix can only name a draft.
	if len(want) >= 4 {
		p, err := a.st.Proposal(ctx, want)
		switch {
		case err == nil && p.Project == a.proj.ID:
			prop = &p
		case err == nil, errors.Is(err, memory.ErrNotFound):
			// another project's proposal is none of this inbox's business
		case errors.Is(err, memory.ErrInvalid):
			return nil, nil, usage(err)
		default:
			return nil, nil, err
		}
	}
	n := len(found)
	if prop != nil {
		n++
	}
	switch {
	case n == 0:
		return nil, nil, hintf("list them with: cairn inbox --all", "no draft or proposal %s in project %s", safetext.CleanLine(idOrPrefix), cleanLine(a.proj.Name))
	case n > 1:
		return nil, nil, hint(usagef("%d drafts and proposals start with %s", n, safetext.CleanLine(idOrPrefix)), "give more of the id")
	case prop != nil:
		return nil, prop, nil
	}
	return &found[0], nil, nil
}

func showDraft(cmd *cobra.Command, d memory.Draft) {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "draft %s\ncaptured %s by %s, from %s\n", d.ID, d.Time.Local().Format(time.RFC3339), d.Actor, draftSource(d))
	if d.Done != "" {
		fmt.Fprintf(out, "consolidated %s by run %s (undo with: cairn consolidate --undo %s)\n", d.DoneAt.Local().Format(time.RFC3339), cleanLine(d.Done), cleanLine(d.Done))
	}
	fmt.Fprintf(out, "\n%s\n", safetext.Clean(d.Text))
}

func draftSource(d memory.Draft) string {
	var parts []string
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
	if len(parts) == 0 {
		return string(d.Actor)
	}
	return safetext.CleanLine(strings.Join(parts, " "))
}

// preview is the start of a text on one line, cut at n characters.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(safetext.CleanLine(s)), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
