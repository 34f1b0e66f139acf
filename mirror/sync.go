package mirror

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"cairn/internal/safefile"
	"cairn/memory"
)

// PersonalTag marks a memory that stays out of the mirror whatever its layer.
const PersonalTag = "personal"

// TombstoneFile lists, one id a line and no text, the memories a teammate
// forgot, so that their files are not read back in and other stores can
// forget them too.
const TombstoneFile = ".tombstones"

// Options configure a sync.
type Options struct {
	Dir     string         // the mirror's directory
	Project string         // the project's id
	Layers  []memory.Layer // the layers shared; nil: every layer
	// Forget applies teammates' tombstones as forgets. Without it a
	// tombstone archives the memory (which can be undone) and waits for a
	// person: forgetting is a person's act, never an agent's by the way.
	Forget bool
	// MirrorRemoved says that a mirror directory that is gone, or most of
	// whose files are, was removed on purpose: its missing files are read
	// as deletions. Without it such a mirror is a checkout of a branch or
	// a commit without it, and the sync changes nothing (GoneError).
	MirrorRemoved bool
	// Confirm is asked before a sync archives more than a few memories at
	// once or removes the files of memories no longer shared; it names
	// them. nil, or false, refuses such a sync (ConfirmError), which then
	// changes nothing.
	Confirm func(Ask) bool
	Actor   memory.Actor
	Now     time.Time
}

// State is what the last sync of a project with a directory agreed on:
// per memory the Hash of its content. It is the base that tells which
// side changed a memory since.
type State struct {
	Hashes map[string]string `json:"hashes"`
	// Files are the mirror's files as the last sync left them, by path: a
	// file whose bytes have not changed since is not read again.
	Files map[string]FileState `json:"files,omitempty"`
	// Event is the store's newest event of the project when the last sync
	// ended, Scope the layers it shared and Tombs the tombstones' sum: with
	// the files' sums, what tells that nothing changed on either side.
	Event string `json:"event,omitempty"`
	Scope string `json:"scope,omitempty"`
	Tombs string `json:"tombs,omitempty"`
	// Tombed are the memories a teammate's tombstone archived here, which
	// wait for a person's cairn sync --forget: shared ones still.
	Tombed map[string]bool `json:"tombed,omitempty"`
	// Claims are the provenances the mirror's files claim for memories the
	// store took at a lower one (see voice): the team's view keeps saying
	// what the file said, so that the file is not rewritten, while this
	// store briefs the memory as what it is here.
	Claims map[string]memory.Provenance `json:"claims,omitempty"`
}

