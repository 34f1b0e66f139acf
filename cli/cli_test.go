package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/safetext"
	"cairn/store"
)

// env is one user's machine: a cairn home and a working directory.
type env struct {
	t    *testing.T
	home string
	wd   string
	tty  bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	wd := filepath.Join(root, "work", "myproj")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, home: filepath.Join(root, "home"), wd: wd}
}

type result struct {
	out, err string
	code     int
}

func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	env := e.cliEnv(args...)
	env.Stdin, env.Stdout, env.Stderr = strings.NewReader(stdin), &out, &errb
	code := Main(env)
	return result{out.String(), errb.String(), code}
}

// cliEnv is the Env of a run in e: its home, its working directory, no
// other variable, standard input empty and output discarded.
func (e *env) cliEnv(args ...string) Env {
	return Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string {
			if k == "CAIRN_HOME" {
				return e.home
			}
			return ""
		},
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return e.tty },
	}
}

// ok runs a command that must succeed and returns its stdout.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	r := e.run("", args...)
	if r.code != 0 {
		e.t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), r.code, r.err)
	}
	return r.out
}

func (e *env) rec(args ...string) memory.Record {
	e.t.Helper()
	var r memory.Record
	out := e.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("cairn %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return r
}

func (e *env) list(args ...string) []memory.Record {
	e.t.Helper()
	var rs []memory.Record
	out := e.ok(append([]string{"list", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		e.t.Fatalf("list --json: %v\n%s", err, out)
	}
	return rs
}

// names says whether s, read off text output, is a short id of id: a
// strict prefix of it that cairn resolves to it.
func (e *env) names(s, id string) bool {
	e.t.Helper()
	if len(s) >= len(id) || len(s) < memory.MinPrefix || !strings.HasPrefix(id, s) {
		return false
	}
	return e.rec("show", s).ID == id
}

// after is the word of out that follows prefix, or "".
func after(out, prefix string) string {
	_, rest, ok := strings.Cut(out, prefix)
	if !ok {
		return ""
	}
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return ""
}

func TestRememberShowListJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.wd, ".gitignore"), []byte(".env\n"), 0o644)
	r := e.rec("remember", "Never commit .env files; CI checks for them.", "--layer", "invariant", "--tag", "git,ci", "--provenance", "user-stated", "--ref", "rule-1", "--bind", "file:.gitignore")
	if r.ID == "" || r.Layer != memory.LayerInvariant || r.Kind != memory.KindConstraint || r.Project != "myproj" || r.Ref != "rule-1" {
		t.Fatalf("remember: %+v", r)
	}
	if r.Title != "Never commit .env files; CI checks for them." || r.Trust != r.Confidence || r.Version != 1 || r.Status != memory.StatusActive {
		t.Fatalf("remember fields: %+v", r)
	}
	if len(r.Watermarks) != 1 || r.Watermarks[0].Kind != memory.WatermarkFile || r.Watermarks[0].Target != ".gitignore" || r.Watermarks[0].State != memory.WatermarkIntact || r.Watermarks[0].Fingerprint == "" {
		t.Fatalf("binding: %+v", r.Watermarks)
	}
	// The raw JSON carries every field the issue lists.
	raw := e.ok("show", r.ID, "--json")
	for _, f := range []string{"id", "ref", "project", "layer", "kind", "title", "body", "tags", "provenance", "confidence", "trust", "status", "created_at", "updated_at", "valid_from", "valid_until", "supersedes", "superseded_by", "watermarks", "version"} {
		if !strings.Contains(raw, `"`+f+`":`) {
			t.Errorf("show --json lacks %q: %s", f, raw)
		}
	}
	got := e.rec("show", r.ID[:12])
	if got.ID != r.ID || got.Body != r.Body {
		t.Fatalf("show by prefix: %+v", got)
	}
	e.ok("remember", "Release v0.6.1 is out", "-l", "B")
	if n := len(e.list()); n != 2 {
		t.Fatalf("list: %d", n)
	}
	if rs := e.list("--layer", "A"); len(rs) != 1 || rs[0].ID != r.ID {
		t.Fatalf("list --layer A: %+v", rs)
	}
	if rs := e.list("--tag", "ci"); len(rs) != 1 {
		t.Fatalf("list --tag: %d", len(rs))
	}
	if rs := e.list("--limit", "1"); len(rs) != 1 {
		t.Fatalf("list --limit: %d", len(rs))
	}
	text := e.ok("show", r.ID)
	if !strings.Contains(text, "A · invariants") || !strings.Contains(text, "Never commit .env") || !strings.Contains(text, "bound to file:.gitignore") {
		t.Fatalf("show text:\n%s", text)
	}
}

