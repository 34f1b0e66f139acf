// Package config reads and writes cairn's one settings file,
// $XDG_CONFIG_HOME/cairn/config.toml (default ~/.config/cairn/config.toml).
//
// Every setting has a default, may be set in the file, and may be
// overridden by an environment variable; Load says which of the three each
// value came from. A file that cannot be read or parsed never stops cairn:
// its problems become one-line warnings that name the line and what to do,
// and the settings fall back to their defaults.
//
// The package does no I/O beyond the file itself and knows nothing of the
// rest of cairn, so that every part of it (the command line, the store
// server, consolidation) can read the same settings the same way.
package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/internal/safefile"
	"github.com/BurntSushi/toml"
)

// Source says where a value came from.
type Source int

const (
	Default Source = iota
	File
	Env
)

func (s Source) String() string {
	switch s {
	case File:
		return "file"
	case Env:
		return "environment"
	}
	return "default"
}

// MarshalText lets --json print the source as a word.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Source) UnmarshalText(b []byte) error {
	for _, c := range []Source{Default, File, Env} {
		if c.String() == string(b) {
			*s = c
			return nil
		}
	}
	return fmt.Errorf("unknown source %q", b)
}

type kind int

const (
	kString kind = iota
	kURL
	kDuration
	kTheme
	kInt
	kWeight
	kBool
	kPath
	kSecret
	kEnvName
)

// Spec describes one setting.
type Spec struct {
	Key  string // dotted: "embed.url"
	Env  string // the environment variable that overrides it ("" for none)
	Def  string // its default, as text ("" for unset)
	Help string
	kind kind
}

// Secret reports whether the setting holds a credential, which is never
// printed.
func (s Spec) Secret() bool { return s.kind == kSecret }

// Themes are the workbench's themes.
var Themes = []string{"dark", "light", "high-contrast", "plain"}

// Specs is every setting, in the order `cairn config` shows them.
var Specs = []Spec{
	{Key: "home", Env: "CAIRN_HOME", kind: kPath, Help: "cairn's data directory (default $XDG_DATA_HOME/cairn)"},
	{Key: "theme", Env: "CAIRN_THEME", kind: kTheme, Help: "workbench theme: dark, light, high-contrast or plain (default: from the terminal)"},
	{Key: "debug", Env: "CAIRN_DEBUG", Def: "false", kind: kBool, Help: "log the store's internals to debug.log in the data directory"},
	{Key: "embed.url", Env: "CAIRN_EMBED_URL", kind: kURL, Help: "OpenAI-compatible embeddings base URL (default: the built-in embedder)"},
	{Key: "embed.model", Env: "CAIRN_EMBED_MODEL", Def: "text-embedding-3-small", kind: kString, Help: "embedding model"},
	{Key: "embed.key", Env: "CAIRN_EMBED_KEY", kind: kSecret, Help: "embedding API key (prefer embed.key_env; the file must be 0600)"},
	{Key: "embed.key_env", kind: kEnvName, Help: "name of the environment variable holding the embedding key (default OPENAI_API_KEY)"},
	{Key: "llm.url", Env: "CAIRN_LLM_URL", kind: kURL, Help: "OpenAI-compatible chat base URL for consolidation (default: none)"},
	{Key: "llm.model", Env: "CAIRN_LLM_MODEL", kind: kString, Help: "chat model for consolidation"},
	{Key: "llm.key", Env: "CAIRN_LLM_KEY", kind: kSecret, Help: "chat API key (prefer llm.key_env; the file must be 0600)"},
	{Key: "llm.key_env", kind: kEnvName, Help: "name of the environment variable holding the chat key"},
	{Key: "llm.deadline", Env: "CAIRN_LLM_DEADLINE", Def: "60s", kind: kDuration, Help: "how long one consolidation pass may wait for the chat model in all; then the patterns take the drafts left"},
	{Key: "recall.budget", Env: "CAIRN_RECALL_BUDGET", Def: "800", kind: kInt, Help: "default token budget of a recall"},
	{Key: "recall.salience_weight", Def: "0.1", kind: kWeight, Help: "how much use (salience) lifts a recalled memory, 0 to 1 (applied by the shared server)"},
	{Key: "server.idle", Env: "CAIRN_IDLE", Def: "10s", kind: kDuration, Help: "how long the shared store server waits without clients before it exits"},
}

// Lookup finds a setting by key.
func Lookup(key string) (Spec, bool) {
	for _, s := range Specs {
		if s.Key == key {
			return s, true
		}
	}
	return Spec{}, false
}

// Keys lists every key, for messages.
func Keys() string {
	ks := make([]string, len(Specs))
	for i, s := range Specs {
		ks[i] = s.Key
	}
	return strings.Join(ks, ", ")
}

