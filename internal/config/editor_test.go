package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestEditorCommandQuotes: an editor in a folder with a space, with an
// argument, opens a file whose name has a space and a quote.
func TestEditorCommandQuotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my tools")
	os.MkdirAll(dir, 0o755)
	script := filepath.Join(dir, "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n[ \"$1\" = --wait ] || exit 3\nprintf 'edited' > \"$2\"\n"), 0o755)
	file := filepath.Join(t.TempDir(), `notes "v2" draft.md`)
	os.WriteFile(file, nil, 0o600)
	env := map[string]string{"EDITOR": `"` + script + `" --wait`}
	c := EditorCommand(context.Background(), func(k string) string { return env[k] }, file)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("editor: %v %s", err, out)
	}
	if b, _ := os.ReadFile(file); string(b) != "edited" {
		t.Fatalf("the file was not edited: %q", b)
	}
	if got := Editor(func(string) string { return "" }); got != "vi" {
		t.Fatalf("default editor %q", got)
	}
}
