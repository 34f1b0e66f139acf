package trust

import (
	"fmt"
	"sort"
	"strings"

	"cairn/memory"
)

// Cells count reviews by (did the watermark fire) × (had the fact changed).
type Cells struct {
	Caught     int `json:"caught"`  // fired, and the fact had changed
	Noise      int `json:"noise"`   // fired, but the fact still held
	Missed     int `json:"missed"`  // silent while the fact changed
	QuietRight int `json:"quiet"`   // silent, and the fact held
	Reviews    int `json:"reviews"` // the sum of the four
	memories   map[string]bool
}

func (c *Cells) add(moved, changed bool, memID string) {
	switch {
	case moved && changed:
		c.Caught++
	case moved:
		c.Noise++
	case changed:
		c.Missed++
	default:
		c.QuietRight++
	}
	c.Reviews++
	if c.memories == nil {
		c.memories = map[string]bool{}
	}
	c.memories[memID] = true
}

// KindRow is the matrix of one watermark kind.
type KindRow struct {
	Kind memory.WatermarkKind `json:"kind"`
	Cells
}

// BindingNote flags one binding whose reviews say it is poorly aimed.
type BindingNote struct {
	Binding  string   `json:"binding"` // as --bind writes it
	Problem  string   `json:"problem"` // "noise" or "silent"
	Advice   string   `json:"advice"`
	Memories []string `json:"memories"`
	Cells
}

// Calibration is what the reviews of a project say about its bindings.
type Calibration struct {
	Reviews int           `json:"reviews"`
	Kinds   []KindRow     `json:"kinds"`
	Flagged []BindingNote `json:"flagged"`
}

// NoiseFloor is how many false alarms a binding needs, and more of them
// than true ones, before it is flagged as firing on noise: one false
// alarm is not yet a pattern.
const NoiseFloor = 2

// Calibrate counts reviews, per watermark kind and per binding. Each
// binding of a reviewed memory counts in its own row; a binding that
// stayed silent while the fact changed counts as a miss only when no
// other binding of that memory fired (the memory was caught otherwise).
// A memory bound to nothing counts in the "none" row, so facts that
// change with nothing to notice it show there.
func Calibrate(reviews []memory.Review) Calibration {
	kinds := map[memory.WatermarkKind]*Cells{}
	bindings := map[string]*Cells{}
	for _, r := range reviews {
		changed := r.Verdict.FactChanged()
		fired := false
		for _, b := range r.Bindings {
			fired = fired || b.Moved()
		}
		for _, b := range r.Bindings {
			moved := b.Moved()
			if !moved && changed && fired {
				continue // caught by another binding: no miss for this one
			}
			for _, c := range []*Cells{cell(kinds, b.Kind), cell(bindings, b.Spec())} {
				c.add(moved, changed, r.MemoryID)
			}
		}
	}
	out := Calibration{Reviews: len(reviews)}
	for _, k := range []memory.WatermarkKind{memory.WatermarkFile, memory.WatermarkGit, memory.WatermarkFlag, memory.WatermarkNone} {
		row := KindRow{Kind: k}
		if c := kinds[k]; c != nil {
			row.Cells = *c
		}
		out.Kinds = append(out.Kinds, row)
	}
	for spec, c := range bindings {
		note := BindingNote{Binding: spec, Cells: *c, Memories: sortedKeys(c.memories)}
		switch {
		case c.Noise >= NoiseFloor && c.Noise > c.Caught:
			note.Problem = "noise"
			note.Advice = fmt.Sprintf("fired %s while the fact held: narrow it (rebind it to what the fact is about)", count(c.Noise, "time"))
		case c.Missed > 0 && spec == "none":
			note.Problem = "silent"
			note.Advice = fmt.Sprintf("%s bound to nothing changed unnoticed: bind such facts to what they are about", count(c.Missed, "fact"))
		case c.Missed > 0:
			note.Problem = "silent"
			note.Advice = fmt.Sprintf("stayed silent while the fact changed (%s): rebind it to what the fact is about", count(c.Missed, "time"))
		default:
			continue
		}
		out.Flagged = append(out.Flagged, note)
	}
	sort.Slice(out.Flagged, func(i, j int) bool {
		a, b := out.Flagged[i], out.Flagged[j]
		if a.Noise+a.Missed != b.Noise+b.Missed {
			return a.Noise+a.Missed > b.Noise+b.Missed
		}
		return a.Binding < b.Binding
	})
	return out
}

func cell[K comparable](m map[K]*Cells, k K) *Cells {
	c := m[k]
	if c == nil {
		c = &Cells{}
		m[k] = c
	}
	return c
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FormatCalibration is the calibration as plain text: a table of the
// four cells per watermark kind, then the flagged bindings.
func FormatCalibration(c Calibration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: did the watermark fire × had the fact changed\n\n", count(c.Reviews, "review"))
	fmt.Fprintf(&b, "%-6s %7s %7s %7s %7s %9s %9s\n", "kind", "caught", "noise", "missed", "quiet", "noise %", "missed %")
	for _, k := range c.Kinds {
		fmt.Fprintf(&b, "%-6s %7d %7d %7d %7d %9s %9s\n", k.Kind, k.Caught, k.Noise, k.Missed, k.QuietRight,
			Share(k.Noise, k.Caught+k.Noise), Share(k.Missed, k.Caught+k.Missed))
	}
	b.WriteString("\ncaught: fired and the fact had changed · noise: fired, the fact held · missed: silent, the fact changed\n")
	if len(c.Flagged) == 0 {
		b.WriteString("\nno binding flagged\n")
		return b.String()
	}
	b.WriteString("\nflagged bindings:\n")
	for _, f := range c.Flagged {
		fmt.Fprintf(&b, "  %s  (%s) %s\n", f.Binding, f.Problem, f.Advice)
		fmt.Fprintf(&b, "    memories: %s\n", strings.Join(f.Memories, " "))
	}
	return b.String()
}

// count writes "1 review", "3 reviews".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Share writes n as a percentage of of, or "-" when of is 0.
func Share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d %%", 100*n/of)
}
