package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"cairn/internal/atomicfile"
	"cairn/memory"
)

// DefaultDir is where the mirror lives in a repository.
const DefaultDir = ".cairn/memories"

// StatePath is where the last sync of a project with dir is kept: in
// cairn's home, per project and directory, since it is this machine's (what
// this store and that directory last agreed on), never the team's.
func StatePath(home, project, dir string) string {
	h := sha256.Sum256([]byte(dir))
	return filepath.Join(home, "sync", project+"-"+hex.EncodeToString(h[:6])+".json")
}

// LoadState reads a sync state; none is the empty state (a first sync).
func LoadState(path string) (State, error) {
	var st State
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	} else if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("sync state %s: %v (remove it: the next sync compares everything again)", path, err)
	}
	return st, nil
}

// SaveState writes a sync state whole or not at all, private to its owner.
func SaveState(path string, st State) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o600, func(w io.Writer) error { return json.NewEncoder(w).Encode(st) })
}

// Run syncs a project with dir, keeping its state under home: what cairn
// sync and the workbench's /sync do.
func Run(ctx context.Context, st memory.Store, home string, o Options) (Report, error) {
	path := StatePath(home, o.Project, o.Dir)
	state, err := LoadState(path)
	if err != nil {
		return Report{}, err
	}
	rep, err := Sync(ctx, st, &state, o)
	if err != nil {
		return rep, err
	}
	if err := SaveState(path, state); err != nil {
		return rep, fmt.Errorf("sync state: %w", err)
	}
	return rep, nil
}
