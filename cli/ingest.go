package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"cairn/ingest"
	"cairn/memory"
)

func (a *app) ingestCommand() *cobra.Command {
	var format string
	var final bool
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "read agents' session logs (Claude Code, Codex) into the drafts inbox",
		Long: `Read coding agents' session logs into the drafts inbox, where
'cairn consolidate' turns them into memories. PATH is a session log (.jsonl)
or a directory of them: ~/.claude/projects for Claude Code,
~/.codex/sessions for Codex.

Each prompt the person typed, each final answer of the agent and the
commands it ran in a turn become drafts; thinking and bulky tool output stay
out. Secrets are redacted, not refused: the span becomes "[redacted: …]".
Reading a file again adds only what is new. Each session also gets one
episode in the episodic layer (C): when, which branch, what was asked, what
was done and how it ended.

The drafts go to the project of the session's working directory, unless
--project says where.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := ingest.Format(strings.ToLower(format))
			switch f {
			case ingest.FormatAuto, ingest.FormatClaudeCode, ingest.FormatCodex:
			default:
				return usagef("unknown format %q: use claude-code, codex or auto", format)
			}
			files, err := ingest.Files(args)
			if err != nil {
				return err
			}
			// Ingest is a write: a project named with --project is made
			// when new. Without, each session goes to its own directory's.
			if err := a.open(cmd.Context(), a.projFlag != ""); err != nil {
				return err
			}
			opt := ingest.IngestOptions{Format: f, Final: final}
			if a.projFlag != "" {
				p := a.proj
				opt.Project = &p
			}
			var reps []ingest.Report
			failed := 0
			for _, file := range files {
				rep, err := ingest.Ingest(cmd.Context(), a.st, file, opt)
				if err != nil {
					if cmd.Context().Err() != nil {
						return err
					}
					failed++
					fmt.Fprintf(cmd.ErrOrStderr(), "cairn: %s\n", oneLine(err.Error()))
					continue
				}
				reps = append(reps, rep)
				if !a.json {
					printIngest(cmd.OutOrStdout(), rep)
				}
			}
			if a.json {
				if reps == nil {
					reps = []ingest.Report{}
				}
				if err := writeJSON(cmd.OutOrStdout(), reps); err != nil {
					return err
				}
			} else if added(reps) > 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "next: cairn consolidate turns the drafts into memories (cairn inbox lists them)")
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d session logs could not be read (see above)", failed, len(files))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "auto", "the logs' format: claude-code, codex or auto")
	cmd.Flags().BoolVar(&final, "final", true, "the sessions are over: take their last turn too (false leaves an open turn for the next read)")
	return cmd
}

func added(reps []ingest.Report) int {
	n := 0
	for _, r := range reps {
		n += r.Added
	}
	return n
}

// printIngest says in a line or three what one transcript gave.
func printIngest(w io.Writer, r ingest.Report) {
	fmt.Fprintf(w, "%s session %s → project %s: %d new drafts", r.Format, cleanLine(r.Session), cleanLine(r.Project), r.Added)
	if r.Known > 0 {
		fmt.Fprintf(w, ", %d already known", r.Known)
	}
	if r.Refused > 0 {
		fmt.Fprintf(w, ", %d refused", r.Refused)
	}
	fmt.Fprintf(w, " (%d lines read)\n", r.Lines)
	if r.Redacted > 0 {
		fmt.Fprintf(w, "  %s redacted\n", plural(r.Redacted, "secret", "secrets"))
	}
	if len(r.Skipped) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(r.Skipped)) {
			parts = append(parts, fmt.Sprintf("%s %d", cleanLine(k), r.Skipped[k]))
		}
		fmt.Fprintf(w, "  skipped lines: %s\n", strings.Join(parts, ", "))
	}
	if r.Long > 0 {
		fmt.Fprintf(w, "  %s over %d MiB skipped (the rest was read)\n", plural(r.Long, "line", "lines"), ingest.MaxLine>>20)
	}
	for _, m := range r.Malformed {
		fmt.Fprintf(w, "  line %d: %s (skipped)\n", m.Line, cleanLine(m.Err))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  note: %s\n", cleanLine(e))
	}
	if r.Restarted {
		fmt.Fprintln(w, "  the file no longer began as before: read again from the top")
	}
	switch {
	case r.EpisodeNew:
		fmt.Fprintf(w, "  episode %s written in layer %s\n", r.Episode, memory.LayerEpisode)
	case r.EpisodeUpdated:
		fmt.Fprintf(w, "  episode %s brought up to date\n", r.Episode)
	}
}
