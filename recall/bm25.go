package recall

import (
	"encoding/binary"
	"iter"
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

// postings of one word: the documents that hold it, in increasing order,
// and how often it occurs in each, in two arrays (6 bytes a posting, no
// per-posting struct).
type postings struct {
	docs []int32
	tfs  []uint16
}

// add appends doc (or puts it in its place, should it come out of order).
func (p *postings) add(doc int32, tf uint16) {
	if n := len(p.docs); n == 0 || p.docs[n-1] < doc {
		p.docs, p.tfs = append(p.docs, doc), append(p.tfs, tf)
	} else if i, ok := slices.BinarySearch(p.docs, doc); ok {
		p.tfs[i] = tf // a number indexed again: its old posting was garbage
	} else {
		p.docs, p.tfs = slices.Insert(p.docs, i, doc), slices.Insert(p.tfs, i, tf)
	}
}

// keepIf drops the postings of the documents live rejects, in place.
func (p *postings) keepIf(live func(int32) bool) {
	n := 0
	for i, d := range p.docs {
		if live(d) {
			p.docs[n], p.tfs[n] = d, p.tfs[i]
			n++
		}
	}
	p.docs, p.tfs = p.docs[:n], p.tfs[:n]
}

// lexIndex is an inverted index scored with BM25. Documents are dense
// numbers; removal marks a document empty so its postings are skipped and
// dropped lazily. Words are interned: each distinct word is stored once
// and documents list word numbers, so an index holds no piece of the
// texts it was built from.
type lexIndex struct {
	ids     map[string]int32 // word → its number
	words   []string         // number → word
	post    []postings       // number → postings
	length  []int32          // tokens per document (0: removed)
	terms   [][]byte         // document → its distinct words (see packWords)
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
	x.post = append(x.post, postings{})
	return id
}

// wordsOf are doc's distinct words.
func (x *lexIndex) wordsOf(doc int32) []string {
	return x.appendWords(nil, doc)
}

// appendWords appends doc's distinct words to out (a caller's buffer).
func (x *lexIndex) appendWords(out []string, doc int32) []string {
	for id := range wordIDs(x.terms[doc]) {
		out = append(out, x.words[id])
	}
	return out
}

// packWords encodes a document's word numbers (in increasing order) as
// the gaps between them, a byte or two each where int32s took four: the
// lists of a million documents are most of what the index holds beside
// its postings.
func packWords(ids []int32) []byte {
	out := make([]byte, 0, len(ids)+len(ids)/2)
	prev := int32(-1)
	for _, id := range ids {
		out = binary.AppendUvarint(out, uint64(id-prev))
		prev = id
	}
	return slices.Clip(out)
}

// wordIDs are the word numbers packWords packed. A malformed list (a
// saved index is checked when read, see validWords) ends early.
func wordIDs(b []byte) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		id := int64(-1)
		for len(b) > 0 {
			gap, n := binary.Uvarint(b)
			if n <= 0 {
				return
			}
			b = b[n:]
			id += int64(gap)
			if !yield(int32(id)) {
				return
			}
		}
	}
}

// validWords says whether b is a packed list of distinct numbers under nw,
// and how many.
func validWords(b []byte, nw int) (int, bool) {
	id, count := int64(-1), 0
	for len(b) > 0 {
		gap, n := binary.Uvarint(b)
		if n <= 0 || gap == 0 || gap > uint64(nw) {
			return 0, false
		}
		b = b[n:]
		if id += int64(gap); id >= int64(nw) {
			return 0, false
		}
		count++
	}
	return count, true
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
	for id := range tf {
		terms = append(terms, id)
	}
	slices.Sort(terms)
	for _, id := range terms {
		x.post[id].add(doc, tf[id])
	}
	x.terms[doc] = packWords(terms)
	x.length[doc] = int32(len(tokens))
	x.total += int64(len(tokens))
	x.live++
}

