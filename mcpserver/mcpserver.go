// Package mcpserver is cairn's Model Context Protocol server (`cairn mcp`,
// over stdio) for agents: recall, remember, capture, context, archive and
// consolidate. There is deliberately no tool to forget, unarchive or edit,
// nor to accept or reject a proposal, undo a consolidation run or drop a
// draft: those stay with the person at the workbench or the command line.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/recall"
	"cairn/safetext"
)

// Version is reported to MCP clients.
const Version = "0.1.0"

// Server answers an agent's tool calls in one project (plus global).
type Server struct {
	st    memory.Store
	proj  memory.Project
	trust Trust // wake checks and binding; nil: neither
	// llm builds the language model consolidation asks, from the settings
	// the caller loaded (nil: the patterns alone).
	llm    func() (*consolidate.LLM, error)
	once   sync.Once
	rec    recall.Recaller
	recErr error
}

// Trust is what the server needs of the trust service, checking
// referents from the agent's side (its checkout and environment).
type Trust interface {
	Wake(ctx context.Context) error
	Bind(ctx context.Context, asked []memory.Watermark, text string) ([]memory.Watermark, error)
	// BindMany binds many texts in one batch (a text that fails to bind
	// stays unbound).
	BindMany(ctx context.Context, texts []string) [][]memory.Watermark
}

// New builds the MCP server for st in project p. With tr (may be nil) it
// runs the wake check before every recall and context, so that an agent
// is never served a fact whose ground moved during a long session, and
// binds what an agent remembers to the files and flags its text names.
// llm (may be nil) builds the language model a consolidation asks, from
// the settings the caller loaded.
func New(st memory.Store, p memory.Project, tr Trust, llm func() (*consolidate.LLM, error)) *mcp.Server {
	return (&Server{st: st, proj: p, trust: tr, llm: llm}).server()
}

// ToolNames are the tools the server offers agents, in the order an
// agent is told of them.
var ToolNames = []string{"recall", "feedback", "remember", "capture", "context", "archive", "consolidate"}

func (s *Server) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: Version}, &mcp.ServerOptions{
		Instructions: "cairn is this project's long-term memory. Call `context` once at the start of a session, " +
			"`recall` before you decide or change something, `remember` for facts, decisions (with their because), " +
			"failures and user preferences worth keeping, `capture` for raw notes, and `consolidate` to turn captured notes into memories.",
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "recall", Annotations: reads(), Description: "Find the memories relevant to a task or question. " +
		"Use before changing code or deciding something, to learn what was decided, what failed and what the user prefers. " +
		"Returns current memories and, separately, verify_first: memories that may be stale and must be checked before you rely on them. " +
		"Scores are absolute: when nothing stored comes near the question, nothing_known is true and no results are padded in — " +
		"find out and `remember` the answer. With path (a file, directory or glob such as store/*.go) what is known about " +
		"those files comes first; the query may then be empty. Tell `feedback` which results helped."}, s.recall)
	mcp.AddTool(srv, &mcp.Tool{Name: "feedback", Annotations: adds(), Description: "Say whether a memory that recall returned helped with the query " +
		"(helpful true) or not (false). Similar queries later find it higher or lower; its trust does not change. A recalled " +
		"memory you used counts more than one you only saw."}, s.feedback)
	mcp.AddTool(srv, &mcp.Tool{Name: "remember", Annotations: adds(), Description: "Store one durable memory: a fact, a decision with its reason, " +
		"something that failed and why (layer negative), a user preference or a lesson. One idea per call, stated so that it " +
		"makes sense without this conversation. Credentials are refused. A memory that says the same as one already stored " +
		"(after case, punctuation and spacing are normalised) is not copied: the existing memory is reinforced and returned " +
		"(\"already known\", dedup.reinforced). One that says nearly the same is stored, and a proposal to merge the two " +
		"waits for a person (dedup.near, dedup.proposal)."}, s.remember)
	mcp.AddTool(srv, &mcp.Tool{Name: "capture", Annotations: adds(), Description: "Append raw text (a transcript excerpt, notes, an observation) to " +
		"the project's inbox of drafts; nothing is recalled from it yet. `consolidate` (or a person's /consolidate) turns drafts " +
		"into memories: it extracts facts, decisions, failures and preferences, folds them into what is already known and " +
		"leaves what is uncertain for a person. Cheap and safe: use it when unsure whether something is worth remembering."}, s.capture)
	mcp.AddTool(srv, &mcp.Tool{Name: "context", Annotations: reads(), Description: "The warm-up briefing for the start of a session: invariants, " +
		"working state, recent decisions, negatives and lessons of this project, within a token budget, as markdown."}, s.context)
	mcp.AddTool(srv, &mcp.Tool{Name: "archive", Annotations: changes(), Description: "Take a memory that is no longer relevant out of recall. " +
		"Reversible by the person (unarchive). Requires a reason, recorded in the timeline. Use supersession through remember " +
		"for facts that changed; archive is for what no longer matters."}, s.archive)
	mcp.AddTool(srv, &mcp.Tool{Name: "consolidate", Annotations: changes(), Description: consolidateDescription}, s.consolidate)
	return srv
}

