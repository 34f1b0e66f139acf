package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"cairn/mcpserver"
	"cairn/memory"
	"cairn/recall"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "serve agents over the Model Context Protocol on stdio (" + strings.Join(mcpserver.ToolNames, ", ") + ")",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			return mcpserver.Run(cmd.Context(), a.st, a.proj, a.trustService(), a.llm, a.env.Stdin, a.env.Stdout)
		},
	}
}

// scope is the current project plus global.
func (a *app) scope() []string { return memory.Scope(a.proj.ID) }

func (a *app) contextCommand() *cobra.Command {
	var budget int
	c := &cobra.Command{
		Use:   "context",
		Short: "the warm-up briefing for the start of a session, as markdown",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget <= 0 {
				return usagef("--budget %d: use a positive number of tokens", budget)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			b, err := recall.Context(cmd.Context(), a.st, a.scope(), budget)
			if err != nil {
				return err
			}
			if a.json {
				return a.briefingJSON(cmd, b)
			}
			fmt.Fprint(cmd.OutOrStdout(), b.Markdown())
			return nil
		},
	}
	c.Flags().IntVar(&budget, "budget", 800, "token budget")
	return c
}

// briefingJSON prints a briefing with its memories as records, like every
// other --json output (the project by name, trust shown).
func (a *app) briefingJSON(cmd *cobra.Command, b recall.Briefing) error {
	type section struct {
		Title    string          `json:"title"`
		Memories []memory.Record `json:"memories"`
	}
	out := struct {
		Sections []section `json:"sections"`
		Cut      int       `json:"cut"`
	}{Sections: []section{}, Cut: b.Cut}
	for _, s := range b.Sections {
		sec := section{Title: s.Title, Memories: []memory.Record{}}
		for _, m := range s.Memories {
			r, err := a.record(cmd.Context(), m)
			if err != nil {
				return err
			}
			sec.Memories = append(sec.Memories, r)
		}
		out.Sections = append(out.Sections, sec)
	}
	return writeJSON(cmd.OutOrStdout(), out)
}

