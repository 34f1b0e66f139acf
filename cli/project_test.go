package cli

import (
	"strings"
	"testing"
)

// A mistyped --project is said, not silently read as an empty project, and
// a write that creates a project says so once.
func TestProjectTypo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.run("", "remember", "the cache is warmed at start", "--project", "alpha")
	if r.code != 0 || r.err != "cairn: new project alpha\n" {
		t.Fatalf("first write in a new project: exit %d, stderr %q", r.code, r.err)
	}
	r = e.run("", "remember", "the cache holds 512 entries", "--project", "alpha")
	if r.code != 0 || r.err != "" {
		t.Fatalf("second write: exit %d, stderr %q (the project is not new)", r.code, r.err)
	}
	r = e.run("", "remember", "a note in the repository's own project")
	if r.code != 0 || r.err != "cairn: new project myproj\n" {
		t.Fatalf("first write in the detected project: exit %d, stderr %q", r.code, r.err)
	}

	for _, args := range [][]string{
		{"list", "--project", "alhpa"},
		{"recall", "cache", "--project", "alhpa"},
		{"timeline", "--project", "alhpa"},
		{"list", "--project", "alhpa", "--json"},
	} {
		r = e.run("", args...)
		if r.code == 0 || r.out != "" || strings.Count(r.err, "\n") != 1 {
			t.Fatalf("cairn %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.out, r.err)
		}
		for _, want := range []string{`no project "alhpa"`, "alpha", "myproj", "global"} {
			if !strings.Contains(r.err, want) {
				t.Errorf("cairn %s: stderr %q lacks %q", strings.Join(args, " "), r.err, want)
			}
		}
	}
	// The refused read created nothing.
	if out := e.ok("projects"); strings.Contains(out, "alhpa") {
		t.Fatalf("a read created the mistyped project:\n%s", out)
	}
	// Reads of known projects, and of global, work as before.
	if rs := e.list("--project", "alpha"); len(rs) != 2 {
		t.Fatalf("list --project alpha: %d memories", len(rs))
	}
	if r = e.run("", "list", "--project", "global"); r.code != 0 || r.err != "" {
		t.Fatalf("list --project global: exit %d, stderr %q", r.code, r.err)
	}
}
