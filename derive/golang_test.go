package derive

import (
	"bytes"
	"strings"
	"testing"
)

// wantSection is what a test expects of one section; Doc is a prefix.
type wantSection struct {
	Kind      Kind
	Name      string
	Line, End int
	Signature string
	Doc       string
}

func expectSections(t *testing.T, label string, got []Section, wants []wantSection) {
	t.Helper()
	if len(got) != len(wants) {
		var names []string
		for _, s := range got {
			names = append(names, string(s.Kind)+" "+s.Name)
		}
		t.Fatalf("%s: %d sections %q, want %d", label, len(got), names, len(wants))
	}
	for i, w := range wants {
		s := got[i]
		if s.Kind != w.Kind || s.Name != w.Name || s.Line != w.Line || s.EndLine != w.End || s.Signature != w.Signature || !strings.HasPrefix(s.Doc, w.Doc) {
			t.Errorf("%s: section %d\n got %s %q lines %d-%d sig %q doc %q\nwant %s %q lines %d-%d sig %q doc %q…",
				label, i, s.Kind, s.Name, s.Line, s.EndLine, s.Signature, s.Doc, w.Kind, w.Name, w.Line, w.End, w.Signature, w.Doc)
		}
	}
}

const goClient = `// Copyright 2026 The Authors.

// Package client talks to the service.
//
// It retries on failure.
package client

import "net/http"

// DefaultRetries is how often a request is tried again.
const DefaultRetries = 3

const (
	// ModeFast skips checks.
	ModeFast Mode = iota
	ModeSafe // checks everything
	modeHidden
)

var internal = 1

// Client does requests.
type Client struct {
	HTTP *http.Client
}

type (
	// Mode says how careful a client is.
	Mode int
	hidden struct{}
)

// Do sends req and waits for the answer,
// retrying as configured.
func (c *Client) Do(req *http.Request,
	retries int) (*http.Response, error) {
	return nil, nil
}

func (h hidden) Exported() {}

func (m Mode) String() string { return "" }

func helper() {}

// New makes a client.
func New[T any](opts ...T) *Client { return nil }
`

func TestExtractGo(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		wantSection     []wantSection
	}{
		{"client", "client/client.go", goClient, []wantSection{
			{KindPackage, "client", 3, 6, "package client", "Package client talks to the service.\n\nIt retries on failure."},
			{KindConst, "DefaultRetries", 10, 11, "const DefaultRetries = 3", "DefaultRetries is how often"},
			{KindConst, "ModeFast, ModeSafe, modeHidden", 13, 18, "const ModeFast Mode = iota …", "ModeFast: ModeFast skips checks.\nModeSafe: checks everything"},
			{KindVar, "internal", 20, 20, "var internal = 1", ""},
			{KindType, "Client", 22, 25, "type Client struct", "Client does requests.\n\nHTTP"},
			{KindType, "Mode", 28, 29, "type Mode int", "Mode says how careful"},
			{KindType, "hidden", 30, 30, "type hidden struct{}", ""},
			{KindMethod, "Client.Do", 33, 38, "func (c *Client) Do(req *http.Request, retries int) (*http.Response, error)", "Do sends req and waits for the answer,\nretrying"},
			{KindMethod, "hidden.Exported", 40, 40, "func (h hidden) Exported()", ""},
			{KindMethod, "Mode.String", 42, 42, "func (m Mode) String() string", ""},
			{KindFunc, "helper", 44, 44, "func helper()", ""},
			{KindFunc, "New", 46, 47, "func New[T any](opts ...T) *Client", "New makes a client."},
		}},
		{"no package doc, generic receiver", "x.go", "package x\n\ntype List[T any] struct{}\n\n// Len counts.\nfunc (l *List[T]) Len() int { return 0 }\n", []wantSection{
			{KindType, "List", 3, 3, "type List[T any] struct{}", ""},
			{KindMethod, "List.Len", 5, 6, "func (l *List[T]) Len() int", "Len counts."},
		}},
		{"a test file gives nothing", "x_test.go", "// Package x.\npackage x\n\nfunc TestX(t *testing.T) {}\n", nil},
		{"broken: what the parser recovered", "broken.go", "package x\n\n// Good is fine.\nfunc Good() {}\n\nfunc Bad( {\n", []wantSection{
			{KindFunc, "Good", 3, 4, "func Good()", "Good is fine."},
			{KindFunc, "Bad", 6, 6, "func Bad(", ""},
		}},
		{"struct fields and interface methods", "m.go", "package m\n\n// Options configure.\ntype Options struct {\n\t// Retry says how a failed request is retried.\n\tRetry Policy\n\tA, b, C int // some ints\n\tsecret string\n\t*Base\n}\n\n// Doer does.\ntype Doer interface {\n\tDo() error // Do does it.\n\tfmt.Stringer\n}\n", []wantSection{
			{KindType, "Options", 3, 10, "type Options struct", "Options configure.\n\nRetry: Retry says how a failed request is retried.\nA, C: some ints\nBase"},
			{KindType, "Doer", 12, 16, "type Doer interface", "Doer does.\n\nDo: Do does it.\nStringer"},
		}},
		{"var group", "v.go", "package v\n\n// Errors the package returns.\nvar (\n\tErrA = 1\n\terrB = 2\n)\n", []wantSection{
			{KindVar, "ErrA, errB", 3, 7, "var ErrA = 1 …", "Errors the package returns."},
		}},
	} {
		got, _ := extractGo(tc.path, []byte(tc.src))
		expectSections(t, tc.name, got, tc.wantSection)
	}
	if _, err := extractGo("broken.go", []byte("package x\nfunc Bad( {\n")); err == nil {
		t.Error("a broken file gives no error")
	}
}

// FuzzExtractGo: no input makes the Go reader panic, and every section
// it gives lies within the file.
func FuzzExtractGo(f *testing.F) {
	f.Add([]byte(goClient))
	f.Add([]byte("package x\n\nfunc (\n"))
	f.Add([]byte("// Package x\npackage x\ntype ( A int\n"))
	f.Add([]byte("package x\nconst (\n\tA, B = 1, 2\n"))
	f.Add([]byte{0xff, 0xfe, 0})
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, _ := extractGo("f.go", src)
		checkSectionBounds(t, secs, src)
	})
}

// checkSectionBounds: lines are 1-based, ordered, and within the file.
func checkSectionBounds(t *testing.T, secs []Section, src []byte) {
	t.Helper()
	lines := bytes.Count(src, []byte{'\n'}) + 1
	for _, s := range secs {
		if s.Line < 1 || s.EndLine < s.Line || s.EndLine > lines {
			t.Fatalf("section %q has lines %d-%d in a file of %d lines", s.Name, s.Line, s.EndLine, lines)
		}
		if s.Name == "" {
			t.Fatalf("a section without a name at line %d", s.Line)
		}
	}
}
