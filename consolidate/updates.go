package consolidate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"cairn/consolidate/claims"
	"cairn/consolidate/extract"
	"cairn/consolidate/update"
	"cairn/memory"
	"cairn/secrets"
)

// decision reports a decision, which only the person's own words are read
// as updating ("no, we chose MySQL"): a figure in its reason ("kept p99
// under 4 ms in the load test") is what it was decided on, and an agent's
// new figure reopens it through its evidence, not by taking its place.
func decision(m *memory.Memory) bool {
	return m.Layer == memory.LayerDecision || m.Kind == memory.KindDecision
}

// firsthand reports a memory in the person's own words.
func firsthand(m *memory.Memory) bool {
	return m.Provenance == memory.ProvUserStated || m.Provenance == memory.ProvUserCorrected
}

// updateCandidates are the current memories that share a subject word of
// m's title, the rarer words counting more (as recall weighs them), at most
// 12, most shared first, with each one's score over the first's; a
// decision only for the person's own words.
func (pl *planner) updateCandidates(m *memory.Memory) ([]*memory.Memory, []float64) {
	if pl.ukeys == nil {
		// Built on first use: a pass with no draft to read pays nothing.
		pl.ukeys = map[string][]string{}
		for _, id := range pl.order {
			pl.indexUpdateKeys(pl.mems[id])
		}
	}
	score := map[string]float64{}
	for _, w := range update.Keys(update.QueryText(m)) {
		if ids := pl.ukeys[w]; len(ids) <= maxPosting/4 {
			for _, id := range ids {
				score[id] += 1 / math.Log2(2+float64(len(ids)))
			}
		}
	}
	var out []*memory.Memory
	for id := range score {
		if id != m.ID && pl.current(id) && !pl.created(id) && (!decision(pl.mems[id]) || firsthand(m)) {
			out = append(out, pl.mems[id])
		}
	}
	slices.SortFunc(out, func(a, b *memory.Memory) int {
		if sa, sb := score[a.ID], score[b.ID]; sa != sb {
			return cmp.Compare(sb, sa)
		}
		return b.ValidFrom.Compare(a.ValidFrom)
	})
	out = out[:min(len(out), 12)]
	shares := make([]float64, len(out))
	for i, c := range out {
		shares[i] = score[c.ID] / score[out[0].ID]
	}
	return out, shares
}

// update finds the stored memory m updates, if one: the surest reading
// among its candidates. Lessons, episodes and events are left out.
// An event that says something changed ("Bumped the max upload size to
// 50 MB") is the new state: it takes the layer and kind of what it updates.
func (pl *planner) update(m *memory.Memory, d memory.Draft) (*memory.Memory, Conflict, update.Strength) {
	f := update.Find(m, d.Text, func() ([]*memory.Memory, []float64) { return pl.updateCandidates(m) })
	best, bestC, bestS := pl.judge(m, d, f.Best, f.Conflict, f.Strength, f.Eligible)
	if best != nil && m.Kind == memory.KindEvent {
		m.Layer, m.Kind = best.Layer, best.Kind
	}
	return best, bestC, bestS
}

// skippedUpdate reads one statement extraction skipped for what it
// updates: at most a proposal, with the statement as the proposed
// memory's text (it was never a memory itself, so it never supersedes on
// its own).
func (pl *planner) skippedUpdate(d memory.Draft, text string) {
	prov := memory.ProvExtracted
	if d.Actor == memory.ActorUser {
		prov = memory.ProvUserStated
	}
	m := &memory.Memory{
		ID: memory.NewID(), Project: pl.p.ID, Layer: memory.LayerState, Kind: memory.KindFact,
		Title: extract.OneLineTitle(text), Body: strings.TrimSpace(text), Provenance: prov, Confidence: prov.BaseConfidence(),
		Status: memory.StatusActive, Version: 1, ValidFrom: d.Time,
		Source: memory.Source{Actor: d.Actor, Session: d.Source.Session, File: d.Source.File, Line: d.Source.Line},
	}
	if m.Validate() != nil || secrets.Check(secrets.Field{Name: "title", Text: m.Title}, secrets.Field{Name: "body", Text: m.Body}) != nil {
		return
	}
	if id, ok := pl.byNorm[memory.NormalText(m)]; ok && pl.current(id) {
		return // said before: nothing updated
	}
	a, cf, s := pl.update(m, d)
	if s == update.None {
		return
	}
	pl.updated[d.ID] = true
	if whole := strings.TrimSpace(d.Text); text != whole && extract.Whole(d) {
		// The proposed memory is the person's whole note ("logging:
		// fluent-bit → Loki. Filebeat daemonset removed"), not the one
		// sentence that was read as the update.
		m.Title, m.Body = extract.OneLineTitle(whole), whole
		if cf.New == update.SaidNow {
			if v := update.FirstNew(claims.ClaimText(a), whole); v != "" {
				cf.New = v
			}
		}
	}
	pl.from[m.ID] = d.ID
	pl.proposeUpdate(a, m, cf, d)
}

// proposeUpdate asks a person whether m updates a: the proposal names what
// changes, and says so when a was stored after m was said.
func (pl *planner) proposeUpdate(a, m *memory.Memory, cf Conflict, d memory.Draft) {
	later := ""
	if a.ValidFrom.After(m.ValidFrom) {
		later = ", though it was stored after this was said"
	}
	pl.propose(memory.Proposal{Kind: memory.ProposeSupersede, Target: a.ID, Memory: m, Draft: d.ID,
		Reason: fmt.Sprintf("may update %s (%s: %s → %s)%s", a.ID, cf.Subject, cf.Old, cf.New, later)}, a,
		fmt.Sprintf("a draft may update %s (%s)%s", a.ID, differs(cf), later))
}

// paraphrase finds the current memory that says what m says in other
// words, if one: among those sharing m's rarest words (the title postings
// the planner keeps, pl.words, written out through paraSynonyms), the one
// whose canonical words are most alike, when nothing tells them apart.
func (pl *planner) paraphrase(m *memory.Memory) (*memory.Memory, float64) {
	if m.Layer == memory.LayerEpisode {
		return nil, 0
	}
	text := claims.ClaimText(m)
	type posting struct {
		key string
		n   int
	}
	var ps []posting
	seen := map[string]bool{}
	for _, k := range update.ParaphraseKeys(text) {
		if n := len(pl.words[k]); n > 0 && n <= maxPosting/8 && !seen[k] {
			seen[k] = true
			ps = append(ps, posting{k, n})
		}
	}
	slices.SortFunc(ps, func(a, b posting) int { return a.n - b.n })
	score := map[string]float64{}
	for _, p := range ps[:min(len(ps), update.ParaRare)] {
		for _, id := range pl.words[p.key] {
			score[id] += 1 / math.Log2(2+float64(p.n))
		}
	}
	var cands []string
	for id := range score {
		if id != m.ID && pl.current(id) {
			cands = append(cands, id)
		}
	}
	slices.SortFunc(cands, func(a, b string) int {
		if sa, sb := score[a], score[b]; sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var best *memory.Memory
	bestSim := 0.0
	for _, id := range cands[:min(len(cands), update.ParaTop)] {
		a := pl.mems[id]
		if a.Layer == memory.LayerEpisode {
			continue
		}
		if sim, same := update.Paraphrase(text, claims.ClaimText(a)); same && sim > bestSim {
			best, bestSim = a, sim
		}
	}
	return best, bestSim
}
