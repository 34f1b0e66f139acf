package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"cairn/memory"
)

// The import these tests interrupt: importNew new records, importBase
// updates of memories stored before it, and importLinks links.
const (
	importBase  = 40
	importNew   = 700
	importLinks = 100
)

// importOptions opens the stores of these tests with 1 MiB memtables. An
// import's batches follow the memtable's size (see batchWriter.add), so
// importNew records make 14 batches here, as 20,000 made 11 with the
// product's 32 MiB memtables, for a thirtieth of the work; what the tests
// prove is the all or nothing of an import of many batches, not the
// batches' size (TestImportOfTheLargestMemoriesFitsTransactions holds
// that).
var importOptions = Options{smallLSM: true}

func baseBody(i int) string    { return fmt.Sprintf("base fact %d: the build uses make", i) }
func updatedBody(i int) string { return fmt.Sprintf("base fact %d: the build uses make and go", i) }

// seedBase remembers the memories the import will update, by ref.
func seedBase(t testing.TB, dir string) {
	t.Helper()
	db, err := Open(dir, importOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	for i := range importBase {
		if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerState, Ref: fmt.Sprintf("base-%d", i), Body: baseBody(i)}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
}

// bigImport is the records of the interrupted import: updates of the base
// memories (by ref), new memories, and links from new memories to base ones.
func bigImport(t testing.TB, db *DB) []memory.Record {
	t.Helper()
	var recs []memory.Record
	var baseIDs []string
	for i := range importBase {
		m, err := db.GetByRef(ctx, testPID, fmt.Sprintf("base-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		baseIDs = append(baseIDs, m.ID)
		recs = append(recs, memory.Record{Ref: m.Ref, Layer: memory.LayerState, Body: updatedBody(i)})
	}
	for i := range importNew {
		r := memory.Record{Layer: memory.Layers[i%6], Body: fmt.Sprintf("imported fact %d: module %d talks to module %d", i, i%97, i%89), Tags: []string{fmt.Sprintf("t%d", i%7)}}
		if i < importLinks {
			r.Edges = []memory.RecordEdge{{Kind: memory.EdgeRelatesTo, To: baseIDs[i%importBase], Weight: 0.5}}
		}
		recs = append(recs, r)
	}
	return recs
}

// TestImportChild is the child half of TestKilledImportIsAllOrNothing: it
// opens the store (finishing whatever an earlier child left), then imports,
// printing a line at each step of the import; with CAIRN_IMPORT_WAIT it
// waits for a line on stdin after each, so the parent can kill it there.
func TestImportChild(t *testing.T) {
	dir := os.Getenv("CAIRN_IMPORT_DIR")
	if dir == "" {
		t.Skip("child process of TestKilledImportIsAllOrNothing")
	}
	in := bufio.NewReader(os.Stdin)
	wait := os.Getenv("CAIRN_IMPORT_WAIT") != ""
	importStep = func(stage string, n int) {
		fmt.Printf("STEP %s %d\n", stage, n)
		if wait {
			if _, err := in.ReadString('\n'); err != nil {
				os.Exit(4)
			}
		}
	}
	db, err := Open(dir, importOptions)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	fmt.Println("OPEN")
	if os.Getenv("CAIRN_IMPORT_OPEN_ONLY") != "" {
		db.Close()
		return
	}
	res, err := db.Import(ctx, testPID, bigImport(t, db), memory.ActorAgent)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	fmt.Println("DONE", res.Added, res.Updated)
	db.Close()
}

// runImportChild runs TestImportChild on dir and kills it with sig when it prints
// the line kill; it returns whether the child got that far.
func runImportChild(t *testing.T, dir string, wait, openOnly bool, kill string, sig syscall.Signal) bool {
	t.Helper()
	cmd := childCmd(t, "TestImportChild")
	cmd.Env = append(os.Environ(), "CAIRN_IMPORT_DIR="+dir)
	if wait {
		cmd.Env = append(cmd.Env, "CAIRN_IMPORT_WAIT=1")
	}
	if openOnly {
		cmd.Env = append(cmd.Env, "CAIRN_IMPORT_OPEN_ONLY=1")
	}
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
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	timer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	killed := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == kill:
			cmd.Process.Signal(sig)
			killed = true
		case strings.HasPrefix(line, "ERR"):
			t.Errorf("child: %s", line)
		case strings.HasPrefix(line, "STEP") && wait && !killed:
			io.WriteString(stdin, "go\n")
		}
	}
	cmd.Wait()
	return killed
}

// checkAllOrNothing reopens the store and asserts that the interrupted
// import landed whole (with its event) or not at all (without one), with
// every index consistent; it reports which.
func checkAllOrNothing(t *testing.T, dir string) (landed bool) {
	t.Helper()
	db, err := Open(dir, importOptions)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	c, err := db.Count(ctx, testPID)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := db.Stats(ctx)
	evs, _ := db.Timeline(ctx, testPID, importBase+10)
	imports := 0
	for _, e := range evs {
		if e.Kind == memory.EventImport {
			imports++
		}
	}
	total := c.Total(memory.StatusActive)
	switch total {
	case importBase:
		if st.Memories != importBase || st.Edges != 0 || imports != 0 {
			t.Fatalf("import rolled back but left %d indexed memories, %d links, %d import events", st.Memories, st.Edges, imports)
		}
	case importBase + importNew:
		landed = true
		if st.Memories != importBase+importNew || st.Edges != importLinks || imports != 1 {
			t.Fatalf("import landed but with %d indexed memories, %d links, %d import events", st.Memories, st.Edges, imports)
		}
	default:
		t.Fatalf("half an import: %d memories, want %d (none) or %d (all)", total, importBase, importBase+importNew)
	}
	for i := range importBase {
		m, err := db.GetByRef(ctx, testPID, fmt.Sprintf("base-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		h, _ := db.History(ctx, m.ID)
		want, version := baseBody(i), 1
		if landed {
			want, version = updatedBody(i), 2
		}
		if m.Body != want || m.Version != version || len(h) != version {
			t.Fatalf("base %d after the import (landed %v): version %d, %d versions, body %q", i, landed, m.Version, len(h), m.Body)
		}
	}
	if n := journalKeys(t, db); n != 0 {
		t.Fatalf("%d import journal keys left", n)
	}
	return landed
}

// journalKeys counts the keys of unfinished imports.
func journalKeys(t *testing.T, db *DB) int {
	t.Helper()
	n := 0
	if err := db.bdb.View(func(txn *badger.Txn) error {
		n = len(keys(txn, prefixJournal))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestKilledImportIsAllOrNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills child processes during a 20,000-record import")
	}
	cases := []struct {
		name string
		wait bool // the child stops at the step: the kill lands exactly there
		kill string
		sig  syscall.Signal
		want string // "none", "all" or "either"
	}{
		{"after the first batch", true, "STEP batch 1", syscall.SIGKILL, "none"},
		{"half way", true, "STEP batch 5", syscall.SIGKILL, "none"},
		{"before the commit", true, "STEP commit 0", syscall.SIGKILL, "none"},
		{"after the commit", true, "STEP done 0", syscall.SIGKILL, "all"},
		{"during a batch", false, "STEP batch 2", syscall.SIGKILL, "either"},
		{"SIGTERM during a batch", false, "STEP batch 4", syscall.SIGTERM, "either"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seedBase(t, dir)
			if !runImportChild(t, dir, c.wait, false, c.kill, c.sig) {
				t.Fatalf("the child never printed %q", c.kill)
			}
			landed := checkAllOrNothing(t, dir)
			if c.want == "none" && landed || c.want == "all" && !landed {
				t.Fatalf("landed = %v, want %s", landed, c.want)
			}
		})
	}
	t.Run("killed again while rolling back", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		seedBase(t, dir)
		if !runImportChild(t, dir, true, false, "STEP batch 6", syscall.SIGKILL) {
			t.Fatal("the child never reached batch 6")
		}
		// The next open rolls the six batches back one by one: die during it.
		if !runImportChild(t, dir, true, true, "STEP rollback 3", syscall.SIGKILL) {
			t.Fatal("the second child never rolled back 3 batches")
		}
		if checkAllOrNothing(t, dir) {
			t.Fatal("an import killed before its commit landed")
		}
	})
}

func TestCancelledImportRollsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seedBase(t, dir)
	db, err := Open(dir, importOptions)
	if err != nil {
		t.Fatal(err)
	}
	recs := bigImport(t, db)
	cctx, cancel := context.WithCancel(ctx)
	db.testStep = func(stage string, n int) {
		if stage == "batch" && n == 3 {
			cancel()
		}
	}
	_, err = db.Import(cctx, testPID, recs, memory.ActorUser)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	// Rolled back at once, before the store is reopened.
	c, _ := db.Count(ctx, testPID)
	if n := c.Total(memory.StatusActive); n != importBase {
		t.Fatalf("after a cancelled import, %d memories, want %d", n, importBase)
	}
	db.Close()
	if checkAllOrNothing(t, dir) {
		t.Fatal("a cancelled import landed")
	}
}

// Undoing an import takes back only what the import wrote: a memory that
// another writer changed after the import wrote it keeps that change, and
// other writers' memories stay.
func TestUndoKeepsOtherWritersChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seedBase(t, dir)
	db := reopenWith(t, dir, importOptions)
	recs := bigImport(t, db)
	base0, _ := db.GetByRef(ctx, testPID, "base-0")
	cctx, cancel := context.WithCancel(ctx)
	var mine *memory.Memory
	db.testStep = func(stage string, n int) {
		switch {
		case stage == "batch" && n == 1: // the base updates are written
			body := "base fact 0: a person corrected this during the import"
			if _, err := db.Edit(ctx, base0.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
				t.Error(err)
			}
			var err error
			if mine, err = db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerInvariant, Body: "remembered during the import"}, memory.ActorAgent); err != nil {
				t.Error(err)
			}
		case stage == "batch" && n == 3:
			cancel()
		}
	}
	if _, err := db.Import(cctx, testPID, recs, memory.ActorUser); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	got, err := db.Get(ctx, base0.ID)
	if err != nil || got.Body != "base fact 0: a person corrected this during the import" || got.Version != 3 {
		t.Fatalf("the edit made during the import was undone: %+v %v", got, err)
	}
	if _, err := db.Get(ctx, mine.ID); err != nil {
		t.Fatalf("the memory remembered during the import: %v", err)
	}
	if m, _ := db.GetByRef(ctx, testPID, "base-1"); m.Body != baseBody(1) || m.Version != 1 {
		t.Fatalf("base-1 not restored: %+v", m)
	}
	c, _ := db.Count(ctx, testPID)
	st, _ := db.Stats(ctx)
	if n := c.Total(memory.StatusActive); n != importBase+1 || st.Memories != importBase+1 || st.Edges != 0 {
		t.Fatalf("after the undo: %d memories (%d indexed), %d links; want %d, none", n, st.Memories, st.Edges, importBase+1)
	}
	if n := journalKeys(t, db); n != 0 {
		t.Fatalf("%d journal keys left", n)
	}
}
