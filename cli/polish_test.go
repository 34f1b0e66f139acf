package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// remember says what it bound the memory to.
func TestRememberSaysItsBinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.wd, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.ok("remember", "go.mod pins the toolchain to 1.27")
	if !strings.HasPrefix(out, "remembered ") || !strings.Contains(out, "\nbound to file go.mod\n") {
		t.Fatalf("remember of a fact about a file:\n%s", out)
	}
	out = e.ok("remember", "the team prefers short functions")
	if !strings.Contains(out, "\nnot bound to anything (bind it with --bind") {
		t.Fatalf("remember of a fact about nothing that resolves:\n%s", out)
	}
	if out := e.ok("remember", "the gateway reads its limits at start", "--bind", "flag:CAIRN_HOME"); !strings.Contains(out, "\nbound to flag CAIRN_HOME\n") {
		t.Fatalf("remember --bind flag:\n%s", out)
	}
}

// show names the memories it links to by title, not only by id.
func TestShowNamesLinkedMemories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.rec("remember", "We parked MTP", "-l", "D")
	b := e.rec("remember", "MoE was net-negative with MTP", "-l", "C")
	e.ok("link", d.ID, "because", b.ID)
	if out := e.ok("show", d.ID); !regexp.MustCompile(`\nbecause → \S+  'MoE was net-negative with MTP'\n`).MatchString(out) || !e.names(after(out, "because → "), b.ID) {
		t.Fatalf("show of the decision:\n%s", out)
	}
	if out := e.ok("show", b.ID); !regexp.MustCompile(`\nbecause ← \S+  'We parked MTP'\n`).MatchString(out) {
		t.Fatalf("show of the reason:\n%s", out)
	}
	n := e.rec("supersede", d.ID, "We resumed MTP after bench #42")
	if out := e.ok("show", d.ID); !regexp.MustCompile(`\nsuperseded by \S+  'We resumed MTP after bench #42'\n`).MatchString(out) || !e.names(after(out, "superseded by "), n.ID) {
		t.Fatalf("show of the superseded decision:\n%s", out)
	}
	if out := e.ok("show", n.ID); !regexp.MustCompile(`\nsupersedes \S+  'We parked MTP'\n`).MatchString(out) {
		t.Fatalf("show of its successor:\n%s", out)
	}
}

// edit --tag replaces the tags; --add-tag and --remove-tag change only
// the ones they name.
func TestEditTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.rec("remember", "the cache is warmed at start", "--tag", "cache,startup")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--add-tag", "Perf"}, "cache,perf,startup"},
		{[]string{"--remove-tag", "startup", "--add-tag", "ops,cache"}, "cache,ops,perf"},
		{[]string{"--remove-tag", "nosuch"}, "cache,ops,perf"},
		{[]string{"--tag", "infra"}, "infra"},
	} {
		got := e.rec(append([]string{"edit", m.ID}, c.args...)...)
		if strings.Join(got.Tags, ",") != c.want {
			t.Errorf("edit %s: tags %v, want %s", strings.Join(c.args, " "), got.Tags, c.want)
		}
	}
	help := e.ok("edit", "--help")
	if !regexp.MustCompile(`--tag \S+ +replace all tags`).MatchString(help) || !strings.Contains(help, "--add-tag") || !strings.Contains(help, "--remove-tag") {
		t.Fatalf("edit --help:\n%s", help)
	}
	if r := e.run("", "edit", m.ID, "--add-tag", "a\x1b[31m"); r.code != 2 {
		t.Fatalf("a tag with an escape: exit %d %q", r.code, r.err)
	}
}

// Every --json output names a project by its name, as memory records do.
func TestJSONNamesProjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "Never commit .env files", "-l", "A")
	e.ok("remember", "Prefer the standard library", "--project", "global", "-l", "A")
	e.ok("capture", "the deploy script needs the staging token refreshed")
	e.ok("recall", "kubernetes helm chart") // a gap
	hexID := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, args := range [][]string{
		{"capture", "another note"},
		{"timeline"},
		{"inbox"},
		{"context"},
		{"list"},
		{"recall", "commit env files"},
		{"gaps"},
	} {
		raw := e.ok(append(args, "--json")...)
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatalf("%s --json: %v\n%s", args[0], err, raw)
		}
		seen := 0
		walk(v, func(key string, val any) {
			if key != "project" {
				return
			}
			seen++
			if s, _ := val.(string); hexID.MatchString(s) || (s != "myproj" && s != "global") {
				t.Errorf("%s --json: project %v, want its name", strings.Join(args, " "), val)
			}
		})
		if seen == 0 {
			t.Errorf("%s --json names no project:\n%s", strings.Join(args, " "), raw)
		}
	}
}

func walk(v any, f func(key string, val any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			f(k, x)
			walk(x, f)
		}
	case []any:
		for _, x := range v {
			walk(x, f)
		}
	}
}

// recall's text heads the parts of its answer, so a lower score above a
// higher one is explained.
func TestRecallHeadsItsParts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "Never deploy the payments service on a Friday afternoon", "-l", "A")
	e.ok("remember", "The payments service deploy takes twelve minutes; deploy the payments service with make deploy-payments", "-l", "B")
	e.ok("remember", "Deploying payments with the old script corrupted the ledger", "-l", "E", "--trigger", "old script")
	out := e.ok("recall", "deploy the payments service with the old script")
	t.Logf("\n%s", out)
	heads := []string{"triggered (what failed before, named by the task):", "invariants (rules that hold here):", "the rest, by relevance:"}
	at := 0
	for _, h := range heads {
		i := strings.Index(out, "\n"+h+"\n")
		if h == heads[0] {
			i = strings.Index(out, h+"\n")
		}
		if i < at {
			t.Fatalf("heading %q missing or out of order:\n%s", h, out)
		}
		at = i
	}
	var got struct {
		Results []struct {
			Title string  `json:"title"`
			Part  string  `json:"part"`
			Score float64 `json:"score"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(e.ok("recall", "deploy the payments service with the old script", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, r := range got.Results {
		parts = append(parts, r.Part)
	}
	if strings.Join(parts, ",") != "triggered,invariant,relevant" {
		t.Fatalf("parts: %v", got.Results)
	}
	// Without a triggered negative or an invariant, no headings.
	if out := e.ok("recall", "twelve minutes"); strings.Contains(out, ":\n") {
		t.Fatalf("headings over a single part:\n%s", out)
	}
}

// cairn --version names the build and the Go that made it.
func TestVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, flag := range []string{"--version", "-v"} {
		r := e.run("", flag)
		if r.code != 0 || !regexp.MustCompile(`^cairn \S.* \(go1\.\S+ \w+/\w+\)\n$`).MatchString(r.out) || !strings.Contains(r.out, runtime.Version()) {
			t.Fatalf("cairn %s: exit %d, %q %q", flag, r.code, r.out, r.err)
		}
	}
	if _, err := os.Stat(e.home); err == nil {
		t.Fatal("--version opened the store")
	}
}
