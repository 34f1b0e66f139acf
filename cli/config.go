package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"cairn/internal/config"
)

// configHelp documents the file; `cairn config --help` and docs/reference.md say
// the same.
const configHelp = `cairn keeps its settings in one file, $XDG_CONFIG_HOME/cairn/config.toml
(default ~/.config/cairn/config.toml). Every setting has a default, may be
set in the file, and is overridden by its environment variable:

  key                     variable               default
  home                    CAIRN_HOME             $XDG_DATA_HOME/cairn
  theme                   CAIRN_THEME            from the terminal (dark, light, high-contrast, plain)
  debug                   CAIRN_DEBUG            false
  embed.url               CAIRN_EMBED_URL        the built-in embedder
  embed.model             CAIRN_EMBED_MODEL      text-embedding-3-small
  embed.key               CAIRN_EMBED_KEY        (none)
  embed.key_env           -                      OPENAI_API_KEY
  llm.url                 CAIRN_LLM_URL          none: consolidation uses patterns only
  llm.model               CAIRN_LLM_MODEL        (none)
  llm.key                 CAIRN_LLM_KEY          (none)
  llm.key_env             -                      (none)
  llm.deadline            CAIRN_LLM_DEADLINE     60s (a pass's wait for the model in all)
  recall.budget           CAIRN_RECALL_BUDGET    800 tokens
  recall.salience_weight  -                      0.1 (how much use lifts a memory, 0 to 1)
  server.idle             CAIRN_IDLE             10s

For example:

  theme = "dark"

  [embed]
  url = "http://127.0.0.1:11434/v1"   # Ollama
  model = "nomic-embed-text"
  key_env = "OLLAMA_KEY"              # the name of a variable, not the key

  [recall]
  budget = 1200

Keys are best left in the environment: key_env names the variable that holds
one. A key written in the file (embed.key, llm.key) is used only while the
file is private (mode 0600, which cairn config set keeps), and is never
printed.

The shared store server follows the file, not the environment of whichever
process started it, and re-reads the file when it changes: a change of
embedder rebuilds the index. A process whose own CAIRN_EMBED_URL or
CAIRN_EMBED_MODEL differs from the server's is told so on stderr.

  cairn config                 every setting, its value and where it came from
  cairn config get KEY         one value
  cairn config set KEY VALUE   validate and write it (VALUE - reads it from stdin; "" unsets)
  cairn config unset KEY       remove it from the file
  cairn config edit            open the file in $VISUAL or $EDITOR
  cairn config path            where the file is`

func (a *app) configCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "show and change cairn's settings (config.toml)",
		Long:  configHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.showConfig(cmd)
		},
	}
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "print one setting's value",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.configGet(cmd, args[0])
		},
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: `validate a value and write it to the file (VALUE "-" reads it from stdin, "" unsets)`,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.configSet(cmd, args[0], args[1])
		},
	}
	unset := &cobra.Command{
		Use:   "unset KEY",
		Short: "remove a setting from the file (its default applies again)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.configSet(cmd, args[0], "")
		},
	}
	edit := &cobra.Command{
		Use:   "edit",
		Short: "open the file in $VISUAL or $EDITOR, then check it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.configEdit(cmd)
		},
	}
	path := &cobra.Command{
		Use:   "path",
		Short: "print where the file is",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.configPath()
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(cmd.OutOrStdout(), map[string]string{"path": p})
			}
			fmt.Fprintln(cmd.OutOrStdout(), p)
			return nil
		},
	}
	c.AddCommand(get, set, unset, edit, path)
	return c
}

func (a *app) configPath() (string, error) {
	if a.cfg.Path == "" {
		return "", fmt.Errorf("there is no place for the settings file: set HOME or XDG_CONFIG_HOME")
	}
	return a.cfg.Path, nil
}

// configReport is `cairn config --json`.
type configReport struct {
	Path     string         `json:"path"`
	Problems []string       `json:"problems"`
	Settings []config.Value `json:"settings"`
}

func (a *app) showConfig(cmd *cobra.Command) error {
	r := configReport{Path: a.cfg.Path, Problems: a.cfg.Problems, Settings: a.cfg.All()}
	for i, v := range r.Settings {
		r.Settings[i].Value = config.Shown(v.Key, v.Value)
	}
	if r.Problems == nil {
		r.Problems = []string{}
	}
	if a.json {
		return writeJSON(cmd.OutOrStdout(), r)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "settings file: %s\n", cleanLine(orNone(r.Path)))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "! %s\n", cleanLine(p))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range r.Settings {
		from := v.Source.String()
		switch {
		case v.Source == config.Env && v.Env != "":
			from += " (" + v.Env + ")"
		case v.Source == config.File && v.Line > 0:
			from += fmt.Sprintf(" (line %d)", v.Line)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, shown(v), from)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range r.Settings {
		if v.Problem != "" {
			fmt.Fprintf(w, "! %s\n", cleanLine(v.Problem))
		}
	}
	return nil
}

