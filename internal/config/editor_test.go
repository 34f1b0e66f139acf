package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
)

// TestEditorCommandQuotes: an editor in a folder with a space, with an
// argument, opens a file whose name has a space and a quote.
func TestEditorCommandQuotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my tools")
	os.MkdirAll(dir, 0o755)
	script := filepath.Join(dir, "ed.sh")
	testenv.WriteExecutable(t, script, []byte("#!/bin/sh\n[ \"$1\" = --wait ] || exit 3\nprintf 'edited' > \"$2\"\n"))
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

// TestEditorAtLine: each kind of editor is handed the line the way it
// reads it, the path (with a space and a quote) stays one argument, and an
// editor not known to take a line gets the file alone.
func TestEditorAtLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my tools")
	os.MkdirAll(dir, 0o755)
	out := filepath.Join(t.TempDir(), "args")
	// Each fake editor writes the arguments it was given, one a line.
	for _, name := range []string{"nvim", "code", "ed-x"} {
		testenv.WriteExecutable(t, filepath.Join(dir, name), []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \""+out+"\"\n"))
	}
	file := filepath.Join(t.TempDir(), `main "v2".go`)
	for _, c := range []struct {
		editor string
		line   int
		want   string
	}{
		{`"` + filepath.Join(dir, "nvim") + `"`, 42, "+42\n" + file + "\n"},
		{`"` + filepath.Join(dir, "nvim") + `" -u NONE`, 7, "-u\nNONE\n+7\n" + file + "\n"},
		{`"` + filepath.Join(dir, "code") + `" --wait`, 42, "--wait\n-g\n" + file + ":42\n"},
		{`"` + filepath.Join(dir, "ed-x") + `"`, 42, file + "\n"},
		{`"` + filepath.Join(dir, "nvim") + `"`, 0, file + "\n"},
	} {
		os.Remove(out)
		env := map[string]string{"VISUAL": c.editor}
		cmd := EditorAtLine(context.Background(), func(k string) string { return env[k] }, file, c.line)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", c.editor, err, b)
		}
		if b, _ := os.ReadFile(out); string(b) != c.want {
			t.Errorf("%s at line %d got arguments %q, want %q", c.editor, c.line, b, c.want)
		}
	}
}

func TestLineStyle(t *testing.T) {
	for ed, want := range map[string]LineArg{
		"vi": LinePlus, "/usr/bin/nvim": LinePlus, "emacsclient -t": LinePlus, "hx": LinePlus, "kak": LinePlus, "nano": LinePlus, "micro": LinePlus,
		"code --wait": LineGoto, "subl -w": LineGoto, `"/Applications/My Code/code" --wait`: LineGoto,
		"ed": LineNone, "": LineNone, "notepad.exe": LineNone,
	} {
		if got := LineStyle(ed); got != want {
			t.Errorf("LineStyle(%q) = %v, want %v", ed, got, want)
		}
	}
}
