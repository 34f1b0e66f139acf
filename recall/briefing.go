package recall

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"cairn/memory"
	"cairn/safetext"
)

// Section is one part of a warm-up briefing.
type Section struct {
	Title    string           `json:"title"`
	Memories []*memory.Memory `json:"memories"`
}

// Briefing is what the start of a session should know: invariants, the
// working state, recent decisions, negatives and lessons, within a budget.
type Briefing struct {
	// Project is what the repository says the project is — its commands
	// and main modules (derived memory's brief; "" before cairn index).
	Project  string    `json:"project,omitempty"`
	Sections []Section `json:"sections"`
	Cut      int       `json:"cut"` // memories left out for the budget
}

// briefingOrder is the order sections are filled in, most binding first.
var briefingOrder = []struct {
	layer memory.Layer
	title string
	max   int
}{
	{memory.LayerInvariant, "Invariants", 20},
	{memory.LayerState, "Working state", 10},
	{memory.LayerNegative, "What failed (don't repeat)", 10},
	{memory.LayerDecision, "Recent decisions", 8},
	{memory.LayerMeta, "Lessons", 5},
}

// Context builds the warm-up briefing of the projects within budget
// tokens: invariants, then the most salient negatives, the working state,
// recent decisions and lessons; memories whose trust fell below the
// serving threshold are listed apart under "Verify first", never as fact.
func Context(ctx context.Context, st Lister, projects []string, budget int) (Briefing, error) {
	if budget <= 0 {
		budget = 800
	}
	var b Briefing
	used := 0
	if r, ok := st.(interface {
		RepoSummary(ctx context.Context, project string) (memory.RepoSummary, error)
	}); ok && len(projects) > 0 && projects[0] != memory.GlobalID {
		if sum, err := r.RepoSummary(ctx, projects[0]); err == nil && sum.Brief != "" {
			// The project's shape first, in at most half the budget: what
			// was learned is the rest.
			b.Project = cutWords(sum.Brief, budget/2*3/4)
			used += len(b.Project)/4 + 8
		}
	}
	verify := Section{Title: "Verify first (may be stale)"}
	now := time.Now()
	for _, sec := range briefingOrder {
		s := Section{Title: sec.title}
		var ms []*memory.Memory
		for _, pid := range projects {
			limit := sec.max
			if sec.layer == memory.LayerNegative {
				limit = 200 // choose the most salient among many
			}
			page, err := st.List(ctx, memory.Query{Project: pid, Layer: sec.layer, Limit: limit})
			if err != nil {
				return b, err
			}
			ms = append(ms, page.Memories...)
		}
		if sec.layer == memory.LayerNegative {
			sort.SliceStable(ms, func(i, j int) bool {
				return Activation(ms[i].Salience, now) > Activation(ms[j].Salience, now)
			})
		}
		if len(ms) > sec.max {
			b.Cut += len(ms) - sec.max
			ms = ms[:sec.max]
		}
		for _, m := range ms {
			target := &s
			if memory.Trust(m) < TrustThreshold {
				target = &verify
			}
			if t := Cost(m); used+t <= budget {
				target.Memories = append(target.Memories, m)
				used += t
			} else {
				b.Cut++
			}
		}
		if len(s.Memories) > 0 {
			b.Sections = append(b.Sections, s)
		}
	}
	if len(verify.Memories) > 0 {
		b.Sections = append(b.Sections, verify)
	}
	return b, nil
}

// Markdown renders a briefing for an agent or a person. Titles and bodies
// are shown through safetext: a body may hold escape sequences that would
// act on the terminal the briefing is printed to.
func (b Briefing) Markdown() string {
	var w strings.Builder
	if b.Project != "" {
		fmt.Fprintf(&w, "## The project\n\n%s\n\n", strings.TrimSpace(safetext.Clean(b.Project)))
	}
	if len(b.Sections) == 0 {
		w.WriteString("Nothing remembered for this project yet.\n")
		return w.String()
	}
	for _, s := range b.Sections {
		fmt.Fprintf(&w, "## %s\n\n", s.Title)
		for _, m := range s.Memories {
			title := safetext.CleanLine(m.Title)
			fmt.Fprintf(&w, "- **%s** (%s, %s, id %s)", title, m.Kind, m.Provenance, m.ID)
			if body := strings.TrimSpace(safetext.Clean(m.Body)); body != "" && body != title {
				fmt.Fprintf(&w, "\n  %s", strings.ReplaceAll(body, "\n", "\n  "))
			}
			w.WriteString("\n")
		}
		w.WriteString("\n")
	}
	if b.Cut > 0 {
		fmt.Fprintf(&w, "_%d more memories left out for the token budget._\n", b.Cut)
	}
	return w.String()
}

// cutWords keeps text's lines while they stay within n words.
func cutWords(text string, n int) string {
	var out []string
	used := 0
	for _, line := range strings.Split(text, "\n") {
		k := len(strings.Fields(line))
		if used+k > n {
			break
		}
		out = append(out, line)
		used += k
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}
