package recall

import (
	"math"
	"sort"
)

// BM25 parameters, as Anserini and the eval reference use for short texts.
const (
	bm25K1 = 0.9
	bm25B  = 0.4
)

type posting struct {
	doc int32
	tf  uint16
}

// lexIndex is an inverted index scored with BM25. Documents are dense
// numbers; removal marks a document empty so its postings are skipped and
// dropped lazily.
type lexIndex struct {
	post    map[string][]posting
	length  []int32 // tokens per document (0: removed)
	terms   [][]string
	total   int64 // sum of lengths of live documents
	live    int
	garbage int // postings of removed documents still in lists
}

func newLexIndex() *lexIndex { return &lexIndex{post: map[string][]posting{}} }

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
	tf := map[string]uint16{}
	for _, t := range tokens {
		if tf[t] < math.MaxUint16 {
			tf[t]++
		}
	}
	terms := make([]string, 0, len(tf))
	for t, n := range tf {
		x.post[t] = append(x.post[t], posting{doc, n})
		terms = append(terms, t)
	}
	x.terms[doc] = terms
	x.length[doc] = int32(len(tokens))
	x.total += int64(len(tokens))
	x.live++
}

// remove takes doc out of the index.
func (x *lexIndex) remove(doc int32) {
	if int(doc) >= len(x.length) || x.length[doc] == 0 {
		return
	}
	x.total -= int64(x.length[doc])
	x.live--
	x.garbage += len(x.terms[doc])
	for _, t := range x.terms[doc] {
		// drop eagerly when the list is short; long lists are compacted later
		if ps := x.post[t]; len(ps) < 64 {
			out := ps[:0]
			for _, p := range ps {
				if p.doc != doc {
					out = append(out, p)
				}
			}
			x.garbage--
			if len(out) == 0 {
				delete(x.post, t)
			} else {
				x.post[t] = out
			}
		}
	}
	x.length[doc], x.terms[doc] = 0, nil
	if x.garbage > 100000 && x.garbage > x.live {
		x.compact()
	}
}

func (x *lexIndex) compact() {
	for t, ps := range x.post {
		out := ps[:0]
		for _, p := range ps {
			if x.length[p.doc] > 0 {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			delete(x.post, t)
		} else {
			x.post[t] = out
		}
	}
	x.garbage = 0
}

type scored struct {
	doc   int32
	score float64
}

// search scores the documents that contain any query term and that keep
// accepts, and returns the best k.
func (x *lexIndex) search(query []string, k int, keep func(int32) bool) []scored {
	if x.live == 0 || len(query) == 0 {
		return nil
	}
	avg := float64(x.total) / float64(x.live)
	scores := map[int32]float64{}
	seen := map[string]bool{}
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := x.post[t]
		df := 0
		for _, p := range ps {
			if x.length[p.doc] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(x.live)-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			l := x.length[p.doc]
			if l == 0 || !keep(p.doc) {
				continue
			}
			tf := float64(p.tf)
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(l)/avg))
		}
	}
	out := make([]scored, 0, len(scores))
	for d, s := range scores {
		out = append(out, scored{d, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].doc < out[j].doc
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}