// Path is the settings file: $XDG_CONFIG_HOME/cairn/config.toml, else
// $HOME/.config/cairn/config.toml. It is "" when neither is set (no file
// is read: tests that hand cairn an environment without them never read a
// real user's file).
func Path(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cairn", "config.toml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "cairn", "config.toml")
	}
	return ""
}

// Value is one setting's value and where it came from.
type Value struct {
	Key    string `json:"key"`
	Value  string `json:"value"` // "" for a secret, whatever it holds
	Set    bool   `json:"set"`   // a secret: whether it holds anything
	Source Source `json:"source"`
	Env    string `json:"env,omitempty"`
	Line   int    `json:"line,omitempty"` // its line in the file, when it came from there
	// Problem says what is wrong with a variable's value (a bad value in
	// the file is dropped instead, and said in Settings.Problems).
	Problem  string `json:"problem,omitempty"`
	fallback string // the file's or the default value behind a variable
}

// Settings are the values in force for one process.
type Settings struct {
	Path     string
	Problems []string // one line each: what is wrong in the file and what to do
	vals     map[string]Value
	raw      map[string]string // the file's values (valid ones only)
	getenv   func(string) string
}

// Load reads the file and the environment: the environment overrides the
// file, which overrides the defaults.
func Load(getenv func(string) string) *Settings { return load(getenv, true) }

// LoadFile reads the file alone, ignoring the overriding variables: what
// the shared store server uses, so that its settings mean the same thing
// whichever process started it. The environment still locates the file
// and holds the keys the file names (embed.key_env, OPENAI_API_KEY).
func LoadFile(getenv func(string) string) *Settings { return load(getenv, false) }

func load(getenv func(string) string, envWins bool) *Settings {
	s := &Settings{Path: Path(getenv), vals: map[string]Value{}, raw: map[string]string{}, getenv: getenv}
	s.readFile()
	for _, sp := range Specs {
		v := Value{Key: sp.Key, Env: sp.Env, Value: sp.Def, Source: Default}
		if fv, ok := s.raw[sp.Key]; ok {
			v.Value, v.Source = fv, File
			v.Line = s.lineOf(sp.Key)
		}
		if envWins && sp.Env != "" {
			if ev := getenv(sp.Env); ev != "" {
				// A bad variable is still the value in force: what reads
				// it refuses it as it always did (a mistyped CAIRN_LLM_URL
				// stops consolidation rather than running without it).
				// cairn config shows what is wrong with it.
				v.fallback = v.Value
				v.Value, v.Source, v.Line = ev, Env, 0
				// (A relative CAIRN_HOME is the working directory's, as
				// it always was; in the file it would be relative to
				// nothing, so there it must be absolute.)
				if err := Validate(sp.Key, ev); err != nil && sp.kind != kPath {
					v.Problem = fmt.Sprintf("%v — fix or unset %s", err, sp.Env)
				}
			}
		}
		v.Set = v.Value != ""
		s.vals[sp.Key] = v
	}
	return s
}

// text is the file's content, kept to find the line of a key.
func (s *Settings) readFile() {
	if s.Path == "" {
		return
	}
	b, err := readSettings(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var bad badFile
	if errors.As(err, &bad) {
		s.Problems = append(s.Problems, string(bad))
		return
	}
	if err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("%s cannot be read (%v): using the defaults", s.Path, unwrapPath(err)))
		return
	}
	s.raw["\x00text"] = string(b)
	fields, problems := parse(s.Path, string(b))
	s.Problems = append(s.Problems, problems...)
	secretOK := true
	if fi, err := os.Stat(s.Path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		secretOK = false
	}
	for k, v := range fields {
		if sp, _ := Lookup(k); sp.Secret() && !secretOK {
			s.Problems = append(s.Problems, fmt.Sprintf("%s:%d: %s is a key in a file others can read: run chmod 600 %s (or move the key to an environment variable named by %s_env); the key is not used",
				s.Path, lineIn(string(b), k), k, s.Path, k))
			continue
		}
		s.raw[k] = v
	}
}

// MaxFile bounds the settings file: a few dozen lines hold every setting.
const MaxFile = 1 << 20

// readSettings reads the settings file when it is a regular file (a link
// to one is fine: dotfiles) of at most MaxFile bytes. A link to /dev/zero,
// a FIFO or a device is refused without being read or waited on, so that a
// broken file is a warning and never stops a command.
func readSettings(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode()) // swapped since the look
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, badFile(fmt.Sprintf("%s is over %d MiB, not a settings file: using the defaults — move it away (mv %s %s.bak) and write a new one with cairn config edit", path, MaxFile>>20, path, path))
	}
	return b, nil
}

func notRegular(path string, m fs.FileMode) error {
	return badFile(fmt.Sprintf("%s is %s, not a regular file: using the defaults — remove it (rm %s) and write one with cairn config edit", path, safefile.Kind(m), path))
}

