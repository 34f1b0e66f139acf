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

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"cairn/memory"
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

// front is a file's frontmatter, in the order it is written.
type front struct {
	ID           string   `yaml:"id"`
	Title        string   `yaml:"title"`
	Layer        string   `yaml:"layer"`
	Kind         string   `yaml:"kind,omitempty"`
	Provenance   string   `yaml:"provenance,omitempty"`
	Status       string   `yaml:"status,omitempty"`
	Tags         []string `yaml:"tags,omitempty"`
	Watermarks   []Target `yaml:"watermarks,omitempty"`
	Triggers     []string `yaml:"triggers,omitempty"`
	ValidFrom    string   `yaml:"valid_from,omitempty"`
	ValidUntil   string   `yaml:"valid_until,omitempty"`
	Supersedes   []string `yaml:"supersedes,omitempty"`
	SupersededBy string   `yaml:"superseded_by,omitempty"`
	Version      int      `yaml:"version,omitempty"`
	Created      string   `yaml:"created,omitempty"`
	Updated      string   `yaml:"updated,omitempty"`
	History      []Past   `yaml:"history,omitempty"`
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

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func unstamp(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time", field, s)
	}
	return t.UTC(), nil
}

// linksHeading opens the section of wiki links at the end of a body.
const linksHeading = "## Links"

// Render writes e as a markdown file. names maps the ids e links to to
// their file names (for the link) and titles (for its label).
func Render(e *Entry, names map[string]string, titles map[string]string) ([]byte, error) {
	f := front{
		ID: e.ID, Title: e.Title, Layer: e.Layer.Letter(), Kind: string(e.Kind),
		Provenance: string(e.Provenance), Status: string(e.Status), Tags: sorted(e.Tags),
		Watermarks: e.Watermarks, Triggers: e.Triggers,
		ValidFrom: stamp(e.ValidFrom), ValidUntil: stamp(e.ValidUntil),
		Supersedes: e.Supersedes, SupersededBy: e.SupersededBy, Version: e.Version,
		Created: stamp(e.Created), Updated: stamp(e.Updated), History: e.History,
	}
	if !e.Layer.Valid() {
		f.Layer = "" // a file read from outside a layer's folder
	}
	head, err := yaml.MarshalWithOptions(f, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(head)
	b.WriteString("---\n\n")
	if body := strings.TrimSpace(e.Body); body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
	if len(e.Links) > 0 {
		b.WriteString("\n" + linksHeading + "\n\n")
		for _, l := range sortLinks(e.Links) {
			fmt.Fprintf(&b, "- %s [[%s|%s]]\n", l.Kind, linkName(names[l.To]), linkLabel(titles[l.To]))
		}
	}
	return b.Bytes(), nil
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

// Parse reads a mirror file. resolve maps a wiki link's file name to the
// id it names ("" when it names none).
func Parse(b []byte, resolve func(name string) string) (*Entry, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("over %d bytes: is this a memory file?", MaxFile)
	}
	if err := conflictMarkers(b); err != nil {
		return nil, err
	}
	s := string(b)
	if !strings.HasPrefix(s, "---\n") {
		return nil, ErrNotMemory
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, fmt.Errorf("frontmatter not closed by a \"---\" line")
	}
	head, body := s[4:4+end+1], s[4+end+5:]
	if err := guard(head); err != nil {
		return nil, err
	}
	var f front
	if err := yaml.UnmarshalWithOptions([]byte(head), &f, yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("frontmatter: %s", firstLine(err.Error()))
	}
	e := &Entry{ID: f.ID, Title: f.Title, Kind: memory.Kind(f.Kind), Provenance: memory.Provenance(f.Provenance),
		Status: memory.Status(f.Status), Tags: f.Tags, Watermarks: f.Watermarks, Triggers: f.Triggers,
		Supersedes: f.Supersedes, SupersededBy: f.SupersededBy, Version: f.Version, History: f.History}
	if f.Layer != "" {
		l, err := memory.ParseLayer(f.Layer)
		if err != nil {
			return nil, fmt.Errorf("layer: %v", err)
		}
		e.Layer = l
	}
	var err error
	for _, t := range []struct {
		name string
		s    string
		to   *time.Time
	}{{"valid_from", f.ValidFrom, &e.ValidFrom}, {"valid_until", f.ValidUntil, &e.ValidUntil},
		{"created", f.Created, &e.Created}, {"updated", f.Updated, &e.Updated}} {
		if *t.to, err = unstamp(t.name, t.s); err != nil {
			return nil, err
		}
	}
	e.Body, e.Links, err = splitLinks(body, resolve)
	return e, err
}

// splitLinks takes the links section off the end of a body: a "## Links"
// heading followed only by link lines, at least one. A body whose last
// such heading is followed by anything else (or nothing) keeps it as text.
func splitLinks(body string, resolve func(string) string) (string, []Link, error) {
	i := strings.LastIndex(body, "\n"+linksHeading+"\n")
	if i < 0 && strings.HasPrefix(body, linksHeading+"\n") {
		i = -1
	} else if i < 0 {
		return strings.TrimSpace(body), nil, nil
	}
	var links []Link
	seen := 0
	for _, line := range strings.Split(body[i+1+len(linksHeading):], "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		l, ok := parseLink(line, resolve)
		if !ok {
			return strings.TrimSpace(body), nil, nil
		}
		seen++
		if l.To != "" {
			links = append(links, l)
		}
	}
	if seen == 0 { // a heading with no links under it is the body's own
		return strings.TrimSpace(body), nil, nil
	}
	return strings.TrimSpace(body[:max(i, 0)]), links, nil
}

// parseLink reads "- kind [[name|label]]"; a link to a file the mirror
// does not hold is kept as text nowhere (To is empty).
func parseLink(line string, resolve func(string) string) (Link, bool) {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return Link{}, false
	}
	kind, target, ok := strings.Cut(rest, " ")
	if !ok || !memory.EdgeKind(kind).Valid() {
		return Link{}, false
	}
	target, ok = strings.CutPrefix(target, "[[")
	if !ok || !strings.HasSuffix(target, "]]") {
		return Link{}, false
	}
	name, _, _ := strings.Cut(strings.TrimSuffix(target, "]]"), "|")
	return Link{Kind: memory.EdgeKind(kind), To: resolve(name)}, true
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

// guard refuses YAML that a mirror file never holds and that costs a
// reader dearly (anchors and aliases can multiply a small input) or
// changes what a value means (tags).
func guard(head string) error {
	if len(head) > 64<<10 {
		return fmt.Errorf("frontmatter over 64 KiB: is this a memory file?")
	}
	for _, t := range lexer.Tokenize(head) {
		switch t.Type {
		case token.AnchorType, token.AliasType, token.MergeKeyType, token.TagType, token.DirectiveType:
			line := 0
			if t.Position != nil {
				line = t.Position.Line + 1
			}
			return fmt.Errorf("line %d: YAML anchors, aliases, tags and directives are not read: write each value out", line)
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
