// Package exchange reads and writes the files cairn exports and imports.
//
// # JSON Lines
//
// One memory record per line: the same JSON object `cairn show --json`
// prints (see memory.Record), with its outgoing links in "edges". On
// import, "id" may be left out (cairn makes one), as may every field but
// "layer" and "body" or "title"; an unknown field, a bad value or a
// malformed line refuses the whole file, naming the line. Blank lines are
// skipped.
//
// # Markdown directory
//
// One file per memory at <letter>-<layer>/<id>.md (e.g.
// D-decision/01JD….md): YAML frontmatter between "---" lines holding every
// field of the record but the body, then the body exactly as stored.
// Links are Obsidian-style wiki links grouped by kind:
//
//	links:
//	  because: ["[[01JD…]]"]
//	  evidence: ["[[01JD…|0.5]]", "[[01JD…|0.8 historical]]"]
//
// After the "|" come the weight when it is not 1, and "historical" for an
// inactive link. The body starts on the line after the closing "---" and
// runs to the end of the file, byte for byte (a body need not end with a
// newline, and may itself contain "---" lines). Trust is computed, so it
// is not written.
package exchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"cairn/memory"
)

// LineError names the line of a JSON Lines input that refused it.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// WriteJSONL writes one record per line.
func WriteJSONL(w io.Writer, recs []memory.Record) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// ReadJSONL decodes every line strictly; the first bad line refuses all.
func ReadJSONL(r io.Reader) ([]memory.Record, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []memory.Record
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			rec, derr := decodeRecord(line)
			if derr != nil {
				return nil, &LineError{Line: n, Err: derr}
			}
			out = append(out, rec)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &LineError{Line: n, Err: err}
		}
	}
}

func decodeRecord(line []byte) (memory.Record, error) {
	var rec memory.Record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, jsonError(err)
	}
	if dec.More() {
		return rec, errors.New("more than one JSON value on the line")
	}
	return rec, validate(rec)
}

// jsonError rewords encoding/json's errors for a person.
func jsonError(err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", f)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(msg, "json: "))
	}
	return errors.New(strings.TrimPrefix(msg, "json: "))
}

// validate checks what a record alone can tell: values of the enumerations
// and that it says something.
func validate(r memory.Record) error {
	if r.Layer == 0 {
		return errors.New(`missing "layer": use A-F or ` + strings.Join(memory.LayerNames(), ", "))
	}
	if strings.TrimSpace(r.Body) == "" && strings.TrimSpace(r.Title) == "" {
		return errors.New(`the record has neither "body" nor "title"`)
	}
	if r.Kind != "" && !r.Kind.Valid() {
		return fmt.Errorf("unknown kind %q: use one of %s", r.Kind, strings.Join(memory.KindNames(), ", "))
	}
	if r.Provenance != "" && !r.Provenance.Valid() {
		return fmt.Errorf("unknown provenance %q: use one of %s", r.Provenance, strings.Join(memory.ProvenanceNames(), ", "))
	}
	if r.Status != "" && !r.Status.Valid() {
		return fmt.Errorf("unknown status %q: use one of %s", r.Status, strings.Join(memory.StatusNames(), ", "))
	}
	for _, e := range r.Edges {
		if !e.Kind.Valid() {
			return fmt.Errorf("unknown link kind %q: use one of %s", e.Kind, strings.Join(memory.EdgeKindNames(), ", "))
		}
		if e.To == "" {
			return fmt.Errorf("a %s link has no \"to\"", e.Kind)
		}
	}
	for _, w := range r.Watermarks {
		if err := w.Validate(); err != nil {
			return err
		}
	}
	return nil
}
