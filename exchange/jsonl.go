// Package exchange reads and writes the files cairn exports and imports.
//
// # JSON Lines
//
// One memory record per line: the same JSON object `cairn show --json`
// prints (see memory.Record), with its outgoing links in "edges" and its
// earlier versions, oldest first, in "history"; then the project's
// timeline, one {"event": {…}} record per line, oldest first. On
// import, "id" may be left out (cairn makes one), as may every field but
// "layer" and "body" or "title"; an unknown field, a bad value or a
// malformed line refuses the whole file, naming the line. Blank lines are
// skipped.
//
// # Markdown directory
//
// One file per memory, named for a person: <letter>-<layer>/<slug of the
// title>-<last 8 characters of the id>.md (e.g.
// D-decision/park-mtp-net-negative-on-moe-k3x9q2ab.md); a layer of more
// than about 1,000 memories is spread over subfolders named by the last
// character (or two) of the id. YAML frontmatter between "---" lines holds
// every field of the record but the body, its salience (which changes on
// every recall) and its trust (computed); "edges" lists the outgoing links
// exactly and "history" the earlier versions, each with its "body". The
// body follows exactly as stored (it need not end with a newline, and may
// itself contain "---" lines), then, when the memory has links, a Links
// section that Obsidian's graph and backlinks read:
//
//	## Links
//
//	- because: [[C-episode/bench-41-k3x9q2ab|bench 41]]
//
// Import strips that section again when the frontmatter lists edges. The
// timeline is kept beside the folders in timeline.jsonl (TimelineFile),
// the JSON Lines event records, which an import reads after the memories.
// The
// same memories always give the same bytes, and an export rewrites no file
// whose bytes would not change. Old exports (links as "[[id|0.5
// historical @time]]" by kind under "links", salience) are still read.
//
// Import reads any folder of notes: a file is a memory when its
// frontmatter names a layer; everything else (notes without frontmatter or
// with another program's, other files, hidden directories such as
// .obsidian/, .trash/ and .git/) is counted and passed over. Wiki links in
// a body ([[Title]], [[Title|label]], [[short-id]], [[file-name]]) are
// listed for the importer to make edges of (see BodyLinks).
package exchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"cairn/memory"
	"cairn/safetext"
)

