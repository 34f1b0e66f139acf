// Package mirror keeps a project's shared memories as markdown files in
// its repository (the team mirror, DESIGN §6), both ways: the store's
// memories are written out, and what teammates added, edited, moved or
// deleted in the files (after a git pull) is read back in. It speaks only
// memory.Store; where the files live and where the last sync's state is
// kept are the caller's.
//
// A file holds only what is the team's: never salience, access times,
// trust or watermark states, which change on every read and differ per
// machine. Same memories give byte-identical files, so a sync with nothing
// changed writes nothing and a git diff shows only real changes.
package mirror

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"cairn/exchange"
	"cairn/memory"
	"cairn/safetext"
)

// Entry is the team's view of one memory: what its file says.
type Entry struct {
	ID           string
	Layer        memory.Layer
	Kind         memory.Kind
	Title        string
	Body         string
	Provenance   memory.Provenance
	Tags         []string
	Status       memory.Status
	Watermarks   []Target // targets only: fingerprints and states are the machine's
	Triggers     []string
	ValidFrom    time.Time
	ValidUntil   time.Time
	Supersedes   []string
	SupersededBy string
	Version      int
	Created      time.Time
	Updated      time.Time
	Links        []Link // outgoing edges to other memories of the mirror
	History      []Past // earlier versions whose title or body differ, oldest first
}

// Target is what a watermark binds a memory to, without its state.
type Target struct {
	Kind   memory.WatermarkKind `yaml:"kind"`
	Target string               `yaml:"target,omitempty"`
}

// Link is an outgoing edge as the mirror keeps it.
type Link struct {
	Kind memory.EdgeKind
	To   string
}

// Past is an earlier version of a memory, kept readable in the file.
type Past struct {
	Version int    `yaml:"version"`
	Updated string `yaml:"updated"`
	Title   string `yaml:"title"`
	Body    string `yaml:"body,omitempty"`
}

// ShortID is the part of an id a file name carries: its last 8
// characters. A ULID's first 10 are its millisecond, which memories written
// together (an import, a consolidation run) share; its last 16 are random,
// so 8 of them (40 bits) tell apart the memories of any real project, and
// unlike the shortest unique prefix they never change when memories are
// added, so a file keeps its name.
func ShortID(id string) string {
	if len(id) <= 8 {
		return strings.ToLower(id)
	}
	return strings.ToLower(id[len(id)-8:])
}

// LayerDir is the folder of a layer's files ("A-invariant").
func LayerDir(l memory.Layer) string { return l.Letter() + "-" + l.String() }

// Slug is a readable file name part from a title: lower case letters and
// digits joined by single dashes, at most 60 bytes.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			if b.Len()+len(string(r)) > 60 {
				break
			}
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "memory"
	}
	return b.String()
}

// FileName is where e's file lives in the mirror, relative and with
// forward slashes: <layer dir>/<slug of title>-<short id>.md.
func FileName(e *Entry) string {
	return LayerDir(e.Layer) + "/" + Slug(e.Title) + "-" + ShortID(e.ID) + ".md"
}

// linkName is how a wiki link names a file: its name without ".md"
// (Obsidian resolves links by file name).
func linkName(path string) string {
	path = strings.TrimSuffix(path, ".md")
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[i+1:]
	}
	return path
}

// Hash identifies what a person can change in a file: everything but the
// version, the times and the history, which follow from the changes. It is
// how a sync tells which side changed a memory since the last one.
func Hash(e *Entry) string {
	h := sha256.New()
	w := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s", len(p), p)
		}
	}
	w(e.ID, string(e.Layer), string(e.Kind), e.Title, strings.TrimSpace(e.Body), string(e.Provenance),
		string(e.Status), stamp(e.ValidFrom), stamp(e.ValidUntil), e.SupersededBy)
	w(sorted(e.Tags)...)
	w("|")
	w(sorted(e.Triggers)...)
	w("|")
	w(sorted(e.Supersedes)...)
	w("|")
	for _, t := range e.Watermarks {
		w(string(t.Kind), t.Target)
	}
	w("|")
	for _, l := range sortLinks(e.Links) {
		w(string(l.Kind), l.To)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sortLinks(ls []Link) []Link {
	ls = slices.Clone(ls)
	slices.SortFunc(ls, func(a, b Link) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.To, b.To)
	})
	return slices.Compact(ls)
}

func stamp(t time.Time) string { return exchange.Stamp(t) }

// unstamp reads a time as the codec does (RFC 3339, or a date).
func unstamp(field, s string) (time.Time, error) {
	t, err := exchange.Unstamp(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", field, err)
	}
	return t, nil
}

// Render writes e as a markdown file, in the team profile of the one
// markdown codec (exchange.Encode): the team's fields only, and no time of
// the last edit (it would differ on every edit, so that two people's edits
// of one memory would always conflict in git; the version orders them,
// see Newer, and the history keeps each earlier version's time). names
// maps the ids e links to to their file names (for the link) and titles
// (for its label).
func Render(e *Entry, names map[string]string, titles map[string]string) ([]byte, error) {
	var links []exchange.SectionLink
	for _, l := range sortLinks(e.Links) {
		links = append(links, exchange.SectionLink{Kind: l.Kind, Target: linkName(names[l.To]), Label: linkLabel(titles[l.To])})
	}
	return exchange.Encode(e.record(), exchange.Team, links)
}

