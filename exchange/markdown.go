package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"cairn/memory"
)

// FileError names the file of a markdown input that refused it.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// front is the YAML frontmatter of one memory file. Times are written as
// RFC 3339 strings with nanoseconds so they come back exactly.
type front struct {
	ID           string              `yaml:"id"`
	Ref          string              `yaml:"ref,omitempty"`
	Project      string              `yaml:"project,omitempty"`
	Layer        string              `yaml:"layer"`
	Kind         string              `yaml:"kind,omitempty"`
	Title        string              `yaml:"title"`
	Tags         []string            `yaml:"tags,omitempty"`
	Provenance   string              `yaml:"provenance,omitempty"`
	Confidence   float64             `yaml:"confidence,omitempty"`
	Status       string              `yaml:"status,omitempty"`
	Source       *source             `yaml:"source,omitempty"`
	CreatedAt    string              `yaml:"created_at,omitempty"`
	UpdatedAt    string              `yaml:"updated_at,omitempty"`
	ValidFrom    string              `yaml:"valid_from,omitempty"`
	ValidUntil   string              `yaml:"valid_until,omitempty"`
	Supersedes   []string            `yaml:"supersedes,omitempty"`
	SupersededBy string              `yaml:"superseded_by,omitempty"`
	Watermarks   []watermark         `yaml:"watermarks,omitempty"`
	RejectedAt   string              `yaml:"rejected_at,omitempty"`
	Triggers     []string            `yaml:"triggers,omitempty"`
	Salience     *salience           `yaml:"salience,omitempty"`
	Version      int                 `yaml:"version,omitempty"`
	Links        map[string][]string `yaml:"links,omitempty"`
}

type source struct {
	Actor   string `yaml:"actor,omitempty"`
	Session string `yaml:"session,omitempty"`
	File    string `yaml:"file,omitempty"`
	Line    int    `yaml:"line,omitempty"`
}

type watermark struct {
	Kind        string `yaml:"kind"`
	Target      string `yaml:"target,omitempty"`
	Fingerprint string `yaml:"fingerprint,omitempty"`
	State       string `yaml:"state"`
	StampedAt   string `yaml:"stamped_at,omitempty"`
}

type salience struct {
	AccessCount    int      `yaml:"access_count,omitempty"`
	Accesses       []string `yaml:"accesses,omitempty"`
	Reinforcements int      `yaml:"reinforcements,omitempty"`
}

// FileName is where a record lives inside an export directory.
func FileName(r memory.Record) string {
	return filepath.Join(r.Layer.Letter()+"-"+r.Layer.String(), r.ID+".md")
}

