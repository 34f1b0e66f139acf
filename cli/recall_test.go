package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecallCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "VGPR-256 starved occupancy on the decode kernel", "-l", "E", "--trigger", "register budget")
	e.ok("remember", "Release v0.7 is out", "-l", "B")
	e.ok("remember", "Prefer the standard library", "--project", "global", "-l", "A")
	guess := e.rec("remember", "The decode kernel probably needs more registers", "-l", "B", "--provenance", "inferred", "--confidence", "0.3")

	var out struct {
		Results []struct {
			ID      string         `json:"id"`
			Title   string         `json:"title"`
			Score   float64        `json:"score"`
			Explain map[string]any `json:"explain"`
		} `json:"results"`
		VerifyFirst []struct {
			ID string `json:"id"`
		} `json:"verify_first"`
		Cut int `json:"cut"`
	}
	raw := e.ok("recall", "raise the register budget of the decode kernel", "--json", "--explain")
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) == 0 || !strings.Contains(out.Results[0].Title, "VGPR") || out.Results[0].Explain["trigger"] != "register budget" {
		t.Fatalf("the triggered negative is not first, explained: %s", raw)
	}
	if len(out.VerifyFirst) != 1 || out.VerifyFirst[0].ID != guess.ID {
		t.Fatalf("verify_first: %s", raw)
	}
	text := e.ok("recall", "standard library", "--explain")
	if !strings.Contains(text, "Prefer the standard library") || !strings.Contains(text, "lexical") {
		t.Fatalf("global memory or explanation missing:\n%s", text)
	}

	batch := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(batch, []byte(`{"id":"q1","query":"release"}`+"\n\n"+`{"id":"q2","query":"standard library","project":"global"}`+"\n"), 0o644)
	lines := strings.Split(strings.TrimSpace(e.ok("recall", "--batch", batch, "--json")), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":"q1"`) || !strings.Contains(lines[0], "Release v0.7") || !strings.Contains(lines[1], "standard library") {
		t.Fatalf("batch:\n%s", strings.Join(lines, "\n"))
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"recall"}, 2, "a QUERY, a --path PATTERN, or --batch"},
		{[]string{"recall", "--path", "st[ore"}, 2, "malformed"},
		{[]string{"recall", "x", "--limit", "0"}, 2, "positive"},
		{[]string{"recall", "x", "--layer", "Z"}, 2, "unknown layer"},
		{[]string{"recall", "--batch", "/nope.jsonl"}, 1, "read"},
	} {
		r := e.run("", c.args...)
		if r.code != c.code || !strings.Contains(r.err, c.want) {
			t.Errorf("cairn %s: %d %q", strings.Join(c.args, " "), r.code, r.err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"q1","qurey":"x"}`), 0o644)
	if r := e.run("", "recall", "--batch", bad); r.code != 1 || !strings.Contains(r.err, "line 1") {
		t.Errorf("bad batch line: %+v", r)
	}
	ctxOut := e.ok("context")
	if !strings.Contains(ctxOut, "## Working state") || !strings.Contains(ctxOut, "## Verify first") {
		t.Fatalf("context:\n%s", ctxOut)
	}
}

// The gap log and feedback as a person meets them on the command line.
func TestGapsAndFeedbackCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.rec("remember", "The retry policy lives in store/import.go and backs off three times", "-l", "B")
	if out := e.ok("recall", "kubernetes helm chart"); !strings.Contains(out, "nothing known about this") {
		t.Fatalf("recall of the unknown: %q", out)
	}
	e.ok("recall", "Kubernetes  helm chart")
	out := e.ok("gaps")
	if !strings.Contains(out, "kubernetes helm chart") || !strings.Contains(out, "2×") {
		t.Fatalf("gaps: %q", out)
	}
	if out := e.ok("recall", "--path", "store/"); !strings.Contains(out, "about the files asked for") || !e.names(after(out, "1.00  "), m.ID) {
		t.Fatalf("recall --path: %q", out)
	}
	// Remembered since: the gap says it is answered, and --answered closes it.
	e.ok("remember", "The staging cluster runs kubernetes; its helm chart lives in deploy/chart", "-l", "B")
	if out := e.ok("gaps"); !strings.Contains(out, "answered now by") {
		t.Fatalf("an answered gap: %q", out)
	}
	if out := e.ok("gaps", "drop", "--answered"); !strings.Contains(out, "closed 1 gap") {
		t.Fatalf("drop --answered: %q", out)
	}
	if out := e.ok("gaps"); !strings.Contains(out, "no gaps") {
		t.Fatalf("after the drop: %q", out)
	}
	if out := e.ok("feedback", m.ID[:10], "helpful", "--query", "where do imports retry"); !strings.Contains(out, "helpful") || !strings.Contains(out, "trust unchanged") {
		t.Fatalf("feedback: %q", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"feedback", m.ID, "maybe"}, "helpful or unhelpful"},
		{[]string{"gaps", "drop"}, "gap ids"},
		{[]string{"gaps", "drop", "nope"}, "not found"},
	} {
		if r := e.run("", c.args...); r.code == 0 || !strings.Contains(r.err, c.want) {
			t.Errorf("cairn %s: %d %q", strings.Join(c.args, " "), r.code, r.err)
		}
	}
}
