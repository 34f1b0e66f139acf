package remote

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// server.log keeps earlier runs: a crash's last words survive the restart
// that follows it.
func TestServerLogKeepsEarlierRuns(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	os.MkdirAll(home, 0o700)
	log := filepath.Join(home, "server.log")
	earlier := "cairn: the last words of an earlier run\n"
	if err := os.WriteFile(log, []byte(earlier), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Connect(ctx, launcher(t, home, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	stopServer(t, home)
	c.Close()
	b, _ := os.ReadFile(log)
	if !strings.HasPrefix(string(b), earlier) || !strings.Contains(string(b), startingLine) {
		t.Fatalf("server.log lost the earlier run: %q", b)
	}
}

// A log past the cap moves to server.log.1 when the next server starts.
func TestServerLogRotates(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	os.MkdirAll(home, 0o700)
	log := filepath.Join(home, "server.log")
	big := bytes.Repeat([]byte("an old line of the server log\n"), LogLimit/29+1)
	if err := os.WriteFile(log, big, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Connect(ctx, launcher(t, home, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	stopServer(t, home)
	c.Close()
	old, _ := os.ReadFile(log + ".1")
	cur, _ := os.ReadFile(log)
	if !bytes.Equal(old, big) || len(cur) >= LogLimit || !strings.Contains(string(cur), startingLine) {
		t.Fatalf("no rotation: server.log.1 %d bytes, server.log %d bytes", len(old), len(cur))
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("rotated log: %v %v", fi.Mode(), err)
	}
}

// A server that dies of SIGBUS (what a full disk does to Badger's memory
// maps) is reported in the runtime's words, not as "exit status 2" or the
// last line of a goroutine dump.
func TestServerCrashIsReportedInWords(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	_, err := Connect(ctx, launcher(t, home, "sigbus"))
	if err == nil {
		t.Fatal("a crashing server was reported as started")
	}
	msg := err.Error()
	if !strings.Contains(msg, "SIGBUS") || !strings.Contains(msg, "crashed") || strings.Contains(msg, "\n") {
		t.Fatalf("the crash is not reported in one clear line: %q", msg)
	}
	t.Log(msg)
}

// On a full disk the server cannot even log why it stopped; the client
// says the disk is full instead of "exit status 1".
func TestServerOnFullDiskIsReportedAsFull(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	testenv.Tmpfs(t, home, 8)
	testenv.Fill(t, filepath.Join(home, "filler"))
	_, err := Connect(ctx, launcher(t, home, "serve"))
	if err == nil {
		stopServer(t, home)
		t.Fatal("a server started on a full disk")
	}
	if !strings.Contains(err.Error(), "disk holding "+home+" is full: free space and retry; nothing was lost") {
		t.Fatalf("want the disk named as full, got %q", err)
	}
	t.Log(err)
}

// A server outlives the process that starts it and serves every client:
// the variables that process marks as its own (Launcher.Unset) are not
// the server's.
func TestServerDoesNotInheritWhatItsStarterUnsets(t *testing.T) {
	t.Setenv("CAIRN_STARTER_ONLY", "1")
	t.Setenv("CAIRN_STARTER_SHARED", "1")
	dir := t.TempDir()
	l := Launcher{Home: dir, Exe: "/bin/sh", Args: []string{"-c", "env"}, Unset: []string{"CAIRN_STARTER_ONLY"}}
	run, err := l.start(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	<-run.exited
	b, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	if env := string(b); strings.Contains(env, "CAIRN_STARTER_ONLY=") || !strings.Contains(env, "CAIRN_STARTER_SHARED=1") {
		t.Fatalf("the server's environment:\n%s", env)
	}
}
