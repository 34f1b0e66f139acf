package consolidate

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// reviewSessions are two sessions' messages as transcripts leave them:
// the person's words, each a draft of its session's file.
var reviewSessions = []struct{ session, text string }{
	{"s-a", "We decided to use Badger because SQLite locked under load."},
	{"s-a", "Never commit .env files to the repository."},
	{"s-a", "I prefer table-driven tests for parsers."},
	{"s-b", "The staging API listens on port 8443."},
	{"s-b", "Always run make lint before pushing."},
}

// reviewStore holds the test project with the two sessions' drafts; said
// is when each text was captured.
func reviewStore(t *testing.T) (st *store.DB, said map[string]time.Time) {
	t.Helper()
	st, said = openStore(t), map[string]time.Time{}
	for _, m := range reviewSessions {
		d, err := st.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.ActorUser, Text: m.text,
			Source: memory.Source{Session: m.session, File: "transcript.jsonl", Line: 3}})
		if err != nil {
			t.Fatal(err)
		}
		said[m.text] = d.Time
	}
	return st, said
}

// reviewLine is one item of a review request: "[n] who · class: text".
var reviewLine = regexp.MustCompile(`(?m)^\[(\d+)\] (person|agent) · (\w+): (.*)$`)

// messageLine is one message of a session sent whole: "[n] who: text".
var messageLine = regexp.MustCompile(`(?m)^\[(\d+)\] (person|agent): (.*)$`)

// sessionServer answers a session's windows with extract and its reviews
// with review, each given the request's user message; "" answers 500.
func sessionServer(t *testing.T, extract, review func(user string) string) (*LLM, *llmSeen) {
	t.Helper()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		system, _ := msgs[0].(map[string]any)["content"].(string)
		user, _ := msgs[len(msgs)-1].(map[string]any)["content"].(string)
		answer := extract
		if system == reviewPrompt {
			answer = review
		} else if system != sessionPrompt {
			t.Errorf("a request under another prompt: %.80q", system)
		}
		if a := answer(user); a != "" {
			chat(w, a)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	})
	return newLLM(srv), seen
}

// failing answers every request with 500.
func failing(string) string { return "" }

// keeping answers a review by keeping the items whose text holds one of
// words.
func keeping(words ...string) func(string) string {
	return func(user string) string {
		var keep []string
		for _, m := range reviewLine.FindAllStringSubmatch(user, -1) {
			for _, w := range words {
				if strings.Contains(m[4], w) {
					keep = append(keep, m[1])
				}
			}
		}
		return `{"keep": [` + strings.Join(keep, ",") + `]}`
	}
}

