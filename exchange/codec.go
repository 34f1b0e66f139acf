package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"cairn/memory"
	"cairn/safetext"
)

// The markdown codec: one frontmatter reader and writer and one Links
// section reader and writer, for an export (`cairn export --format md`),
// an import of any markdown folder and the team mirror (`cairn sync`).
//
// A file is "---", YAML frontmatter, "---", a blank line, the body, and a
// "## Links" section of wiki links ("- because [[file|title]]"). Two
// profiles choose the fields: Full (an export: every field, exactly, the
// links exactly under `edges` too) and Team (the mirror: what the team
// shares, never what is one machine's or one person's — no source,
// confidence, salience, watermark fingerprints or states — and no field
// that changes on every edit, so that two people's edits of different
// parts of a memory merge in git).
//
// The reader takes every form cairn has written: `created`/`created_at`,
// `updated`/`updated_at`, a layer's letter or name, `- because [[x]]` and
// `- because: [[x]]`, links by kind in the frontmatter; and Obsidian's own
// fields: `aliases`, `tags` as a list or a string ("#money, #tax"), dates
// without a time.

// Profile is which fields a file carries.
type Profile int

const (
	// Full is an export: every field, exactly.
	Full Profile = iota
	// Team is the team mirror's file.
	Team
)

// SectionLink is one line of a Links section: "- kind [[target|label]]".
type SectionLink struct {
	Kind   memory.EdgeKind
	Target string // what the link names: a file name, a path or an id
	Label  string
}

// Doc is one markdown file as the codec reads it, before any check of
// what a memory needs (a mirror file may lack a layer, a note an id).
type Doc struct {
	Record memory.Record
	// Section is the Links section cut from the end of the body.
	Section []SectionLink
	// Aliases are other names of the note (Obsidian's `aliases`).
	Aliases []string
	// Unknown are the frontmatter's top-level fields the codec does not
	// know, in order, with their values.
	Unknown []Field
	// HasEdges: the frontmatter lists `edges` (even none).
	HasEdges bool
}

// Field is a frontmatter field the codec does not know.
type Field struct {
	Name  string
	Value any
}

// linksHeading opens the Links section.
const linksHeading = "## Links"