// record is e as the codec writes it.
func (e *Entry) record() memory.Record {
	r := memory.Record{ID: e.ID, Layer: e.Layer, Kind: e.Kind, Title: e.Title, Body: e.Body,
		Provenance: e.Provenance, Tags: e.Tags, Status: e.Status, Triggers: e.Triggers,
		ValidFrom: e.ValidFrom, Supersedes: e.Supersedes, SupersededBy: e.SupersededBy,
		Version: e.Version, CreatedAt: e.Created, UpdatedAt: e.Updated}
	if !e.ValidUntil.IsZero() {
		t := e.ValidUntil
		r.ValidUntil = &t
	}
	for _, t := range e.Watermarks {
		r.Watermarks = append(r.Watermarks, memory.Watermark{Kind: t.Kind, Target: t.Target})
	}
	for _, p := range e.History {
		at, _ := unstamp("updated", p.Updated)
		r.History = append(r.History, memory.Record{Version: p.Version, UpdatedAt: at, Title: p.Title, Body: p.Body})
	}
	return r
}

// Newer reports whether a is a newer version of one memory than b, as
// every clone decides it alike: the higher version; at equal versions
// (two people edited the same version) the later time of the last edit
// when both files say it (older files wrote one), then the one with more
// history, then the greater Hash — arbitrary but the same everywhere, so
// that every teammate's merge keeps the same side.
func Newer(a, b *Entry) bool {
	if a.Version != b.Version {
		return a.Version > b.Version
	}
	if !a.Updated.IsZero() && !b.Updated.IsZero() && !a.Updated.Equal(b.Updated) {
		return a.Updated.After(b.Updated)
	}
	if len(a.History) != len(b.History) {
		return len(a.History) > len(b.History)
	}
	return Hash(a) > Hash(b)
}

// linkLabel keeps a title from breaking the wiki link it labels.
func linkLabel(title string) string {
	r := strings.NewReplacer("[", "(", "]", ")", "|", "/", "\n", " ")
	return r.Replace(title)
}

// MaxFile bounds a mirror file: cairn writes far smaller ones.
const MaxFile = 1 << 20

// ConflictError is a file git could not merge: it holds conflict markers.
type ConflictError struct {
	Line int
	IDs  []string // the ids its frontmatter lines name, on either side
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("line %d: a git conflict marker: resolve the merge and sync again", e.Line)
}

// ErrNotMemory is a markdown file without frontmatter: a note a person
// keeps beside the memories, not one of them.
var ErrNotMemory = errors.New("no frontmatter: a mirror file starts with a \"---\" line")

// Parse reads a mirror file with the one markdown codec (exchange.ReadDoc,
// with its limits: at most 1 MiB here, bounded frontmatter, YAML tokens
// and nesting, no anchors, aliases or tags). resolve maps a wiki link's
// file name to the id it names ("" when it names none). A file that
// does not say when it was last edited (the team profile leaves that out)
// has Updated zero, or its creation time when it was never edited.
func Parse(b []byte, resolve func(name string) string) (*Entry, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("over %d bytes: is this a memory file?", MaxFile)
	}
	if err := conflictMarkers(b); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return nil, ErrNotMemory
	}
	d, err := exchange.ReadDoc(b, exchange.Team)
	if err != nil {
		return nil, err
	}
	if len(d.Unknown) > 0 {
		return nil, fmt.Errorf("frontmatter: unknown field %q: a mirror file holds only cairn's fields", safetext.CleanLine(d.Unknown[0].Name))
	}
	r := d.Record
	e := &Entry{ID: r.ID, Layer: r.Layer, Title: r.Title, Kind: r.Kind, Provenance: r.Provenance,
		Status: r.Status, Tags: r.Tags, Triggers: r.Triggers, ValidFrom: r.ValidFrom,
		Supersedes: r.Supersedes, SupersededBy: r.SupersededBy, Version: r.Version,
		Created: r.CreatedAt, Updated: r.UpdatedAt, Body: strings.TrimSpace(r.Body)}
	if e.Updated.IsZero() && e.Version <= 1 {
		e.Updated = e.Created // never edited
	}
	if r.ValidUntil != nil {
		e.ValidUntil = *r.ValidUntil
	}
	for _, w := range r.Watermarks {
		e.Watermarks = append(e.Watermarks, Target{Kind: w.Kind, Target: w.Target})
	}
	for _, h := range r.History {
		e.History = append(e.History, Past{Version: h.Version, Updated: stamp(h.UpdatedAt), Title: h.Title, Body: h.Body})
	}
	for _, l := range d.Section {
		if to := resolve(l.Target); to != "" { // a link to a file the mirror does not hold is dropped
			e.Links = append(e.Links, Link{Kind: l.Kind, To: to})
		}
	}
	return e, nil
}

// conflictMarkers refuses a file that holds a line git writes around an
// unmerged change, naming the first such line and the ids it holds.
func conflictMarkers(b []byte) error {
	at := 0
	var ids []string
	for n, line := range strings.Split(string(b), "\n") {
		if at == 0 && (strings.HasPrefix(line, "<<<<<<< ") || line == "<<<<<<<" ||
			strings.HasPrefix(line, ">>>>>>> ") || line == ">>>>>>>") {
			at = n + 1
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			ids = append(ids, strings.Trim(strings.TrimSpace(id), `"'`))
		}
	}
	if at == 0 {
		return nil
	}
	return &ConflictError{Line: at, IDs: ids}
}