// patternsAlone is what the patterns form of the two sessions.
func patternsAlone(t *testing.T) []string {
	t.Helper()
	plain, _ := reviewStore(t)
	if _, err := Consolidate(ctx, plain, testProject, Options{AskedBy: memory.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	all := activeTitles(t, plain, testProject)
	if len(all) != len(reviewSessions) {
		t.Fatalf("the patterns formed %q from %d statements", all, len(reviewSessions))
	}
	return all
}

// A configured model reads a session's messages together, one request a
// window, and writes what a colleague would keep: each memory grounded in
// the message it quotes (that message's time and speaker), one quoting no
// message dropped with the reason; nothing else of the session is formed.
func TestModelReadsASessionWhole(t *testing.T) {
	t.Parallel()
	st, said := reviewStore(t)
	l, seen := sessionServer(t, func(user string) string {
		switch {
		case strings.Contains(user, "Badger"):
			return candidatesJSON(
				map[string]any{"class": "decision", "title": "Badger is the store because SQLite locked under load",
					"body": "The project uses Badger because SQLite locked under load.", "because": "SQLite locked under load",
					"span": "We decided to use Badger because SQLite locked under load.", "sure": true},
				map[string]any{"class": "state", "title": "The team uses Postgres 16", "body": "The team uses Postgres 16.",
					"span": "We use Postgres 16.", "sure": true})
		case strings.Contains(user, "staging"):
			return candidatesJSON(map[string]any{"class": "preference", "title": "Run make lint before pushing",
				"body": "Always run make lint before pushing.", "span": "Always run make lint before pushing.", "sure": true})
		}
		t.Errorf("a window of neither session: %s", user)
		return failing(user)
	}, failing)
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	if seen.count() != 2 {
		t.Fatalf("%d requests for two short sessions, want one each (no message alone, no review)", seen.count())
	}
	got := activeTitles(t, st, testProject)
	want := []string{"Badger is the store because SQLite locked under load", "Run make lint before pushing"}
	if !slices.Equal(got, want) {
		t.Fatalf("formed %q, want %q; dropped %q", got, want, rep.Dropped)
	}
	if !slices.ContainsFunc(rep.Dropped, func(s string) bool { return strings.Contains(s, "quotes no message of the session") }) {
		t.Errorf("the invented candidate's reason is not reported: %q", rep.Dropped)
	}
	page, err := st.List(ctx, memory.Query{Project: testProject.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]string{"Badger is the store because SQLite locked under load": reviewSessions[0].text, "Run make lint before pushing": reviewSessions[4].text}
	for _, m := range page.Memories {
		if when := said[quoted[m.Title]]; m.Provenance != memory.ProvUserStated || when.IsZero() || !m.ValidFrom.Equal(when) || m.Source.Session == "" {
			t.Errorf("%q: %s, valid from %s, session %q; want the person's words, dated when said (%s)", m.Title, m.Provenance, m.ValidFrom, m.Source.Session, when)
		}
	}
	// What the model was shown: each session's messages once, numbered,
	// who said them, and nothing of where they came from.
	var shown []string
	for i, raw := range seen.raw {
		if strings.Contains(raw, "transcript.jsonl") || strings.Contains(raw, "s-a") || strings.Contains(raw, "s-b") {
			t.Errorf("request %d names the session or its file: %s", i, raw)
		}
		msgs := seen.bodies[i]["messages"].([]any)
		for _, m := range messageLine.FindAllStringSubmatch(msgs[len(msgs)-1].(map[string]any)["content"].(string), -1) {
			if m[2] != "person" {
				t.Errorf("the person's words shown as %s's: %s", m[2], m[0])
			}
			shown = append(shown, m[3])
		}
	}
	var all []string
	for _, m := range reviewSessions {
		all = append(all, m.text)
	}
	slices.Sort(shown)
	slices.Sort(all)
	if !slices.Equal(shown, all) {
		t.Errorf("the model was shown %q, want each message once: %q", shown, all)
	}
}

// A session the model did not read whole — its windows' answers were
// unusable, so the patterns read it — is reviewed: the patterns'
// candidates of the session together, in one request, and what the model
// does not keep stays in the episode, as the patterns wrote the rest.
func TestModelReviewKeepsWhatASessionSettled(t *testing.T) {
	t.Parallel()
	all := patternsAlone(t)
	st, _ := reviewStore(t)
	l, seen := sessionServer(t, failing, keeping("Badger", "staging"))
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	if seen.count() != 4 {
		t.Fatalf("%d requests for two sessions, want a window and a review each", seen.count())
	}
	got := activeTitles(t, st, testProject)
	var want []string
	for _, title := range all {
		if strings.Contains(title, "Badger") || strings.Contains(title, "staging") {
			want = append(want, title)
		}
	}
	if !slices.Equal(got, want) || len(want) != 2 {
		t.Fatalf("formed %q, want what the review kept, as the patterns wrote it: %q", got, want)
	}
	if n := len(slices.DeleteFunc(slices.Clone(rep.Dropped), func(s string) bool { return !strings.Contains(s, "review of session") })); n != 3 {
		t.Errorf("%d drops name the review, want 3: %q", n, rep.Dropped)
	}
	var shown []string
	for _, b := range seen.bodies {
		msgs := b["messages"].([]any)
		if msgs[0].(map[string]any)["content"] != reviewPrompt {
			continue
		}
		for _, m := range reviewLine.FindAllStringSubmatch(msgs[len(msgs)-1].(map[string]any)["content"].(string), -1) {
			if m[2] != "person" {
				t.Errorf("the person's words shown as %s's: %s", m[2], m[0])
			}
			shown = append(shown, m[4])
		}
	}
	if len(shown) != len(reviewSessions) || !strings.Contains(shown[0], "Badger") || !strings.Contains(shown[1], ".env") {
		t.Errorf("the review was shown %q", shown)
	}
}

// A review that fails or cannot be read leaves the session to its budget,
// as without a model, and says why; a model that hangs is given up at the
// pass's deadline, and the patterns and budgets do the rest.
func TestModelReviewThatFailsKeepsThePatterns(t *testing.T) {
	t.Parallel()
	all := patternsAlone(t)
	for _, tc := range []struct {
		name, answer string
		want         string
	}{
		{"server error", "", "answered 500"},
		{"no keep list", `{"candidates": []}`, `no "keep" list`},
		{"not JSON", `I would keep the first one.`, "not the JSON asked for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := reviewStore(t)
			l, _ := sessionServer(t, failing, func(string) string { return tc.answer })
			rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent, LLM: l})
			if err != nil {
				t.Fatal(err)
			}
			if got := activeTitles(t, st, testProject); !slices.Equal(got, all) {
				t.Errorf("formed %q, want what the patterns form: %q", got, all)
			}
			if !slices.ContainsFunc(rep.Dropped, func(s string) bool {
				return strings.Contains(s, tc.want) && strings.Contains(s, "budget alone chose")
			}) {
				t.Errorf("the report does not say why the review was not used (%q): %q", tc.want, rep.Dropped)
			}
		})
	}

	// The first window is cut at the deadline, nothing more is asked.
	hung, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		<-r.Context().Done()
	})
	l := newLLM(hung)
	l.Deadline = 200 * time.Millisecond
	st, _ := reviewStore(t)
	rep, err := Consolidate(context.Background(), st, testProject, Options{AskedBy: memory.ActorAgent, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	if got := activeTitles(t, st, testProject); !slices.Equal(got, all) {
		t.Errorf("after the deadline formed %q, want %q", got, all)
	}
	want := "the patterns extracted 5 drafts without it, and the budget alone chose what 2 sessions left"
	if seen.count() != 1 || !strings.Contains(rep.Summary(), want) {
		t.Errorf("%d requests; report: %s; want it to say %q", seen.count(), rep.Summary(), want)
	}
}

// Review reads the numbers of the items shown and nothing else.
func TestModelReviewReadsOnlyItemsShown(t *testing.T) {
	t.Parallel()
	items := []reviewItem{{"person", "state", "a"}, {"agent", "decision", "b"}, {"agent", "state", "c"}}
	for _, tc := range []struct {
		answer string
		want   []int
	}{
		{`{"keep": [2, "x", 9, 2, 0, -1, 1.5, 3]}`, []int{1, 2}},
		{`{"keep": []}`, nil},
		{"```json\n{\"keep\": [3, 1]}\n```", []int{0, 2}},
	} {
		srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) { chat(w, tc.answer) })
		got, err := newLLM(srv).Review(ctx, items)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.answer, got, err, tc.want)
		}
	}
}