// Encode writes r in profile p, with links as its Links section.
// A Full file's body is exactly r.Body; a Team file's is trimmed.
func Encode(r memory.Record, p Profile, links []SectionLink) ([]byte, error) {
	fields := frontFields(r, p, false)
	body := r.Body
	if p == Team {
		body = strings.TrimSpace(body)
	} else if len(r.Edges) == 0 && hasSection(body) {
		// A body that ends as a Links section would be read as one:
		// `edges: []` says this file's links are all in the frontmatter.
		fields = append(fields, yaml.MapItem{Key: "edges", Value: []any{}})
	}
	opts := []yaml.EncodeOption{yaml.UseLiteralStyleIfMultiline(true), yaml.CustomMarshaler[string](plain)}
	if p == Full {
		opts = []yaml.EncodeOption{yaml.CustomMarshaler[string](quote)}
	}
	y, err := yaml.MarshalWithOptions(fields, opts...)
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		y = nil
	}
	// Write nothing that the reader would refuse (a memory with thousands
	// of links or a long history): say so now rather than when the file
	// is read back.
	if err := guardFront(y); err != nil {
		return nil, fmt.Errorf("cannot be written as markdown (%v): export as JSON Lines instead", err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n\n")
	if body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
	writeSection(&b, links, p)
	return b.Bytes(), nil
}

// plain writes a string as YAML does, readable, but double-quoted (as
// JSON quotes it) when a line's spaces at its ends or a tab or control
// character in it would be lost or changed in YAML's plain style, or
// go-yaml would read it bare as something else.
func plain(s string) ([]byte, error) {
	if !strings.Contains(s, "\n") && (s != strings.TrimSpace(s) || strings.ContainsFunc(s, unicode.IsControl) || misreadBare(s)) {
		return quote(s)
	}
	b, err := yaml.MarshalWithOptions(s, yaml.UseLiteralStyleIfMultiline(true))
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// misreadBare reports a line go-yaml writes bare but reads as something
// else: a document marker ("---", "..." and what follows them) or an
// explicit key ("? x").
func misreadBare(s string) bool {
	return strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") || strings.HasPrefix(s, "? ") || strings.HasPrefix(s, "?\t")
}

// frontFields is r's frontmatter in p, in the order it is written. A
// history entry (past) leads with its version, time and title.
func frontFields(r memory.Record, p Profile, past bool) yaml.MapSlice {
	f := &frontOut{}
	team := p == Team
	if f.head(r, team, past) {
		return f.s // a team's history entry: what it said, and when
	}
	f.str("kind", string(r.Kind))
	f.str("provenance", string(r.Provenance))
	if !team {
		f.add("confidence", r.Confidence, r.Confidence != 0)
	}
	f.str("status", string(r.Status))
	if !team && r.Source != (memory.Source{}) {
		f.add("source", sourceFields(r.Source), true)
	}
	tags := r.Tags
	if team {
		tags = slices.Sorted(slices.Values(tags))
	}
	f.list("tags", tags)
	ws := watermarkFields(r.Watermarks, team)
	f.add("watermarks", ws, len(ws) > 0)
	f.list("triggers", r.Triggers)
	f.times("valid_from", r.ValidFrom)
	if r.ValidUntil != nil {
		f.times("valid_until", *r.ValidUntil)
	}
	f.list("supersedes", r.Supersedes)
	f.str("superseded_by", r.SupersededBy)
	if !team {
		if r.RejectedAt != nil {
			f.times("rejected_at", *r.RejectedAt)
		}
		if r.ReopenedAt != nil {
			f.times("reopened_at", *r.ReopenedAt)
			f.str("reopened", r.Reopened)
		}
	}
	if past {
		f.times("created", r.CreatedAt)
		return f.s
	}
	f.add("version", r.Version, r.Version != 0)
	f.times("created", r.CreatedAt)
	if !team {
		// The team file leaves the time of the last edit out: it differs
		// on every edit, so two people's edits of one memory would always
		// conflict on it in git. The version and the history order them.
		f.times("updated", r.UpdatedAt)
		es := edgeFields(r.Edges)
		f.add("edges", es, len(es) > 0)
	}
	var hs []yaml.MapSlice
	for _, h := range r.History {
		if team {
			h.Body = strings.TrimSpace(h.Body)
		}
		hs = append(hs, frontFields(h, p, true))
	}
	f.add("history", hs, len(hs) > 0)
	return f.s
}

// frontOut is a frontmatter being written, field by field in order.
type frontOut struct{ s yaml.MapSlice }

// add writes key: v when keep.
func (f *frontOut) add(key string, v any, keep bool) {
	if keep {
		f.s = append(f.s, yaml.MapItem{Key: key, Value: v})
	}
}

func (f *frontOut) str(key, v string)             { f.add(key, v, v != "") }
func (f *frontOut) times(key string, t time.Time) { f.str(key, stamp(t)) }
func (f *frontOut) list(key string, v []string)   { f.add(key, v, len(v) > 0) }

// head writes the fields a record leads with: a history entry's version,
// time, title and body (for a team, all of it: done), else the id, the
// ref, the project, the title and the layer, as the profile keeps them.
func (f *frontOut) head(r memory.Record, team, past bool) (done bool) {
	switch {
	case past:
		f.add("version", r.Version, true)
		f.times("updated", r.UpdatedAt)
		f.add("title", r.Title, true)
		f.str("body", r.Body)
		if team {
			return true
		}
		f.str("ref", r.Ref)
		f.str("layer", layerOf(r.Layer))
	case team:
		f.str("id", r.ID)
		f.add("title", r.Title, true)
		f.add("layer", layerOf(r.Layer), true)
	default:
		f.str("id", r.ID)
		f.str("ref", r.Ref)
		f.str("project", r.Project)
		f.add("title", r.Title, true)
		f.str("layer", layerOf(r.Layer))
	}
	return false
}

// sourceFields is where a memory came from: actor, session, file, line.
func sourceFields(src memory.Source) yaml.MapSlice {
	var s yaml.MapSlice
	for _, kv := range []struct{ k, v string }{{"actor", string(src.Actor)}, {"session", src.Session}, {"file", src.File}} {
		if kv.v != "" {
			s = append(s, yaml.MapItem{Key: kv.k, Value: kv.v})
		}
	}
	if src.Line != 0 {
		s = append(s, yaml.MapItem{Key: "line", Value: src.Line})
	}
	if src.Message != "" {
		s = append(s, yaml.MapItem{Key: "message", Value: src.Message})
	}
	return s
}

// watermarkFields are a memory's bindings: kind and target, and for one
// person's export their fingerprint, state and when it was taken.
func watermarkFields(wms []memory.Watermark, team bool) []yaml.MapSlice {
	var ws []yaml.MapSlice
	for _, w := range wms {
		m := yaml.MapSlice{{Key: "kind", Value: string(w.Kind)}}
		if w.Target != "" {
			m = append(m, yaml.MapItem{Key: "target", Value: w.Target})
		}
		if !team {
			if w.Fingerprint != "" {
				m = append(m, yaml.MapItem{Key: "fingerprint", Value: w.Fingerprint})
			}
			m = append(m, yaml.MapItem{Key: "state", Value: string(w.State)})
			if s := stamp(w.StampedAt); s != "" {
				m = append(m, yaml.MapItem{Key: "stamped_at", Value: s})
			}
			if s := stamp(w.MovedAt); s != "" {
				m = append(m, yaml.MapItem{Key: "moved_at", Value: s})
			}
		}
		ws = append(ws, m)
	}
	return ws
}

// edgeFields are a memory's links: kind and target, a weight other than
// 1, whether it is historical, and when it was made.
func edgeFields(edges []memory.RecordEdge) []yaml.MapSlice {
	var es []yaml.MapSlice
	for _, e := range edges {
		m := yaml.MapSlice{{Key: "kind", Value: string(e.Kind)}, {Key: "to", Value: e.To}}
		if e.Weight != 1 && e.Weight != 0 {
			m = append(m, yaml.MapItem{Key: "weight", Value: e.Weight})
		}
		if e.Active != nil && !*e.Active {
			m = append(m, yaml.MapItem{Key: "historical", Value: true})
		}
		if s := stamp(e.CreatedAt); s != "" {
			m = append(m, yaml.MapItem{Key: "created_at", Value: s})
		}
		es = append(es, m)
	}
	return es
}

// layerOf is how a file names a layer: its letter ("" when none).
func layerOf(l memory.Layer) string {
	if !l.Valid() {
		return ""
	}
	return l.Letter()
}

// writeSection writes the Links section. A Team line always has a label
// (the target's title); a Full line has one when it says more than the
// target.
func writeSection(b *bytes.Buffer, links []SectionLink, p Profile) {
	if len(links) == 0 {
		return
	}
	b.WriteString("\n" + linksHeading + "\n\n")
	for _, l := range links {
		b.WriteString("- " + string(l.Kind) + " [[" + l.Target)
		if p == Team || (l.Label != "" && l.Label != l.Target) {
			b.WriteString("|" + l.Label)
		}
		b.WriteString("]]\n")
	}
}

// sectionAt finds the last Links section of text: where its heading's
// line starts, when every line after it is a link line or blank and at
// least one is a link; -1 otherwise.
func sectionAt(text string) (int, []SectionLink) {
	i := strings.LastIndex(text, "\n"+linksHeading+"\n")
	if i >= 0 {
		i++
	} else if strings.HasPrefix(text, linksHeading+"\n") {
		i = 0
	} else {
		return -1, nil
	}
	var links []SectionLink
	for _, line := range strings.Split(text[i+len(linksHeading)+1:], "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		l, ok := readLinkLine(line)
		if !ok {
			return -1, nil
		}
		links = append(links, l)
	}
	if len(links) == 0 {
		return -1, nil
	}
	return i, links
}

func hasSection(text string) bool {
	i, _ := sectionAt(text)
	return i >= 0
}

// readLinkLine reads "- kind [[target|label]]" or "- kind: [[…]]" (the
// form exports wrote).
func readLinkLine(line string) (SectionLink, bool) {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return SectionLink{}, false
	}
	kind, link, ok := strings.Cut(rest, " ")
	kind = strings.TrimSuffix(kind, ":")
	link = strings.TrimSpace(link)
	if !ok || !memory.EdgeKind(kind).Valid() || !strings.HasPrefix(link, "[[") || !strings.HasSuffix(link, "]]") {
		return SectionLink{}, false
	}
	inner := link[2 : len(link)-2]
	if strings.Contains(inner, "]]") || strings.Contains(inner, "[[") {
		return SectionLink{}, false
	}
	target, label, _ := strings.Cut(inner, "|")
	return SectionLink{Kind: memory.EdgeKind(kind), Target: target, Label: label}, true
}

// SplitFrontmatter parts a file into its frontmatter and what follows;
// ok is false when the file does not start with a "---" line.
func SplitFrontmatter(b []byte) (head, rest []byte, ok bool, err error) {
	rest, ok = bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		rest, ok = bytes.CutPrefix(b, []byte("---\r\n"))
	}
	if !ok {
		return nil, nil, false, nil
	}
	switch {
	case bytes.HasPrefix(rest, []byte("---\n")):
		return nil, rest[4:], true, nil
	case bytes.Equal(rest, []byte("---")):
		return nil, nil, true, nil
	}
	if i := bytes.Index(rest, []byte("\n---\n")); i >= 0 {
		return rest[:i+1], rest[i+5:], true, nil
	}
	if bytes.HasSuffix(rest, []byte("\n---")) {
		return rest[:len(rest)-3], nil, true, nil
	}
	return nil, nil, true, errors.New(`the frontmatter is not closed by a "---" line`)
}

