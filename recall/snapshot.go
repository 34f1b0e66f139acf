package recall

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unique"

	"github.com/oklog/ulid/v2"

	"cairn/internal/atomicfile"
	"cairn/memory"
)

// The index is saved to a file beside the store when the server stops,
// and read back when it starts, so that a start does not rebuild it from
// every memory (44 s at a million). The file is a cache: it carries the
// id of the newest event it has seen, a start catches up from the events
// written since (an import, or a file that cannot be read, means a full
// build), and deleting it costs one build. It holds the index's words —
// stemmed words of memories — so a forget deletes it at once; it is
// written again without them.

// snapshotMagic opens a saved index; the version after it changes with
// the format.
const snapshotMagic = "cairn recall index\n"

// Version 2: postings are written as gaps between document numbers, and
// each document's words packed as the index holds them (see packWords).
// Version 4: Tokens spells British words as American ones (colour → color).
const snapshotVersion = 4

// eventSource is what a start needs to catch up from a saved index.
type eventSource interface {
	LastEvent(ctx context.Context) (string, error)
	EventsSince(ctx context.Context, after string) ([]memory.Event, error)
}

// Persist makes the engine save its index to path (Save, at the server's
// stop) and start from it (Build), when its embedder is the built-in one:
// an endpoint's vectors are cached in the store instead.
//
// The repository sections' index is saved beside it whatever the
// embedder (it holds words, no vectors): see sections_snapshot.go.
func (e *Engine) Persist(path string) {
	if _, ok := e.emb.(Hashed); ok {
		e.snapPath = path
	}
	e.derived.mu.Lock()
	e.derived.path = path + sectionsSuffix
	e.derived.mu.Unlock()
}

// noteEvent records the newest event the index reflects.
func (e *Engine) noteEvent(id string) {
	for {
		cur := e.stamp.Load()
		if cur != nil && *cur >= id {
			return
		}
		if e.stamp.CompareAndSwap(cur, &id) {
			return
		}
	}
}

// Save writes the index to the Persist path, if it changed since it was
// read or last saved: to a temporary file first, then renamed, private;
// and the sections' index beside it, if that changed.
func (e *Engine) Save() error {
	e.derived.mu.Lock()
	path := e.derived.path
	e.derived.mu.Unlock()
	return errors.Join(e.saveMemories(), e.derived.save(path))
}

