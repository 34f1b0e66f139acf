package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
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

// agentStates looks for cairn in the agents' settings files.
func (a *app) agentStates() (claude, codex agentState) {
	home := a.env.Getenv("HOME")
	var root string
	if wd, err := a.env.Getwd(); err == nil {
		root = project.GitRoot(wd)
	}
	hookFiles := []string{filepath.Join(home, ".claude", "settings.json")}
	mcpFiles := []string{filepath.Join(home, ".claude.json")}
	if root != "" {
		hookFiles = append(hookFiles, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
		mcpFiles = append(mcpFiles, filepath.Join(root, ".mcp.json"))
	}
	for _, f := range hookFiles {
		if b, err := agentsetup.ReadSettings(f); err == nil && bytes.Contains(b, []byte("hook claude-code")) {
			claude.Hooks = append(claude.Hooks, f)
		}
	}
	for _, f := range mcpFiles {
		var v struct {
			MCP map[string]json.RawMessage `json:"mcpServers"`
		}
		if b, err := agentsetup.ReadSettings(f); err == nil && json.Unmarshal(b, &v) == nil && v.MCP["cairn"] != nil {
			claude.MCP = append(claude.MCP, f)
		}
	}
	claude.NotSetUp = len(claude.Hooks) == 0 && len(claude.MCP) == 0
	claude.SetupHint = "cairn setup claude-code"
	dir := a.env.Getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(home, ".codex")
	}
	var cfg struct {
		MCP map[string]any `toml:"mcp_servers"`
	}
	cf := filepath.Join(dir, "config.toml")
	if b, err := agentsetup.ReadSettings(cf); err == nil {
		if _, err := toml.Decode(string(b), &cfg); err == nil && cfg.MCP["cairn"] != nil {
			codex.MCP = []string{cf}
		}
	}
	codex.NotSetUp = len(codex.MCP) == 0
	codex.SetupHint = "cairn setup codex"
	return claude, codex
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
