package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cairn/agentsetup"
	"cairn/memory"
	"cairn/project"
	"cairn/remote"
)

// doctorReport is what `cairn doctor` finds.
type doctorReport struct {
	Home         string        `json:"home"`
	Store        *memory.Stats `json:"store,omitempty"`
	StoreError   string        `json:"store_error,omitempty"`
	HookFailures []string      `json:"hook_failures"` // the last few, oldest first
	ClaudeCode   agentState    `json:"claude_code"`
	Codex        agentState    `json:"codex"`
	LLM          bool          `json:"llm_configured"`
	Embedder     bool          `json:"embedder_configured"`
}

type agentState struct {
	Hooks     []string `json:"hooks,omitempty"`      // settings files with cairn's hooks
	MCP       []string `json:"mcp,omitempty"`        // files registering cairn's MCP server
	NotSetUp  bool     `json:"not_set_up,omitempty"` // neither
	SetupHint string   `json:"setup_hint,omitempty"` // what to run
	// Broken says, a line each, which of cairn's commands in these files
	// no longer run (a binary an upgrade moved), with the fix.
	Broken []string `json:"broken,omitempty"`
}

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "check cairn's store, the agents' setup and the last hook failures",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r := doctorReport{HookFailures: []string{}}
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			r.Home = home
			if err := a.openStore(cmd.Context()); err != nil {
				r.StoreError = oneLine(err.Error())
			} else if s, err := a.st.Stats(cmd.Context()); err != nil {
				r.StoreError = oneLine(err.Error())
			} else {
				r.Store = &s
			}
			r.HookFailures = lastLines(filepath.Join(home, hookLogName), 5)
			r.ClaudeCode, r.Codex = a.agentStates()
			r.LLM = a.env.Getenv("CAIRN_LLM_URL") != ""
			r.Embedder = a.env.Getenv("CAIRN_EMBED_URL") != ""
			if a.json {
				if err := writeJSON(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			} else {
				printDoctor(cmd, r)
			}
			if r.StoreError != "" {
				return fmt.Errorf("the store cannot be opened: %s", r.StoreError)
			}
			if broken := append(r.ClaudeCode.Broken, r.Codex.Broken...); len(broken) > 0 {
				return errors.New(broken[0])
			}
			return nil
		},
	}
}

func printDoctor(cmd *cobra.Command, r doctorReport) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "home      %s\n", cleanLine(r.Home))
	if r.Store != nil {
		fmt.Fprintf(w, "store     ok: %d memories in %d projects, %d drafts waiting or kept, %.1f MiB\n",
			r.Store.Memories, r.Store.Projects, r.Store.Drafts, float64(r.Store.LSMBytes+r.Store.VlogBytes)/(1<<20))
	} else {
		fmt.Fprintf(w, "store     cannot be opened: %s\n", cleanLine(r.StoreError))
	}
	for _, ag := range []struct {
		name string
		s    agentState
	}{{"claude    ", r.ClaudeCode}, {"codex     ", r.Codex}} {
		switch {
		case ag.s.NotSetUp:
			fmt.Fprintf(w, "%snot set up (%s)\n", ag.name, ag.s.SetupHint)
		default:
			var parts []string
			if len(ag.s.Hooks) > 0 {
				parts = append(parts, "hooks in "+strings.Join(ag.s.Hooks, ", "))
			}
			if len(ag.s.MCP) > 0 {
				parts = append(parts, "MCP server in "+strings.Join(ag.s.MCP, ", "))
			}
			fmt.Fprintf(w, "%s%s\n", ag.name, cleanLine(strings.Join(parts, "; ")))
		}
		for _, b := range ag.s.Broken {
			fmt.Fprintf(w, "%s%s\n", ag.name, cleanLine(b))
		}
	}
	if len(r.HookFailures) == 0 {
		fmt.Fprintln(w, "hooks     no failures logged")
	} else {
		fmt.Fprintf(w, "hooks     last failures (from %s):\n", filepath.Join(cleanLine(r.Home), hookLogName))
		for _, l := range r.HookFailures {
			fmt.Fprintf(w, "  %s\n", cleanLine(l))
		}
	}
	yesNo := func(b bool, name string) string {
		if b {
			return name + " configured"
		}
		return "no " + name
	}
	fmt.Fprintf(w, "models    %s (patterns only without one); %s (built-in hashed vectors without one)\n",
		yesNo(r.LLM, "chat model (CAIRN_LLM_URL)"), yesNo(r.Embedder, "embedder (CAIRN_EMBED_URL)"))
}

