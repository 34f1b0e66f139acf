package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/store"
)

func (a *app) demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "open the workbench on a temporary store filled with a sample project",
		Long: `demo opens the workbench on a temporary store, removed when it ends, that
holds a sample project: every layer, a supersession chain, decisions with
their reasons, negatives with triggers, lessons. One consolidation pass has
run over what the person said since — a correction that supersedes a fact
and leaves a lesson, a load test that reopens the decision it was evidence
for, a correction the pass is unsure of, proposed — and two more drafts
wait: press i for the Inbox, v for the verify-first queue, ? for every key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(a.env.Demo) == 0 {
				return errors.New("this build has no demo sample set")
			}
			// The temporary store goes when the demo ends, however it ends:
			// a closed terminal (SIGHUP) ends the workbench through hup. The
			// workbench quits on SIGINT and SIGTERM itself (catching them
			// here too would race with it: bubbletea's handler then blocks
			// on a program that has stopped), so they end only the setup.
			hup, stopHup := signal.NotifyContext(cmd.Context(), syscall.SIGHUP)
			defer stopHup()
			ctx, cancel := context.WithCancel(hup)
			defer cancel()
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sig)
			go func() {
				select {
				case <-sig:
					cancel()
				case <-ctx.Done():
				}
			}()
			dir, err := os.MkdirTemp("", "cairn-demo-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			st, err := store.Open(filepath.Join(dir, "store"), store.Options{})
			if err != nil {
				return err
			}
			defer st.Close()
			p, err := st.EnsureProject(ctx, mustNamed("demo"))
			if err != nil {
				return err
			}
			if err := fillDemo(ctx, st, p, a.env.Demo); err != nil {
				if ctx.Err() != nil {
					return nil // told to stop while setting up
				}
				return err
			}
			signal.Stop(sig)
			if ctx.Err() != nil || len(sig) > 0 {
				return nil // told to stop while setting up
			}
			return a.workbench(hup, st, p)
		},
	}
}

// What the demo's person said after the sample set's memories were
// written. The pass reads the first three: a correction of an observed
// fact (it supersedes it and leaves a lesson in F), a new load test (it
// supersedes the evidence of the token-bucket decision, which reopens),
// and a correction of an inferred fact that the patterns are unsure of
// (a supersession proposal). The weak, stale memories of the sample
// (unused since the spring) become archive proposals on their own. The
// last two are captured after the pass and wait in the inbox, so that
// /consolidate in the workbench has something to do.
var (
	demoRead = []string{
		"no, release v0.7.1 is out, not v0.7.0",
		"Load test: the token bucket holds 2k req/s at p99 under 4 ms",
		"no, the rate limiter is in internal/limits, not internal/ratelimit",
	}
	demoWaiting = []string{
		"We decided to run load tests on the bench box from now on, because laptop numbers vary too much.",
		"Never run the migrations against prod from a laptop; the deploy job runs them.",
	}
)

// fillDemo loads the sample set into the demo's store and runs the loop
// on it through the product's own paths: drafts are captured as a person
// captures them, and a real consolidation pass reads them.
func fillDemo(ctx context.Context, st memory.Store, p memory.Project, sample []byte) error {
	recs, _, err := readJSONL("demo sample set", sample)
	if err != nil {
		return err
	}
	if _, err := st.Import(ctx, p.ID, recs, memory.ActorSystem); err != nil {
		return fmt.Errorf("load the demo sample set: %w", err)
	}
	capture := func(texts []string) error {
		for _, text := range texts {
			if _, err := st.Capture(ctx, memory.Draft{Project: p.ID, Actor: memory.ActorUser, Text: text}); err != nil {
				return fmt.Errorf("capture the demo's drafts: %w", err)
			}
		}
		return nil
	}
	if err := capture(demoRead); err != nil {
		return err
	}
	// The sample is dated in March 2026: a pass today would also propose
	// archiving its weak memories as stale, proposals that bury the ones
	// the loop is about.
	opt := consolidate.Options{AskedBy: memory.ActorUser, StaleAfter: 100 * 365 * 24 * time.Hour}
	if _, err := consolidate.Consolidate(ctx, st, p, opt); err != nil {
		return fmt.Errorf("consolidate the demo's drafts: %w", err)
	}
	return capture(demoWaiting)
}
