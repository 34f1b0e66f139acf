package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"cairn/internal/safefile"
	"cairn/mirror"
)

// mergeFileCommand is git's merge driver for the team mirror's memory
// files (cairn setup git registers it): git runs it with the common
// ancestor, our version (where the result goes) and theirs, and the
// file's path in the repository.
func (a *app) mergeFileCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "merge-file BASE OURS THEIRS PATH",
		Short:  "git's merge driver for the team mirror (cairn setup git registers it)",
		Hidden: true,
		Long: `merge-file merges two concurrent versions of one memory file of the team mirror,
as git's merge driver: OURS becomes the newer version, and when both sides changed
what a person reads, the other version is written beside it as a memory of its own
that contradicts the newer one; the next cairn sync puts it in the verify-first
queue. It never writes conflict markers. Input it cannot read as memory files is
left to git's own conflict (exit 1), for a person to resolve.`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, ours, theirs, rel := args[0], args[1], args[2], filepath.ToSlash(args[3])
			read := func(p string) ([]byte, error) {
				b, _, err := safefile.ReadFile(p, mirror.MaxFile, "memory file", "resolve the merge by hand")
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p, err)
				}
				return b, nil
			}
			var bs [3][]byte
			var err error
			for i, p := range []string{base, ours, theirs} {
				if bs[i], err = read(p); err != nil {
					break
				}
			}
			var m mirror.Merged
			if err == nil {
				m, err = mirror.Merge(rel, bs[0], bs[1], bs[2])
			}
			if err == nil && m.Copy != nil {
				err = writeCopy(m.CopyName, m.Copy)
			}
			if err == nil {
				err = os.WriteFile(ours, m.Result, 0o644)
			}
			if err != nil {
				return gitConflict(rel, base, ours, theirs, err)
			}
			if m.Copy != nil {
				fmt.Fprintf(a.env.Stderr, "cairn: %s changed on both sides: kept the newer version (%s); the other is %s, which contradicts it — cairn sync puts it in verify-first\n",
					rel, m.Kept, m.CopyName)
			}
			return nil
		},
	}
}

// writeCopy writes the other version of a merged memory beside it (the
// driver runs at the work tree's root, where PATH is). A file already
// there with the same bytes is a merge done again.
func writeCopy(rel string, b []byte) error {
	p := filepath.FromSlash(rel)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		if old, _, rerr := safefile.ReadFile(p, int64(len(b)), "memory file", ""); rerr == nil && string(old) == string(b) {
			return nil
		}
		return fmt.Errorf("%s is there already, with other content", rel)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
	}
	return err
}

// gitConflict leaves the file to git's own line merge, conflict markers
// and all, and fails so that git reports a conflict for a person.
func gitConflict(rel, base, ours, theirs string, why error) error {
	out, err := exec.Command("git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return fmt.Errorf("%s: %v; git merge-file: %v %s", rel, oneLine(why.Error()), err, strings.TrimSpace(string(out)))
	}
	return fmt.Errorf("%s: not merged as memories (%v): git's conflict is in the file — resolve it by hand, then run cairn sync", rel, oneLine(why.Error()))
}
