package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"cairn/exchange"
	"cairn/internal/atomicfile"
	"cairn/memory"
	"cairn/project"
	"cairn/safetext"
	"cairn/trust"
)

// formatOf picks jsonl or md from --format or the path.
func formatOf(path, flag string) (string, error) {
	switch flag {
	case "jsonl", "md":
		return flag, nil
	case "":
	default:
		return "", usagef("unknown --format %q: use jsonl or md", flag)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "md", nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json", ".ndjson":
		return "jsonl", nil
	case "", ".md":
		return "md", nil
	}
	return "", usagef("cannot tell the format of %s: add --format jsonl or --format md", path)
}

func (a *app) importCommand() *cobra.Command {
	var format, notes string
	c := &cobra.Command{
		Use:   "import PATH",
		Short: "import memories from JSON Lines or a markdown directory (idempotent)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			f, err := formatOf(path, format)
			if err != nil {
				return err
			}
			var notesLayer memory.Layer
			if notes != "" {
				if f != "md" {
					return usagef("--notes is for a markdown folder (an Obsidian vault), not %s", f)
				}
				if notesLayer, err = memory.ParseLayer(notes); err != nil {
					return usage(err)
				}
			}
			src, err := openImport(path, f, notesLayer)
			if err != nil {
				return err
			}
			defer src.close()
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			src.progress = a.fileProgress("importing", path)
			res, err := a.st.ImportStream(cmd.Context(), a.proj.ID, src.next, memory.ActorUser)
			src.progress.clear() // before any report: stdout and stderr may share the terminal
			if err != nil {
				var ie *memory.ImportError
				var le *exchange.LineError
				switch {
				case errors.As(err, &le): // the file, read as it streams
					return fmt.Errorf("%s: %w — nothing was imported", path, err)
				case errors.As(err, &ie):
					return fmt.Errorf("%s: %s: %v — nothing was imported", path, src.where(ie.Index), ie.Err)
				}
				return fmt.Errorf("%s: %w — nothing was imported", path, err)
			}
			bound, err := a.bindImported(cmd.Context(), src.bind, res.New)
			if err != nil {
				fmt.Fprintln(a.env.Stderr, "cairn: imported, but binding the new memories failed: "+oneLine(err.Error()))
			}
			var vl vaultLinks
			if src.vault != nil {
				vl, err = a.linkVault(cmd.Context(), src.vault, res.New)
				if err != nil {
					fmt.Fprintln(a.env.Stderr, "cairn: imported, but linking what the bodies' [[links]] name failed: "+oneLine(err.Error()))
				}
			}
			if a.json {
				out := importReport{ImportResult: res, BodyLinks: vl.Linked, Unresolved: vl.Unresolved, Ambiguous: vl.Ambiguous}
				if src.vault != nil {
					out.Skipped, out.Fields = src.vault.Skipped, src.vault.Fields
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			unchanged := fmt.Sprintf("%d unchanged", res.Unchanged)
			if res.Reinforced > 0 { // known facts said again: reinforced, not copied
				unchanged += fmt.Sprintf(" (%d said again: reinforced)", res.Reinforced)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %s into %s: %d added (%d bound to files or flags), %d updated, %s, %d links\n",
				path, a.proj.Name, res.Added, bound, res.Updated, unchanged, res.Edges+vl.Linked)
			if res.Events > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "and %d timeline events as they were\n", res.Events)
			}
			if src.vault != nil {
				if sk := src.vault.Skipped.String(); sk != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "skipped %s\n", sk)
					if k := src.vault.Skipped; k.NoFrontmatter+k.NotMemory > 0 {
						fmt.Fprintln(cmd.OutOrStdout(), "plain notes come in with --notes LAYER (e.g. --notes C), titled by their file names")
					}
				}
				if fc := src.vault.Fields.String(); fc != "" {
					fmt.Fprintln(cmd.OutOrStdout(), fc)
				}
			}
			for _, amb := range vl.Ambiguous {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s names %s: not linked; write the folder in the link (e.g. [[%s]])\n",
					cleanLine(amb.File), cleanLine(amb.Link), cleanLine(strings.Join(amb.Candidates, " and ")), cleanLine(strings.TrimSuffix(amb.Candidates[0], filepath.Ext(amb.Candidates[0]))))
			}
			if vl.Unresolved > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%d [[links]] name nothing in the import or the project\n", vl.Unresolved)
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "jsonl or md (default: from the path)")
	c.Flags().StringVar(&notes, "notes", "", "md: import plain notes (no frontmatter, or none naming a layer) into this layer (A-F or its name), titled by file name")
	return c
}

