package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"cairn/memory"
	"cairn/safetext"
)

// Text output shows what came from the store or from a person or agent
// through cleanText (several lines) or cleanLine (one line): stored text
// may hold escape sequences (bodies may, and stores written before short
// fields were checked may hold them anywhere), and printed raw they would
// act on the terminal. --json output is left alone: its encoder escapes
// the C0 controls, and it is read by programs.
var (
	cleanText = safetext.Clean
	cleanLine = safetext.CleanLine
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// projectName names a project id, asking the store once per id.
func (a *app) projectName(ctx context.Context, id string) string {
	if a.names == nil {
		a.names = map[string]string{}
	}
	if n, ok := a.names[id]; ok {
		return n
	}
	n := id
	if p, err := a.st.Project(ctx, id); err == nil {
		n = p.Name
	}
	a.names[id] = n
	return n
}

// nameDrafts and the three below put a project's name where its id was, in
// what is about to be printed: --json names a project by its name wherever
// it appears, as memory records always have (16 hex digits say nothing to
// a reader, and the name is what --project takes).
func (a *app) nameDrafts(ctx context.Context, ds []memory.Draft) {
	for i := range ds {
		ds[i].Project = a.projectName(ctx, ds[i].Project)
	}
}

func (a *app) nameEvents(ctx context.Context, evs []memory.Event) {
	for i := range evs {
		evs[i].Project = a.projectName(ctx, evs[i].Project)
	}
}

func (a *app) nameRuns(ctx context.Context, rs []memory.Run) {
	for i := range rs {
		rs[i].Project = a.projectName(ctx, rs[i].Project)
	}
}

func (a *app) nameProposal(ctx context.Context, p *memory.Proposal) {
	p.Project = a.projectName(ctx, p.Project)
	if p.Memory != nil {
		m := p.Memory.Clone()
		m.Project = a.projectName(ctx, m.Project)
		p.Memory = m
	}
}

// shorten learns the short forms of memory ids shown together: prefixes
// that name each in the whole store, so that any of them can be typed
// back (see memory.ShortIDsIn). --json output keeps whole ids.
func (a *app) shorten(ctx context.Context, ids ...string) {
	if a.shorts == nil {
		a.shorts = map[string]string{}
	}
	var todo []string
	for _, id := range ids {
		if _, ok := a.shorts[id]; !ok {
			todo = append(todo, id)
		}
	}
	if len(todo) == 0 {
		return
	}
	for id, s := range memory.ShortIDsIn(ctx, a.st, todo) {
		a.shorts[id] = s
	}
}

// sid is a memory id as a person reads it: its short form.
func (a *app) sid(ctx context.Context, id string) string {
	a.shorten(ctx, id)
	return a.shorts[id]
}

// record builds the public JSON form of m with its outgoing edges.
func (a *app) record(ctx context.Context, m *memory.Memory) (memory.Record, error) {
	out, _, err := a.st.Edges(ctx, m.ID)
	if err != nil {
		return memory.Record{}, err
	}
	return memory.ToRecord(m, a.projectName(ctx, m.Project), out), nil
}

// printMemory reports a memory that a command just wrote.
func (a *app) printMemory(cmd *cobra.Command, verb string, m *memory.Memory) error {
	if a.json {
		r, err := a.record(cmd.Context(), m)
		if err != nil {
			return err
		}
		return writeJSON(cmd.OutOrStdout(), r)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s  %s · %s  %q\n", verb, a.sid(cmd.Context(), m.ID), m.Layer.Letter(), m.Layer.Title(), cleanLine(m.Title))
	return nil
}

// show prints one memory in full, with its versions when asked.
func (a *app) show(cmd *cobra.Command, m *memory.Memory, versions []*memory.Memory) error {
	ctx := cmd.Context()
	w := cmd.OutOrStdout()
	if a.json {
		r, err := a.record(ctx, m)
		if err != nil {
			return err
		}
		if versions == nil {
			return writeJSON(w, r)
		}
		hist := make([]memory.Record, 0, len(versions))
		for _, v := range versions {
			hist = append(hist, memory.ToRecord(v, a.projectName(ctx, v.Project), nil))
		}
		return writeJSON(w, struct {
			memory.Record
			History []memory.Record `json:"history"`
		}{r, hist})
	}
	out, in, err := a.st.Edges(ctx, m.ID)
	if err != nil {
		return err
	}
	ids := append([]string{m.SupersededBy}, m.Supersedes...)
	for _, e := range out {
		ids = append(ids, e.To)
	}
	for _, e := range in {
		ids = append(ids, e.From)
	}
	a.shorten(ctx, append(ids, m.ID)...)
	// Linked memories are named by short id and title: an id alone says
	// nothing to a person reading the links.
	linked := map[string]string{}
	for _, id := range ids {
		if _, done := linked[id]; done || id == "" {
			continue
		}
		title := "(no longer there)"
		if l, err := a.st.Get(ctx, id); err == nil {
			title = "'" + cleanLine(l.Title) + "'"
		}
		linked[id] = cleanLine(a.shorts[id]) + "  " + title
	}
	writeMemoryText(w, m, a.projectName(ctx, m.Project), out, in, a.shorts[m.ID], linked)
	a.writeBoundSections(ctx, w, m)
	for i, v := range versions {
		if i == len(versions)-1 {
			break
		}
		fmt.Fprintf(w, "\n── version %d (until %s) ──\n", v.Version, versions[i+1].UpdatedAt.Local().Format(timeFmt))
		if v.Title != versions[i+1].Title {
			fmt.Fprintf(w, "title: %s\n", cleanLine(v.Title))
		}
		fmt.Fprintln(w, cleanText(strings.TrimRight(v.Body, "\n")))
	}
	return nil
}

const timeFmt = "2006-01-02 15:04"

// maxBoundSections bounds what show lists of the repository's sections.
const maxBoundSections = 8

// writeBoundSections lists what the repository says in the files a memory
// is bound to (derived memory): where to look to check the fact.
func (a *app) writeBoundSections(ctx context.Context, w io.Writer, m *memory.Memory) {
	var lines []string
	more := 0
	for _, wm := range m.Watermarks {
		if wm.Kind != memory.WatermarkFile && wm.Kind != memory.WatermarkGit {
			continue
		}
		if wm.Target == "" {
			continue // the whole repository says too much to list
		}
		files, err := a.st.DerivedFiles(ctx, m.Project, wm.Target)
		if err != nil {
			return
		}
		for _, f := range files {
			for _, s := range f.Sections {
				if len(lines) == maxBoundSections {
					more++
					continue
				}
				what := s.Signature
				if what == "" {
					what = s.Name
				}
				lines = append(lines, fmt.Sprintf("  %s:%d  %s", cleanLine(s.Path), s.Line, cleanLine(what)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "in the repository (derived):")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if more > 0 {
		fmt.Fprintf(w, "  … and %d more sections\n", more)
	}
}

// writeMemoryText prints m in full, its own id whole at the head; short is
// that id shortened, and linked names each memory it links to by short id
// and title.
func writeMemoryText(w io.Writer, m *memory.Memory, project string, out, in []memory.Edge, short string, linked map[string]string) {
	// The id line comes first; with everything below it cleaned, nothing
	// can move the cursor back over it (the forget confirmation relies on it).
	fmt.Fprintf(w, "%s  %s · %s · %s  %s  v%d\n", m.ID, m.Layer.Letter(), m.Layer.Title(), m.Kind, m.Status, m.Version)
	fmt.Fprintf(w, "%s\n", cleanLine(m.Title))
	fmt.Fprintf(w, "project %s · %s · confidence %.2f · trust %.2f\n", cleanLine(project), m.Provenance, m.Confidence, memory.Trust(m))
	if len(m.Tags) > 0 {
		fmt.Fprintf(w, "tags: %s\n", cleanLine(strings.Join(m.Tags, ", ")))
	}
	if m.Ref != "" {
		fmt.Fprintf(w, "ref: %s\n", cleanLine(m.Ref))
	}
	valid := "valid from " + m.ValidFrom.Local().Format(timeFmt)
	if !m.ValidUntil.IsZero() {
		valid += " until " + m.ValidUntil.Local().Format(timeFmt)
	}
	fmt.Fprintf(w, "created %s · updated %s · %s\n", m.CreatedAt.Local().Format(timeFmt), m.UpdatedAt.Local().Format(timeFmt), valid)
	if m.SupersededBy != "" {
		fmt.Fprintf(w, "superseded by %s\n", linked[m.SupersededBy])
	}
	for _, s := range m.Supersedes {
		fmt.Fprintf(w, "supersedes %s\n", linked[s])
	}
	for _, wm := range m.Watermarks {
		fmt.Fprintf(w, "bound to %s (%s)\n", cleanLine(wm.Spec()), wm.State)
	}
	if !m.RejectedAt.IsZero() {
		fmt.Fprintf(w, "rejected %s: not served until corrected (cairn supersede %s TEXT)\n", m.RejectedAt.Local().Format(timeFmt), cleanLine(short))
	}
	if len(m.Triggers) > 0 {
		fmt.Fprintf(w, "triggers: %s\n", cleanLine(strings.Join(m.Triggers, "; ")))
	}
	for _, e := range out {
		if e.Kind != memory.EdgeSupersedes {
			fmt.Fprintf(w, "%s → %s\n", e.Kind, linked[e.To])
		}
	}
	for _, e := range in {
		if e.Kind != memory.EdgeSupersedes {
			fmt.Fprintf(w, "%s ← %s\n", e.Kind, linked[e.From])
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, cleanText(strings.TrimRight(m.Body, "\n")))
}

func (a *app) printList(cmd *cobra.Command, ms []*memory.Memory) error {
	w := cmd.OutOrStdout()
	if a.json {
		recs := make([]memory.Record, 0, len(ms))
		for _, m := range ms {
			r, err := a.record(cmd.Context(), m)
			if err != nil {
				return err
			}
			recs = append(recs, r)
		}
		return writeJSON(w, recs)
	}
	if len(ms) == 0 {
		fmt.Fprintf(w, "no memories here (project %s) — add one with: cairn remember \"...\"\n", cleanLine(a.proj.Name))
		return nil
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	a.shorten(cmd.Context(), ids...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	now := time.Now()
	for _, m := range ms {
		status := ""
		if m.Status != memory.StatusActive {
			status = " [" + string(m.Status) + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\n", a.shorts[m.ID], m.Layer.Letter(), m.Kind, age(now, m.CreatedAt), m.Provenance, cleanLine(m.Title), status)
	}
	return tw.Flush()
}

// age is a short human duration since t.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	default:
		return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
	}
}

func (a *app) printTimeline(cmd *cobra.Command, evs []memory.Event) error {
	w := cmd.OutOrStdout()
	if a.json {
		if evs == nil {
			evs = []memory.Event{}
		}
		a.nameEvents(cmd.Context(), evs)
		return writeJSON(w, evs)
	}
	if len(evs) == 0 {
		fmt.Fprintf(w, "nothing has happened in project %s yet\n", cleanLine(a.proj.Name))
		return nil
	}
	var ids []string
	for _, e := range evs {
		if e.MemoryID != "" {
			ids = append(ids, e.MemoryID)
		}
	}
	a.shorten(cmd.Context(), ids...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range evs {
		what := cleanLine(e.Title)
		if what != "" {
			what = fmt.Sprintf("%q", what)
		}
		if e.Summary != "" {
			what = strings.TrimSpace(what + " " + cleanLine(e.Summary))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(timeFmt), e.Actor, e.Kind, a.shorts[e.MemoryID], what)
	}
	return tw.Flush()
}

func (a *app) printProjects(cmd *cobra.Command, ps []memory.Project) error {
	type place struct {
		memory.Sighting
		Gone bool `json:"gone,omitempty"` // the directory is no longer there
	}
	type row struct {
		memory.Project
		Active int     `json:"active"`
		Total  int     `json:"total"`
		Here   bool    `json:"current"`
		Seen   []place `json:"seen,omitempty"` // where it was used from, the most recent first
	}
	rows := make([]row, 0, len(ps))
	for _, p := range ps {
		c, err := a.st.Count(cmd.Context(), p.ID)
		if err != nil {
			return err
		}
		r := row{Project: p, Here: p.ID == a.proj.ID}
		for _, l := range memory.Layers {
			r.Active += c.Active(l)
		}
		for _, s := range memory.Statuses {
			r.Total += c.Total(s)
		}
		seen := p.Seen
		if len(seen) == 0 && p.Root != "" {
			seen = []memory.Sighting{{Path: p.Root}} // known from before projects kept where they were seen
		}
		for _, s := range seen {
			_, err := os.Stat(s.Path)
			r.Seen = append(r.Seen, place{Sighting: s, Gone: errors.Is(err, fs.ErrNotExist)})
		}
		rows = append(rows, r)
	}
	w := cmd.OutOrStdout()
	if a.json {
		return writeJSON(w, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no projects yet — the first cairn remember creates one")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		mark := " "
		if r.Here {
			mark = "*"
		}
		// The places it was seen from are a last column, one a line.
		lead := fmt.Sprintf("%s %s\t%s\t%d active\t%d in all", mark, cleanLine(r.Name), r.ID, r.Active, r.Total)
		if len(r.Seen) == 0 {
			fmt.Fprintln(tw, lead+"\t")
		}
		for i, s := range r.Seen {
			when := ""
			if !s.LastSeen.IsZero() {
				when = "last seen " + s.LastSeen.Local().Format(timeFmt)
			}
			if s.Gone {
				when = strings.TrimSpace(when + " (gone)")
			}
			if i > 0 {
				lead = "\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", lead, cleanLine(s.Path), when)
		}
	}
	return tw.Flush()
}

func (a *app) printStats(cmd *cobra.Command, s memory.Stats) error {
	w := cmd.OutOrStdout()
	if a.json {
		return writeJSON(w, s)
	}
	fmt.Fprintf(w, "store     %s (schema %d)\n", cleanLine(s.Dir), s.Schema)
	fmt.Fprintf(w, "projects  %d\n", s.Projects)
	fmt.Fprintf(w, "memories  %d (%d active, %d archived, %d superseded)\n", s.Memories,
		s.ByStatus[memory.StatusActive], s.ByStatus[memory.StatusArchived], s.ByStatus[memory.StatusSuperseded])
	var layers []string
	for _, l := range memory.Layers {
		layers = append(layers, fmt.Sprintf("%s %d", l.Letter(), s.ByLayer[l.String()]))
	}
	fmt.Fprintf(w, "layers    %s\n", strings.Join(layers, " · "))
	fmt.Fprintf(w, "links     %d\nevents    %d\ndrafts    %d\n", s.Edges, s.Events, s.Drafts)
	fmt.Fprintf(w, "disk      %.1f MiB (LSM %.1f, logs %.1f)\n", float64(s.LSMBytes+s.VlogBytes)/(1<<20), float64(s.LSMBytes)/(1<<20), float64(s.VlogBytes)/(1<<20))
	return nil
}
