package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"

	"cairn/internal/testenv"
)

// smallDisk mounts a tmpfs of size MiB for the test and unmounts it after.
// It needs root; without it (or when mount is refused) the test is skipped,
// and fails under CI, where it must run.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	testenv.Tmpfs(t, dir, size)
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
	if !errors.Is(err, memory.ErrDiskFull) {
		fail("remember on a full disk: %v", err)
	}
	say("REFUSED %s", err)
	if _, err := db.Import(ctx, testPID, []memory.Record{{Layer: memory.LayerState, Body: "imported on a full disk"}}, memory.ActorUser); !errors.Is(err, memory.ErrDiskFull) {
		fail("import on a full disk: %v", err)
	}
	body := "edited on a full disk"
	if _, err := db.Edit(ctx, ids[0], memory.Patch{Body: &body}, memory.ActorUser); !errors.Is(err, memory.ErrDiskFull) {
		fail("edit on a full disk: %v", err)
	}
	for _, id := range ids {
		if _, err := db.Get(ctx, id); err != nil {
			fail("get on a full disk: %v", err)
		}
	}
	page, err := db.List(ctx, memory.Query{Project: testPID})
	if err != nil || len(page.Memories) != 3 {
		fail("list on a full disk: %d memories, %v", len(page.Memories), err)
	}
	// Registering a known project writes nothing, so the disk is no reason
	// to refuse it (the CLI does it before reading the global project).
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		fail("ensure a known project on a full disk: %v", err)
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
	// A server that starts on a full disk reads instead of dying, and
	// refuses writes with the same line.
	if err := fill(filler); err != nil {
		fail("fill again: %v", err)
	}
	if db, err = Open(dir, Options{}); err != nil || !db.ReadOnly() {
		fail("open on a full disk: %v", err)
	}
	if page, err := db.List(ctx, memory.Query{Project: testPID}); err != nil || len(page.Memories) != 4 {
		fail("list on a store opened on a full disk: %d memories, %v", len(page.Memories), err)
	}
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact on a full disk"}, memory.ActorUser); !errors.Is(err, memory.ErrDiskFull) {
		fail("remember on a store opened on a full disk: %v", err)
	} else {
		say("OPEN REFUSED %s", err)
	}
	db.Close()
	if err := os.Remove(filler); err != nil {
		fail("free: %v", err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		fail("open after freeing space: %v", err)
	}
	db.Close()
}

func TestDiskFullRefusesWritesKeepsReads(t *testing.T) {
	t.Parallel()
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
		t.Fatalf("want %q when writing to a store opened on a full disk; the child said:\n%s", want, text)
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
	t.Parallel()
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
	t.Parallel()
	mnt := smallDisk(t, 160)
	dir := filepath.Join(mnt, "store")
	seedBase(t, dir)
	db, err := Open(dir, importOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs := bigImport(t, db)
	filler := filepath.Join(mnt, "filler")
	db.testStep = func(stage string, n int) {
		if stage != "batch" || n != 2 {
			return
		}
		// Leave less than a write needs, more than undoing needs: half way
		// between the two (the window follows the memtable's size).
		free, _ := freeSpace(mnt)
		undo := uint64(db.bdb.MaxBatchSize() + db.bdb.Opts().MemTableSize + reserveSlack)
		if err := fillTo(filler, free-(db.reserve()+undo)/2); err != nil {
			t.Error(err)
		}
	}
	_, err = db.Import(ctx, testPID, recs, memory.ActorUser)
	if !errors.Is(err, memory.ErrDiskFull) || !strings.Contains(err.Error(), "the disk holding "+dir+" is full") {
		t.Fatalf("import on a disk that filled up: %v", err)
	}
	c, _ := db.Count(ctx, testPID)
	if n := c.Total(memory.StatusActive); n != importBase || journalKeys(t, db) != 0 {
		t.Fatalf("after the refused import: %d memories (want %d), %d journal keys", n, importBase, journalKeys(t, db))
	}
	if m, _ := db.GetByRef(ctx, testPID, "base-0"); m.Body != baseBody(0) || m.Version != 1 {
		t.Fatalf("base-0 after the refused import: %+v", m)
	}
	db.testStep = nil
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

// seedStore fills a store in dir with a project, three memories and a
// fourth whose forget was interrupted after its first step, in a child
// process that either closes the store or is killed with it open, so that
// its write-ahead log stays behind unreplayed. It returns the three ids
// and the forgotten one.
func seedStore(t *testing.T, dir string, kill bool) (ids []string, gone string) {
	t.Helper()
	cmd := childCmd(t, "TestFullOpenSeedChild")
	cmd.Env = append(os.Environ(), "CAIRN_SEED_DIR="+dir, fmt.Sprintf("CAIRN_SEED_KILL=%t", kill))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "ID "); ok {
			ids = append(ids, id)
		}
		if id, ok := strings.CutPrefix(line, "GONE "); ok {
			gone = id
		}
		if line == "READY" {
			break
		}
	}
	if len(ids) != 3 || gone == "" {
		t.Fatalf("the seeding process wrote %d memories and forgot %q, want 3 and one", len(ids), gone)
	}
	if kill {
		// SIGKILL: nothing of Badger's close runs, its log stays as it was.
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
		if len(logs) == 0 {
			t.Fatal("the killed process left no write-ahead log: the test does not test what it says")
		}
	} else {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the seeding process: %v", err)
		}
	}
	return ids, gone
}