func TestStdinText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.run("# Build\n\nRun `make` first.\n", "remember", "-", "--json", "--layer", "procedure")
	if r.code != 2 || !strings.Contains(r.err, "unknown layer") {
		t.Fatalf("bad layer should be misuse: %+v", r)
	}
	r = e.run("# Build\n\nRun `make` first.\n", "remember", "-", "--json", "--kind", "procedure")
	if r.code != 0 {
		t.Fatal(r.err)
	}
	var rec memory.Record
	json.Unmarshal([]byte(r.out), &rec)
	if rec.Title != "Build" || rec.Body != "# Build\n\nRun `make` first.\n" {
		t.Fatalf("stdin body/title: %+v", rec)
	}
}

func TestEditSupersedeArchiveFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.rec("remember", "+229 % decode speed", "--tag", "bench")
	ed := e.rec("edit", a.ID, "+229 % decode speed (bench #41)")
	if ed.Version != 2 {
		t.Fatalf("edit version %d", ed.Version)
	}
	var withHist struct {
		memory.Record
		History []memory.Record `json:"history"`
	}
	json.Unmarshal([]byte(e.ok("show", a.ID, "--history", "--json")), &withHist)
	if len(withHist.History) != 2 || withHist.History[0].Body != "+229 % decode speed" {
		t.Fatalf("history: %+v", withHist.History)
	}
	n := e.rec("supersede", a.ID, "+31 % decode speed after the fix")
	if len(n.Supersedes) != 1 || n.Supersedes[0] != a.ID || len(n.Edges) != 1 || n.Edges[0].Kind != memory.EdgeSupersedes {
		t.Fatalf("supersede: %+v", n)
	}
	old := e.rec("show", a.ID)
	if old.Status != memory.StatusSuperseded || old.SupersededBy != n.ID || old.ValidUntil == nil {
		t.Fatalf("old: %+v", old)
	}
	if rs := e.list(); len(rs) != 1 || rs[0].ID != n.ID {
		t.Fatalf("active list: %+v", rs)
	}
	if rs := e.list("--status", "all"); len(rs) != 2 {
		t.Fatalf("all: %d", len(rs))
	}
	out := e.ok("archive", n.ID, "--reason", "moved to wiki")
	if !e.names(after(out, "undo with: cairn unarchive "), n.ID) {
		t.Fatalf("archive output: %s", out)
	}
	if rs := e.list("--status", "archived"); len(rs) != 1 {
		t.Fatalf("archived list: %d", len(rs))
	}
	u := e.rec("unarchive", n.ID)
	if u.Status != memory.StatusActive || u.Version != n.Version || u.Body != n.Body {
		t.Fatalf("unarchive: %+v", u)
	}
	tl := e.ok("timeline")
	for _, k := range []string{"unarchive", "archive", "supersede", "edit", "remember", "moved to wiki"} {
		if !strings.Contains(tl, k) {
			t.Errorf("timeline lacks %q:\n%s", k, tl)
		}
	}
	var evs []memory.Event
	json.Unmarshal([]byte(e.ok("timeline", "--json", "--limit", "2")), &evs)
	if len(evs) != 2 || evs[0].Kind != memory.EventUnarchive {
		t.Fatalf("timeline json: %+v", evs)
	}
}