// ReadDoc reads one markdown file. A Team reader cuts a Links section
// wherever it ends the body; a Full reader cuts the section cairn wrote
// (see bodyOf). It refuses a file over MaxFile, invalid UTF-8, a file
// without frontmatter and frontmatter that is hostile (see guardFront).
func ReadDoc(b []byte, p Profile) (*Doc, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("the file is over %s: is it a memory file?", size(MaxFile))
	}
	// goccy/go-yaml and the body alike would keep invalid UTF-8 as it is.
	if !utf8.Valid(b) {
		return nil, safetext.Valid("the file", string(b))
	}
	head, rest, ok, err := SplitFrontmatter(b)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New(`no frontmatter: the file must start with a "---" line`)
	}
	f, unknown, err := parseFront(head)
	if err != nil {
		return nil, err
	}
	if f.Body != "" {
		return nil, errors.New(`frontmatter: "body" belongs in a history entry; the memory's own body follows the frontmatter`)
	}
	d := &Doc{Aliases: f.Aliases.clean(false), Unknown: unknown, HasEdges: f.edgesKey}
	text := string(rest)
	body, section := bodyOf(text, f, p)
	d.Section = section
	if d.Record, err = f.record(body); err != nil {
		return nil, err
	}
	for _, h := range f.History {
		if len(h.Edges) > 0 || len(h.Links) > 0 || len(h.History) > 0 {
			return nil, errors.New("frontmatter: a history entry holds no links or history of its own")
		}
		v, err := h.record(h.Body)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		// A history entry of the team file says only what changed.
		if v.Layer == 0 {
			v.Layer = d.Record.Layer
		}
		if v.Kind == "" {
			v.Kind = d.Record.Kind
		}
		d.Record.History = append(d.Record.History, v)
	}
	return d, nil
}