// FileState is a mirror file as the last sync left it.
type FileState struct {
	ID   string `json:"id"`
	Sum  string `json:"sum"`  // of its bytes
	Hash string `json:"hash"` // of its content (see Hash)
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// Report says what a sync did.
type Report struct {
	Written   int      `json:"written"`   // files written
	Removed   int      `json:"removed"`   // files removed (archived or forgotten here)
	Added     int      `json:"added"`     // memories new from the mirror
	Edited    int      `json:"edited"`    // memories changed from the mirror
	Archived  int      `json:"archived"`  // memories whose file was deleted, or a teammate forgot
	Forgotten int      `json:"forgotten"` // teammates' forgets applied (Options.Forget)
	Tombs     int      `json:"tombstones"`
	Pending   []string `json:"pending_forgets,omitempty"` // teammates' forgets waiting for a person
	Conflicts []string `json:"conflicts,omitempty"`       // copies of concurrent edits, to verify first
	Kept      []string `json:"kept,omitempty"`            // edited here, deleted in the mirror: kept
	Refused   []string `json:"refused,omitempty"`         // "file:line: why"; the rest went on
	Skipped   int      `json:"skipped,omitempty"`         // markdown files without frontmatter: notes, left alone
	Unshared  []Named  `json:"unshared,omitempty"`        // files removed: memories no longer shared here (--layers, personal)
	Staged    int      `json:"staged,omitempty"`          // files written or removed and staged in git (git add, git rm)
	Unstaged  string   `json:"unstaged,omitempty"`        // why staging them failed; the sync itself is done
}

// Nothing reports whether the sync changed nothing on either side.
func (r Report) Nothing() bool {
	return r.Written == 0 && r.Removed == 0 && r.Added == 0 && r.Edited == 0 && r.Archived == 0 &&
		r.Forgotten == 0 && r.Tombs == 0 && len(r.Conflicts) == 0
}

// file is one memory file of the mirror as read.
type file struct {
	path  string // relative, forward slashes
	id    string
	data  []byte
	entry *Entry // nil: unchanged since the last sync, not read again
	hash  string
	mtime time.Time
	// derived: a file a person wrote without an id, which resolve gave one
	// from its path and bytes.
	derived bool
}

// side is the store's view of a shared memory.
type side struct {
	m     *memory.Memory
	entry *Entry
	hash  string
}

// syncer is one sync under way.
type syncer struct {
	st    memory.Store
	o     Options
	state *State
	rep   Report

	all    map[string]*memory.Memory // every memory of the project, any status
	store  map[string]*side          // the shared ones the mirror holds
	files  map[string]*file          // by id
	held   map[string]bool           // ids of files refused this time: neither side touched
	blind  bool                      // a refused file named no id: no deletion is read
	tombs  map[string]bool
	writes map[string]bool // ids whose file the store's version rewrites
	gone   map[string]bool // ids whose file goes
	seen   map[string]FileState
	raw    []*file // as read, before resolve
	tsum   string  // of the tombstone file as read

	was      map[string]string // id → its file's path when the last sync ended
	unshared []string          // ids whose file goes because they are no longer shared here
	touched  []string          // paths written or removed, for git
	stale    []string          // temporary files a killed sync left
	// tombsRefused: the tombstone file was refused (a link, a FIFO, too
	// big): it is neither read nor written this time.
	tombsRefused bool
	// fileClaims are the provenances above observed that the files read
	// this time claim, by id (see claimed).
	fileClaims map[string]memory.Provenance
	claimsMu   sync.Mutex // state.Claims: entryOf runs on several goroutines
}

// Sync brings the mirror in o.Dir and the store's project together, both
// ways, and updates state to what they now agree on. A sync that fails, or
// that a person did not confirm, leaves state as it was.
func Sync(ctx context.Context, st memory.Store, state *State, o Options) (Report, error) {
	work := *state
	work.Hashes, work.Files = maps.Clone(state.Hashes), maps.Clone(state.Files)
	if work.Hashes == nil {
		work.Hashes = map[string]string{}
	}
	rep, err := syncWith(ctx, st, &work, o)
	if err == nil {
		*state = work
	}
	return rep, err
}

func syncWith(ctx context.Context, st memory.Store, state *State, o Options) (Report, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Actor == "" {
		o.Actor = memory.ActorUser
	}
	s := newSyncer(st, state, o)
	if err := s.missing(); err != nil {
		return s.rep, err
	}
	if err := s.readDir(); err != nil {
		return s.rep, err
	}
	for _, p := range s.stale { // half-written by a sync that was killed
		os.Remove(p)
	}
	event, err := lastEvent(ctx, st, o.Project)
	if err != nil {
		return s.rep, err
	}
	if s.quiet(event) {
		return s.rep, nil
	}
	if err := s.readStore(ctx); err != nil {
		return s.rep, err
	}
	s.resolve()
	if err := s.lost(); err != nil {
		return s.rep, err
	}
	if err := s.reconcile(ctx); err != nil {
		return s.rep, err
	}
	err = s.writeOut(ctx)
	s.stage()
	if err != nil {
		return s.rep, err
	}
	// What this sync agreed on, stamped with the store's newest event
	// (after its own writes) and the tombstones as they now are.
	if state.Event, err = lastEvent(ctx, st, o.Project); err != nil {
		return s.rep, err
	}
	state.Scope, state.Tombs = scope(o), s.tsum
	return s.rep, nil
}

// GoneError is a mirror directory that is missing, or most of whose files
// are, since the last sync: what a checkout of a branch or a commit
// without them looks like, not a deletion. The sync changed nothing.
type GoneError struct {
	Dir           string
	Missing, Left int // files gone, of those the last sync left
}

func (e *GoneError) Error() string {
	if e.Missing == e.Left {
		return fmt.Sprintf("the mirror %s is missing (a checkout of a branch without it?): nothing was changed — "+
			"check out a branch with it, or run cairn sync --mirror-removed if it was removed on purpose", e.Dir)
	}
	return fmt.Sprintf("%d of the %d files the last sync left in %s are gone (a checkout of an older commit?): nothing was changed — "+
		"check out a branch with them, or run cairn sync --mirror-removed if they were deleted on purpose", e.Missing, e.Left, e.Dir)
}

// missing refuses a mirror directory that is gone while the last sync
// left files in it.
func (s *syncer) missing() error {
	if s.o.MirrorRemoved || len(s.state.Files) == 0 {
		return nil
	}
	if _, err := os.Lstat(s.o.Dir); errors.Is(err, fs.ErrNotExist) {
		return &GoneError{Dir: s.o.Dir, Missing: len(s.was), Left: len(s.was)}
	}
	return nil
}

// lost refuses a mirror that lost more than half of the files the last
// sync left, and more than a few, at once.
func (s *syncer) lost() error {
	if s.o.MirrorRemoved || s.blind {
		return nil
	}
	gone := 0
	for id := range s.was {
		if s.files[id] == nil && !s.tombs[id] {
			gone++
		}
	}
	if gone > few && 2*gone > len(s.was) {
		return &GoneError{Dir: s.o.Dir, Missing: gone, Left: len(s.was)}
	}
	return nil
}

// lastEvent is the id of the project's newest timeline event: every change
// of a memory or a link writes one, in the same transaction.
func lastEvent(ctx context.Context, st memory.Store, project string) (string, error) {
	evs, err := st.Timeline(ctx, project, 1)
	if err != nil || len(evs) == 0 {
		return "", err
	}
	return evs[0].ID, nil
}

// scope names what o shares, so that sharing other layers is a change.
func scope(o Options) string {
	var b strings.Builder
	for _, l := range o.Layers {
		b.WriteString(l.Letter())
	}
	return b.String()
}

// quiet reports whether neither side changed since the last sync: the
// store has written no event since, the shared scope is the same, and
// every file and the tombstones are byte for byte as it left them. Then
// there is nothing to read from the store and nothing to write.
func (s *syncer) quiet(event string) bool {
	st := s.state
	if s.o.Forget || event == "" || event != st.Event || scope(s.o) != st.Scope || s.tsum != st.Tombs ||
		len(s.rep.Refused) > 0 || len(s.raw) != len(st.Files) {
		return false
	}
	for _, f := range s.raw {
		if f.entry != nil {
			return false
		}
	}
	return true
}

func newSyncer(st memory.Store, state *State, o Options) *syncer {
	s := &syncer{st: st, o: o, state: state, files: map[string]*file{}, held: map[string]bool{},
		writes: map[string]bool{}, gone: map[string]bool{}, seen: map[string]FileState{}, was: map[string]string{}}
	for p, f := range state.Files {
		s.was[f.ID] = p
	}
	return s
}

// shared reports whether m belongs in the mirror: a shared layer, not
// marked personal, not archived (an archive removes the file, and a
// deleted file archives the memory).
func (s *syncer) shared(m *memory.Memory) bool {
	if m.Status == memory.StatusArchived || slices.Contains(m.Tags, PersonalTag) {
		return false
	}
	return s.o.Layers == nil || slices.Contains(s.o.Layers, m.Layer)
}

// readStore reads the project's memories and the team view of the shared ones.
func (s *syncer) readStore(ctx context.Context) error {
	s.all, s.store = map[string]*memory.Memory{}, map[string]*side{}
	err := memory.EachPage(ctx, s.st, memory.Query{Project: s.o.Project, Status: memory.StatusAny, Limit: 1000},
		func(ms []*memory.Memory) error {
			for _, m := range ms {
				s.all[m.ID] = m
			}
			return nil
		})
	if err != nil {
		return err
	}
	for id, m := range s.all {
		if s.shared(m) {
			s.store[id] = &side{m: m}
		}
	}
	// A memory's links are a call each; through a server most of that is
	// the round trip, so a few are in flight at once.
	work := make(chan *side)
	errs := make(chan error, readers)
	for range readers {
		go func() {
			var first error
			for sd := range work {
				if first != nil {
					continue
				}
				e, err := s.entryOf(ctx, sd.m)
				if err != nil {
					first = fmt.Errorf("%s: %w", sd.m.ID, err)
					continue
				}
				sd.entry, sd.hash = e, Hash(e)
			}
			errs <- first
		}()
	}
	for _, sd := range s.store {
		work <- sd
	}
	close(work)
	for range readers {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return err
}

// readers is how many memories' links are read at once.
const readers = 4

// entryOf is the team view of m, its links to other shared memories
// included (history is read only when the file is written).
func (s *syncer) entryOf(ctx context.Context, m *memory.Memory) (*Entry, error) {
	e := &Entry{ID: m.ID, Layer: m.Layer, Kind: m.Kind, Title: m.Title, Body: m.Body,
		Provenance: m.Provenance, Tags: slices.Clone(m.Tags), Status: m.Status, Triggers: slices.Clone(m.Triggers),
		ValidFrom: m.ValidFrom, ValidUntil: m.ValidUntil, Supersedes: slices.Clone(m.Supersedes),
		SupersededBy: m.SupersededBy, Version: m.Version, Created: m.CreatedAt, Updated: m.UpdatedAt}
	e.Provenance = s.claimed(m)
	for _, w := range m.Watermarks {
		if w.Kind != memory.WatermarkNone {
			e.Watermarks = append(e.Watermarks, Target{Kind: w.Kind, Target: w.Target})
		}
	}
	out, _, err := s.st.Edges(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	for _, ed := range out {
		if ed.Active && s.store[ed.To] != nil {
			e.Links = append(e.Links, Link{Kind: ed.Kind, To: ed.To})
		}
	}
	e.Links = sortLinks(e.Links)
	return e, nil
}

// readDir reads the tombstones and every memory file under the layer
// folders. Anything else (a README, .obsidian/, .trash/) is not the
// mirror's and is left alone.
func (s *syncer) readDir() error {
	if err := inRepository(s.o.Dir); err != nil {
		return err
	}
	tombs, tsum, err := readTombstones(filepath.Join(s.o.Dir, TombstoneFile))
	if err != nil {
		// Refused: no teammate's forget is read this time, no deletion
		// either (refuse), and the file is not written over.
		s.refuse(TombstoneFile, err)
		s.tombsRefused, tombs, tsum = true, map[string]bool{}, ""
	}
	s.tombs, s.tsum = tombs, tsum
	var raw []*file
	for _, l := range memory.Layers {
		dir := filepath.Join(s.o.Dir, LayerDir(l))
		if err := noLink(dir); err != nil {
			return err
		}
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		for _, de := range ents {
			if de.Type().IsRegular() && strings.HasPrefix(de.Name(), ".sync-") {
				s.stale = append(s.stale, filepath.Join(dir, de.Name()))
				continue
			}
			if !strings.HasSuffix(de.Name(), ".md") || strings.HasPrefix(de.Name(), ".") {
				continue
			}
			rel := LayerDir(l) + "/" + de.Name()
			// A memory file that is not a plain file (a link, a FIFO, a
			// folder) is refused, not skipped: skipped, it would read as
			// deleted. readFile looks again, on the file it opens.
			f, err := s.readFile(rel, l)
			if was, ok := s.state.Files[rel]; ok && errors.Is(err, ErrNotMemory) {
				err = fmt.Errorf("was the file of memory %s and has no frontmatter now: restore it from git (to archive the memory, delete the file)", was.ID)
			}
			if errors.Is(err, ErrNotMemory) {
				s.rep.Skipped++ // a note beside the memories: left alone
				continue
			}
			if err != nil {
				s.refuse(rel, err)
				continue
			}
			raw = append(raw, f)
		}
	}
	s.raw = raw
	return nil
}

// resolve files the files read by id, and reads their links. A file a
// person wrote without an id gets one derived from its path and bytes, so
// that any sync reading the same file — a retry after a crash, another
// sync at once, a teammate's clone — gives it the same id.
func (s *syncer) resolve() {
	for _, f := range s.raw {
		if e := f.entry; e != nil && e.ID == "" {
			e.ID, f.derived = derivedID(e.Created, f.path+"\x00"+string(f.data)), true
		}
		if f.entry != nil {
			f.id = f.entry.ID
		}
	}
	link := s.linker()
	for _, f := range s.raw {
		if e := f.entry; e != nil { // read: not as the last sync left it
			for i := range e.Links {
				e.Links[i].To = link(strings.TrimPrefix(e.Links[i].To, "\x00"))
			}
			e.Links = slices.DeleteFunc(e.Links, func(l Link) bool { return l.To == "" })
			e.Links = sortLinks(e.Links)
			f.hash = Hash(e)
		}
		if other := s.files[f.id]; other != nil { // a copied file, say
			s.refuse(f.path, fmt.Errorf("holds the id of %s too: give one of them another id (or none)", other.path))
			s.held[f.id] = true
			continue
		}
		s.files[f.id] = f
	}
	for _, f := range s.files {
		s.seen[f.path] = FileState{ID: f.id, Sum: sum(f.data), Hash: f.hash}
	}
}

// linker is how a wiki link finds the memory it names: by id; by the
// name a file has now in the mirror (its path, or its name alone, as
// Obsidian writes it, in any case); by a memory's title (Obsidian's link
// text after a rename); else by the short id a name cairn gave ends with.
// Never by the name the last sync wrote alone: a person may rename a file,
// and Obsidian rewrites the links to it. A name two memories answer to
// names neither.
func (s *syncer) linker() func(name string) string {
	paths, names, titles, shorts := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	add := func(m map[string]string, key, id string) {
		if key == "" {
			return
		}
		key = strings.ToLower(key)
		if was, ok := m[key]; ok && was != id {
			m[key] = "" // two memories answer to it: it names neither
			return
		}
		m[key] = id
	}
	for id, m := range s.all {
		shorts[ShortID(id)] = id
		if m.Status != memory.StatusArchived {
			add(titles, m.Title, id)
		}
	}
	for _, f := range s.raw {
		if f.id == "" {
			continue
		}
		add(paths, strings.TrimSuffix(f.path, ".md"), f.id)
		add(names, linkName(f.path), f.id)
		shorts[ShortID(f.id)] = f.id
		if f.entry != nil {
			add(titles, f.entry.Title, f.id)
		}
	}
	return func(name string) string {
		name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), ".md"))
		if ulidErr(name) == nil {
			if s.all[name] != nil || shorts[ShortID(name)] == name {
				return name
			}
		}
		key := strings.ToLower(name)
		for _, m := range []map[string]string{paths, names, titles} {
			if id, ok := m[key]; ok {
				return id
			}
		}
		if strings.Contains(key, "/") { // a path to a file not there: its name may still tell
			key = key[strings.LastIndexByte(key, '/')+1:]
			if id, ok := names[key]; ok {
				return id
			}
		}
		return shorts[key[strings.LastIndexByte(key, '-')+1:]]
	}
}

