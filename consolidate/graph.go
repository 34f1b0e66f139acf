package consolidate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"cairn/consolidate/update"
	"cairn/internal/lang"
	"cairn/memory"
)

// reopen sends back to verify-first every decision whose reason or
// evidence changed since it was last confirmed: superseded (before or by
// this plan), contradicted by a draft of this plan (a supersession
// proposal waits), rejected, or bound to something that moved. It starts from
// what changed — this plan's supersessions, memories superseded or
// rejected since the last pass, bindings that moved — and follows their
// incoming because and evidence links, so its cost is the change, not the
// store.
func (pl *planner) reopen() error {
	since := pl.lastPass()
	var changed []string
	for id := range pl.gone {
		changed = append(changed, id)
	}
	for id := range pl.contested {
		changed = append(changed, id)
	}
	for _, id := range pl.order {
		m := pl.mems[id]
		if m == nil || pl.created(id) || pl.gone[id] {
			continue
		}
		moved := !m.RejectedAt.IsZero() && m.RejectedAt.After(since)
		for _, w := range m.Watermarks {
			if w.State.Fired() && (w.MovedAt.IsZero() || w.MovedAt.After(since)) {
				moved = true
			}
		}
		if moved {
			changed = append(changed, id)
		}
	}
	if err := memory.EachPage(pl.ctx, pl.st, memory.Query{Project: pl.p.ID, Status: memory.StatusSuperseded, Limit: 1000}, func(page []*memory.Memory) error {
		for _, m := range page {
			if m.ValidUntil.After(since) {
				changed = append(changed, m.ID)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	slices.Sort(changed)
	for _, c := range slices.Compact(changed) {
		_, in, err := pl.st.Edges(pl.ctx, c)
		if err != nil {
			return err
		}
		for _, e := range in {
			if !e.Active || e.Kind != memory.EdgeBecause && e.Kind != memory.EdgeEvidence {
				continue
			}
			d := pl.mems[e.From]
			if d == nil || pl.created(d.ID) || pl.gone[d.ID] || pl.touched[d.ID] || !d.ReopenedAt.IsZero() ||
				(d.Kind != memory.KindDecision && d.Layer != memory.LayerDecision) {
				continue
			}
			why, err := pl.changed(e, confirmedAt(d))
			if err != nil {
				return err
			}
			if why == "" {
				continue
			}
			pl.touched[d.ID] = true
			pl.add(memory.Op{Kind: memory.OpReopen, Target: d.ID, Reason: why,
				Change: memory.Change{Kind: memory.ChangeReopen, Target: d.ID, TargetTitle: d.Title, Layer: d.Layer, Reason: why}})
		}
	}
	return nil
}

// confirmedAt is when a person or a write last vouched for m.
func confirmedAt(m *memory.Memory) time.Time {
	t := m.UpdatedAt
	if m.ValidFrom.After(t) {
		t = m.ValidFrom
	}
	for _, w := range m.Watermarks {
		if w.StampedAt.After(t) {
			t = w.StampedAt
		}
	}
	return t
}

// changed says in words how the memory an edge points at changed after
// since, or "". It names memories by id (see Explain).
func (pl *planner) changed(e memory.Edge, since time.Time) (string, error) {
	what := "its reason"
	if e.Kind == memory.EdgeEvidence {
		what = "its evidence"
	}
	day := func(t time.Time) string { return t.Local().Format("2006-01-02") }
	if pl.gone[e.To] {
		return fmt.Sprintf("%s %s was superseded on %s", what, e.To, day(pl.now)), nil
	}
	if p := pl.contested[e.To]; p != "" {
		return fmt.Sprintf("%s %s is contradicted by a later draft on %s (proposal %s waits)", what, e.To, day(pl.now), p), nil
	}
	t := pl.mems[e.To]
	if t == nil {
		var err error
		t, err = pl.st.Get(pl.ctx, e.To)
		if errors.Is(err, memory.ErrNotFound) {
			return fmt.Sprintf("%s %s was forgotten", what, e.To), nil
		}
		if err != nil {
			return "", err
		}
	}
	switch {
	case t.Status == memory.StatusSuperseded && t.ValidUntil.After(since):
		return fmt.Sprintf("%s %s was superseded by %s on %s", what, t.ID, t.SupersededBy, day(t.ValidUntil)), nil
	case !t.RejectedAt.IsZero() && t.RejectedAt.After(since):
		return fmt.Sprintf("%s %s was rejected on %s", what, t.ID, day(t.RejectedAt)), nil
	}
	for _, w := range t.Watermarks {
		moved := w.MovedAt
		if moved.IsZero() {
			moved = t.UpdatedAt // fired before cairn noted when
		}
		if w.State.Fired() && moved.After(since) {
			return fmt.Sprintf("%s %s is bound to %s, which %s", what, t.ID, w.Spec(), map[bool]string{true: "is gone", false: "changed"}[w.State == memory.WatermarkGone]), nil
		}
	}
	return "", nil
}

// maxArchiveProposals bounds the archive proposals of one run.
const maxArchiveProposals = 100

// stale proposes archiving memories that are weak (never reinforced,
// hardly recalled, and low in trust or secondhand) and long unused — but
// not a reopened decision, whose low trust is the question it already
// puts to a person.
func (pl *planner) stale() {
	after := pl.staleAfter()
	n := 0
	for _, id := range pl.order {
		m := pl.mems[id]
		if m == nil || pl.created(id) || pl.gone[id] || pl.touched[id] || n >= maxArchiveProposals {
			continue
		}
		if !m.ReopenedAt.IsZero() {
			continue // a reopened decision waits for a person's answer in verify-first: one question at a time
		}
		last := lastUse(m)
		trust := memory.TrustAt(m, pl.now)
		weak := rarelyUsed(m) && (trust < 0.5 || m.Provenance.Secondhand())
		if !weak || pl.now.Sub(last) < after {
			continue
		}
		recalled := "never recalled"
		if m.Salience.AccessCount == 1 {
			recalled = "recalled once"
		}
		why := fmt.Sprintf("weak and stale: unused since %s, %s, trust %.2f (%s)", last.Local().Format("2006-01-02"), recalled, trust, m.Provenance)
		before := len(pl.ops)
		pl.propose(memory.Proposal{Kind: memory.ProposeArchive, Target: id, Reason: why}, m, why)
		if len(pl.ops) > before {
			n++
		}
	}
}

// bind binds the new memories (not the lessons, which name what to check
// rather than what they hold true) to what their text names.
func (pl *planner) bind() {
	if pl.opt.Bind == nil {
		return
	}
	var ms []*memory.Memory
	var texts []string
	for _, m := range pl.news {
		if m.Layer != memory.LayerMeta && len(m.Watermarks) == 0 {
			ms = append(ms, m)
			texts = append(texts, m.Text())
		}
	}
	if len(ms) == 0 {
		return
	}
	for i, ws := range pl.opt.Bind(pl.ctx, texts) {
		if i < len(ms) && len(ws) > 0 {
			ms[i].Watermarks = ws
		}
	}
}

// subjectWords are the stemmed words of a title that can say what it is
// about: no stop words, no values (numbers, versions).
func subjectWords(title string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range memory.Words(title) {
		if len(w) < 2 || update.StopWords[w] || strings.IndexFunc(w, unicode.IsLetter) < 0 {
			continue
		}
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			continue // a value (v1.2, 8080, p99 stays out too: it names a measure, kept below)
		}
		s := lang.StemAll(w)
		if s == "" {
			s = w
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
