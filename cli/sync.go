package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"cairn/internal/atomicfile"
	"cairn/memory"
	"cairn/mirror"
)

// DefaultMirror is where the team mirror lives in a repository.
const DefaultMirror = ".cairn/memories"

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
			} else {
				root, err := a.repoRoot()
				if err != nil {
					return err
				}
				dir = filepath.Join(root, filepath.FromSlash(DefaultMirror))
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			statePath, err := a.syncStatePath(dir)
			if err != nil {
				return err
			}
			state, err := readSyncState(statePath)
			if err != nil {
				return err
			}
			rep, err := mirror.Sync(cmd.Context(), a.st, &state, mirror.Options{Dir: dir, Project: a.proj.ID,
				Layers: ls, Forget: forget, Actor: memory.ActorUser})
			if err != nil {
				return fmt.Errorf("sync %s: %w", dir, err)
			}
			if err := atomicfile.Write(statePath, 0o600, func(w io.Writer) error { return json.NewEncoder(w).Encode(state) }); err != nil {
				return fmt.Errorf("sync state: %w", err)
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

// syncStatePath is where the last sync of this project with dir is kept:
// in cairn's home, per project and directory, since it is this machine's
// (what this store and that directory last agreed on).
func (a *app) syncStatePath(dir string) (string, error) {
	home, err := a.homeDir()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(dir))
	return filepath.Join(home, "sync", a.proj.ID+"-"+hex.EncodeToString(h[:6])+".json"), nil
}

func readSyncState(path string) (mirror.State, error) {
	var st mirror.State
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, os.MkdirAll(filepath.Dir(path), 0o700)
	} else if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("sync state %s: %v (remove it: the next sync compares everything again)", path, err)
	}
	return st, nil
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
	for _, s := range r.Refused {
		fmt.Fprintf(w, "  refused %s\n", cleanLine(s))
	}
}