func (s *syncer) readFile(rel string, dirLayer memory.Layer) (*file, error) {
	data, fi, err := readMirrorFile(filepath.Join(s.o.Dir, filepath.FromSlash(rel)), MaxFile, "mirror file")
	if err != nil {
		return nil, err
	}
	// Unchanged since the last sync, which agreed on it: not read again.
	if was, ok := s.state.Files[rel]; ok && was.Sum == sum(data) && was.Hash == s.state.Hashes[was.ID] {
		return &file{path: rel, id: was.ID, data: data, hash: was.Hash}, nil
	}
	e, err := Parse(data, func(name string) string { return "\x00" + name })
	if err != nil {
		return nil, err
	}
	if e.ID != "" && ulidErr(e.ID) != nil {
		return nil, fmt.Errorf("id %q is not a ULID", e.ID)
	}
	if e.ID != "" && e.Provenance.Rank() > memory.ProvObserved.Rank() {
		if s.fileClaims == nil {
			s.fileClaims = map[string]memory.Provenance{}
		}
		s.fileClaims[e.ID] = e.Provenance
	}
	// A file moved to another layer's folder (in Obsidian, say) moves the memory.
	if e.Layer != dirLayer {
		e.Layer = dirLayer
	}
	return &file{path: rel, data: data, entry: e, mtime: fi.ModTime()}, nil
}

