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

// Pending says where a shared memory stands against the mirror.
type Pending string

// Where a shared memory stands. A memory Status does not list is not
// shared (personal, archived, or of a layer not shared).
const (
	InStep   Pending = "in step"               // the file says what the store says
	ToPush   Pending = "changed here"          // the next sync writes its file
	ToPull   Pending = "changed in the mirror" // the next sync reads its file
	BothWays Pending = "changed on both sides" // the next sync keeps both, to verify
)

// Status is, per shared memory of the project, what the next sync would
// do with it; nothing is written.
func Status(ctx context.Context, st memory.Store, home string, o Options) (map[string]Pending, error) {
	state, err := LoadState(StatePath(home, o.Project, o.Dir))
	if err != nil {
		return nil, err
	}
	if state.Hashes == nil {
		state.Hashes = map[string]string{}
	}
	s := newSyncer(st, &state, o)
	if err := s.readDir(); err != nil {
		return nil, err
	}
	if err := s.readStore(ctx); err != nil {
		return nil, err
	}
	s.resolve()
	out := make(map[string]Pending, len(s.store))
	for id, sd := range s.store {
		base, fh := state.Hashes[id], ""
		if f := s.files[id]; f != nil {
			fh = f.hash
		}
		switch here, there := sd.hash != base, fh != base; {
		case s.tombs[id]:
			out[id] = ToPull
		case here && there && sd.hash != fh:
			out[id] = BothWays
		case here && there, !here && !there:
			out[id] = InStep
		case here:
			out[id] = ToPush
		default:
			out[id] = ToPull
		}
	}
	return out, nil
}
