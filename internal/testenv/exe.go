package testenv

import (
	"os"
	"syscall"
	"testing"
)

// WriteExecutable writes a program (a script, a copy of a binary) to path,
// mode 0755 whatever the umask, for a test to run. No child starts while
// the file is open for writing: a child started then by a parallel test
// holds the open file until it runs its own program, and running the new
// one meanwhile fails with "text file busy".
func WriteExecutable(t testing.TB, path string, data []byte) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, data, 0o755)
	syscall.ForkLock.RUnlock()
	if err == nil {
		err = os.Chmod(path, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// CopyExecutable copies the program at from to to with WriteExecutable.
func CopyExecutable(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	WriteExecutable(t, to, b)
}
