package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/memory"
)

// TestCrashChild is the child half of TestKilledWriterLosesNothing: it
// remembers in a loop and prints each id once the store acknowledged it.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledWriterLosesNothing")
	}
	db, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact number %d", i)}, memory.ActorAgent)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		fmt.Println("ACK", m.ID)
	}
}

func TestKilledWriterLosesNothing(t *testing.T) {
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CAIRN_CRASH_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []string
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := sc.Text()
				if id, ok := strings.CutPrefix(line, "ACK "); ok {
					acked = append(acked, id)
					if len(acked) == 150 {
						cmd.Process.Signal(syscall.SIGKILL)
					}
				} else if strings.HasPrefix(line, "ERR") {
					t.Errorf("child: %s", line)
					cmd.Process.Kill()
				}
			}
		}()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("child did not reach 150 acknowledged writes in 2 minutes")
		}
		cmd.Wait()
		if len(acked) < 150 {
			t.Fatalf("round %d: only %d acks", round, len(acked))
		}
		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		for _, id := range acked {
			if _, err := db.Get(ctx, id); err != nil {
				db.Close()
				t.Fatalf("round %d: acknowledged %s lost: %v", round, id, err)
			}
		}
		db.Close()
	}
}
