package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/remote"

	"cairn/internal/testenv"
)

// TestFullDiskServerReads: the disk holding a home fills while no server
// runs. The next command starts a server on the full disk: it serves
// reads, and a write fails with one line saying the disk is full. Once
// space is freed and that server has gone, writes work again. Before, the
// server could not open the store, so reads failed as well.
func TestFullDiskServerReads(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	testenv.Tmpfs(t, h.dir, 128)
	// On a full disk the server cannot write owner.json, so it is known by
	// its socket, which it removes before it lets go of the store.
	sock := filepath.Join(h.dir, "cairn.sock")
	serverGone := func() {
		deadline := time.Now().Add(15 * time.Second)
		for {
			if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the cairn server was still running 15 s after the last client")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Cleanup(serverGone)

	h.ok("remember", "Deploys go through ArgoCD")
	h.ok("remember", "Release v0.6.1 is out")
	h.waitServerGone()

	testenv.Fill(t, filepath.Join(h.dir, "filler"))

	if out := h.ok("list"); !strings.Contains(out, "ArgoCD") || !strings.Contains(out, "v0.6.1") {
		t.Fatalf("list on a full disk:\n%s", out)
	}
	_, stderr, code := h.run("", "remember", "a fact on a full disk")
	want := "the disk holding " + filepath.Join(h.dir, "store") + " is full"
	if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "free space and retry; nothing was lost") ||
		strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("remember on a full disk: exit %d, stderr %q; want one line: %s … free space and retry; nothing was lost", code, stderr, want)
	}

	// A client that stays (an open workbench, an agent) keeps the read-only
	// server alive. Once space is freed, the first write is told to retry
	// and that server makes way; the retry reaches a read-write one.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stayer, err := remote.Connect(ctx, remote.Launcher{Home: h.dir, Exe: bin, Args: []string{"serve", "--home", h.dir}, Env: []string{"CAIRN_IDLE=700ms"}})
	if err != nil {
		t.Fatal(err)
	}
	defer stayer.Close()
	if err := os.Remove(filepath.Join(h.dir, "filler")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = h.run("", "remember", "a fact while the read-only server still runs")
	if code == 0 || !strings.Contains(stderr, "there is room again") || !strings.Contains(stderr, "retry in a moment") {
		t.Fatalf("the first write after space was freed: exit %d, stderr %q; want to be told to retry", code, stderr)
	}
	h.ok("remember", "a fact after space was freed")
	stayer.Close()
	serverGone()
	if out := h.ok("list"); !strings.Contains(out, "space was freed") || !strings.Contains(out, "ArgoCD") {
		t.Fatalf("list after freeing space:\n%s", out)
	}
}