// WriteMarkdown writes each record to its own file under dir.
func WriteMarkdown(dir string, recs []memory.Record) error {
	for _, r := range recs {
		if r.ID == "" {
			return fmt.Errorf("a record without an id cannot be written as markdown")
		}
		b, err := EncodeMarkdown(r)
		if err != nil {
			return fmt.Errorf("%s: %w", r.ID, err)
		}
		p := filepath.Join(dir, FileName(r))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// EncodeMarkdown renders one record as frontmatter and body.
func EncodeMarkdown(r memory.Record) ([]byte, error) {
	f := front{
		ID: r.ID, Ref: r.Ref, Project: r.Project, Layer: r.Layer.String(), Kind: string(r.Kind),
		Title: r.Title, Tags: r.Tags, Provenance: string(r.Provenance), Confidence: r.Confidence,
		Status: string(r.Status), CreatedAt: stamp(r.CreatedAt), UpdatedAt: stamp(r.UpdatedAt),
		ValidFrom: stamp(r.ValidFrom), Supersedes: r.Supersedes, SupersededBy: r.SupersededBy,
		Triggers: r.Triggers, Version: r.Version,
	}
	if r.ValidUntil != nil {
		f.ValidUntil = stamp(*r.ValidUntil)
	}
	if r.RejectedAt != nil {
		f.RejectedAt = stamp(*r.RejectedAt)
	}
	if r.Source != (memory.Source{}) {
		f.Source = &source{string(r.Source.Actor), r.Source.Session, r.Source.File, r.Source.Line}
	}
	for _, w := range r.Watermarks {
		f.Watermarks = append(f.Watermarks, watermark{string(w.Kind), w.Target, w.Fingerprint, string(w.State), stamp(w.StampedAt)})
	}
	if s := r.Salience; s.AccessCount != 0 || s.Reinforcements != 0 || len(s.Accesses) > 0 {
		f.Salience = &salience{AccessCount: s.AccessCount, Reinforcements: s.Reinforcements}
		for _, t := range s.Accesses {
			f.Salience.Accesses = append(f.Salience.Accesses, stamp(t))
		}
	}
	for _, e := range r.Edges {
		if f.Links == nil {
			f.Links = map[string][]string{}
		}
		f.Links[string(e.Kind)] = append(f.Links[string(e.Kind)], wikiLink(e))
	}
	y, err := yaml.MarshalWithOptions(f, yaml.CustomMarshaler[string](quote))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n")
	b.WriteString(r.Body)
	return b.Bytes(), nil
}

// quote writes every string as a double-quoted scalar (JSON's quoting is
// valid YAML), so that titles made of spaces, tabs, colons or "---"
// survive exactly.
func quote(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wikiLink writes an edge as [[id|attributes]]: the weight when it is not
// 1, "historical" when inactive, and "@time" when the link was made.
func wikiLink(e memory.RecordEdge) string {
	var attrs []string
	if e.Weight != 0 && e.Weight != 1 {
		attrs = append(attrs, strconv.FormatFloat(e.Weight, 'g', -1, 64))
	}
	if e.Active != nil && !*e.Active {
		attrs = append(attrs, "historical")
	}
	if !e.CreatedAt.IsZero() {
		attrs = append(attrs, "@"+stamp(e.CreatedAt))
	}
	if len(attrs) == 0 {
		return "[[" + e.To + "]]"
	}
	return "[[" + e.To + "|" + strings.Join(attrs, " ") + "]]"
}

func parseWikiLink(kind, s string) (memory.RecordEdge, error) {
	e := memory.RecordEdge{Kind: memory.EdgeKind(kind)}
	inner, ok := strings.CutPrefix(strings.TrimSpace(s), "[[")
	if inner, ok = strings.CutSuffix(inner, "]]"); !ok {
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

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func unstamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, fmt.Errorf("time %q: use RFC 3339, e.g. 2026-03-02T10:00:00Z", s)
	}
	return t.UTC(), nil
}

// ReadMarkdown reads every .md file under dir, in path order.
func ReadMarkdown(dir string) ([]memory.Record, error) {
	recs, _, err := ReadMarkdownFiles(dir)
	return recs, err
}

// ReadMarkdownFiles is ReadMarkdown that also returns each record's file,
// relative to dir, for error messages.
func ReadMarkdownFiles(dir string) ([]memory.Record, []string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	var recs []memory.Record
	var rels []string
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, &FileError{rel, err}
		}
		r, err := DecodeMarkdown(b)
		if err != nil {
			return nil, nil, &FileError{rel, err}
		}
		recs = append(recs, r)
		rels = append(rels, rel)
	}
	return recs, rels, nil
}

// DecodeMarkdown parses one memory file.
func DecodeMarkdown(b []byte) (memory.Record, error) {
	var r memory.Record
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		rest, ok = bytes.CutPrefix(b, []byte("---\r\n"))
	}
	if !ok {
		return r, errors.New(`no frontmatter: the file must start with a "---" line`)
	}
	var head, body []byte
	if bytes.HasPrefix(rest, []byte("---\n")) {
		head, body = nil, rest[4:]
	} else if i := bytes.Index(rest, []byte("\n---\n")); i >= 0 {
		head, body = rest[:i+1], rest[i+5:]
	} else if bytes.HasSuffix(rest, []byte("\n---")) {
		head, body = rest[:len(rest)-3], nil
	} else {
		return r, errors.New(`the frontmatter is not closed by a "---" line`)
	}
	f, err := parseFront(head)
	if err != nil {
		return r, err
	}
	return f.record(string(body))
}

// parseFront decodes the frontmatter. go-yaml panics on some malformed
// input (e.g. an odd tag); that is bad input, not a crash.
func parseFront(head []byte) (f front, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("frontmatter: malformed YAML")
		}
	}()
	if err := yaml.UnmarshalWithOptions(head, &f, yaml.DisallowUnknownField()); err != nil {
		return f, fmt.Errorf("frontmatter: %s", firstLine(err.Error()))
	}
	return f, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (f front) record(body string) (memory.Record, error) {
	r := memory.Record{
		ID: f.ID, Ref: f.Ref, Project: f.Project, Kind: memory.Kind(f.Kind), Title: f.Title, Body: body,
		Tags: f.Tags, Provenance: memory.Provenance(f.Provenance), Confidence: f.Confidence,
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
		dst *time.Time
		src string
	}{{&r.CreatedAt, f.CreatedAt}, {&r.UpdatedAt, f.UpdatedAt}, {&r.ValidFrom, f.ValidFrom}} {
		if *t.dst, err = unstamp(t.src); err != nil {
			return r, err
		}
	}
	if f.ValidUntil != "" {
		t, err := unstamp(f.ValidUntil)
		if err != nil {
			return r, err
		}
		r.ValidUntil = &t
	}
	if f.RejectedAt != "" {
		t, err := unstamp(f.RejectedAt)
		if err != nil {
			return r, err
		}
		r.RejectedAt = &t
	}
	if f.Source != nil {
		r.Source = memory.Source{Actor: memory.Actor(f.Source.Actor), Session: f.Source.Session, File: f.Source.File, Line: f.Source.Line}
	}
	for _, w := range f.Watermarks {
		at, err := unstamp(w.StampedAt)
		if err != nil {
			return r, err
		}
		r.Watermarks = append(r.Watermarks, memory.Watermark{Kind: memory.WatermarkKind(w.Kind), Target: w.Target, Fingerprint: w.Fingerprint, State: memory.WatermarkState(w.State), StampedAt: at})
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
	kinds := make([]string, 0, len(f.Links))
	for k := range f.Links {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		for _, l := range f.Links[k] {
			e, err := parseWikiLink(k, l)
			if err != nil {
				return r, err
			}
			r.Edges = append(r.Edges, e)
		}
	}
	return r, validate(r)
}
