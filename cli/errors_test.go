package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An error that quotes what was typed never carries an escape to stderr.
func TestErrorsAreNeutralised(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, args := range [][]string{
		{"show", "01J\x1b]0;pwned\x07"},
		{"list", "--\x1b]0;pwned\x07"}, // the flag parser quotes it raw
	} {
		r := e.run("", args...)
		if r.code == 0 || strings.ContainsRune(r.err, 0x1b) || strings.ContainsRune(r.err, 0x07) {
			t.Fatalf("stderr carries control characters: %q", r.err)
		}
	}
}

// Misuse exits 2 and a failure 1, whoever made the error: cairn's own
// checks or cobra's (an unknown command, a wrong number of arguments, a
// bad flag). Every error is one line with at most one hint.
func TestExitCodesAndOneHint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "the cache is warmed at start")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"verify", "nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"inbox", "nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"show"}, 2, "accepts 1 arg"},
		{[]string{"link", "a", "b"}, 2, "accepts 3 arg"},
		{[]string{"verify", "rebind", "x"}, 2, "requires at least 2 arg"},
		{[]string{"list", "--nope"}, 2, "unknown flag: --nope"},
		{[]string{"list", "-n", "many"}, 2, `invalid argument "many"`},
		{[]string{"list", "--layer"}, 2, "flag needs an argument"},
		{[]string{"list", "--layer", "Z"}, 2, "layer"},
		{[]string{"remember"}, 2, "nothing to remember"},
		{[]string{"show", "01ZZZZZZZZ"}, 1, "no memory 01ZZZZZZZZ — list them with: cairn list --status all"},
		{[]string{"list", "--project", "nosuch"}, 1, `no project "nosuch"; known: global, myproj — a write such as cairn remember creates it`},
		{[]string{"remember", "x", "--bind", "file:no/such.go"}, 1, "(devices, FIFOs, sockets and /proc or /sys files are never bound) — give a path relative to the project root"},
	} {
		r := e.run("", c.args...)
		if r.code != c.code || !strings.Contains(r.err, c.want) || strings.Count(r.err, "\n") != 1 || strings.Count(r.err, " — ") > 1 {
			t.Errorf("cairn %s: exit %d (want %d), stderr %q (want %q, one line, one hint)", strings.Join(c.args, " "), r.code, c.code, r.err, c.want)
		}
	}
}

// confirm of a memory whose file is gone says to rebind it, once, by an id
// that names it; confirm of a superseded memory points at its successor,
// not at rebinding the old one.
func TestConfirmSaysWhatToDo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := filepath.Join(e.wd, "limits.txt")
	if err := os.WriteFile(f, []byte("512\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := e.rec("remember", "the cache holds 512 entries", "--bind", "file:limits.txt")
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "verify", "confirm", m.ID)
	re := regexp.MustCompile(`^cairn: binding file:limits.txt does not resolve in \S+: no such regular file \([^)]*\) — rebind it: cairn verify rebind (\S+) SPEC\n$`)
	got := re.FindStringSubmatch(r.err)
	if r.code != 1 || got == nil || !e.names(got[1], m.ID) {
		t.Fatalf("confirm of a memory whose file is gone: exit %d, %q", r.code, r.err)
	}

	old := e.rec("remember", "deploys go through ArgoCD")
	n := e.rec("supersede", old.ID, "deploys go through Spinnaker")
	for _, verb := range []string{"confirm", "reject"} {
		r = e.run("", "verify", verb, old.ID)
		re = regexp.MustCompile(`^cairn: (\S+) is superseded by (\S+): it is history now — ` + verb + ` that one instead: cairn verify ` + verb + ` (\S+)\n$`)
		got = re.FindStringSubmatch(r.err)
		if r.code != 1 || got == nil || !e.names(got[1], old.ID) || got[2] != got[3] || !e.names(got[3], n.ID) || strings.Contains(r.err, "rebind") {
			t.Fatalf("%s of a superseded memory: exit %d, %q", verb, r.code, r.err)
		}
	}
	if r = e.run("", "verify", "rebind", old.ID, "none"); r.code != 1 || !strings.Contains(r.err, "rebind that one instead: cairn verify rebind ") {
		t.Fatalf("rebind of a superseded memory: exit %d, %q", r.code, r.err)
	}
}