// LineError names the line of a JSON Lines input that refused it.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// WriteJSONL writes one record per line; a timeline record as
// {"event": {…}} alone.
func WriteJSONL(w io.Writer, recs []memory.Record) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		var err error
		if e := r.Event; e != nil {
			err = enc.Encode(eventLine{eventOut{e.ID, e.Project, e.Time, e.Actor, e.Kind, e.MemoryID, e.Summary}})
		} else {
			err = enc.Encode(r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// eventLine is how a timeline record is written: the event, without the
// empty fields of a memory record or the title a timeline read fills.
type eventLine struct {
	Event eventOut `json:"event"`
}

type eventOut struct {
	ID       string           `json:"id"`
	Project  string           `json:"project,omitempty"`
	Time     time.Time        `json:"time"`
	Actor    memory.Actor     `json:"actor"`
	Kind     memory.EventKind `json:"kind"`
	MemoryID string           `json:"memory_id,omitempty"`
	Summary  string           `json:"summary"`
}

// ReadJSONL decodes every line strictly; the first bad line refuses all.
func ReadJSONL(r io.Reader) ([]memory.Record, error) {
	recs, _, err := ReadJSONLLines(r)
	return recs, err
}

// ReadJSONLLines is ReadJSONL that also returns the line each record came
// from, for error messages. A line longer than MaxLine is refused without
// reading the rest of it.
func ReadJSONLLines(r io.Reader) ([]memory.Record, []int, error) {
	jr := NewJSONLReader(r)
	var out []memory.Record
	for {
		recs, err := jr.Next(1 << 10)
		out = append(out, recs...)
		if errors.Is(err, io.EOF) {
			return out, jr.lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// JSONLReader reads JSON Lines a chunk of records at a time, so that an
// import holds a chunk, not the file. It keeps the line of every record
// it has read (Line), which is what an error names.
type JSONLReader struct {
	br    *bufio.Reader
	n     int   // lines read
	lines []int // the line of each record read
	read  int64 // bytes read
	done  bool
}

// NewJSONLReader reads JSON Lines from r.
func NewJSONLReader(r io.Reader) *JSONLReader {
	return &JSONLReader{br: bufio.NewReaderSize(r, 1<<16)}
}

// Next decodes up to n more records, strictly; after the last it returns
// io.EOF. A bad line is a *LineError, and ends the reading.
func (jr *JSONLReader) Next(n int) ([]memory.Record, error) {
	var out []memory.Record
	for len(out) < n && !jr.done {
		jr.n++
		line, err := readLine(jr.br, MaxLine)
		jr.read += int64(len(line))
		if errors.Is(err, errLongLine) {
			jr.done = true
			return nil, &LineError{Line: jr.n, Err: err}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			rec, derr := decodeRecord(line)
			if derr != nil {
				jr.done = true
				return nil, &LineError{Line: jr.n, Err: derr}
			}
			out = append(out, rec)
			jr.lines = append(jr.lines, jr.n)
		}
		if errors.Is(err, io.EOF) {
			jr.done = true
		} else if err != nil {
			jr.done = true
			return nil, &LineError{Line: jr.n, Err: err}
		}
	}
	if len(out) == 0 && jr.done {
		return nil, io.EOF
	}
	return out, nil
}

// Line is the line record i (0-based, in the order read) came from.
func (jr *JSONLReader) Line(i int) int {
	if i < 0 || i >= len(jr.lines) {
		return 0
	}
	return jr.lines[i]
}

// Read is how many bytes have been read.
func (jr *JSONLReader) Read() int64 { return jr.read }

var errLongLine = fmt.Errorf("the line is longer than %s: each line holds one memory record (is this a JSON Lines export?)", size(MaxLine))

// readLine reads up to and including the next newline, refusing a line of
// more than max bytes before it has read more than that.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// ReadJSONLFile reads a JSON Lines file, which must be a regular file of at
// most MaxImport bytes; see ReadJSONLLines.
func ReadJSONLFile(path string) ([]memory.Record, []int, error) {
	f, err := OpenJSONL(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var out []memory.Record
	for {
		recs, err := f.Next(1 << 10)
		out = append(out, recs...)
		if errors.Is(err, io.EOF) {
			return out, f.lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// JSONLFile is a JSON Lines file being read a chunk at a time.
type JSONLFile struct {
	*JSONLReader
	f    *os.File
	lr   *io.LimitedReader
	Size int64 // its size when opened
}

var errTooBig = fmt.Errorf("is over %s: split it into several files and import each", size(MaxImport))

// OpenJSONL opens a JSON Lines file for reading, which must be a regular
// file of at most MaxImport bytes (Next refuses one that grows past it).
func OpenJSONL(path string) (*JSONLFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode(), hintImportPath)
	}
	f, sz, err := openRegular(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, hintImportPath)
	if err != nil {
		return nil, pathError(err)
	}
	if sz > MaxImport {
		f.Close()
		return nil, errTooBig
	}
	lr := &io.LimitedReader{R: f, N: MaxImport + 1}
	return &JSONLFile{JSONLReader: NewJSONLReader(lr), f: f, lr: lr, Size: sz}, nil
}

// Next is JSONLReader.Next, refusing a file that grew past MaxImport.
func (f *JSONLFile) Next(n int) ([]memory.Record, error) {
	recs, err := f.JSONLReader.Next(n)
	if f.lr.N <= 0 {
		// It grew past the limit while being read; whatever the last,
		// cut line said, the size is the reason.
		return nil, errTooBig
	}
	return recs, err
}

// Close closes the file.
func (f *JSONLFile) Close() error { return f.f.Close() }

func decodeRecord(line []byte) (memory.Record, error) {
	var rec memory.Record
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD.
	if !utf8.Valid(line) {
		return rec, safetext.Valid("the line", string(line))
	}
	if t := bytes.TrimSpace(line); t[0] != '{' {
		return rec, errors.New(`not a JSON object: each line holds one memory record, {"layer": …, "body": …}`)
	}
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
	if r.Event != nil {
		return validateEvent(r)
	}
	if err := validateOne(r); err != nil {
		return err
	}
	for i, h := range r.History {
		if len(h.Edges) > 0 || len(h.History) > 0 || h.Event != nil {
			return fmt.Errorf("history: version %d holds links, history or an event: a version holds only what the memory said then", i+1)
		}
		if err := validateOne(h); err != nil {
			return fmt.Errorf("history: version %d: %w", i+1, err)
		}
	}
	return nil
}

// validateEvent checks a timeline record: nothing but the event, which
// has an id, a kind and a time.
func validateEvent(r memory.Record) error {
	e := r.Event
	if r.Layer != 0 || r.Body != "" || r.Title != "" || r.ID != "" || len(r.Edges) > 0 || len(r.History) > 0 {
		return errors.New(`an event record holds only "event": {…}`)
	}
	if e.ID == "" || e.Kind == "" || e.Time.IsZero() {
		return errors.New(`an event needs "id", "kind" and "time"`)
	}
	if e.Actor != "" && !e.Actor.Valid() {
		return fmt.Errorf("event %s: unknown actor %q: use user, agent or system", e.ID, e.Actor)
	}
	return nil
}

// validateOne checks one record or version.
func validateOne(r memory.Record) error {
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
