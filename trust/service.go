package trust

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"cairn/memory"
)

// Store is what the trust service needs of the store: the watermarks role
// (bound memories and their stamps, recording their state, the
// verify-first queue, reviews) and single memories, whose titles a reason
// names.
type Store interface {
	memory.Watermarks
	Get(ctx context.Context, id string) (*memory.Memory, error)
}

// Threshold is the serving threshold: below it a memory is not served as
// current truth but listed to verify first. The store keeps an index of
// the moments memories fall under it, so it is the store's value.
const Threshold = memory.TrustThreshold

// Service runs wake checks and the verify-first queue for one project,
// from the process where the referents are (its files and environment).
type Service struct {
	St      Store
	Checker *Checker
	Project string
}

// Wake compares the project's bound memories with the world and records
// every change of state, with its reasons, on the timeline.
func (s *Service) Wake(ctx context.Context) error {
	ms, err := s.bound(ctx)
	if err != nil || len(ms) == 0 {
		return err
	}
	changes, err := s.Checker.Check(ctx, ms)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if sameStates(c.Memory.Watermarks, c.Watermarks) {
			continue
		}
		_, err := s.St.SetWatermarks(ctx, c.Memory.ID, c.Watermarks, strings.Join(c.Reasons, "; "), memory.ActorSystem)
		if errors.Is(err, memory.ErrNotFound) {
			continue // forgotten while we looked
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func sameStates(a, b []memory.Watermark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].State != b[i].State {
			return false
		}
	}
	return true
}

// Item is one memory of the verify-first queue.
type Item struct {
	Memory  *memory.Memory
	Trust   float64
	Reasons []string
}

// Queue lists the project's active memories whose trust is below the
// threshold, most salient first, each with its reasons in words. The
// store finds them from its verify-first index, at the checker's time.
func (s *Service) Queue(ctx context.Context, salience func(memory.Salience) float64) ([]Item, error) {
	now := s.Checker.Now()
	low, err := s.St.VerifyFirst(ctx, s.Project, now)
	if err != nil {
		return nil, err
	}
	if salience != nil {
		sort.SliceStable(low, func(i, j int) bool { return salience(low[i].Salience) > salience(low[j].Salience) })
	}
	changes, _ := s.Checker.Check(ctx, low)
	reasons := map[string][]string{}
	for _, c := range changes {
		reasons[c.Memory.ID] = c.Reasons
	}
	out := make([]Item, 0, len(low))
	for _, m := range low {
		rs := reasons[m.ID]
		if !m.ReopenedAt.IsZero() {
			rs = append([]string{"reopened on " + m.ReopenedAt.Local().Format("2006-01-02") + ": " + memory.Explain(m.Reopened, s.title(ctx)) +
				" — confirm the decision, supersede it or archive it"}, rs...)
		}
		if !m.RejectedAt.IsZero() {
			rs = append([]string{fmt.Sprintf("rejected on %s: write the corrected fact (supersede it) or archive it", m.RejectedAt.Local().Format("2006-01-02"))}, rs...)
		}
		if len(rs) == 0 {
			if m.Confidence < Threshold {
				rs = []string{fmt.Sprintf("low base confidence: %.2f (%s)", m.Confidence, m.Provenance)}
			} else {
				rs = []string{fmt.Sprintf("not confirmed since %s", m.UpdatedAt.Local().Format("2006-01-02"))}
			}
		}
		out = append(out, Item{Memory: m, Trust: memory.TrustAt(m, now), Reasons: rs})
	}
	return out, nil
}

// title looks up a memory's title for a reason in words.
func (s *Service) title(ctx context.Context) func(string) (string, bool) {
	return func(id string) (string, bool) {
		m, err := s.St.Get(ctx, id)
		if err != nil {
			return "", false
		}
		return m.Title, true
	}
}

