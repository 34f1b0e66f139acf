package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/recall"
	"cairn/trust"
)

// trustService checks referents from where this command runs: the
// project's root (or the working directory) and this process's environment.
// One service serves the whole command (its checker holds the files it
// hashed), and the file fingerprints are kept in the home for the next
// command, which then stats the bound files instead of reading them.
func (a *app) trustService() *trust.Service {
	if a.trust != nil && a.trust.St == a.st && a.trust.Project == a.proj.ID {
		return a.trust
	}
	a.trust = trust.For(a.st, a.proj, a.env.Getwd, a.env.Getenv)
	if home, err := a.homePath(); err == nil {
		a.trust.Checker.KeepFingerprints(filepath.Join(home, trust.FingerprintDir))
	}
	return a.trust
}

// wake marks the facts whose ground moved before anything is served. A
// failure here never stops the command; it is reported.
func (a *app) wake(ctx context.Context) {
	if err := a.trustService().Wake(ctx); err != nil {
		fmt.Fprintln(a.env.Stderr, "cairn: wake check: "+cleanLine(oneLine(err.Error())))
	}
}

// bind stamps the bindings a write asked for, or finds them in the text.
func (a *app) bind(ctx context.Context, asked []memory.Watermark, text string) ([]memory.Watermark, error) {
	ws, err := a.trustService().Bind(ctx, asked, text)
	return ws, bindError(err)
}

// bindError says what to do about a binding that was asked for and does
// not resolve.
func bindError(err error) error {
	var ue *trust.UnresolvedError
	if errors.As(err, &ue) && ue.Watermark.Kind == memory.WatermarkFile {
		return hint(err, "give a path relative to the project root")
	}
	return err
}

// queued is one entry of the verify-first queue as --json prints it.
type queued struct {
	memory.Record
	Reasons []string `json:"reasons"`
}

func (a *app) verifyCommand() *cobra.Command {
	var calibration bool
	c := &cobra.Command{
		Use:   "verify",
		Short: "the verify-first queue: memories whose trust fell, and why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			if calibration {
				return a.calibration(cmd)
			}
			items, err := a.trustService().Queue(cmd.Context(), recall.ActivationNow)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if a.json {
				q := []queued{}
				for _, it := range items {
					rec, err := a.record(cmd.Context(), it.Memory) // its edges: one read each
					if err != nil {
						return err
					}
					q = append(q, queued{rec, it.Reasons})
				}
				return writeJSON(w, q)
			}
			if len(items) == 0 {
				fmt.Fprintln(w, "nothing to verify: every memory is trusted as current")
				return nil
			}
			for _, it := range items {
				m := it.Memory
				fmt.Fprintf(w, "%s  %s  trust %.2f  %s\n", m.ID, m.Layer.Letter(), it.Trust, cleanLine(m.Title))
				for _, r := range it.Reasons {
					fmt.Fprintf(w, "    %s\n", cleanLine(r)) // reasons name stored binding targets
				}
			}
			fmt.Fprintln(w, "confirm: cairn verify confirm ID · correct: cairn supersede ID TEXT · mark wrong: cairn verify reject ID · rebind: cairn verify rebind ID SPEC")
			return nil
		},
	}
	c.Flags().BoolVar(&calibration, "calibration", false, "what past reviews say about the bindings: moved × changed per watermark kind")
	c.AddCommand(a.confirmCommand(), a.rejectCommand(), a.rebindCommand())
	return c
}

// calibration prints the confusion matrix of the project's reviews per
// watermark kind and the bindings it flags.
func (a *app) calibration(cmd *cobra.Command) error {
	cal, err := a.trustService().Calibration(cmd.Context())
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if a.json {
		if cal.Flagged == nil {
			cal.Flagged = []trust.BindingNote{}
		}
		return writeJSON(w, cal)
	}
	if cal.Reviews == 0 {
		fmt.Fprintln(w, "no reviews yet: confirm, reject, rebind or supersede memories and their evidence shows here")
		return nil
	}
	fmt.Fprint(w, cleanText(trust.FormatCalibration(cal))) // it names stored binding targets
	return nil
}

// current refuses a review of a superseded memory, naming the one that
// replaced it: the old one is history, and its successor is what to review.
func (a *app) current(ctx context.Context, m *memory.Memory, verb string) error {
	if m.Status != memory.StatusSuperseded || m.SupersededBy == "" {
		return nil
	}
	next := a.sid(ctx, m.SupersededBy)
	return hintf(verb+" that one instead: cairn verify "+verb+" "+next, "%s is superseded by %s: it is history now", a.sid(ctx, m.ID), next)
}

func (a *app) rejectCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "reject ID",
		Short: "the memory no longer holds: mark it for supersession (it is not served until corrected)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := a.current(cmd.Context(), m, "reject"); err != nil {
				return err
			}
			if m, err = a.trustService().Reject(cmd.Context(), m); err != nil {
				return err
			}
			if err := a.printMemory(cmd, "rejected", m); err != nil || a.json {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "write the corrected fact with: cairn supersede %s TEXT\n", m.ID)
			return nil
		},
	}
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
			if err := a.current(cmd.Context(), m, "confirm"); err != nil {
				return err
			}
			var ue *trust.UnresolvedError
			done, err := a.trustService().Confirm(cmd.Context(), m)
			if errors.As(err, &ue) {
				return hint(err, "rebind it: cairn verify rebind "+a.sid(cmd.Context(), m.ID)+" SPEC")
			} else if err != nil {
				return err
			}
			return a.printMemory(cmd, "confirmed", done)
		},
	}
}

func (a *app) rebindCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rebind ID SPEC...",
		Short: "bind the memory to other referents (file:PATH, git:SCOPE, flag:NAME or none)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, spec := range args[1:] {
				if _, err := memory.ParseBinding(spec); err != nil {
					return usage(err)
				}
			}
			m, err := a.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := a.current(cmd.Context(), m, "rebind"); err != nil {
				return err
			}
			if m, err = a.trustService().Rebind(cmd.Context(), m, args[1:]); err != nil {
				return bindError(err)
			}
			return a.printMemory(cmd, "rebound", m)
		},
	}
}