// badFile is a settings file cairn will not read, said whole.
type badFile string

func (b badFile) Error() string { return string(b) }

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parse decodes the file into dotted keys with their values as text. A
// syntax error makes the whole file unusable (TOML cannot be read past
// it); a bad or unknown value drops that value alone.
func parse(path, text string) (map[string]string, []string) {
	var tree map[string]any
	if _, err := toml.Decode(text, &tree); err != nil {
		line := 0
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line = pe.Position.Line
		}
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		return nil, []string{fmt.Sprintf("%s:%d: %s — fix it with `cairn config edit`; until then every setting has its default", path, line, oneLine(msg))}
	}
	out := map[string]string{}
	var problems []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			full := prefix + k
			if sub, ok := m[k].(map[string]any); ok {
				if _, known := Lookup(full); !known {
					walk(full+".", sub)
					continue
				}
			}
			sp, ok := Lookup(full)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s:%d: unknown setting %s — the settings are %s; remove it with `cairn config edit`", path, lineIn(text, full), full, Keys()))
				continue
			}
			v, err := asText(sp, m[k])
			if err == nil {
				err = Validate(full, v)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %v — fix it with `cairn config edit`; using the default", path, lineIn(text, full), err))
				continue
			}
			out[full] = v
		}
	}
	walk("", tree)
	return out, problems
}

// asText turns a decoded TOML value into the setting's text form.
func asText(sp Spec, v any) (string, error) {
	switch sp.kind {
	case kInt:
		if n, ok := v.(int64); ok {
			return strconv.FormatInt(n, 10), nil
		}
		return "", fmt.Errorf("%s must be a whole number, as in %s = %s", sp.Key, leaf(sp.Key), sp.Def)
	case kWeight:
		switch n := v.(type) {
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64), nil
		case int64:
			return strconv.FormatInt(n, 10), nil
		}
		return "", fmt.Errorf("%s must be a number, as in %s = %s", sp.Key, leaf(sp.Key), sp.Def)
	case kBool:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
		return "", fmt.Errorf("%s must be true or false", sp.Key)
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	example := sp.Def
	if example == "" {
		example = "..."
	}
	return "", fmt.Errorf("%s must be a quoted string, as in %s = %q", sp.Key, leaf(sp.Key), example)
}

func leaf(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[i+1:]
	}
	return key
}

func section(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

// Validate checks a value for a setting, in one line that says what is
// expected.
func Validate(key, value string) error {
	sp, ok := Lookup(key)
	if !ok {
		return fmt.Errorf("unknown setting %q: the settings are %s", key, Keys())
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return nil // unset: the default
	}
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("%s holds a control character: give the value alone", key)
	}
	if check := checks[sp.kind]; check != nil {
		return check(key, value)
	}
	return nil
}

// checks are the checks of a value by the kind of its setting (a string
// takes anything).
var checks = map[kind]func(key, value string) error{
	kURL: func(key, value string) error {
		u, err := url.Parse(value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s must be an http(s) URL such as http://127.0.0.1:11434/v1", key)
		}
		return nil
	},
	kDuration: func(key, value string) error {
		if d, err := time.ParseDuration(value); err != nil || d <= 0 {
			return fmt.Errorf("%s must be a positive duration such as 30s or 5m", key)
		}
		return nil
	},
	kTheme: func(key, value string) error {
		if slices.Contains(Themes, value) {
			return nil
		}
		return fmt.Errorf("%s: there is no theme %q: use %s", key, value, strings.Join(Themes, ", "))
	},
	kInt: func(key, value string) error {
		if n, err := strconv.Atoi(value); err != nil || n <= 0 {
			return fmt.Errorf("%s must be a positive whole number of tokens", key)
		}
		return nil
	},
	kWeight: func(key, value string) error {
		if f, err := strconv.ParseFloat(value, 64); err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("%s must be a number from 0 to 1", key)
		}
		return nil
	},
	kBool: func(key, value string) error {
		if _, err := strconv.ParseBool(value); err != nil {
			return fmt.Errorf("%s must be true or false", key)
		}
		return nil
	},
	kPath: func(key, value string) error {
		if !filepath.IsAbs(value) && !strings.HasPrefix(value, "~/") {
			return fmt.Errorf("%s must be an absolute path", key)
		}
		return nil
	},
	kEnvName: func(key, value string) error {
		for i, r := range value {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
				return fmt.Errorf("%s must be the name of an environment variable (such as OPENAI_API_KEY), not the key itself", key)
			}
		}
		return nil
	},
	kSecret: func(key, value string) error {
		if strings.ContainsAny(value, " \t") {
			return fmt.Errorf("%s holds a space: give the key alone", key)
		}
		return nil
	},
}

