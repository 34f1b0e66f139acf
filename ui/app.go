// Package ui is cairn's workbench: a Bubble Tea program where a person
// browses memories by layer, reads them, and curates them — archive and
// unarchive, supersede with a word-level diff, forget after seeing the
// stored text — from the keyboard (the mouse works too). It talks to the
// store only through the small Store interface, inside commands.
package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"cairn/consolidate"
	"cairn/derive"
	"cairn/memory"
	"cairn/mirror"
	"cairn/recall"
	"cairn/safetext"
	"cairn/themes"
)

// Options configure the workbench.
type Options struct {
	Project  memory.Project
	Projects []memory.Project
	Theme    string // "", "dark", "light", "high-contrast", "plain"
	NoColor  bool
	Now      func() time.Time // nil → time.Now; tests pin it
	// Live follows other processes' writes through Store.Subscribe.
	Live bool
	// Recall answers /recall; nil: recall.For the store on first use (the
	// server's engine through a client, else one built over the store).
	Recall recall.Recaller
	// Trust runs wake checks and the verify-first queue of a project, from
	// the process whose files and environment the facts are bound to; nil
	// leaves the Verify-first section empty.
	Trust func(memory.Project) Trust
	// HistoryFile keeps the command line's history between sessions (in the
	// home, private; "" keeps it for this session only).
	HistoryFile string
	// Index brings a project's derived memory up to date with its
	// repository (/index), from the process whose working directory names
	// the repository; nil: /index says to run cairn index.
	Index func(context.Context, memory.Project) (derive.Report, error)
	// Sync brings a project's team mirror and its memories together
	// (/sync, as cairn sync does); nil: /sync says to run cairn sync.
	Sync func(context.Context, memory.Project) (mirror.Report, error)
	// MirrorStatus says where each shared memory of a project stands
	// against its team mirror (nil map: the project has none); read when
	// the workbench opens and after /sync. nil: nothing is shown.
	MirrorStatus func(context.Context, memory.Project) (map[string]mirror.Pending, error)
	// LLM builds the language model a consolidation asks, from the
	// settings the caller loaded; nil: the patterns alone.
	LLM func() (*consolidate.LLM, error)
}

type focus int

const (
	focusSidebar focus = iota
	focusList
	focusDetail
)

type mode int

const (
	modeBrowse mode = iota
	modeTimeline
	modeHelp
	modeDiff
	modeEditor
	modeRecall
	modeCalibration
	modeInbox
	modeReport
	modeWhy  // /why: the tree of a memory's reasons in the list
	modeRepo // the Repository section: modules and their sections
)

// section is what the sidebar selects: a layer (0–5) or one of these.
type section int

const (
	sectionVerify section = iota + 6
	sectionInbox
	sectionArchived
	sectionSuperseded
	sectionTimeline
	sectionRepo // derived memory: the repository's modules and sections
	sectionCount
)

// layerSection is the section of a layer (layer C: 2).
func layerSection(l memory.Layer) section { return section(l - memory.LayerInvariant) }

// layer is the section's layer, if it is one.
func (s section) layer() (memory.Layer, bool) {
	if s >= 0 && int(s) < len(memory.Layers) {
		return memory.Layers[s], true
	}
	return 0, false
}

// maxRendered bounds the cache of rendered bodies.
const maxRendered = 512

var errNothingToCompare = errors.New("nothing to compare: one version, no predecessor, no successor")

// Model is the workbench as Bubble Tea sees it: a small value around the
// state, which lives behind a pointer so that every copy sees one
// workbench. Its Update routes; the work is done by the workbench's methods.
type Model struct{ *workbench }