// trim gives back the spare capacity of every posting list (after a
// build, where appends left up to half of each unused).
func (x *lexIndex) trim() {
	for id := range x.post {
		p := &x.post[id]
		if cap(p.docs) > len(p.docs)+len(p.docs)/8 {
			p.docs, p.tfs = slices.Clone(p.docs), slices.Clone(p.tfs)
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
	for id := range wordIDs(x.terms[doc]) {
		x.garbage++
		// drop eagerly when the list is short; long lists are compacted later
		if p := &x.post[id]; len(p.docs) < 64 {
			p.keepIf(func(d int32) bool { return d != doc })
			x.garbage--
		}
	}
	x.length[doc], x.terms[doc] = 0, nil
	if x.garbage > 100000 && x.garbage > x.live {
		x.compact()
	}
}

func (x *lexIndex) compact() {
	for id := range x.post {
		x.post[id].keepIf(func(d int32) bool { return x.length[d] > 0 })
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

// postings of word t (empty when no document holds it).
func (x *lexIndex) postings(t string) *postings {
	if id, ok := x.ids[t]; ok {
		return &x.post[id]
	}
	return &postings{}
}

// df is how many live documents hold t.
func (x *lexIndex) df(t string) int {
	ps := x.postings(t)
	if x.garbage == 0 {
		return len(ps.docs)
	}
	df := 0
	for _, d := range ps.docs {
		if x.length[d] > 0 {
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

// searchWeighted is search with a weight for each word.
func (x *lexIndex) searchWeighted(query map[string]float64, k int, keep func(int32) bool) []scored {
	a := x.accumulator()
	defer a.release()
	a.add(query)
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

// term is one word of a search: its postings and what it weighs.
type term struct {
	ps *postings
	w  float64 // the query's weight times idf
}

// terms are the words of query that some live document holds, in a fixed
// order (float sums must not depend on map order).
func (a *accumulator) terms(query map[string]float64) []term {
	x := a.x
	if x.live == 0 || len(query) == 0 {
		return nil
	}
	words := make([]string, 0, len(query))
	for t := range query {
		words = append(words, t)
	}
	sort.Strings(words)
	out := make([]term, 0, len(words))
	for _, t := range words {
		df := x.df(t)
		if df == 0 {
			continue
		}
		out = append(out, term{ps: x.postings(t), w: query[t] * x.idf(df)})
	}
	return out
}

// add scores the words of query (each with its weight) into the sums.
func (a *accumulator) add(query map[string]float64) {
	a.addTerms(a.terms(query))
}

func (a *accumulator) addTerms(terms []term) {
	x := a.x
	if len(terms) == 0 {
		return
	}
	avg := float64(x.total) / float64(x.live)
	norm := bm25K1 * (1 - bm25B)
	slope := bm25K1 * bm25B / avg
	for _, tm := range terms {
		w := tm.w
		for i, d := range tm.ps.docs {
			l := x.length[d]
			if l == 0 {
				continue
			}
			tf := float64(tm.ps.tfs[i])
			if a.acc[d] == 0 {
				a.touched = append(a.touched, d)
			}
			a.acc[d] += float32(w * tf * (bm25K1 + 1) / (tf + norm + slope*float64(l)))
		}
	}
}

// top returns the k best documents that keep accepts, best first (ties
// by number: the answer is the same whatever order documents came in).
func (a *accumulator) top(k int, keep func(int32) bool) []scored {
	h := make(minHeap, 0, k)
	for _, d := range a.touched {
		h.offer(scored{d, float64(a.acc[d])}, k, keep)
	}
	return h.sorted()
}

// worse orders results: a lower score, or the same with a higher number.
func worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.doc > b.doc
}

// offer puts s in the heap if it is among the k best so far and keep
// accepts it (asked only then: it is the costlier test).
func (h *minHeap) offer(s scored, k int, keep func(int32) bool) {
	if k == 0 || (len(*h) == k && !worse((*h)[0], s)) {
		return
	}
	if !keep(s.doc) {
		return
	}
	if len(*h) < k {
		h.push(s)
	} else {
		(*h)[0] = s
		h.down(0)
	}
}

// sorted is the heap's documents, best first.
func (h minHeap) sorted() []scored {
	sort.Slice(h, func(i, j int) bool { return worse(h[j], h[i]) })
	return h
}

// minHeap keeps the k best scores with the worst on top.
type minHeap []scored

func (h *minHeap) push(s scored) {
	*h = append(*h, s)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if !worse((*h)[i], (*h)[p]) {
			break
		}
		(*h)[p], (*h)[i] = (*h)[i], (*h)[p]
		i = p
	}
}

func (h minHeap) down(i int) {
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && worse(h[l], h[small]) {
			small = l
		}
		if r < len(h) && worse(h[r], h[small]) {
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