// The tools' annotations tell a client what a call does, so that it can
// run the ones that only read without asking (Codex's exec refuses a tool
// without them when it may not ask), and ask before the others. Every tool
// works on the project's memory alone: none reaches an open world.
func reads() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
}

// adds is a tool that only adds: a memory (or a reinforcement of the same
// one), a draft, a judgement of a recalled memory.
func adds() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
}

// changes is a tool that may take a memory out of recall or supersede it
// (reversibly: archive and consolidation can be undone by a person).
func changes() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)}
}

// Run serves MCP on in and out (the process's standard input and output)
// until the client leaves. Malformed input is answered and skipped, never
// the end of the session (see Transport).
func Run(ctx context.Context, st memory.Store, p memory.Project, tr Trust, llm func() (*consolidate.LLM, error), in io.Reader, out io.Writer) error {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	return New(st, p, tr, llm).Run(ctx, &Transport{In: in, Out: out})
}

func (s *Server) checkTrust(ctx context.Context) {
	if s.trust != nil {
		_ = s.trust.Wake(ctx) // a failed check leaves the last known states in place
	}
}

func (s *Server) projects() []string { return memory.Scope(s.proj.ID) }

// Item is a memory as tools return it.
type Item struct {
	ID         string   `json:"id"`
	Layer      string   `json:"layer"`
	Kind       string   `json:"kind"`
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Tags       []string `json:"tags,omitempty"`
	Provenance string   `json:"provenance"`
	Trust      float64  `json:"trust"`
	Status     string   `json:"status"`
	Score      float64  `json:"score,omitempty"`
	Bindings   []string `json:"bindings,omitempty"` // what it is bound to and the state: "file:src/a.go (intact)"
	// Dedup (remember only) says the memory was already known: reinforced
	// instead of copied, or stored with a merge proposal for a person.
	Dedup *memory.Dedup `json:"dedup,omitempty"`
}

func item(m *memory.Memory) Item {
	return Item{ID: m.ID, Layer: m.Layer.String(), Kind: string(m.Kind), Title: m.Title, Body: m.Body, Tags: m.Tags,
		Provenance: string(m.Provenance), Trust: memory.Trust(m), Status: string(m.Status), Bindings: bindings(m)}
}

func bindings(m *memory.Memory) []string {
	var out []string
	for _, w := range m.Watermarks {
		if w.Kind != memory.WatermarkNone {
			out = append(out, w.Spec()+" ("+string(w.State)+")")
		}
	}
	return out
}

type RecallIn struct {
	Query  string `json:"query,omitempty" jsonschema:"what you are about to do or want to know, in words"`
	Path   string `json:"path,omitempty" jsonschema:"a file, directory or glob you are working on (store/import.go, store/, *.sql): what is known about it first"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many results (default 10)"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget for the results (default 800)"`
}

