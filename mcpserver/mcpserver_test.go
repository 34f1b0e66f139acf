package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/store"
	"cairn/trust"
)

var ctx = context.Background()

func connect(t *testing.T) (*mcp.ClientSession, *store.DB, memory.Project) {
	t.Helper()
	return connectIn(t, "", nil)
}

// connectIn serves a project rooted at root; with getenv the server
// checks and binds referents there, as cairn mcp does.
func connectIn(t *testing.T, root string, getenv func(string) string) (*mcp.ClientSession, *store.DB, memory.Project) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000aa", Name: "proj", Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: memory.GlobalID, Name: memory.GlobalName}); err != nil {
		t.Fatal(err)
	}
	return serveOn(t, db, p, getenv, nil), db, p
}

// serveOn connects a client to a server for project p of st. The server
// reads its environment from getenv (nil: an empty one, so that no test
// depends on, or reaches, a language model the machine is set up with);
// with getenv it also checks and binds referents under the project's root.
func serveOn(t *testing.T, st memory.Store, p memory.Project, getenv func(string) string, copt *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var tr Trust
	if getenv != nil {
		tr = trust.For(st, p, nil, getenv)
	} else {
		getenv = func(string) string { return "" }
	}
	sst, ct := mcp.NewInMemoryTransports()
	llm := func() (*consolidate.LLM, error) { return consolidate.LLMFromEnv(getenv) }
	if _, err := (&Server{st: st, proj: p, trust: tr, llm: llm}).server().Connect(ctx, sst, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copt).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call invokes a tool and decodes its structured result; failed reports IsError.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (failed bool, text string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError && out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return res.IsError, text
}

func TestToolsAreTheAgentSubset(t *testing.T) {
	t.Parallel()
	cs, _, _ := connect(t)
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		// A client runs a tool that only reads without asking (Codex's exec
		// refuses one it cannot ask about); it asks before one that changes
		// what is recalled.
		a := tool.Annotations
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tool.Name)
		case a.ReadOnlyHint != (tool.Name == "recall" || tool.Name == "context"):
			t.Errorf("%s: read-only %v", tool.Name, a.ReadOnlyHint)
		case !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint != (tool.Name == "archive" || tool.Name == "consolidate")):
			t.Errorf("%s: destructive %v", tool.Name, a.DestructiveHint)
		case a.OpenWorldHint == nil || *a.OpenWorldHint:
			t.Errorf("%s: an open world", tool.Name)
		}
		if len(tool.Description) < 60 {
			t.Errorf("%s: description too thin to tell an agent when to use it", tool.Name)
		}
	}
	if strings.Join(names, ",") != "archive,capture,consolidate,context,feedback,recall,remember" {
		t.Fatalf("tools: %v", names)
	}
	// cairn mcp --help names them from ToolNames: the same set.
	if got := slices.Sorted(slices.Values(ToolNames)); !slices.Equal(got, names) {
		t.Errorf("ToolNames %v, served %v", ToolNames, names)
	}
	// What stays with the person: forgetting, and deciding what a
	// consolidation left open or did.
	for _, tool := range []string{"forget", "unarchive", "edit", "accept", "reject", "undo", "drop", "inbox"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": "x"}})
		if err == nil && !res.IsError {
			t.Fatalf("a %s tool answered", tool)
		}
	}
}

func TestRememberRecallArchive(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	var m Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "VGPR-256 starved occupancy on the decode kernel: don't", "layer": "negative", "triggers": []string{"VGPR"}}, &m); failed {
		t.Fatal(text)
	}
	if m.Layer != "negative" || m.Provenance != "observed" {
		t.Fatalf("remembered: %+v", m)
	}
	stored, err := db.Get(ctx, m.ID)
	if err != nil || stored.Project != p.ID || stored.Source.Actor != memory.ActorAgent {
		t.Fatalf("stored: %+v %v", stored, err)
	}
	var r RecallOut
	if failed, text := call(t, cs, "recall", map[string]any{"query": "raise VGPR count for occupancy"}, &r); failed {
		t.Fatal(text)
	}
	if len(r.Results) != 1 || r.Results[0].ID != m.ID || r.VerifyFirst == nil {
		t.Fatalf("recall: %+v", r)
	}
	var c ContextOut
	call(t, cs, "context", map[string]any{}, &c)
	if !strings.Contains(c.Markdown, "VGPR-256") {
		t.Fatalf("context: %q", c.Markdown)
	}
	if failed, text := call(t, cs, "archive", map[string]any{"id": m.ID}, nil); !failed || !strings.Contains(text, "reason") {
		t.Fatalf("archive without reason: %v %q", failed, text)
	}
	var a Item
	if failed, text := call(t, cs, "archive", map[string]any{"id": m.ID, "reason": "kernel rewritten"}, &a); failed || a.Status != "archived" {
		t.Fatalf("archive: %v %q %+v", failed, text, a)
	}
	evs, _ := db.Timeline(ctx, p.ID, 1)
	if evs[0].Kind != memory.EventArchive || evs[0].Actor != memory.ActorAgent || evs[0].Summary != "kernel rewritten" {
		t.Fatalf("archive event: %+v", evs[0])
	}
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", map[string]any{"text": "x", "layer": "Z"}, "unknown layer"},
		{"remember", map[string]any{"text": "key AKIA" + "IOSFODNN7EXAMPLQ"}, "AWS"},
		{"remember", map[string]any{}, "text"},
		{"recall", map[string]any{"query": "  "}, "empty"},
		{"archive", map[string]any{"id": "ZZZZZZZZ", "reason": "r"}, "no memory ZZZZZZZZ in this project"},
		{"capture", map[string]any{"text": ""}, "empty"},
	}
	for _, c := range cases {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: failed=%v %q, want an error mentioning %q", c.tool, c.args, failed, text, c.want)
		}
	}
	if page, _ := db.List(ctx, memory.Query{Project: p.ID, Status: memory.StatusAny}); len(page.Memories) != 0 {
		t.Fatalf("bad calls stored %d memories", len(page.Memories))
	}
	var d CaptureOut
	if failed, text := call(t, cs, "capture", map[string]any{"text": "user prefers table-driven tests"}, &d); failed || d.ID == "" {
		t.Fatalf("capture: %q", text)
	}
}

