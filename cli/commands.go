package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/safetext"
)

func (a *app) rememberCommand() *cobra.Command {
	var f memFlags
	c := &cobra.Command{
		Use:   "remember [TEXT|-]",
		Short: "store a new memory (TEXT, or - to read standard input)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, given, err := readText(cmd, args)
			if err != nil {
				return err
			}
			if !given && f.title == "" {
				return usagef("nothing to remember: give the text as an argument, - for standard input, or a --title")
			}
			m, err := f.newMemory(cmd.Flags(), text)
			if err != nil {
				return err
			}
			if m.Layer == 0 {
				m.Layer = memory.LayerState
			}
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			m.Project = a.proj.ID
			if m.Watermarks, err = a.bind(cmd.Context(), m.Watermarks, m.Title+"\n"+m.Body); err != nil {
				return err
			}
			m, err = a.st.Remember(cmd.Context(), m, memory.ActorUser)
			if err != nil {
				return err
			}
			return a.printRemembered(cmd, m)
		},
	}
	f.register(c.Flags())
	return c
}

// printRemembered reports a remember, saying when the store folded it into
// a memory it already held (reinforced) or found one nearly the same (a
// merge proposal waits in the inbox).
func (a *app) printRemembered(cmd *cobra.Command, m *memory.Memory) error {
	w := cmd.OutOrStdout()
	if a.json {
		r, err := a.record(cmd.Context(), m)
		if err != nil {
			return err
		}
		return writeJSON(w, struct {
			memory.Record
			Dedup *memory.Dedup `json:"dedup,omitempty"`
		}{r, m.Dedup})
	}
	if m.Dedup != nil && m.Dedup.Reinforced != "" {
		fmt.Fprintf(w, "already known: reinforced %s '%s' (said %d times)\n", a.sid(cmd.Context(), m.ID), cleanLine(m.Title), m.Salience.Reinforcements+1)
		return nil
	}
	if err := a.printMemory(cmd, "remembered", m); err != nil {
		return err
	}
	fmt.Fprintln(w, boundTo(m.Watermarks))
	if m.Dedup != nil && m.Dedup.Near != "" {
		title := "a memory no longer there"
		if near, err := a.st.Get(cmd.Context(), m.Dedup.Near); err == nil {
			title = "'" + cleanLine(near.Title) + "'"
		}
		fmt.Fprintf(w, "nearly the same as %s %s: merge proposal %s waits in the inbox (cairn inbox show %s)\n",
			a.sid(cmd.Context(), m.Dedup.Near), title, m.Dedup.Proposal, m.Dedup.Proposal)
	}
	return nil
}

// boundTo says what a memory is bound to: what, when it moves, lowers
// its trust.
func boundTo(ws []memory.Watermark) string {
	var what []string
	for _, w := range ws {
		switch w.Kind {
		case memory.WatermarkFile:
			what = append(what, "file "+w.Target)
		case memory.WatermarkGit:
			if w.Target == "" {
				what = append(what, "the repository's history")
			} else {
				what = append(what, "the history of "+w.Target)
			}
		case memory.WatermarkFlag:
			what = append(what, "flag "+w.Target)
		}
	}
	if len(what) == 0 {
		return "not bound to anything (bind it with --bind file:PATH, git:SCOPE or flag:NAME)"
	}
	return "bound to " + cleanLine(strings.Join(what, ", "))
}

func (a *app) showCommand() *cobra.Command {
	var history bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "show one memory (ID may be a unique prefix)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var versions []*memory.Memory
			if history {
				if versions, err = a.st.History(cmd.Context(), m.ID); err != nil {
					return err
				}
			}
			return a.show(cmd, m, versions)
		},
	}
	c.Flags().BoolVar(&history, "history", false, "also show every earlier version")
	return c
}

func (a *app) listCommand() *cobra.Command {
	var layer, status, tag string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "list memories of the project, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := memory.Query{Limit: limit, Tag: strings.ToLower(tag)}
			var err error
			if layer != "" {
				if q.Layer, err = memory.ParseLayer(layer); err != nil {
					return usage(err)
				}
			}
			switch status {
			case "", "active":
			case "all", "any":
				q.Status = memory.StatusAny
			default:
				if q.Status, err = memory.ParseStatus(status); err != nil {
					return usage(fmt.Errorf("%w (or all)", err))
				}
			}
			if limit < 0 {
				return usagef("--limit %d: use a positive number", limit)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			q.Project = a.proj.ID
			page, err := a.st.List(cmd.Context(), q)
			if err != nil {
				return err
			}
			return a.printList(cmd, page.Memories)
		},
	}
	c.Flags().StringVarP(&layer, "layer", "l", "", "only this layer (A-F or name)")
	c.Flags().StringVarP(&status, "status", "s", "", "active (default), archived, superseded or all")
	c.Flags().StringVar(&tag, "tag", "", "only memories with this tag")
	c.Flags().IntVarP(&limit, "limit", "n", 50, "at most this many")
	return c
}

