package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cairn/derive"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cairn/internal/config"
	"cairn/memory"
	"cairn/safetext"
	"cairn/themes"
)

// The Repository section shows derived memory (DESIGN §2, "two sources of
// truth"): what the repository itself says, as cairn index read it. Its
// list is the project's modules; enter on one lists the sections of its
// files, and enter (or e) on a section opens the file at its line in the
// person's editor. It is read-only: derived memory follows the files, and
// the keys that curate memories say so instead of acting.

// errDerivedReadOnly is what a curating key or command says here.
var errDerivedReadOnly = errors.New("derived memory is read-only: it follows the files; exclude a path with cairn index --exclude")

// repoRow is one row of the Repository list: a module, or in an open
// module one section of its files (sec nil: a file no reader found
// sections in, shown whole so that it can still be opened).
type repoRow struct {
	mod  *memory.Module
	file *memory.DerivedFile
	sec  *memory.Section
}

// key names the row across reloads: the selection follows it (a re-index
// moves sections to other rows).
func (r repoRow) key() string {
	switch {
	case r.mod != nil:
		return "module:" + r.mod.Path
	case r.sec != nil:
		return fmt.Sprintf("%s:%s:%s", r.file.Path, r.sec.Kind, r.sec.Name)
	}
	return r.file.Path
}

// line is where the row opens its file.
func (r repoRow) line() int {
	if r.sec != nil {
		return r.sec.Line
	}
	return 1
}

// text is what the filter reads of the row.
func (r repoRow) text() string {
	switch {
	case r.mod != nil:
		return strings.Join([]string{modulePath(r.mod.Path), strings.Join(r.mod.Langs, " "), r.mod.Summary, strings.Join(r.mod.Exported, " ")}, " ")
	case r.sec != nil:
		return strings.Join([]string{r.file.Path, string(r.sec.Kind), r.sec.Name, r.sec.Signature}, " ")
	}
	return r.file.Path
}

// modulePath is a module's path as a person reads it: "derive/", the root "./".
func modulePath(p string) string {
	if p == "" {
		return "./"
	}
	return p + "/"
}

// repoPane is the Repository section's state: the summary, the module
// open (if any) with its files, the rows shown, a filter over them.
type repoPane struct {
	loaded  bool
	sum     *memory.RepoSummary // nil: never indexed
	module  string              // the open module's path
	open    bool                // a module's sections show (else the modules)
	files   []memory.DerivedFile
	rows    []repoRow
	vis     []repoRow // rows that pass the filter
	back    string    // the module row to select again when esc goes back
	backF   string    // and the filter the modules had
	filter  string
	typing  bool // the filter is being typed
	cursor  int
	offset  int
	pg      pager  // what shows of the detail, laid out by fit
	req     int    // the request whose answer is awaited
	project string // the project whose summary this is
}

// setRows replaces the rows, keeping the selection on the same row when
// it is still there (else on the row that took its place, or want).
func (p *repoPane) setRows(rows []repoRow, want string) {
	if want == "" {
		if sel := p.selected(); sel != nil {
			want = sel.key()
		}
	}
	p.rows = rows
	p.refilter()
	for i, r := range p.vis {
		if r.key() == want {
			if i != p.cursor {
				p.pg.top()
			}
			p.cursor = i
			return
		}
	}
	p.cursor = clamp(p.cursor, 0, max(len(p.vis)-1, 0))
	p.pg.top()
}

// refilter computes the visible rows: those holding every word of the
// filter, in any order and case.
func (p *repoPane) refilter() {
	if strings.TrimSpace(p.filter) == "" {
		p.vis = p.rows
		return
	}
	words := strings.Fields(strings.ToLower(p.filter))
	p.vis = nil
	for _, r := range p.rows {
		text := strings.ToLower(r.text())
		ok := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				ok = false
				break
			}
		}
		if ok {
			p.vis = append(p.vis, r)
		}
	}
}

