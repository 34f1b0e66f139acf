package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env is an environment for a test: a temporary HOME and config dir, so
// that no test reads or writes a real user's file.
func env(t *testing.T, vars ...string) (getenv func(string) string, path string) {
	t.Helper()
	tmp := t.TempDir()
	m := map[string]string{"HOME": tmp, "XDG_CONFIG_HOME": filepath.Join(tmp, "cfg")}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	getenv = func(k string) string { return m[k] }
	return getenv, Path(getenv)
}

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestPathFollowsXDGThenHome(t *testing.T) {
	m := map[string]string{"HOME": "/h"}
	get := func(k string) string { return m[k] }
	if p := Path(get); p != "/h/.config/cairn/config.toml" {
		t.Fatalf("without XDG_CONFIG_HOME: %s", p)
	}
	m["XDG_CONFIG_HOME"] = "/x"
	if p := Path(get); p != "/x/cairn/config.toml" {
		t.Fatalf("with XDG_CONFIG_HOME: %s", p)
	}
	m["XDG_CONFIG_HOME"] = "relative" // the XDG spec says to ignore it
	if p := Path(get); p != "/h/.config/cairn/config.toml" {
		t.Fatalf("with a relative XDG_CONFIG_HOME: %s", p)
	}
	if p := Path(func(string) string { return "" }); p != "" {
		t.Fatalf("with neither, no file is read, got %s", p)
	}
}

func TestEnvironmentOverridesFileOverridesDefault(t *testing.T) {
	getenv, path := env(t, "CAIRN_THEME", "light")
	write(t, path, "theme = \"dark\"\n\n[recall]\nbudget = 1200\n", 0o600)
	s := Load(getenv)
	if len(s.Problems) != 0 {
		t.Fatalf("problems: %q", s.Problems)
	}
	for _, c := range []struct {
		key, want string
		from      Source
		line      int
	}{
		{"theme", "light", Env, 0},
		{"recall.budget", "1200", File, 4},
		{"server.idle", "10s", Default, 0},
	} {
		v, _ := s.Value(c.key)
		if v.Value != c.want || v.Source != c.from || v.Line != c.line {
			t.Errorf("%s = %q from %s line %d, want %q from %s line %d", c.key, v.Value, v.Source, v.Line, c.want, c.from, c.line)
		}
	}
	if s.Int("recall.budget") != 1200 || s.Duration("server.idle").Seconds() != 10 {
		t.Fatalf("typed reads: %d %v", s.Int("recall.budget"), s.Duration("server.idle"))
	}
	// The server reads the file alone.
	if v, _ := LoadFile(getenv).Value("theme"); v.Value != "dark" || v.Source != File {
		t.Fatalf("LoadFile: theme %+v", v)
	}
}

func TestMalformedFileNamesItsLineAndFallsBack(t *testing.T) {
	getenv, path := env(t)
	write(t, path, "theme = \"dark\"\n[embed]\nurl = http://x\n", 0o600)
	s := Load(getenv)
	if len(s.Problems) != 1 || !strings.HasPrefix(s.Problems[0], path+":3: ") || !strings.Contains(s.Problems[0], "cairn config edit") {
		t.Fatalf("want one problem naming line 3 and the fix, got %q", s.Problems)
	}
	if v, _ := s.Value("theme"); v.Source != Default {
		t.Fatalf("a file that does not parse gives defaults, got theme %+v", v)
	}
}

func TestBadValuesAreDroppedOneByOne(t *testing.T) {
	getenv, path := env(t)
	write(t, path, "theme = \"purple\"\n\n[server]\nidle = \"soon\"\n\n[recall]\nbudget = 900\nbudgte = 3\n", 0o600)
	s := Load(getenv)
	want := []string{path + ":1: theme: there is no theme", path + ":4: server.idle must be a positive duration", path + ":8: unknown setting recall.budgte"}
	if len(s.Problems) != len(want) {
		t.Fatalf("problems %q", s.Problems)
	}
	for _, w := range want {
		found := false
		for _, p := range s.Problems {
			found = found || strings.HasPrefix(p, w)
		}
		if !found {
			t.Errorf("no problem starts %q in %q", w, s.Problems)
		}
	}
	if s.Int("recall.budget") != 900 || s.Get("theme") != "" || s.Get("server.idle") != "10s" {
		t.Fatalf("the good value is kept and the bad ones default: %d %q %q", s.Int("recall.budget"), s.Get("theme"), s.Get("server.idle"))
	}
}