// bodyOf parts what follows the frontmatter into the body and the Links
// section. cairn writes a blank line, the body and a newline, then the
// section; exports made before wrote the body right after the "---" line
// and the section after a blank line. A Full file's section is cut only
// when cairn wrote it: when the frontmatter lists links that are active
// (or, in an old export, any links), or lists none at all and the file
// has an id (a team file's links are only in its section). Otherwise a
// "## Links" at the end is the body's own.
func bodyOf(text string, f front, p Profile) (string, []SectionLink) {
	layered := strings.HasPrefix(text, "\n") // the current layout
	i, links := sectionAt(text)
	if i >= 0 && p == Full {
		active := 0
		for _, e := range f.Edges {
			if !e.Historical {
				active++
			}
		}
		cut := false
		switch {
		case !layered:
			cut = len(f.Edges) > 0
		case f.edgesKey || len(f.Links) > 0:
			cut = active > 0
		default:
			cut = f.ID != ""
		}
		if !cut {
			i = -1
		}
	}
	if i < 0 {
		links = nil
	} else {
		text = text[:i]
	}
	if !layered {
		// An old export: the body as it was, the section after "\n\n".
		if i >= 0 {
			text = strings.TrimSuffix(text, "\n\n")
		}
		return text, links
	}
	text = strings.TrimPrefix(text, "\n")
	if i >= 0 {
		text = strings.TrimSuffix(text, "\n") // the section's blank line
	}
	return strings.TrimSuffix(text, "\n"), links
}

