package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad is what every cairn process pays at its start to read a
// settings file of every section.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	m := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "cfg"), "CAIRN_IDLE": "1m"}
	getenv := func(k string) string { return m[k] }
	path := Path(getenv)
	os.MkdirAll(filepath.Dir(path), 0o700)
	text := "# mine\ntheme = \"dark\"\n\n[embed]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"nomic-embed-text\"\nkey_env = \"OLLAMA_KEY\"\n\n[llm]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"llama3.1\"\n\n[recall]\nbudget = 1200\nsalience_weight = 0.2\n\n[server]\nidle = \"30s\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if s := Load(getenv); len(s.Problems) != 0 || s.Int("recall.budget") != 1200 {
			b.Fatal(s.Problems)
		}
	}
}
