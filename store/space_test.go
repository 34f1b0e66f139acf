package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// smallDisk mounts a tmpfs of size MiB for the test and unmounts it after.
// It needs root; without it (or when mount is refused) the test is skipped,
// and fails under CI, where it must run.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must run this test: %s", why)
		}
		t.Skipf("needs a small disk: %s (run as root to test a full disk)", why)
	}
	if os.Geteuid() != 0 {
		skip("not root, cannot mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm,mode=0700", size), "tmpfs", dir).CombinedOutput(); err != nil {
		skip(fmt.Sprintf("mount -t tmpfs refused: %v %s", err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the disk is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// TestDiskFullChild is the child half of TestDiskFullRefusesWritesKeepsReads:
// on a disk it fills to the last byte, it writes, reads, frees space and
// writes again, then opens the store on the full disk, printing what
// happened. Without the free-space checks the first write, and the open,
// die of SIGBUS.
func TestDiskFullChild(t *testing.T) {
	mnt := os.Getenv("CAIRN_DISKFULL_DIR")
	if mnt == "" {
		t.Skip("child process of TestDiskFullRefusesWritesKeepsReads")
	}
	say := func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
	fail := func(f string, a ...any) { say("ERR "+f, a...); os.Exit(3) }
	dir := filepath.Join(mnt, "store")
	db, err := Open(dir, Options{})
	if err != nil {
		fail("open: %v", err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		fail("project: %v", err)
	}
	var ids []string
	for i := range 3 {
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: fmt.Sprintf("fact %d before the disk filled", i)}, memory.ActorUser)
		if err != nil {
			fail("remember before filling: %v", err)
		}
		ids = append(ids, m.ID)
	}
	filler := filepath.Join(mnt, "filler")
	if err := fill(filler); err != nil {
		fail("fill: %v", err)
	}
	_, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact on a full disk"}, memory.ActorUser)
	if !errors.Is(err, ErrDiskFull) {
		fail("remember on a full disk: %v", err)
	}
	say("REFUSED %s", err)
	if _, err := db.Import(ctx, testPID, []memory.Record{{Layer: memory.LayerState, Body: "imported on a full disk"}}, memory.ActorUser); !errors.Is(err, ErrDiskFull) {
		fail("import on a full disk: %v", err)
	}
	body := "edited on a full disk"
	if _, err := db.Edit(ctx, ids[0], Patch{Body: &body}, memory.ActorUser); !errors.Is(err, ErrDiskFull) {
		fail("edit on a full disk: %v", err)
	}
	for _, id := range ids {
		if _, err := db.Get(ctx, id); err != nil {
			fail("get on a full disk: %v", err)
		}
	}
	page, err := db.List(ctx, Query{Project: testPID})
	if err != nil || len(page.Memories) != 3 {
		fail("list on a full disk: %d memories, %v", len(page.Memories), err)
	}
	say("READ %d", len(page.Memories))
	if err := os.Remove(filler); err != nil {
		fail("free: %v", err)
	}
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact after space was freed"}, memory.ActorUser)
	if err != nil {
		fail("remember after freeing space: %v", err)
	}
	say("WROTE %s", m.ID)
	if err := db.Close(); err != nil {
		fail("close: %v", err)
	}
	say("CLOSED")
	// A server that starts on a full disk says so instead of dying.
	if err := fill(filler); err != nil {
		fail("fill again: %v", err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrDiskFull) {
		fail("open on a full disk: %v", err)
	} else {
		say("OPEN REFUSED %s", err)
	}
	if err := os.Remove(filler); err != nil {
		fail("free: %v", err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		fail("open after freeing space: %v", err)
	}
	db.Close()
}

func TestDiskFullRefusesWritesKeepsReads(t *testing.T) {
	// The disk is large enough for a store and its write reserve (about
	// 87 MiB with Badger's defaults), no more.
	mnt := smallDisk(t, 128)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFullChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CAIRN_DISKFULL_DIR="+mnt)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	text := strings.Join(lines, "\n")
	if err != nil {
		t.Fatalf("the process writing to a full disk died (%v); it said:\n%s", err, text)
	}
	dir := filepath.Join(mnt, "store")
	want := "REFUSED the disk holding " + dir + " is full"
	if !strings.Contains(text, want) || !strings.Contains(text, "free space and retry; nothing was lost") {
		t.Fatalf("want one line %q … %q; the child said:\n%s", want, "free space and retry; nothing was lost", text)
	}
	if !strings.Contains(text, "READ 3") || !strings.Contains(text, "WROTE") || !strings.Contains(text, "CLOSED") {
		t.Fatalf("reads on the full disk or the write after freeing space failed:\n%s", text)
	}
	if want := "OPEN REFUSED the disk holding " + dir + " is full"; !strings.Contains(text, want) {
		t.Fatalf("want %q when opening on a full disk; the child said:\n%s", want, text)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, _ := db.Count(ctx, testPID)
	if n := c.Total(memory.StatusActive); n != 4 {
		t.Fatalf("after reopening, %d memories, want the 3 before and the 1 after the disk was full", n)
	}
}

// The reserve follows the store's options: a larger memtable needs more room.
func TestWriteReserveFollowsOptions(t *testing.T) {
	o := badger.DefaultOptions("")
	small := writeReserve(o, 15*o.MemTableSize/100, 0)
	if small < uint64(o.MemTableSize) || small > 100<<20 {
		t.Fatalf("reserve for defaults and an empty store: %d MiB", small>>20)
	}
	o.MemTableSize *= 2
	if big := writeReserve(o, 15*o.MemTableSize/100, 0); big <= small {
		t.Fatalf("doubling the memtable kept the reserve at %d MiB", big>>20)
	}
	// A compaction never writes more than the LSM tree it rewrites, nor more
	// than the level-0 tables and the base level.
	o = badger.DefaultOptions("")
	grown := writeReserve(o, 15*o.MemTableSize/100, 10<<30)
	if grown != writeReserve(o, 15*o.MemTableSize/100, int64(o.NumLevelZeroTables)*o.MemTableSize+o.BaseLevelSize) {
		t.Fatalf("the compaction headroom is not capped: %d MiB", grown>>20)
	}
}

// An import that runs out of room half way is undone: all or nothing
// holds on a full disk too, and the retry after freeing space lands whole.
func TestDiskFullDuringImportUndoesIt(t *testing.T) {
	mnt := smallDisk(t, 160)
	dir := filepath.Join(mnt, "store")
	seedBase(t, dir)
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs := bigImport(t, db)
	filler := filepath.Join(mnt, "filler")
	importStep = func(stage string, n int) {
		if stage != "batch" || n != 2 {
			return
		}
		// Leave less than a write needs, more than undoing needs.
		free, _ := freeSpace(mnt)
		if err := fillTo(filler, free-(db.reserve()-4<<20)); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { importStep = nil })
	_, err = db.Import(ctx, testPID, recs, memory.ActorUser)
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "the disk holding "+dir+" is full") {
		t.Fatalf("import on a disk that filled up: %v", err)
	}
	c, _ := db.Count(ctx, testPID)
	if n := c.Total(memory.StatusActive); n != importBase || journalKeys(t, db) != 0 {
		t.Fatalf("after the refused import: %d memories (want %d), %d journal keys", n, importBase, journalKeys(t, db))
	}
	if m, _ := db.GetByRef(ctx, testPID, "base-0"); m.Body != baseBody(0) || m.Version != 1 {
		t.Fatalf("base-0 after the refused import: %+v", m)
	}
	importStep = nil
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	res, err := db.Import(ctx, testPID, recs, memory.ActorUser)
	if err != nil || res.Added != importNew || res.Updated != importBase {
		t.Fatalf("import after freeing space: %+v %v", res, err)
	}
}

// fillTo writes n bytes of a file (tmpfs gives a sparse file no room).
func fillTo(path string, n uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, uint64(len(chunk)))
		if _, err := f.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