func (p *repoPane) selected() *repoRow {
	if p.cursor < 0 || p.cursor >= len(p.vis) {
		return nil
	}
	return &p.vis[p.cursor]
}

func (p *repoPane) move(d, rows int) {
	c := clamp(p.cursor+d, 0, max(len(p.vis)-1, 0))
	if c != p.cursor {
		p.pg.top()
	}
	p.cursor = c
	p.offset = follow(p.cursor, p.offset, rows)
	if rows > 0 {
		p.offset = max(min(p.offset, len(p.vis)-rows), 0)
	}
}

// moduleRows are the summary's modules as rows.
func moduleRows(sum *memory.RepoSummary) []repoRow {
	if sum == nil {
		return nil
	}
	rows := make([]repoRow, len(sum.Modules))
	for i := range sum.Modules {
		rows[i] = repoRow{mod: &sum.Modules[i]}
	}
	return rows
}

// moduleFiles keeps the files module holds, as derive.Modules counts
// them: the root holds the files directly in it, a top-level directory
// every file under it, a deeper module what no deeper module holds.
func moduleFiles(files []memory.DerivedFile, module string, modules []memory.Module) []memory.DerivedFile {
	var deeper []string
	if strings.Contains(module, "/") {
		for _, m := range modules {
			if strings.HasPrefix(m.Path, module+"/") {
				deeper = append(deeper, m.Path)
			}
		}
	}
	var out []memory.DerivedFile
	for _, f := range files {
		dir := path.Dir(f.Path)
		switch {
		case module == "":
			if dir != "." {
				continue
			}
		case f.Path != module && !strings.HasPrefix(f.Path, module+"/"):
			continue
		}
		held := false
		for _, d := range deeper {
			if strings.HasPrefix(f.Path, d+"/") {
				held = true
				break
			}
		}
		if !held {
			out = append(out, f)
		}
	}
	return out
}

// sectionRows are the sections of files as rows, by file and line; a
// file without sections is one row.
func sectionRows(files []memory.DerivedFile) []repoRow {
	var rows []repoRow
	for i := range files {
		f := &files[i]
		// By line: a README's summary paragraph (line 3) after its title
		// (line 1), README.md:1 before README.md:10. A file's own words
		// are recall's, not a section to browse (derive.OutlineOf does
		// not count them either).
		start := len(rows)
		for j := range f.Sections {
			if f.Sections[j].Kind != memory.SectionFile {
				rows = append(rows, repoRow{file: f, sec: &f.Sections[j]})
			}
		}
		if len(rows) == start {
			rows = append(rows, repoRow{file: f})
			continue
		}
		sort.SliceStable(rows[start:], func(i, j int) bool { return rows[start+i].sec.Line < rows[start+j].sec.Line })
	}
	return rows
}

