package consolidate

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/internal/config"
	"cairn/memory"
	"cairn/store"
)

// deadlineStore is a store holding the test project with the same drafts.
func deadlineStore(t *testing.T, texts []string) (*store.DB, memory.Project) {
	t.Helper()
	st := openStore(t)
	for _, text := range texts {
		capture(t, st, memory.ActorUser, text)
	}
	return st, testProject
}

// activeTitles are the project's active memories' titles, sorted.
func activeTitles(t *testing.T, st memory.Store, p memory.Project) []string {
	t.Helper()
	page, err := st.List(context.Background(), memory.Query{Project: p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range page.Memories {
		out = append(out, m.Title)
	}
	slices.Sort(out)
	return out
}

// A model that hangs holds a pass up only until the pass's deadline: the
// patterns then take the drafts left, as without a model, nothing is lost,
// the report says so, and the request to the model is let go (the test
// server's cleanup waits for its handler, and no HTTP goroutine is left).
func TestLLMDeadlineForThePass(t *testing.T) {
	t.Parallel()
	texts := []string{
		"I prefer table-driven tests for parsers.",
		"Never commit .env files to the repository.",
		"We decided to use Badger because SQLite locked under load.",
	}
	hung, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		<-r.Context().Done() // until the client gives up
	})
	l := newLLM(hung)
	l.Timeout, l.Deadline = 3*time.Second, 200*time.Millisecond // the pass's deadline is the smaller
	st, p := deadlineStore(t, texts)
	rep, err := Consolidate(context.Background(), st, p, Options{AskedBy: memory.ActorUser, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ModelLate || rep.ByPatterns != len(texts) || rep.Drafts != len(texts) {
		t.Fatalf("report: late %v, %d drafts by the patterns of %d: %s", rep.ModelLate, rep.ByPatterns, rep.Drafts, rep.Summary())
	}
	if seen.count() > 1 {
		t.Errorf("%d requests after the deadline passed, want none after the first draft's", seen.count()-1)
	}
	if !strings.Contains(rep.Run.Summary, "deadline for the pass passed: the patterns extracted 3 drafts") {
		t.Errorf("the run's summary does not say the deadline passed: %q", rep.Run.Summary)
	}
	for _, d := range rep.Dropped {
		if strings.Contains(d, "deadline") || strings.Contains(d, "timed out") {
			t.Errorf("the deadline is reported per draft: %q", d)
		}
	}
	if ds, _ := st.ListDrafts(context.Background(), memory.DraftQuery{Project: p.ID, Waiting: true}); len(ds.Drafts) != 0 {
		t.Errorf("%d drafts still wait after the pass", len(ds.Drafts))
	}
	// The same drafts without a model: the same memories.
	plain, pp := deadlineStore(t, texts)
	if _, err := Consolidate(context.Background(), plain, pp, Options{AskedBy: memory.ActorUser}); err != nil {
		t.Fatal(err)
	}
	got, want := activeTitles(t, st, p), activeTitles(t, plain, pp)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("after the deadline: %q\nthe patterns alone: %q", got, want)
	}
}

// Each request keeps its own timeout when it is the smaller: the draft
// falls back with the reason, and the pass's deadline is not reported.
func TestLLMTimeoutWithinThePass(t *testing.T) {
	t.Parallel()
	hung, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		<-r.Context().Done()
	})
	l := newLLM(hung)
	l.Timeout, l.Deadline = 50*time.Millisecond, time.Hour
	st, p := deadlineStore(t, []string{"I prefer table-driven tests for parsers.", "Never commit .env files to the repository."})
	rep, err := Consolidate(context.Background(), st, p, Options{AskedBy: memory.ActorUser, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	timedOut := 0
	for _, d := range rep.Dropped {
		if strings.Contains(d, "timed out after 50ms") {
			timedOut++
		}
	}
	// (A request can time out before the server has read it, on a loaded
	// machine: at most one request a draft.)
	if rep.ModelLate || rep.ByPatterns != 0 || timedOut != 2 || seen.count() > 2 {
		t.Fatalf("late %v, %d by the patterns, %d timed out, %d requests: %q", rep.ModelLate, rep.ByPatterns, timedOut, seen.count(), rep.Dropped)
	}
	if len(activeTitles(t, st, p)) == 0 {
		t.Fatal("the patterns took nothing")
	}
}

// The pass's deadline is set like the other model settings: the variable,
// else the settings file, else 60 s; a bad one is refused in one line.
func TestLLMDeadlineSetting(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "cairn"), 0o700)
	os.WriteFile(filepath.Join(cfg, "cairn", "config.toml"), []byte("[llm]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"m\"\ndeadline = \"90s\"\n"), 0o600)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want time.Duration
		err  string
	}{
		{name: "default", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "m"}, want: 60 * time.Second},
		{name: "variable", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "m", "CAIRN_LLM_DEADLINE": "2m"}, want: 2 * time.Minute},
		{name: "file", env: map[string]string{"XDG_CONFIG_HOME": cfg}, want: 90 * time.Second},
		{name: "variable over file", env: map[string]string{"XDG_CONFIG_HOME": cfg, "CAIRN_LLM_DEADLINE": "5s"}, want: 5 * time.Second},
		{name: "bad", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "m", "CAIRN_LLM_DEADLINE": "soon\n"}, err: "CAIRN_LLM_DEADLINE"},
		{name: "zero", env: map[string]string{"CAIRN_LLM_URL": "http://127.0.0.1:11434/v1", "CAIRN_LLM_MODEL": "m", "CAIRN_LLM_DEADLINE": "0s"}, err: "not a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// As the CLI does: the settings file loaded once, behind the
			// environment, and passed down.
			getenv := func(k string) string { return tc.env[k] }
			l, err := LLMFromEnv(config.Load(getenv).Getenv(getenv))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line saying %q", err, tc.err)
				}
				return
			}
			if err != nil || l == nil || l.deadline() != tc.want {
				t.Fatalf("got %+v, %v; want a deadline of %s", l, err, tc.want)
			}
		})
	}
}
