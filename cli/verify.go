package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/recall"
	"cairn/store"
	"cairn/trust"
)

// checker fingerprints referents from where this command runs: the
// project's root (or the working directory) and this process's environment.
func (a *app) checker() *trust.Checker {
	root := a.proj.Root
	if root == "" {
		root, _ = a.env.Getwd()
	}
	return trust.NewChecker(root, a.env.Getenv)
}

// wake compares the project's bound memories with the world and records
// what moved. A failure here never stops the command; it is reported.
func (a *app) wake(ctx context.Context) {
	ms, err := a.st.Bound(ctx, a.proj.ID)
	if err != nil || len(ms) == 0 {
		return
	}
	changes, err := a.checker().Check(ctx, ms)
	if err != nil {
		fmt.Fprintln(a.env.Stderr, "cairn: wake check: "+oneLine(err.Error()))
		return
	}
	for _, c := range changes {
		if sameStates(c.Memory.Watermarks, c.Watermarks) {
			continue
		}
		if _, err := a.st.SetWatermarks(ctx, c.Memory.ID, c.Watermarks, strings.Join(c.Reasons, "; "), memory.ActorSystem); err != nil {
			fmt.Fprintln(a.env.Stderr, "cairn: wake check: "+oneLine(err.Error()))
		}
	}
}

func sameStates(a, b []memory.Watermark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].State != b[i].State {
			return false
		}
	}
	return true
}

// bind stamps the bindings a write asked for, or finds them in the text.
// --bind none stores "bound to nothing" (and suppresses the search).
func (a *app) bind(ctx context.Context, asked []memory.Watermark, text string) ([]memory.Watermark, error) {
	c := a.checker()
	if len(asked) == 0 {
		return c.Bind(ctx, text), nil
	}
	out := make([]memory.Watermark, 0, len(asked))
	for _, w := range asked {
		s, err := c.Stamp(ctx, w)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// queued is one entry of the verify-first queue.
type queued struct {
	memory.Record
	Reasons []string `json:"reasons"`
}

func (a *app) verifyCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "verify",
		Short: "the verify-first queue: memories whose trust fell, and why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			q, err := a.queue(cmd.Context())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if a.json {
				return writeJSON(w, q)
			}
			if len(q) == 0 {
				fmt.Fprintln(w, "nothing to verify: every memory is trusted as current")
				return nil
			}
			for _, e := range q {
				fmt.Fprintf(w, "%s  %s  trust %.2f  %s\n", e.ID, e.Layer.Letter(), e.Trust, e.Title)
				for _, r := range e.Reasons {
					fmt.Fprintf(w, "    %s\n", r)
				}
			}
			fmt.Fprintln(w, "confirm with: cairn verify confirm ID · correct with: cairn supersede ID TEXT · rebind: cairn verify rebind ID SPEC")
			return nil
		},
	}
	c.AddCommand(a.confirmCommand(), a.rebindCommand())
	return c
}

// queue lists the project's active memories below the serving threshold,
// most salient first, each with its reasons in words.
func (a *app) queue(ctx context.Context) ([]queued, error) {
	now := time.Now()
	var low []*memory.Memory
	q := store.Query{Project: a.proj.ID, Limit: 1000}
	for {
		page, err := a.st.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Memories {
			if memory.TrustAt(m, now) < recall.TrustThreshold {
				low = append(low, m)
			}
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	sort.SliceStable(low, func(i, j int) bool {
		return recall.Activation(low[i].Salience, now) > recall.Activation(low[j].Salience, now)
	})
	changes, _ := a.checker().Check(ctx, low)
	reasons := map[string][]string{}
	for _, c := range changes {
		reasons[c.Memory.ID] = c.Reasons
	}
	out := []queued{}
	for _, m := range low {
		rec, err := a.record(ctx, m)
		if err != nil {
			return nil, err
		}
		rs := reasons[m.ID]
		if len(rs) == 0 {
			rs = []string{fmt.Sprintf("low base confidence: %.2f (%s)", m.Confidence, m.Provenance)}
			if m.Confidence >= recall.TrustThreshold {
				rs = []string{fmt.Sprintf("not confirmed since %s", m.UpdatedAt.Local().Format("2006-01-02"))}
			}
		}
		out = append(out, queued{rec, rs})
	}
	return out, nil
}

func (a *app) confirmCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "confirm ID",
		Short: "the memory still holds: re-stamp its watermarks, trust restored",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			c := a.checker()
			var ws []memory.Watermark
			for _, w := range m.Watermarks {
				if w.Kind == memory.WatermarkNone {
					continue
				}
				s, err := c.Stamp(cmd.Context(), w)
				if err != nil {
					return fmt.Errorf("%v — rebind it: cairn verify rebind %s SPEC", err, m.ID)
				}
				ws = append(ws, s)
			}
			if len(ws) == 0 { // unbound: the confirmation itself is the stamp
				s, _ := c.Stamp(cmd.Context(), memory.Watermark{Kind: memory.WatermarkNone})
				ws = append(ws, s)
			}
			m, err = a.st.SetWatermarks(cmd.Context(), m.ID, ws, "confirmed", memory.ActorUser)
			if err != nil {
				return err
			}
			return a.printMemory(cmd, "confirmed", m)
		},
	}
}

func (a *app) rebindCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rebind ID SPEC...",
		Short: "bind the memory to other referents (file:PATH, git:SCOPE, flag:NAME or none)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var asked []memory.Watermark
			for _, spec := range args[1:] {
				w, err := memory.ParseBinding(spec)
				if err != nil {
					return usageError{err}
				}
				asked = append(asked, w)
			}
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			ws, err := a.bind(cmd.Context(), asked, "")
			if err != nil {
				return err
			}
			m, err = a.st.SetWatermarks(cmd.Context(), m.ID, ws, "rebound to "+strings.Join(args[1:], " "), memory.ActorUser)
			if err != nil {
				return err
			}
			return a.printMemory(cmd, "rebound", m)
		},
	}
}