func TestBadEnvironmentValueIsShownAndPassedOn(t *testing.T) {
	getenv, _ := env(t, "CAIRN_IDLE", "forever")
	s := Load(getenv)
	v, _ := s.Value("server.idle")
	if len(s.Problems) != 0 || v.Source != Env || !strings.Contains(v.Problem, "unset CAIRN_IDLE") || s.Duration("server.idle").String() != "10s" {
		t.Fatalf("%q %+v %v", s.Problems, v, s.Duration("server.idle"))
	}
	// Code that reads the variable sees it as it is, and refuses it itself.
	if s.Getenv(getenv)("CAIRN_IDLE") != "forever" {
		t.Fatal("a bad variable must reach its reader unchanged")
	}
}

func TestKeys(t *testing.T) {
	getenv, path := env(t, "MY_EMBED_KEY", "sk-from-env")
	write(t, path, "[embed]\nurl = \"https://api.example.com/v1\"\nkey_env = \"MY_EMBED_KEY\"\n[llm]\nkey = \"sk-in-file\"\n", 0o600)
	s := Load(getenv)
	if s.Get("embed.key") != "sk-from-env" || s.Get("llm.key") != "sk-in-file" {
		t.Fatalf("keys: %q %q", s.Get("embed.key"), s.Get("llm.key"))
	}
	for _, v := range s.All() {
		if strings.Contains(v.Value, "sk-") {
			t.Fatalf("All shows a key: %+v", v)
		}
	}
	if v, _ := s.Value("llm.key"); !v.Set || v.Value != "" {
		t.Fatalf("a key's Value says it is set and shows nothing: %+v", v)
	}
	// What code written for the environment sees.
	g := s.Getenv(getenv)
	if g("CAIRN_EMBED_KEY") != "sk-from-env" || g("CAIRN_EMBED_URL") != "https://api.example.com/v1" || g("MY_EMBED_KEY") != "sk-from-env" {
		t.Fatalf("Getenv: %q %q", g("CAIRN_EMBED_KEY"), g("CAIRN_EMBED_URL"))
	}
	if g("CAIRN_DEBUG") != "" {
		t.Fatal("debug = false must read as an unset CAIRN_DEBUG")
	}

	// A key in a file others can read is not used, and that is said.
	os.Chmod(path, 0o644)
	s = Load(getenv)
	if s.Get("llm.key") != "" || len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "chmod 600") {
		t.Fatalf("a key in a 0644 file: %q %q", s.Get("llm.key"), s.Problems)
	}
	if strings.Contains(strings.Join(s.Problems, " "), "sk-in-file") {
		t.Fatal("the problem repeats the key")
	}
}