// What an agent remembers is bound to the files and flags its text names
// (and only those that exist); when one moves, recall stops serving it as
// current.
func TestRememberBindsAndRecallRoutesMovedFacts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "decode.txt"), []byte("+229 %\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DECODE_FAST": "1"}
	cs, _, _ := connectIn(t, root, func(k string) string { return env[k] })
	var got Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "decode runs +229 % with DECODE_FAST, numbers in decode.txt and src/missing.go"}, &got); failed {
		t.Fatal(text)
	}
	if strings.Join(got.Bindings, ",") != "file:decode.txt (intact),flag:DECODE_FAST (intact)" {
		t.Fatalf("bindings: %v", got.Bindings)
	}
	os.WriteFile(filepath.Join(root, "decode.txt"), []byte("+31 %\n"), 0o644)
	var rec RecallOut
	if failed, text := call(t, cs, "recall", map[string]any{"query": "decode speed"}, &rec); failed {
		t.Fatal(text)
	}
	if len(rec.Results) != 0 || len(rec.VerifyFirst) != 1 || rec.VerifyFirst[0].ID != got.ID {
		t.Fatalf("a moved fact was served as current: %+v", rec)
	}
}

// An agent is told when nothing is known (and the question goes to the
// gap log), scopes recall by path, and says which results helped — only
// for memories of its own project.
func TestRecallNothingKnownPathAndFeedback(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	var got Item
	if failed, text := call(t, cs, "remember", map[string]any{"text": "The retry policy lives in store/import.go and backs off three times"}, &got); failed {
		t.Fatal(text)
	}
	var rec RecallOut
	if failed, text := call(t, cs, "recall", map[string]any{"query": "capital of France"}, &rec); failed || !rec.NothingKnown || len(rec.Results) != 0 {
		t.Fatalf("nothing known: %+v %q", rec, text)
	}
	if gs, _ := db.Gaps(ctx, p.ID); len(gs) != 1 || gs[0].Query != "capital of France" {
		t.Fatalf("gap log: %+v", gs)
	}
	rec = RecallOut{}
	if failed, text := call(t, cs, "recall", map[string]any{"path": "store/*.go"}, &rec); failed || len(rec.Results) != 1 || rec.Results[0].ID != got.ID {
		t.Fatalf("recall by path: %+v %q", rec, text)
	}
	var fb FeedbackOut
	if failed, text := call(t, cs, "feedback", map[string]any{"id": got.ID, "query": "where is the retry policy", "helpful": true}, &fb); failed || !fb.Helpful {
		t.Fatalf("feedback: %q", text)
	}
	m, _ := db.Get(ctx, got.ID)
	if len(m.Salience.Feedback) != 1 || m.Salience.Feedback[0].Actor != memory.ActorAgent {
		t.Fatalf("feedback kept: %+v", m.Salience.Feedback)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: "0000000000000ccc", Name: "other"}); err != nil {
		t.Fatal(err)
	}
	other, err := db.Remember(ctx, &memory.Memory{Project: "0000000000000ccc", Layer: memory.LayerState, Body: "another project's fact"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	if failed, text := call(t, cs, "feedback", map[string]any{"id": other.ID, "query": "q", "helpful": false}, nil); !failed || !strings.Contains(text, "no memory") {
		t.Fatalf("feedback on another project's memory: %v %q", failed, text)
	}
}

// An agent asking where something is gets the repository's answer with
// the file and line to open, and the briefing starts with the project.
func TestRecallAndContextFromTheRepository(t *testing.T) {
	t.Parallel()
	cs, db, p := connect(t)
	sec := memory.Section{Path: "net/retry.go", Line: 12, EndLine: 20, Kind: memory.SectionType, Lang: "go",
		Name: "RetryPolicy", Signature: "type RetryPolicy struct", Doc: "RetryPolicy says how often a failed payment is tried again."}
	u := memory.DerivedUpdate{Changed: []memory.DerivedFile{{Path: sec.Path, Lang: "go", Sections: []memory.Section{sec}}},
		Summary: memory.RepoSummary{Files: 1, Read: 1, Brief: "Shop sells kites.\nCommands: test: make test"}}
	if err := db.UpdateDerived(ctx, p.ID, u, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	var rec RecallOut
	if failed, text := call(t, cs, "recall", map[string]any{"query": "where is the payment retry policy"}, &rec); failed ||
		len(rec.Repository) == 0 || rec.Repository[0].Path != "net/retry.go" || rec.Repository[0].Line != 12 || rec.NothingKnown {
		t.Fatalf("recall: %+v %q", rec, text)
	}
	var b struct {
		Markdown string `json:"markdown"`
	}
	failed, text := call(t, cs, "context", map[string]any{}, &b)
	if failed || !strings.Contains(text+b.Markdown, "Shop sells kites") {
		t.Fatalf("context does not start with the project: %q %+v", text, b)
	}
}
