package recall

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"sort"

	"cairn/memory"
)

// The section index (derived.go) is saved beside the memory index when
// the server stops, and read back at the first recall of repository
// sections after a start, so that a start does not tokenize every
// section of every indexed repository again (1.16 s at 33k sections).
// The same rules keep it right as keep the memory index right: a saved
// project's index is read stale, and the first recall brings it up to
// date from the store's outlines — files whose stamp moved since are read
// again, files gone are dropped, the summary's commands and modules are
// taken afresh. A file that cannot be read, of another format or of
// another way of finding a section's words, means the index is built as
// before; deleting it costs one build.

// sectionsMagic opens a saved section index; the version after it
// changes with the format.
const (
	sectionsMagic   = "cairn section index\n"
	sectionsVersion = 1
)

// sectionsSuffix names the saved section index after the memory index's
// file: recall.index.sections.
const sectionsSuffix = ".sections"

// SectionsPath is where a server in home keeps the saved section index.
func SectionsPath(home string) string { return SnapshotPath(home) + sectionsSuffix }

// sectionsFingerprint says how sections are turned into words and files
// into sections: a saved index made another way (an older cairn) is not
// read.
var sectionsFingerprint = func() string {
	probe := memory.DerivedFile{Path: "net/http_retry.go", Lang: "go", Sections: []memory.Section{
		{Path: "net/http_retry.go", Line: 3, EndLine: 9, Kind: memory.SectionFunc, Lang: "go", Name: "RetryPolicy.Do",
			Signature: "func (p *RetryPolicy) Do(req *http.Request) error", Doc: "Do sends req again after failures, waiting longer each time (backoff); it's configured by HTTPServer_config and its colour initialised."},
		{Path: "net/http_retry.go", Line: 1, EndLine: 1, Kind: memory.SectionPackage, Lang: "go", Name: "net", Doc: "Package net talks to servers."},
	}}
	h := fnv.New64a()
	secs := slices.Clone(probe.Sections)
	if s, ok := fileSection(probe); ok {
		secs = append(secs, s)
	}
	for _, s := range secs {
		fmt.Fprintf(h, "%+v %q\n", s, sectionTokens(s))
	}
	return fmt.Sprintf("%x", h.Sum64())
}()

// save writes the projects' section indexes to path, when one
// changed since they were read or last saved.
func (d *derivedSet) save(path string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if path == "" || !d.dirty.Load() {
		return nil
	}
	pids := make([]string, 0, len(d.byPID))
	for pid, x := range d.byPID {
		x.mu.RLock()
		if x.hasAny {
			pids = append(pids, pid)
		}
		x.mu.RUnlock()
	}
	sort.Strings(pids)
	err := writeChecked(path, func(w *bufio.Writer) error {
		s := &snapWriter{w: w}
		s.write([]byte(sectionsMagic))
		s.uvarint(sectionsVersion)
		s.str(sectionsFingerprint)
		s.uvarint(uint64(len(pids)))
		for _, pid := range pids {
			x := d.byPID[pid]
			x.mu.RLock()
			s.str(pid)
			x.write(s)
			x.mu.RUnlock()
		}
		return s.err
	})
	if err != nil {
		return err
	}
	d.dirty.Store(false)
	return nil
}

// write writes the index's files and their sections, renumbered without
// the removed ones, and the summary's sections (which the first recall
// after a load replaces by the store's, reusing their words); x.mu is
// held.
func (x *derivedIndex) write(s *snapWriter) {
	paths := make([]string, 0, len(x.files))
	live := slices.Clone(x.summ)
	for p, f := range x.files {
		paths = append(paths, p)
		live = append(live, f.docs...)
	}
	sort.Strings(paths)
	slices.Sort(live)
	renum := make([]int32, len(x.secs))
	for i := range renum {
		renum[i] = -1
	}
	for i, n := range live {
		renum[n] = int32(i)
	}
	s.uvarint(uint64(len(live)))
	for _, n := range live {
		sec := x.secs[n]
		s.str(sec.Path)
		s.uvarint(uint64(max(sec.Line, 0)))
		s.uvarint(uint64(max(sec.EndLine, 0)))
		s.str(string(sec.Kind))
		s.str(sec.Lang)
		s.str(sec.Name)
		s.str(sec.Signature)
		s.str(sec.Doc)
	}
	s.uvarint(uint64(len(paths)))
	for _, p := range paths {
		f := x.files[p]
		s.str(p)
		s.varint(f.stamp.Size)
		s.varint(f.stamp.ModTime)
		s.str(f.stamp.Hash)
		s.str(f.stamp.Reader)
		s.uvarint(uint64(len(f.docs)))
		for _, n := range f.docs {
			s.uvarint(uint64(renum[n]))
		}
	}
	s.uvarint(uint64(len(x.summ)))
	for _, n := range x.summ {
		s.uvarint(uint64(renum[n]))
	}
	writeLex(s, x.lex, renum, live)
}

// load reads the saved section indexes at path, each stale: the first
// recall of a project brings its index up to date. A file that is not
// there, or not right, leaves the set empty (the indexes are built).
func (d *derivedSet) load(path string) {
	byPID := map[string]*derivedIndex{}
	err := readChecked(path, func(r *bufio.Reader, size int64) error {
		magic := make([]byte, len(sectionsMagic))
		if _, err := io.ReadFull(r, magic); err != nil || string(magic) != sectionsMagic {
			return errors.New("not a saved section index")
		}
		s := &snapReader{r: r}
		if v := s.uvarint(); s.err == nil && v != sectionsVersion {
			return fmt.Errorf("a saved section index of version %d", v)
		}
		if fp := s.str(); s.err == nil && fp != sectionsFingerprint {
			return errors.New("sections saved by another version")
		}
		many := uint64(size)
		np := s.count(many)
		for range np {
			pid := s.str()
			x := readDerivedIndex(s, many)
			if s.err != nil {
				return s.err
			}
			byPID[pid] = x
		}
		return s.err
	})
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			_ = os.Remove(path) // built again, and saved right at the stop
		}
		return
	}
	d.byPID = byPID
}

// readDerivedIndex reads what write wrote; an error is left in s.err.
func readDerivedIndex(s *snapReader, many uint64) *derivedIndex {
	nd := s.count(many)
	secs := make([]memory.Section, nd)
	for i := range secs {
		if s.err != nil {
			return nil
		}
		sec := memory.Section{Path: s.str(), Line: int(s.count(1 << 31)), EndLine: int(s.count(1 << 31)),
			Kind: memory.SectionKind(s.str()), Lang: s.str(), Name: s.str(), Signature: s.str(), Doc: s.str()}
		secs[i] = sec
	}
	docs := func() []int32 {
		out := make([]int32, s.count(uint64(nd)))
		for i := range out {
			out[i] = int32(s.count(uint64(nd - 1)))
		}
		return out
	}
	nf := s.count(many)
	files := make(map[string]fileDocs, nf)
	for range nf {
		p := s.str()
		st := memory.Stamp{Size: s.varint(), ModTime: s.varint(), Hash: s.str(), Reader: s.str()}
		ds := docs()
		if s.err != nil {
			return nil
		}
		files[p] = fileDocs{stamp: st, docs: ds}
	}
	summ := docs()
	lex := readLex(s, nd, many)
	if s.err != nil {
		return nil
	}
	return &derivedIndex{secs: secs, lex: lex, files: files, summ: summ, stale: true, hasAny: lex.live > 0}
}
