package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"cairn/mcpserver"
	"cairn/memory"
	"cairn/recall"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "serve agents over the Model Context Protocol on stdio (recall, remember, capture, context, archive)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			return mcpserver.Run(cmd.Context(), a.st, a.proj)
		},
	}
}

// scope is the current project plus global.
func (a *app) scope() []string {
	if a.proj.ID == memory.GlobalID {
		return []string{a.proj.ID}
	}
	return []string{a.proj.ID, memory.GlobalID}
}

func (a *app) contextCommand() *cobra.Command {
	var budget int
	c := &cobra.Command{
		Use:   "context",
		Short: "the warm-up briefing for the start of a session, as markdown",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget <= 0 {
				return usagef("--budget %d: use a positive number of tokens", budget)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			b, err := recall.Context(cmd.Context(), a.st, a.scope(), budget)
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), b)
			}
			fmt.Fprint(cmd.OutOrStdout(), b.Markdown())
			return nil
		},
	}
	c.Flags().IntVar(&budget, "budget", 800, "token budget")
	return c
}

func (a *app) recallCommand() *cobra.Command {
	var limit, budget int
	var archived bool
	c := &cobra.Command{
		Use:   "recall QUERY",
		Short: "the memories that matter for a task (word matching for now)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 || budget <= 0 {
				return usagef("--limit and --budget must be positive")
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			rs, err := recall.Simple(cmd.Context(), a.st, args[0], recall.Options{Projects: a.scope(), Limit: limit, Budget: budget, Archived: archived})
			if err != nil {
				return err
			}
			if a.json {
				type scored struct {
					memory.Record
					Score float64 `json:"score"`
				}
				out := struct {
					Results     []scored        `json:"results"`
					VerifyFirst []memory.Record `json:"verify_first"`
					Cut         int             `json:"cut"`
				}{Results: []scored{}, VerifyFirst: []memory.Record{}}
				for _, r := range rs {
					rec, err := a.record(cmd.Context(), r.Memory)
					if err != nil {
						return err
					}
					out.Results = append(out.Results, scored{rec, r.Score})
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			if len(rs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing recalled")
			}
			for _, r := range rs {
				fmt.Fprintf(cmd.OutOrStdout(), "%.2f  %s  %s  %s\n", r.Score, r.Memory.ID, r.Memory.Layer.Letter(), r.Memory.Title)
			}
			return nil
		},
	}
	c.Flags().IntVarP(&limit, "limit", "n", 10, "at most this many")
	c.Flags().IntVar(&budget, "budget", 800, "token budget")
	c.Flags().BoolVar(&archived, "archived", false, "include archived memories")
	return c
}
