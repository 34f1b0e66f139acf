package derive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"cairn/memory"
	"cairn/project"
)

// Report says what an index run did.
type Report struct {
	Root      string        `json:"root"`
	Files     int           `json:"files"`    // indexed now
	Sections  int           `json:"sections"` // in all of them
	Read      int           `json:"read"`     // new or changed files, read again
	Gone      int           `json:"gone"`     // files removed from the index
	Touched   int           `json:"touched"`  // files with a new stamp and the same content
	Unchanged int           `json:"unchanged"`
	Skipped   Skipped       `json:"skipped,omitempty"`
	Took      time.Duration `json:"took_ns"`
	Brief     string        `json:"brief,omitempty"`
	// Notes say what the facts could not be read from, one line each
	// ("go.mod is a link out of the repository: not read").
	Notes []string `json:"notes,omitempty"`
}

// partFiles is how many changed files one part of an update carries: a
// part is one request to the store's server and a few of its transactions.
const partFiles = 500

// Index brings a project's derived memory up to date with the repository
// at root: it reads what changed since the stamps the store holds, sends
// the changed files in parts, and last the removals, the new stamps and
// the summary (facts, modules and the brief a briefing starts with). Only
// what changed is read and written; the modules are summed up from the
// outlines the store keeps, not from every file's sections. excludes are
// the globs a person excluded (kept in the summary for the next run).
func Index(ctx context.Context, st memory.Deriver, project, root string, opt Options, by memory.Actor) (Report, error) {
	start := time.Now()
	if opt.Exclude == nil {
		// The excludes a person set before hold until they are changed.
		switch old, err := st.RepoSummary(ctx, project); {
		case err == nil:
			opt.Exclude = old.Excludes
		case !errors.Is(err, memory.ErrNotFound):
			return Report{}, err
		}
	}
	outlines, err := st.DerivedOutlines(ctx, project)
	if err != nil {
		return Report{}, err
	}
	prev := make(map[string]Stamp, len(outlines))
	for p, o := range outlines {
		prev[p] = o.Stamp
	}
	d, err := Update(ctx, root, opt, prev)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Root: root, Read: len(d.Changed), Gone: len(d.Removed), Touched: len(d.Restamped), Unchanged: d.Unchanged, Skipped: d.Skipped}

	// The outlines as they will be: the stored ones, less what is gone,
	// with the new stamps, and the changed files'.
	for _, p := range d.Removed {
		delete(outlines, p)
	}
	for p, s := range d.Restamped {
		if o, ok := outlines[p]; ok {
			o.Stamp = s
			outlines[p] = o
		}
	}
	changed := make([]memory.DerivedFile, len(d.Changed))
	for i, f := range d.Changed {
		o := OutlineOf(f)
		outlines[f.Path] = o
		changed[i] = memory.DerivedFile{Path: f.Path, Lang: f.Lang, Stamp: f.Stamp, Sections: f.Sections, Exported: f.Exported, Outline: o}
	}
	paths := make([]string, 0, len(outlines))
	for p, o := range outlines {
		paths = append(paths, p)
		rep.Sections += o.Sections
	}
	sort.Strings(paths)
	rep.Files = len(paths)

	facts, notes := projectFacts(root, paths)
	rep.Notes = notes
	mods := ModulesOf(outlines)
	rep.Brief = Summary(facts, mods, 0)
	sum := memory.RepoSummary{Root: root, Head: Head(ctx, root), IndexedAt: time.Now().UTC(), Files: rep.Files, Sections: rep.Sections,
		Skipped: d.Skipped, Read: rep.Read, Gone: rep.Gone, Excludes: opt.Exclude, Facts: facts, Modules: mods, Brief: rep.Brief}

	for len(changed) > partFiles {
		part := memory.DerivedUpdate{Changed: changed[:partFiles], More: true}
		if err := st.UpdateDerived(ctx, project, part, by); err != nil {
			return rep, fmt.Errorf("index: %w", err)
		}
		changed = changed[partFiles:]
	}
	last := memory.DerivedUpdate{Changed: changed, Removed: d.Removed, Restamped: d.Restamped, Summary: sum}
	if err := st.UpdateDerived(ctx, project, last, by); err != nil {
		return rep, fmt.Errorf("index: %w", err)
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// Head is the commit checked out in the git work tree at root, "" when
// there is none: a project indexed at another commit is indexed again at
// its next wake check.
func Head(ctx context.Context, root string) string {
	if h := project.Head(root); h != "" {
		return h // read from .git: every command asks, and a git process costs more than the rest of the check
	}
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "-C", root, "rev-parse", "--verify", "-q", "HEAD")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Stale reports whether the project indexed as s at root should be
// indexed again: another commit is checked out there. A command run from
// another directory (a project named with --project) never replaces the
// repository it was indexed from; cairn index there does, on purpose.
func Stale(ctx context.Context, s memory.RepoSummary, root string) bool {
	return s.Root == root && s.Head != Head(ctx, root)
}

// ValidExclude checks an exclude glob before it is kept.
func ValidExclude(glob string) error {
	if strings.TrimSpace(strings.Trim(glob, "/")) == "" {
		return fmt.Errorf("exclude %q: give a glob such as docs/old or *.gen.go", glob)
	}
	if _, err := compileExcludes([]string{glob}); err != nil {
		return fmt.Errorf("exclude %q is not a glob path.Match reads: fix its brackets or escapes", glob)
	}
	return nil
}
