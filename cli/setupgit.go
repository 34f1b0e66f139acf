package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"cairn/project"
)

// The lines cairn setup git adds to a repository's .gitattributes: the
// team mirror's memory files merge with cairn's driver, and its tombstones
// (ids, a line each) by keeping both sides' lines.
const gitAttributesBlock = `# cairn: a memory edited on both sides merges into the newer version plus a copy to verify (cairn setup git)
.cairn/**/*.md merge=cairn
.cairn/**/.tombstones merge=union
`

// gitSetupDone is what setup says when the driver is in.
const gitSetupDone = "done: concurrent edits of a memory now merge into the newer version plus a copy to verify; commit .gitattributes so that teammates' clones use it too (each runs cairn setup git once)"

// gitSetupChanges works out what cairn setup git changes in the repository
// around the working directory: its .gitattributes (shared, committed) and
// its git config (this clone's: where the driver's command is).
func (a *app) gitSetupChanges(remove bool) ([]fileChange, error) {
	wd, err := a.env.Getwd()
	if err != nil {
		return nil, err
	}
	root := project.GitRoot(wd)
	if root == "" {
		return nil, usagef("%s is not inside a git repository: run cairn setup git in the repository whose team mirror it is", cleanLine(wd))
	}
	cmd := exec.Command("git", "rev-parse", "--git-common-dir")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("find the git config of %s: %v (is git installed?)", cleanLine(root), err)
	}
	config := filepath.Join(strings.TrimSpace(string(out)), "config")
	if !filepath.IsAbs(config) {
		config = filepath.Join(root, config)
	}
	bin, err := setupCommand() // the name cairn when it is on $PATH, as the agents' hooks are written
	if err != nil {
		return nil, err
	}
	var changes []fileChange
	for _, f := range []struct {
		path, what string
		edit       func([]byte) []byte
	}{
		{filepath.Join(root, ".gitattributes"), "git attributes (the team mirror's merge driver)", func(b []byte) []byte { return editBlock(b, []byte(gitAttributesBlock), remove) }},
		{config, "git config (the merge driver's command)", func(b []byte) []byte { return editDriver(b, gitConfigBlock(bin), remove) }},
	} {
		before, err := os.ReadFile(f.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %v — nothing was written", f.path, err)
		}
		if before == nil && remove {
			continue
		}
		if after := f.edit(before); !bytes.Equal(after, before) {
			changes = append(changes, fileChange{path: f.path, what: f.what, before: before, after: after, mode: 0o644})
		}
	}
	return changes, nil
}

// gitConfigBlock is the section of the repository's git config that names
// cairn's merge driver. The value is quoted for git (so that a # or ; in
// the path is no comment) and the path for the shell git runs it with.
func gitConfigBlock(bin string) string {
	sh := "'" + strings.ReplaceAll(bin, "'", `'\''`) + "'"
	driver := sh + " merge-file %O %A %B %P"
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(driver)
	return "[merge \"cairn\"]\n\tname = cairn: the newer version of a memory, the other kept as a copy to verify\n\tdriver = \"" + q + "\"\n"
}

// editDriver puts section (cairn's [merge "cairn"]) in a git config, in
// place of the one there (the binary moved since), or at the end; with
// remove it takes the section out, whatever it says.
func editDriver(b []byte, section string, remove bool) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 && t == `[merge "cairn"]` {
			start = i
		} else if start >= 0 && strings.HasPrefix(t, "[") {
			end = i
			break
		}
	}
	if start < 0 {
		if remove {
			return b
		}
		return editBlock(b, []byte(section), false)
	}
	with := section
	if remove {
		with = ""
	}
	out := strings.Join(lines[:start], "") + with + strings.Join(lines[end:], "")
	if out == "" {
		return nil
	}
	return []byte(out)
}

// editBlock adds block to the end of b, unless b holds it already, or with
// remove takes it out again, so that a file setup created is removed
// (nil) and one it added to is as it was. A line of block found elsewhere
// in b (a person wrote it) is left where it is.
func editBlock(b, block []byte, remove bool) []byte {
	if remove {
		i := bytes.Index(b, block)
		if i < 0 {
			return b
		}
		out := append(append([]byte{}, b[:i]...), b[i+len(block):]...)
		if len(out) == 0 {
			return nil
		}
		return out
	}
	if bytes.Contains(b, block) {
		return b
	}
	out := append([]byte{}, b...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, block...)
}
