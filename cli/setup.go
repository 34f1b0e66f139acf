package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/agentsetup"
	"cairn/project"
)

// fileChange is one settings file setup would change.
type fileChange struct {
	path, what    string
	note          string // the path is a link: where it leads
	before, after []byte
	mode          os.FileMode // for a new file
}

func (a *app) setupCommand() *cobra.Command {
	var user, proj, dry, remove, yes bool
	cmd := &cobra.Command{
		Use:   "setup claude-code|codex|git",
		Short: "register cairn with a coding agent: MCP server and (Claude Code) hooks",
		Long: `Register cairn in a coding agent's own settings: its MCP server ('cairn mcp')
and, for Claude Code, the hooks that brief each new session, warn before a
prompt repeats a known failure and read each session into the inbox.

Claude Code: --user (the default) writes ~/.claude/settings.json (hooks) and
~/.claude.json (MCP server); --project writes the repository's
.claude/settings.json and .mcp.json, to share with the team.
Codex: ~/.codex/config.toml ($CODEX_HOME) gets [mcp_servers.cairn]. Codex
has no session hooks: read its sessions with 'cairn ingest ~/.codex/sessions'.
A store not in its default place ($CAIRN_HOME, --home) is named in the
server's env, as Codex passes its servers few variables.
git (in a repository): the team mirror's merge driver, in .gitattributes and
the repository's git config (see cairn sync).

The command written is cairn when the cairn on $PATH is this one, else the
path it was run by, links kept (an upgrade does not break it). What you add
to cairn's entries (--project NAME, env, timeouts) stays when setup runs
again, and after --remove then setup. 'cairn doctor' says when a command
in these files no longer runs.

Every change is shown as a diff first. On a terminal, setup asks before
writing (--yes does not ask); otherwise (a script) it writes. Each file
changed keeps a backup next to it (NAME.cairn-backup-TIME, a new one each
time) and is replaced atomically. A second run changes nothing; --remove
takes cairn out again, giving back the file as it was before setup when
nothing else changed in it since (a file setup created is deleted). A settings file that is a link is
followed only into your home (a dotfiles repository); a read-only file or
another user's is left alone, with the command that would allow the edit.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if user && proj {
				return usagef("--user and --project: choose one")
			}
			return a.setup(cmd.OutOrStdout(), setupRun{agent: args[0], proj: proj, remove: remove, dry: dry, yes: yes})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&user, "user", false, "Claude Code: set up for every project of this user (default)")
	f.BoolVar(&proj, "project", false, "Claude Code: set up in this repository's settings, to share")
	f.BoolVar(&dry, "dry-run", false, "show the changes, write nothing")
	f.BoolVar(&remove, "remove", false, "take cairn out of the agent's settings")
	f.BoolVar(&yes, "yes", false, "do not ask before writing")
	// --project is also cairn's global flag (a project name): this one is a
	// switch, and shadows it for setup only.
	return cmd
}

// setupRun is what one setup was asked to do.
type setupRun struct {
	agent                  string
	proj, remove, dry, yes bool
}

// setup shows the changes to the agent's settings, asks on a terminal,
// and writes them.
func (a *app) setup(w io.Writer, r setupRun) error {
	changes, err := a.setupChanges(r.agent, r.proj, r.remove)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		if r.remove {
			fmt.Fprintln(w, "cairn is not set up there: nothing to remove")
		} else {
			fmt.Fprintln(w, "already set up: nothing to change")
		}
		return nil
	}
	for _, c := range changes {
		if c.note != "" {
			fmt.Fprintf(w, "note: %s\n", c.note)
		}
		fmt.Fprintf(w, "%s:\n%s\n", c.what, agentsetup.Diff(c.path, c.before, c.after))
	}
	if r.dry {
		fmt.Fprintln(w, "dry run: nothing written")
		return nil
	}
	if a.env.IsTerminal != nil && a.env.IsTerminal() && !r.yes {
		fmt.Fprint(w, "apply? [y/N] ")
		line, _ := bufio.NewReader(a.env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(w, "nothing written")
			return nil
		}
	}
	now := time.Now()
	for _, c := range changes {
		if err := a.writeSetup(w, r, c, now); err != nil {
			return err
		}
	}
	switch {
	case r.remove:
		fmt.Fprintf(w, "cairn is out of %s's settings\n", r.agent)
	case r.agent == "git":
		fmt.Fprintln(w, gitSetupDone)
	case r.agent == "claude-code":
		fmt.Fprintln(w, "done: new Claude Code sessions get cairn's briefing, its warnings and its memory of the session; 'cairn doctor' shows hook failures")
	default:
		fmt.Fprintln(w, "done: Codex can use cairn's MCP tools; read its sessions in with 'cairn ingest ~/.codex/sessions'")
	}
	return nil
}

// writeSetup writes one settings file's change, with a backup stamped
// now; when the agent rewrote the file meanwhile, it edits what is there
// then.
func (a *app) writeSetup(w io.Writer, r setupRun, c fileChange, now time.Time) error {
	backup, err := agentsetup.Write(c.path, c.before, c.after, c.mode, now)
	wrote := err == nil
	for try := 0; errors.Is(err, agentsetup.ErrChanged) && try < 5; try++ {
		var again []fileChange
		if again, err = a.setupChanges(r.agent, r.proj, r.remove); err != nil {
			break
		}
		for _, n := range again {
			if n.path == c.path {
				backup, err = agentsetup.Write(n.path, n.before, n.after, n.mode, now)
				wrote = err == nil
			}
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %v (the files before it were written; run setup again)", c.path, err)
	}
	switch {
	case !wrote: // someone made the same change meanwhile
	case c.after == nil:
		fmt.Fprintf(w, "removed %s, which setup had created (backup: %s)\n", c.path, backup)
	case backup != "":
		fmt.Fprintf(w, "wrote %s (backup: %s)\n", c.path, backup)
	default:
		fmt.Fprintf(w, "wrote %s\n", c.path)
	}
	return nil
}

// setupChanges works out what each settings file would become.
func (a *app) setupChanges(agent string, proj, remove bool) ([]fileChange, error) {
	command, err := setupCommand()
	if err != nil {
		return nil, err
	}
	home := a.env.Getenv("HOME")
	if home == "" {
		return nil, errors.New("$HOME is not set: cairn cannot find the agent's settings")
	}
	var out []fileChange
	// edit puts cairn in (or takes it out of) a file's content; prior is an
	// earlier version of the file, from which what the person added to
	// cairn's entries comes back when they are missing.
	add := func(path, what string, mode os.FileMode, edit func(b []byte, remove bool, prior []byte) ([]byte, bool, error)) error {
		path, note, err := agentsetup.Target(path, home)
		if err != nil {
			return fmt.Errorf("%v — nothing was written", err)
		}
		before, err := agentsetup.ReadSettings(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%v — nothing was written", err)
		}
		if errors.Is(err, fs.ErrNotExist) && remove {
			return nil
		}
		takeOut := func(b []byte) ([]byte, bool, error) { return edit(b, true, nil) }
		var prior []byte
		if _, has, _ := takeOut(before); !remove && !has {
			prior = agentsetup.LastWithCairn(path, takeOut) // read only when cairn is not there
		}
		after, changed, err := edit(before, remove, prior)
		if err != nil {
			return fmt.Errorf("%s: %v — nothing was written", path, err)
		}
		if changed && remove {
			// Setup then --remove gives the person their file back byte
			// for byte, when nothing but cairn's entries changed since.
			setup := func(b []byte) ([]byte, bool, error) { return edit(b, false, before) }
			if orig, ok := agentsetup.Original(path, before, setup, takeOut); ok {
				after = orig
			} else if agentsetup.Created(path, after) {
				after = nil
			}
		}
		if changed {
			out = append(out, fileChange{path: path, what: what, note: note, before: before, after: after, mode: mode})
		}
		return nil
	}
	switch agent {
	case "claude-code":
		hooksFile, mcpFile, mode := filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json"), os.FileMode(0o600)
		if proj {
			wd, err := a.env.Getwd()
			if err != nil {
				return nil, err
			}
			root := project.GitRoot(wd)
			if root == "" {
				return nil, usagef("--project: %s is not inside a git repository; use --user, or run setup in the repository", cleanLine(wd))
			}
			hooksFile, mcpFile, mode = filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".mcp.json"), 0o644
		}
		if err := add(hooksFile, "Claude Code hooks", mode, func(b []byte, remove bool, prior []byte) ([]byte, bool, error) {
			return agentsetup.ClaudeHooks(b, command, remove, prior)
		}); err != nil {
			return nil, err
		}
		if err := add(mcpFile, "Claude Code MCP server", mode, func(b []byte, remove bool, prior []byte) ([]byte, bool, error) {
			return agentsetup.ClaudeMCP(b, command, remove, prior)
		}); err != nil {
			return nil, err
		}
	case "codex":
		if proj {
			return nil, usagef("--project: Codex keeps its MCP servers per user, in ~/.codex/config.toml")
		}
		dir := a.env.Getenv("CODEX_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".codex")
		}
		// Codex hands its MCP servers only a few of its own variables: a
		// store not in its default place is named in the server's env.
		var env map[string]string
		if h, err := a.homePath(); err == nil && h != filepath.Join(home, ".local", "share", "cairn") {
			env = map[string]string{"CAIRN_HOME": h}
		}
		if err := add(filepath.Join(dir, "config.toml"), "Codex MCP server", 0o600, func(b []byte, remove bool, prior []byte) ([]byte, bool, error) {
			return agentsetup.CodexMCP(b, command, remove, prior, env)
		}); err != nil {
			return nil, err
		}
	case "git":
		return a.gitSetupChanges(remove)
	default:
		return nil, usagef("unknown agent %q: use claude-code or codex (or git: the team mirror's merge driver)", agent)
	}
	return out, nil
}

// setupCommand is the command setup writes into the agents' settings:
// the name cairn when the cairn found on $PATH is this binary, so that an
// upgrade that moves the binary (a Homebrew Cellar's versioned folder)
// breaks nothing; else the path this cairn was run by (see cairnBinary).
func setupCommand() (string, error) {
	bin, err := cairnBinary()
	if err != nil {
		return "", err
	}
	if onPath, err := exec.LookPath("cairn"); err == nil && sameFile(onPath, bin) {
		return "cairn", nil
	}
	return bin, nil
}

// cairnBinary is the absolute path this cairn was run by, its links left
// as they are: /opt/homebrew/bin/cairn, which survives an upgrade, not the
// versioned file it leads to.
func cairnBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the cairn binary: %w", err)
	}
	if filepath.Base(exe) != "cairn" {
		// A test binary or a renamed copy: name what people run.
		if p, err := exec.LookPath("cairn"); err == nil {
			return filepath.Abs(p)
		}
		return filepath.Join(filepath.Dir(exe), "cairn"), nil
	}
	// The kernel gives the file itself (Linux resolves the links): the
	// name the person ran, when it leads to this binary, is the one to keep.
	if len(os.Args) > 0 {
		invoked := os.Args[0]
		if !strings.Contains(invoked, "/") {
			invoked, err = exec.LookPath(invoked)
		}
		if err == nil {
			if abs, err := filepath.Abs(invoked); err == nil && filepath.Base(abs) == "cairn" && sameFile(abs, exe) {
				return abs, nil
			}
		}
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