// MaxTombstones bounds the tombstone file: an id is 27 bytes a line, so
// this holds some 150,000 forgets.
const MaxTombstones = 4 << 20

// hintMirrorFile is what to do about a mirror file that is refused.
const hintMirrorFile = "a mirror file is a plain file in the repository: remove it (git rm), or restore it from git"

// readMirrorFile reads a file of the mirror, which teammates commit: only
// a regular file (never through a link, never a FIFO or a device) of at
// most limit bytes.
func readMirrorFile(path string, limit int64, what string) ([]byte, fs.FileInfo, error) {
	return safefile.ReadFile(path, limit, what, hintMirrorFile)
}

// inRepository refuses a mirror directory reached through a symbolic link
// inside its repository (a committed ".cairn" link to a folder elsewhere):
// a sync would read and write wherever it leads. Each folder from dir up to
// the repository's root (the first holding .git) must be a real folder; a
// link above the root (or the root itself, reached by a link) is the
// person's own layout. A directory outside any repository has only itself
// checked.
func inRepository(dir string) error {
	dir = filepath.Clean(dir)
	for p := dir; ; {
		fi, err := os.Lstat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if p == dir || repoAbove(p) {
				return fmt.Errorf("%s is a symbolic link inside a repository: a sync neither reads nor writes through it — git rm the link (or sync from the real path)", p)
			}
			return nil
		}
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			return nil
		}
		up := filepath.Dir(p)
		if up == p {
			return nil
		}
		p = up
	}
}

// repoAbove reports whether a folder above p is a repository's root.
func repoAbove(p string) bool {
	for up := filepath.Dir(p); up != p; p, up = up, filepath.Dir(up) {
		if _, err := os.Lstat(filepath.Join(up, ".git")); err == nil {
			return true
		}
	}
	return false
}

func ulidErr(id string) error {
	_, err := ulid.ParseStrict(id)
	return err
}

// refuse notes a file the sync leaves alone, and holds what it names.
func (s *syncer) refuse(rel string, err error) {
	line := ""
	var ce *ConflictError
	if errors.As(err, &ce) {
		line = fmt.Sprintf(":%d", ce.Line)
		for _, id := range ce.IDs {
			s.held[id] = true
		}
		if len(ce.IDs) == 0 {
			s.blind = true
		}
	} else {
		s.blind = true // whatever it held may look deleted: read no deletion this time
	}
	if errors.As(err, &ce) {
		err = errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("line %d: ", ce.Line)))
	}
	s.rep.Refused = append(s.rep.Refused, fmt.Sprintf("%s%s: %v", filepath.Join(s.o.Dir, filepath.FromSlash(rel)), line, err))
}

// derivedID is an id made from what it names: a retry of the same sync
// makes the same one, and an import of it again changes nothing. t (the
// time the id carries) is the zero time when none is known.
func derivedID(t time.Time, what string) string {
	if t.Before(time.Unix(0, 0)) || t.After(ulid.Time(ulid.MaxTime())) {
		t = time.Unix(0, 0)
	}
	h := sha256.Sum256([]byte(what))
	return ulid.MustNew(ulid.Timestamp(t), bytes.NewReader(h[:])).String()
}

// plan is what a sync will change in the store, worked out before any of
// it is written: a sync that needs a person's word (Options.Confirm), or
// that fails, leaves the store as it was.
type plan struct {
	imports  []*Entry
	archives []string // active memories whose file was deleted
	tombs    []string // memories a teammate forgot
}

// reconcile decides, memory by memory, which side changed since the last
// sync, asks a person when the sync would archive or unshare much, and
// carries the mirror's changes into the store.
func (s *syncer) reconcile(ctx context.Context) error {
	p := s.plan(ctx)
	if err := s.confirm(p); err != nil {
		return err
	}
	return s.apply(ctx, p)
}

// plan works out, memory by memory, which side changed since the last
// sync; it writes nothing to the store.
func (s *syncer) plan(ctx context.Context) *plan {
	p := &plan{}
	for _, id := range s.ids() {
		if s.held[id] || s.settled(p, id) {
			continue
		}
		s.merge(ctx, p, id)
	}
	s.followRenames()
	return p
}

// ids are the ids a sync looks at, in order: the store's shared ones, the
// files', those the last sync agreed on, and the tombstones'.
func (s *syncer) ids() []string {
	ids := map[string]bool{}
	for id := range s.store {
		ids[id] = true
	}
	for id := range s.files {
		ids[id] = true
	}
	for id := range s.state.Hashes {
		ids[id] = true
	}
	for id := range s.tombs {
		ids[id] = true
	}
	return slices.Sorted(maps.Keys(ids))
}

// settled deals with the ids whose fate does not depend on which side
// changed: a tombstone, a memory forgotten here, a file of a memory kept
// unshared, a file a stopped sync already read in. It reports whether id
// was one of them.
func (s *syncer) settled(p *plan, id string) bool {
	sd, f, base, m := s.store[id], s.files[id], s.state.Hashes[id], s.all[id]
	switch {
	case s.tombs[id]:
		p.tombs = append(p.tombs, id)
	case m == nil && base != "" && f == nil:
		delete(s.state.Hashes, id) // forgotten here and its file already gone
	case m == nil && base != "": // forgotten here: a tombstone travels
		s.tombs[id], s.gone[id] = true, true
		s.rep.Tombs++
		delete(s.state.Hashes, id)
	case m != nil && sd == nil && f != nil && base == "" && m.Status != memory.StatusArchived:
		// a file of a memory this store keeps unshared (personal, or its layer): left alone
	case f != nil && f.derived && m != nil:
		// A file a person wrote, which a sync already read in (its id
		// comes from the file's path and bytes) and was stopped before
		// it rewrote the file: the same memory, not a new one.
		if sd != nil {
			s.writes[id] = true
		}
	default:
		return false
	}
	return true
}