// front is what a frontmatter may hold, in every form cairn has written
// and the fields of Obsidian it understands.
type front struct {
	ID           string      `yaml:"id"`
	Ref          string      `yaml:"ref"`
	Project      string      `yaml:"project"`
	Layer        string      `yaml:"layer"`
	Kind         string      `yaml:"kind"`
	Title        string      `yaml:"title"`
	Aliases      stringList  `yaml:"aliases"`
	Tags         stringList  `yaml:"tags"`
	Provenance   string      `yaml:"provenance"`
	Confidence   float64     `yaml:"confidence"`
	Status       string      `yaml:"status"`
	Source       *source     `yaml:"source"`
	Created      string      `yaml:"created"`
	CreatedAt    string      `yaml:"created_at"`
	Updated      string      `yaml:"updated"`
	UpdatedAt    string      `yaml:"updated_at"`
	ValidFrom    string      `yaml:"valid_from"`
	ValidUntil   string      `yaml:"valid_until"`
	Supersedes   []string    `yaml:"supersedes"`
	SupersededBy string      `yaml:"superseded_by"`
	Watermarks   []watermark `yaml:"watermarks"`
	RejectedAt   string      `yaml:"rejected_at"`
	ReopenedAt   string      `yaml:"reopened_at"`
	Reopened     string      `yaml:"reopened"`
	Triggers     []string    `yaml:"triggers"`
	// Salience is read from exports made before it was left out (it
	// changes on every recall), never written.
	Salience *salience `yaml:"salience"`
	Version  int       `yaml:"version"`
	// Links is the old form of edges ([[id|weight historical @time]] by
	// kind), still read.
	Links map[string][]string `yaml:"links"`
	Edges []edge              `yaml:"edges"`
	// History is the earlier versions, oldest first, each with its body.
	History []front `yaml:"history"`
	// Body is set only in a History entry.
	Body string `yaml:"body"`
	// edgesKey: the frontmatter has an `edges` key, even an empty one.
	edgesKey bool
}

// knownFields are the top-level keys front reads.
var knownFields = map[string]bool{
	"id": true, "ref": true, "project": true, "layer": true, "kind": true, "title": true, "aliases": true,
	"tags": true, "provenance": true, "confidence": true, "status": true, "source": true, "created": true,
	"created_at": true, "updated": true, "updated_at": true, "valid_from": true, "valid_until": true,
	"supersedes": true, "superseded_by": true, "watermarks": true, "rejected_at": true, "reopened_at": true,
	"reopened": true, "triggers": true, "salience": true, "version": true, "links": true, "edges": true,
	"history": true, "body": true,
}

// edge is one outgoing link, exactly; the Links section shows it to a
// reader (and Obsidian) by the target's title.
type edge struct {
	Kind       string  `yaml:"kind"`
	To         string  `yaml:"to"`
	Weight     float64 `yaml:"weight,omitempty"`
	Historical bool    `yaml:"historical,omitempty"`
	CreatedAt  string  `yaml:"created_at,omitempty"`
}

type source struct {
	Actor   string `yaml:"actor,omitempty"`
	Session string `yaml:"session,omitempty"`
	File    string `yaml:"file,omitempty"`
	Line    int    `yaml:"line,omitempty"`
	Message string `yaml:"message,omitempty"`
}

