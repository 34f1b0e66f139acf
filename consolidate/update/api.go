// Package update reads whether a newer text updates an older one, said in
// other words than a contradiction (claims) can read: the rules, a fitted
// model over their signals, and the paraphrase reading that tells one fact
// said twice from two facts. It is pure: texts and memories in, readings
// out; the planner finds the candidates and makes the proposals.
package update

import (
	"slices"

	"cairn/consolidate/claims"
	"cairn/memory"
)

// Conflict says what an update changes (see claims.Conflict).
type Conflict = claims.Conflict

// Of is what the rules read of newer against older: how sure it is that
// newer updates older, and what changes.
func Of(older, newer string) (Strength, Conflict) {
	return updateOf(updateCache.Get(older), updateCache.Get(newer))
}

// Finding is which stored memory a newer one updates, read among its
// candidates: the surest, what changes, how sure, and the candidates
// that could be read at all (a second reader, such as a language model,
// may weigh them again).
type Finding struct {
	Best     *memory.Memory
	Conflict Conflict
	Strength Strength
	Eligible []*memory.Memory
}

// Find reads which of the stored memories candidates finds m updates, if
// one: the surest reading among them. draft is the text m was drawn from
// (a short one that says a thing changed counts as saying so). Lessons,
// episodes and events are left out as candidates; an event m is read only
// when it says something changed, and candidates is called only when m is
// read. candidates gives, with each memory, its share of the first's
// score as a candidate (the subject gate weighs it; 1 for each when the
// caller has no scores).
func Find(m *memory.Memory, draft string, candidates func() ([]*memory.Memory, []float64)) Finding {
	if m.Layer == memory.LayerMeta || m.Kind == memory.KindLesson || m.Layer == memory.LayerEpisode && m.Kind != memory.KindEvent {
		return Finding{}
	}
	nr := readUpdate(claims.ClaimText(m))
	// The draft's opening ("Actually, …", "Wrong, …") is cut from the
	// candidate; a short draft is one statement, and says it changed.
	nr.change = nr.change || len(draft) <= 400 && uChangeRe.MatchString(draft)
	if m.Kind == memory.KindEvent && !nr.change {
		return Finding{}
	}
	var f Finding
	var read []ruleReading
	certain := 0
	cands, shares := candidates()
	for i, a := range cands {
		if a.Layer == memory.LayerMeta || a.Layer == memory.LayerEpisode || a.Kind == memory.KindLesson || a.Kind == memory.KindEvent {
			continue
		}
		f.Eligible = append(f.Eligible, a)
		share := 1.0
		if i < len(shares) {
			share = shares[i]
		}
		rules, c := updateOf(updateCache.Get(claims.ClaimText(a)), nr)
		s := rules
		if s == Certain && a.ValidFrom.After(m.ValidFrom) {
			// Stored after this was said ("has 4 machines" remembered
			// after "now 6, not 4" was captured): which holds is a
			// person's to say.
			s = Probable
		}
		if s == Certain {
			certain++
			if f.Strength != Certain {
				f.Best, f.Conflict, f.Strength = a, c, s
			}
		}
		if len(f.Eligible) <= modelCandidates || s != None {
			read = append(read, ruleReading{a, min(s, Probable), c, rules, share, len(f.Eligible) - 1})
		}
	}
	if certain > 1 {
		// Two stored facts each read as surely updated ("Uploads can be up
		// to 25MB now" against "The maximum upload size is 10 MB" and "The
		// general file upload limit is 50 MB"): which one is not sure.
		f.Strength = Probable
	}
	if f.Strength != Certain {
		// Short of certainty the model weighs the readings: which of the
		// few most alike, or of those the rules found probable, this
		// likeliest updates, if any.
		f.Best, f.Conflict, f.Strength = modelUpdate(read, nr)
	}
	if f.Strength == Probable && sameQuantity(f.Conflict) {
		f.Best, f.Conflict, f.Strength = nil, Conflict{}, None // a paraphrase: a merge's, not an update's
	}
	return f
}

// FirstNew is the first value text says that old does not, "" when none:
// what a whole note proposed as an update sets in place of SaidNow.
func FirstNew(old, text string) string {
	o, n := updateCache.Get(old), updateCache.Get(text)
	if i := slices.IndexFunc(n.vals, func(v uval) bool { return !o.says(v) }); i >= 0 {
		return n.vals[i].raw
	}
	return ""
}

// Subject names in words what newer and older are both about.
func Subject(older, newer string) string {
	return subjectPhrase(updateCache.Get(older), updateCache.Get(newer))
}

// ParaphraseKeys are the posting keys text is found by when it may say a
// stored memory's fact in other words: the stems of its canonical words,
// each with its abbreviations written out, in the order of the words
// (a key may come more than once).
func ParaphraseKeys(text string) []string {
	var out []string
	for _, w := range paraCache.Get(text).words {
		out = append(out, paraKeys(w)...)
	}
	return out
}

// Paraphrase is how alike the canonical words of two texts are, and
// whether that makes them one fact said twice: alike enough, and nothing
// (another package, task or environment) sets them apart.
func Paraphrase(a, b string) (float64, bool) {
	ra, rb := paraCache.Get(a), paraCache.Get(b)
	sim := paraphraseOf(ra, rb)
	return sim, sim >= paraMinJaccard && !OtherThings(ra.expanded, rb.expanded)
}