// merge decides what happens to id from which side moved since the
// last sync agreed on it (base): the store, the file, neither or both.
func (s *syncer) merge(ctx context.Context, p *plan, id string) {
	sd, f, base, m := s.store[id], s.files[id], s.state.Hashes[id], s.all[id]
	sh, fh := "", ""
	if sd != nil {
		sh = sd.hash
	}
	if f != nil {
		fh = f.hash
	}
	if f == nil && s.blind {
		return // a refused file may be this one: left for the next sync
	}
	storeMoved, fileMoved := sh != base, fh != base
	switch {
	case !storeMoved && !fileMoved:
		// In step. A file a person renamed keeps its new name.
	case storeMoved && !fileMoved:
		if sd != nil {
			s.writes[id] = true
		} else {
			s.gone[id] = true // archived here (or no longer shared)
			if f != nil && m != nil && m.Status != memory.StatusArchived {
				s.unshared = append(s.unshared, id)
			}
		}
	case !storeMoved && fileMoved:
		if f != nil {
			p.imports = append(p.imports, f.entry)
		} else if m != nil && m.Status == memory.StatusActive {
			p.archives = append(p.archives, id)
		}
		// Else a deleted file of a memory no longer active here
		// (superseded) is nothing to do: its agreed hash stays, so the
		// next sync does not write the file back either.
	case sh == fh: // both sides made the same change (or git merged it into one)
		if sd != nil {
			s.state.Hashes[id] = sh
			s.writes[id] = f.path != s.nameOf(id) || !bytes.Equal(f.data, s.mustRender(ctx, sd))
		}
	case f == nil: // edited here, deleted in the mirror: the edit is kept
		s.writes[id] = true
		s.rep.Kept = append(s.rep.Kept, id)
	case sd == nil: // archived here, edited in the mirror: the edit is work, an archive undoes
		p.imports = append(p.imports, f.entry)
	default: // both changed it: never overwrite
		p.imports = append(p.imports, s.conflictCopy(sd, f))
		s.writes[id] = true
	}
}

// followRenames: the files that link to a file a person renamed follow
// its name.
func (s *syncer) followRenames() {
	renamed := map[string]bool{}
	for id, f := range s.files {
		if was := s.was[id]; was != "" && was != f.path {
			renamed[id] = true
		}
	}
	if len(renamed) == 0 {
		return
	}
	for id, sd := range s.store {
		if s.files[id] != nil && !s.held[id] && slices.ContainsFunc(sd.entry.Links, func(l Link) bool { return renamed[l.To] }) {
			s.writes[id] = true
		}
	}
}

// few is how many memories a sync archives, or how many of the files the
// last sync left may be gone, before a person is asked.
const few = 3

// Ask is what a sync needs a person's word for before it changes anything.
type Ask struct {
	Archive []Named // memories it would archive: their files were deleted, or teammates forgot them
	Unshare []Named // memories whose files it would remove from the mirror: no longer shared here
}

// Named is a memory as a person is asked about it.
type Named struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ConfirmError is a sync that needed a person's word and did not get it:
// nothing was changed.
type ConfirmError struct{ Ask Ask }

func (e *ConfirmError) Error() string {
	var parts []string
	if n := len(e.Ask.Archive); n > 0 {
		parts = append(parts, fmt.Sprintf("archive %s (%s)", count(n, "memory", "memories"), titles(e.Ask.Archive)))
	}
	if n := len(e.Ask.Unshare); n > 0 {
		parts = append(parts, fmt.Sprintf("remove from the mirror the files of %s no longer shared (%s), which archives them for teammates",
			count(n, "memory", "memories"), titles(e.Ask.Unshare)))
	}
	return "the sync would " + strings.Join(parts, " and ") + ": nothing was changed — run cairn sync on a terminal to confirm, or add --yes"
}

func count(n int, one, more string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, more)
}

// titles names a few memories in one line.
func titles(ns []Named) string {
	var out []string
	for i, n := range ns {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(ns)-i))
			break
		}
		out = append(out, fmt.Sprintf("%q", n.Title))
	}
	return strings.Join(out, ", ")
}

// confirm asks Options.Confirm when the plan archives more than a few
// memories at once, or removes the files of memories no longer shared
// (--layers, a personal tag): both change every teammate's store.
func (s *syncer) confirm(p *plan) error {
	var ask Ask
	named := func(id string) Named {
		n := Named{ID: id}
		if m := s.all[id]; m != nil {
			n.Title = m.Title
		}
		return n
	}
	for _, id := range p.archives {
		ask.Archive = append(ask.Archive, named(id))
	}
	if !s.o.Forget {
		for _, id := range p.tombs {
			if m := s.all[id]; m != nil && m.Status == memory.StatusActive {
				ask.Archive = append(ask.Archive, named(id))
			}
		}
	}
	for _, id := range s.unshared {
		ask.Unshare = append(ask.Unshare, named(id))
	}
	s.rep.Unshared = ask.Unshare
	if len(ask.Archive) <= few && len(ask.Unshare) == 0 {
		return nil
	}
	if s.o.Confirm != nil && s.o.Confirm(ask) {
		return nil
	}
	return &ConfirmError{Ask: ask}
}

// apply writes the plan to the store: the archives, then the mirror's
// memories (one import a round, each whole or not at all), then teammates'
// forgets. When a step fails, what this sync archived is unarchived again:
// up to the imports, a failure leaves the store as it was.
func (s *syncer) apply(ctx context.Context, p *plan) (err error) {
	var archived []string
	defer func() {
		if err == nil {
			return
		}
		for _, id := range archived {
			if _, uerr := s.st.Unarchive(ctx, id, s.o.Actor); uerr != nil {
				err = fmt.Errorf("%w; unarchiving %s again failed too: cairn unarchive %s", err, id, id)
			}
		}
	}()
	for _, id := range p.archives {
		if _, err := s.st.Archive(ctx, id, "its file was deleted from the team mirror", s.o.Actor); err != nil {
			if m, gerr := s.st.Get(ctx, id); gerr == nil && m.Status != memory.StatusActive {
				delete(s.state.Hashes, id) // no longer active (changed meanwhile): nothing to do
				continue
			}
			return fmt.Errorf("archive %s: %w", id, err)
		}
		archived = append(archived, id)
		s.rep.Archived++
		delete(s.state.Hashes, id)
	}
	if err := s.importAll(ctx, p.imports); err != nil {
		return err
	}
	for _, id := range p.tombs {
		m := s.all[id]
		if err := s.tombstoned(ctx, id, m, s.files[id]); err != nil {
			return err
		}
	}
	return nil
}

