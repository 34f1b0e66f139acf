package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/recall"
)

// gapOut is a gap as gaps --json lists it, with what answers it now.
type gapOut struct {
	memory.Gap
	// Answered names the memory that answers it now (a recall of the same
	// question, not counted as one), if one does.
	Answered      string `json:"answered_by,omitempty"`
	AnsweredTitle string `json:"answered_by_title,omitempty"`
}

func (a *app) gapsCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "gaps",
		Short: "questions recall could not answer: what is worth remembering next",
		Long: `gaps lists the questions recall had nothing for (every candidate under the
floor) or only weak answers for, most recently asked first, with how often
they were asked. Each is asked again (without counting as a recall): one that
a memory answers now says so.

  cairn gaps drop ID...       close gaps (answered, or not worth answering)
  cairn gaps drop --answered  close every gap a memory answers now

Answer a gap by remembering what you know: cairn remember "…".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			outs, err := a.gaps(cmd.Context())
			if err != nil {
				return err
			}
			if a.json {
				for i := range outs {
					outs[i].Project = a.projectName(cmd.Context(), outs[i].Project)
				}
				return writeJSON(cmd.OutOrStdout(), outs)
			}
			writeGaps(cmd.OutOrStdout(), outs)
			return nil
		},
	}
	c.AddCommand(a.gapsDropCommand())
	return c
}

// gaps reads the project's gap log and asks each question again.
func (a *app) gaps(ctx context.Context) ([]gapOut, error) {
	if err := a.open(ctx, false); err != nil {
		return nil, err
	}
	gs, err := a.st.Gaps(ctx, a.proj.ID)
	if err != nil {
		return nil, err
	}
	outs := make([]gapOut, 0, len(gs))
	if len(gs) == 0 {
		return outs, nil
	}
	r, err := recall.For(ctx, a.st)
	if err != nil {
		return nil, err
	}
	progress, done := a.buildProgress()
	defer done()
	for _, g := range gs {
		o := gapOut{Gap: g}
		m, err := recall.Answer(ctx, r, g.Query, a.scope(), progress)
		if err != nil {
			return nil, err
		}
		if m != nil {
			o.Answered, o.AnsweredTitle = m.ID, m.Title
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func writeGaps(w io.Writer, gs []gapOut) {
	if len(gs) == 0 {
		fmt.Fprintln(w, "no gaps: every recall found something")
		return
	}
	answered := 0
	for _, g := range gs {
		what := "nothing known"
		if g.Best > 0 {
			what = fmt.Sprintf("weak (best %.2f)", g.Best)
		}
		line := fmt.Sprintf("%s  %s  %-6s  %-17s  %s", g.ID, g.Last.Local().Format(timeFmt), fmt.Sprintf("%d×", g.Count), what, preview(g.Query, 70))
		if g.Answered != "" {
			answered++
			line += "  — answered now by " + g.Answered + " " + preview(g.AnsweredTitle, 40)
		}
		fmt.Fprintln(w, line)
	}
	hint := `answer one: cairn remember "…" · close: cairn gaps drop ID`
	if answered > 0 {
		hint += " · close the answered: cairn gaps drop --answered"
	}
	fmt.Fprintln(w, hint)
}

func (a *app) gapsDropCommand() *cobra.Command {
	var answered bool
	c := &cobra.Command{
		Use:   "drop ID... | --answered",
		Short: "close gaps",
		RunE: func(cmd *cobra.Command, args []string) error {
			if answered == (len(args) > 0) {
				return usagef("give gap ids (from cairn gaps) or --answered, not both")
			}
			ctx := cmd.Context()
			ids := args
			if answered {
				outs, err := a.gaps(ctx)
				if err != nil {
					return err
				}
				ids = nil
				for _, g := range outs {
					if g.Answered != "" {
						ids = append(ids, g.ID)
					}
				}
			} else if err := a.open(ctx, false); err != nil {
				return err
			}
			for _, id := range ids {
				if err := a.st.DropGap(ctx, a.proj.ID, id, memory.ActorUser); err != nil {
					return err
				}
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"dropped": append([]string{}, ids...)})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "closed %s\n", plural(len(ids), "gap", "gaps"))
			return nil
		},
	}
	c.Flags().BoolVar(&answered, "answered", false, "close every gap that a memory answers now")
	return c
}

func (a *app) feedbackCommand() *cobra.Command {
	var query string
	c := &cobra.Command{
		Use:   "feedback ID helpful|unhelpful",
		Short: "say whether a recalled memory helped; similar queries find it higher or lower",
		Long: `feedback says whether a memory that recall returned helped with a query.
It moves the memory's salience for queries like that one (--query; by default
the memory's own title): helpful ones come up sooner, unhelpful ones later.
It never changes trust: whether a memory is true is for review (cairn verify).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var helpful bool
			switch strings.ToLower(args[1]) {
			case "helpful", "yes", "+":
				helpful = true
			case "unhelpful", "no", "-":
			default:
				return usagef("%q is not a verdict: say helpful or unhelpful", args[1])
			}
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			q := strings.TrimSpace(query)
			if q == "" {
				q = m.Title
			}
			if err := a.st.Feedback(cmd.Context(), m.ID, q, helpful, memory.ActorUser); err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"id": m.ID, "helpful": helpful, "query": q})
			}
			verdict := "unhelpful"
			if helpful {
				verdict = "helpful"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "noted: %s '%s' was %s for %q (salience only; trust unchanged)\n", a.sid(cmd.Context(), m.ID), cleanLine(m.Title), verdict, preview(q, 60))
			return nil
		},
	}
	c.Flags().StringVarP(&query, "query", "q", "", "the query it was recalled for (default: its title)")
	return c
}