// heading is the list's two lines of heading: what the project is and when
// it was indexed, or which module is open.
func (p *repoPane) heading(t themes.Theme, w int) []string {
	st := t.Styles
	if p.sum == nil {
		return []string{st.Title.Render("Repository")}
	}
	s := p.sum
	count := fmt.Sprint(len(p.vis))
	if p.filter != "" {
		count = fmt.Sprintf("%d of %d", len(p.vis), len(p.rows))
	}
	if p.open {
		// Sections as the module's summary counts them: a file without
		// any, which has a row to open it by, is no section.
		secs, all, bare := 0, 0, 0
		for _, r := range p.vis {
			if r.sec != nil {
				secs++
			}
		}
		for _, r := range p.rows {
			if r.sec != nil {
				all++
			} else {
				bare++
			}
		}
		count = plural(all, "section")
		if p.filter != "" {
			count = fmt.Sprintf("%d of %s", secs, count)
		}
		files := plural(len(p.files), "file")
		if bare > 0 {
			files += fmt.Sprintf(", %d without sections", bare)
		}
		return append([]string{st.Title.Render("Repository › "+safetext.CleanLine(modulePath(p.module))) + st.Muted.Render(" "+count)},
			wrapAll([]string{st.Muted.Render(files + " · esc: the modules")}, max(w, 1))...)
	}
	about := []string{}
	if s.Facts.Name != "" {
		about = append(about, safetext.CleanLine(s.Facts.Name))
	}
	if s.Facts.Language != "" {
		about = append(about, safetext.CleanLine(s.Facts.Language))
	}
	first := st.Title.Render("Repository") + st.Muted.Render(" "+count+" modules")
	if len(about) > 0 {
		first += st.Muted.Render(" · ") + st.Accent.Render(strings.Join(about, " · "))
	}
	// The second line wraps rather than lose its end in a narrow pane,
	// between its facts, never inside one ("740 sections").
	glue := func(s string) string { return strings.ReplaceAll(s, " ", nbsp) }
	lines := wrapAll([]string{st.Muted.Render(fmt.Sprintf("indexed %s · %s · %s", glue(s.IndexedAt.Local().Format("2006-01-02 15:04")),
		glue(plural(s.Files, "file")), glue(plural(s.Sections, "section"))))}, max(w, 1))
	for i := range lines {
		lines[i] = strings.ReplaceAll(lines[i], nbsp, " ")
	}
	return append([]string{first}, lines...)
}

// view renders the list in w×h cells.
func (p *repoPane) view(t themes.Theme, w, h int, focused bool) []string {
	st := t.Styles
	out := p.heading(t, w)
	if p.typing || p.filter != "" {
		cursor := ""
		if p.typing {
			cursor = "▏"
		}
		out = append(out, st.Accent.Render("filter: ")+safetext.CleanLine(p.filter)+cursor)
	}
	switch {
	case !p.loaded:
		return append(out, st.Muted.Render("reading the index…"))
	case p.sum == nil:
		return append(out, wrapAll([]string{"",
			st.Warn.Render("not indexed yet — run cairn index (or /index)"),
			"",
			st.Muted.Render("cairn index reads what the repository says — Markdown headings, Go, Python, TypeScript/JavaScript and Rust definitions with their docs, a summary per module, the commands to build, test and run it — into derived memory, which recall answers \"where is …?\" from."),
		}, w)...)
	case len(p.vis) == 0 && p.filter != "":
		return append(out, st.Muted.Render("nothing matches the filter"))
	case len(p.vis) == 0:
		return append(out, st.Muted.Render("nothing here"))
	}
	rows := h - len(out)
	offset := p.offset
	if p.cursor < offset || p.cursor >= offset+rows { // not fitted yet: keep the cursor in view
		offset = max(p.cursor-rows+1, 0)
	}
	c := p.columns(w)
	for i := offset; i < len(p.vis) && i < offset+rows; i++ {
		out = append(out, p.row(t, p.vis[i], i == p.cursor, focused, w, c))
	}
	return out
}

// repoColumns are the widths of a Repository list's columns.
type repoColumns struct{ first, files, lang int }

// columns fit the first column to its longest entry, up to half the pane
// (a third for modules, whose summaries need the room); a module's file
// count and main language take what their widest take.
func (p *repoPane) columns(w int) repoColumns {
	c := repoColumns{files: 1}
	for _, r := range p.vis {
		c.first = max(c.first, ansi.StringWidth(p.firstColumn(r)))
		if r.mod != nil {
			c.files = max(c.files, len(fmt.Sprint(r.mod.Files)))
			c.lang = max(c.lang, ansi.StringWidth(mainLang(r.mod.Langs)))
		}
	}
	if p.open {
		c.first = min(c.first, max(w/2, 8))
	} else {
		c.first = min(c.first, max(w/3, 8))
	}
	return c
}

