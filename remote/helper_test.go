package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/store"

	"cairn/internal/testenv"
)

// The test binary doubles as the other processes these tests need: a
// cairn server (what `cairn serve` runs), a server that dies of SIGBUS as
// one does on a full disk, and another user's impostor and intruder.
const helperEnv = "CAIRN_REMOTE_TEST_HELPER"

func init() {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[1:]))
	}
}

func runHelper(mode string, args []string) int {
	switch mode {
	case "serve":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		idle, _ := time.ParseDuration(os.Getenv("CAIRN_IDLE"))
		if err := Serve(ctx, os.Getenv("CAIRN_HOME"), store.Options{}, idle); err != nil {
			fmt.Fprintln(os.Stderr, "cairn: "+err.Error())
			return 1
		}
		return 0
	case "sigbus":
		// A write through a memory map into a page the file no longer
		// backs: what Badger meets when the disk is full.
		f, err := os.CreateTemp("", "sigbus")
		if err != nil {
			return 3
		}
		os.Remove(f.Name())
		f.Truncate(4096)
		b, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			return 3
		}
		f.Truncate(0)
		b[0] = 1
		return 0
	case "impostor":
		return impostor(args[0], args[1])
	case "intruder":
		return intruder(args[0])
	}
	return 3
}

// impostor listens on sock (first creating dir, open to all, when dir is
// not empty), greets like a cairn server and reports on stdout every
// line it is sent; it answers each request with an error so that a
// client that talks to it does not hang.
func impostor(dir, sock string) int {
	syscall.Umask(0)
	if dir != "" {
		if err := os.Mkdir(dir, 0o777); err != nil {
			fmt.Println("mkdir:", err)
			return 1
		}
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	fmt.Println("ready")
	for {
		c, err := ln.Accept()
		if err != nil {
			return 0
		}
		fmt.Println("connected")
		go func() {
			defer c.Close()
			fmt.Fprintln(c, `{"result":{"server":"cairn","pid":1}}`)
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if line != "" {
					fmt.Println("got " + strings.TrimSpace(line))
					var req request
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

// intruder connects to sock, asks for a ping and reports on stdout every
// line it receives until the server hangs up.
func intruder(sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer c.Close()
	fmt.Println("connected")
	fmt.Fprintln(c, `{"id":1,"method":"Ping"}`)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			fmt.Println("got " + strings.TrimSpace(line))
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				fmt.Println("timeout")
			}
			return 0
		}
	}
}

// selfExe is the test binary.
func selfExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// launcher starts the test binary as the home's server.
func launcher(t *testing.T, home, mode string) Launcher {
	return Launcher{Home: home, Exe: selfExe(t), Env: []string{helperEnv + "=" + mode, "CAIRN_HOME=" + home, "CAIRN_IDLE=30s"}}
}

// stopServer ends the server of home (named in the store's owner file)
// when the test ends, and waits until it has gone.
func stopServer(t *testing.T, home string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "store", "owner.json"))
	if err != nil {
		t.Fatalf("no server owns %s: %v", home, err)
	}
	var o store.Owner
	if err := json.Unmarshal(b, &o); err != nil || o.PID <= 0 || o.PID == os.Getpid() {
		t.Fatalf("owner file: %s", b)
	}
	t.Cleanup(func() {
		syscall.Kill(o.PID, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(o.PID, 0) == nil { // the launcher reaps it once it exits
			if time.Now().After(deadline) {
				syscall.Kill(o.PID, syscall.SIGKILL)
				t.Errorf("server %d did not stop", o.PID)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// The tests that need a second user run as root (as CI does) and start
// processes under this uid, which no account needs to exist for.
const otherUID = 54321

func needRoot(t *testing.T, why string) { t.Helper(); testenv.NeedRoot(t, why) }

// sharedDir is a directory the other user can reach (mode 0755, or 01777
// when it must be able to create files there), removed at the end.
func sharedDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	d, err := os.MkdirTemp("", "cairn-two-users-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	return d
}

// asOther runs the test binary in helper mode as the other user. The
// binary is copied where that user may execute it.
func asOther(t *testing.T, mode string, args ...string) *exec.Cmd {
	t.Helper()
	dir := sharedDir(t, 0o755)
	exe := filepath.Join(dir, "helper")
	testenv.CopyExecutable(t, selfExe(t), exe)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUID, Gid: otherUID}}
	return cmd
}

// reporter is a helper process whose stdout lines the test reads.
type reporter struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
}

func startReporter(t *testing.T, cmd *exec.Cmd) *reporter {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &reporter{cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer close(r.lines)
		s := bufio.NewScanner(out)
		for s.Scan() {
			r.lines <- s.Text()
		}
	}()
	t.Cleanup(r.stop)
	return r
}

// next is the helper's next line ("" once it has finished).
func (r *reporter) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-r.lines:
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("the helper process said nothing for 20 s")
		return ""
	}
}

// stop kills the helper and waits for it.
func (r *reporter) stop() {
	if r.cmd.ProcessState == nil {
		r.cmd.Process.Kill()
		<-r.done
		r.cmd.Wait()
	}
}

// rest kills the helper and returns what it said since the last next.
func (r *reporter) rest() []string {
	r.stop()
	return r.drain()
}

// finish waits for the helper to end by itself and returns what it said.
func (r *reporter) finish(t *testing.T) []string {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the helper process did not finish in 20 s")
	}
	r.cmd.Wait()
	return r.drain()
}

func (r *reporter) drain() []string {
	var out []string
	for l := range r.lines {
		out = append(out, l)
	}
	return out
}
