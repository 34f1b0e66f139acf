package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/remote"
	"cairn/store"
)

// DefaultIdle is how long the on-demand server waits without clients before it exits.
const DefaultIdle = 10 * time.Second

func (a *app) serveCommand() *cobra.Command {
	var idle time.Duration
	c := &cobra.Command{
		Use:    "serve",
		Short:  "own the store and serve it to other cairn processes (started on demand)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("idle") {
				if d, err := time.ParseDuration(a.env.Getenv("CAIRN_IDLE")); err == nil && d > 0 {
					idle = d
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return remote.Serve(ctx, home, store.Options{Log: debugLog(a.env.Getenv, home)}, idle)
		},
	}
	c.Flags().DurationVar(&idle, "idle", DefaultIdle, "exit after this long without clients")
	return c
}

// ConnectServer is Env.Connect for the real binary: it reaches the home's
// server, starting `exe serve --home HOME` when none answers.
func ConnectServer(exe string) func(ctx context.Context, home string) (memory.Store, error) {
	return func(ctx context.Context, home string) (memory.Store, error) {
		return remote.Connect(ctx, remote.Launcher{Home: home, Exe: exe, Args: []string{"serve", "--home", home},
			Unset: []string{detachedVar}}) // a server started by a cairn in the background is no such cairn
	}
}
