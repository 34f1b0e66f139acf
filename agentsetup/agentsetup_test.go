package agentsetup

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A settings file kept as a symbolic link (a dotfiles manager's) stays a
// link; a file the agent rewrote meanwhile is not overwritten.
func TestWriteKeepsLinksAndNeverLosesTheAgentsWrite(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte(`{"model":"opus"}`), 0o600)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := Write(link, []byte(`{"model":"opus"}`), []byte(`{"model":"opus","x":1}`), 0o600, now); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != `{"model":"opus","x":1}` {
		t.Fatalf("the target holds %s", b)
	}
	// The agent wrote in between: nothing is written, the caller redoes it.
	if _, err := Write(link, []byte(`{"model":"opus"}`), []byte(`{"y":2}`), 0o600, now); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(real); string(b) != `{"model":"opus","x":1}` {
		t.Fatalf("a stale edit overwrote the file: %s", b)
	}
	// A file that appeared meanwhile is not overwritten either.
	if _, err := Write(filepath.Join(dir, "dotfiles", "settings.json"), nil, []byte(`{}`), 0o600, now); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v", err)
	}
}