func TestSetKeepsCommentsAndLayout(t *testing.T) {
	getenv, path := env(t)
	orig := "# my settings\ntheme = \"dark\" # I like it dark\n\n[embed]\n# Ollama on this box\nurl = \"http://127.0.0.1:11434/v1\"\n\n[server]\nidle = \"30s\"\n"
	write(t, path, orig, 0o644)
	steps := []struct{ key, value string }{
		{"theme", "light"},
		{"embed.model", "nomic-embed-text"},
		{"recall.budget", "1200"},
		{"debug", "true"},
		{"server.idle", ""},
	}
	for _, s := range steps {
		if rewrote, err := Set(path, s.key, s.value); err != nil || rewrote {
			t.Fatalf("set %s: rewrote %v, %v", s.key, rewrote, err)
		}
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	for _, keep := range []string{"# my settings\n", "theme = \"light\" # I like it dark\n", "# Ollama on this box\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"nomic-embed-text\"\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	s := Load(getenv)
	if len(s.Problems) != 0 || s.Get("theme") != "light" || s.Get("embed.model") != "nomic-embed-text" || s.Int("recall.budget") != 1200 || !s.Bool("debug") || s.Get("server.idle") != "10s" {
		t.Fatalf("after the sets: %q\n%s", s.Problems, got)
	}
	header := strings.Count(got[:strings.Index(got, "[embed]")], "\n") + 1
	if debugLine := lineIn(got, "debug"); debugLine == 0 || debugLine > header {
		// a top-level key must go above the first table, or it joins it
		t.Fatalf("debug placed at line %d:\n%s", debugLine, got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("a file without keys keeps its mode, got %v", fi.Mode())
	}
	if _, err := Set(path, "llm.key", "sk-abc"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("a file with a key must be 0600, got %v", fi.Mode())
	}
}

func TestSetRefusesBadValuesAndLeavesTheFile(t *testing.T) {
	_, path := env(t)
	orig := "theme = \"dark\"\n"
	write(t, path, orig, 0o600)
	for _, c := range []struct{ key, value, says string }{
		{"embed.url", "ftp://host/x", "http(s) URL"},
		{"embed.url", "localhost:11434", "http(s) URL"},
		{"server.idle", "10", "duration"},
		{"theme", "purple", "no theme"},
		{"recall.budget", "-3", "positive"},
		{"recall.salience_weight", "2", "0 to 1"},
		{"embed.key_env", "sk-abc def", "name of an environment variable"},
		{"nosuch", "x", "unknown setting"},
		{"theme", "dark\nhome = \"/\"", "control character"},
	} {
		_, err := Set(path, c.key, c.value)
		if err == nil || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("set %s %q: %v, want one line saying %q", c.key, c.value, err, c.says)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("the file changed:\n%s", b)
	}
	// A file that does not parse is not written over.
	broken := "theme = dark\n"
	write(t, path, broken, 0o600)
	if _, err := Set(path, "theme", "light"); err == nil || !strings.Contains(err.Error(), ":1:") || !strings.Contains(err.Error(), "cairn config edit") {
		t.Fatalf("set on a broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Fatalf("the broken file changed:\n%s", b)
	}
}

func TestSetCreatesThePrivateFile(t *testing.T) {
	getenv, path := env(t)
	if _, err := Set(path, "embed.url", "http://127.0.0.1:11434/v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Set(path, "theme", "plain"); err != nil {
		t.Fatal(err)
	}
	s := Load(getenv)
	if s.Get("embed.url") != "http://127.0.0.1:11434/v1" || s.Get("theme") != "plain" || len(s.Problems) != 0 {
		t.Fatalf("%q %q %q", s.Get("embed.url"), s.Get("theme"), s.Problems)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new file is private: %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Fatalf("a new folder is private: %v", di.Mode())
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config.toml.*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

// FuzzSet: whatever the file holds, Set either refuses and leaves it as
// it was, or writes a file that parses and holds the value set, with every
// other value unchanged.
func FuzzSet(f *testing.F) {
	f.Add("# c\ntheme = \"dark\" # x\n[embed]\nurl = \"http://a/v1\"\n", uint8(4), "m")
	f.Add("[recall]\nbudget = 5\n[server]\nidle='3s'\n", uint8(11), "7")
	f.Add("embed.url = \"http://a\"\n", uint8(3), "https://b/v1")
	f.Add("[embed]\n  url   =   'http://a' #c\n", uint8(1), "light")
	f.Add("theme = \"\"\"dark\"\"\"\n", uint8(1), "plain")
	f.Fuzz(func(t *testing.T, text string, k uint8, value string) {
		key := Specs[int(k)%len(Specs)].Key
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Skip()
		}
		before, _ := parse(path, text)
		_, err := Set(path, key, value)
		b, _ := os.ReadFile(path)
		if err != nil {
			if string(b) != text {
				t.Fatalf("a refused set changed the file")
			}
			return
		}
		after, problems := parse(path, string(b))
		if hasSyntaxError(problems) {
			t.Fatalf("set wrote a file that does not parse: %q\n%s", problems, b)
		}
		want := normalize(key, strings.TrimSpace(value))
		if after[key] != want {
			t.Fatalf("%s = %q after setting %q:\n%s", key, after[key], want, b)
		}
		for k, v := range before {
			if k != key && after[k] != v {
				t.Fatalf("%s changed from %q to %q:\n%s", k, v, after[k], b)
			}
		}
	})
}
