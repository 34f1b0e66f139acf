package ingest

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"cairn/safetext"
)

// Episode is the session's episode: a title and a short body saying when,
// on which branch, what was asked, what was done and how it ended. The same
// diary always gives the same text. Its times are in the local time zone.
func (d *Diary) Episode() (title, body string) { return d.EpisodeIn(time.Local) }

// EpisodeIn is Episode with its times in the time zone loc.
func (d *Diary) EpisodeIn(loc *time.Location) (title, body string) {
	asked, prompts := d.asked()
	title = d.when(loc)
	if len(asked) > 0 {
		title += ": " + asked[0]
	}
	title = cutBytes(safetext.CleanLine(title), 120)

	var b strings.Builder
	d.writeSetting(&b, loc)
	if len(asked) > 0 {
		fmt.Fprintf(&b, "\nAsked (%d %s):\n", prompts, pluralWord(prompts, "prompt", "prompts"))
		for _, a := range asked {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		if n := prompts - len(asked); n > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", n)
		}
	}
	d.writeDone(&b)
	b.WriteString("\nEnded: " + strings.Join(d.ended(), "; ") + ".\n")
	fmt.Fprintf(&b, "\nSession %s.", d.Session)
	// What a transcript quotes is data: escapes become visible symbols.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = safetext.CleanLine(l)
	}
	return title, strings.Join(lines, "\n")
}

// when is the start of an episode's title: when the session ran, and on
// which branch.
func (d *Diary) when(loc *time.Location) string {
	when := "Session"
	if !d.Start.IsZero() {
		start := d.Start.In(loc)
		when += " " + start.Format("2006-01-02 15:04")
		if !d.End.IsZero() && d.End.After(d.Start) {
			end := d.End.In(loc)
			if end.Format("2006-01-02") == start.Format("2006-01-02") {
				when += "–" + end.Format("15:04")
			} else {
				when += " – " + end.Format("2006-01-02 15:04")
			}
		}
	}
	if d.Branch != "" {
		when += " on " + d.Branch
	}
	return when
}

// asked are the prompts quoted that a person asked (a command's prompt
// template gives its input; the harness's own prompts are left out), and
// how many prompts the session had without the harness's among them.
func (d *Diary) asked() ([]string, int) {
	var asked []string
	for _, a := range d.Asked {
		if m := templateInput.FindStringSubmatch(a); m != nil {
			// A command's prompt template: what the person typed is its input.
			if a = strings.TrimSpace(m[1]); a == "" {
				a = "(a command's prompt template, no input)"
			}
		}
		if !harnessPrompt.MatchString(a) {
			asked = append(asked, a)
		}
	}
	return asked, d.Prompts - (len(d.Asked) - len(asked))
}

// writeSetting writes the body's first line: which agent, where, on which
// branch, when.
func (d *Diary) writeSetting(b *strings.Builder, loc *time.Location) {
	agent := "an agent"
	switch d.Format {
	case FormatClaudeCode:
		agent = "Claude Code"
	case FormatCodex:
		agent = "Codex"
	}
	fmt.Fprintf(b, "A %s session", agent)
	if d.Cwd != "" {
		fmt.Fprintf(b, " in %s", d.Cwd)
	}
	if d.Branch != "" {
		fmt.Fprintf(b, " on branch %s", d.Branch)
	}
	if !d.Start.IsZero() {
		fmt.Fprintf(b, ", %s", span(d.Start, d.End, loc))
	}
	b.WriteString(".\n")
}

// writeDone writes what the session did: the commands it ran and the
// files it touched.
func (d *Diary) writeDone(b *strings.Builder) {
	if len(d.Commands) == 0 && len(d.Files) == 0 {
		return
	}
	b.WriteString("\nDone:\n")
	for _, c := range d.Commands {
		fmt.Fprintf(b, "- ran `%s`", c.Text)
		if c.Runs > 1 {
			fmt.Fprintf(b, " %d×", c.Runs)
		}
		if c.Failed > 0 {
			fmt.Fprintf(b, " (%d failed)", c.Failed)
		}
		b.WriteString("\n")
	}
	if len(d.Files) > 0 {
		fmt.Fprintf(b, "- touched %d %s: %s\n", len(d.Files), pluralWord(len(d.Files), "file", "files"), strings.Join(d.Files, ", "))
	}
}

