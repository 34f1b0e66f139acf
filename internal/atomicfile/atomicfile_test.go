package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A write that fails leaves the old file as it was and no temporary file;
// one that succeeds replaces it whole with the mode asked for, and replaces
// a symlink at the path rather than writing through it.
func TestWriteIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := Write(path, 0o600, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("the source failed")
	}); err == nil {
		t.Fatal("a failed write reported success")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after a failed write: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a temporary file was left: %d entries", len(ents))
	}
	if err := WriteBytes(path, 0o600, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("after a write: %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("kept"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if err := WriteBytes(link, 0o600, []byte("replaced")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Fatalf("wrote through a symlink: %q", b)
	}
}