// saveMemories writes the memories' index (see Save).
func (e *Engine) saveMemories() error {
	if e.snapPath == "" || !e.dirty.Load() {
		return nil
	}
	select {
	case <-e.ready:
	default:
		return nil // never built: nothing to save
	}
	if e.err != nil || e.rebuilding.Load() || e.stale.Load() {
		return nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	stamp := ""
	if s := e.stamp.Load(); s != nil {
		stamp = *s
	}
	if err := writeChecked(e.snapPath, func(w *bufio.Writer) error { return e.writeSnapshot(w, stamp) }); err != nil {
		return err
	}
	e.dirty.Store(false)
	return nil
}

// writeChecked writes a saved index to path through write: to a
// temporary file first, then renamed, private. A CRC-32 of everything
// closes the file: a damaged file is built again, never read as a wrong
// index.
func writeChecked(path string, write func(*bufio.Writer) error) error {
	return atomicfile.Write(path, 0o600, func(out io.Writer) error {
		sum := crc32.NewIEEE()
		w := bufio.NewWriterSize(io.MultiWriter(out, sum), 1<<20)
		if err := write(w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		_, err := out.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
		return err
	})
}

// readChecked reads a file writeChecked wrote through read, which is
// given the file's size (no count in it can be larger); an error of
// read's, a short file or a checksum that does not match is an error.
func readChecked(path string, read func(r *bufio.Reader, size int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < 4 {
		return errors.New("too short")
	}
	var trailer [4]byte
	if _, err := f.ReadAt(trailer[:], info.Size()-4); err != nil {
		return err
	}
	sum := crc32.NewIEEE()
	body := io.TeeReader(io.LimitReader(f, info.Size()-4), sum)
	if err := read(bufio.NewReaderSize(body, 1<<20), info.Size()); err != nil {
		return err
	}
	if _, err := io.Copy(sum, body); err != nil { // what the reader left unread, if anything
		return err
	}
	if sum.Sum32() != binary.LittleEndian.Uint32(trailer[:]) {
		return errors.New("its checksum does not match")
	}
	return nil
}

// dropSnapshot deletes the saved index (a forget: it may hold the
// forgotten memory's words).
func (e *Engine) dropSnapshot() {
	if e.snapPath != "" {
		_ = os.Remove(e.snapPath)
	}
}

type snapWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

func (s *snapWriter) uvarint(x uint64) {
	s.buf = binary.AppendUvarint(s.buf[:0], x)
	s.write(s.buf)
}

func (s *snapWriter) varint(x int64) {
	s.buf = binary.AppendVarint(s.buf[:0], x)
	s.write(s.buf)
}

func (s *snapWriter) str(x string) {
	s.uvarint(uint64(len(x)))
	if s.err == nil {
		_, s.err = s.w.WriteString(x)
	}
}

func (s *snapWriter) strs(xs []string) {
	s.uvarint(uint64(len(xs)))
	for _, x := range xs {
		s.str(x)
	}
}

func (s *snapWriter) write(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

// writeSnapshot writes the index; e.mu is held. Words no live memory
// holds are written empty: nothing of a forgotten memory is saved.
func (e *Engine) writeSnapshot(w *bufio.Writer, stamp string) error {
	s := &snapWriter{w: w}
	s.write([]byte(snapshotMagic))
	s.uvarint(snapshotVersion)
	s.str(stamp)
	s.str(e.vecName)
	// Only live memories are written, numbered afresh: numbers of
	// memories indexed again or forgotten are left behind.
	x := e.lex
	renum := make([]int32, len(e.docs))
	var live []int32
	for n, d := range e.docs {
		renum[n] = -1
		if d.alive {
			renum[n] = int32(len(live))
			live = append(live, int32(n))
		}
	}
	s.uvarint(uint64(len(live)))
	for _, n := range live {
		d := e.docs[n]
		s.str(d.id)
		s.str(d.project)
		s.uvarint(uint64(d.layer))
		s.str(string(d.status))
		s.strs(d.triggers)
		s.strs(d.files)
		// its time and place in a session (context.go): what dated and
		// session-neighbour recall read
		at, session, line := e.cx.saved(n)
		var secs int64
		if !at.IsZero() {
			secs = at.Unix()
		}
		s.varint(secs)
		s.str(session)
		s.uvarint(uint64(max(line, 0)))
	}
	writeLex(s, x, renum, live)
	return s.err
}

// writeLex writes a lexical index's live documents, renumbered (renum:
// old number → new, -1 for one left out; live: the old numbers kept, in
// order): its words (a word no live document holds written empty), their
// postings as gaps, each document's length and packed words, their total.
func writeLex(s *snapWriter, x *lexIndex, renum []int32, live []int32) {
	used := make([]bool, len(x.words))
	for id := range x.post {
		for _, d := range x.post[id].docs {
			if renum[d] >= 0 {
				used[id] = true
				break
			}
		}
	}
	s.uvarint(uint64(len(x.words)))
	for id, word := range x.words {
		if !used[id] {
			s.str("")
			s.uvarint(0)
			continue
		}
		s.str(word)
		ps := &x.post[id]
		n := 0
		for _, d := range ps.docs {
			if renum[d] >= 0 {
				n++
			}
		}
		s.uvarint(uint64(n))
		// Numbers rise along a list (renumbering keeps their order): each
		// is written as its distance from the one before, a byte or two.
		prev := int32(-1)
		for i, d := range ps.docs {
			if r := renum[d]; r >= 0 {
				s.uvarint(uint64(r - prev))
				s.uvarint(uint64(ps.tfs[i]))
				prev = r
			}
		}
	}
	s.uvarint(uint64(len(live)))
	for _, n := range live {
		if int(n) >= len(x.length) || x.length[n] == 0 {
			s.uvarint(0) // a memory without words
			continue
		}
		s.uvarint(uint64(x.length[n]))
		s.uvarint(uint64(len(x.terms[n])))
		s.write(x.terms[n]) // packed as the index holds it
	}
	// The total of the documents written, not of the index: a document
	// left out (a section of the summary, taken afresh at a load) is not
	// counted twice.
	var total int64
	for _, n := range live {
		if int(n) < len(x.length) {
			total += int64(x.length[n])
		}
	}
	s.varint(total)
}

type snapReader struct {
	r   *bufio.Reader
	err error
}

func (s *snapReader) uvarint() uint64 {
	if s.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(s.r)
	s.err = err
	return x
}

func (s *snapReader) varint() int64 {
	if s.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(s.r)
	s.err = err
	return x
}

// count reads a length, refusing one larger than the file could hold.
func (s *snapReader) count(limit uint64) int {
	n := s.uvarint()
	if n > limit {
		s.err = fmt.Errorf("a count of %d", n)
		return 0
	}
	return int(n)
}

func (s *snapReader) str() string {
	n := s.count(1 << 16)
	if s.err != nil || n == 0 {
		return ""
	}
	b := make([]byte, n)
	_, s.err = io.ReadFull(s.r, b)
	return string(b)
}

func (s *snapReader) strs() []string {
	n := s.count(1 << 16)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = s.str()
	}
	return out
}

// readSnapshot fills a fresh engine from a saved index and returns the
// stamp it was saved with. Anything unexpected is an error: the caller
// builds instead.
func (e *Engine) readSnapshot(r *bufio.Reader, size int64) (string, error) {
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != snapshotMagic {
		return "", errors.New("not a saved recall index")
	}
	s := &snapReader{r: r}
	if v := s.uvarint(); s.err == nil && v != snapshotVersion {
		return "", fmt.Errorf("a saved index of version %d", v)
	}
	many := uint64(size) // every element takes a byte at least: no count is larger
	stamp := s.str()
	vecName := s.str()
	if s.err == nil && vecName != e.emb.Name() {
		return "", fmt.Errorf("saved with the embedder %s", vecName)
	}
	nd := s.count(many)
	docs := make([]doc, nd)
	cx := newContextIndex()
	byID := make(map[string]int32, nd)
	triggered, pathed := map[int32]bool{}, map[int32]bool{}
	for n := range docs {
		id := s.str()
		if id == "" {
			continue // removed
		}
		d := doc{id: id, project: unique.Make(s.str()).Value(), layer: memory.Layer(s.uvarint()),
			status: unique.Make(memory.Status(s.str())).Value(), alive: true}
		d.triggers, d.files = s.strs(), s.strs()
		for i, f := range d.files {
			d.files[i] = unique.Make(f).Value() // shared, as index makes them
		}
		secs, session, line := s.varint(), s.str(), s.uvarint()
		if s.err == nil && line > 1<<31-1 {
			s.err = errors.New("a line out of range")
		}
		var at time.Time
		if secs != 0 {
			at = time.Unix(secs, 0)
		}
		if s.err == nil {
			cx.restore(int32(n), at, session, int32(line))
		}
		docs[n], byID[id] = d, int32(n)
		setIf(triggered, int32(n), len(d.triggers) > 0)
		setIf(pathed, int32(n), len(d.files) > 0)
	}
	x := readLex(s, nd, many)
	if s.err != nil {
		return "", s.err
	}
	e.mu.Lock()
	e.docs, e.byID, e.lex, e.triggered, e.pathed, e.vecName, e.cx = docs, byID, x, triggered, pathed, vecName, cx
	e.mu.Unlock()
	return stamp, nil
}

// readLex reads what writeLex wrote, for nd documents; many bounds every
// count (the file's size). An error is left in s.err.
func readLex(s *snapReader, nd int, many uint64) *lexIndex {
	x := newLexIndex()
	nw := s.count(many)
	x.words, x.post = make([]string, nw), make([]postings, nw)
	for id := range nw {
		w := s.str()
		x.words[id] = w
		if w != "" {
			x.ids[w] = int32(id)
		}
		n := s.count(uint64(nd))
		ps := postings{docs: make([]int32, n), tfs: make([]uint16, n)}
		prev := int64(-1)
		for i := range n {
			gap, tf := s.uvarint(), s.uvarint()
			doc := prev + int64(gap)
			if gap == 0 || gap > uint64(nd) || doc >= int64(nd) || tf > 1<<16-1 {
				s.err = errors.New("a posting out of range")
				break
			}
			ps.docs[i], ps.tfs[i] = int32(doc), uint16(tf)
			prev = doc
		}
		x.post[id] = ps
	}
	nl := s.count(many)
	if s.err == nil && nl != nd {
		s.err = errors.New("lengths and documents differ in number")
		return x
	}
	x.length, x.terms = make([]int32, nl), make([][]byte, nl)
	for doc := range nl {
		l := s.uvarint()
		x.length[doc] = int32(l)
		if l == 0 {
			continue
		}
		terms := make([]byte, s.count(many))
		if s.err == nil {
			_, s.err = io.ReadFull(s.r, terms)
		}
		if _, ok := validWords(terms, nw); !ok && s.err == nil {
			s.err = errors.New("a word out of range")
		}
		x.terms[doc] = terms
		x.live++
	}
	x.total = s.varint()
	return x
}

// load reads the saved index, if there is one, and catches up with what
// the store wrote since. It reports whether the engine is ready; false
// leaves it empty, for a full build.
func (e *Engine) load(ctx context.Context) bool {
	if e.snapPath == "" {
		return false
	}
	var stamp string
	err := readChecked(e.snapPath, func(r *bufio.Reader, size int64) (err error) {
		stamp, err = e.readSnapshot(r, size)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		e.reset()
		return false
	}
	// Catch up from a little before the stamp: events of writes that
	// committed out of their ids' order are read again, which is harmless.
	since := ""
	if id, err := ulid.ParseStrict(stamp); err == nil {
		back := ulid.Time(id.Time()).Add(-5 * time.Second)
		since = ulid.MustNew(ulid.Timestamp(back), zeroReader{}).String()
	}
	news, err := e.src.EventsSince(ctx, since)
	if err != nil {
		e.reset()
		return false
	}
	forgot := false
	for _, ev := range news {
		switch {
		case ev.Kind == memory.EventImport && ev.ID > stamp:
			e.reset() // an import writes no event per memory: build
			return false
		case ev.Kind == memory.EventImport:
			// read again for the margin: the saved index has it
		case ev.Kind == memory.EventForget:
			e.Forget(ev.MemoryID)
			forgot = true
		case ev.MemoryID != "":
			if err := e.Refresh(ctx, ev.MemoryID); err != nil {
				e.reset()
				return false
			}
		}
		e.noteEvent(ev.ID)
	}
	if stamp != "" {
		e.noteEvent(stamp)
	}
	if forgot {
		e.dropSnapshot() // it holds what was forgotten since
	}
	e.dirty.Store(len(news) > 0)
	return true
}

// reset empties the engine before a full build.
func (e *Engine) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.docs, e.byID, e.lex = nil, map[string]int32{}, newLexIndex()
	e.triggered, e.pathed = map[int32]bool{}, map[int32]bool{}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// snapshotPath is where a server in home keeps the saved index.
func SnapshotPath(home string) string { return filepath.Join(home, "recall.index") }
