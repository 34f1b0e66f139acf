package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
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
	code := Main(Env{
		Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "CAIRN_HOME" {
				return e.home
			}
			return ""
		},
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return e.tty },
	})
	return result{out.String(), errb.String(), code}
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

func TestRememberShowListJSON(t *testing.T) {
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
	if !strings.Contains(out, "undo with: cairn unarchive "+n.ID) {
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
	if !strings.Contains(e.ok("show", b.ID), "because ← "+d.ID) {
		t.Fatalf("reverse edge not shown")
	}
}

func TestBadInputExitCodes(t *testing.T) {
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
	e := newEnv(t)
	var d memory.Draft
	json.Unmarshal([]byte(e.ok("capture", "user: always run make lint first", "--json")), &d)
	if d.ID == "" || d.Text != "user: always run make lint first" {
		t.Fatalf("capture: %+v", d)
	}
}

func TestWorkbenchTheme(t *testing.T) {
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
		Workbench: func(_ context.Context, _ store.Store, p memory.Project, _ []memory.Project, theme string) error {
			got = theme + " " + p.Name
			return nil
		}})
	if code != 0 || got != "high-contrast myproj" {
		t.Fatalf("workbench got %q (exit %d: %s)", got, code, out.String())
	}
}