// tombstoned handles a memory a teammate (or this store) forgot. A
// tombstone acts only on a memory the mirror shared: one a sync of this
// store agreed on with the mirror (see mirrored). It cannot name a
// personal memory, or one never written to the mirror, into an archive
// or a forget.
func (s *syncer) tombstoned(ctx context.Context, id string, m *memory.Memory, f *file) error {
	if m != nil && !s.mirrored(id, f) {
		return nil
	}
	delete(s.state.Hashes, id)
	if f != nil {
		s.gone[id] = true // its text is not read back in
	}
	switch {
	case m == nil:
		delete(s.state.Tombed, id)
		return nil
	case s.o.Forget:
		if err := s.st.Forget(ctx, id, s.o.Actor); err != nil {
			return fmt.Errorf("forget %s: %w", id, err)
		}
		s.rep.Forgotten++
		delete(s.state.Tombed, id)
		return nil
	case m.Status == memory.StatusActive:
		if _, err := s.st.Archive(ctx, id, "a teammate forgot it (team mirror tombstone): cairn sync --forget forgets it here too", s.o.Actor); err != nil {
			return fmt.Errorf("archive %s: %w", id, err)
		}
		s.rep.Archived++
	}
	if s.state.Tombed == nil {
		s.state.Tombed = map[string]bool{}
	}
	s.state.Tombed[id] = true
	s.rep.Pending = append(s.rep.Pending, id)
	return nil
}

// mirrored reports whether the memory id is one the mirror shared: the
// last sync agreed on it with the mirror (or a tombstone archived it
// then, and it waits for a forget), or the mirror holds its file and
// the store shares it (a first sync, before any agreement). A memory
// tagged personal, of a layer not shared, or never written out is not.
func (s *syncer) mirrored(id string, f *file) bool {
	return s.state.Hashes[id] != "" || s.state.Tombed[id] || f != nil && s.store[id] != nil
}

// conflictCopy is the mirror's version of a memory both sides changed, as
// a new memory that contradicts the store's and waits in the verify-first
// queue for a person to keep one.
func (s *syncer) conflictCopy(sd *side, f *file) *Entry {
	c := *f.entry
	c.ID = derivedID(sd.m.UpdatedAt, sd.m.ID+"\x00"+f.hash) // a retried sync makes the same copy
	c.Status, c.Supersedes, c.SupersededBy, c.Version, c.History = memory.StatusActive, nil, "", 0, nil
	c.Created, c.Updated = time.Time{}, time.Time{}
	c.Links = sortLinks(append(slices.Clone(c.Links), Link{Kind: memory.EdgeContradicts, To: sd.m.ID}))
	s.rep.Conflicts = append(s.rep.Conflicts, c.ID)
	return &c
}

// importAll writes the mirror's memories to the store: each version the
// store lacks, oldest first, one import per round, so that its history
// has the versions the file's history lists. A record the store refuses
// (a secret, a bad value) is left out and named; the rest go on.
func (s *syncer) importAll(ctx context.Context, es []*Entry) error {
	var rounds [][]memory.Record
	whose := map[string]string{} // id → file, for refusals
	for _, e := range es {
		whose[e.ID] = e.ID
		if f := s.files[e.ID]; f != nil {
			whose[e.ID] = f.path
		}
		recs, err := s.records(ctx, e)
		if err != nil {
			return err
		}
		for i, r := range recs {
			if i >= len(rounds) {
				rounds = append(rounds, nil)
			}
			rounds[i] = append(rounds[i], r)
		}
	}
	dropped := map[string]bool{}
	for _, round := range rounds {
		round = slices.DeleteFunc(round, func(r memory.Record) bool { return dropped[r.ID] })
		for len(round) > 0 {
			_, err := s.st.Import(ctx, s.o.Project, round, s.o.Actor)
			var ie *memory.ImportError
			if errors.As(err, &ie) && ie.Index < len(round) {
				id := round[ie.Index].ID
				dropped[id] = true
				s.rep.Refused = append(s.rep.Refused, fmt.Sprintf("%s: %v", filepath.Join(s.o.Dir, filepath.FromSlash(whose[id])), ie.Err))
				round = slices.Delete(round, ie.Index, ie.Index+1)
				continue
			}
			if err != nil {
				return err
			}
			break
		}
	}
	for _, e := range es {
		if dropped[e.ID] {
			s.held[e.ID] = true
			continue
		}
		if s.all[e.ID] == nil {
			s.rep.Added++
		} else {
			s.rep.Edited++
		}
		s.writes[e.ID] = true
	}
	return nil
}

