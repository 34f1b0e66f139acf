package trust

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/memory"
)

// Naming a device, a FIFO or a socket binds nothing and reads nothing: a
// FIFO with no writer would block an open forever, /dev/zero never ends.
func TestBindSkipsSpecialFiles(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	fifo := filepath.Join(r.root, "pipe.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(r.root, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := NewChecker(r.root, nil)
	// /proc/kmsg blocks a read forever; /proc/uptime changes on every read.
	text := "the benchmark reads /dev/zero, the log goes to pipe.fifo, the agent listens on s.sock, the kernel log is /proc/kmsg and uptime lives in /proc/uptime"
	if ws := c.Bind(ctx, text); len(ws) != 0 {
		t.Fatalf("bound a special file: %+v", ws)
	}
	// A bound file swapped for a link to a kernel file is not read either.
	if err := os.Symlink("/proc/kmsg", filepath.Join(r.root, "k.txt")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/dev/zero", "pipe.fifo", "s.sock", "/proc/kmsg", "/proc/uptime", "k.txt"} {
		if _, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFile, Target: target}); err == nil {
			t.Errorf("an explicit binding to %s was accepted", target)
		}
	}
}

// A bound file that becomes a FIFO is reported, not opened for reading
// (which would wait for a writer forever).
func TestBoundFileBecomesFIFO(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("conf/app.toml", "port = 8080\n")
	r.commit("conf")
	c := NewChecker(r.root, nil)
	m := fact(t, c, "the port is set in conf/app.toml")
	if len(m.Watermarks) != 1 {
		t.Fatalf("binding: %+v", m.Watermarks)
	}
	p := filepath.Join(r.root, "conf/app.toml")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	reasons := wake(t, c, m)
	if m.Watermarks[0].State != memory.WatermarkGone || len(reasons) != 1 || !strings.Contains(reasons[0], "no longer a regular file") {
		t.Fatalf("%+v %v", m.Watermarks, reasons)
	}
}

// A bound file that grows huge is fingerprinted by a bounded prefix with its
// size and time: a change past the prefix still shows through the size or
// time, and a change inside it through the hash.
func TestHugeFileFingerprintIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "big.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: a gigabyte that costs nothing on disk
		t.Fatal(err)
	}
	f.Close()
	c := NewChecker(dir, nil)
	w, err := c.Stamp(ctx, memory.Watermark{Kind: memory.WatermarkFile, Target: "big.bin"})
	if err != nil {
		t.Fatal(err)
	}
	m := &memory.Memory{ID: "01JD0000000000000000000BBB", Body: "big.bin", Confidence: 0.9, Watermarks: []memory.Watermark{w}}
	if wake(t, c, m); m.Watermarks[0].State != memory.WatermarkIntact {
		t.Fatalf("unchanged file moved: %+v", m.Watermarks[0])
	}
	// Rewrite a byte inside the prefix, keeping size and time: the hash sees it.
	fi, _ := os.Stat(p)
	g, _ := os.OpenFile(p, os.O_WRONLY, 0)
	g.WriteAt([]byte("x"), 10)
	g.Close()
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	c2 := NewChecker(dir, nil) // a fresh cache: size and time alone would hide it
	if wake(t, c2, m); m.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("a change inside the prefix went unseen: %+v", m.Watermarks[0])
	}
	// Grow it: past the prefix only the size shows, and it does.
	m.Watermarks[0], _ = c2.Stamp(ctx, w)
	os.Truncate(p, 1<<30+1)
	if wake(t, c2, m); m.Watermarks[0].State != memory.WatermarkMoved {
		t.Fatalf("growth went unseen: %+v", m.Watermarks[0])
	}
}

// BenchmarkHugeFileFingerprint: a gigabyte file costs a bounded read.
func BenchmarkHugeFileFingerprint(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.bin")
	f, _ := os.Create(p)
	f.Truncate(1 << 30)
	f.Close()
	for b.Loop() {
		if _, _, err := hashRegular(p); err != nil {
			b.Fatal(err)
		}
	}
}