// A session's windows: as many messages as fit, each counted as sent (cut
// at sessionMaxMessage bytes).
func TestSessionWindows(t *testing.T) {
	t.Parallel()
	draft := func(n int) memory.Draft { return memory.Draft{Text: strings.Repeat("x", n)} }
	ds := []memory.Draft{draft(5000), draft(5000), draft(5000), draft(40000), draft(10), draft(9000), draft(9000)}
	got := sessionWindows(ds)
	want := [][2]int{{0, 3}, {3, 6}, {6, 7}}
	if !slices.Equal(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
}

// A session longer than a window: each window is read on its own, each
// memory lands on the message it quotes (in any window), and the session
// is reviewed afterwards, as one, since no request saw it whole.
func TestModelReadsALongSessionInWindows(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	filler := strings.Repeat("The notes go on about other things. ", 200) // past a message's 6 KB
	said := map[string]time.Time{}
	for _, text := range []string{"The billing service runs on port 9090. ", "Nothing to keep here. ", "The ledger service runs on port 9191. "} {
		d, err := st.Capture(ctx, memory.Draft{Project: testProject.ID, Actor: memory.ActorAgent, Text: text + filler,
			Source: memory.Source{Session: "s-long", File: "transcript.jsonl"}})
		if err != nil {
			t.Fatal(err)
		}
		said[text] = d.Time
	}
	l, seen := sessionServer(t, func(user string) string {
		var cands []map[string]any
		for _, svc := range []string{"billing", "ledger"} {
			if strings.Contains(user, "The "+svc) {
				span := map[string]string{"billing": "The billing service runs on port 9090.", "ledger": "The ledger service runs on port 9191."}[svc]
				cands = append(cands, map[string]any{"class": "state", "title": span, "body": span, "span": span, "sure": true})
			}
		}
		return candidatesJSON(cands...)
	}, keeping("ledger"))
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorAgent, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	if seen.count() != 3 {
		t.Fatalf("%d requests, want two windows and a review", seen.count())
	}
	page, err := st.List(ctx, memory.Query{Project: testProject.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Memories) != 1 || page.Memories[0].Title != "The ledger service runs on port 9191." {
		t.Fatalf("formed %v; dropped %q", page.Memories, rep.Dropped)
	}
	if m := page.Memories[0]; !m.ValidFrom.Equal(said["The ledger service runs on port 9191. "]) {
		t.Errorf("the ledger memory is valid from %s, want when its message was said (%s)", m.ValidFrom, said["The ledger service runs on port 9191. "])
	}
	if !slices.ContainsFunc(rep.Dropped, func(s string) bool {
		return strings.Contains(s, "review of session s-long left the state \"The billing")
	}) {
		t.Errorf("the review's choice is not reported: %q", rep.Dropped)
	}
}

// A message holding what looks like a credential is never sent: the
// window goes without it, the caller learns which it was, and a
// candidate quoting it quotes no message the model was shown.
func TestModelNeverSeesASessionsCredential(t *testing.T) {
	t.Parallel()
	secret := "Use the token " + llmGitHubToken + " for the release job."
	ds := []memory.Draft{{Actor: memory.ActorUser, Text: secret}, {Actor: memory.ActorAgent, Text: "The release job runs on tags."}}
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(map[string]any{"class": "state", "title": "The release job uses a token", "body": "The release job uses a token.",
			"span": "for the release job.", "sure": true}))
	})
	cands, unsent, dropped, err := newLLM(srv).ExtractSession(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	if seen.count() != 1 || strings.Contains(seen.raw[0], "ghp_") || !strings.Contains(seen.raw[0], "The release job runs on tags.") {
		t.Fatalf("%d requests: %s", seen.count(), seen.raw)
	}
	if !slices.Equal(unsent, []int{0}) || len(cands[0])+len(cands[1]) != 0 || len(dropped) != 1 || !strings.Contains(dropped[0], "quotes no message") {
		t.Errorf("unsent %v, candidates %v, dropped %q", unsent, cands, dropped)
	}
}