func (a *app) editCommand() *cobra.Command {
	var f memFlags
	var addTags, removeTags []string
	c := &cobra.Command{
		Use:   "edit ID [TEXT|-]",
		Short: "change a memory in place (a new version; the old one is kept in its history)",
		Long: `Change a memory in place: a new version; the old one is kept in its history.

--tag replaces all the memory's tags; --add-tag and --remove-tag change
only the ones they name.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, given, err := readText(cmd, args[1:])
			if err != nil {
				return err
			}
			var body *string
			if given {
				body = &text
			}
			p, err := f.patch(cmd.Flags(), body)
			if err != nil {
				return err
			}
			for _, t := range append(slices.Clone(addTags), removeTags...) {
				if err := safetext.Check("tag", t); err != nil {
					return usage(err)
				}
			}
			p.AddTags, p.RemoveTags = addTags, removeTags
			if p.Empty() {
				return usagef("nothing to change: give a new text or a flag such as --title or --add-tag")
			}
			old, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if p.Watermarks != nil || p.Body != nil {
				var asked []memory.Watermark
				if p.Watermarks != nil {
					asked = *p.Watermarks
				}
				text := old.Title + "\n" + old.Body
				if p.Body != nil {
					text = *p.Body
				}
				ws, err := a.bind(cmd.Context(), asked, text)
				if err != nil {
					return err
				}
				p.Watermarks = &ws
			}
			m, err := a.st.Edit(cmd.Context(), old.ID, p, memory.ActorUser)
			if err != nil {
				return err
			}
			verb := "edited"
			if m.Version == old.Version {
				verb = "unchanged"
			}
			return a.printMemory(cmd, verb, m)
		},
	}
	f.register(c.Flags())
	c.Flags().Lookup("tag").Usage = "replace all tags with these (repeat or separate with commas)"
	c.Flags().StringSliceVar(&addTags, "add-tag", nil, "add this tag, keeping the others (repeat or separate with commas)")
	c.Flags().StringSliceVar(&removeTags, "remove-tag", nil, "remove this tag, keeping the others (repeat or separate with commas)")
	return c
}

func (a *app) supersedeCommand() *cobra.Command {
	var f memFlags
	c := &cobra.Command{
		Use:   "supersede ID [TEXT|-]",
		Short: "write a new memory that replaces ID; the old one stays as history",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, given, err := readText(cmd, args[1:])
			if err != nil {
				return err
			}
			if !given {
				return usagef("give the corrected text as an argument or - for standard input")
			}
			m, err := f.newMemory(cmd.Flags(), text)
			if err != nil {
				return err
			}
			old, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if m.Watermarks, err = a.bind(cmd.Context(), m.Watermarks, m.Title+"\n"+m.Body); err != nil {
				return err
			}
			m, err = a.st.Supersede(cmd.Context(), old.ID, m, memory.ActorUser)
			if err != nil {
				return err
			}
			if err := a.printMemory(cmd, "superseded "+a.sid(cmd.Context(), old.ID)+" with", m); err != nil || a.json {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), boundTo(m.Watermarks))
			return nil
		},
	}
	f.register(c.Flags())
	return c
}

func (a *app) archiveCommand() *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:   "archive ID",
		Short: "take a memory out of recall (reversible with unarchive)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := memory.ValidReason(reason); err != nil {
				return usage(err)
			}
			old, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			m, err := a.st.Archive(cmd.Context(), old.ID, reason, memory.ActorUser)
			if err != nil {
				return err
			}
			if err := a.printMemory(cmd, "archived", m); err != nil || a.json {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "undo with: cairn unarchive %s\n", a.sid(cmd.Context(), m.ID))
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why (recorded in the timeline)")
	return c
}

func (a *app) unarchiveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "unarchive ID",
		Short: "bring an archived memory back, exactly as it was",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			m, err := a.st.Unarchive(cmd.Context(), old.ID, memory.ActorUser)
			if err != nil {
				return err
			}
			return a.printMemory(cmd, "unarchived", m)
		},
	}
}

func (a *app) forgetCommand() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "forget ID",
		Short: "delete a memory for good, after showing its stored text",
		Long: `forget deletes a memory, its versions, links and cached vectors for good.
On a terminal it shows the stored text and asks; without a terminal it needs --yes.
Archive instead if you may want it back.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !yes {
				if !a.env.IsTerminal() {
					return usagef("refusing to forget %s without confirmation: run it on a terminal to see the text and confirm, or add --yes", m.ID)
				}
				if err := a.show(cmd, m, nil); err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "\nForget %s for good? It cannot be undone (archive can). Type yes to forget: ", m.ID)
				line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if strings.TrimSpace(strings.ToLower(line)) != "yes" {
					fmt.Fprintln(out, "kept: nothing was deleted")
					return nil
				}
			}
			if err := a.st.Forget(cmd.Context(), m.ID, memory.ActorUser); err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"forgotten": m.ID})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot %s\n", m.ID)
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask (needed when not on a terminal)")
	return c
}