func TestForgetNeedsAPerson(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.rec("remember", "a throwaway note about the staging host")
	r := e.run("", "forget", a.ID)
	if r.code != 2 || !strings.Contains(r.err, "--yes") {
		t.Fatalf("forget without terminal or --yes: %+v", r)
	}
	e.tty = true
	r = e.run("no\n", "forget", a.ID)
	if r.code != 0 || !strings.Contains(r.out, "a throwaway note about the staging host") || !strings.Contains(r.out, "nothing was deleted") {
		t.Fatalf("forget answered no: %+v", r)
	}
	if got := e.rec("show", a.ID); got.ID != a.ID {
		t.Fatalf("memory gone after no")
	}
	r = e.run("yes\n", "forget", a.ID)
	if r.code != 0 || !strings.Contains(r.out, "forgot "+a.ID) {
		t.Fatalf("forget yes: %+v", r)
	}
	r = e.run("", "show", a.ID)
	if r.code != 1 || !strings.Contains(r.err, "no memory") {
		t.Fatalf("show after forget: %+v", r)
	}
	e.tty = false
	b := e.rec("remember", "another")
	e.ok("forget", b.ID, "--yes")
	tl := e.ok("timeline")
	if strings.Contains(tl, "throwaway") || strings.Count(tl, "forget") != 2 {
		t.Fatalf("timeline after forget:\n%s", tl)
	}
}

func TestLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.rec("remember", "parked MTP", "-l", "D")
	b := e.rec("remember", "MoE was net-negative", "-l", "C")
	var edge memory.Edge
	json.Unmarshal([]byte(e.ok("link", d.ID, "because", b.ID, "--weight", "0.7", "--json")), &edge)
	if edge.From != d.ID || edge.To != b.ID || edge.Kind != memory.EdgeBecause || edge.Weight != 0.7 {
		t.Fatalf("link: %+v", edge)
	}
	if got := e.rec("show", d.ID); len(got.Edges) != 1 || got.Edges[0].To != b.ID {
		t.Fatalf("edges in show: %+v", got.Edges)
	}
	if !e.names(after(e.ok("show", b.ID), "because ← "), d.ID) {
		t.Fatalf("reverse edge not shown")
	}
}

func TestBadInputExitCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.rec("remember", "something true")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"remember"}, 2, "nothing to remember"},
		{[]string{"remember", "x", "--layer", "Z"}, 2, "unknown layer"},
		{[]string{"remember", "x", "--kind", "rumour"}, 2, "unknown kind"},
		{[]string{"remember", "x", "--provenance", "gossip"}, 2, "unknown provenance"},
		{[]string{"remember", "x", "--bind", "url:http://x"}, 2, "binding"},
		{[]string{"remember", "x", "--bind", "none", "--bind", "file:a"}, 2, "none"},
		{[]string{"remember", "x", "--confidence", "7"}, 2, "confidence"},
		{[]string{"remember", "x", "--nope"}, 2, "unknown flag"},
		{[]string{"remember", "key AKIA" + "IOSFODNN7EXAMPLQ"}, 1, "AWS"},
		{[]string{"show"}, 2, "accepts 1 arg"},
		{[]string{"show", "ZZZZZZZZ"}, 1, "no memory"},
		{[]string{"list", "--status", "lost"}, 2, "unknown status"},
		{[]string{"edit", a.ID}, 2, "nothing to change"},
		{[]string{"link", a.ID, "likes", a.ID}, 2, "unknown link kind"},
		{[]string{"link", a.ID, "because", a.ID}, 1, "itself"},
		{[]string{"unarchive", a.ID}, 1, "not archived"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"import", "/does/not/exist.jsonl"}, 1, "no such file"},
		{[]string{"export", "x.csv"}, 2, "format"},
		{[]string{"timeline", "--limit", "0"}, 2, "limit"},
	}
	for _, c := range cases {
		r := e.run("", c.args...)
		if r.code != c.code || !strings.Contains(r.err, c.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
			t.Errorf("cairn %s: exit %d, stderr %q; want exit %d mentioning %q on one line", strings.Join(c.args, " "), r.code, r.err, c.code, c.want)
		}
	}
	if rs := e.list("--status", "all"); len(rs) != 1 {
		t.Fatalf("bad input changed the store: %d memories", len(rs))
	}
}