// TestFullOpenSeedChild is the child half of seedStore.
func TestFullOpenSeedChild(t *testing.T) {
	dir := os.Getenv("CAIRN_SEED_DIR")
	if dir == "" {
		t.Skip("child process of seedStore")
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: fmt.Sprintf("fact %d written before the disk filled", i)}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("ID %s\n", m.ID)
	}
	m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact being forgotten"}, memory.ActorUser)
	if err != nil {
		t.Fatal(err)
	}
	// Step 1 of Forget only, as if the process died right after it.
	if err := db.update(ctx, func(txn *badger.Txn) error { _, err := db.markForgotten(txn, m.ID, memory.ActorUser); return err }); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("GONE %s\n", m.ID)
	fmt.Println("READY")
	if os.Getenv("CAIRN_SEED_KILL") == "true" {
		io.Copy(io.Discard, os.Stdin) // until the parent kills us
		return
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// The store opened on a disk with no room to open it read-write: every
// read works, every write says the disk is full and changes nothing, and
// once space is freed and the store opened again, writes work.
//
// The checks run in a child process (TestFullOpenChild), because a write
// to a full disk through Badger's memory maps kills the process with
// SIGBUS. Before the fix Open refused ("cairn needs … to open the store"),
// so nothing could be read.
func TestOpenOnFullDiskReadsKeepWorking(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"closed", "killed"} {
		t.Run(mode, func(t *testing.T) {
			mnt := smallDisk(t, 128)
			dir := filepath.Join(mnt, "store")
			ids, gone := seedStore(t, dir, mode == "killed")
			filler := filepath.Join(mnt, "filler")
			if err := fill(filler); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestFullOpenChild$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "CAIRN_FULL_DIR="+dir, "CAIRN_FULL_FILLER="+filler, "CAIRN_FULL_IDS="+strings.Join(ids, ","), "CAIRN_FULL_GONE="+gone)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestFullOpenChild") {
				t.Fatalf("reading a store opened on a full disk (%v):\n%s", err, out)
			}
			// And what the child wrote after space was freed is there, with
			// everything from before.
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			c, err := db.Count(ctx, testPID)
			if err != nil || c.Total(memory.StatusActive) != 4 {
				t.Fatalf("after the full disk: %d memories (%v), want the 3 before and 1 after", c.Total(memory.StatusActive), err)
			}
		})
	}
}

