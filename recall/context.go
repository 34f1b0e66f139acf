package recall

import (
	"math"
	"slices"
	"time"

	"cairn/memory"
)

// contextIndex knows when each memory was true from (its valid-from time,
// else its creation) and which memories were written in one session of
// work, in order. A memory written in a conversation often answers what
// the one before it asked ("What got you into running?" → "It clears my
// mind"): the question's words are in the one, the answer in the other.
// Recall lets a memory borrow part of its neighbours' relevance (see
// contextWeight) and understands dates asked about (see dates.go).
//
// Documents are the engine's numbers; a document indexed again gets a new
// number (see Engine.index), so entries are only ever added and dropped.
type contextIndex struct {
	at       []int64 // document → unix seconds it holds from (0: unknown)
	yd       []int16 // document → its day of the year (see yearDay)
	line     []int32 // document → its line in the session's source
	sess     []int32 // document → its session (-1: none)
	sessions map[string]int32
	names    []string  // session → its key (see sessionKey)
	members  [][]int32 // session → its documents, in order of time and line
}

func newContextIndex() *contextIndex { return &contextIndex{sessions: map[string]int32{}} }

// memoryTime is when a memory holds from: its valid-from time, else when
// it was written.
func memoryTime(m *memory.Memory) time.Time {
	if !m.ValidFrom.IsZero() {
		return m.ValidFrom
	}
	return m.CreatedAt
}

// sessionKey names the session a memory was written in, within its
// project ("" when its source names none).
func sessionKey(m *memory.Memory) string {
	if m.Source.Session == "" {
		return ""
	}
	return m.Project + "\x00" + m.Source.Session
}

// set records doc's time and session.
func (c *contextIndex) set(doc int32, m *memory.Memory) {
	c.put(doc, memoryTime(m), sessionKey(m), int32(m.Source.Line))
}

// Saved and Restore are what a saved index must carry of each document
// for sessions and times to survive a server's restart: its time, its
// session's key and its line. Restore is set from those.
func (c *contextIndex) saved(doc int32) (at time.Time, session string, line int32) {
	if int(doc) >= len(c.at) {
		return time.Time{}, "", 0
	}
	if s := c.sess[doc]; s >= 0 {
		session = c.names[s]
	}
	return c.time(doc), session, c.line[doc]
}

func (c *contextIndex) restore(doc int32, at time.Time, session string, line int32) {
	c.put(doc, at, session, line)
}

func (c *contextIndex) put(doc int32, t time.Time, key string, line int32) {
	for int(doc) >= len(c.at) {
		c.at = append(c.at, 0)
		c.yd = append(c.yd, 0)
		c.line = append(c.line, 0)
		c.sess = append(c.sess, -1)
	}
	c.remove(doc)
	if !t.IsZero() {
		c.at[doc], c.yd[doc] = t.Unix(), yearDay(t.UTC())
	}
	c.line[doc] = line
	if key == "" {
		return
	}
	s, ok := c.sessions[key]
	if !ok {
		s = int32(len(c.members))
		c.sessions[key] = s
		c.names = append(c.names, key)
		c.members = append(c.members, nil)
	}
	c.sess[doc] = s
	ms := c.members[s]
	i, _ := slices.BinarySearchFunc(ms, doc, c.cmp)
	c.members[s] = slices.Insert(ms, i, doc)
}

// cmp orders a session's documents: by time, then line, then number (the
// order they were indexed in).
func (c *contextIndex) cmp(a, b int32) int {
	switch {
	case c.at[a] != c.at[b]:
		return cmpInt(c.at[a], c.at[b])
	case c.line[a] != c.line[b]:
		return cmpInt(c.line[a], c.line[b])
	}
	return cmpInt(a, b)
}

func cmpInt[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// remove takes doc out of its session and forgets its time.
func (c *contextIndex) remove(doc int32) {
	if int(doc) >= len(c.sess) {
		return
	}
	if s := c.sess[doc]; s >= 0 {
		if i, ok := slices.BinarySearchFunc(c.members[s], doc, c.cmp); ok {
			c.members[s] = slices.Delete(c.members[s], i, i+1)
		}
		c.sess[doc] = -1
	}
	c.at[doc], c.yd[doc], c.line[doc] = 0, 0, 0
}

// around are the documents written up to reach before and after doc in
// its session, and its place among them (none when it has no session, or
// the index was read from a saved one that does not carry sessions).
func (c *contextIndex) around(doc int32, reach int) (ms []int32, at int) {
	if int(doc) >= len(c.sess) || c.sess[doc] < 0 {
		return nil, 0
	}
	all := c.members[c.sess[doc]]
	i, ok := slices.BinarySearchFunc(all, doc, c.cmp)
	if !ok {
		return nil, 0
	}
	lo, hi := max(i-reach, 0), min(i+reach+1, len(all))
	return all[lo:hi], i - lo
}

// time is when doc holds from (zero when unknown).
func (c *contextIndex) time(doc int32) time.Time {
	if int(doc) >= len(c.at) || c.at[doc] == 0 {
		return time.Time{}
	}
	return time.Unix(c.at[doc], 0).UTC()
}

// contextWeight is the share of a session neighbour's lexical score a
// memory borrows, contextDecay what is left of it at each further step,
// up to contextReach memories away; a memory keeps the best it borrows.
var (
	contextWeight = 0.45
	contextDecay  = 0.7
	contextReach  = 2
)

// near is, for each memory near a lexical candidate in its session, the
// best lexical score it borrows from them (see contextWeight).
func (e *Engine) near(lex []scored, keep func(int32) bool) map[int32]float64 {
	if contextWeight == 0 {
		return nil
	}
	out := map[int32]float64{}
	for _, s := range lex {
		ms, at := e.cx.around(s.doc, contextReach)
		for i, nb := range ms {
			if i != at && keep(nb) {
				d := max(i-at, at-i)
				out[nb] = max(out[nb], s.score*math.Pow(contextDecay, float64(d-1)))
			}
		}
	}
	return out
}

// within are the latest documents that keep accepts and whose time falls
// in spans, at most k.
func (c *contextIndex) within(spans []span, k int, keep func(int32) bool) []int32 {
	var out []int32
	for n := range c.at {
		if c.at[n] != 0 && inSpansAt(spans, c.at[n], c.yd[n]) && keep(int32(n)) {
			out = append(out, int32(n))
		}
	}
	if len(out) > k {
		slices.SortFunc(out, func(a, b int32) int { return -cmpInt(c.at[a], c.at[b]) })
		out = out[:k]
	}
	return out
}
