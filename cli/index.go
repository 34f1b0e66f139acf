package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/derive"
	"cairn/memory"
	"cairn/project"
)

// repoRoot is the repository the project's derived memory is read from:
// the project's root, else the git work tree (or the directory) this
// command runs in.
func (a *app) repoRoot() (string, error) {
	if a.proj.Root != "" {
		return a.proj.Root, nil
	}
	wd, err := a.env.Getwd()
	if err != nil {
		return "", err
	}
	if r := project.GitRoot(wd); r != "" {
		return r, nil
	}
	return wd, nil
}

func (a *app) indexCommand() *cobra.Command {
	var exclude, include []string
	var maxSize int64
	c := &cobra.Command{
		Use:   "index",
		Short: "read what the repository says (sections of code and docs, modules, commands) into derived memory",
		Long: `index reads the project's repository — Markdown headings, Go declarations and
package docs, Python, TypeScript/JavaScript and Rust definitions with their doc
comments, a summary per module, and the project's facts (language, dependencies,
the commands to build, test and run it) — into derived memory, which recall
answers from and cairn context starts with. Only files changed since the last
run are read again; after a commit, the next cairn command does it by itself.
It respects .gitignore and skips binaries, vendored and generated files and
files over the size limit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxSize < 0 {
				return usagef("--max-size %d: give a size in bytes, or 0 for the default (1 MiB)", maxSize)
			}
			ctx := cmd.Context()
			if err := a.open(ctx, true); err != nil {
				return err
			}
			root, err := a.repoRoot()
			if err != nil {
				return err
			}
			opt := derive.Options{MaxFileSize: maxSize}
			if len(exclude) > 0 || len(include) > 0 {
				if opt.Exclude, err = a.excludes(ctx, exclude, include); err != nil {
					return err
				}
			}
			rep, err := derive.Index(ctx, a.st, a.proj.ID, root, opt, memory.ActorUser)
			if err != nil {
				return hint(err, "check that the repository can be read, then run cairn index again")
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			printIndexReport(cmd, rep)
			return nil
		},
	}
	c.Flags().StringArrayVar(&exclude, "exclude", nil, "leave out files matching this glob from now on (repeatable; ** for any depth)")
	c.Flags().StringArrayVar(&include, "include", nil, "take back an --exclude given before (repeatable)")
	c.Flags().Int64Var(&maxSize, "max-size", 0, "skip files larger than this many bytes (0: 1 MiB)")
	return c
}

// excludes are the stored excludes with add added and drop taken out.
// Each new glob is checked before anything is read.
func (a *app) excludes(ctx context.Context, add, drop []string) ([]string, error) {
	var cur []string
	switch s, err := a.st.RepoSummary(ctx, a.proj.ID); {
	case err == nil:
		cur = s.Excludes
	case !errors.Is(err, memory.ErrNotFound):
		return nil, err
	}
	for _, g := range drop {
		if !slices.Contains(cur, g) {
			return nil, usagef("--include %q: it was not excluded (excluded: %s)", g, listOrNone(cur))
		}
		cur = slices.DeleteFunc(cur, func(x string) bool { return x == g })
	}
	for _, g := range add {
		if err := derive.ValidExclude(g); err != nil {
			return nil, usage(err)
		}
		if !slices.Contains(cur, g) {
			cur = append(cur, g)
		}
	}
	if cur == nil {
		cur = []string{} // none, said on purpose: not "the stored ones"
	}
	return cur, nil
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func printIndexReport(cmd *cobra.Command, r derive.Report) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "indexed %s: %s, %s in %s\n", cleanLine(r.Root), plural(r.Files, "file", "files"),
		plural(r.Sections, "section", "sections"), r.Took.Round(time.Millisecond))
	var what []string
	if r.Read > 0 {
		what = append(what, fmt.Sprintf("%d read", r.Read))
	}
	if r.Gone > 0 {
		what = append(what, fmt.Sprintf("%d gone", r.Gone))
	}
	if len(what) == 0 {
		what = append(what, "nothing changed")
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(what, ", "))
	if s := r.Skipped.String(); s != "" {
		fmt.Fprintf(w, "  skipped %s\n", s)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", cleanLine(n))
	}
	fmt.Fprintln(w, "  cairn context shows the project's summary; cairn recall answers \"where is …?\" from it")
}

// rederive indexes the project's repository again when it was indexed at
// another commit (or from another root): after a commit, only what
// changed is read. A project never indexed is left alone (cairn index
// starts it). Its error is for the caller to report: it never stops a
// command.
func (a *app) rederive(ctx context.Context) (err error) {
	// Whatever the repository holds, the command that asked goes on.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	s, err := a.st.RepoSummary(ctx, a.proj.ID)
	if err != nil {
		return nil
	}
	root, err := a.repoRoot()
	if err != nil || !derive.Stale(ctx, s, root) {
		return nil
	}
	_, err = derive.Index(ctx, a.st, a.proj.ID, root, derive.Options{}, memory.ActorSystem)
	return err
}
