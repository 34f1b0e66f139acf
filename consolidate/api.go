// Package consolidate is cairn's "sleep" (DESIGN §5): a pass over a
// project's drafts and active memories that extracts candidate memories
// from the drafts, folds duplicates, supersedes contradicted facts when the
// newer one's provenance ranks at least as high, writes lessons about its
// own corrected mistakes, reopens decisions whose reasons changed, and
// leaves what is uncertain to a person as proposals. Every pass is one run
// the store applies all or nothing and can undo exactly.
//
// This package is the planner; what it reads with lives in packages of
// their own, pure and tested alone: extract (candidates from a draft, by
// patterns or checked from a model), claims (contradictions and values)
// and update (updates and paraphrases in other words). The language model
// is built by the caller from the settings it loaded (Options.LLM).
package consolidate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cairn/memory"
	"cairn/safetext"
)

// Progress is how far a pass has come.
type Progress struct {
	Stage string `json:"stage"` // reading, extracting, reconciling, writing
	Done  int    `json:"done"`
	Total int    `json:"total"`
}

// Options tune a pass.
type Options struct {
	DryRun bool // plan and report, write nothing
	// AskedBy is who asked for the pass (user: CLI and workbench; agent:
	// MCP). The run's own actor is always system.
	AskedBy  memory.Actor
	Progress func(Progress) // nil: silent
	LLM      *LLM           // built by the caller (LLMFromEnv over the settings it loaded); nil: the patterns alone
	// Bind binds the texts of new memories to what they name (a trust
	// checker's BindMany); nil leaves them unbound.
	Bind func(ctx context.Context, texts []string) [][]memory.Watermark
	Now  func() time.Time // nil: time.Now
	// Quick is the cheap pass an agent's hook runs when a session ends or
	// is compacted: the drafts are read, reconciled and deduplicated
	// against the store as in a full pass, but the whole-store passes —
	// pairs among stored memories, decisions to reopen, stale memories —
	// wait for the next full pass (which still sees everything written
	// since the last full one).
	Quick bool
	// Session, when set, takes only the drafts of that agent session.
	Session string
	// StaleAfter is how long a weak memory may go unused before it is
	// proposed for archiving; 0 means DefaultStaleAfter.
	StaleAfter time.Duration
}

// DefaultStaleAfter is how long unused a weak memory must be to be
// proposed for archiving.
const DefaultStaleAfter = 180 * 24 * time.Hour

// Report is what a pass did (or, dry, would do).
type Report struct {
	Run     memory.Run                `json:"run"` // Run.ID is "" on a dry run and when nothing changed
	DryRun  bool                      `json:"dry_run"`
	Drafts  int                       `json:"drafts"` // drafts read
	Counts  map[memory.ChangeKind]int `json:"counts"`
	Dropped []string                  `json:"dropped,omitempty"` // candidates refused, with the reason
	// ModelLate says the language model's deadline for the pass passed
	// (Options.LLM's Deadline); ByPatterns is how many drafts the
	// patterns extracted after it, as without a model.
	// Unreviewed is how many sessions' candidates only their budget chose
	// after it (see LLM.Review).
	ModelLate  bool `json:"model_deadline_passed,omitempty"`
	ByPatterns int  `json:"drafts_by_patterns,omitempty"`
	Unreviewed int  `json:"sessions_unreviewed,omitempty"`
	// Answered are the gaps (questions recall could not answer) that the
	// project's memories answer now: closed by the pass (listed only, on a
	// dry run).
	Answered []Answered `json:"answered,omitempty"`
}

// Answered is a gap a memory answers now.
type Answered struct {
	Gap   memory.Gap `json:"gap"`
	By    string     `json:"by"`
	Title string     `json:"title"`
}

// Changed reports whether the pass changed (or would change) anything.
func (r Report) Changed() bool { return len(r.Run.Changes) > 0 }