// row is a module's or a section's row.
func (p *repoPane) row(t themes.Theme, r repoRow, selected, focused bool, w int, c repoColumns) string {
	st := t.Styles
	mark := "  "
	if selected {
		mark = "> "
	}
	var rest, muted string
	if r.mod != nil {
		muted = fmt.Sprintf(" %*d %s ", c.files, r.mod.Files, pad(mainLang(r.mod.Langs), c.lang))
		if w < 40 {
			muted = fmt.Sprintf(" %*d ", c.files, r.mod.Files)
		}
		rest = oneLinePreview(oneLine(derive.Synopsis(*r.mod)))
	} else {
		kind := "file"
		if r.sec != nil {
			kind = string(r.sec.Kind)
			rest = oneLinePreview(r.sec.Name)
		}
		muted = " " + pad(safetext.CleanLine(kind), 7) + " "
	}
	line := mark + pad(cutMiddle(safetext.CleanLine(p.firstColumn(r)), c.first), c.first)
	text := pad(rest, max(w-ansi.StringWidth(line)-ansi.StringWidth(muted), 1))
	switch {
	case selected && focused:
		return st.Selected.Render(pad(line+muted+text, w))
	case selected:
		return st.Bold.Render(line) + st.Muted.Render(muted) + st.Bold.Render(text)
	}
	return line + st.Muted.Render(muted) + text
}

// langShort names the languages a module's files are in, most first, in
// the few cells a row has: "go,md,py".
var langShort = map[string]string{"markdown": "md", "python": "py", "typescript": "ts", "javascript": "js",
	"rust": "rs", "shell": "sh", "yaml": "yml", "make": "mk", "text": "txt"}

// mainLang is a module's main language in a row's few cells ("go",
// "md"); the detail lists them all.
func mainLang(langs []string) string {
	if len(langs) == 0 {
		return ""
	}
	l := langs[0]
	if s, ok := langShort[l]; ok {
		l = s
	}
	return safetext.CleanLine(l)
}

// cutMiddle cuts a path to n cells in its middle, where two long paths
// are alike: its first directory and as much of its end as fits stay
// ("docs/…/UPGRADE_GUIDE_V2.md:1"), else its last element
// ("…/altscreen-toggle/"), else as much of each end as fits.
func cutMiddle(s string, n int) string {
	if ansi.StringWidth(s) <= n || n < 2 {
		return s
	}
	body, trail := strings.CutSuffix(s, "/") // a module's "x/": its slash is no boundary
	end := func(k int) string { return body[k:] + map[bool]string{true: "/"}[trail] }
	if h := strings.IndexByte(body, '/'); h > 0 {
		head := body[:h+1]
		for j := h + 1; j < len(body); j++ {
			if body[j] == '/' && ansi.StringWidth(head)+1+ansi.StringWidth(end(j)) <= n {
				return head + "…" + end(j)
			}
		}
		if l := strings.LastIndexByte(body, '/'); 1+ansi.StringWidth(end(l)) <= n {
			// The last element whole, and of the start what room is left.
			if room := n - 1 - ansi.StringWidth(end(l)); room >= 4 {
				return string([]rune(body)[:room]) + "…" + end(l)
			}
			return "…" + end(l)
		}
	}
	r := []rune(s)
	keep := n - 1
	front := keep / 3 // the end tells more (a name, a line)
	return string(r[:front]) + "…" + string(r[len(r)-(keep-front):])
}

// firstColumn is a row's place: a module's path, a section's path:line
// — within the open module, the path below it (the heading names it).
func (p *repoPane) firstColumn(r repoRow) string {
	if r.mod != nil {
		return modulePath(r.mod.Path)
	}
	path := r.file.Path
	if p.module != "" {
		path = strings.TrimPrefix(path, p.module+"/")
	}
	return fmt.Sprintf("%s:%d", path, r.line())
}

