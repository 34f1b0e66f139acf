package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/memory"
	"cairn/store"
)

// longHome is a home whose socket path would not fit in a sockaddr.
func longHome(t *testing.T) string {
	return filepath.Join(t.TempDir(), strings.Repeat("h", 100))
}

// fallbackDir is where a long home's socket goes when tmp is the temp dir.
func fallbackDir(tmp string) string {
	return filepath.Join(tmp, fmt.Sprintf("cairn-%d", os.Getuid()))
}

func TestSocketPathUsesOnlyAPrivateRuntimeDir(t *testing.T) {
	home := longHome(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rt := filepath.Join(t.TempDir(), "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)
	p, err := SocketPath(home)
	if err != nil || filepath.Dir(p) != rt {
		t.Fatalf("a private runtime dir was not used: %q %v", p, err)
	}
	// A runtime dir others can enter is not used: the private fallback is.
	if err := os.Chmod(rt, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err = SocketPath(home)
	if err != nil || filepath.Dir(p) != fallbackDir(tmp) {
		t.Fatalf("socket at %q (%v), want it in %s", p, err, fallbackDir(tmp))
	}
	fi, err := os.Lstat(fallbackDir(tmp))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("fallback dir not created private: %v %v", fi.Mode(), err)
	}
}

func TestSocketPathRefusesAnOpenOrLinkedFallbackDir(t *testing.T) {
	home := longHome(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	dir := fallbackDir(tmp)

	// Made by us but writable by others: anyone could swap the socket.
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	_, err := SocketPath(home)
	if err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("a world-writable socket dir was accepted: %v", err)
	}
	_, err = Connect(ctx, launcher(t, home, "serve"))
	if err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Fatalf("connect used a world-writable socket dir: %v", err)
	}

	// A symlink to a directory of ours is still not ours to trust.
	os.Remove(dir)
	target := t.TempDir()
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := SocketPath(home); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a symlinked socket dir was accepted: %v", err)
	}
}

// Another local user creates the fallback socket directory first and
// listens there, greeting like a cairn server. The victim must refuse it
// and send nothing.
func TestClientRefusesAnotherUsersSocketDir(t *testing.T) {
	needRoot(t, "act as a second user")
	home := longHome(t)
	tmp := sharedDir(t, 0o1777) // like /tmp
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	dir := fallbackDir(tmp)
	h := sha(home)
	attacker := startReporter(t, asOther(t, "impostor", dir, filepath.Join(dir, "cairn-"+h+".sock")))
	ready(t, attacker)
	// The old layout was dir/HASH.sock: listen there too.
	old := startReporter(t, asOther(t, "impostor", "", filepath.Join(dir, h+".sock")))
	ready(t, old)

	c, err := Connect(ctx, launcher(t, home, "serve"))
	if err == nil {
		// What an unprotected client does next: send the victim's memory.
		c.Remember(ctx, &memory.Memory{Project: pid, Layer: 'A', Body: "victim secret"}, memory.ActorUser)
		c.Close()
	}
	leaked := append(attacker.rest(), old.rest()...)
	for _, l := range leaked {
		if strings.HasPrefix(l, "got ") {
			t.Fatalf("the victim's request reached another user's socket: %s", l)
		}
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("belongs to uid %d", otherUID)) {
		t.Fatalf("connect did not refuse another user's socket dir: %v", err)
	}
	if strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("error is not one line: %q", err)
	}
}

// ready waits for a helper to say it is listening.
func ready(t *testing.T, r *reporter) {
	t.Helper()
	if l := r.next(t); l != "ready" {
		t.Fatalf("helper: %s", l)
	}
}

// sha names a long home's socket.
func sha(home string) string {
	h := sha256.Sum256([]byte(home))
	return hex.EncodeToString(h[:8])
}

// A home that was open to all (0777) let another user plant cairn.sock in
// it. The client makes the home private, then finds the planted socket
// served by someone else: it refuses and sends nothing.
func TestClientRefusesAServerOfAnotherUser(t *testing.T) {
	t.Parallel()
	needRoot(t, "act as a second user")
	base := sharedDir(t, 0o755)
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o777)
	sock := filepath.Join(home, "cairn.sock")
	attacker := startReporter(t, asOther(t, "impostor", "", sock))
	ready(t, attacker)

	c, err := Connect(ctx, launcher(t, home, "serve"))
	if err == nil {
		c.Remember(ctx, &memory.Memory{Project: pid, Layer: 'A', Body: "victim secret"}, memory.ActorUser)
		c.Close()
	}
	for _, l := range attacker.rest() {
		if strings.HasPrefix(l, "got ") {
			t.Fatalf("the victim's request reached another user's server: %s", l)
		}
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("served by uid %d", otherUID)) || !strings.Contains(err.Error(), "rm "+sock) {
		t.Fatalf("connect did not refuse another user's server: %v", err)
	}
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Fatalf("home left open: %v", fi.Mode())
	}
}

