package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/testenv"
)

// The e2e test binary doubles as another local user's impostor: it makes
// the directory a long home's socket goes in, listens there, greets like a
// cairn server and prints every line a victim sends it.
func init() {
	if os.Getenv("CAIRN_E2E_IMPOSTOR") == "" {
		return
	}
	syscall.Umask(0)
	dir, sock := os.Args[1], os.Args[2]
	if err := os.Mkdir(dir, 0o777); err != nil {
		fmt.Println("mkdir:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		go func() {
			defer c.Close()
			fmt.Fprintln(c, `{"result":{"server":"cairn","pid":1}}`)
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if line != "" {
					fmt.Println("got " + strings.TrimSpace(line))
					var req struct{ ID uint64 }
					json.Unmarshal([]byte(line), &req)
					fmt.Fprintf(c, `{"id":%d,"error":{"kind":"invalid","message":"forged","index":-1}}`+"\n", req.ID)
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

func needRoot(t *testing.T, why string) { t.Helper(); testenv.NeedRoot(t, why) }

// TestLongHomeSocketDirOfAnotherUser: a home too long for a socket path
// puts the socket in $TMPDIR/cairn-UID. Another user made that directory
// first and listens in it; `cairn remember` must refuse, in one line, and
// the impostor must receive nothing.
func TestLongHomeSocketDirOfAnotherUser(t *testing.T) {
	t.Parallel()
	needRoot(t, "act as a second user")
	const other = 54321
	shared, err := os.MkdirTemp("", "cairn-e2e-two-users-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	os.Chmod(shared, 0o1777) // a /tmp of its own
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(shared, "impostor")
	testenv.CopyExecutable(t, self, exe)

	h := newHome(t)
	h.dir = filepath.Join(h.dir, strings.Repeat("long", 25))
	sum := sha256.Sum256([]byte(h.dir))
	dir := filepath.Join(shared, fmt.Sprintf("cairn-%d", os.Getuid()))
	var socks []string
	for _, name := range []string{"cairn-" + hex.EncodeToString(sum[:8]) + ".sock", hex.EncodeToString(sum[:8]) + ".sock"} {
		socks = append(socks, filepath.Join(dir, name)) // today's name and the old one
	}
	imp := exec.Command(exe, dir, socks[0])
	imp.Env = append(os.Environ(), "CAIRN_E2E_IMPOSTOR=1")
	imp.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: other, Gid: other}}
	out, err := imp.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { imp.Process.Kill(); imp.Wait() })
	said := bufio.NewScanner(out)
	if !said.Scan() || said.Text() != "ready" {
		t.Fatalf("impostor: %s", said.Text())
	}
	// The old layout named the socket without the prefix: listen there too.
	os.Symlink(socks[0], socks[1])

	c := h.cmd("remember", "the deploy key lives in vault path ops/victim")
	c.Env = append(c.Env, "TMPDIR="+shared, "XDG_RUNTIME_DIR=")
	stdout, err := c.Output()
	stderr := ""
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		stderr = string(ee.Stderr)
	}
	imp.Process.Kill()
	rest, _ := io.ReadAll(out)
	imp.Wait()
	if strings.Contains(string(rest), "got ") {
		t.Fatalf("the victim's memory reached another user's socket:\n%s", rest)
	}
	if err == nil {
		t.Fatalf("cairn used another user's socket directory: %s", stdout)
	}
	if !strings.Contains(stderr, fmt.Sprintf("belongs to uid %d", other)) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("want one line naming the intruder's directory, got %q", stderr)
	}
}

// TestOpenHomeIsMadePrivate: a home created 0755 (by hand, or an older
// cairn) is tightened to 0700 by the next command, store and all.
func TestOpenHomeIsMadePrivate(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(h.dir, 0o755)
	h.ok("remember", "a fact nobody else should read")
	if fi, _ := os.Stat(h.dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("home left %v", fi.Mode())
	}
}

// TestDebugLogSymlinkIsNotFollowed: with CAIRN_DEBUG set, cairn logs into
// its home; a debug.log planted as a symlink to another file is not
// written through (the command still works, without a debug log).
func TestDebugLogSymlinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	os.MkdirAll(h.dir, 0o700)
	outside := filepath.Join(t.TempDir(), "precious")
	os.WriteFile(outside, []byte("precious\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(h.dir, "debug.log")); err != nil {
		t.Fatal(err)
	}
	c := h.cmd("remember", "logged without a debug log")
	c.Env = append(c.Env, "CAIRN_DEBUG=1")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
		t.Fatalf("cairn wrote through the debug.log symlink: the target now holds %q", b)
	}
}

// TestFullDiskSaysSo: a home on a full disk; the server cannot open the
// store, nor even log why. The command says the disk is full, in one line.
func TestFullDiskSaysSo(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	testenv.Tmpfs(t, h.dir, 8)
	testenv.Fill(t, filepath.Join(h.dir, "filler"))
	_, stderr, code := h.run("", "list")
	want := "the disk holding " + h.dir + " is full: free space and retry; nothing was lost"
	if code == 0 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("exit %d, stderr %q; want one line saying %q", code, stderr, want)
	}
}
