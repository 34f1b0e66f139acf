package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"cairn/exchange"
	"cairn/memory"
	"cairn/project"
	"cairn/safetext"
	"cairn/store"
)

// formatOf picks jsonl or md from --format or the path.
func formatOf(path, flag string) (string, error) {
	switch flag {
	case "jsonl", "md":
		return flag, nil
	case "":
	default:
		return "", usagef("unknown --format %q: use jsonl or md", flag)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "md", nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json", ".ndjson":
		return "jsonl", nil
	case "", ".md":
		return "md", nil
	}
	return "", usagef("cannot tell the format of %s: add --format jsonl or --format md", path)
}

func (a *app) importCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "import PATH",
		Short: "import memories from JSON Lines or a markdown directory (idempotent)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			f, err := formatOf(path, format)
			if err != nil {
				return err
			}
			recs, where, err := readRecords(path, f)
			if err != nil {
				return err
			}
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			res, err := a.st.Import(cmd.Context(), a.proj.ID, recs, memory.ActorUser)
			if err != nil {
				var ie *store.ImportError
				if errors.As(err, &ie) && ie.Index < len(where) {
					return fmt.Errorf("%s: %s: %v — nothing was imported", path, where[ie.Index], ie.Err)
				}
				return fmt.Errorf("%s: %w — nothing was imported", path, err)
			}
			bound, err := a.bindImported(cmd.Context(), recs, res.New)
			if err != nil {
				fmt.Fprintln(a.env.Stderr, "cairn: imported, but binding the new memories failed: "+oneLine(err.Error()))
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			unchanged := fmt.Sprintf("%d unchanged", res.Unchanged)
			if res.Reinforced > 0 { // known facts said again: reinforced, not copied
				unchanged += fmt.Sprintf(" (%d said again: reinforced)", res.Reinforced)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %s into %s: %d added (%d bound to files or flags), %d updated, %s, %d links\n",
				path, a.proj.Name, res.Added, bound, res.Updated, unchanged, res.Edges)
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "jsonl or md (default: from the path)")
	return c
}

// bindImported binds the memories an import added without bindings to
// what their text names here (imported bindings are kept as they came).
func (a *app) bindImported(ctx context.Context, recs []memory.Record, added []store.Added) (int, error) {
	ms := make([]*memory.Memory, len(added))
	for i, ad := range added {
		ms[i], _ = recs[ad.Record].ToMemory(a.proj.ID)
		ms[i].ID = ad.ID
	}
	return a.trustService().BindNew(ctx, ms)
}

// readRecords reads an import file and says where each record came from.
// The exchange package bounds every read and refuses devices, FIFOs and
// links out of a markdown directory; nothing is written before it returns.
func readRecords(path, format string) ([]memory.Record, []string, error) {
	if format == "md" {
		recs, files, err := exchange.ReadMarkdownFiles(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
		}
		return recs, files, nil
	}
	recs, lines, err := exchange.ReadJSONLFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
	}
	return recs, lineNames(lines), nil
}

func readJSONL(path string, b []byte) ([]memory.Record, []string, error) {
	recs, lines, err := exchange.ReadJSONLLines(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
	}
	return recs, lineNames(lines), nil
}

func lineNames(lines []int) []string {
	where := make([]string, len(lines))
	for i, n := range lines {
		where[i] = fmt.Sprintf("line %d", n)
	}
	return where
}

func (a *app) exportCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "export PATH",
		Short: "export the project's memories (every status, with links) as JSON Lines or markdown",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			f, err := formatOf(path, format)
			if err != nil {
				return err
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			recs, err := a.allRecords(cmd.Context(), a.proj.ID)
			if err != nil {
				return err
			}
			if f == "md" {
				err = exchange.WriteMarkdown(path, recs)
			} else {
				err = writeFileAtomic(path, func(w io.Writer) error { return exchange.WriteJSONL(w, recs) })
			}
			if err != nil {
				return fmt.Errorf("export to %s: %w", path, err)
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"exported": len(recs), "path": path, "format": f})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %d memories of %s to %s\n", len(recs), a.proj.Name, path)
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "jsonl or md (default: from the path; a directory or no extension is md)")
	return c
}

// allRecords reads every memory of a project, oldest first, with its edges.
func (a *app) allRecords(ctx context.Context, pid string) ([]memory.Record, error) {
	var recs []memory.Record
	q := store.Query{Project: pid, Status: store.StatusAny, Limit: 1000}
	for {
		page, err := a.st.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Memories {
			r, err := a.record(ctx, m)
			if err != nil {
				return nil, err
			}
			recs = append(recs, r)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs, nil
}

// writeFileAtomic writes path through a temporary file and a rename. The
// temporary file is created exclusively with mode 0o600 (an export may
// hold private text), and the rename replaces whatever is at path rather
// than writing through it; a path that is itself a symbolic link is
// refused, since the person meant the file it leads to.
func writeFileAtomic(path string, fn func(io.Writer) error) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			target = "nowhere"
		}
		return fmt.Errorf("is a symbolic link to %s: export to the real path instead", safetext.CleanLine(target))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := fn(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (a *app) demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "open the workbench on a temporary store filled with a sample project",
		Args:  cobra.NoArgs,
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
			recs, _, err := readJSONL("demo sample set", a.env.Demo)
			if err != nil {
				return err
			}
			if _, err := st.Import(ctx, p.ID, recs, memory.ActorSystem); err != nil {
				return fmt.Errorf("load the demo sample set: %w", err)
			}
			signal.Stop(sig)
			if ctx.Err() != nil || len(sig) > 0 {
				return nil // told to stop while setting up
			}
			return a.workbench(hup, st, p)
		},
	}
}

func mustNamed(name string) memory.Project {
	p, _ := project.Named(name)
	return p
}