// TestFullOpenChild is the child half of TestOpenOnFullDiskReadsKeepWorking.
func TestFullOpenChild(t *testing.T) {
	dir := os.Getenv("CAIRN_FULL_DIR")
	if dir == "" {
		t.Skip("child process of TestOpenOnFullDiskReadsKeepWorking")
	}
	ids := strings.Split(os.Getenv("CAIRN_FULL_IDS"), ",")
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Fatal("opened read-write on a full disk")
	}
	checkReads(t, db, ids)
	// The interrupted forget waits for room, and its memory stays unreadable.
	gone := os.Getenv("CAIRN_FULL_GONE")
	if _, err := db.Get(ctx, gone); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a memory whose forget was interrupted, on a store opened read-only: %v", err)
	}

	full := func(what string, err error) {
		t.Helper()
		msg := fmt.Sprint(err)
		if !errors.Is(err, memory.ErrDiskFull) || !errors.Is(err, memory.ErrReadOnly) || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "the disk holding "+dir+" is full") || !strings.Contains(msg, "free space and retry; nothing was lost") {
			t.Errorf("%s on a full disk: %v; want one line: the disk holding %s is full … free space and retry; nothing was lost", what, err, dir)
		}
	}
	_, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact on a full disk"}, memory.ActorUser)
	full("remember", err)
	body := "edited on a full disk"
	_, err = db.Edit(ctx, ids[0], memory.Patch{Body: &body}, memory.ActorUser)
	full("edit", err)
	full("forget", db.Forget(ctx, ids[1], memory.ActorUser))
	_, err = db.Import(ctx, testPID, []memory.Record{{Layer: memory.LayerState, Body: "imported on a full disk"}}, memory.ActorUser)
	full("import", err)
	_, err = db.EnsureProject(ctx, memory.Project{ID: "00000000000000bb", Name: "new"})
	full("a new project", err)
	_, err = db.Capture(ctx, memory.Draft{Project: testPID, Text: "captured on a full disk"})
	full("capture", err)
	checkReads(t, db, ids) // nothing changed

	// The store is held: another process is told so, as with a read-write open.
	if _, err := Open(dir, Options{}); !errors.Is(err, memory.ErrLocked) {
		t.Errorf("a second open of a store held read-only: %v, want ErrLocked", err)
	}

	// Room again: the store opened read-only still does not write, and says
	// that opening it again does.
	if err := os.Remove(os.Getenv("CAIRN_FULL_FILLER")); err != nil {
		t.Fatal(err)
	}
	_, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact once there is room"}, memory.ActorUser)
	if !errors.Is(err, memory.ErrReadOnly) || !strings.Contains(fmt.Sprint(err), "there is room again") {
		t.Errorf("remember on a store opened read-only, once there is room: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("open once there is room: %v", err)
	}
	defer db.Close()
	if db.ReadOnly() {
		t.Fatal("opened read-only with room to spare")
	}
	if purges(t, db) != 0 {
		t.Error("the open with room did not finish the interrupted forget")
	}
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact after space was freed"}, memory.ActorUser); err != nil {
		t.Fatalf("remember after freeing space: %v", err)
	}
	checkReads(t, db, ids)
}

// checkReads reads the three seeded memories every way a client does.
func checkReads(t *testing.T, db *DB, ids []string) {
	t.Helper()
	for i, id := range ids {
		m, err := db.Get(ctx, id)
		if err != nil || m.Body != fmt.Sprintf("fact %d written before the disk filled", i) {
			t.Fatalf("get %s: %v %+v", id, err, m)
		}
	}
	page, err := db.List(ctx, memory.Query{Project: testPID})
	if err != nil || len(page.Memories) < 3 {
		t.Fatalf("list: %d memories, %v", len(page.Memories), err)
	}
	c, err := db.Count(ctx, testPID)
	if err != nil || c.Total(memory.StatusActive) < 3 {
		t.Fatalf("count: %+v, %v", c, err)
	}
	evs, err := db.Timeline(ctx, testPID, 50)
	seen := map[string]bool{}
	for _, e := range evs {
		seen[e.MemoryID] = true
	}
	if err != nil || !seen[ids[0]] || !seen[ids[1]] || !seen[ids[2]] {
		t.Fatalf("timeline: %d events, %v", len(evs), err)
	}
	if ps, err := db.Projects(ctx); err != nil || len(ps) == 0 {
		t.Fatalf("projects: %v %v", ps, err)
	}
	// A client registers the project it works in before reading; that
	// writes nothing for a known project, so it works too.
	if p, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil || p.ID != testPID {
		t.Fatalf("ensure a known project: %v", err)
	}
}

// A process killed with the store open leaves its write-ahead log behind,
// which Badger's read-only mode refuses to replay. Opening read-only cuts
// the zeros after the log's last transaction, losing nothing: every
// memory reads, and the store opens read-write afterwards with all of them.
// (Read-only is forced here: this needs no full disk, and runs anywhere.)
func TestReadOnlyOpenReplaysALogLeftByAKill(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	ids, _ := seedStore(t, dir, true)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	before := map[string][]byte{}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		before[l] = b
	}
	db, err := Open(dir, Options{readOnly: true})
	if err != nil {
		t.Fatalf("open read-only after a kill: %v", err)
	}
	if !db.ReadOnly() {
		t.Fatal("not read-only")
	}
	checkReads(t, db, ids)
	_, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "x"}, memory.ActorUser)
	if !errors.Is(err, memory.ErrReadOnly) || !errors.Is(err, memory.ErrDiskFull) || !strings.Contains(err.Error(), "there is room again") {
		t.Fatalf("remember on a store opened read-only: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for l, old := range before {
		now, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(now, old[:len(now)]) || strings.Trim(string(old[len(now):]), "\x00") != "" {
			t.Fatalf("%s: cut at %d of %d, not just the zeros after its end", l, len(now), len(old))
		}
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkReads(t, db, ids)
	if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: "a fact after reopening"}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
}

