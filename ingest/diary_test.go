package ingest

import (
	"strings"
	"testing"
)

// TestCheckKindKnowsTheEcosystems: the test, lint and build commands of
// the common ecosystems, wrapped and compound as agents run them.
func TestCheckKindKnowsTheEcosystems(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"go test ./store/...":                        "test",
		"cd api && uv run pytest -q tests/test_x.py": "test",
		"python -m pytest -k refill":                 "test",
		"pnpm test -- --run":                         "test",
		"npx vitest run":                             "test",
		"yarn jest src/cart":                         "test",
		"cargo nextest run":                          "test",
		"mix test test/cart_test.exs 2>&1 | tail -5": "test",
		"MIX_ENV=test mix test --failed":             "test",
		"bundle exec rspec spec/models":              "test",
		"bin/rails test":                             "",
		"./gradlew :app:test":                        "test",
		"mvn -q verify":                              "test",
		"dotnet test Shop.sln":                       "test",
		"ruff check .":                               "lint",
		"mypy src":                                   "lint",
		"npm run lint":                               "lint",
		"npx tsc --noEmit":                           "lint",
		"npx eslint src":                             "lint",
		"cargo clippy -- -D warnings":                "lint",
		"mix credo --strict 2>&1 | tail -15":         "lint",
		"mix dialyzer":                               "lint",
		"bundle exec rubocop -a":                     "lint",
		"golangci-lint run ./...":                    "lint",
		"mix compile --warnings-as-errors":           "build",
		"cargo build --release":                      "build",
		"npm run build":                              "build",
		"./gradlew assembleDebug":                    "build",
		"dotnet build":                               "build",
		"mix compile && mix test 2>&1 | tail -3":     "test",
		"git push 2>&1":                              "",
		"bd update shop-1 --status in_progress":      "",
		"tail -30 /tmp/tasks/b7.output":              "",
		"rg -n \"mix test\" docs":                    "",
	} {
		if got := CheckKind(cmd); got != want {
			t.Errorf("CheckKind(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestEpisodeCountsTestsAndSkipsTheHarness: an episode says the tests ran
// (however the ecosystem runs them), names the lint checks, and never
// lists a task notice as asked.
func TestEpisodeCountsTestsAndSkipsTheHarness(t *testing.T) {
	t.Parallel()
	d := &Diary{Session: "s1", Format: FormatClaudeCode, Prompts: 3, Ended: true,
		Asked:    []string{"Implement shop-kq2", "<task-notification> <task-id>b0b</task-id> <summary>Background command \"Run tests\" completed (exit code 0)</summary>", "did you push?"},
		Commands: []Command{{Text: "mix test 2>&1 | tail -5", Runs: 6}, {Text: "mix credo --strict", Runs: 2}, {Text: "mix test test/cart_test.exs", Runs: 2, LastExit: 0}}}
	title, body := d.Episode()
	for _, want := range []string{"tests green (`mix test test/cart_test.exs`) after 8 test runs", "lint `mix credo --strict` ok", "Asked (2 prompts)", "- did you push?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the episode lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "task-notification") || strings.Contains(title, "task-notification") || strings.Contains(body, "no tests run") {
		t.Errorf("the episode:\n%s\n%s", title, body)
	}
	d = &Diary{Session: "s2", Format: FormatCodex, Prompts: 1, Asked: []string{"## User Input ```text Create a spec for the orchestrator ``` You **MUST** consider the user input"}}
	if title, _ := d.Episode(); !strings.HasSuffix(title, ": Create a spec for the orchestrator") {
		t.Errorf("a prompt template's title: %q", title)
	}
}