// A server whose socket another user can reach (permissions are the first
// guard) still serves nobody but its owner.
func TestServerServesOnlyItsOwner(t *testing.T) {
	t.Parallel()
	needRoot(t, "act as a second user")
	dir := sharedDir(t, 0o755)
	db, err := store.Open(filepath.Join(t.TempDir(), "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- NewServer(db, 0).Serve(sctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	got := startReporter(t, asOther(t, "intruder", sock)).finish(t)
	if len(got) == 0 || got[0] != "connected" {
		t.Fatalf("the other user could not even connect: %v", got)
	}
	for _, l := range got {
		if strings.HasPrefix(l, "got ") || l == "timeout" {
			t.Fatalf("the server answered another user: %v", got)
		}
	}
	// Its owner is served.
	conn, err := dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

func TestHomeIsMadePrivate(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o755)
	c, err := Connect(ctx, launcher(t, home, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	stopServer(t, home)
	c.Close()
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Fatalf("home left %v: the store is readable by others", fi.Mode())
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if err := PrepareHome(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new home %v", fi.Mode())
	}
}

func TestHomeOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	needRoot(t, "act as a second user")
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o755)
	if err := os.Chown(home, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	err := PrepareHome(home)
	if err == nil || !strings.Contains(err.Error(), "chmod 700 "+home) {
		t.Fatalf("another user's open home was accepted: %v", err)
	}
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o755 {
		t.Fatalf("another user's home was changed: %v", fi.Mode())
	}
}

// Files cairn writes in its home are never written through a symlink, a
// FIFO or a hard link planted there.
func TestHomeFilesAreNotFollowed(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"server.log", "serve.lock"} {
		for _, kind := range []string{"symlink", "fifo", "hardlink"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				home := filepath.Join(t.TempDir(), "home")
				os.Mkdir(home, 0o700)
				outside := filepath.Join(t.TempDir(), "precious")
				if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				planted := filepath.Join(home, name)
				var err error
				switch kind {
				case "symlink":
					err = os.Symlink(outside, planted)
				case "fifo":
					err = syscall.Mkfifo(planted, 0o600)
				case "hardlink":
					err = os.Link(outside, planted)
				}
				if err != nil {
					t.Fatal(err)
				}
				c, err := Connect(ctx, launcher(t, home, "serve"))
				if err == nil {
					stopServer(t, home)
					c.Close()
				}
				if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
					t.Fatalf("cairn wrote through a %s at %s: the target now holds %q", kind, name, b)
				}
				if err == nil || !strings.Contains(err.Error(), "rm "+planted) {
					t.Fatalf("want a refusal naming rm %s, got %v", planted, err)
				}
			})
		}
	}
}

func TestOpenLogRefusesAnotherUsersFile(t *testing.T) {
	t.Parallel()
	needRoot(t, "act as a second user")
	p := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chown(p, otherUID, otherUID)
	if _, _, err := OpenLog(p); err == nil || !strings.Contains(err.Error(), fmt.Sprint(otherUID)) {
		t.Fatalf("a log owned by another user was opened: %v", err)
	}
}

// A home that was open to others may hold a store directory someone else
// planted — a symlink to a place they read, or a directory of their own.
// Neither is used; the server's files are its user's alone.
func TestPlantedStoreIsRefused(t *testing.T) {
	t.Parallel()
	elsewhere := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	os.Mkdir(home, 0o777)
	os.Chmod(home, 0o777)
	if err := os.Symlink(elsewhere, filepath.Join(home, "store")); err != nil {
		t.Fatal(err)
	}
	err := PrepareHome(home)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a store planted as a link: %v", err)
	}
	if _, err := Connect(ctx, launcher(t, home, "serve")); err == nil {
		stopServer(t, home)
		t.Fatal("a client connected through a planted store link")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("the store was written through the planted link: %v", entries)
	}

	// A store directory of ours that others could enter is tightened, and
	// what the server creates in it is private.
	home2 := filepath.Join(t.TempDir(), "home")
	os.MkdirAll(filepath.Join(home2, "store"), 0o777)
	os.Chmod(filepath.Join(home2, "store"), 0o777)
	c, err := Connect(ctx, launcher(t, home2, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureProject(ctx, memory.Project{ID: "00000000000000aa", Name: "p"}); err != nil {
		t.Fatal(err)
	}
	stopServer(t, home2)
	c.Close()
	filepath.WalkDir(filepath.Join(home2, "store"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, _ := os.Lstat(p); fi != nil && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is %v: readable by others", p, fi.Mode().Perm())
		}
		return nil
	})
}