func (a *app) recallCommand() *cobra.Command {
	var limit, budget int
	var archived, explain, peek bool
	var layers []string
	var batch, path string
	c := &cobra.Command{
		Use:   "recall QUERY [--path PATTERN] | --path PATTERN | --batch FILE.jsonl",
		Short: "the memories that matter for a task, ranked, budgeted and explained",
		Long: `Recall the memories that matter for a task, ranked, budgeted and explained.

Scores are absolute: 1 or more means a memory holds the query's words, under
0.40 nothing is known about the query and nothing is returned ("nothing known
about this"); such a query and one with only weak answers go to the gap log
(cairn gaps). --path puts what is known about matching files first: a path
(store/import.go, or import.go), a directory (store/) or a glob (*.sql,
store/**/*.go); with --path the query may be left out.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("budget") {
				budget = a.cfg.Int("recall.budget") // the settings' default
			}
			if limit <= 0 || budget <= 0 {
				return usagef("--limit and --budget must be positive")
			}
			if batch != "" && (len(args) > 0 || path != "") {
				return usagef("give a QUERY (and --path) or --batch FILE.jsonl, not both")
			}
			if batch == "" && len(args) == 0 && path == "" {
				return usagef("give a QUERY, a --path PATTERN, or --batch FILE.jsonl")
			}
			if path != "" {
				if err := memory.ValidPathPattern(path); err != nil {
					return usage(err)
				}
			}
			req := recall.Request{Limit: limit, Budget: budget, Archived: archived, Peek: peek, Path: path}
			for _, l := range layers {
				layer, err := memory.ParseLayer(l)
				if err != nil {
					return usage(err)
				}
				req.Layers = append(req.Layers, layer)
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			r, err := recall.For(cmd.Context(), a.st)
			if err != nil {
				return err
			}
			if batch != "" {
				return a.recallBatch(cmd, r, req, batch)
			}
			if len(args) > 0 {
				req.Query = args[0]
			}
			req.Projects = a.scope()
			progress, done := a.buildProgress()
			resp, err := recall.Await(cmd.Context(), r, req, progress)
			done()
			if err != nil {
				return err
			}
			if a.json {
				out, err := a.recallJSON(cmd.Context(), resp, explain)
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			a.printRecall(cmd, resp, explain)
			return nil
		},
	}
	c.Flags().IntVarP(&limit, "limit", "n", 10, "at most this many results")
	c.Flags().IntVar(&budget, "budget", 800, "token budget for the results (default: recall.budget in cairn config)")
	c.Flags().StringArrayVarP(&layers, "layer", "l", nil, "only these layers (repeatable)")
	c.Flags().BoolVar(&archived, "archived", false, "include archived memories")
	c.Flags().BoolVar(&explain, "explain", false, "say why each result is there")
	c.Flags().BoolVar(&peek, "peek", false, "do not count this recall as an access (salience); for evaluations")
	c.Flags().StringVar(&batch, "batch", "", `JSON Lines of {"id","query","project"} to answer in one go (with --json)`)
	c.Flags().StringVar(&path, "path", "", "what is known about files matching this path, directory or glob first")
	return c
}

// recallOut is the JSON answer of a recall.
type recallOut struct {
	Results     []recallItem `json:"results"`
	VerifyFirst []recallItem `json:"verify_first"`
	Cut         int          `json:"cut"`
	Note        string       `json:"note,omitempty"`
	Nothing     bool         `json:"nothing_known,omitempty"`
	Weak        bool         `json:"weak,omitempty"`
	// Repository is what the repository says (derived memory), ranked
	// with the results.
	Repository []recall.SectionHit `json:"repository,omitempty"`
}

type recallItem struct {
	memory.Record
	Score   float64         `json:"score"`
	Part    recall.Part     `json:"part"`
	Explain *recall.Explain `json:"explain,omitempty"`
	History []memory.Record `json:"history,omitempty"`
}

func (a *app) recallJSON(ctx context.Context, resp recall.Response, explain bool) (recallOut, error) {
	out := recallOut{Results: []recallItem{}, VerifyFirst: []recallItem{}, Cut: resp.Cut, Note: resp.Note, Nothing: resp.Nothing, Weak: resp.Weak, Repository: resp.Repository}
	if !explain {
		for i := range out.Repository {
			out.Repository[i].Explain = recall.Explain{}
		}
	}
	conv := func(hs []recall.Hit) ([]recallItem, error) {
		items := []recallItem{}
		for _, h := range hs {
			rec, err := a.record(ctx, h.Memory)
			if err != nil {
				return nil, err
			}
			it := recallItem{Record: rec, Score: h.Score, Part: h.Part}
			if explain {
				ex := h.Explain
				it.Explain = &ex
			}
			for _, old := range h.History {
				it.History = append(it.History, memory.ToRecord(old, a.projectName(ctx, old.Project), nil))
			}
			items = append(items, it)
		}
		return items, nil
	}
	var err error
	if out.Results, err = conv(resp.Results); err != nil {
		return out, err
	}
	out.VerifyFirst, err = conv(resp.VerifyFirst)
	return out, err
}

func (a *app) printRecall(cmd *cobra.Command, resp recall.Response, explain bool) {
	w := cmd.OutOrStdout()
	if resp.Note != "" {
		fmt.Fprintln(w, "note: "+cleanLine(resp.Note))
	}
	switch {
	case resp.Nothing && len(resp.Results) == 0 && len(resp.VerifyFirst) == 0 && len(resp.Repository) == 0:
		fmt.Fprintln(w, "nothing known about this (noted in the gap log: cairn gaps)")
	case len(resp.Results) == 0 && len(resp.Repository) == 0:
		fmt.Fprintln(w, "nothing recalled")
	case resp.Weak:
		fmt.Fprintln(w, "only weak answers (noted in the gap log: cairn gaps)")
	}
	var ids []string
	for _, hs := range [][]recall.Hit{resp.Results, resp.VerifyFirst} {
		for _, h := range hs {
			ids = append(ids, h.Memory.ID)
			for _, old := range h.History {
				ids = append(ids, old.ID)
			}
		}
	}
	a.shorten(cmd.Context(), ids...)
	show := func(i int, h recall.Hit) {
		fmt.Fprintf(w, "%2d. %.2f  %s  %s  %s\n", i+1, h.Score, a.shorts[h.Memory.ID], h.Memory.Layer.Letter(), cleanLine(h.Memory.Title))
		if explain {
			x := h.Explain
			line := fmt.Sprintf("    lexical %.2f (#%d) · vector %.2f (#%d) · relevance %.2f · salience %.2f · trust %.2f · final %.2f", x.Lexical, x.LexicalRnk, x.Vector, x.VectorRnk, x.Relevance, x.Salience, x.Trust, x.Final)
			if x.Feedback != 0 {
				line += fmt.Sprintf(" · feedback %+.2f", x.Feedback)
			}
			if x.Trigger != "" {
				line += " · trigger " + cleanLine(x.Trigger)
			}
			if x.Path != "" {
				line += " · about " + cleanLine(x.Path)
			}
			if x.Graph != "" {
				line += " · via " + cleanLine(x.Graph)
			}
			if x.Context != 0 {
				line += fmt.Sprintf(" · beside %.2f in its session", x.Context)
			}
			if x.When != "" {
				line += " · of " + x.When
			}
			fmt.Fprintln(w, line)
		}
		for _, old := range h.History {
			fmt.Fprintf(w, "    history: %s %s (superseded)\n", a.shorts[old.ID], cleanLine(old.Title))
		}
	}
	// Results come in parts, each ranked by score: why a 0.79 can stand
	// above a 0.99. Headings are shown when there is more than the rest.
	headed := false
	for _, h := range resp.Results {
		headed = headed || h.Part != recall.PartRelevant
	}
	part := recall.Part("")
	for i, h := range resp.Results {
		if headed && h.Part != part {
			fmt.Fprintln(w, partHeadings[h.Part])
		}
		part = h.Part
		show(i, h)
	}
	if len(resp.Repository) > 0 {
		fmt.Fprintln(w, "from the repository:")
		for i, h := range resp.Repository {
			printSection(w, i, h, explain)
		}
	}
	if len(resp.VerifyFirst) > 0 {
		fmt.Fprintln(w, "verify first (may be stale):")
		for i, h := range resp.VerifyFirst {
			show(i, h)
		}
	}
	if resp.Cut > 0 {
		fmt.Fprintf(w, "%d more cut by the budget (--budget, --limit)\n", resp.Cut)
	}
}

// printSection prints a section of the repository as an editor opens it
// (path:line), with what it is and the first line of its doc.
func printSection(w io.Writer, i int, h recall.SectionHit, explain bool) {
	title := cleanLine(h.Name)
	if h.Signature != "" && h.Kind != memory.SectionHeading {
		title = cleanLine(h.Signature)
	}
	fmt.Fprintf(w, "%2d. %.2f  %s  %s\n", i+1, h.Score, cleanLine(h.Where()), title)
	if doc, _, _ := strings.Cut(strings.TrimSpace(h.Doc), "\n"); doc != "" && doc != h.Name {
		if r := []rune(doc); len(r) > 110 {
			doc = string(r[:109]) + "…"
		}
		fmt.Fprintf(w, "    %s\n", cleanLine(doc))
	}
	if explain {
		x := h.Explain
		fmt.Fprintf(w, "    lexical %.2f (#%d) · vector %.2f · relevance %.2f · derived from %s\n", x.Lexical, x.LexicalRnk, x.Vector, x.Relevance, cleanLine(h.Path))
	}
}

// partHeadings head the parts of a recall's results in text.
var partHeadings = map[recall.Part]string{
	recall.PartTriggered: "triggered (what failed before, named by the task):",
	recall.PartPath:      "about the files asked for:",
	recall.PartInvariant: "invariants (rules that hold here):",
	recall.PartRelevant:  "the rest, by relevance:",
}

// recallBatch answers a JSON Lines file of queries, one line out per line in.
func (a *app) recallBatch(cmd *cobra.Command, r recall.Recaller, base recall.Request, path string) error {
	progress, done := a.buildProgress()
	defer done()
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	type line struct {
		ID      string `json:"id"`
		Query   string `json:"query"`
		Project string `json:"project"`
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var lines []line
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l line
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil || strings.TrimSpace(l.Query) == "" {
			return fmt.Errorf("%s: line %d: want {\"id\": \"...\", \"query\": \"...\", \"project\": \"...\"} with a query", path, n)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetEscapeHTML(false)
	scopes := map[string][]string{"": a.scope()}
	for _, l := range lines {
		scope, ok := scopes[l.Project]
		if !ok {
			p, err := a.st.ProjectByName(cmd.Context(), l.Project)
			if err != nil {
				return hintf("list them with: cairn projects", "query %s: no project %q", l.ID, l.Project)
			}
			scope = []string{p.ID, memory.GlobalID}
			scopes[l.Project] = scope
		}
		req := base
		req.Query, req.Projects = l.Query, scope
		resp, err := recall.Await(cmd.Context(), r, req, progress)
		if err != nil {
			return fmt.Errorf("query %s: %w", l.ID, err)
		}
		out, err := a.recallJSON(cmd.Context(), resp, false)
		if err != nil {
			return err
		}
		if err := enc.Encode(struct {
			ID string `json:"id"`
			recallOut
		}{l.ID, out}); err != nil {
			return err
		}
	}
	return nil
}

// buildProgress tells the person that a recall waits for the index to be
// built: on a terminal a line rewritten in place (cleared when the answer
// comes), elsewhere the first note once, so the wait is never silent.
func (a *app) buildProgress() (progress func(string), done func()) {
	f, tty := a.env.Stderr.(*os.File)
	tty = tty && term.IsTerminal(f.Fd())
	told := false
	progress = func(note string) {
		switch {
		case tty:
			fmt.Fprint(a.env.Stderr, "\r"+cleanLine(note)+"\x1b[K")
		case !told:
			fmt.Fprintln(a.env.Stderr, "cairn: "+cleanLine(note))
		}
		told = true
	}
	done = func() {
		if tty && told {
			fmt.Fprint(a.env.Stderr, "\r\x1b[K")
		}
	}
	return progress, done
}