// workbench is the root's state: focus, layout, the panes and dialogs.
type workbench struct {
	st   Store
	opt  Options
	now  func() time.Time
	ctx  context.Context
	stop context.CancelFunc

	theme      themes.Theme
	themeFixed bool
	w, h       int

	proj     memory.Project
	projects []memory.Project
	tally    tally // what the sidebar counts

	section section
	focus   focus
	mode    mode

	list   listPane
	detail detailPane
	repl   replLine
	forget *forgetDialog
	tl     timelinePane
	inbox  inboxPane
	drop   *dropDialog
	repo   repoPane
	stack  overlays // help, calibration, a report, a diff, the editor: the top has the keyboard

	recallQuery string
	whyRoot     string                    // the title /why was asked of, while its tree shows
	recallWords string                    // the query's words alone: what + and - are said of
	indexing    bool                      // an /index run is under way
	syncing     bool                      // a /sync run is under way
	reasons     map[string][]string       // why each queued memory needs verifying
	explains    map[string]recall.Explain // why each recalled memory is there
	showExplain bool
	recaller    func() (recall.Recaller, error) // answers /recall, built on first use

	status    string
	statusBad bool
	statusSeq int
	undoID    string // the memory the last archive took away

	// The list follows the selected memory by id (other processes write at
	// any time). acted is the memory this workbench last changed: its leaving
	// the list is expected. prefer is selected by the next load (the
	// successor of a supersession). heard is what other writes did to each
	// memory, to say why a selection moved. refreshReq is the list request a
	// refresh after other writes made. told is the last memory said to be
	// gone, so that the list, the detail and a dialog do not each say it.
	acted      string
	told       string
	prefer     string
	heard      map[string]memory.EventKind
	refreshReq int

	pending  int // store calls under way: the spinner turns while there are any
	spin     spinner.Model
	spinning bool
	quiet    bool // no spinner at all (benchmarks and screen tests: its ticks are timers)
	reqSeq   int

	// after delivers a message later (the status expiry, the refresh after
	// other writes); tests replace it to tell timers from slow store calls.
	after func(time.Duration, tea.Msg) tea.Cmd
	// exec hands the terminal to a program (the editor on a repository
	// file) and getenv names the editor; tests replace both, to see the
	// command built without running an editor.
	exec   func(*exec.Cmd, tea.ExecCallback) tea.Cmd
	getenv func(string) string

	sub        <-chan memory.Event
	refreshDue bool

	// sleeping is the consolidation pass under way (nil: none); progress
	// says how far it has come, for the header.
	sleeping  *consolidation
	progress  string
	filterReq int              // the list request a filter made (its departures are no news)
	archived  []*memory.Memory // archived memories for /unarchive's completion (nil: not read yet)
	lastRun   string           // the last run this workbench made (consolidated, accepted, rejected): /undo takes it back
	lastBatch []string         // the runs of the last decision on several proposals at once: /undo takes them all back

	// shorts is how memory ids are shown: the shortest prefix that names
	// each in the store, learned from the results that showed them.
	shorts map[string]string
}

// New builds the workbench over st.
func New(st Store, opt Options) Model { return newModel(context.Background(), st, opt) }

// newModel builds the workbench over st. Its commands run under a context
// of parent's that quitting cancels: a store call, a recall, an index or a
// sync under way when the person quits is told to stop.
func newModel(parent context.Context, st Store, opt Options) Model {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	ctx, stop := context.WithCancel(parent)
	m := &workbench{st: st, opt: opt, now: now, ctx: ctx, stop: stop, proj: opt.Project, projects: opt.Projects,
		focus: focusList, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)), after: timer,
		exec: func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd { return tea.ExecProcess(c, fn) }, getenv: os.Getenv}
	m.theme = themes.Auto(true, opt.NoColor)
	if opt.Theme != "" {
		m.theme, m.themeFixed = themes.Get(opt.Theme), true
	}
	if opt.NoColor {
		m.theme, m.themeFixed = themes.Get("plain"), true
	}
	m.repl = newReplLine()
	if opt.HistoryFile != "" {
		m.repl.file, m.repl.history = opt.HistoryFile, loadHistory(opt.HistoryFile)
	}
	m.detail.rendered = map[renderKey]string{}
	m.recaller = lazyRecaller(ctx, st, &m.opt)
	return Model{m}
}

// Run opens the workbench in the terminal and returns when the person quits.
func Run(ctx context.Context, st Store, opt Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opt.NoColor = true
	}
	opt.Live = true
	m := newModel(ctx, st, opt)
	defer m.stop()
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opt.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	// A consolidation still running is cancelled, and waited for: the
	// store is closed after this returns, and a run cut off mid-write is
	// taken back at once rather than at the next open.
	m.stop()
	if c := m.sleeping; c != nil && c.finished != nil {
		select {
		case <-c.finished:
		case <-time.After(30 * time.Second):
		}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Init loads the counts, the first page and the project list.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.load()}
	if !m.themeFixed {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.opt.Live {
		cmds = append(cmds, subscribe(m.ctx, m.st))
	}
	return tea.Batch(cmds...)
}