type watermark struct {
	Kind        string `yaml:"kind"`
	Target      string `yaml:"target,omitempty"`
	Fingerprint string `yaml:"fingerprint,omitempty"`
	State       string `yaml:"state"`
	StampedAt   string `yaml:"stamped_at,omitempty"`
	MovedAt     string `yaml:"moved_at,omitempty"`
}

type salience struct {
	AccessCount    int      `yaml:"access_count,omitempty"`
	Accesses       []string `yaml:"accesses,omitempty"`
	Reinforcements int      `yaml:"reinforcements,omitempty"`
}

// stringList is a list of strings written as a YAML list or as one string
// (Obsidian writes `tags: "#money #tax"` and `aliases: Other name`).
type stringList struct {
	items []string
	one   bool // written as one string
}

func (l *stringList) UnmarshalYAML(unmarshal func(any) error) error {
	var list []string
	lerr := unmarshal(&list)
	if lerr == nil {
		l.items = list
		return nil
	}
	var s string
	if err := unmarshal(&s); err != nil {
		return lerr // a list of something else
	}
	l.items, l.one = []string{s}, true
	return nil
}

// clean is the list's names: trimmed, none empty. As tags, a string is
// split at spaces and commas, and a leading "#" (Obsidian's) is dropped.
func (l stringList) clean(tags bool) []string {
	var out []string
	for _, s := range l.items {
		parts := []string{s}
		if tags && l.one {
			parts = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if tags {
				p = strings.TrimPrefix(p, "#")
			}
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// parseFront decodes the frontmatter, and lists the top-level fields it
// does not know. go-yaml panics on some malformed input (e.g. an odd
// tag); that is bad input, not a crash.
func parseFront(head []byte) (f front, unknown []Field, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("frontmatter: malformed YAML")
		}
	}()
	if err := guardFront(head); err != nil {
		return f, nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return f, nil, nil
	}
	var top yaml.MapSlice
	if err := yaml.Unmarshal(head, &top); err != nil {
		return f, nil, yamlError(err)
	}
	known := top[:0:0]
	for _, it := range top {
		k, _ := it.Key.(string)
		if knownFields[k] {
			known = append(known, it)
			f.edgesKey = f.edgesKey || k == "edges"
		} else {
			unknown = append(unknown, Field{Name: fmt.Sprint(it.Key), Value: it.Value})
		}
	}
	if len(unknown) > 0 {
		// Read what is known without the rest (its line numbers may
		// differ from the file's).
		if head, err = yaml.Marshal(known); err != nil {
			return f, nil, fmt.Errorf("frontmatter: %s", firstLine(err.Error()))
		}
	}
	edgesKey := f.edgesKey
	if err := yaml.UnmarshalWithOptions(head, &f, yaml.DisallowUnknownField()); err != nil {
		return f, nil, yamlError(err)
	}
	f.edgesKey = edgesKey
	return f, unknown, nil
}

func (f front) record(body string) (memory.Record, error) {
	r := memory.Record{
		ID: f.ID, Ref: f.Ref, Project: f.Project, Kind: memory.Kind(f.Kind), Title: f.Title, Body: body,
		Tags: f.Tags.clean(true), Provenance: memory.Provenance(f.Provenance), Confidence: f.Confidence,
		Status: memory.Status(f.Status), Supersedes: f.Supersedes, SupersededBy: f.SupersededBy,
		Triggers: f.Triggers, Version: f.Version,
	}
	var err error
	if f.Layer != "" {
		if r.Layer, err = memory.ParseLayer(f.Layer); err != nil {
			return r, err
		}
	}
	for _, t := range []struct {
		dst  *time.Time
		name string
		src  []string
	}{{&r.CreatedAt, "created", []string{f.Created, f.CreatedAt}}, {&r.UpdatedAt, "updated", []string{f.Updated, f.UpdatedAt}}, {&r.ValidFrom, "valid_from", []string{f.ValidFrom}}} {
		for _, s := range t.src {
			if s == "" {
				continue
			}
			if *t.dst, err = unstamp(s); err != nil {
				return r, fmt.Errorf("%s: %w", t.name, err)
			}
			break
		}
	}
	for _, t := range []struct {
		dst **time.Time
		src string
	}{{&r.ValidUntil, f.ValidUntil}, {&r.RejectedAt, f.RejectedAt}, {&r.ReopenedAt, f.ReopenedAt}} {
		if t.src == "" {
			continue
		}
		at, err := unstamp(t.src)
		if err != nil {
			return r, err
		}
		*t.dst = &at
	}
	if r.ReopenedAt != nil {
		r.Reopened = f.Reopened
	}
	if f.Source != nil {
		r.Source = memory.Source{Actor: memory.Actor(f.Source.Actor), Session: f.Source.Session, File: f.Source.File, Line: f.Source.Line, Message: f.Source.Message}
	}
	for _, w := range f.Watermarks {
		at, err := unstamp(w.StampedAt)
		if err != nil {
			return r, err
		}
		moved, err := unstamp(w.MovedAt)
		if err != nil {
			return r, err
		}
		r.Watermarks = append(r.Watermarks, memory.Watermark{Kind: memory.WatermarkKind(w.Kind), Target: w.Target, Fingerprint: w.Fingerprint, State: memory.WatermarkState(w.State), StampedAt: at, MovedAt: moved})
	}
	if s := f.Salience; s != nil {
		r.Salience = memory.Salience{AccessCount: s.AccessCount, Reinforcements: s.Reinforcements}
		for _, a := range s.Accesses {
			t, err := unstamp(a)
			if err != nil {
				return r, err
			}
			r.Salience.Accesses = append(r.Salience.Accesses, t)
		}
	}
	for _, e := range f.Edges {
		at, err := unstamp(e.CreatedAt)
		if err != nil {
			return r, err
		}
		re := memory.RecordEdge{Kind: memory.EdgeKind(e.Kind), To: e.To, Weight: e.Weight, CreatedAt: at}
		if e.Historical {
			inactive := false
			re.Active = &inactive
		}
		r.Edges = append(r.Edges, re)
	}
	kinds := make([]string, 0, len(f.Links))
	for k := range f.Links {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		for _, l := range f.Links[k] {
			e, err := parseWikiLink(k, l)
			if err != nil {
				return r, err
			}
			r.Edges = append(r.Edges, e)
		}
	}
	return r, nil
}

// parseWikiLink reads a link of the old frontmatter form,
// [[id|attributes]]: the weight when it is not 1, "historical" when
// inactive, and "@time" when the link was made.
func parseWikiLink(kind, s string) (memory.RecordEdge, error) {
	e := memory.RecordEdge{Kind: memory.EdgeKind(kind)}
	inner, open := strings.CutPrefix(strings.TrimSpace(s), "[[")
	inner, closed := strings.CutSuffix(inner, "]]")
	if !open || !closed {
		return e, fmt.Errorf("link %q is not a [[wiki link]]", s)
	}
	to, attrs, _ := strings.Cut(inner, "|")
	e.To = strings.TrimSpace(to)
	if e.To == "" {
		return e, fmt.Errorf("link %q names no memory", s)
	}
	for _, a := range strings.Fields(attrs) {
		switch {
		case a == "historical":
			f := false
			e.Active = &f
		case strings.HasPrefix(a, "@"):
			t, err := unstamp(a[1:])
			if err != nil {
				return e, fmt.Errorf("link %q: %w", s, err)
			}
			e.CreatedAt = t
		default:
			w, err := strconv.ParseFloat(a, 64)
			if err != nil {
				return e, fmt.Errorf("link %q: %q is neither a weight, \"historical\" nor @time", s, a)
			}
			e.Weight = w
		}
	}
	return e, nil
}

// Stamp writes a time as the codec does: RFC 3339 in UTC with
// nanoseconds, so that it comes back exactly ("" for none).
func Stamp(t time.Time) string { return stamp(t) }

// Unstamp reads a time as the codec does (see unstamp).
func Unstamp(s string) (time.Time, error) { return unstamp(s) }

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// timeForms are the times a person or Obsidian writes besides RFC 3339:
// a date, or a date and time without a zone (read as UTC).
var timeForms = []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

func unstamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	for _, form := range timeForms {
		if t, err := time.Parse(form, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: use RFC 3339 (2026-03-02T10:00:00Z) or a date (2026-03-02)", s)
}
