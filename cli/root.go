// Package cli is cairn's command line: every operation of the store as a
// subcommand with human output and --json, for people, scripts and agents.
// main.go only wires it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"cairn/consolidate"
	"cairn/internal/config"
	"cairn/internal/gcpace"
	"cairn/memory"
	"cairn/project"
	"cairn/remote"
	"cairn/store"
	"cairn/trust"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Workbench opens the TUI on a store in a project; llm builds the language
// model a consolidation asks, from the settings the command loaded. main.go
// supplies it.
type Workbench func(ctx context.Context, st memory.Store, p memory.Project, projects []memory.Project, theme, home string, llm func() (*consolidate.LLM, error)) error

// Env is everything a run of cairn reads from and writes to, so that tests
// can run the whole command line in-process.
type Env struct {
	Args       []string
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Getwd      func() (string, error)
	IsTerminal func() bool // is stdin a terminal a person types into?
	Workbench  Workbench
	Demo       []byte // the demo sample set, JSON Lines
	// Connect reaches the store of a cairn home. main.go connects to the
	// home's server (starting it when needed); nil opens the store in
	// this process, which tests of the commands themselves use.
	Connect func(ctx context.Context, home string) (memory.Store, error)
	// Detach starts cairn again with args, in the background and in a
	// session of its own, stdin its input, and returns once it started
	// (main.go: Detacher). nil does the work in this process, as tests of
	// the commands themselves do.
	Detach func(stdin []byte, args ...string) error
}

// Main runs cairn and returns its exit code.
func Main(env Env) int {
	a := &app{env: env, rawGetenv: env.Getenv}
	// The settings file stands behind the environment: every CAIRN_*
	// variable read through a.env.Getenv has the file's value when unset.
	a.cfg = config.Load(env.Getenv)
	a.env.Getenv = a.cfg.Getenv(env.Getenv)
	root := a.rootCommand()
	root.SetArgs(env.Args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(context.Background())
	a.close()
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(env.Stderr, "cairn: "+oneLine(err.Error()))
	return kindOf(err).exitCode()
}

// oneLine is the first line of an error, neutralised: an error may quote
// what a user, an agent or a file sent.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return cleanLine(s)
}