// Get is a setting's value in force ("" when unset). A secret's value is
// its key: callers that print must use Value instead.
func (s *Settings) Get(key string) string {
	sp, ok := Lookup(key)
	if ok && sp.Secret() {
		return s.secret(key)
	}
	v := s.vals[key].Value
	if ok && sp.kind == kPath && strings.HasPrefix(v, "~/") && s.getenv("HOME") != "" {
		v = filepath.Join(s.getenv("HOME"), v[2:])
	}
	return v
}

// secret resolves a key: its variable, the file, the variable the file
// names (section.key_env).
func (s *Settings) secret(key string) string {
	if v := s.vals[key]; v.Value != "" {
		return v.Value
	}
	if name := s.vals[key+"_env"].Value; name != "" {
		return s.getenv(name)
	}
	return ""
}

// Value is a setting with its source, safe to print (a secret's value is
// blank; Set says whether it holds one).
func (s *Settings) Value(key string) (Value, bool) {
	v, ok := s.vals[key]
	if !ok {
		return v, false
	}
	if sp, _ := Lookup(key); sp.Secret() {
		v.Set = s.secret(key) != ""
		if v.Source == Default && v.Set {
			v.Source = Env // through the variable named by key_env
		}
		v.Value = ""
	}
	return v, true
}

// All is every setting, safe to print.
func (s *Settings) All() []Value {
	out := make([]Value, 0, len(Specs))
	for _, sp := range Specs {
		v, _ := s.Value(sp.Key)
		out = append(out, v)
	}
	return out
}

// Duration, Int, Float and Bool read typed settings. A variable whose
// value does not validate gives way to the file's or the default value.
func (s *Settings) Duration(key string) time.Duration {
	d, _ := time.ParseDuration(s.valid(key))
	return d
}

func (s *Settings) Int(key string) int {
	n, _ := strconv.Atoi(s.valid(key))
	return n
}

func (s *Settings) Float(key string) float64 {
	f, _ := strconv.ParseFloat(s.valid(key), 64)
	return f
}

func (s *Settings) Bool(key string) bool {
	b, _ := strconv.ParseBool(s.valid(key))
	return b
}

func (s *Settings) valid(key string) string {
	if v := s.vals[key]; v.Problem != "" {
		return v.fallback
	}
	return s.Get(key)
}

// Getenv is getenv with the settings behind it: a variable that names a
// setting (CAIRN_EMBED_URL, CAIRN_LLM_KEY…) reads as that setting's value
// in force, every other variable as getenv has it. It lets code written
// for the environment read the file without knowing of it.
func (s *Settings) Getenv(getenv func(string) string) func(string) string {
	byEnv := map[string]string{}
	for _, sp := range Specs {
		if sp.Env != "" {
			byEnv[sp.Env] = sp.Key
		}
	}
	return func(name string) string {
		if key, ok := byEnv[name]; ok {
			if sp, _ := Lookup(key); sp.kind == kBool && !s.Bool(key) {
				return "" // CAIRN_DEBUG is on when set at all
			}
			return s.Get(key)
		}
		return getenv(name)
	}
}

// lineOf is the line of key in the file (0 when it cannot be told).
func (s *Settings) lineOf(key string) int { return lineIn(s.raw["\x00text"], key) }

// lineIn finds the line that sets key in a TOML text: "leaf = " under
// its [section] header, or a dotted "section.leaf = " anywhere.
func lineIn(text, key string) int {
	sec, lf := section(key), leaf(key)
	cur := ""
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			cur = strings.TrimSpace(strings.Trim(t, "[] \t"))
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		k = strings.ReplaceAll(strings.TrimSpace(k), " ", "")
		k = strings.Trim(k, `"`)
		if (cur == sec && k == lf) || (cur == "" && k == key) {
			return i + 1
		}
	}
	return 0
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// Shown is a setting's value as it may be printed: a key is never shown
// (see Spec.Secret; the caller says whether it is set), and a URL loses
// what may hold a credential — its user information (http://user:pass@…)
// and the value of any query parameter that names a key, token, secret or
// password.
func Shown(key, value string) string {
	sp, _ := Lookup(key)
	if sp.kind != kURL || value == "" {
		return value
	}
	return RedactURL(value)
}

// RedactURL is rawURL without its user information or the values of
// query parameters that look like credentials.
func RedactURL(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		// Not a URL that parses: cut whatever stands before an @ after
		// the scheme, and every query.
		s, _, _ := strings.Cut(rawURL, "?")
		if i := strings.Index(s, "//"); i >= 0 {
			if j := strings.LastIndex(s[i+2:], "@"); j >= 0 {
				s = s[:i+2] + "redacted@" + s[i+2+j+1:]
			}
		}
		return s
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			l := strings.ToLower(k)
			for _, w := range []string{"key", "token", "secret", "pass", "sig", "auth", "credential"} {
				if strings.Contains(l, w) {
					q[k] = []string{"redacted"}
					break
				}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}