// records are the import records that bring e into the store: the
// versions of its history the store has not got (by their text: two
// people's versions may share a number), oldest first, then e itself.
func (s *syncer) records(ctx context.Context, e *Entry) ([]memory.Record, error) {
	old := s.all[e.ID]
	e = s.voice(e, old)
	have := map[string]bool{}
	if old != nil {
		hist, err := s.st.History(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		for _, h := range append(hist, old) {
			have[h.Title+"\x00"+strings.TrimSpace(h.Body)] = true
		}
	}
	cur := s.record(e, old)
	if old != nil {
		// A link to a shared memory the file no longer lists was removed
		// there: it is kept as an inactive edge (as a removed link is).
		out, _, err := s.st.Edges(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		for _, ed := range out {
			if ed.Active && s.store[ed.To] != nil && !slices.Contains(e.Links, Link{Kind: ed.Kind, To: ed.To}) {
				off := false
				cur.Edges = append(cur.Edges, memory.RecordEdge{Kind: ed.Kind, To: ed.To, Weight: ed.Weight, CreatedAt: ed.CreatedAt, Active: &off})
			}
		}
	}
	var recs []memory.Record
	last := 0
	if old != nil {
		last = old.Version
	}
	for _, p := range e.History {
		if have[p.Title+"\x00"+strings.TrimSpace(p.Body)] || p.Version >= e.Version {
			continue
		}
		r := cur
		r.Title, r.Body, r.Version, r.Edges = p.Title, p.Body, p.Version, nil
		r.Status, r.SupersededBy = memory.StatusActive, ""
		if t, err := unstamp("updated", p.Updated); err == nil {
			r.UpdatedAt = t
		}
		if p.Version <= last { // the number is taken here: the store gives the next
			r.Version, r.UpdatedAt = 0, s.o.Now.UTC()
		}
		last = max(last+1, p.Version)
		recs = append(recs, r)
	}
	if cur.Version != 0 && cur.Version <= last {
		cur.Version, cur.UpdatedAt = 0, s.o.Now.UTC()
	}
	return append(recs, cur), nil
}

// record is the import record of e's current version. A file edited by
// hand keeps its old version number and time: the store counts it as the
// next version, now.
func (s *syncer) record(e *Entry, old *memory.Memory) memory.Record {
	r := memory.Record{ID: e.ID, Layer: e.Layer, Kind: e.Kind, Title: e.Title, Body: strings.TrimSpace(e.Body),
		Tags: e.Tags, Provenance: e.Provenance, Status: e.Status, CreatedAt: e.Created,
		ValidFrom: e.ValidFrom, Supersedes: e.Supersedes, SupersededBy: e.SupersededBy,
		Triggers: e.Triggers, Version: e.Version, UpdatedAt: e.Updated}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	if !e.ValidUntil.IsZero() {
		t := e.ValidUntil
		r.ValidUntil = &t
	}
	if old != nil {
		r.Confidence = old.Confidence
		if e.Provenance != old.Provenance { // lowered (see voice): so is what it was worth
			r.Confidence = min(r.Confidence, e.Provenance.BaseConfidence())
		}
		if e.Version <= old.Version || !e.Updated.After(old.UpdatedAt) {
			r.Version, r.UpdatedAt = 0, s.o.Now.UTC()
		}
		if sameTargets(old.Watermarks, e.Watermarks) {
			r.Watermarks = old.Watermarks // the stamps are this machine's: kept
		}
	}
	if r.Watermarks == nil {
		for _, t := range e.Watermarks {
			r.Watermarks = append(r.Watermarks, memory.Watermark{Kind: t.Kind, Target: t.Target, State: memory.WatermarkUnchecked})
		}
	}
	for _, l := range e.Links {
		r.Edges = append(r.Edges, memory.RecordEdge{Kind: l.Kind, To: l.To, Weight: 1})
	}
	if e.Version == 0 && old == nil && e.Created.IsZero() { // a copy or a hand-written file: to verify first
		if slices.ContainsFunc(e.Links, func(l Link) bool { return l.Kind == memory.EdgeContradicts }) {
			t := s.o.Now.UTC()
			r.ReopenedAt = &t
			r.Reopened = "changed here and in the team mirror at once: keep one (supersede the other)"
		}
	}
	return r
}

// voice is e as the store takes it from a file of the mirror, which speaks
// with the voice of whoever committed it, not this store's person:
//
//   - provenance: at most observed (a teammate's word is what this person
//     observed), a lower one kept as written. A memory the store holds
//     keeps its own provenance when the file changed neither it nor the
//     memory's title and body: an edit of the text is the teammate's words,
//     whatever the file claims.
//   - times: none after now (a 2099 date would rank first forever), none
//     created after it was updated.
//   - versions: each version of the history the store lacks counts one
//     after the store's own, and the current one after them: at most the
//     store's version + 1 when the file brings no history.
//   - supersession: only what the store's memory already superseded (its
//     own history), or a memory whose own file retires itself in its
//     favour (a supersede writes both files); a file cannot retire another
//     memory, an invariant say. A supersedes link to anything else is
//     dropped with it.
func (s *syncer) voice(e *Entry, old *memory.Memory) *Entry {
	c := *e
	now := s.o.Now.UTC()
	ownText := old != nil && c.Title == old.Title && strings.TrimSpace(c.Body) == strings.TrimSpace(old.Body)
	switch {
	case ownText && c.Provenance == s.claimed(old):
		c.Provenance = old.Provenance
	case c.Provenance.Rank() > memory.ProvObserved.Rank() || !c.Provenance.Valid():
		c.Provenance = memory.ProvObserved
	}
	s.claimsMu.Lock()
	defer s.claimsMu.Unlock()
	if s.state.Claims == nil {
		s.state.Claims = map[string]memory.Provenance{}
	}
	delete(s.state.Claims, e.ID)
	if c.Provenance == memory.ProvObserved && e.Provenance != c.Provenance && e.Provenance.Valid() {
		s.state.Claims[e.ID] = e.Provenance
	}
	for _, t := range []*time.Time{&c.Created, &c.Updated} {
		if t.After(now) {
			*t = now
		}
	}
	if !c.Created.IsZero() && !c.Updated.IsZero() && c.Created.After(c.Updated) {
		c.Created = c.Updated
	}
	base := 0
	var had []string
	if old != nil {
		base, had = old.Version, old.Supersedes
	}
	next := base
	c.History = slices.Clone(c.History)
	for i := range c.History {
		p := &c.History[i]
		if t, err := unstamp("updated", p.Updated); err == nil && t.After(now) {
			p.Updated = stamp(now)
		}
		if p.Version > base {
			next++
			p.Version = min(p.Version, next)
		}
	}
	c.Version = min(c.Version, next+1)
	c.Supersedes = slices.DeleteFunc(slices.Clone(c.Supersedes), func(id string) bool { return !slices.Contains(had, id) && !s.retires(id, e.ID) })
	if len(c.Supersedes) == 0 {
		c.Supersedes = nil
	}
	c.Links = slices.DeleteFunc(slices.Clone(c.Links), func(l Link) bool {
		return l.Kind == memory.EdgeSupersedes && !slices.Contains(c.Supersedes, l.To)
	})
	return &c
}

// retires reports whether the memory old agrees that by supersedes it:
// its own file (read this time) says so, or the store already does.
func (s *syncer) retires(old, by string) bool {
	if f := s.files[old]; f != nil && f.entry != nil && f.entry.SupersededBy == by {
		return true
	}
	m := s.all[old]
	return m != nil && m.SupersededBy == by
}

// claimed is m's provenance as the team's view shows it: the one its file
// claimed, when the store took m at observed because of it (see voice) —
// as the last sync noted, or (a crash lost that note) as its file, read
// again this time, says. The store's own provenance is never raised by it.
func (s *syncer) claimed(m *memory.Memory) memory.Provenance {
	if m.Provenance != memory.ProvObserved {
		return m.Provenance
	}
	s.claimsMu.Lock()
	defer s.claimsMu.Unlock()
	if p, ok := s.state.Claims[m.ID]; ok {
		return p
	}
	if p, ok := s.fileClaims[m.ID]; ok {
		if s.state.Claims == nil {
			s.state.Claims = map[string]memory.Provenance{}
		}
		s.state.Claims[m.ID] = p // noted again
		return p
	}
	return m.Provenance
}

func sameTargets(ws []memory.Watermark, ts []Target) bool {
	var have []Target
	for _, w := range ws {
		if w.Kind != memory.WatermarkNone {
			have = append(have, Target{Kind: w.Kind, Target: w.Target})
		}
	}
	return slices.Equal(have, ts)
}

// mustRender renders the store's side of a memory for comparison; an
// error (which a later write reports) compares unequal.
func (s *syncer) mustRender(ctx context.Context, sd *side) []byte {
	b, _ := s.render(ctx, sd)
	return b
}

// render is the file of a shared memory, with its history and links.
func (s *syncer) render(ctx context.Context, sd *side) ([]byte, error) {
	e := *sd.entry
	hist, err := s.st.History(ctx, sd.m.ID)
	if err != nil {
		return nil, err
	}
	e.History = pastOf(hist, sd.m)
	names, titles := map[string]string{}, map[string]string{}
	for _, l := range e.Links {
		if t := s.store[l.To]; t != nil {
			names[l.To], titles[l.To] = s.nameOf(l.To), t.entry.Title
		}
	}
	return Render(&e, names, titles)
}

// pastOf is the history a file lists: the earlier versions whose title
// or body differ from the version before (a stamp or a status change is
// not worth a reader's line).
func pastOf(hist []*memory.Memory, cur *memory.Memory) []Past {
	slices.SortFunc(hist, func(a, b *memory.Memory) int { return a.Version - b.Version })
	var out []Past
	prevT, prevB := "", ""
	for _, h := range hist {
		if h.Version >= cur.Version {
			continue
		}
		body := strings.TrimSpace(h.Body)
		if len(out) > 0 && h.Title == prevT && body == prevB {
			continue
		}
		out = append(out, Past{Version: h.Version, Updated: stamp(h.UpdatedAt), Title: h.Title, Body: body})
		prevT, prevB = h.Title, body
	}
	// A version that says what the current one says is no history.
	for len(out) > 0 && out[len(out)-1].Title == cur.Title && out[len(out)-1].Body == strings.TrimSpace(cur.Body) {
		out = out[:len(out)-1]
	}
	return out
}

// writeOut writes the files of what changed in the store (and what came
// in, so that its version and history follow the store's), removes the
// files of what left the mirror, and records the state both sides now
// agree on. A file whose bytes are already right is not touched.
func (s *syncer) writeOut(ctx context.Context) error {
	if s.rep.Added+s.rep.Edited+s.rep.Archived+s.rep.Forgotten > 0 {
		if err := s.readStore(ctx); err != nil { // what came in, as the store now has it
			return err
		}
	}
	ids := make([]string, 0, len(s.writes))
	for id, w := range s.writes {
		if w {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		sd := s.store[id]
		if s.held[id] {
			continue
		}
		if sd == nil { // what came in left the mirror (a file that said archived): its file goes
			if f := s.files[id]; f != nil {
				if err := s.remove(f.path); err != nil {
					return err
				}
				delete(s.seen, f.path)
				s.rep.Removed++
			}
			continue
		}
		b, err := s.render(ctx, sd)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		name := s.nameOf(id)
		if f := s.files[id]; f != nil && f.path != name { // moved to its layer's folder
			if err := s.remove(f.path); err != nil {
				return err
			}
			delete(s.seen, f.path)
		}
		wrote, err := s.writeFile(name, b)
		if err != nil {
			return err
		}
		s.seen[name] = FileState{ID: id, Sum: sum(b), Hash: sd.hash}
		if wrote {
			s.rep.Written++
			s.touched = append(s.touched, name)
		}
	}
	for id := range s.gone {
		if f := s.files[id]; f != nil && !s.held[id] {
			if err := s.remove(f.path); err != nil {
				return err
			}
			delete(s.seen, f.path)
			s.rep.Removed++
		}
	}
	if err := s.writeTombstones(); err != nil {
		return err
	}
	for id, sd := range s.store {
		if !s.held[id] && (s.files[id] != nil || s.writes[id]) {
			s.state.Hashes[id] = sd.hash
		}
	}
	for id := range s.state.Hashes {
		if s.store[id] == nil && !s.held[id] {
			delete(s.state.Hashes, id)
		}
	}
	s.state.Files = map[string]FileState{}
	for path, fs := range s.seen {
		if s.state.Hashes[fs.ID] != "" && !s.held[fs.ID] {
			s.state.Files[path] = fs
		}
	}
	return nil
}

// writeFile writes b to the mirror's rel unless it already holds b, through
// a temporary file and a rename (a reader never sees half a file). Mirror
// files are the team's, committed to the repository: plain 0o644.
func (s *syncer) writeFile(rel string, b []byte) (bool, error) {
	path := filepath.Join(s.o.Dir, filepath.FromSlash(rel))
	if old, _, err := readMirrorFile(path, int64(len(b)), "mirror file"); err == nil && bytes.Equal(old, b) {
		return false, nil
	}
	if err := noLink(filepath.Dir(path)); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sync-*")
	if err != nil {
		return false, err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	return true, nil
}

// noLink refuses a folder of the mirror that is a symbolic link: the
// mirror comes from other people through git, and a link committed there
// must not lead a sync to read or write outside it.
func noLink(dir string) error {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: a sync neither reads nor writes through it — remove it", dir)
	}
	return nil
}

func (s *syncer) remove(rel string) error {
	err := os.Remove(filepath.Join(s.o.Dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		s.touched = append(s.touched, rel)
	}
	return err
}

// nameOf is where the file of a shared memory is: its name is chosen once,
// from its title and id, and kept for life — an edit of the title does not
// rename it, a rename by a person is kept — in its layer's folder.
func (s *syncer) nameOf(id string) string {
	at := s.was[id]
	if f := s.files[id]; f != nil {
		at = f.path
	}
	sd := s.store[id]
	switch {
	case sd == nil:
		return at
	case at == "":
		return FileName(sd.entry)
	}
	if dir, base := path.Split(at); strings.TrimSuffix(dir, "/") != LayerDir(sd.entry.Layer) {
		return LayerDir(sd.entry.Layer) + "/" + base
	}
	return at
}

// readTombstones reads the ids of a tombstone file; none is no file.
func readTombstones(path string) (map[string]bool, string, error) {
	b, _, err := readMirrorFile(path, MaxTombstones, "tombstone file")
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, "", nil
	} else if err != nil {
		return nil, "", err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "<<<<<<<") || strings.HasPrefix(line, "=======") || strings.HasPrefix(line, ">>>>>>>") {
			continue // both sides of a merge of tombstones are tombstones
		}
		if ulidErr(line) == nil {
			out[line] = true
		}
	}
	return out, sum(b), nil
}

// writeTombstones writes the tombstones, sorted, if they changed.
func (s *syncer) writeTombstones() error {
	if len(s.tombs) == 0 || s.tombsRefused {
		return nil
	}
	ids := make([]string, 0, len(s.tombs))
	for id := range s.tombs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b bytes.Buffer
	b.WriteString("# memories forgotten: their ids, never their text (cairn sync)\n")
	for _, id := range ids {
		b.WriteString(id + "\n")
	}
	s.tsum = sum(b.Bytes())
	wrote, err := s.writeFile(TombstoneFile, b.Bytes())
	if wrote {
		s.touched = append(s.touched, TombstoneFile)
	}
	return err
}
