package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestImportAndExportProgressOnATerminal: a long import or export shows how
// far it is on one line of stderr rewritten in place, erased before the
// report, when stderr is a terminal (a pseudo-terminal from script(1)); on a
// pipe it says nothing (the other tests read stderr as a pipe).
func TestImportAndExportProgressOnATerminal(t *testing.T) {
	t.Parallel()
	if args := os.Getenv("CAIRN_TEST_ARGS"); args != "" {
		os.Exit(Main(Env{Args: strings.Split(args, "\x1f"), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			Getenv: os.Getenv, Getwd: os.Getwd, IsTerminal: func() bool { return false }}))
	}
	script, err := exec.LookPath("script")
	if err != nil {
		testenv.Missing(t, "script(1) from util-linux is not installed: the terminal test needs it for a pseudo-terminal")
	}
	e := newEnv(t)
	src := filepath.Join(t.TempDir(), "many.jsonl")
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "{\"layer\": \"B\", \"title\": \"note %d on the build cache\", \"body\": \"the cache key %d includes the toolchain\"}\n", i, i)
	}
	os.WriteFile(src, []byte(b.String()), 0o600)
	run := func(verb string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, script, "-qec", os.Args[0]+" -test.run=^TestImportAndExportProgressOnATerminal$", "/dev/null")
		cmd.Dir = e.wd
		cmd.Env = append(os.Environ(), "CAIRN_TEST_ARGS="+strings.Join(args, "\x1f"), "CAIRN_HOME="+e.home,
			"HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s on a terminal: %v\n%q", verb, err, out)
		}
		s := string(out)
		first := strings.Index(s, "\r"+verb+" ")
		erase := strings.LastIndex(s, "\r\x1b[K")
		report := strings.LastIndex(s, "ed ") // imported / exported
		if first < 0 || erase < first || report < erase || !strings.Contains(s[first:erase], "100 %") {
			t.Fatalf("%s: no progress line up to 100 %%, or not erased before the report:\n%q", verb, s)
		}
		if strings.Contains(s[first:erase], "\n") {
			t.Errorf("%s: the progress line is not rewritten in place:\n%q", verb, s[first:erase])
		}
	}
	run("importing", "import", src)
	run("exporting", "export", filepath.Join(t.TempDir(), "out.jsonl"))
	if r := e.run("", "export", filepath.Join(t.TempDir(), "piped.jsonl")); r.code != 0 || r.err != "" {
		t.Fatalf("an export with stderr on a pipe: %+v", r)
	}
}