// Confirm says the memory still holds: its watermarks are stamped anew
// (an unbound memory gets a "none" stamp, which resets its time factor).
// A binding that no longer resolves is an *UnresolvedError: the memory
// wants rebinding, which the caller says in its own terms.
func (s *Service) Confirm(ctx context.Context, m *memory.Memory) (*memory.Memory, error) {
	var bound []memory.Watermark
	for _, w := range m.Watermarks {
		if w.Kind != memory.WatermarkNone {
			bound = append(bound, w)
		}
	}
	if len(bound) == 0 {
		bound = []memory.Watermark{{Kind: memory.WatermarkNone}}
	}
	ws, err := s.Checker.StampEach(ctx, bound)
	if err != nil {
		return nil, err
	}
	return s.St.Review(ctx, m.ID, memory.VerdictConfirm, ws, "confirmed", memory.ActorUser)
}

// Reject says the memory no longer holds: it is marked for supersession
// and kept out of what is served until someone writes the corrected fact.
func (s *Service) Reject(ctx context.Context, m *memory.Memory) (*memory.Memory, error) {
	return s.St.Review(ctx, m.ID, memory.VerdictReject, nil, "rejected: marked for supersession", memory.ActorUser)
}

// Calibration is what the project's reviews say about its bindings.
func (s *Service) Calibration(ctx context.Context) (Calibration, error) {
	rs, err := s.St.Reviews(ctx, s.Project)
	if err != nil {
		return Calibration{}, err
	}
	return Calibrate(rs), nil
}

// Rebind binds the memory to other referents (specs as --bind takes them).
func (s *Service) Rebind(ctx context.Context, m *memory.Memory, specs []string) (*memory.Memory, error) {
	asked := make([]memory.Watermark, len(specs))
	for i, spec := range specs {
		w, err := memory.ParseBinding(spec)
		if err != nil {
			return nil, err
		}
		asked[i] = w
	}
	ws, err := s.Checker.StampEach(ctx, asked)
	if err != nil {
		return nil, err
	}
	return s.St.Review(ctx, m.ID, memory.VerdictRebind, ws, "rebound to "+strings.Join(specs, " "), memory.ActorUser)
}

// Bind stamps the bindings a write asked for, or finds them in the text.
func (s *Service) Bind(ctx context.Context, asked []memory.Watermark, text string) ([]memory.Watermark, error) {
	if len(asked) == 0 {
		return s.Checker.Bind(ctx, text), nil
	}
	return s.Checker.StampEach(ctx, asked)
}

// BindMany binds texts to the referents each names, in one batch.
func (s *Service) BindMany(ctx context.Context, texts []string) [][]memory.Watermark {
	return s.Checker.BindMany(ctx, texts)
}

// BindNew binds memories that were just written without bindings (an
// import) to the referents their text names, all in one batch, and
// records each binding found. It returns how many were bound.
func (s *Service) BindNew(ctx context.Context, ms []*memory.Memory) (int, error) {
	var todo []*memory.Memory
	var texts []string
	for _, m := range ms {
		if len(m.Watermarks) == 0 && m.Status == memory.StatusActive { // history stays as it came
			todo = append(todo, m)
			texts = append(texts, m.Text())
		}
	}
	n := 0
	for i, ws := range s.Checker.BindMany(ctx, texts) {
		if len(ws) == 0 {
			continue
		}
		specs := make([]string, len(ws))
		for j, w := range ws {
			specs[j] = w.Spec()
		}
		if _, err := s.St.SetWatermarks(ctx, todo[i].ID, ws, "bound to "+strings.Join(specs, " "), memory.ActorSystem); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// For is the service of project p, checking referents from this process:
// the project's root (a project without one — named, or global — uses the
// working directory) and this process's environment.
func For(st Store, p memory.Project, getwd func() (string, error), getenv func(string) string) *Service {
	root := p.Root
	if root == "" && getwd != nil {
		root, _ = getwd()
	}
	return &Service{St: st, Checker: NewChecker(root, getenv), Project: p.ID}
}