func TestProjectsAndGlobal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "in myproj")
	e.ok("remember", "user-wide preference", "--project", "global", "-l", "A")
	e.ok("remember", "in side project", "--project", "side")
	if rs := e.list(); len(rs) != 1 || rs[0].Body != "in myproj" {
		t.Fatalf("project isolation: %+v", rs)
	}
	if rs := e.list("--project", "global"); len(rs) != 1 || rs[0].Project != "global" {
		t.Fatalf("global: %+v", rs)
	}
	var ps []struct {
		Name   string `json:"name"`
		Active int    `json:"active"`
		Here   bool   `json:"current"`
	}
	json.Unmarshal([]byte(e.ok("projects", "--json")), &ps)
	if len(ps) != 3 {
		t.Fatalf("projects: %+v", ps)
	}
	names := ""
	for _, p := range ps {
		names += p.Name + " "
		if p.Active != 1 {
			t.Errorf("%s active = %d", p.Name, p.Active)
		}
	}
	if names != "global myproj side " {
		t.Fatalf("names: %q", names)
	}
	var st struct {
		Memories int `json:"memories"`
		Projects int `json:"projects"`
	}
	json.Unmarshal([]byte(e.ok("stats", "--json")), &st)
	if st.Memories != 3 || st.Projects != 3 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestCapture(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var d memory.Draft
	json.Unmarshal([]byte(e.ok("capture", "user: always run make lint first", "--json")), &d)
	if d.ID == "" || d.Text != "user: always run make lint first" {
		t.Fatalf("capture: %+v", d)
	}
}

func TestWorkbenchTheme(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.run("", "--theme", "neon"); r.code != 2 || !strings.Contains(r.err, "unknown theme") {
		t.Fatalf("bad theme: %+v", r)
	}
	var got string
	var out bytes.Buffer
	code := Main(Env{Args: []string{"--theme", "high-contrast"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out,
		Getenv: func(k string) string {
			if k == "CAIRN_HOME" {
				return e.home
			}
			return ""
		},
		Getwd: func() (string, error) { return e.wd, nil }, IsTerminal: func() bool { return false },
		Workbench: func(_ context.Context, _ memory.Store, p memory.Project, _ []memory.Project, theme, _ string, _ func() (*consolidate.LLM, error)) error {
			got = theme + " " + p.Name
			return nil
		}})
	if code != 0 || got != "high-contrast myproj" {
		t.Fatalf("workbench got %q (exit %d: %s)", got, code, out.String())
	}
}

// Sequences that act on a terminal, one of each kind issue 10 names.
var hostile = []struct{ name, seq string }{
	{"OSC 0 retitle", "\x1b]0;pwned\x07"},
	{"CSI erase line, cursor up", "\x1b[2K\x1b[1A"},
	{"OSC 8 link", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"},
	{"bidi override", "\u202egnp.exe"},
	{"8-bit CSI", "\u009b31m"},
	{"carriage return", "over\rwrite"},
	{"DEL", "x\x7f"},
}

// assertInert fails when s holds a character that acts on a terminal or
// is not valid UTF-8.
func assertInert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	if i := strings.IndexFunc(s, safetext.Unsafe); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		t.Errorf("%s prints %U raw at byte %d:\n%q", what, r, i, s)
	}
}

// refused checks that a run failed with one inert line naming want.
func refused(t *testing.T, r result, args []string, want string) {
	t.Helper()
	if r.code == 0 || !strings.Contains(r.err, want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
		t.Errorf("cairn %q: exit %d, stderr %q; want a refusal naming %q on one line", args, r.code, r.err, want)
	}
	assertInert(t, "the error", r.err)
}

