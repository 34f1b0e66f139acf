package store

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// TestCrashChild is the child half of TestKilledWriterLosesNothing: it
// remembers in a loop and prints each id once the store acknowledged it.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledWriterLosesNothing")
	}
	db := openChild(dir)
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
	t.Parallel()
	dir := t.TempDir()
	for round := range 3 {
		var acked []string
		killChildAfter(t, "TestCrashChild", "CAIRN_CRASH_DIR="+dir, 150, func(id string) { acked = append(acked, id) })
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

// TestForgetCrashChild is the child half of TestReopenAfterKilledForget: it
// remembers and forgets, captures and drops, in a loop, printing the ids
// once both deletes returned.
func TestForgetCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_FORGET_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestReopenAfterKilledForget")
	}
	db := openChild(dir)
	for i := 0; ; i++ {
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.Layers[i%6], Body: fmt.Sprintf("fact %d to forget", i),
			Tags: []string{"crash"}, Ref: fmt.Sprintf("r%d-%d", os.Getpid(), i)}, memory.ActorUser)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		if err := db.Forget(ctx, m.ID, memory.ActorUser); err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		d, err := db.Capture(ctx, memory.Draft{Project: testPID, Text: fmt.Sprintf("draft %d to drop", i)})
		if err == nil {
			err = db.DropDraft(ctx, d.ID, memory.ActorUser)
		}
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		fmt.Println("GONE", m.ID, d.ID)
	}
}

// TestReopenAfterKilledForget kills a process in the middle of forgets at
// many moments; the first Open after each kill must work and every
// acknowledged forget must stay forgotten.
func TestReopenAfterKilledForget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills 60 child processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	for round := range 60 {
		cmd := childCmd(t, "TestForgetCrashChild")
		cmd.Env = append(os.Environ(), "CAIRN_FORGET_CRASH_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		// Kill after a random number of forgets: the signal lands wherever
		// the child happens to be in its next one.
		after := 1 + rng.IntN(4)
		var gone []string
		var childErr string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if ids, ok := strings.CutPrefix(line, "GONE "); ok {
				gone = append(gone, strings.Fields(ids)...)
				if len(gone) == 2*after {
					time.AfterFunc(time.Duration(rng.IntN(20000))*time.Microsecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
				}
			} else if strings.HasPrefix(line, "ERR") {
				childErr = line
				cmd.Process.Kill()
			}
		}
		cmd.Wait()
		if childErr != "" {
			t.Fatalf("round %d: child: %s", round, childErr)
		}
		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: first open after a kill during forget: %v", round, err)
		}
		for i := 0; i < len(gone); i += 2 {
			if _, err := db.Get(ctx, gone[i]); !errors.Is(err, memory.ErrNotFound) {
				db.Close()
				t.Fatalf("round %d: forgotten %s is back: %v", round, gone[i], err)
			}
		}
		ds, err := db.Drafts(ctx, testPID, 100000)
		if err != nil {
			db.Close()
			t.Fatal(err)
		}
		for _, d := range ds {
			if slices.Contains(gone, d.ID) {
				db.Close()
				t.Fatalf("round %d: dropped draft %s is back", round, d.ID)
			}
		}
		var pending [][]byte
		db.view(func(txn *badger.Txn) error { pending = keys(txn, prefixPurges); return nil })
		if len(pending) > 0 {
			db.Close()
			t.Fatalf("round %d: Open left %d deletes unfinished", round, len(pending))
		}
		db.Close()
	}
}

// TestOpenAfterTornLogFile: a kill between Badger creating a log file and
// sizing it leaves an empty one, which the next Open must get past.
func TestOpenAfterTornLogFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"00099.mem", "000099.vlog"} {
		t.Run(name, func(t *testing.T) {
			db, dir := openTest(t)
			m := remember(t, db, memory.LayerState, "kept", "an acknowledged write")
			db.Close()
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("first open after a torn %s: %v", name, err)
			}
			defer db.Close()
			if _, err := db.Get(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The torn-log sweep never touches a store another process holds: an empty
// log file there may be one that process is creating right now.
func TestTornLogSweepLeavesAHeldStoreAlone(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	defer db.Close()
	fresh := filepath.Join(dir, "009999.mem")
	if err := os.WriteFile(fresh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := clearTornLogs(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("the sweep removed an empty log of a store that is open: %v", err)
	}
	os.Remove(fresh)
}

// openChild opens the store of a child process with the test project, or
// tells the parent why it could not and exits.
func openChild(dir string) *DB {
	db, err := Open(dir, Options{})
	if err == nil {
		_, err = db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"})
	}
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	return db
}

// killChildAfter runs the child test with env set, hands each line it
// prints after "ACK " to acked, and kills it (SIGKILL) at the n-th; a line
// "ERR …" fails the test. It returns once the child is gone.
func killChildAfter(t *testing.T, test, env string, n int, acked func(string)) {
	t.Helper()
	cmd := childCmd(t, test)
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		k := 0
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "ACK "); ok {
				acked(a)
				if k++; k == n {
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
		t.Fatalf("child did not reach %d acknowledged writes in 2 minutes", n)
	}
	cmd.Wait()
}

// TestOpenWhileAChildHoldsTheClosedLock: a store closed while this process
// was starting a child is held by that child's copy of the lock until it
// runs its program. The next Open waits it out instead of calling the
// store held by another process (a flaky "held by another process" in CI,
// where another test was starting a child at that moment).
func TestOpenWhileAChildHoldsTheClosedLock(t *testing.T) {
	db, dir := openTest(t)
	db.Close()
	lock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The child holds the lock's file like a child between fork and exec,
	// until its input closes.
	child := exec.Command("cat")
	child.ExtraFiles = []*os.File{lock}
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	waited := 0
	defer func(old func(time.Duration)) { lockWait = old }(lockWait)
	lockWait = func(time.Duration) {
		if waited++; waited == 1 {
			in.Close() // the child runs its program: the copy is gone
			child.Wait()
		}
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("open after the holder closed it: %v", err)
	}
	db.Close()
	if waited == 0 {
		t.Fatal("the lock was free at the first try: the test held nothing")
	}

	// A store whose holder names itself is held: refused without waiting.
	db, _ = Open(dir, Options{})
	defer db.Close()
	waited = 0
	if _, err := Open(dir, Options{}); !errors.Is(err, memory.ErrLocked) || waited != 0 {
		t.Fatalf("second open of a held store: %v after %d waits", err, waited)
	}
}
