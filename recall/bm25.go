package recall

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// BM25 parameters, as Anserini and the eval reference use for short texts.
var (
	bm25K1 = 0.9
	bm25B  = 0.4
)

type posting struct {
	doc int32
	tf  uint16
}

// lexIndex is an inverted index scored with BM25. Documents are dense
// numbers; removal marks a document empty so its postings are skipped and
// dropped lazily. Words are interned: each distinct word is stored once
// and documents list word numbers, so an index holds no piece of the
// texts it was built from.
type lexIndex struct {
	ids     map[string]int32 // word → its number
	words   []string         // number → word
	post    [][]posting      // number → postings
	length  []int32          // tokens per document (0: removed)
	terms   [][]int32        // document → its distinct words
	total   int64            // sum of lengths of live documents
	live    int
	garbage int // postings of removed documents still in lists
}

func newLexIndex() *lexIndex { return &lexIndex{ids: map[string]int32{}} }

// word is the number of t, made if new.
func (x *lexIndex) word(t string) int32 {
	if id, ok := x.ids[t]; ok {
		return id
	}
	id := int32(len(x.words))
	t = strings.Clone(t) // never a piece of a memory's text
	x.ids[t] = id
	x.words = append(x.words, t)
	x.post = append(x.post, nil)
	return id
}

// wordsOf are doc's distinct words.
func (x *lexIndex) wordsOf(doc int32) []string {
	out := make([]string, len(x.terms[doc]))
	for i, id := range x.terms[doc] {
		out[i] = x.words[id]
	}
	return out
}

// set indexes doc's tokens, replacing what it had.
func (x *lexIndex) set(doc int32, tokens []string) {
	x.remove(doc)
	for int(doc) >= len(x.length) {
		x.length = append(x.length, 0)
		x.terms = append(x.terms, nil)
	}
	if len(tokens) == 0 {
		return
	}
	tf := map[int32]uint16{}
	for _, t := range tokens {
		if id := x.word(t); tf[id] < math.MaxUint16 {
			tf[id]++
		}
	}
	terms := make([]int32, 0, len(tf))
	for id, n := range tf {
		x.post[id] = append(x.post[id], posting{doc, n})
		terms = append(terms, id)
	}
	x.terms[doc] = terms
	x.length[doc] = int32(len(tokens))
	x.total += int64(len(tokens))
	x.live++
}

// trim gives back the spare capacity of every posting list (after a
// build, where appends left up to half of each unused).
func (x *lexIndex) trim() {
	for id, ps := range x.post {
		if cap(ps) > len(ps)+len(ps)/8 {
			x.post[id] = slices.Clone(ps)
		}
	}
}

// remove takes doc out of the index.
func (x *lexIndex) remove(doc int32) {
	if int(doc) >= len(x.length) || x.length[doc] == 0 {
		return
	}
	x.total -= int64(x.length[doc])
	x.live--
	x.garbage += len(x.terms[doc])
	for _, id := range x.terms[doc] {
		// drop eagerly when the list is short; long lists are compacted later
		if ps := x.post[id]; len(ps) < 64 {
			out := ps[:0]
			for _, p := range ps {
				if p.doc != doc {
					out = append(out, p)
				}
			}
			x.garbage--
			x.post[id] = out
		}
	}
	x.length[doc], x.terms[doc] = 0, nil
	if x.garbage > 100000 && x.garbage > x.live {
		x.compact()
	}
}

func (x *lexIndex) compact() {
	for id, ps := range x.post {
		out := ps[:0]
		for _, p := range ps {
			if x.length[p.doc] > 0 {
				out = append(out, p)
			}
		}
		x.post[id] = out
	}
	x.garbage = 0
}