// docKey is the render cache's key of a section's doc: it changes when
// its file changes (the stamp's hash) or the section moves.
func docKey(f *memory.DerivedFile, s *memory.Section, w int, theme string) renderKey {
	return renderKey{id: fmt.Sprintf("derived:%s:%s:%d:%s", f.Stamp.Hash, f.Path, s.Line, s.Name), width: w, theme: theme}
}

// detailLines is the whole of the selected row: a module's summary, or a
// section with its signature and its doc (rendered as the memory detail
// renders a body, once its render arrived).
func (p *repoPane) detailLines(t themes.Theme, w int, rendered map[renderKey]string) []string {
	st := t.Styles
	r := p.selected()
	rule := st.Muted.Render(strings.Repeat("─", max(w, 1)))
	switch {
	case p.sum == nil:
		return wrapAll([]string{st.Muted.Render("/index reads the repository here; cairn index does the same from a shell")}, w)
	case r == nil:
		return []string{st.Muted.Render("select a module to read what it holds")}
	case r.mod != nil:
		m := r.mod
		out := wrapAll([]string{
			st.Title.Render(safetext.CleanLine(modulePath(m.Path))),
			st.Muted.Render(fmt.Sprintf("module · %s · %s", plural(m.Files, "file"), plural(m.Sections, "section"))),
		}, w)
		if len(m.Langs) > 0 {
			out = append(out, wrapAll([]string{st.Muted.Render("languages ") + safetext.CleanLine(strings.Join(m.Langs, ", "))}, w)...)
		}
		out = append(out, wrapAll([]string{st.Muted.Render("enter lists its sections")}, w)...)
		out = append(out, rule)
		if s := strings.TrimSpace(safetext.Clean(m.Summary)); s != "" {
			out = append(out, wrapAll(append(strings.Split(s, "\n"), ""), w)...)
		}
		if len(m.Exported) > 0 {
			out = append(out, wrapAll([]string{st.Bold.Render("Names: ") + safetext.CleanLine(strings.Join(m.Exported, ", "))}, w)...)
		}
		return out
	}
	f := r.file
	if r.sec == nil {
		return wrapAll([]string{
			st.Title.Render(safetext.CleanLine(f.Path)),
			st.Muted.Render("file · " + safetext.CleanLine(orWord(f.Lang, "no reader")) + " · no sections"),
			st.Muted.Render("enter or e opens it in $EDITOR"),
		}, w)
	}
	s := r.sec
	where := fmt.Sprintf("%s:%d", f.Path, s.Line)
	if s.EndLine > s.Line {
		where += fmt.Sprintf("–%d", s.EndLine)
	}
	out := wrapAll([]string{
		st.Title.Render(safetext.CleanLine(s.Name)),
		st.Muted.Render(safetext.CleanLine(string(s.Kind)+" · "+orWord(s.Lang, f.Lang))+" · ") + safetext.CleanLine(where),
		st.Muted.Render("enter or e opens it at the line in $EDITOR"),
	}, w)
	if s.Signature != "" {
		out = append(out, wrapAll([]string{st.Accent.Render(safetext.CleanLine(s.Signature))}, w)...)
	}
	out = append(out, rule)
	doc, ok := rendered[docKey(f, s, w, t.Name)]
	if !ok {
		doc = safetext.Clean(s.Doc) // shown unrendered until the render arrives
	}
	if strings.TrimSpace(doc) == "" {
		return append(out, st.Muted.Render("no doc comment"))
	}
	return append(out, wrapAll(strings.Split(doc, "\n"), w)...)
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// rowsShown is how many rows the Repository list shows at once.
func (p *repoPane) rowsShown(m *workbench) int {
	l := m.layout().list
	n := l.h - 2 - len(p.heading(m.theme, l.w-4))
	if p.typing || p.filter != "" {
		n--
	}
	return max(n, 1)
}

// load reads the summary, and the open module's files.
func (p *repoPane) load(m *workbench) tea.Cmd {
	m.reqSeq++
	p.req = m.reqSeq
	m.pending++
	return loadRepoSummary(m.ctx, m.st, m.proj.ID, m.reqSeq)
}

// repoLoaded takes a summary in: the modules show, or, with a module open,
// its files are read again.
func (msg repoLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID {
		return nil
	}
	notIndexed := errors.Is(msg.err, memory.ErrNotFound)
	if msg.err != nil && !notIndexed {
		return m.fail("read the repository's index", msg.err)
	}
	if notIndexed {
		m.tally.repo = 0
	} else {
		m.tally.repo = len(msg.sum.Modules)
	}
	if msg.req != m.repo.req || m.section != sectionRepo {
		return nil // only the count was asked for, or the selection moved on
	}
	m.repo.loaded, m.repo.project = true, msg.project
	if notIndexed {
		m.repo.sum, m.repo.open = nil, false
		m.repo.setRows(nil, "")
		return nil
	}
	sum := msg.sum
	m.repo.sum = &sum
	if m.repo.open {
		m.pending++
		return loadRepoFiles(m.ctx, m.st, m.proj.ID, m.repo.module, msg.req)
	}
	m.repo.setRows(moduleRows(m.repo.sum), "")
	return nil
}

// repoFilesLoaded shows the open module's sections.
func (msg repoFilesLoadedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	if msg.project != m.proj.ID || msg.req != m.repo.req || m.section != sectionRepo || m.repo.sum == nil {
		return nil
	}
	if msg.err != nil {
		return m.fail("read the sections of "+modulePath(msg.module), msg.err)
	}
	m.repo.files = moduleFiles(msg.files, msg.module, m.repo.sum.Modules)
	m.repo.open, m.repo.module = true, msg.module
	m.repo.setRows(sectionRows(m.repo.files), "")
	return m.repo.render(m)
}

// render renders the selected section's doc for the detail's
// width, unless cached.
func (p *repoPane) render(m *workbench) tea.Cmd {
	r := p.selected()
	if r == nil || r.sec == nil || strings.TrimSpace(r.sec.Doc) == "" || m.w == 0 {
		return nil
	}
	k := docKey(r.file, r.sec, m.detailWidth(), m.theme.Name)
	if _, ok := m.detail.rendered[k]; ok {
		return nil
	}
	return render(k, safetext.Clean(r.sec.Doc), m.theme)
}

// The Repository's states: no index yet, a module selected.
var (
	repoIndexed cond = func(m *workbench) bool { return m.repo.sum != nil }
	onModule    cond = func(m *workbench) bool { r := m.repo.selected(); return r != nil && r.mod != nil }
	repoNarrow  cond = func(m *workbench) bool { return m.w < wide }
	listIndexed      = both(onList, repoIndexed)
	onSection        = both(listIndexed, not(onModule))
)

// repoMove moves the Repository's cursor with by, and renders the doc
// of the section it lands on.
func repoMove(by func(m *workbench, rows int) int) keyFn {
	return to(func(m *workbench) tea.Cmd {
		rows := m.repo.rowsShown(m)
		m.repo.move(by(m, rows), rows)
		return m.repo.render(m)
	})
}

// repoKeys are the Repository's list's and detail's: the rows that act,
// then the footer's. Derived memory is read-only: the keys that change a
// memory say so.
var repoKeys = slices.Concat(keyTable{
	row(keys.Scroll, func(m *workbench, k tea.KeyPressMsg) tea.Cmd { m.repo.pg.key(k); return nil }).when(onDetail),
}, cursorKeys(repoMove, func(m *workbench) int { return len(m.repo.vis) }), keyTable{
	row(keys.Filter, to(func(m *workbench) tea.Cmd { m.repo.typing = true; return nil })).when(onList),
	row(keys.Open, to(func(m *workbench) tea.Cmd { return m.repo.openRow(m, false) })),
	row(keys.OpenFile, to(func(m *workbench) tea.Cmd { return m.repo.openRow(m, true) })),
	row(keys.Next, to(func(m *workbench) tea.Cmd {
		if m.w >= wide || m.repo.selected() != nil {
			m.focus = focusDetail
		}
		return nil
	})),
	row(keys.Back, to(toList)).when(onDetail),
	row(keys.Prev, to(toList)).when(onDetail),
	row(keys.Back, to(func(m *workbench) tea.Cmd {
		m.repo.filter = ""
		m.repo.setRows(m.repo.rows, "")
		return m.repo.render(m)
	})).when(func(m *workbench) bool { return m.repo.filter != "" }),
	row(keys.Back, to(func(m *workbench) tea.Cmd {
		m.repo.open, m.repo.files, m.repo.filter = false, nil, m.repo.backF
		m.repo.setRows(moduleRows(m.repo.sum), m.repo.back)
		return m.repo.render(m)
	})).when(func(m *workbench) bool { return m.repo.open }),
	row(keys.Back, to(toSidebar)),
	row(keys.Prev, to(toSidebar)),
	readOnly(keys.Archive), readOnly(keys.Forget), readOnly(keys.Supersede), readOnly(keys.Edit), readOnly(keys.Unarchive),
	readOnly(keys.Confirm), readOnly(keys.Reject), readOnly(keys.Rebind), readOnly(keys.Diff),

	hint(keys.Scroll, onDetail),
	hint(keys.Command.shown("/index", "reads the repository"), both(onList, not(repoIndexed))),
	hint(keys.Up, listIndexed),
	hint(keys.Open.as("sections"), both(listIndexed, onModule)),
	hint(keys.Open.as("$EDITOR"), onSection),
	hint(keys.OpenFile, onDetail),
	hint(keys.Next.as("read"), both(onSection, repoNarrow)),
	hint(keys.Filter, listIndexed),
	hint(keys.Back.as("sidebar"), both(listIndexed, onModule)),
	hint(keys.Back.as("modules"), onSection),
	hint(keys.Back, onDetail),
	hint(keys.Command.as("command (/index)"), both(listIndexed, onModule)),
	hint(keys.Command, not(both(listIndexed, onModule))),
	hint(keys.Help, always),
})

// readOnly is a key that would change a memory: here it says why not.
func readOnly(b binding) keyRow {
	return row(b, func(*workbench, tea.KeyPressMsg) tea.Cmd { return nil }).unless(func(*workbench) string { return errDerivedReadOnly.Error() })
}

// repoFilterKeys are the Repository's filter line's.
var repoFilterKeys = filterKeys(
	func(m *workbench) (*string, *bool) { return &m.repo.filter, &m.repo.typing },
	func(m *workbench, d int) { m.repo.move(d, m.repo.rowsShown(m)) },
	func(m *workbench, was string) tea.Cmd {
		if m.repo.filter != was {
			m.repo.setRows(m.repo.rows, "")
		}
		return m.repo.render(m)
	})

// openRow acts on the selected row: a module lists its sections; a
// section (or a file) opens in the editor. e never opens a module.
func (p *repoPane) openRow(m *workbench, editKey bool) tea.Cmd {
	r := p.selected()
	switch {
	case r == nil:
		return nil
	case r.mod != nil && editKey:
		return m.say("e opens a section in $EDITOR: enter lists the module's sections first", true)
	case r.mod != nil:
		p.back, p.backF = r.key(), p.filter
		p.module, p.open, p.filter, p.cursor, p.offset = r.mod.Path, true, "", 0, 0
		p.rows, p.vis = nil, nil
		m.focus = focusList
		m.pending++
		return loadRepoFiles(m.ctx, m.st, m.proj.ID, r.mod.Path, p.req)
	}
	return p.edit(m, r.file.Path, r.line())
}

// edit hands the terminal to the person's editor on the
// repository's file rel at line.
func (p *repoPane) edit(m *workbench, rel string, line int) tea.Cmd {
	if p.sum == nil || p.sum.Root == "" {
		return m.say("the index names no repository root: run /index again", true)
	}
	file := filepath.Join(p.sum.Root, filepath.FromSlash(rel))
	ctx, getenv := m.ctx, m.getenv
	return func() tea.Msg {
		// An editor given a file that is gone would open an empty one.
		if _, err := os.Stat(file); err != nil {
			return fileEditedMsg{path: rel, gone: true}
		}
		return editorReadyMsg{path: rel, cmd: editorAt(ctx, getenv, file, line)}
	}
}

// editorReady hands the terminal to the editor built for a repository file.
func (msg editorReadyMsg) handle(m *workbench) tea.Cmd {
	return m.exec(msg.cmd, func(err error) tea.Msg { return fileEditedMsg{path: msg.path, err: err} })
}

// fileEdited reports an editor that failed, or a file that was gone.
func (msg fileEditedMsg) handle(m *workbench) tea.Cmd {
	switch {
	case msg.gone:
		return m.say(fmt.Sprintf("%s is not there any more: /index reads the repository again", safetext.CleanLine(msg.path)), true)
	case msg.err != nil:
		return m.fail("open "+safetext.CleanLine(msg.path)+" in the editor", msg.err)
	}
	return nil
}

// editorAt is the command that opens file at line in the editor getenv
// names ($VISUAL, else $EDITOR, else vi).
func editorAt(ctx context.Context, getenv func(string) string, file string, line int) *exec.Cmd {
	return config.EditorAtLine(ctx, getenv, file, line)
}

// cmdIndex carries out /index: the repository is read again in the
// background (the workbench stays usable), and the section reloads when
// the store says it was written.
func cmdIndex(m *workbench, p parsed) (tea.Cmd, error) {
	if len(p.args) > 0 {
		return nil, fmt.Errorf("/index takes nothing: exclude paths with cairn index --exclude GLOB")
	}
	if m.opt.Index == nil {
		return nil, fmt.Errorf("/index needs the workbench opened on a project (cairn): run cairn index instead")
	}
	if m.proj.ID == memory.GlobalID {
		return nil, fmt.Errorf("/index reads a project's repository: the global scope has none (/project NAME first)")
	}
	if m.indexing {
		return nil, fmt.Errorf("/index is already running")
	}
	m.indexing = true
	m.pending++
	m.statusSeq++ // stays until the index is done
	m.status, m.statusBad = "indexing "+safetext.CleanLine(m.proj.Name)+"… (the workbench stays usable)", false
	return runIndex(m.ctx, m.opt.Index, m.proj), nil
}

// indexed reports an index run and reloads what shows it.
func (msg indexedMsg) handle(m *workbench) tea.Cmd {
	m.done()
	m.indexing = false
	if msg.err != nil {
		return m.fail("index "+msg.project.Name, msg.err)
	}
	r := msg.rep
	changed := "nothing changed"
	if r.Read+r.Gone > 0 {
		changed = fmt.Sprintf("%d read, %d gone", r.Read, r.Gone)
	}
	text := fmt.Sprintf("indexed %s: %s, %s (%s) in %s", msg.project.Name, plural(r.Files, "file"), plural(r.Sections, "section"), changed, r.Took.Round(1e6))
	cmds := []tea.Cmd{m.say(text, false)}
	if msg.project.ID == m.proj.ID {
		if m.section == sectionRepo {
			cmds = append(cmds, m.repo.load(m))
		} else {
			m.pending++
			cmds = append(cmds, loadRepoSummary(m.ctx, m.st, m.proj.ID, -1))
		}
	}
	return tea.Batch(cmds...)
}

// cmdRepository carries out /repository.
func cmdRepository(m *workbench, p parsed) (tea.Cmd, error) {
	m.focus = focusList
	return m.selectSection(sectionRepo), nil
}