// RepoItem is a section of the repository recall found.
type RepoItem struct {
	Path      string  `json:"path"`
	Line      int     `json:"line,omitempty"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Signature string  `json:"signature,omitempty"`
	Doc       string  `json:"doc,omitempty"`
	Score     float64 `json:"score"`
}

type RecallOut struct {
	Results     []Item `json:"results"`
	VerifyFirst []Item `json:"verify_first"`
	// Repository is what the repository itself says (derived memory:
	// sections of code and docs, the project's commands and modules),
	// each with the file and line to open.
	Repository []RepoItem `json:"repository,omitempty"`
	Cut        int        `json:"cut"`
	// NothingKnown: nothing stored comes near the query (it went to the
	// project's gap log); Weak: the best answer is a weak one.
	NothingKnown bool `json:"nothing_known,omitempty"`
	Weak         bool `json:"weak,omitempty"`
}

func (s *Server) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallIn) (*mcp.CallToolResult, RecallOut, error) {
	out := RecallOut{Results: []Item{}, VerifyFirst: []Item{}}
	if strings.TrimSpace(in.Query) == "" && strings.TrimSpace(in.Path) == "" {
		return nil, out, fmt.Errorf("query is empty: say what you are about to do or want to know")
	}
	if in.Limit < 0 || in.Budget < 0 {
		return nil, out, fmt.Errorf("limit and budget must be positive")
	}
	s.checkTrust(ctx)
	r, err := s.recaller(ctx)
	if err != nil {
		return nil, out, err
	}
	resp, err := recall.Await(ctx, r, recall.Request{Query: in.Query, Path: in.Path, Projects: s.projects(), Limit: in.Limit, Budget: in.Budget}, nil)
	if err != nil {
		return nil, out, err
	}
	for _, h := range resp.Results {
		it := item(h.Memory)
		it.Score = h.Score
		out.Results = append(out.Results, it)
	}
	for _, h := range resp.VerifyFirst {
		it := item(h.Memory)
		it.Score = h.Score
		out.VerifyFirst = append(out.VerifyFirst, it)
	}
	for _, h := range resp.Repository {
		out.Repository = append(out.Repository, RepoItem{Path: h.Path, Line: h.Line, Kind: string(h.Kind), Name: h.Name,
			Signature: h.Signature, Doc: h.Doc, Score: h.Score})
	}
	out.Cut, out.NothingKnown, out.Weak = resp.Cut, resp.Nothing, resp.Weak
	if resp.Nothing && len(out.Results) == 0 && len(out.VerifyFirst) == 0 && len(out.Repository) == 0 {
		b, _ := json.Marshal(out)
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "nothing known about this in this project's memory; when you find out, remember it"},
			&mcp.TextContent{Text: string(b)},
		}}, out, nil
	}
	return nil, out, nil
}

type FeedbackIn struct {
	ID      string `json:"id" jsonschema:"the id of a memory recall returned"`
	Query   string `json:"query" jsonschema:"the query you recalled it for"`
	Helpful bool   `json:"helpful" jsonschema:"true if it helped with the task, false if it did not"`
}

type FeedbackOut struct {
	ID      string `json:"id"`
	Helpful bool   `json:"helpful"`
}

func (s *Server) feedback(ctx context.Context, _ *mcp.CallToolRequest, in FeedbackIn) (*mcp.CallToolResult, FeedbackOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, FeedbackOut{}, fmt.Errorf("query is empty: give the query you recalled the memory for")
	}
	m, err := s.own(ctx, in.ID)
	if err != nil {
		return nil, FeedbackOut{}, err
	}
	if err := s.st.Feedback(ctx, m.ID, in.Query, in.Helpful, memory.ActorAgent); err != nil {
		return nil, FeedbackOut{}, err
	}
	return nil, FeedbackOut{ID: m.ID, Helpful: in.Helpful}, nil
}

// recaller is the server's recall engine (through the store server) or,
// for a store opened here, an engine built on first use.
func (s *Server) recaller(ctx context.Context) (recall.Recaller, error) {
	s.once.Do(func() { s.rec, s.recErr = recall.For(ctx, s.st) })
	return s.rec, s.recErr
}

type RememberIn struct {
	Text       string   `json:"text" jsonschema:"the memory, self-contained markdown"`
	Layer      string   `json:"layer,omitempty" jsonschema:"invariant, state (default), episode, decision, negative or meta (or A-F)"`
	Kind       string   `json:"kind,omitempty" jsonschema:"fact, preference, procedure, constraint, decision, negative, lesson, event or note"`
	Title      string   `json:"title,omitempty" jsonschema:"one-line title (default: the first line)"`
	Tags       []string `json:"tags,omitempty" jsonschema:"tags"`
	Provenance string   `json:"provenance,omitempty" jsonschema:"measured, observed (default), extracted or inferred (user-stated and user-corrected are for people to write)"`
	Triggers   []string `json:"triggers,omitempty" jsonschema:"for negatives: patterns of a task that should bring this memory up — words (matched by stem), a glob such as *.sql, or /a regular expression/"`
}

func (s *Server) remember(ctx context.Context, _ *mcp.CallToolRequest, in RememberIn) (*mcp.CallToolResult, Item, error) {
	m := &memory.Memory{Project: s.proj.ID, Body: in.Text, Title: in.Title, Tags: in.Tags, Triggers: in.Triggers,
		Layer: memory.LayerState, Provenance: memory.ProvObserved, Source: memory.Source{Actor: memory.ActorAgent, Session: "mcp"}}
	var err error
	if in.Layer != "" {
		if m.Layer, err = memory.ParseLayer(in.Layer); err != nil {
			return nil, Item{}, err
		}
	}
	if in.Kind != "" {
		if m.Kind, err = memory.ParseKind(in.Kind); err != nil {
			return nil, Item{}, err
		}
	}
	if in.Provenance != "" {
		if m.Provenance, err = agentProvenance(in.Provenance); err != nil {
			return nil, Item{}, err
		}
	}
	if s.trust != nil {
		if m.Watermarks, err = s.trust.Bind(ctx, nil, m.Title+"\n"+m.Body); err != nil {
			return nil, Item{}, err
		}
	}
	got, err := s.st.Remember(ctx, m, memory.ActorAgent)
	if err != nil {
		return nil, Item{}, err
	}
	it := item(got)
	if got.Dedup != nil && (got.Dedup.Reinforced != "" || got.Dedup.Near != "") {
		d := *got.Dedup
		it.Dedup = &d
	}
	return s.remembered(ctx, it), it, nil
}

// remembered says in words what remember did (the result's structured
// content says it too), followed by the result as JSON for clients that
// read only text.
func (s *Server) remembered(ctx context.Context, it Item) *mcp.CallToolResult {
	title := func(id string) string {
		if id == it.ID {
			return " '" + safetext.CleanLine(it.Title) + "'"
		}
		if m, err := s.st.Get(ctx, id); err == nil && s.inScope(m.Project) {
			return " '" + safetext.CleanLine(m.Title) + "'"
		}
		return ""
	}
	var say string
	switch d := it.Dedup; {
	case d != nil && d.Reinforced != "":
		say = "already known: reinforced " + d.Reinforced + title(d.Reinforced) + "; nothing new was stored"
	case d != nil && d.Near != "":
		say = "remembered " + it.ID + "; it says nearly the same as " + d.Near + title(d.Near)
		if d.Proposal != "" { // none when a person already declined this merge
			say += ": the merge proposal " + d.Proposal + " waits for a person (`cairn inbox`)"
		}
	default:
		say = "remembered " + it.ID
	}
	js, _ := json.Marshal(it)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: say}, &mcp.TextContent{Text: string(js)}}}
}

// agentProvenance reads the provenance an agent claims. user-stated and
// user-corrected are refused rather than quietly lowered: they earn the
// highest trust, which only a person's own word deserves, and an agent
// told why can resend the note with what it did (observed the user say it).
func agentProvenance(s string) (memory.Provenance, error) {
	p, err := memory.ParseProvenance(s)
	if err != nil {
		return "", err
	}
	if p == memory.ProvUserStated || p == memory.ProvUserCorrected {
		return "", fmt.Errorf("provenance %s is for what a person writes themselves: "+
			"record what you heard or saw as observed (or measured, extracted, inferred)", p)
	}
	return p, nil
}

type CaptureIn struct {
	Text   string `json:"text" jsonschema:"raw text to keep for later consolidation"`
	Source string `json:"source,omitempty" jsonschema:"where it came from, e.g. a session or file name"`
}

type CaptureOut struct {
	ID string `json:"id"`
}

func (s *Server) capture(ctx context.Context, _ *mcp.CallToolRequest, in CaptureIn) (*mcp.CallToolResult, CaptureOut, error) {
	// The store checks the source's characters and scans it for secrets;
	// only here can a client name it freely, so its length is held here to
	// that of the other short labels.
	if len(in.Source) > memory.MaxRef {
		return nil, CaptureOut{}, fmt.Errorf("source is %d bytes long: keep it under %d", len(in.Source), memory.MaxRef)
	}
	d, err := s.st.Capture(ctx, memory.Draft{Project: s.proj.ID, Actor: memory.ActorAgent, Text: in.Text, Source: memory.Source{Actor: memory.ActorAgent, Session: in.Source}})
	if err != nil {
		return nil, CaptureOut{}, err
	}
	return nil, CaptureOut{ID: d.ID}, nil
}

type ContextIn struct {
	Budget int `json:"budget,omitempty" jsonschema:"token budget (default 800)"`
}

type ContextOut struct {
	Markdown string `json:"markdown"`
	Cut      int    `json:"cut"`
}

func (s *Server) context(ctx context.Context, _ *mcp.CallToolRequest, in ContextIn) (*mcp.CallToolResult, ContextOut, error) {
	if in.Budget < 0 {
		return nil, ContextOut{}, fmt.Errorf("budget must be positive")
	}
	s.checkTrust(ctx)
	b, err := recall.Context(ctx, s.st, s.projects(), in.Budget)
	if err != nil {
		return nil, ContextOut{}, err
	}
	md := b.Markdown()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: md}}}, ContextOut{Markdown: md, Cut: b.Cut}, nil
}

type ArchiveIn struct {
	ID     string `json:"id" jsonschema:"id of the memory to archive"`
	Reason string `json:"reason" jsonschema:"why it no longer matters (recorded in the timeline)"`
}

func (s *Server) archive(ctx context.Context, _ *mcp.CallToolRequest, in ArchiveIn) (*mcp.CallToolResult, Item, error) {
	if strings.TrimSpace(in.Reason) == "" {
		return nil, Item{}, fmt.Errorf("a reason is required: say why this memory no longer matters")
	}
	m, err := s.own(ctx, in.ID)
	if err != nil {
		return nil, Item{}, err
	}
	if m.Project != s.proj.ID {
		return nil, Item{}, fmt.Errorf("memory %s is global: agents archive only this project's memories; ask the person to archive it", m.ID)
	}
	m, err = s.st.Archive(ctx, m.ID, in.Reason, memory.ActorAgent)
	if err != nil {
		return nil, Item{}, err
	}
	return nil, item(m), nil
}

// own finds the memory an agent names by id or id prefix, among this
// project's memories and global ones only. The store's Resolve looks in
// every project, so its answers (and its ambiguity errors, which list the
// ids that matched) are not used here: whatever lies in another project is
// reported as absent, exactly as if it did not exist.
func (s *Server) own(ctx context.Context, idOrPrefix string) (*memory.Memory, error) {
	p := strings.ToUpper(strings.TrimSpace(idOrPrefix))
	switch {
	case p == "":
		return nil, fmt.Errorf("id is empty: give the id of a memory (as recall returns it)")
	case len(p) > idLen || strings.IndexFunc(p, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') }) >= 0:
		return nil, fmt.Errorf("%q is not a memory id: give the id as recall returns it", idOrPrefix)
	case len(p) < 4:
		return nil, fmt.Errorf("id %q is too short: give at least 4 characters", idOrPrefix)
	}
	notHere := fmt.Errorf("no memory %s in this project: take the id from recall", p)
	if len(p) == idLen {
		m, err := s.st.Get(ctx, p)
		if errors.Is(err, memory.ErrNotFound) || err == nil && !s.inScope(m.Project) {
			return nil, notHere
		}
		return m, err
	}
	var found []*memory.Memory
	for _, proj := range s.projects() {
		q := memory.Query{Project: proj, Status: memory.StatusAny, Limit: 500}
		for len(found) < 2 {
			page, err := s.st.List(ctx, q)
			if err != nil {
				return nil, err
			}
			for _, m := range page.Memories {
				if strings.HasPrefix(m.ID, p) {
					found = append(found, m)
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	switch len(found) {
	case 0:
		return nil, notHere
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("id %s is ambiguous (%s, %s …): give more characters", p, found[0].ID, found[1].ID)
}

// idLen is the length of a memory id (a ULID).
const idLen = 26

func (s *Server) inScope(project string) bool {
	return project == s.proj.ID || project == memory.GlobalID
}
