package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Git runs git in dir, as a person whose configuration is none of this
// machine's (no global or system config, a fixed author), and returns its
// trimmed output; a failure fails t. A machine without git skips t (or,
// under CI, fails it).
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git is not installed")
	}
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// GitRepo makes dir (created if need be) a repository on branch main with
// one commit of a file named after what, and returns that commit.
func GitRepo(t testing.TB, dir, what string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(dir+"/"+what+".txt", []byte(what+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", ".")
	Git(t, dir, "commit", "-q", "-m", "first: "+what)
	return Git(t, dir, "rev-parse", "HEAD")
}