// TestShortFieldsRefuseControlCharacters is issue 10 item 3 at write: a
// title, tag, ref, trigger, binding target or archive reason holding an
// escape sequence is refused with one line naming the field, and the store
// is left as it was.
func TestShortFieldsRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	keep := e.rec("remember", "the staging host is stage-2")
	for _, h := range hostile {
		for _, f := range []struct{ flag, field string }{
			{"--title", "title"}, {"--tag", "tag"}, {"--ref", "ref"}, {"--trigger", "trigger"}, {"--bind", "binding target"},
		} {
			val := "x" + h.seq
			if f.flag == "--bind" {
				val = "file:x" + h.seq
			}
			for _, args := range [][]string{
				{"remember", "a plain body", f.flag, val},
				{"edit", keep.ID, f.flag, val},
				{"supersede", keep.ID, "a plain correction", f.flag, val},
			} {
				refused(t, e.run("", args...), args, f.field)
			}
		}
		args := []string{"archive", keep.ID, "--reason", "moved " + h.seq}
		refused(t, e.run("", args...), args, "reason")
	}
	rs := e.list("--status", "all")
	if len(rs) != 1 || rs[0].ID != keep.ID || rs[0].Version != 1 || rs[0].Status != memory.StatusActive || rs[0].Title != keep.Title {
		t.Fatalf("refused writes changed the store: %+v", rs)
	}
	if tl := e.ok("timeline"); strings.Count(strings.TrimSpace(tl), "\n") != 0 {
		t.Fatalf("refused writes left events:\n%s", tl)
	}
}

// poison rewrites a stored memory as a store written before short fields
// were checked may hold it, bypassing validation. The store must be closed.
func poison(t *testing.T, e *env, id string, edit func(*memory.Memory)) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(filepath.Join(e.home, "store")).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := []byte("mem/" + id)
	err = db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		m, err := store.DecodeMemory(key, v)
		if err != nil {
			return err
		}
		edit(m)
		b, err := store.EncodeMemory(m)
		if err != nil {
			return err
		}
		return txn.Set(key, b)
	})
	if err != nil {
		t.Fatalf("poison %s: %v", id, err)
	}
}

// TestStoredEscapesAreNeutralisedOnOutput is issue 10 item 3 on output: a
// body holding escape sequences is stored as written, and so are short
// fields an old store may hold, but nothing the CLI prints as text carries
// them raw: show, history, list, recall, context, timeline, verify,
// projects, and the forget confirmation, which shows the stored text and
// keeps its id line.
func TestStoredEscapesAreNeutralisedOnOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var body strings.Builder
	body.WriteString("port 8080 on staging")
	for _, h := range hostile {
		body.WriteString(" " + h.seq + "\n")
	}
	body.WriteString("end\r\n")
	a := e.rec("remember", body.String(), "--tag", "ops")
	if got := e.rec("show", a.ID); got.Body != body.String() {
		t.Fatalf("the body was not stored as written:\n%q\n%q", got.Body, body.String())
	}
	if err := safetext.Check("title", a.Title); err != nil || !strings.Contains(a.Title, "port 8080 on staging ␛]0;pwned␇") {
		t.Fatalf("derived title %q: %v", a.Title, err)
	}
	e.ok("edit", a.ID, "port 9090 on staging \x1b]0;again\x07\n\x1b[2K\x1b[1Agone")
	b := e.rec("remember", "the release checklist lives in the wiki", "-l", "E", "--provenance", "inferred", "--confidence", "0.3")
	poison(t, e, b.ID, func(m *memory.Memory) {
		m.Title = "release \x1b]0;pwned\x07 checklist \u202eevil"
		m.Tags = []string{"t\u009b31m"}
		m.Ref = "r\x1b[2K"
		m.Triggers = []string{"release\x1b[1A"}
		m.Body = "the release checklist \x1b[2K\x1b[1A lives in the wiki"
	})
	// A project name with an escape is refused at write, in one clean line.
	if r := e.run("", "remember", "a note in a project with a hostile name", "--project", "evil\x1b]0;x\x07"); r.code == 0 || strings.ContainsRune(r.err, 0x1b) || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Fatalf("a project name with an escape: %+v", r)
	}

	outputs := map[string][]string{
		"show":           {"show", a.ID},
		"show old":       {"show", b.ID},
		"show --history": {"show", a.ID, "--history"},
		"list":           {"list", "--status", "all"},
		"recall":         {"recall", "release checklist wiki port staging", "--explain"},
		"context":        {"context"},
		"timeline":       {"timeline"},
		"verify":         {"verify"},
		"projects":       {"projects"},
	}
	for what, args := range outputs {
		out := e.ok(args...)
		assertInert(t, what, out)
		if what == "show old" && !strings.Contains(out, "release ␛]0;pwned␇ checklist <U+202E>evil") {
			t.Errorf("show does not show the stored title, neutralised:\n%s", out)
		}
	}
	if h := e.ok("show", a.ID, "--history"); !strings.Contains(h, "── version 1") || !strings.Contains(h, "port 8080 on staging ␛]0;pwned␇\n") {
		t.Errorf("history lacks the first version, neutralised:\n%s", h)
	}

	e.tty = true
	for _, id := range []string{a.ID, b.ID} {
		r := e.run("no\n", "forget", id)
		if r.code != 0 || !strings.Contains(r.out, "nothing was deleted") {
			t.Fatalf("forget %s answered no: %+v", id, r)
		}
		assertInert(t, "the forget confirmation", r.out)
		if first, _, _ := strings.Cut(r.out, "\n"); !strings.HasPrefix(first, id+"  ") {
			t.Errorf("the confirmation does not open with the id line: %q", first)
		}
		if !strings.Contains(r.out, "Forget "+id+" for good?") || !strings.Contains(r.out, "␛[2K␛[1A") {
			t.Errorf("the confirmation does not show the stored text, neutralised, and name the id:\n%s", r.out)
		}
	}
	if n := len(e.list("--status", "all")); n != 2 {
		t.Fatalf("answering no deleted something: %d memories", n)
	}
}