type app struct {
	env      Env
	home     string
	projFlag string
	json     bool
	theme    string
	st       memory.Store
	proj     memory.Project
	names    map[string]string // project id → name
	shorts   map[string]string // memory id → its short form (see sid)

	trust     *trust.Service      // the wake checks' service of this command (see trustService)
	cfg       *config.Settings    // the settings in force (file and environment)
	rawGetenv func(string) string // the environment alone
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "cairn",
		Short: "long-term memory for coding agents and the people who work with them",
		Long: `cairn keeps the memories of coding agents and people in an embedded store,
recalls the right ones for a task, notices when a remembered fact may be stale,
and gives a person a keyboard-driven workbench to review and correct them.

Run cairn with no command to open the workbench.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.open(cmd.Context(), true); err != nil {
				return err
			}
			return a.workbench(cmd.Context(), a.st, a.proj)
		},
	}
	root.Version = Version()
	root.SetVersionTemplate("cairn {{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print cairn's release, its commit and the Go that built it")
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if longLived(cmd) {
			gcpace.Default()
		}
		// A broken settings file is said once, but not by cairn config,
		// which shows it among the settings.
		if !strings.HasPrefix(cmd.CommandPath(), "cairn config") {
			for _, p := range a.cfg.Problems {
				fmt.Fprintln(a.env.Stderr, "cairn: warning: "+oneLine(p))
			}
		}
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.home, "home", "", "cairn's data directory (default $CAIRN_HOME, else $XDG_DATA_HOME/cairn)")
	pf.StringVar(&a.projFlag, "project", "", "project to act in (default: the git repository around the working directory; \"global\" for user-wide)")
	pf.BoolVar(&a.json, "json", false, "print JSON instead of text")
	pf.StringVar(&a.theme, "theme", "", "workbench theme: dark, light, high-contrast or plain (default: from the terminal; $CAIRN_THEME)")
	root.AddCommand(
		a.rememberCommand(), a.showCommand(), a.listCommand(), a.editCommand(), a.supersedeCommand(),
		a.archiveCommand(), a.unarchiveCommand(), a.forgetCommand(), a.linkCommand(), a.timelineCommand(),
		a.projectsCommand(), a.importCommand(), a.exportCommand(), a.statsCommand(), a.captureCommand(),
		a.demoCommand(), a.serveCommand(), a.mcpCommand(), a.contextCommand(), a.indexCommand(), a.recallCommand(), a.verifyCommand(), a.inboxCommand(),
		a.consolidateCommand(), a.ingestCommand(), a.hookCommand(), a.setupCommand(), a.doctorCommand(),
		a.gapsCommand(), a.feedbackCommand(), a.configCommand(), a.syncCommand(),
		a.mergeFileCommand(),
	)
	markUsage(root)
	return root
}

// longLived reports whether a command lives long or streams much (the
// workbench, the server, bulk transfers): it collects garbage at Go's
// default pace, not at a short command's (see internal/gcpace).
func longLived(cmd *cobra.Command) bool {
	switch cmd.CommandPath() {
	case "cairn", "cairn demo", "cairn serve", "cairn mcp", "cairn import", "cairn export", "cairn ingest", "cairn consolidate", "cairn index":
		return true
	}
	return false
}

// homeDir is where cairn keeps its data, created private (0700) or made
// so: every memory is in it.
func (a *app) homeDir() (string, error) {
	home, err := a.homePath()
	if err != nil {
		return "", err
	}
	return home, remote.PrepareHome(home)
}

func (a *app) homePath() (string, error) {
	if a.home != "" {
		return filepath.Abs(a.home)
	}
	if h := a.env.Getenv("CAIRN_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if d := a.env.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "cairn"), nil
	}
	return filepath.Join(xdg.DataHome, "cairn"), nil
}

// open opens the store and resolves the project. write registers the
// project in the store if it is new (and says so on stderr: a typo in
// --project must not go unnoticed); a read of a project the store does not
// know, named with --project, is refused with the known names. A command
// in a checkout of a known repository records, by the way, the
// repository's keys and the checkout it was used from (cairn projects).
func (a *app) open(ctx context.Context, write bool) error {
	if err := a.openStore(ctx); err != nil {
		return err
	}
	p, stored, known, err := a.resolveProject(ctx)
	if err != nil {
		return err
	}
	switch {
	case write || p.ID == memory.GlobalID:
		got, err := a.st.EnsureProject(ctx, p)
		if err != nil {
			return err
		}
		if !known && got.ID != memory.GlobalID {
			fmt.Fprintf(a.env.Stderr, "cairn: new project %s\n", cleanLine(got.Name))
		}
		p = got
	case known && project.Stale(stored, p, time.Now()):
		// A read writes only this bookkeeping, and goes on without it
		// when the store cannot take it.
		if got, err := a.st.EnsureProject(ctx, p); err == nil {
			p = got
		} else {
			p = stored
		}
	case known:
		p = stored
	case a.projFlag != "":
		return a.unknownProject(ctx)
	}
	a.proj = p
	a.wake(ctx)                             // facts whose ground moved are marked before anything is served
	if err := a.rederive(ctx); err != nil { // and what the repository says is read again after a commit
		fmt.Fprintln(a.env.Stderr, "cairn: re-index: "+cleanLine(oneLine(err.Error())))
	}
	return nil
}

// unknownProject refuses a read of a project named with --project that the
// store does not hold, naming the ones it does.
func (a *app) unknownProject(ctx context.Context) error {
	ps, err := a.st.Projects(ctx)
	if err != nil {
		return err
	}
	names := []string{memory.GlobalName}
	for _, p := range ps {
		if p.ID != memory.GlobalID {
			names = append(names, cleanLine(p.Name))
		}
	}
	return hintf("a write such as cairn remember creates it", "no project %q; known: %s", cleanLine(a.projFlag), strings.Join(names, ", "))
}

// openStore opens the store (or connects to the server holding it).
func (a *app) openStore(ctx context.Context) error {
	if a.st != nil {
		return nil
	}
	home, err := a.homeDir()
	if err != nil {
		return err
	}
	var st memory.Store
	if a.env.Connect != nil {
		st, err = a.env.Connect(ctx, home)
	} else {
		st, err = remote.OpenStore(ctx, filepath.Join(home, "store"), store.Options{Log: debugLog(a.env.Getenv, home)})
	}
	if err != nil {
		return err
	}
	if c, ok := st.(*remote.Client); ok {
		c.ExpectEmbedder(a.cfg.Get("embed.url"), a.cfg.Get("embed.model"), a.embedFrom(), func(msg string) {
			fmt.Fprintln(a.env.Stderr, "cairn: "+oneLine(msg))
		})
	}
	a.st = st
	return nil
}

// resolveProject names the project the command acts in: p is what the
// command line or the working directory says of it (its name, or the
// repository's keys and checkout), stored the project the store holds for
// it when known.
func (a *app) resolveProject(ctx context.Context) (p, stored memory.Project, known bool, err error) {
	if a.projFlag != "" {
		if stored, err := a.st.ProjectByName(ctx, a.projFlag); err == nil {
			// Named, not used from a checkout: nothing to note of where.
			return memory.Project{ID: stored.ID, Name: stored.Name}, stored, true, nil
		}
		if p, err = project.Named(a.projFlag); err != nil {
			return p, p, false, usage(err)
		}
		stored, err := a.st.Project(ctx, p.ID)
		switch {
		case err == nil:
			return p, stored, true, nil
		case errors.Is(err, memory.ErrNotFound):
			return p, p, false, nil
		}
		return p, p, false, err
	}
	wd, err := a.env.Getwd()
	if err != nil {
		return p, p, false, fmt.Errorf("working directory: %w", err)
	}
	if p, err = project.Detect(wd); err != nil {
		return p, p, false, err
	}
	stored, known, err = project.Find(ctx, a.st, p)
	stored.Root = p.Root // the checkout this command runs in
	return p, stored, known, err
}

func (a *app) close() {
	if a.st != nil {
		a.st.Close()
	}
}

func (a *app) workbench(ctx context.Context, st memory.Store, p memory.Project) error {
	theme := a.theme
	if theme == "" {
		theme = a.env.Getenv("CAIRN_THEME")
	}
	switch theme {
	case "", "dark", "light", "high-contrast", "plain":
	default:
		return usagef("unknown theme %q: use dark, light, high-contrast or plain", theme)
	}
	if c, ok := st.(*remote.Client); ok {
		c.CheckEmbedder(ctx) // before the workbench takes the screen
	}
	if a.env.Workbench == nil {
		return hintf("use the subcommands (cairn --help)", "the workbench is not available in this build")
	}
	projects, err := st.Projects(ctx)
	if err != nil {
		return err
	}
	home, err := a.homeDir()
	if err != nil {
		return err
	}
	return a.env.Workbench(ctx, st, p, projects, theme, home, a.llm)
}

// debugLog sends Badger's log to home/debug.log when CAIRN_DEBUG is set,
// appended (the last run moves to debug.log.1 past a size cap) and never
// through a symlink planted at that name.
func debugLog(getenv func(string) string, home string) io.Writer {
	if getenv("CAIRN_DEBUG") == "" {
		return nil
	}
	if err := remote.PrepareHome(home); err != nil {
		return nil
	}
	f, _, err := remote.OpenLog(filepath.Join(home, "debug.log"))
	if err != nil {
		return nil
	}
	return f
}