// shown is a value as printed: a key only says whether it is set.
func shown(v config.Value) string {
	if sp, _ := config.Lookup(v.Key); sp.Secret() {
		if v.Set {
			return "(set, not shown)"
		}
		return "(unset)"
	}
	if v.Value == "" {
		return "(unset)"
	}
	return cleanLine(config.Shown(v.Key, v.Value))
}

func orNone(s string) string {
	if s == "" {
		return "(none: HOME and XDG_CONFIG_HOME are unset)"
	}
	return s
}

func (a *app) configGet(cmd *cobra.Command, key string) error {
	v, ok := a.cfg.Value(key)
	if !ok {
		return usagef("unknown setting %q: the settings are %s", key, config.Keys())
	}
	v.Value = config.Shown(key, v.Value)
	if a.json {
		return writeJSON(cmd.OutOrStdout(), v)
	}
	if sp, _ := config.Lookup(key); sp.Secret() {
		fmt.Fprintf(cmd.OutOrStdout(), "%s is %s (from the %s): keys are never printed\n", key, strings.Trim(shown(v), "()"), v.Source)
		return nil
	}
	fmt.Fprintln(cmd.OutOrStdout(), cleanLine(v.Value))
	return nil
}

func (a *app) configSet(cmd *cobra.Command, key, value string) error {
	path, err := a.configPath()
	if err != nil {
		return err
	}
	sp, ok := config.Lookup(key)
	if !ok {
		return usagef("unknown setting %q: the settings are %s", key, config.Keys())
	}
	if value == "-" {
		line, err := bufio.NewReader(a.env.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return usagef("%s: nothing came on stdin", key)
		}
		value = strings.TrimRight(line, "\r\n")
	}
	if err := config.Validate(key, value); err != nil {
		return usage(err)
	}
	rewrote, err := config.Set(path, key, value)
	if err != nil {
		return err
	}
	shownValue := cleanLine(config.Shown(key, strings.TrimSpace(value)))
	if sp.Secret() {
		shownValue = "(a key, not shown)"
	}
	if a.json {
		return writeJSON(cmd.OutOrStdout(), map[string]any{"path": path, "key": key, "set": value != "", "rewrote": rewrote})
	}
	w := cmd.OutOrStdout()
	if value == "" {
		fmt.Fprintf(w, "%s removed from %s (its default applies)\n", key, path)
	} else {
		fmt.Fprintf(w, "%s = %s written to %s\n", key, shownValue, path)
	}
	if rewrote {
		fmt.Fprintln(w, "the file was rewritten whole: its comments and layout were not kept")
	}
	if sp.Secret() && value != "" {
		fmt.Fprintf(w, "the file is now private (0600); a key is safer in the environment: cairn config set %s_env VARIABLE\n", key)
	}
	if sp.Env != "" {
		if v, _ := a.cfg.Value(key); v.Source == config.Env {
			fmt.Fprintf(w, "note: %s is set in this environment and overrides the file here\n", sp.Env)
		}
	}
	return nil
}

// configEdit opens the file in the user's editor. It works whatever state
// the file is in, since it is how a broken file gets fixed. The editor
// command is run by sh, with the path as "$1", so that an editor with
// arguments (EDITOR="code --wait") and a path with spaces both work.
func (a *app) configEdit(cmd *cobra.Command) error {
	path, err := a.configPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the settings folder: %w", err)
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if err := os.WriteFile(path, []byte(starterFile), 0o600); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	}
	editor := config.Editor(a.env.Getenv)
	c := config.EditorCommand(cmd.Context(), a.env.Getenv, path)
	c.Stdin, c.Stdout, c.Stderr = a.env.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := c.Run(); err != nil {
		return fmt.Errorf("the editor (%s) failed: %v — the file is as the editor left it: %s", cleanLine(editor), err, path)
	}
	after := config.Load(a.rawGetenv)
	if len(after.Problems) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "%s is valid\n", path)
		return nil
	}
	for _, p := range after.Problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "cairn: %s\n", cleanLine(p))
	}
	return fmt.Errorf("%s has %d problem(s): run cairn config edit again", path, len(after.Problems))
}

// starterFile is what `cairn config edit` opens when there is no file yet.
const starterFile = `# cairn settings. Environment variables (CAIRN_*) override what is here.
# Every setting, with its default: cairn config --help

# theme = "dark"

# [embed]
# url = "http://127.0.0.1:11434/v1"
# model = "nomic-embed-text"
# key_env = "OPENAI_API_KEY"

# [llm]
# url = "http://127.0.0.1:11434/v1"
# model = "llama3.1"

# [recall]
# budget = 800

# [server]
# idle = "10s"
`

// embedFrom says where this process's embedder setting comes from, for
// the note when the shared server uses another.
func (a *app) embedFrom() string {
	for _, key := range []string{"embed.url", "embed.model"} {
		if v, _ := a.cfg.Value(key); v.Source == config.Env {
			return v.Env
		}
	}
	if v, _ := a.cfg.Value("embed.url"); v.Source == config.File {
		return "the settings file"
	}
	return "the defaults"
}
