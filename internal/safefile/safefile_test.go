package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("12345"), 0o644)
	os.Symlink(plain, filepath.Join(dir, "link"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	if b, _, err := ReadFile(plain, 5, "file", "hint"); err != nil || string(b) != "12345" {
		t.Fatalf("a plain file within the bound: %q %v", b, err)
	}
	for name, want := range map[string]string{
		"plain": "is 5 bytes, over the 4 bytes a file may hold: hint",
		"link":  "is a symbolic link, not a regular file: hint", // even to a plain file
		"fifo":  "is a FIFO, not a regular file: hint",
	} {
		if _, _, err := ReadFile(filepath.Join(dir, name), 4, "file", "hint"); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if _, _, err := ReadFile(filepath.Join(dir, "none"), 4, "file", "hint"); !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("a missing file: %v", err)
	}
}