// ended says how the session ended: its tests, lints and builds, failed
// tool calls, compactions, and whether it was still running.
func (d *Diary) ended() []string {
	ended := []string{d.testsEnded()}
	for _, kind := range []string{"lint", "build"} {
		var said []string
		for _, c := range d.Commands {
			if CheckKind(c.Text) == kind && len(said) < 3 {
				how := "ok"
				if c.LastExit != 0 {
					how = "failing"
				}
				said = append(said, "`"+c.Text+"` "+how)
			}
		}
		if len(said) > 0 {
			ended = append(ended, kind+" "+strings.Join(said, ", "))
		}
	}
	if d.Failures > 0 {
		ended = append(ended, fmt.Sprintf("%d failed tool %s", d.Failures, pluralWord(d.Failures, "call", "calls")))
	}
	if d.Compacted > 0 {
		ended = append(ended, fmt.Sprintf("context compacted %d×", d.Compacted))
	}
	if !d.Ended {
		ended = append(ended, "still running when last read")
	}
	return ended
}

// testsEnded says how the session's tests ended: the last test command's
// result, and how many test runs there were.
func (d *Diary) testsEnded() string {
	tests, runs := d.Tests, 0
	for i := len(d.Commands) - 1; i >= 0; i-- {
		c := d.Commands[i]
		if CheckKind(c.Text) != "test" {
			continue
		}
		runs += c.Runs
		if tests == nil {
			// A diary of an older cairn knew fewer test commands.
			tests = &TestResult{Command: c.Text, Passed: c.LastExit == 0}
		}
	}
	times := ""
	if runs > 1 {
		times = fmt.Sprintf(" after %d test runs", runs)
	}
	switch {
	case tests == nil:
		return "no tests run"
	case tests.Passed:
		return "tests green (`" + tests.Command + "`)" + times
	}
	s := "tests failing (`" + tests.Command + "`"
	if tests.Summary != "" {
		s += ": " + tests.Summary
	}
	return s + ")" + times
}

// span is a session's time span in words, in the time zone loc.
func span(start, end time.Time, loc *time.Location) string {
	s := start.In(loc).Format("2006-01-02 15:04")
	if d := end.Sub(start).Round(time.Minute); d >= time.Minute {
		s += fmt.Sprintf(", %s", strings.TrimSuffix(d.String(), "0s"))
	}
	return s
}