// Summary is the report in one line: "3 drafts: 2 new, 1 superseded …".
func (r Report) Summary() string {
	order := []struct {
		k    memory.ChangeKind
		name string
	}{
		{memory.ChangeCreate, "new"}, {memory.ChangeReinforce, "reinforced"}, {memory.ChangeSupersede, "superseded"},
		{memory.ChangeLesson, "lessons"}, {memory.ChangeReopen, "reopened"}, {memory.ChangePropose, "proposals"},
		{memory.ChangeLink, "links"},
	}
	var parts []string
	for _, o := range order {
		if n := r.Counts[o.k]; n > 0 {
			name := o.name
			if n == 1 {
				name = strings.TrimSuffix(name, "s")
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	drafts := fmt.Sprintf("%d drafts", r.Drafts)
	if r.Drafts == 1 {
		drafts = "1 draft"
	}
	late := ""
	if r.ModelLate {
		late = "; " + r.LateNote()
	}
	if len(parts) == 0 {
		return drafts + ": nothing to change" + late
	}
	return drafts + ": " + strings.Join(parts, ", ") + late
}

// LateNote says that the model's deadline passed and what the patterns
// took ("" when it did not pass).
func (r Report) LateNote() string {
	if !r.ModelLate {
		return ""
	}
	var what []string
	if r.ByPatterns > 0 || r.Unreviewed == 0 {
		what = append(what, "the patterns extracted "+plural(r.ByPatterns, "draft")+" without it")
	}
	if r.Unreviewed > 0 {
		what = append(what, "the budget alone chose what "+plural(r.Unreviewed, "session")+" left")
	}
	return "the language model's deadline for the pass passed: " + strings.Join(what, ", and ")
}

// plural is "1 draft" or "n drafts".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// Undo reverts a whole run exactly; id may be a unique prefix.
func Undo(ctx context.Context, st memory.Store, p memory.Project, id string, by memory.Actor) (memory.Run, error) {
	return st.UndoRun(ctx, p.ID, id, by)
}

// Describe is one line in words for a change of a run, for people. A
// lookup (Lookup) expands the ids its reason names into titles.
func Describe(c memory.Change, lookup ...func(id string) (string, bool)) string {
	if len(lookup) > 0 && lookup[0] != nil {
		c.Reason = memory.Explain(c.Reason, lookup[0])
	}
	q := func(s string) string {
		if s == "" {
			return "a memory no longer there"
		}
		return "'" + safetext.CleanLine(s) + "'"
	}
	switch c.Kind {
	case memory.ChangeCreate:
		return fmt.Sprintf("new %s %s %s", c.Layer.Letter(), c.Layer, q(c.Title))
	case memory.ChangeSupersede:
		return fmt.Sprintf("superseded %s → %s", q(c.TargetTitle), q(c.Title))
	case memory.ChangeReinforce:
		return fmt.Sprintf("reinforced %s (said again)", q(c.TargetTitle))
	case memory.ChangeLesson:
		return fmt.Sprintf("lesson F %s", q(c.Title))
	case memory.ChangeReopen:
		return fmt.Sprintf("reopened %s: %s", q(c.TargetTitle), safetext.CleanLine(c.Reason))
	case memory.ChangePropose:
		return fmt.Sprintf("proposed: %s", safetext.CleanLine(c.Reason))
	case memory.ChangeLink:
		return fmt.Sprintf("linked %s → %s", q(c.Title), q(c.TargetTitle))
	case memory.ChangeArchive:
		return fmt.Sprintf("archived %s", q(c.TargetTitle))
	case memory.ChangeAccept:
		return "accepted proposal " + c.Proposal
	case memory.ChangeReject:
		return "rejected proposal " + c.Proposal
	case memory.ChangeDraftDone:
		return "draft " + c.Draft + " consolidated"
	}
	return string(c.Kind)
}

// Explain expands the memory ids of a stored reason into quoted titles
// (see memory.Explain).
func Explain(s string, lookup func(id string) (title string, ok bool)) string {
	return memory.Explain(s, lookup)
}

// Lookup is an Explain lookup over a store.
func Lookup(ctx context.Context, st interface {
	Get(context.Context, string) (*memory.Memory, error)
}) func(string) (string, bool) {
	return func(id string) (string, bool) {
		m, err := st.Get(ctx, id)
		if err != nil {
			return "", false
		}
		return m.Title, true
	}
}