// TestInvalidUTF8IsRefused is issue 10 item 15b: text that is not UTF-8
// is refused with a clear line on every CLI path (argument, standard
// input, flags, edit, supersede, capture, archive reason), never silently
// replaced, and the store is left as it was.
func TestInvalidUTF8IsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	keep := e.rec("remember", "the cache lives in /var/cache/app")
	bad := "caf\xe9 au lait"
	cases := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"remember", bad}},
		{bad, []string{"remember", "-"}},
		{"", []string{"remember", "fine", "--title", bad}},
		{"", []string{"remember", "fine", "--tag", bad}},
		{"", []string{"remember", "fine", "--ref", bad}},
		{"", []string{"remember", "fine", "--trigger", bad}},
		{"", []string{"edit", keep.ID, bad}},
		{bad, []string{"edit", keep.ID, "-"}},
		{"", []string{"supersede", keep.ID, bad}},
		{"", []string{"capture", bad}},
		{bad, []string{"capture", "-"}},
		{"", []string{"archive", keep.ID, "--reason", bad}},
	}
	for _, c := range cases {
		refused(t, e.run(c.stdin, c.args...), c.args, "UTF-8")
	}
	rs := e.list("--status", "all")
	if len(rs) != 1 || rs[0].Version != 1 || rs[0].Status != memory.StatusActive {
		t.Fatalf("refused writes changed the store: %+v", rs)
	}
	if tl := e.ok("timeline"); strings.Count(strings.TrimSpace(tl), "\n") != 0 {
		t.Fatalf("refused writes left events:\n%s", tl)
	}
}

