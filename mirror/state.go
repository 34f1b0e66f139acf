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
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"cairn/internal/atomicfile"
	"cairn/internal/safefile"
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

// maxState bounds a sync state: a line of ids and sums per file, some
// 200 bytes, so a million files' state is far below it.
const maxState = 512 << 20

// LoadState reads a sync state; none is the empty state (a first sync).
func LoadState(path string) (State, error) {
	var st State
	// Only a regular file, bounded: the home's sync/ is refused as a link,
	// and a state file planted as a link, a FIFO or /dev/zero is refused
	// here rather than followed.
	b, _, err := safefile.ReadFile(path, maxState, "sync state", "remove it: the next sync compares everything again")
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	} else if err != nil {
		return st, fmt.Errorf("sync state %s: %w", path, err)
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
	unlock, err := lock(path + ".lock")
	if err != nil {
		return Report{}, err
	}
	defer unlock()
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

// BusyError is a sync of a mirror while another is under way.
type BusyError struct{ PID string }

func (e *BusyError) Error() string {
	by := ""
	if e.PID != "" {
		by = " (pid " + e.PID + ")"
	}
	return "another cairn sync of this mirror is running" + by + ": wait for it to end and run cairn sync again"
}

// lock takes the lock of one mirror's syncs: one at a time per mirror and
// home. It is an flock, which the kernel drops when its process ends, so a
// sync killed mid-way leaves no lock behind. The file holds the pid of the
// sync that has it, for the message of the one that waits.
func lock(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sync lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 20)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &BusyError{PID: strings.TrimSpace(string(b[:n]))}
		}
		return nil, fmt.Errorf("sync lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
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

// stage stages in git what the sync wrote and removed, when the mirror is
// in a git work tree, so that `git commit -am` carries the whole change (a
// new file as well as a removed one, a moved one as a rename). Only the
// sync's own files, only inside the mirror, never a commit. A failure
// (no git, an index another git holds) is said in the report: the sync
// itself is done.
func (s *syncer) stage() {
	if len(s.touched) == 0 {
		return
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return
	}
	// git runs at the work tree's top with paths from there: git rm
	// --pathspec-from-file run in a subdirectory takes that directory
	// as a pathspec too, and refuses.
	where, err := exec.Command(git, "-C", s.o.Dir, "rev-parse", "--show-toplevel", "--show-prefix").Output()
	if err != nil {
		return // not in a git work tree: nothing to stage
	}
	top, prefix, _ := strings.Cut(strings.TrimSuffix(string(where), "\n"), "\n")
	run := func(stdin []string, args ...string) error {
		cmd := exec.Command(git, append([]string{"-C", top}, args...)...)
		cmd.Env = gitEnv()
		if stdin != nil {
			cmd.Stdin = strings.NewReader(strings.Join(stdin, "\x00"))
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
			return fmt.Errorf("git %s: %s", args[0], line)
		}
		return nil
	}
	var here, gone []string
	for _, rel := range slices.Compact(slices.Sorted(slices.Values(s.touched))) {
		if _, err := os.Lstat(filepath.Join(s.o.Dir, filepath.FromSlash(rel))); err == nil {
			here = append(here, prefix+rel)
		} else {
			gone = append(gone, prefix+rel)
		}
	}
	if len(gone) > 0 {
		if err := run(gone, "rm", "-q", "-f", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			s.rep.Unstaged = err.Error()
			return
		}
	}
	if len(here) > 0 {
		if err := run(here, "add", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			s.rep.Unstaged = err.Error()
			return
		}
	}
	s.rep.Staged = len(here) + len(gone)
}

// gitEnv is the environment git runs in for stage: this process's, with
// pathspecs taken literally (a file name is a name, never a pattern).
func gitEnv() []string {
	return append(os.Environ(), "GIT_LITERAL_PATHSPECS=1")
}