// agentStates looks for cairn in the agents' settings files, and checks
// that the commands it finds there still run.
func (a *app) agentStates() (claude, codex agentState) {
	home := a.env.Getenv("HOME")
	var root string
	if wd, err := a.env.Getwd(); err == nil {
		root = project.GitRoot(wd)
	}
	// The files of --project setups are fixed by setup --project.
	fix := func(f, agent string) string {
		if root != "" && strings.HasPrefix(f, root+string(filepath.Separator)) {
			return "cairn setup " + agent + " --project"
		}
		return "cairn setup " + agent
	}
	hookFiles := []string{filepath.Join(home, ".claude", "settings.json")}
	mcpFiles := []string{filepath.Join(home, ".claude.json")}
	if root != "" {
		hookFiles = append(hookFiles, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
		mcpFiles = append(mcpFiles, filepath.Join(root, ".mcp.json"))
	}
	var cc, cx commandUses
	for _, f := range hookFiles {
		if b, err := agentsetup.ReadSettings(f); err == nil && bytes.Contains(b, []byte("hook claude-code")) {
			claude.Hooks = append(claude.Hooks, f)
			for _, p := range agentsetup.HookPrograms(b) {
				cc.add(expandHome(p, home), f, fix(f, "claude-code"))
			}
		}
	}
	for _, f := range mcpFiles {
		if b, err := agentsetup.ReadSettings(f); err == nil {
			if p, ok := agentsetup.ServerProgram(b); ok {
				claude.MCP = append(claude.MCP, f)
				cc.add(p, f, fix(f, "claude-code"))
			}
		}
	}
	claude.NotSetUp = len(claude.Hooks) == 0 && len(claude.MCP) == 0
	claude.SetupHint = "cairn setup claude-code"
	dir := a.env.Getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(home, ".codex")
	}
	cf := filepath.Join(dir, "config.toml")
	if b, err := agentsetup.ReadSettings(cf); err == nil {
		if p, ok := agentsetup.CodexProgram(b); ok {
			codex.MCP = []string{cf}
			cx.add(p, cf, "cairn setup codex")
		}
	}
	codex.NotSetUp = len(codex.MCP) == 0
	codex.SetupHint = "cairn setup codex"
	pathList := a.env.Getenv("PATH")
	claude.Broken, codex.Broken = cc.broken(pathList), cx.broken(pathList)
	return claude, codex
}

// commandUses are the commands cairn's entries run, with the files that
// name each and the setup that writes them again.
type commandUses struct {
	cmds  []string
	files map[string][]string
	fixes map[string]string
}

func (u *commandUses) add(cmd, file, fix string) {
	if u.files == nil {
		u.files, u.fixes = map[string][]string{}, map[string]string{}
	}
	if _, ok := u.files[cmd]; !ok {
		u.cmds = append(u.cmds, cmd)
	}
	if !slices.Contains(u.files[cmd], file) {
		u.files[cmd] = append(u.files[cmd], file)
	}
	if u.fixes[cmd] == "" || strings.HasSuffix(u.fixes[cmd], "--project") {
		u.fixes[cmd] = fix // the user's setup first: the one most have
	}
}

// broken says, a line each, which commands no longer run and what to do.
func (u *commandUses) broken(pathList string) []string {
	var out []string
	for _, c := range u.cmds {
		if why := cannotRun(c, pathList); why != "" {
			out = append(out, fmt.Sprintf("cairn's command %s (in %s) %s: run '%s' again", c, strings.Join(u.files[c], ", "), why, u.fixes[c]))
		}
	}
	return out
}

// cannotRun says why an agent could not start cmd ("" when it can): a
// path that is gone or not executable, a name not on the $PATH given.
func cannotRun(cmd, pathList string) string {
	if cmd == "" {
		return "is empty"
	}
	if !strings.Contains(cmd, "/") {
		for _, dir := range filepath.SplitList(pathList) {
			if dir != "" && executable(filepath.Join(dir, cmd)) == "" {
				return ""
			}
		}
		return "is not on your $PATH"
	}
	if !filepath.IsAbs(cmd) {
		return "" // relative to where the agent runs: nothing to check here
	}
	return executable(cmd)
}

func executable(path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return "is a link to a file that no longer exists (an upgrade moved it?)"
		}
		return "no longer exists (an upgrade moved it?)"
	case err != nil:
		return "cannot be read: " + oneLine(err.Error())
	case fi.IsDir():
		return "is a directory"
	case fi.Mode().Perm()&0o111 == 0:
		return "is not executable"
	}
	return ""
}

// expandHome is a hook's program as the shell runs it: ~/ is the home.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// lastLines are the last n lines of a log, with how long ago each was. A
// log cairn will not read (a link, a FIFO) is said as its one line.
func lastLines(path string, n int) []string {
	b, err := remote.ReadTail(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}
	}
	if err != nil {
		return []string{oneLine(err.Error())}
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := []string{}
	for _, l := range lines {
		if l == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339, strings.Fields(l)[0]); err == nil {
			ago := age(time.Now(), t) + " ago"
			if ago == "now ago" {
				ago = "just now"
			}
			l = ago + " · " + strings.TrimSpace(strings.TrimPrefix(l, strings.Fields(l)[0]))
		}
		out = append(out, l)
	}
	return out
}

// wroteTranscript reports whether a session left a transcript to read.
// `claude mcp list` and `claude doctor` start Claude Code's hooks to check
// them, and end a session that never wrote one (no path, no file, or an
// empty file): there is nothing to read, and no failure to show in doctor.
func wroteTranscript(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist) && (err != nil || !fi.Mode().IsRegular() || fi.Size() > 0)
}