// importSource hands an import file's records to the store a chunk at a
// time. A JSON Lines file is read as it streams (a bad line stops the
// import, which the store then undoes); a markdown directory is read
// whole first (its files are a person's notes, not 100,000 records).
type importSource struct {
	jsonl    *exchange.JSONLFile // nil: markdown
	vault    *exchange.Vault     // markdown: what the directory held
	recs     []memory.Record     // markdown: every record
	files    []string            // markdown: the file of each record
	sent     int                 // records handed over
	progress *fileProgress
	// bind keeps, by record, the memories that binding may bind: active,
	// with no bindings of their own, whose text can name a path or a flag
	// (trust.MayBind). Every other record is dropped once sent.
	bind map[int]*memory.Memory
}

func openImport(path, format string, notes memory.Layer) (*importSource, error) {
	src := &importSource{bind: map[int]*memory.Memory{}}
	if format == "md" {
		v, err := exchange.ReadVaultNotes(path, notes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
		}
		src.recs, src.files, src.vault = v.Records, v.Files, v
		return src, nil
	}
	f, err := exchange.OpenJSONL(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
	}
	src.jsonl = f
	return src, nil
}

func (s *importSource) close() {
	if s.jsonl != nil {
		s.jsonl.Close()
	}
}

// next is the store's source of records (see store.ImportStream).
func (s *importSource) next() ([]memory.Record, error) {
	var recs []memory.Record
	var err error
	if s.jsonl != nil {
		recs, err = s.jsonl.Next(memory.ImportChunk)
		s.progress.show(s.jsonl.Read(), s.jsonl.Size)
	} else {
		recs = s.recs[s.sent:min(s.sent+memory.ImportChunk, len(s.recs))]
		if len(recs) == 0 {
			err = io.EOF
		}
		s.progress.show(int64(s.sent+len(recs)), int64(len(s.recs)))
	}
	for i, r := range recs {
		if len(r.Watermarks) > 0 || (r.Status != "" && r.Status != memory.StatusActive) {
			continue // bindings come with it, or it is history
		}
		if m, _ := r.ToMemory(""); trust.MayBind(m.Text()) {
			s.bind[s.sent+i] = m
		}
	}
	s.sent += len(recs)
	return recs, err
}

// where names record i of the import: its line, or its file.
func (s *importSource) where(i int) string {
	if s.jsonl != nil {
		return fmt.Sprintf("line %d", s.jsonl.Line(i))
	}
	if i >= 0 && i < len(s.files) {
		return s.files[i]
	}
	return fmt.Sprintf("record %d", i+1)
}

