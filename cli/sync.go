package cli

import (
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
	var forget bool
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
mirror's version becomes a new memory that contradicts it, to verify first.`,
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
			rep, err := mirror.Run(cmd.Context(), a.st, home, mirror.Options{Dir: dir, Project: a.proj.ID,
				Layers: ls, Forget: forget, Actor: memory.ActorUser})
			if err != nil {
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

func printSync(w io.Writer, dir string, r mirror.Report) {
	if r.Nothing() {
		fmt.Fprintf(w, "nothing to sync with %s\n", cleanLine(dir))
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
	for _, s := range r.Refused {
		fmt.Fprintf(w, "  refused %s\n", cleanLine(s))
	}
}