// TestLinkWeightAndConfidenceMustBeNumbers is issue 10 item 15c: NaN,
// infinite, negative and out-of-range weights and confidences are refused
// with a clear line, by the CLI and by the store itself, instead of
// failing inside the encoder.
func TestLinkWeightAndConfidenceMustBeNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.rec("remember", "parked MTP", "-l", "D")
	b := e.rec("remember", "MoE was net-negative", "-l", "C")
	for _, w := range []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "-0.5", "0", "1.5"} {
		args := []string{"link", d.ID, "because", b.ID, "--weight", w}
		r := e.run("", args...)
		refused(t, r, args, "weight")
		if r.code != ExitUsage {
			t.Errorf("--weight %s: exit %d, want %d", w, r.code, ExitUsage)
		}
	}
	for _, c := range []string{"NaN", "Inf", "-1", "1.01"} {
		for _, args := range [][]string{{"remember", "x", "--confidence", c}, {"edit", d.ID, "--confidence", c}} {
			refused(t, e.run("", args...), args, "confidence")
		}
	}
	if got := e.rec("show", d.ID); len(got.Edges) != 0 || got.Version != 1 {
		t.Fatalf("refused writes changed the memory: %+v", got)
	}
	if n := len(e.list("--status", "all")); n != 2 {
		t.Fatalf("refused remembers stored something: %d memories", n)
	}

	// The store refuses them too: the MCP server and store clients reach it
	// without the CLI's flag checks.
	st, err := store.Open(filepath.Join(e.home, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, w := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5, 2} {
		err := st.Link(ctx, memory.Edge{From: d.ID, Kind: memory.EdgeBecause, To: b.ID, Weight: w}, memory.ActorAgent)
		if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "weight") {
			t.Errorf("store link weight %v: %v", w, err)
		}
	}
	old, err := st.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{math.NaN(), math.Inf(1), -0.1} {
		_, err := st.Remember(ctx, &memory.Memory{Project: old.Project, Layer: memory.LayerState, Body: "x", Confidence: c}, memory.ActorAgent)
		if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "confidence") {
			t.Errorf("store confidence %v: %v", c, err)
		}
	}
}

// TestEditTitleFollowsDerivedText is issue 10 item 17: editing the text of
// a memory whose title was derived from it derives the title again, so
// list, show, recall and context serve the new fact; a title the user set
// stays.
func TestEditTitleFollowsDerivedText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.rec("remember", "The staging API listens on port 8080")
	if a.Title != "The staging API listens on port 8080" {
		t.Fatalf("derived title %q", a.Title)
	}
	ed := e.rec("edit", a.ID, "The staging API listens on port 9090\n\nMoved in the March migration.")
	if ed.Title != "The staging API listens on port 9090" || ed.Version != 2 {
		t.Fatalf("the derived title did not follow the text: %+v", ed)
	}
	for what, out := range map[string]string{
		"list":    e.ok("list"),
		"show":    e.ok("show", a.ID),
		"recall":  e.ok("recall", "staging API port"),
		"context": e.ok("context"),
	} {
		if strings.Contains(out, "8080") || !strings.Contains(out, "port 9090") {
			t.Errorf("%s serves the old title:\n%s", what, out)
		}
	}
	// Through standard input too.
	r := e.run("The staging API listens on port 7070\n", "edit", a.ID, "-", "--json")
	var viaStdin memory.Record
	if r.code != 0 || json.Unmarshal([]byte(r.out), &viaStdin) != nil || viaStdin.Title != "The staging API listens on port 7070" {
		t.Fatalf("edit from standard input: %+v", r)
	}

	// A title the user set stays when the text changes.
	u := e.rec("remember", "Deploys go through ArgoCD", "--title", "How we deploy")
	u2 := e.rec("edit", u.ID, "Deploys go through Flux since May")
	if u2.Title != "How we deploy" {
		t.Fatalf("an explicit title was replaced: %q", u2.Title)
	}
	// One set by edit stays as well; an empty --title derives it again.
	a3 := e.rec("edit", a.ID, "--title", "Staging API port")
	a4 := e.rec("edit", a.ID, "The staging API listens on port 6060")
	if a3.Title != "Staging API port" || a4.Title != "Staging API port" {
		t.Fatalf("a title set by edit did not stay: %q, %q", a3.Title, a4.Title)
	}
	if a5 := e.rec("edit", a.ID, "--title", ""); a5.Title != "The staging API listens on port 6060" {
		t.Fatalf("an empty --title did not derive the title: %q", a5.Title)
	}
	// Changing the title alone never touches the text, nor a tag the title.
	if a6 := e.rec("edit", a.ID, "--tag", "api"); a6.Title != "The staging API listens on port 6060" {
		t.Fatalf("a tag edit changed the title: %q", a6.Title)
	}
}