// Update routes a message: quit key, then an open dialog, then the focused
// pane, then the workbench's own keys; everything else is a command's answer.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.fit()
	if m.pending > 0 && !m.spinning && !m.quiet {
		m.spinning = true
		cmd = tea.Batch(cmd, m.spin.Tick)
	}
	return m, cmd
}

func (m *workbench) update(msg tea.Msg) tea.Cmd {
	m.list.asOf = m.now()
	m.detail.asOf = m.list.asOf
	m.inbox.asOf = m.list.asOf
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m.renderDetail()
	case tea.BackgroundColorMsg:
		if !m.themeFixed {
			m.theme = themes.Auto(msg.IsDark(), false)
			m.detail.rendered = map[renderKey]string{}
			return m.renderDetail()
		}
		return nil
	case spinner.TickMsg:
		if m.pending == 0 {
			m.spinning = false
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return m.mouse(msg.(tea.MouseMsg))
	case tea.PasteMsg:
		if m.repl.active {
			return m.repl.update(msg)
		}
		if e := m.stack.editor(); e != nil {
			return e.edit(msg)
		}
		return nil
	}
	m.learn(msg)
	if h, ok := msg.(interface{ handle(*workbench) tea.Cmd }); ok {
		return h.handle(m)
	}
	return nil
}

// maxShorts bounds the short ids kept: a long day's browse starts afresh.
const maxShorts = 4096

// learn keeps the short ids a result carries.
func (m *workbench) learn(msg tea.Msg) {
	l, ok := msg.(interface{ learnedShorts() map[string]string })
	if !ok || len(l.learnedShorts()) == 0 {
		return
	}
	if m.shorts == nil || len(m.shorts) > maxShorts {
		m.shorts = map[string]string{}
	}
	maps.Copy(m.shorts, l.learnedShorts())
}

// sid is a memory id as a person reads it and types it back: its short
// form (see learned), or the whole id until one has been learned.
func (m *workbench) sid(id string) string {
	if s, ok := m.shorts[id]; ok {
		return safetext.CleanLine(s)
	}
	return safetext.CleanLine(id)
}

func (m *workbench) done() {
	if m.pending > 0 {
		m.pending--
	}
}

// say shows a status line that clears itself after a few seconds.
func (m *workbench) say(text string, bad bool) tea.Cmd {
	m.statusSeq++
	m.status, m.statusBad = safetext.CleanLine(text), bad // it may quote titles and errors
	return m.after(6*time.Second, statusClearMsg{m.statusSeq})
}

// fail reports an error in words; the workbench carries on.
func (m *workbench) fail(what string, err error) tea.Cmd {
	return m.say(fmt.Sprintf("could not %s: %s — press r to reload", what, oneLine(err.Error())), true)
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// selectSection switches the sidebar to s and loads it.
func (m *workbench) selectSection(s section) tea.Cmd {
	m.section = clamp(s, 0, sectionCount-1)
	m.mode, m.stack = modeBrowse, nil
	m.list.filter, m.list.filtering, m.list.inStore = "", false, false
	m.list.prefix, m.whyRoot = nil, ""
	m.list.cursor, m.list.offset = 0, 0
	m.list.items = nil
	switch m.section {
	case sectionTimeline:
		m.mode = modeTimeline
	case sectionRepo:
		// The detail pane shows the section or module: no memory stays in
		// it for the memory keys and commands to act on.
		m.mode = modeRepo
		m.detail.clear()
		m.repo.open, m.repo.files, m.repo.filter, m.repo.typing = false, nil, "", false
		m.repo.cursor, m.repo.offset = 0, 0
		m.repo.pg.top()
	case sectionInbox:
		// The detail pane shows the inbox's item: no memory stays in it
		// for the memory keys and commands to act on.
		m.mode = modeInbox
		m.detail.clear()
		m.inbox.cursor, m.inbox.offset = 0, 0
		m.inbox.pg.top()
	}
	return m.loadSection(false)
}