// idf is BM25's inverse document frequency of a word in df documents.
// A store counts as at least minDocs documents (the missing ones holding
// none of the query's words): in a store of a handful of memories every
// word is "common" and scores would not say whether the store knows the
// subject.
func (x *lexIndex) idf(df int) float64 {
	n := float64(max(x.live, minDocs))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

const minDocs = 1000

// postings of word t (nil when no document holds it).
func (x *lexIndex) postings(t string) []posting {
	if id, ok := x.ids[t]; ok {
		return x.post[id]
	}
	return nil
}

// df is how many live documents hold t.
func (x *lexIndex) df(t string) int {
	ps := x.postings(t)
	if x.garbage == 0 {
		return len(ps)
	}
	df := 0
	for _, p := range ps {
		if x.length[p.doc] > 0 {
			df++
		}
	}
	return df
}

// mass is the query's own weight: the sum of its distinct words' idf, a
// word no document holds weighing most. A document's BM25 over it is near
// 1 when it holds every word once at average length, and comparable
// between queries.
func (x *lexIndex) mass(query []string) float64 {
	seen := map[string]bool{}
	var m float64
	for _, t := range query {
		if !seen[t] {
			seen[t] = true
			m += x.idf(x.df(t))
		}
	}
	return max(m, 1e-9)
}

type scored struct {
	doc   int32
	score float64
}

// search scores the documents that contain any query term and that keep
// accepts, and returns the best k. Scores accumulate in a dense array
// (reused between searches) rather than a map.
func (x *lexIndex) search(query []string, k int, keep func(int32) bool) []scored {
	a := x.accumulator()
	defer a.release()
	a.add(weights(query))
	return a.top(k, keep)
}

// weights is a query's words, each of weight 1.
func weights(query []string) map[string]float64 {
	w := make(map[string]float64, len(query))
	for _, t := range query {
		w[t] = 1
	}
	return w
}

// accumulator sums documents' BM25 scores over the words added to it, so
// that a search can be extended (expansion words added to the query's)
// without scoring the query's words twice. Its array is pooled: a search
// clears only what it touched.
type accumulator struct {
	x       *lexIndex
	acc     []float32
	touched []int32
}

var accPool sync.Pool

func (x *lexIndex) accumulator() *accumulator {
	a, _ := accPool.Get().(*accumulator)
	if a == nil || cap(a.acc) < len(x.length) {
		a = &accumulator{acc: make([]float32, len(x.length))}
	}
	a.x, a.acc, a.touched = x, a.acc[:len(x.length)], a.touched[:0]
	return a
}

func (a *accumulator) release() {
	for _, d := range a.touched {
		a.acc[d] = 0
	}
	a.x = nil
	accPool.Put(a)
}

// add scores the words of query (each with its weight) into the sums.
func (a *accumulator) add(query map[string]float64) {
	x := a.x
	if x.live == 0 || len(query) == 0 {
		return
	}
	avg := float64(x.total) / float64(x.live)
	words := make([]string, 0, len(query))
	for t := range query {
		words = append(words, t)
	}
	sort.Strings(words) // a fixed order: float sums do not depend on map order
	norm := bm25K1 * (1 - bm25B)
	slope := bm25K1 * bm25B / avg
	for _, t := range words {
		qw := query[t]
		ps := x.postings(t)
		df := x.df(t)
		if df == 0 {
			continue
		}
		idf := x.idf(df)
		for _, p := range ps {
			l := x.length[p.doc]
			if l == 0 {
				continue
			}
			tf := float64(p.tf)
			if a.acc[p.doc] == 0 {
				a.touched = append(a.touched, p.doc)
			}
			a.acc[p.doc] += float32(qw * idf * tf * (bm25K1 + 1) / (tf + norm + slope*float64(l)))
		}
	}
}

// top returns the k best documents that keep accepts, best first.
func (a *accumulator) top(k int, keep func(int32) bool) []scored {
	h := make(minHeap, 0, k)
	for _, d := range a.touched {
		s := a.acc[d]
		if len(h) == k && float64(s) <= h[0].score {
			continue
		}
		if !keep(d) {
			continue
		}
		if len(h) < k {
			h.push(scored{d, float64(s)})
		} else {
			h[0] = scored{d, float64(s)}
			h.down(0)
		}
	}
	sort.Slice(h, func(i, j int) bool {
		if h[i].score != h[j].score {
			return h[i].score > h[j].score
		}
		return h[i].doc < h[j].doc
	})
	return h
}

// minHeap keeps the k best scores with the worst on top.
type minHeap []scored

func (h *minHeap) push(s scored) {
	*h = append(*h, s)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if (*h)[p].score <= (*h)[i].score {
			break
		}
		(*h)[p], (*h)[i] = (*h)[i], (*h)[p]
		i = p
	}
}

func (h minHeap) down(i int) {
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].score < h[small].score {
			small = l
		}
		if r < len(h) && h[r].score < h[small].score {
			small = r
		}
		if small == i {
			return
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
}

// prfShort is the query length (distinct words) up to which expansion
// weighs in full.
var prfShort = 5.0

// expand is pseudo-relevance feedback: the words that the best documents
// of a first search share and the query lacks, weighted by how much of
// the first search they carry and by their idf (RM3's idea without a
// language model). It returns those words, each at weight alpha or less.
func (x *lexIndex) expand(query map[string]float64, top []scored, docs, words int, alpha float64) map[string]float64 {
	out := map[string]float64{}
	if len(top) == 0 {
		return out
	}
	score := map[string]float64{}
	for _, s := range top[:min(docs, len(top))] {
		share := s.score / top[0].score
		for _, t := range x.wordsOf(s.doc) {
			if _, ok := query[t]; ok || isDigit(t) {
				continue
			}
			df := x.df(t)
			if df < 2 {
				continue // a word of one document says nothing about others
			}
			score[t] += share * x.idf(df)
		}
	}
	cand := make([]string, 0, len(score))
	for t := range score {
		cand = append(cand, t)
	}
	if len(cand) == 0 {
		return out
	}
	sort.Slice(cand, func(i, j int) bool {
		if score[cand[i]] != score[cand[j]] {
			return score[cand[i]] > score[cand[j]]
		}
		return cand[i] < cand[j]
	})
	if len(cand) > words {
		cand = cand[:words]
	}
	// A long query says enough by itself: its expansion weighs less.
	alpha *= min(1, prfShort/float64(len(query)))
	for _, t := range cand {
		out[t] = alpha * score[t] / score[cand[0]]
	}
	return out
}
