package memory

import (
	"fmt"
	"time"
)

// Verdict is what a review found about a memory (DESIGN §3, calibration).
type Verdict string

// The verdicts. Confirm and rebind say the fact still holds; reject and
// supersede say it does not.
const (
	VerdictConfirm   Verdict = "confirm"   // still true: its watermarks are stamped anew
	VerdictRebind    Verdict = "rebind"    // still true, but bound to the wrong thing
	VerdictReject    Verdict = "reject"    // no longer true: marked for supersession
	VerdictSupersede Verdict = "supersede" // replaced by a corrected fact
)

// Valid reports whether v is one of the verdicts.
func (v Verdict) Valid() bool {
	return oneOf(v, []Verdict{VerdictConfirm, VerdictRebind, VerdictReject, VerdictSupersede})
}

// FactChanged reports whether the verdict says the fact no longer holds.
func (v Verdict) FactChanged() bool { return v == VerdictReject || v == VerdictSupersede }

// Review is one judgement of a memory, kept as evidence about how well
// its bindings notice change: did a watermark move × did the fact change.
// It names bindings, never the memory's text, and goes when the memory is
// forgotten.
type Review struct {
	ID       string    `json:"id"`
	Project  string    `json:"project"`
	MemoryID string    `json:"memory_id"`
	Time     time.Time `json:"time"`
	Actor    Actor     `json:"actor"`
	Verdict  Verdict   `json:"verdict"`
	// Bindings are the memory's watermarks as they stood when it was
	// reviewed; a memory bound to nothing has one of kind none.
	Bindings []ReviewedBinding `json:"bindings"`
}

// ReviewedBinding is one watermark as a review found it.
type ReviewedBinding struct {
	Kind   WatermarkKind  `json:"kind"`
	Target string         `json:"target,omitempty"`
	State  WatermarkState `json:"state"`
}

// Moved reports whether the watermark had fired: its referent moved or went.
func (b ReviewedBinding) Moved() bool { return b.State.Fired() }

// Fired reports whether a watermark in state s has fired: its referent
// moved or went.
func (s WatermarkState) Fired() bool { return s == WatermarkMoved || s == WatermarkGone }

// Spec is the binding as --bind writes it.
func (b ReviewedBinding) Spec() string { return Watermark{Kind: b.Kind, Target: b.Target}.Spec() }

// ReviewOf records the verdict on m as its watermarks stand now.
func ReviewOf(m *Memory, v Verdict, by Actor, at time.Time) Review {
	r := Review{Project: m.Project, MemoryID: m.ID, Time: at, Actor: by, Verdict: v}
	for _, w := range m.Watermarks {
		if w.Kind != WatermarkNone {
			r.Bindings = append(r.Bindings, ReviewedBinding{Kind: w.Kind, Target: w.Target, State: w.State})
		}
	}
	if len(r.Bindings) == 0 {
		r.Bindings = []ReviewedBinding{{Kind: WatermarkNone, State: WatermarkUnbound}}
	}
	return r
}

// Validate checks a review's own fields.
func (r Review) Validate() error {
	if !r.Verdict.Valid() {
		return fmt.Errorf("invalid verdict %q: use confirm, rebind, reject or supersede", r.Verdict)
	}
	if len(r.Bindings) == 0 {
		return fmt.Errorf("a review names the bindings it judged (kind none for an unbound memory)")
	}
	for _, b := range r.Bindings {
		if err := (Watermark{Kind: b.Kind, Target: b.Target, State: b.State}).Validate(); err != nil {
			return err
		}
	}
	return nil
}