// bindImported binds the memories an import added without bindings to
// what their text names here (imported bindings are kept as they came).
func (a *app) bindImported(ctx context.Context, bind map[int]*memory.Memory, added []memory.Added) (int, error) {
	var ms []*memory.Memory
	for _, ad := range added {
		if m := bind[ad.Record]; m != nil {
			m.Project, m.ID = a.proj.ID, ad.ID
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return 0, nil
	}
	return a.trustService().BindNew(ctx, ms)
}

// fileProgress shows how far an import or export has come, on a line of
// stderr rewritten in place, when stderr is a terminal; nil shows nothing.
type fileProgress struct {
	w     io.Writer
	verb  string // "importing", "exporting"
	what  string
	last  time.Time
	shown bool
}

func (a *app) fileProgress(verb, path string) *fileProgress {
	if f, ok := a.env.Stderr.(*os.File); ok && term.IsTerminal(f.Fd()) {
		return &fileProgress{w: f, verb: verb, what: cleanLine(path)}
	}
	return nil
}

func (p *fileProgress) show(done, total int64) {
	if p == nil || total <= 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < progressTick && done < total {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.w, "\r%s %s … %d %%\x1b[K", p.verb, p.what, min(100, done*100/total))
}

func (p *fileProgress) clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func readJSONL(path string, b []byte) ([]memory.Record, []string, error) {
	recs, lines, err := exchange.ReadJSONLLines(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w — nothing was imported", path, err)
	}
	return recs, lineNames(lines), nil
}

func lineNames(lines []int) []string {
	where := make([]string, len(lines))
	for i, n := range lines {
		where[i] = fmt.Sprintf("line %d", n)
	}
	return where
}

func (a *app) exportCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "export PATH",
		Short: "export the project's memories (every status, with links) as JSON Lines or markdown",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			f, err := formatOf(path, format)
			if err != nil {
				return err
			}
			if err := a.open(cmd.Context(), false); err != nil {
				return err
			}
			progress := a.fileProgress("exporting", path)
			recs, err := a.allRecords(cmd.Context(), a.proj.ID, progress)
			if err != nil {
				progress.clear()
				return err
			}
			progress.show(1, 1) // read; writing the files is the quick part
			events, err := a.timelineRecords(cmd.Context(), a.proj.ID)
			if err != nil {
				progress.clear()
				return err
			}
			if f == "md" {
				err = exchange.WriteMarkdown(path, append(recs, events...))
			} else {
				err = writeFileAtomic(path, func(w io.Writer) error { return exchange.WriteJSONL(w, append(recs, events...)) })
			}
			progress.clear() // before any report: stdout and stderr may share the terminal
			if err != nil {
				return fmt.Errorf("export to %s: %w", path, err)
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"exported": len(recs), "path": path, "format": f})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %d memories of %s to %s\n", len(recs), a.proj.Name, path)
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "jsonl or md (default: from the path; a directory or no extension is md)")
	return c
}

// allRecords reads every memory of a project, oldest first, with its edges
// and its earlier versions (progress, if not nil, is told how far: the
// edges are a call each, and the versions of an edited memory another).
func (a *app) allRecords(ctx context.Context, pid string, progress *fileProgress) ([]memory.Record, error) {
	var recs []memory.Record
	total := int64(0)
	if progress != nil {
		if c, err := a.st.Count(ctx, pid); err == nil {
			for _, byStatus := range c.ByLayer {
				for _, n := range byStatus {
					total += int64(n)
				}
			}
		}
	}
	err := memory.EachPage(ctx, a.st, memory.Query{Project: pid, Status: memory.StatusAny, Limit: 1000}, func(page []*memory.Memory) error {
		for _, m := range page {
			r, err := a.record(ctx, m)
			if err != nil {
				return err
			}
			if r.History, err = a.history(ctx, m); err != nil {
				return err
			}
			recs = append(recs, r)
			progress.show(int64(len(recs))*9/10, total) // the last tenth: writing
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs, nil
}

// history is a memory's earlier versions as records, oldest first: what
// they said, not how much they have been read since (no trust).
func (a *app) history(ctx context.Context, m *memory.Memory) ([]memory.Record, error) {
	if m.Version <= 1 {
		return nil, nil // never edited: no versions to read
	}
	vs, err := a.st.History(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	var out []memory.Record
	for _, v := range vs[:max(0, len(vs)-1)] {
		r := memory.ToRecord(v, "", nil)
		r.ID, r.Trust = "", 0
		out = append(out, r)
	}
	return out, nil
}

// timelineRecords is a project's timeline as export records, oldest first.
func (a *app) timelineRecords(ctx context.Context, pid string) ([]memory.Record, error) {
	events, err := a.st.Timeline(ctx, pid, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Record, 0, len(events))
	for _, e := range slices.Backward(events) {
		e.Project, e.Title = "", "" // the importing store's own, and the memory's own
		out = append(out, memory.Record{Event: &e})
	}
	return out, nil
}

// writeFileAtomic writes path through a temporary file and a rename. The
// temporary file is created exclusively with mode 0o600 (an export may
// hold private text), and the rename replaces whatever is at path rather
// than writing through it; a path that is itself a symbolic link is
// refused, since the person meant the file it leads to.
func writeFileAtomic(path string, fn func(io.Writer) error) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			target = "nowhere"
		}
		return fmt.Errorf("is a symbolic link to %s: export to the real path instead", safetext.CleanLine(target))
	}
	return atomicfile.Write(path, 0o600, fn)
}

func mustNamed(name string) memory.Project {
	p, _ := project.Named(name)
	return p
}
