package remote

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

// A server whose home is deleted (rm -rf of the data directory) notices,
// says so and exits cleanly, with a client still connected and an idle
// timeout far off, instead of living on with a store it can never close.
// The same for a server whose socket is removed: no client can reach it.
func TestServerExitsWhenItsHomeOrSocketGoes(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"home", "socket"} {
		home := filepath.Join(t.TempDir(), "home")
		if err := PrepareHome(home); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(selfExe(t))
		cmd.Env = append(os.Environ(), helperEnv+"=serve", "CAIRN_HOME="+home, "CAIRN_IDLE=1h")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })

		ctx := context.Background()
		sock, err := SocketPath(home)
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; {
			if conn, err := dial(ctx, sock); err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server did not listen: %s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		c := NewClient(func(ctx context.Context) (net.Conn, error) { return dial(ctx, sock) })
		if _, err := c.EnsureProject(ctx, memory.Project{ID: "0123456789abcdef", Name: "p"}); err != nil {
			t.Fatal(err)
		}
		if what == "home" {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(sock); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("%s removed: the server exited with %v: %s", what, err, stderr.String())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s removed: the server is still running a minute later: %s", what, stderr.String())
		}
		if !strings.Contains(stderr.String(), "was removed: stopping") {
			t.Fatalf("%s removed: the server did not say why it stopped: %q", what, stderr.String())
		}
		c.Close()
	}
}
