package mirror

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/memory"
)

// hostileSetup is a store with two shared memories, synced with a mirror
// in a repository (a folder with .git), and a teammate's new file in it.
func hostileSetup(t *testing.T) (db memory.Store, st *State, o Options, victim, other *memory.Memory) {
	t.Helper()
	ctx := context.Background()
	s, p := openStore(t)
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	victim, _ = s.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "Never commit .env files", Body: "Secrets stay out of git."}, memory.ActorUser)
	other, _ = s.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerState, Title: "Release on Tuesdays", Body: "Every Tuesday."}, memory.ActorUser)
	st = &State{}
	o = Options{Dir: filepath.Join(repo, ".cairn", "memories"), Project: p.ID}
	if _, err := Sync(ctx, s, st, o); err != nil {
		t.Fatal(err)
	}
	// What a teammate added meanwhile: it comes in whatever else is refused.
	if err := os.WriteFile(filepath.Join(o.Dir, "E-negative", "no-sleeps.md"), []byte("---\ntitle: No sleeps in tests\nlayer: E\n---\n\nSynchronise on events.\n"), 0o644); err != nil {
		os.MkdirAll(filepath.Join(o.Dir, "E-negative"), 0o755)
		if err := os.WriteFile(filepath.Join(o.Dir, "E-negative", "no-sleeps.md"), []byte("---\ntitle: No sleeps in tests\nlayer: E\n---\n\nSynchronise on events.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s, st, o, victim, other
}

// What a teammate can commit in place of a mirror file, each of which
// used to run a sync out of memory or hang it: a link to /dev/zero, a
// FIFO, a sparse file of 1.6 GB, megabytes of random bytes, a frontmatter
// of YAML aliases (a memory file only: the tombstones are lines of ids).
var hostile = []struct {
	name      string
	make      func(t *testing.T, path string)
	tombstone bool // also as the tombstone file
}{
	{"link to /dev/zero", func(t *testing.T, path string) { must(t, os.Symlink("/dev/zero", path)) }, true},
	{"FIFO", func(t *testing.T, path string) { must(t, syscall.Mkfifo(path, 0o644)) }, true},
	{"sparse 1.6 GB", func(t *testing.T, path string) {
		f, err := os.Create(path)
		must(t, err)
		must(t, f.Truncate(1600<<20))
		must(t, f.Close())
	}, true},
	{"random bytes", func(t *testing.T, path string) {
		b := make([]byte, MaxTombstones+1)
		rand.Read(b)
		must(t, os.WriteFile(path, b, 0o644))
	}, true},
	{"YAML aliases", func(t *testing.T, path string) {
		var b strings.Builder
		b.WriteString("---\nid: 01J0000000000000000000000A\ntitle: t\nlayer: A\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
		prev := "a"
		for _, c := range "bcdefghi" {
			b.WriteString(string(c) + ": &" + string(c) + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n")
			prev = string(c)
		}
		b.WriteString("---\n\nbody\n")
		must(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}, false},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A hostile memory file or tombstone file is refused with one line that
// names it; the rest of the mirror syncs, and nothing is archived because
// of it (a refused file is never read as a deletion).
func TestHostileMirrorFilesAreRefused(t *testing.T) {
	t.Parallel()
	for _, h := range hostile {
		for _, target := range []string{"memory", "tombstones"} {
			if target == "tombstones" && !h.tombstone {
				continue
			}
			t.Run(h.name+" as "+target, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				db, st, o, victim, other := hostileSetup(t)
				path := filepath.Join(o.Dir, TombstoneFile)
				if target == "memory" {
					path = filepath.Join(o.Dir, "A-invariant", "never-commit-env-files-"+ShortID(victim.ID)+".md")
				}
				os.Remove(path)
				h.make(t, path)
				for round := range 2 { // and again: still refused, still nothing lost
					rep, err := Sync(ctx, db, st, o)
					if err != nil {
						t.Fatalf("round %d: the sync stopped: %v", round, err)
					}
					if len(rep.Refused) != 1 || !strings.HasPrefix(rep.Refused[0], path+": ") || strings.Contains(rep.Refused[0], "\n") {
						t.Fatalf("round %d: want one line refusing %s, got %q", round, path, rep.Refused)
					}
					if round == 0 && rep.Added != 1 {
						t.Errorf("the teammate's new file should come in beside the refused one: %+v", rep)
					}
					if rep.Archived != 0 || rep.Forgotten != 0 || rep.Removed != 0 {
						t.Fatalf("round %d: a refused file archived or removed something: %+v", round, rep)
					}
				}
				for _, m := range []*memory.Memory{victim, other} {
					if got, err := db.Get(ctx, m.ID); err != nil || got.Status != memory.StatusActive {
						t.Fatalf("%s should stay active: %v %v", m.Title, got, err)
					}
				}
				// The refused file is left as it was, not written over.
				if fi, err := os.Lstat(path); err != nil || fi.Mode().IsRegular() != (h.name == "sparse 1.6 GB" || h.name == "random bytes" || h.name == "YAML aliases") {
					t.Fatalf("the refused file was replaced: %v %v", fi, err)
				}
				// The workbench's view of the mirror reads the same files.
				if _, err := Status(ctx, db, t.TempDir(), o); err != nil {
					t.Fatalf("status: %v", err)
				}
			})
		}
	}
}

// A memory file a person turned into a note (no frontmatter any more) is
// not a deletion: refused, its memory kept.
func TestMemoryFileWithoutFrontmatterIsNotADeletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, st, o, victim, _ := hostileSetup(t)
	path := filepath.Join(o.Dir, "A-invariant", "never-commit-env-files-"+ShortID(victim.ID)+".md")
	must(t, os.WriteFile(path, []byte("just some text\n"), 0o644))
	rep, err := Sync(ctx, db, st, o)
	if err != nil || len(rep.Refused) != 1 || !strings.Contains(rep.Refused[0], "no frontmatter") || rep.Archived != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if got, _ := db.Get(ctx, victim.ID); got.Status != memory.StatusActive {
		t.Fatalf("archived: %s", got.Status)
	}
}

// A .cairn committed as a link to a folder outside the repository: the
// sync refuses it and writes nothing there.
func TestMirrorLinkedOutOfTheRepositoryIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := openStore(t)
	if _, err := db.Remember(ctx, &memory.Memory{Project: p.ID, Layer: memory.LayerInvariant, Title: "T", Body: "B."}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	repo, outside := t.TempDir(), t.TempDir()
	must(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(repo, ".cairn")))
	_, err := Sync(ctx, db, &State{}, Options{Dir: filepath.Join(repo, ".cairn", "memories"), Project: p.ID})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(repo, ".cairn")+" is a symbolic link") {
		t.Fatalf("want the link refused, got %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the sync wrote through the link: %v", ents)
	}
	// A repository reached through a link of the person's own (above its
	// root) is theirs: synced.
	link := filepath.Join(t.TempDir(), "proj")
	must(t, os.Remove(filepath.Join(repo, ".cairn")))
	must(t, os.Symlink(repo, link))
	if _, err := Sync(ctx, db, &State{}, Options{Dir: filepath.Join(link, ".cairn", "memories"), Project: p.ID}); err != nil {
		t.Fatalf("a repository reached by a link above it: %v", err)
	}
}

// A sync state planted as a link to /dev/zero or as a FIFO is refused in
// one line, never read without end.
func TestSyncStateThatIsNotAFileIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo} {
		_, err := LoadState(p)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "remove it") {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if st, err := LoadState(filepath.Join(dir, "none.json")); err != nil || st.Hashes != nil {
		t.Fatalf("no state is the empty state: %v", err)
	}
}
