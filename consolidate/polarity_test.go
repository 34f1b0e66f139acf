package consolidate

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"cairn/memory"
)

// A model that turns the rule it quotes around — "never push with
// --no-verify" as "Always push with --no-verify", "must never commit" as
// "Do commit" — has its candidate refused with a one-line reason; a
// faithful one and a rephrasing without "always" or "never" stay. The
// check is conservative: a double negation is refused as well.
func TestLLMRefusesAnInvertedSpan(t *testing.T) {
	const text = "Please never push with --no-verify: the hooks run the linters.\n" +
		"Always run make check before a release.\n" +
		"Don't mock the database in the integration tests.\n" +
		"We must never commit .env files."
	srv, _ := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, candidatesJSON(
			map[string]any{"class": "preference", "title": "Always push with --no-verify", "body": "Always push with --no-verify.",
				"span": "never push with --no-verify", "sure": true},
			map[string]any{"class": "preference", "title": "Never skip make check before a release", "body": "Do not release without make check.",
				"span": "Always run make check before a release.", "sure": true},
			map[string]any{"class": "preference", "title": "Never push with --no-verify", "body": "Never push with --no-verify: the hooks run the linters.",
				"span": "never push with --no-verify: the hooks run the linters.", "sure": true},
			map[string]any{"class": "preference", "title": "Integration tests use a real database", "body": "Integration tests use a real database, not a mock.",
				"span": "Don't mock the database in the integration tests.", "sure": true},
			map[string]any{"class": "preference", "title": "Do commit .env files", "body": "Do commit .env files.",
				"span": "We must never commit .env files.", "sure": true},
			map[string]any{"class": "preference", "title": "Don’t push with --no-verify", "body": "Don’t push with --no-verify.",
				"span": "never push with --no-verify", "sure": true},
		))
	})
	cands, dropped, err := newLLM(srv).Extract(context.Background(), llmDraft(memory.ActorUser, text))
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range cands {
		titles = append(titles, c.Title)
	}
	want := []string{"Never push with --no-verify", "Integration tests use a real database", "Don’t push with --no-verify"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Fatalf("kept %q, want %q (dropped %q)", titles, want, dropped)
	}
	if len(dropped) != 3 || !strings.Contains(dropped[0], `"Always push with --no-verify"`) || !strings.Contains(dropped[0], "says the opposite of the span it quotes") ||
		!strings.Contains(dropped[1], "Never skip make check") || !strings.Contains(dropped[2], "Do commit .env files") || strings.Contains(strings.Join(dropped, ""), "\n") {
		t.Fatalf("dropped %q", dropped)
	}
}
