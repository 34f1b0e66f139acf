package ui

import (
	"io"
	"os"
	"strings"
	"syscall"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"cairn/internal/atomicfile"
	"cairn/memory"
	"cairn/safetext"
	"cairn/secrets"
	"cairn/themes"
)

// replLine is the command line at the bottom: completion on tab, history
// on up and down, errors shown inline under it.
type replLine struct {
	in      textinput.Model
	active  bool
	history []string
	file    string // where history lasts between sessions ("" keeps it in memory)
	hpos    int    // position in history while browsing it
	hint    string // completion candidates or an error, under the line
	hintBad bool
}

func newReplLine() replLine {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "remember, recall, archive, supersede, consolidate, help — tab completes"
	in.CharLimit = 4096
	st := in.Styles()
	st.Cursor.Blink = false // a steady cursor: no timer per key press
	in.SetStyles(st)
	return replLine{in: in}
}

func (r *replLine) open(prefill string) tea.Cmd {
	r.active, r.hint, r.hintBad = true, "", false
	r.in.SetValue(prefill)
	r.in.CursorEnd()
	r.hpos = len(r.history)
	return r.in.Focus()
}

func (r *replLine) close() {
	r.active = false
	r.in.Blur()
	r.in.SetValue("")
}

func (r *replLine) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	r.in, cmd = r.in.Update(msg)
	return cmd
}

// historyMove steps through earlier lines (d = -1 older, +1 newer).
func (r *replLine) historyMove(d int) {
	if len(r.history) == 0 {
		return
	}
	r.hpos = clamp(r.hpos+d, 0, len(r.history))
	if r.hpos == len(r.history) {
		r.in.SetValue("")
	} else {
		r.in.SetValue(r.history[r.hpos])
	}
	r.in.CursorEnd()
}

// remember adds line to the history and returns the command that keeps it
// in the history file: never a line that holds what looks like a secret
// (it stays in this session's history only, to be corrected).
func (r *replLine) remember(line string) tea.Cmd {
	if line == "" || (len(r.history) > 0 && r.history[len(r.history)-1] == line) {
		return nil
	}
	r.history = append(r.history, line)
	if r.file == "" || strings.ContainsAny(line, "\r\n") || len(secrets.Scan(line)) > 0 {
		return nil
	}
	file := r.file
	return func() tea.Msg {
		appendHistory(file, line) // a history that cannot be written is not worth an error
		return nil
	}
}

// maxHistory is how many lines the history file keeps.
const maxHistory = 500

// maxHistoryBytes bounds what is read of the history file.
const maxHistoryBytes = 1 << 20

// loadHistory reads the history file (the last maxHistory lines), and
// rewrites it when it has grown to twice that.
func loadHistory(file string) []string {
	// The home's file only: never through a link, never a FIFO, bounded.
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxHistoryBytes))
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if n := len(lines); n > maxHistory {
		lines = lines[n-maxHistory:]
		if n >= 2*maxHistory {
			writeHistory(file, lines)
		}
	}
	return lines
}

func appendHistory(file, line string) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	f.WriteString(line + "\n")
}

// writeHistory replaces the file with lines, atomically, private.
func writeHistory(file string, lines []string) {
	_ = atomicfile.WriteBytes(file, 0o600, []byte(strings.Join(lines, "\n")+"\n"))
}

// setWidth fits the line to w cells: prompt, text, one cell of cursor.
func (r *replLine) setWidth(w int) { r.in.SetWidth(max(w-3, 10)) }

func (r *replLine) view(t themes.Theme, w int) []string {
	lines := []string{r.in.View()}
	if r.hint != "" {
		hint := safetext.CleanLine(r.hint) // it may list ids and project names
		st := t.Styles.Muted
		if r.hintBad {
			st = t.Styles.Danger
			lines = append(lines, st.Render(pad("! "+hint, w)))
		} else {
			lines = append(lines, st.Render(pad(hint, w)))
		}
	}
	return lines
}

// completions are the words tab can finish in the current state: ids of
// the shown list, or for /unarchive those of the archived memories (read
// from the store on the first tab; the completion runs again when they
// arrive).
func (m *workbench) completeLine() tea.Cmd {
	var ids []string
	rows := m.list.items
	var load tea.Cmd
	if strings.HasPrefix(strings.TrimLeft(m.repl.in.Value(), "/:"), "unarchive ") && m.section != sectionArchived {
		if m.archived == nil {
			m.pending++
			load = loadArchived(m.ctx, m.st, m.proj.ID)
		}
		rows = m.archived
	}
	// Completion types these into the line: neutralised, as shown.
	for _, it := range rows {
		ids = append(ids, safetext.CleanLine(it.ID))
	}
	var projects []string
	for _, p := range m.projects {
		projects = append(projects, safetext.CleanLine(p.Name))
	}
	layers := append(memory.LayerNames(), "A", "B", "C", "D", "E", "F")
	line, hits := complete(m.repl.in.Value(), ids, projects, memory.EdgeKindNames(), layers)
	m.repl.in.SetValue(strings.TrimLeft(line, "/:"))
	m.repl.in.CursorEnd()
	m.repl.hintBad = false
	switch {
	case load != nil:
		m.repl.hint = "reading the archived memories…"
	case len(hits) > 1:
		m.repl.hint = strings.Join(hits, "  ")
	case len(hits) == 0:
		m.repl.hint = "no completion"
	default:
		m.repl.hint = ""
	}
	return load
}
