package recall

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A second search that adds words (the expansion) scores only documents
// that can still be among the best; its answer must be exactly the
// exhaustive one — same documents, same scores, same order, ties
// included — whatever the corpus, the words and what keep rejects.
func TestAddTopIsExhaustive(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 11))
		vocab := 5 + r.IntN(200)
		word := func() string {
			// Zipf-like: a few words on most documents, most on few
			return fmt.Sprintf("w%d", int(float64(vocab)*r.Float64()*r.Float64()*r.Float64()))
		}
		x := newLexIndex()
		docs := 50 + r.IntN(3000)
		for d := range docs {
			toks := make([]string, 1+r.IntN(30))
			for i := range toks {
				toks[i] = word()
			}
			x.set(int32(d), toks)
		}
		for range r.IntN(docs / 4) { // removed memories leave garbage in long lists
			x.remove(int32(r.IntN(docs)))
		}
		skip := r.IntN(5)
		keep := func(d int32) bool { return skip == 0 || d%int32(skip+3) != 0 }
		for q := range 20 {
			query := map[string]float64{}
			for range 1 + r.IntN(5) {
				query[word()] = 1
			}
			more := map[string]float64{}
			for range r.IntN(16) {
				if w := word(); query[w] == 0 {
					more[w] = 0.05 + 0.4*r.Float64()
				}
			}
			k := 1 + r.IntN(100)

			a := x.accumulator()
			a.add(query)
			first := a.top(k, keep)
			got := slices.Clone(a.addTop(more, k, keep, first))
			a.release()

			b := x.accumulator()
			b.add(query)
			b.add(more)
			want := b.top(k, keep)
			b.release()

			if !slices.Equal(got, want) {
				t.Fatalf("seed %d query %d (k %d): pruned %v\nexhaustive %v", seed, q, k, got, want)
			}
		}
	}
}

// The exhaustive top is the k best by score, ties broken by number, and
// never what keep rejects.
func TestTopIsTheBestK(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := newLexIndex()
	for d := range 2000 {
		toks := make([]string, 1+r.IntN(4))
		for i := range toks {
			toks[i] = fmt.Sprintf("w%d", r.IntN(6)) // few words, short texts: many ties
		}
		x.set(int32(d), toks)
	}
	keep := func(d int32) bool { return d%7 != 0 }
	a := x.accumulator()
	defer a.release()
	a.add(map[string]float64{"w1": 1, "w2": 1})
	var all []scored
	for _, d := range a.touched {
		if keep(d) {
			all = append(all, scored{d, float64(a.acc[d])})
		}
	}
	slices.SortFunc(all, func(p, q scored) int {
		if worse(p, q) {
			return 1
		}
		return -1
	})
	for _, k := range []int{1, 10, 100, len(all) + 5} {
		if got, want := a.top(k, keep), all[:min(k, len(all))]; !slices.Equal(got, want) {
			t.Fatalf("k %d: %v, want %v", k, got[:min(5, len(got))], want[:min(5, len(want))])
		}
	}
}