func (a *app) linkCommand() *cobra.Command {
	var weight float64
	c := &cobra.Command{
		Use:   "link FROM KIND TO",
		Short: "link two memories (" + strings.Join(memory.EdgeKindNames(), ", ") + ")",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, err := memory.ParseEdgeKind(args[1])
			if err != nil {
				return usage(err)
			}
			if err := memory.ValidWeight(weight); err != nil {
				return usagef("--%w", err)
			}
			from, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			to, err := a.load(cmd.Context(), args[2])
			if err != nil {
				return err
			}
			e := memory.Edge{From: from.ID, Kind: kind, To: to.ID, Weight: weight}
			if err := a.st.Link(cmd.Context(), e, memory.ActorUser); err != nil {
				return err
			}
			if a.json {
				out, _, err := a.st.Edges(cmd.Context(), from.ID)
				if err != nil {
					return err
				}
				for _, o := range out {
					if o.Kind == kind && o.To == to.ID {
						return writeJSON(cmd.OutOrStdout(), o)
					}
				}
			}
			a.shorten(cmd.Context(), from.ID, to.ID)
			fmt.Fprintf(cmd.OutOrStdout(), "linked %s -%s-> %s\n", a.shorts[from.ID], kind, a.shorts[to.ID])
			return nil
		},
	}
	c.Flags().Float64Var(&weight, "weight", 1, "strength of the link, above 0 and at most 1")
	return c
}

func (a *app) timelineCommand() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "timeline",
		Short: "the project's events, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 {
				return usagef("--limit %d: use a positive number", limit)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			evs, err := a.st.Timeline(cmd.Context(), a.proj.ID, limit)
			if err != nil {
				return err
			}
			return a.printTimeline(cmd, evs)
		},
	}
	c.Flags().IntVarP(&limit, "limit", "n", 50, "at most this many")
	return c
}

func (a *app) projectsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "projects",
		Short: "list the projects the store knows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			ps, err := a.st.Projects(cmd.Context())
			if err != nil {
				return err
			}
			return a.printProjects(cmd, ps)
		},
	}
}

func (a *app) statsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "what the store holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			s, err := a.st.Stats(cmd.Context())
			if err != nil {
				return err
			}
			return a.printStats(cmd, s)
		},
	}
}

func (a *app) captureCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "capture [TEXT|-]",
		Short: "append raw text to the drafts inbox for later consolidation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, _, err := readText(cmd, args)
			if err != nil {
				return err
			}
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			d, err := a.st.Capture(cmd.Context(), memory.Draft{Project: a.proj.ID, Actor: memory.ActorUser, Text: text})
			if err != nil {
				return err
			}
			if a.json {
				d.Project = a.projectName(cmd.Context(), d.Project)
				return writeJSON(cmd.OutOrStdout(), d)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "captured %s (%d bytes)\n", d.ID, len(d.Text))
			return nil
		},
	}
}

// load opens the store and reads the memory named by an id or id prefix.
func (a *app) load(ctx context.Context, idOrPrefix string) (*memory.Memory, error) {
	if err := a.open(ctx, false); err != nil {
		return nil, err
	}
	id, err := a.st.Resolve(ctx, idOrPrefix)
	if err != nil {
		if errors.Is(err, memory.ErrNotFound) {
			return nil, hintf("list them with: cairn list --status all", "no memory %s", cleanLine(idOrPrefix))
		}
		return nil, err
	}
	return a.st.Get(ctx, id)
}
