package derive

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestExtractShell(t *testing.T) {
	t.Parallel()
	got, _ := extractShell("scripts/install.sh", readFixture(t, "install.sh"))
	expectSections(t, "install.sh", got, []wantSection{
		{KindPackage, "install", 5, 5, "", "install.sh fetches the release binary and puts it on the PATH."},
		{KindFunc, "die", 7, 11, "die() {", "die prints a message and exits."},
		{KindFunc, "usage", 13, 17, "function usage {", ""},
		{KindFunc, "fetch_release", 19, 23, "function fetch_release() {", ""},
		{KindFunc, "helper", 21, 21, "helper () { echo nested; }", ""},
		{KindFunc, "main", 26, 30, "main()", ""},
	})
}

func TestExtractVim(t *testing.T) {
	t.Parallel()
	got, _ := extractVim("autoload/gzip.vim", readFixture(t, "gzip.vim"))
	expectSections(t, "gzip.vim", got, []wantSection{
		{KindPackage, "gzip", 1, 2, "", "Vim autoload file for editing compressed files.\nMaintainer"},
		{KindFunc, "s:check", 4, 9, "fun s:check(cmd)", "Function to check that executing \"cmd [-f]\" works.\nThe result is cached"},
		{KindFunc, "gzip#read", 11, 15, "function! gzip#read(cmd)", ""},
		{KindFunc, "Compressed", 18, 21, "def Compressed(buf: number): bool", "Tells whether a buffer is compressed."},
	})
}

// bashFuncRe is a function as bash prints it back (declare -f): "function
// name () " on a line of its own, indented.
var bashFuncRe = regexp.MustCompile(`^\s+function\s+(\S+)\s*\(\)\s*$`)

// TestShellAgainstBash compares the functions the reader finds with those
// bash's own parser finds — each script is wrapped in a function that is
// never called, and bash prints its parse back — over the fixture and
// the machine's .sh and .bash files (at most 200).
func TestShellAgainstBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	files := []string{"testdata/langs/install.sh"}
	for _, root := range []string{"/usr/share", "/usr/lib", "/etc"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".bash")) && len(files) < 200 {
				files = append(files, p)
			}
			return nil
		})
	}
	compared, funcs, bad := 0, 0, 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 256<<10 || !strings.HasPrefix(string(src), "#!/bin/") && !strings.HasSuffix(p, ".sh") {
			continue
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", `eval "__cairn_wrap() {
$(cat "$1")
}" 2>/dev/null && declare -f __cairn_wrap`, "bash", p)
		out, err := cmd.Output()
		if err != nil || len(out) == 0 {
			continue // bash does not read it (zsh syntax, a broken script): nothing to compare with
		}
		var want []string
		for _, l := range strings.Split(string(out), "\n") {
			if m := bashFuncRe.FindStringSubmatch(l); m != nil {
				want = append(want, m[1])
			}
		}
		secs, _ := extractShell(p, src)
		checkSectionBounds(t, secs, src)
		var got []string
		for _, s := range secs {
			if s.Kind == KindFunc {
				got = append(got, s.Name)
			}
		}
		compared++
		funcs += len(want)
		if !slices.Equal(got, want) {
			if bad++; bad <= 10 {
				t.Errorf("%s: functions %q, bash says %q", p, got, want)
			}
		}
	}
	if compared == 0 {
		t.Fatal("bash read none of the scripts")
	}
	t.Logf("%d scripts, %d functions, %d scripts differ", compared, funcs, bad)
}

// TestVimAgainstVim compares the functions the reader finds in Vim's own
// autoload scripts with those Vim defines when it sources them (Vim9
// autoload scripts are left out: sourced as plain scripts they define
// nothing).
func TestVimAgainstVim(t *testing.T) {
	t.Parallel()
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Skip("no vim")
	}
	files, _ := filepath.Glob("/usr/share/vim/vim*/autoload/*.vim")
	if len(files) == 0 {
		t.Skip("no Vim runtime files")
	}
	snr := regexp.MustCompile(`^function (?:<SNR>\d+_)?([^(]+)\(`)
	compared, funcs, bad, extra := 0, 0, 0, 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "vim9script") {
			continue
		}
		list := filepath.Join(t.TempDir(), "functions")
		cmd := exec.Command(vim, "-Nu", "NONE", "-i", "NONE", "-es", "-c", "silent! source "+p, "-c", "redir! > "+list, "-c", "silent function", "-c", "redir END", "-c", "qa!")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		if cmd.Run() != nil {
			continue
		}
		out, err := os.ReadFile(list)
		if err != nil {
			continue
		}
		var want []string
		for _, l := range strings.Split(string(out), "\n") {
			if m := snr.FindStringSubmatch(l); m != nil {
				want = append(want, m[1])
			}
		}
		secs, _ := extractVim(p, src)
		checkSectionBounds(t, secs, src)
		var got []string
		for _, s := range secs {
			if s.Kind == KindFunc {
				got = append(got, strings.TrimPrefix(s.Name, "s:"))
			}
		}
		compared++
		funcs += len(want)
		// Every function Vim defines is found; the reader finds more
		// where a script defines one only if a feature is there (inside
		// an if, or after a finish for want of Ruby), which Vim
		// started bare does not run.
		for _, w := range want {
			if !slices.Contains(got, w) {
				if bad++; bad <= 10 {
					t.Errorf("%s: no function %q (the reader found %q)", p, w, got)
				}
				break
			}
		}
		extra += len(got) - len(want)
	}
	if compared == 0 {
		t.Fatal("vim sourced none of the scripts")
	}
	t.Logf("%d scripts, %d functions, %d scripts miss one, %d functions more than Vim defined", compared, funcs, bad, extra)
}

// FuzzExtractShell: no input makes the shell or Vim reader panic, and
// every section lies within the file.
func FuzzExtractShell(f *testing.F) {
	f.Add([]byte("#!/bin/sh\n# doc\nf() {\n  x\n}\n"))
	f.Add([]byte("function g\n{\n}\nfu! h()\nendfu\n<<EOF\n\xff"))
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, _ := extractShell("f.sh", src)
		checkSectionBounds(t, secs, src)
		secs, _ = extractVim("f.vim", src)
		checkSectionBounds(t, secs, src)
	})
}
