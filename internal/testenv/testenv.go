// Package testenv holds what cairn's tests need of the machine: root for a
// second account or a small disk, and a tmpfs to fill. A prerequisite that
// is missing skips the test with the reason printed, except under CI
// (CI=true), where it fails the run: CI runs as root and must run them all.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Missing skips t for a missing prerequisite, or fails it under CI.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI must run this test, but %s", why)
	}
	t.Skipf("skipped: %s", why)
}

// NeedRoot skips (or, under CI, fails) t unless it runs as root.
func NeedRoot(t testing.TB, to string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "it needs root to "+to+" (run as root, as CI does)")
	}
}

// Tmpfs mounts a tmpfs of mib MiB on dir (made if need be, mode 0700) and
// unmounts it when the test ends.
func Tmpfs(t testing.TB, dir string, mib int) {
	t.Helper()
	NeedRoot(t, "mount a small disk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm,mode=0700", mib), "tmpfs", dir).CombinedOutput()
	if err != nil {
		Missing(t, fmt.Sprintf("mount -t tmpfs was refused: %v %s", err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// Fill writes the file at path until the disk holding it is full.
func Fill(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for err == nil {
		_, err = f.Write(buf)
	}
	for n := 1 << 19; n > 0 && errors.Is(err, syscall.ENOSPC); n >>= 1 {
		_, err = f.Write(buf[:n]) // the last blocks, to the byte
		for err == nil {
			_, err = f.Write(buf[:n])
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v", path, err)
	}
}
