package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hooks.log is never written or trimmed through a link planted at its
// name: a failing hook leaves the link's target whole (its rotation once
// halved it), and cairn doctor says what is wrong in one line. A real
// hooks.log is still kept under its bound.
func TestHookLogNeverFollowsALink(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "Deploys freeze on Fridays") // makes the home
	victim := filepath.Join(t.TempDir(), "thesis.tex")
	body := bytes.Repeat([]byte("a line of someone's work\n"), (hookLogMax*2)/25)
	os.WriteFile(victim, body, 0o600)
	log := filepath.Join(e.home, hookLogName)
	if err := os.Symlink(victim, log); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		e.hook("{not json")
	}
	if b, _ := os.ReadFile(victim); !bytes.Equal(b, body) {
		t.Fatalf("the link's target changed: %d bytes, was %d", len(b), len(body))
	}
	r := e.run("", "doctor")
	if !strings.Contains(r.out, hookLogName+" is a symbolic link") || !strings.Contains(r.out, "rm "+log) {
		t.Fatalf("doctor: %+v", r)
	}

	// A real log past its bound is trimmed to its newer half, never more.
	os.Remove(log)
	os.WriteFile(log, bytes.Repeat([]byte("2026-11-01T00:00:00Z hook: old failure\n"), hookLogMax/38+100), 0o600)
	e.hook("{not json")
	b, _ := os.ReadFile(log)
	if len(b) > hookLogMax || len(b) < hookLogMax/4 || !strings.Contains(string(b[max(0, len(b)-200):]), "is not JSON") {
		t.Fatalf("after the trim: %d bytes, ends %q", len(b), b[max(0, len(b)-80):])
	}
	if !strings.HasPrefix(string(b), "2026-11-01T00:00:00Z hook: old failure\n") {
		t.Fatalf("the trim cut a line: %q", b[:60])
	}
}

// sync/ and fingerprints/ in the home are refused when they are links:
// cairn sync would write the mirror's state, and every check the file
// fingerprints, wherever they point. One line says which and what to do.
func TestHomeDirectoriesThatAreLinksAreRefused(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sync", "fingerprints"} {
		e := newEnv(t)
		e.ok("remember", "Deploys freeze on Fridays")
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(e.home, name)); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"sync"}, {"verify"}, {"list"}} {
			r := e.run("", args...)
			if r.code == 0 || !strings.Contains(r.err, filepath.Join(e.home, name)+" is a symbolic link") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
				t.Fatalf("%s as a link, cairn %v: %+v", name, args, r)
			}
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Fatalf("%s as a link: %d files written where it points", name, len(ents))
		}
	}
}
