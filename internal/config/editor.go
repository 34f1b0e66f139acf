package config

import (
	"context"
	"os/exec"
)

// Editor is the person's editor: $VISUAL, else $EDITOR, else vi.
func Editor(getenv func(string) string) string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := getenv(v); e != "" {
			return e
		}
	}
	return "vi"
}

// EditorCommand runs the person's editor on path through the shell, so that
// an editor with arguments (EDITOR="code --wait") and a path with spaces or
// quotes both work: the path is passed as "$1", never spliced into the line.
func EditorCommand(ctx context.Context, getenv func(string) string, path string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", Editor(getenv)+` "$1"`, "sh", path)
}
