package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/mirror"
)

func (a *app) syncCommand() *cobra.Command {
	var layers string
	var forget, yes, removed bool
	c := &cobra.Command{
		Use:   "sync [DIR]",
		Short: "keep the project's shared memories as markdown in the repository, both ways (the team mirror)",
		Long: `sync writes the project's shared memories to DIR (default .cairn/memories/ at the
repository's root), one markdown file per memory, and reads back what teammates added,
edited, moved or deleted there since the last sync (after a git pull).

Shared: every layer (or those --layers names), except memories tagged "personal" and
archived ones. A deleted file archives its memory; a forget travels as a tombstone
(DIR/.tombstones, ids only) that archives the memory in other stores until a person
runs cairn sync --forget. A memory changed on both sides is kept as it is here; the
mirror's version becomes a new memory that contradicts it, to verify first.

A file keeps its name for life (an edit of the title does not rename it; a file a
person renames keeps the new name). In a git work tree the sync stages what it wrote
and removed (git add, git rm; never a commit), so git commit -am carries all of it.

A mirror that is missing, or lost more than half of its files at once, is taken for a
checkout of a branch without them: the sync says so and changes nothing (--mirror-removed
if they were removed on purpose). A sync that would archive more than 3 memories, or
remove files of memories no longer shared (--layers, a personal tag), names them and
asks on a terminal; elsewhere it needs --yes.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ls, err := parseLayers(layers)
			if err != nil {
				return err
			}
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			} else if a.proj.ID == memory.GlobalID {
				return usagef("the global scope has no repository to mirror into: name a DIR, or run cairn sync in a project")
			} else {
				root, err := a.repoRoot()
				if err != nil {
					return err
				}
				dir = filepath.Join(root, filepath.FromSlash(mirror.DefaultDir))
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			declined := false
			confirm := func(ask mirror.Ask) bool {
				if yes {
					return true
				}
				if !a.env.IsTerminal() {
					return false
				}
				declined = !askSync(cmd.InOrStdin(), cmd.OutOrStdout(), ask)
				return !declined
			}
			rep, err := mirror.Run(cmd.Context(), a.st, home, mirror.Options{Dir: dir, Project: a.proj.ID,
				Layers: ls, Forget: forget, MirrorRemoved: removed, Confirm: confirm, Actor: memory.ActorUser})
			var ce *mirror.ConfirmError
			var ge *mirror.GoneError
			var be *mirror.BusyError
			switch {
			case errors.As(err, &ce) && declined:
				return nil // the person said no: nothing was changed, as said
			case errors.As(err, &ce):
				return usage(err)
			case errors.As(err, &ge), errors.As(err, &be):
				return err
			case err != nil:
				return fmt.Errorf("sync %s: %w", dir, err)
			}
			if a.json {
				if err := writeJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printSync(cmd.OutOrStdout(), dir, rep)
			}
			if len(rep.Refused) > 0 {
				return fmt.Errorf("%s refused: resolve and run cairn sync again", plural(len(rep.Refused), "file", "files"))
			}
			return nil
		},
	}
	c.Flags().StringVar(&layers, "layers", "", "the layers to share, as letters (ABDEF); default every layer")
	c.Flags().BoolVar(&forget, "forget", false, "forget here what teammates forgot (their tombstones); without it those are archived")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask before archiving more than 3 memories or unsharing any (needed when not on a terminal)")
	c.Flags().BoolVar(&removed, "mirror-removed", false, "the mirror, or most of its files, was removed on purpose: archive the memories of the missing files")
	return c
}

// parseLayers reads "ABD" (or "a,b,d") as layers; "" is every layer (nil).
func parseLayers(s string) ([]memory.Layer, error) {
	var out []memory.Layer
	for _, r := range strings.ToUpper(s) {
		if r == ',' || r == ' ' {
			continue
		}
		l := memory.Layer(r)
		if !l.Valid() {
			return nil, usagef("--layers %q: name layers by their letters A to F", s)
		}
		out = append(out, l)
	}
	return out, nil
}

// askSync names what a sync would archive or unshare and asks a person.
func askSync(in io.Reader, out io.Writer, ask mirror.Ask) bool {
	if n := len(ask.Archive); n > 0 {
		fmt.Fprintf(out, "This sync would archive %s (archive can be undone):\n", plural(n, "memory", "memories"))
		for _, m := range ask.Archive {
			fmt.Fprintf(out, "  %s  %s\n", m.ID, cleanLine(m.Title))
		}
	}
	if n := len(ask.Unshare); n > 0 {
		fmt.Fprintf(out, "This sync would remove from the mirror the files of %s no longer shared here; teammates' syncs archive them:\n",
			plural(n, "memory", "memories"))
		for _, m := range ask.Unshare {
			fmt.Fprintf(out, "  %s  %s\n", m.ID, cleanLine(m.Title))
		}
	}
	fmt.Fprint(out, "Type yes to go on: ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(strings.ToLower(line)) == "yes" {
		return true
	}
	fmt.Fprintln(out, "nothing was changed")
	return false
}

func printSync(w io.Writer, dir string, r mirror.Report) {
	if r.Nothing() && len(r.Refused) == 0 {
		fmt.Fprintf(w, "nothing to sync with %s\n", cleanLine(dir))
	} else if r.Nothing() {
		fmt.Fprintf(w, "nothing else to sync with %s\n", cleanLine(dir))
	} else {
		fmt.Fprintf(w, "synced %s: %s written, %d removed; %d new, %d edited, %d archived, %d forgotten from the mirror\n",
			cleanLine(dir), plural(r.Written, "file", "files"), r.Removed, r.Added, r.Edited, r.Archived, r.Forgotten)
	}
	for _, id := range r.Conflicts {
		fmt.Fprintf(w, "  ! %s: changed here and in the mirror at once: the mirror's version is a new memory that contradicts yours, to verify first (cairn verify)\n", id)
	}
	for _, id := range r.Kept {
		fmt.Fprintf(w, "  ! %s: edited here, deleted in the mirror: kept, and written back\n", id)
	}
	if n := len(r.Pending); n > 0 {
		fmt.Fprintf(w, "  %s forgot %s: archived here; cairn sync --forget forgets them here too\n", "teammates", plural(n, "memory", "memories"))
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "  %s without frontmatter left alone (not memories)\n", plural(r.Skipped, "file", "files"))
	}
	for _, m := range r.Unshared {
		fmt.Fprintf(w, "  removed %s %s: no longer shared here\n", m.ID, cleanLine(m.Title))
	}
	for _, s := range r.Refused {
		fmt.Fprintf(w, "  refused %s\n", cleanLine(s))
	}
	if r.Staged > 0 {
		fmt.Fprintf(w, "  staged in git: %s (git commit -am carries them)\n", plural(r.Staged, "file", "files"))
	}
	if r.Unstaged != "" {
		fmt.Fprintf(w, "  not staged: %s — git add the mirror before committing\n", cleanLine(r.Unstaged))
	}
}