// A log with bytes after its last whole transaction (one cut short) is not
// touched: Open says the disk is full rather than risk a byte, and the
// read-write open later replays it as Badger always does.
func TestReadOnlyOpenLeavesATornLogAlone(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	ids, _ := seedStore(t, dir, true)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	l := logs[0]
	f, err := os.OpenFile(l, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	end := logEnd(io.NewSectionReader(f, logHeaderSize, fi.Size()-logHeaderSize))
	if end <= logHeaderSize {
		t.Fatalf("the log's end is %d: it holds no transaction", end)
	}
	// The start of an entry of a transaction whose end never came.
	if _, err := f.WriteAt([]byte{entryInTxn, 0, 12, 1, 0, 'k'}, end); err != nil {
		t.Fatal(err)
	}
	f.Close()
	old, _ := os.ReadFile(l)
	_, err = Open(dir, Options{readOnly: true})
	if err == nil || !strings.Contains(err.Error(), "opened read-only for a test") {
		t.Fatalf("open read-only with a torn log: %v, want the disk-full refusal", err)
	}
	if now, _ := os.ReadFile(l); !bytes.Equal(now, old) {
		t.Fatalf("the torn log changed: %d bytes, was %d", len(now), len(old))
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkReads(t, db, ids)
}

// purges counts the forgets still to finish.
func purges(t *testing.T, db *DB) int {
	t.Helper()
	n := 0
	if err := db.view(func(txn *badger.Txn) error { n = len(keys(txn, prefixPurges)); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// On a disk with room to open the store but not to write, an interrupted
// forget waits for room instead of keeping the store shut: before, Open
// tried to finish it, the write was refused, and so was the Open.
func TestNearlyFullDiskOpensWithAForgetToFinish(t *testing.T) {
	t.Parallel()
	mnt := smallDisk(t, 128)
	dir := filepath.Join(mnt, "store")
	ids, gone := seedStore(t, dir, false)
	filler := filepath.Join(mnt, "filler")
	free, _ := freeSpace(mnt)
	if err := fillTo(filler, free-16<<20); err != nil { // room to open, not to write
		t.Fatal(err)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open on a nearly full disk with a forget to finish: %v", err)
	}
	if db.ReadOnly() || db.roomToWrite() == nil {
		t.Fatalf("want a read-write store without room to write (read-only %t)", db.ReadOnly())
	}
	checkReads(t, db, ids)
	if _, err := db.Get(ctx, gone); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the memory being forgotten: %v", err)
	}
	if purges(t, db) != 1 {
		t.Fatal("the forget to finish is gone without room to finish it")
	}
	db.Close()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if purges(t, db) != 0 {
		t.Fatal("the open with room did not finish the forget")
	}
}

// The reserve of a real store grows with its LSM tree: Badger's Size says 0
// when metrics are off, as they are here, so the store measures its tables.
func TestReserveCountsTheStoresTables(t *testing.T) {
	t.Parallel()
	db, err := Open(t.TempDir(), Options{smallLSM: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	empty := db.reserve()
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	// Bodies of 3 KB that share no word but stop words (near duplicates
	// made each write compare hundreds of others).
	for i := 0; i < 2000 && db.lsmBytes() == 0; i++ {
		body := strings.Repeat(distinctFact("table", i)+" ", 3000/len(distinctFact("table", i)))
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Body: body}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	if db.lsmBytes() == 0 {
		t.Fatal("no table reached the disk")
	}
	if grown := db.reserve(); grown <= empty {
		t.Fatalf("reserve %d with tables on disk, %d empty: the compaction headroom is not counted", grown, empty)
	}
	if st, _ := db.Stats(ctx); st.LSMBytes != db.lsmBytes() {
		t.Fatalf("stats say the LSM tree is %d bytes, the tables %d", st.LSMBytes, db.lsmBytes())
	}
}
