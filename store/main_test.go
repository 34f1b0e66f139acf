package store

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// fixtures holds the stores that several tests start from, each built once
// per run of the package (see fixture) and copied by the tests that use
// it; TestMain removes it.
var fixtures string

func TestMain(m *testing.M) {
	var err error
	fixtures, err = os.MkdirTemp("", "cairn-store-fixtures-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(fixtures)
	os.Exit(code)
}

// A fixture is a closed store built once and copied into each test's own
// directory, so tests that start from the same store do not each build it.
type fixture struct {
	once  sync.Once
	built bool
	dir   string
}

// copyTo builds the fixture with build on its first use (build gets the
// directory to fill and leaves the store there closed), then copies it
// into dir.
func (f *fixture) copyTo(t *testing.T, name, dir string, build func(dir string)) {
	t.Helper()
	f.once.Do(func() {
		f.dir = filepath.Join(fixtures, name)
		build(f.dir)
		f.built = true
	})
	if !f.built {
		t.Fatalf("the %s fixture could not be built (see the test that built it first)", name)
	}
	if err := copyDir(f.dir, dir); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the files under src into dst, keeping their modes.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// raceBuild is set when these tests run under the race detector (see
// race_test.go).
var raceBuild bool

// crashChild is the binary of the child processes that tests kill:
// these tests again, built once. Under the race detector they are built
// without it: a child there stands for a real process that dies at some
// moment, and what the parent checks is the store it leaves (crash
// consistency), not data races, which the in-process tests look for. A
// race-built child starts, opens Badger and writes several times slower,
// and the kill tests start about a hundred of them.
var crashChild struct {
	once sync.Once
	path string
	err  error
}

// childCmd is a command that runs the test named test of this package
// in a child process meant to be killed (see crashChild).
func childCmd(t testing.TB, test string) *exec.Cmd {
	t.Helper()
	crashChild.once.Do(func() {
		if !raceBuild {
			crashChild.path = os.Args[0]
			return
		}
		crashChild.path = filepath.Join(fixtures, "store-child.test")
		out, err := exec.Command("go", "test", "-c", "-o", crashChild.path, ".").CombinedOutput()
		if err != nil {
			crashChild.err = fmt.Errorf("build the child test binary: %v\n%s", err, out)
		}
	})
	if crashChild.err != nil {
		t.Fatal(crashChild.err)
	}
	return exec.Command(crashChild.path, "-test.run=^"+test+"$", "-test.count=1")
}
