package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

const fakeKey = "AKIA" + "IOSFODNN7EXAMPLQ" // an AWS key id in its real format, not a real one

func TestCaptureScansEveryField(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	for name, d := range map[string]memory.Draft{
		"source session": {Project: testPID, Text: "plain text", Source: memory.Source{Session: "s " + fakeKey}},
		"source file":    {Project: testPID, Text: "plain text", Source: memory.Source{File: "notes/" + fakeKey + ".md"}},
		"text":           {Project: testPID, Text: "the key is " + fakeKey},
	} {
		_, err := db.Capture(ctx, d)
		if !errors.Is(err, memory.ErrSecret) {
			t.Fatalf("a secret in the %s: %v", name, err)
		}
		if !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), fakeKey) {
			t.Fatalf("the refusal should name the field %q and not echo the secret: %v", name, err)
		}
	}
	if _, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: "plain", Actor: "root"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("unknown actor: %v", err)
	}
	if ds, _ := db.Drafts(ctx, testPID, 10); len(ds) != 0 {
		t.Fatalf("refused captures stored %d drafts", len(ds))
	}
	if st, _ := db.Stats(ctx); st.Events != 0 {
		t.Fatalf("refused captures wrote %d events", st.Events)
	}
}

func TestEnsureProjectScansNameAndPath(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	for name, p := range map[string]memory.Project{
		"project name": {ID: "00000000000000bb", Name: "repo " + fakeKey},
		"project path": {ID: "00000000000000cc", Name: "repo", Root: "/home/u/" + fakeKey + "/repo"},
	} {
		if _, err := db.EnsureProject(ctx, p); !errors.Is(err, memory.ErrSecret) || !strings.Contains(err.Error(), name) {
			t.Fatalf("a secret in the %s: %v", name, err)
		}
		if _, err := db.Project(ctx, p.ID); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("refused project %s was stored: %v", p.ID, err)
		}
	}
	if ps, _ := db.Projects(ctx); len(ps) != 1 {
		t.Fatalf("projects: %+v", ps)
	}
}

// TestOwnerFileDoesNotFollowSymlink: a symlink planted at owner.json must
// not make Open write through it.
func TestOwnerFileDoesNotFollowSymlink(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ownerFile)); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("Open wrote through the symlink: the target now holds %q", b)
	}
	info, err := os.Lstat(filepath.Join(dir, ownerFile))
	if err != nil || !info.Mode().IsRegular() {
		t.Fatalf("owner.json should be a regular file now: %v %v", info, err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, memory.ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("the second open should name the holder from owner.json: %v", err)
	}
}

// Control characters and invalid UTF-8 are refused by the store itself in
// a draft's fields and a project's name, whichever client sent them.
func TestCaptureAndProjectRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	for name, d := range map[string]memory.Draft{
		"text":    {Project: testPID, Text: "bad \xff bytes"},
		"session": {Project: testPID, Text: "plain", Source: memory.Source{Session: "s\x1b]0;pwned\x07"}},
		"file":    {Project: testPID, Text: "plain", Source: memory.Source{File: "a\u202etxt.md"}},
	} {
		if _, err := db.Capture(ctx, d); !errors.Is(err, memory.ErrInvalid) || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if ds, _ := db.Drafts(ctx, testPID, 10); len(ds) != 0 {
		t.Fatalf("refused captures stored %d drafts", len(ds))
	}
	_, err := db.EnsureProject(ctx, memory.Project{ID: "00000000000000ff", Name: "proj\x1b[2Jx"})
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "--project") {
		t.Fatalf("a project name with an escape: %v", err)
	}
}

// A secret in an imported binding's fingerprint is refused like one in any
// other field.
func TestImportScansFingerprints(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	rec := memory.Record{Layer: memory.LayerState, Body: "x", Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: "a.txt", Fingerprint: fakeKey, State: memory.WatermarkIntact}}}
	if _, err := db.Import(ctx, testPID, []memory.Record{rec}, memory.ActorUser); !errors.Is(err, memory.ErrSecret) || strings.Contains(err.Error(), fakeKey) {
		t.Fatalf("a secret in a fingerprint: %v", err)
	}
}