func pluralWord(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

// The checks of the common ecosystems, by kind: a command (or one part of
// a compound command) that runs tests, a linter or type checker, or a
// build. Wrappers (env assignments, sudo, time, npx, uv/poetry run,
// bundle exec, python -m) are looked through.
var (
	checkWrapper = regexp.MustCompile(`^(?:\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|time|nice|env|npx|bunx|pnpx|exec|command|(?:uv|poetry|pdm|hatch|pipenv|rye)\s+run|bundle\s+exec|(?:pnpm|yarn|npm)\s+exec|(?:yarn|pnpm|bun)|python[0-9.]*\s+-m|dotenv\s+--)\s+)+`)
	checkKinds   = []struct {
		kind string
		re   *regexp.Regexp
	}{
		{"test", regexp.MustCompile(`^(?:(?:\./)?\.ci/run|go\s+test|gotestsum|pytest|py\.test|unittest|tox|nox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S*)?|jest|vitest|mocha|ava|playwright\s+test|cypress\s+run|cargo\s+(?:test|nextest)|mix\s+test|rspec|rake\s+(?:test|spec)|rails\s+test|(?:\./)?gradlew?\s+(?:\S+\s+)*?(?::?\w+:)?(?:test|check|connectedCheck)|mvnw?\s+(?:\S+\s+)*?(?:test|verify)|(?:\./)?mvnw\s+(?:\S+\s+)*?(?:test|verify)|dotnet\s+test|make\s+(?:test|check|tests)|ctest|bats|phpunit|deno\s+test|swift\s+test|flutter\s+test|dart\s+test|elixir\s+-S\s+mix\s+test)\b`)},
		{"lint", regexp.MustCompile(`^(?:golangci-lint|go\s+vet|staticcheck|gofmt\s+-l|ruff|flake8|pylint|mypy|pyright|black\s+--check|isort\s+--check|eslint|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|typecheck|type-check|check-types|format:check)|tsc|prettier\s+--check|biome|cargo\s+(?:clippy|fmt)|mix\s+(?:credo|dialyzer|format\s+--check-formatted)|rubocop|standardrb|(?:\./)?gradlew?\s+(?:\S+\s+)*?(?:lint|ktlint\w*|detekt|spotlessCheck)|mvnw?\s+(?:\S+\s+)*?(?:checkstyle:\w+|spotless:check)|dotnet\s+format|make\s+(?:lint|vet|fmt-check|typecheck)|shellcheck|hadolint|clang-tidy)\b`)},
		{"build", regexp.MustCompile(`^(?:go\s+build|go\s+install|cargo\s+(?:build|check)|mix\s+compile|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build(?::\S*)?|vite\s+build|next\s+build|webpack|esbuild|(?:\./)?gradlew?\s+(?:\S+\s+)*?(?:build|assemble\w*)|mvnw?\s+(?:\S+\s+)*?(?:package|compile|install)|dotnet\s+build|make(?:\s+(?:build|all))?$|make\s+-j\d*$|cmake\s+--build|bazel\s+build|swift\s+build|zig\s+build)\b`)},
	}
)

// CheckKind says what a command checks: "test", "lint" (linters, type
// checkers, format checks) or "build"; "" when it runs none of them. Of a
// compound command ("mix compile && mix test 2>&1 | tail"), the parts are
// read in order and a test wins over a lint, a lint over a build.
func CheckKind(cmd string) string {
	best := ""
	rank := map[string]int{"test": 3, "lint": 2, "build": 1}
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '&' || r == '|' || r == ';' || r == '\n' || r == '(' || r == ')' }) {
		p := strings.TrimSpace(part)
		bare := p // "yarn test" is yarn's; "yarn jest" is jest's
		if loc := checkWrapper.FindStringIndex(p); loc != nil && loc[0] == 0 {
			bare = p[loc[1]:]
		}
		for _, k := range checkKinds {
			if (k.re.MatchString(p) || k.re.MatchString(bare)) && rank[k.kind] > rank[best] {
				best = k.kind
			}
		}
	}
	return best
}

// checkMatcher matches the commands of one kind of check.
type checkMatcher string

// MatchString reports whether cmd runs this kind of check.
func (k checkMatcher) MatchString(cmd string) bool { return CheckKind(cmd) == string(k) }

// harnessPrompt is what Claude Code or Codex put in the person's place:
// task notices, reminders, slash commands' output, compaction summaries.
// An episode never lists it as asked.
var harnessPrompt = regexp.MustCompile(`^\s*(?:<(?:task-notification|system-reminder|command-name|command-message|command-args|local-command-\w+|user-prompt-submit-hook|environment_context|user_instructions|turn_aborted)\b|\[Request interrupted by user|Caveat: The messages below were generated|This session is being continued from a previous conversation)`)

// templateInput is the person's input in a custom command's prompt
// template (Spec Kit's "## User Input ```text … ```"), as the diary keeps
// it on one line.
var templateInput = regexp.MustCompile("^#{1,3} User Input\\s*```(?:text)?\\s*(.*?)\\s*```")
