package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/safetext"
)

// inboxLimit bounds how many drafts the inbox reads at once.
const inboxLimit = 10000

func (a *app) inboxCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "inbox",
		Short: "the drafts waiting for consolidation: list, show, drop",
		Long: `inbox lists the drafts captured for this project (by capture, agents and
transcripts), oldest first, with their source, time and a preview.
A draft holds raw text: 'inbox drop ID' deletes one for good.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			ds, err := a.st.Drafts(cmd.Context(), a.proj.ID, inboxLimit)
			if err != nil {
				return err
			}
			if a.json {
				if ds == nil {
					ds = []memory.Draft{}
				}
				return writeJSON(cmd.OutOrStdout(), map[string]any{"drafts": ds})
			}
			out := cmd.OutOrStdout()
			if len(ds) == 0 {
				fmt.Fprintln(out, "the inbox is empty")
				return nil
			}
			for _, d := range ds {
				fmt.Fprintf(out, "%s  %s  %-24s  %s\n", d.ID, d.Time.Local().Format("2006-01-02 15:04"), draftSource(d), preview(d.Text, 60))
			}
			return nil
		},
	}
	c.AddCommand(a.inboxShowCommand(), a.inboxDropCommand())
	return c
}

func (a *app) inboxShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "print a draft whole",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.draft(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			showDraft(cmd, d)
			return nil
		},
	}
}

func (a *app) inboxDropCommand() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "drop ID",
		Short: "delete a draft for good, after showing its text",
		Long: `drop deletes a draft and its capture event for good; the timeline keeps only
that a draft was deleted. On a terminal it shows the text and asks; without a
terminal it needs --yes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.draft(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !yes {
				if !a.env.IsTerminal() {
					return usagef("refusing to drop draft %s without confirmation: run it on a terminal to see the text and confirm, or add --yes", d.ID)
				}
				showDraft(cmd, d)
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

// draft finds a draft of this project by its id or a unique prefix of it.
func (a *app) draft(ctx context.Context, idOrPrefix string) (memory.Draft, error) {
	if err := a.open(ctx, false); err != nil {
		return memory.Draft{}, err
	}
	ds, err := a.st.Drafts(ctx, a.proj.ID, inboxLimit)
	if err != nil {
		return memory.Draft{}, err
	}
	want := strings.ToUpper(strings.TrimSpace(idOrPrefix))
	var found []memory.Draft
	for _, d := range ds {
		if want != "" && strings.HasPrefix(d.ID, want) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return memory.Draft{}, fmt.Errorf("no draft %s in project %s — list them with: cairn inbox", safetext.CleanLine(idOrPrefix), a.proj.Name)
	}
	return memory.Draft{}, usagef("%d drafts start with %s — give more of the id", len(found), safetext.CleanLine(idOrPrefix))
}

func showDraft(cmd *cobra.Command, d memory.Draft) {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "draft %s\ncaptured %s by %s, from %s\n\n%s\n", d.ID, d.Time.Local().Format(time.RFC3339), d.Actor, draftSource(d), safetext.Clean(d.Text))
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
