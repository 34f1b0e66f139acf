package config

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// EditorAtLine runs the person's editor on path at line, as EditorCommand
// does (the path and the line are passed as "$1" and "$2", never spliced
// into the line). Editors differ in how they are told the line: most (vi,
// vim, nvim, nano, emacs, micro, kak, helix…) take "+LINE FILE"; VS Code
// and Sublime Text take "-g FILE:LINE". An editor this does not know is
// given the file alone: a "+12" it does not read would open a file of that
// name.
func EditorAtLine(ctx context.Context, getenv func(string) string, path string, line int) *exec.Cmd {
	ed := Editor(getenv)
	if line < 1 {
		return EditorCommand(ctx, getenv, path)
	}
	var args string
	switch LineStyle(ed) {
	case LinePlus:
		args = ` "+$2" "$1"`
	case LineGoto:
		args = ` -g "$1:$2"`
	default:
		return EditorCommand(ctx, getenv, path)
	}
	return exec.CommandContext(ctx, "sh", "-c", ed+args, "sh", path, strconv.Itoa(line))
}

// LineArg says how an editor is told the line to open a file at.
type LineArg int

const (
	LineNone LineArg = iota // the file alone
	LinePlus                // "+LINE FILE"
	LineGoto                // "-g FILE:LINE"
)

// String names the form, as help shows it.
func (l LineArg) String() string {
	switch l {
	case LinePlus:
		return "+LINE FILE"
	case LineGoto:
		return "-g FILE:LINE"
	}
	return "FILE"
}

// LineStyle is how the editor command ed (its first word's base name:
// "/usr/bin/nvim", "code --wait") takes a line.
func LineStyle(ed string) LineArg {
	first := ""
	if q, ok := strings.CutPrefix(strings.TrimSpace(ed), `"`); ok {
		first, _, _ = strings.Cut(q, `"`) // "/my tools/nvim" -u NONE
	} else if f := strings.Fields(ed); len(f) > 0 {
		first = f[0]
	}
	switch filepath.Base(first) {
	case "vi", "vim", "nvim", "gvim", "mvim", "view", "nano", "pico", "emacs", "emacsclient", "micro", "kak", "hx", "helix", "joe", "jed", "mg", "ne":
		return LinePlus
	case "code", "code-insiders", "codium", "subl", "sublime_text":
		return LineGoto
	}
	return LineNone
}
