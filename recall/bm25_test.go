package recall

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The exhaustive top is the k best by score, ties broken by number, and
// never what keep rejects.
func TestTopIsTheBestK(t *testing.T) {
	t.Parallel()
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
