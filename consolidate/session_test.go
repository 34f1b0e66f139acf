package consolidate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/consolidate/extract"
	"cairn/memory"
)

// sessionDraft is a draft as ingest writes it from an agent's session log.
func sessionDraft(by memory.Actor, file, text string) memory.Draft {
	return memory.Draft{ID: "01J0000000000000000000000D", Project: testProject.ID, Actor: by, Text: text,
		Time:   time.Date(2026, 2, 11, 21, 30, 0, 0, time.UTC),
		Source: memory.Source{Actor: by, Session: "5e55-10n", File: file, Line: 40}}
}

const mainLog = "/home/me/.claude/projects/-src-shop/5e55-10n.jsonl"

func titles(cs []extract.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Class)+": "+c.Title)
	}
	return out
}

// TestSessionWorkLogStaysInTheEpisode: what an agent's final answer says
// of the work of the moment — narration, tracker chatter, test tallies,
// what it just did, report fragments, to-do lists — makes no memory; what
// it states about the project does.
func TestSessionWorkLogStaysInTheEpisode(t *testing.T) {
	t.Parallel()
	noise := []string{
		"Good. Now let me run the quality checks:",
		"Now I'll wire the handler into the router.",
		"Claimed with `bd update shop-kq2.1 --status in_progress`.",
		"Ran `bd show shop-kq2` to see the epic details.",
		"Added `selected_row` assign.",
		"Total: 212 tests, all passing.",
		"All 31 existing tests preserved unchanged.",
		"**Actions**",
		"**NO** worker pools",
		"**Storage:** an ETS named table",
		"Explored call sites in `cart_live.ex` and `checkout_live.ex`.",
		"Template: replaced the inline styles with CSS classes.",
		"Both commits are on `origin/shop-kq2`, and the epic is closed.",
		"No tests were run (docs-only change).",
		"`docs/queue.md:12-30` now describes the single shared queue.",
		"API contracts generated under `specs/004/contracts/api.yaml`, covering the endpoints.",
		"Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
	}
	for _, text := range noise {
		if got := extract.Extract(sessionDraft(memory.ActorAgent, mainLog, text)); len(got) > 0 {
			t.Errorf("%q made %q", text, titles(got))
		}
	}
	kept := []string{
		"The pre-commit hook runs dialyzer and cannot be skipped with --no-verify.",
		"Ecto's sandbox requires `{:shared, self()}` mode for LiveView tests.",
	}
	for _, text := range kept {
		if got := extract.Extract(sessionDraft(memory.ActorAgent, mainLog, text)); len(got) != 1 {
			t.Errorf("%q made %q, want one memory", text, titles(got))
		}
	}
	// The same past action from an agent's capture (not a session log) is
	// still an event: the rule is about transcripts.
	capture := memory.Draft{Actor: memory.ActorAgent, Text: "Deployed v2.3.1 to staging."}
	if got := extract.Extract(capture); len(got) != 1 || got[0].Class != extract.ClassEvent {
		t.Errorf("an agent's captured event: %q", titles(got))
	}
}

// TestToDoListIsNoInvariant: a list of what is still to do is neither a
// procedure nor a rule, whoever wrote it; a procedure with a subject is.
func TestToDoListIsNoInvariant(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Still needed for kq2.6:\n- Add the close button\n- Write the LiveView test\n- Run mix credo",
		"**Next steps**\n1. Mirror the queue rename in the quickstart\n2. Update the worker tasks",
		"**Actions**\n- Run the migration\n- Restart the workers",
	} {
		for _, by := range []memory.Actor{memory.ActorAgent, memory.ActorUser} {
			for _, c := range extract.Extract(sessionDraft(by, mainLog, text)) {
				if c.Layer == memory.LayerInvariant {
					t.Errorf("%s %q made the A %s %q", by, text, c.Kind, c.Title)
				}
			}
		}
	}
	got := extract.Extract(memory.Draft{Actor: memory.ActorUser, Text: "To release the app:\n- run make dist\n- upload the tarball"})
	if len(got) != 1 || got[0].Class != extract.ClassProcedure {
		t.Errorf("a procedure with a subject: %q", titles(got))
	}
}

// TestDesignPropertyIsNoFailure: how a design means to fail is not a
// failure of the work.
func TestDesignPropertyIsNoFailure(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Graceful Degradation: span export fails silently when the collector is down.",
		"The cache lookup fails open, so a Redis outage only slows requests.",
	} {
		for _, c := range extract.Extract(memory.Draft{Actor: memory.ActorAgent, Text: text}) {
			if c.Class == extract.ClassFailure {
				t.Errorf("%q made the failure %q", text, c.Title)
			}
		}
	}
	if got := extract.Extract(memory.Draft{Actor: memory.ActorAgent, Text: "The export job fails with a timeout because the collector drops idle connections."}); len(got) != 1 || got[0].Class != extract.ClassFailure {
		t.Errorf("a real failure: %q", titles(got))
	}
}

// TestPromptTemplateIsNotThePersonsWords: a custom command's template that
// arrives as the person's message holds no preference of theirs.
func TestPromptTemplateIsNotThePersonsWords(t *testing.T) {
	t.Parallel()
	text := "## User Input\n\n```text\n\n```\n\nYou **MUST** consider the user input before proceeding.\n\n## Outline\n\n1. Run `setup.sh --json` from the repo root.\n\n## Rules\n\n- Always use absolute paths."
	if got := extract.Extract(sessionDraft(memory.ActorUser, mainLog, text)); len(got) > 0 {
		t.Errorf("a prompt template made %q", titles(got))
	}
}

// TestLessonNeedsAClaimAboutTheCheck: only a claim of success that a
// check of the same subject refuted right after teaches a lesson.
func TestLessonNeedsAClaimAboutTheCheck(t *testing.T) {
	t.Parallel()
	line := func(cmd, outcome, claim string) string {
		return "ran `" + cmd + "`: exit 1 — " + outcome + ", right after the agent said: \"" + claim + "\""
	}
	lessons := func(text string) []extract.Candidate {
		var out []extract.Candidate
		for _, c := range extract.Extract(sessionDraft(memory.ActorAgent, mainLog, text)) {
			if c.Class == extract.ClassLesson {
				out = append(out, c)
			}
		}
		return out
	}
	for _, text := range []string{
		line("mix test 2>&1", "2 failures", "Now let me run the tests."),
		line("mix credo --strict", "3 issues", "Good. Now let me run the quality checks:"),
		line("git push 2>&1", "no upstream branch", "All green: 65 tests, 0 failures. Now let me commit."),
		line("mix test", "The user doesn't want to proceed with this tool use. The tool use was rejected", "The fix works now."),
		line("npm run build", "exit 1", "Should be fixed?"),
		line("mix precommit", "failed to start Mix.PubSub", "The edits are in place. I'll run `mix precommit` now to validate compile, format, and tests."),
	} {
		if got := lessons(text); len(got) > 0 {
			t.Errorf("%q made the lesson %q", text, titles(got))
		}
	}
	for text, trigger := range map[string]string{
		line("mix test test/cart_test.exs", "1 failure", "Fixed — the cart tests pass now."):   "mix test test/cart_test.exs",
		line("cargo clippy -- -D warnings", "2 warnings", "Done, clippy is clean."):            "cargo clippy",
		line("./scripts/seed.sh --demo", "exit 2", "`scripts/seed.sh` works with --demo now."): "./scripts/seed.sh --demo",
	} {
		got := lessons(text)
		if len(got) != 1 {
			t.Errorf("%q made %q, want one lesson", text, titles(got))
			continue
		}
		if !slices.Contains(got[0].Triggers, trigger) {
			t.Errorf("%q: triggers %q, want %q", text, got[0].Triggers, trigger)
		}
	}
}

// TestTriggersAreSpecific: a trigger is an identifier, a path, a command
// with its argument or two content words, never one common word, a
// common flag alone or an everyday command alone.
func TestTriggersAreSpecific(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{"not", "table", "modify", "git push", "git add", "--strict", "-v", "tests", "don use"} {
		if extract.SpecificTrigger(tr) {
			t.Errorf("%q passes as a trigger", tr)
		}
	}
	for _, tr := range []string{"mix credo --strict", "go test -race", "git push --force-with-lease", "--no-verify", "store/db.go",
		"max_conns", "spotter-fum", "postgres", "token bucket", "npm ci"} {
		if !extract.SpecificTrigger(tr) {
			t.Errorf("%q is refused as a trigger", tr)
		}
	}
	// A failure whose subject is a common word alone names it with more.
	for _, c := range extract.Extract(memory.Draft{Actor: memory.ActorAgent, Text: "The table modify step fails because the lock is held by the migrator."}) {
		for _, tr := range c.Triggers {
			if !extract.SpecificTrigger(tr) {
				t.Errorf("failure %q has the trigger %q", c.Title, tr)
			}
		}
	}
}

// TestSessionLeavesWorkingNotesAndAHandful runs a pass over a session's
// drafts: the compaction run and a sub-agent's report make nothing, an
// unsure remark of the agent makes no proposal, at most MaxPerSession
// durable memories form, and each is dated when it was said.
func TestSessionLeavesWorkingNotesAndAHandful(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	said := time.Date(2026, 2, 11, 21, 30, 0, 0, time.UTC)
	dir := "/home/me/.claude/projects/-src-shop/"
	add := func(by memory.Actor, file, text string) {
		t.Helper()
		d := memory.Draft{Project: testProject.ID, Actor: by, Text: text, Time: said,
			Source: memory.Source{Actor: by, Session: "5e55-10n", File: dir + file, Line: 7}}
		d.ID = memory.NewID()
		if _, err := st.Ingest(ctx, memory.IngestBatch{Project: testProject.ID, Drafts: []memory.Draft{d}}); err != nil {
			t.Fatal(err)
		}
	}
	add(memory.ActorAgent, "5e55-10n/subagents/agent-acompact-7f1e.jsonl", "Summary:\n- The cart service uses Redis for sessions.\n- Current state: NOT YET COMMITTED.")
	add(memory.ActorAgent, "5e55-10n/subagents/agent-a81c2.jsonl", "The checkout module stores totals in cents.\nThe GenServer is minimal and holds no state.")
	add(memory.ActorAgent, "5e55-10n.jsonl", "This session is being continued from a previous conversation that ran out of context. The worker pool uses 8 workers.")
	add(memory.ActorAgent, "5e55-10n.jsonl", "Maybe the config is read twice at boot.")
	var many []string
	nouns := strings.Fields(`cart invoice ledger coupon refund basket parcel voucher tariff wallet receipt
		courier pallet rebate quota badge banner ticket bundle tax`)
	homes := strings.Fields(`redis sqlite postgres s3 ets mnesia kafka dets etcd consul nats minio clickhouse
		duckdb cassandra riak memcached couchdb neo4j influx`)
	for i := range 20 {
		many = append(many, "The "+nouns[i]+"_"+homes[i]+" module keeps "+nouns[(i+7)%20]+" records in "+homes[(i+3)%20]+".")
	}
	add(memory.ActorAgent, "5e55-10n.jsonl", strings.Join(many, "\n"))
	add(memory.ActorUser, "5e55-10n.jsonl", "Always run mix format before committing.")

	if _, err := Consolidate(ctx, st, testProject, Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := st.List(ctx, memory.Query{Project: testProject.ID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(page.Memories); n != MaxPerSession {
		t.Errorf("%d memories from one session, want %d", n, MaxPerSession)
	}
	var person bool
	for _, m := range page.Memories {
		for _, bad := range []string{"Redis", "cents", "GenServer", "worker pool", "twice"} {
			if strings.Contains(m.Title, bad) {
				t.Errorf("working notes became %q", m.Title)
			}
		}
		if !m.CreatedAt.Equal(said) || !m.ValidFrom.Equal(said) {
			t.Errorf("%q is dated created %s, valid from %s; said at %s", m.Title, m.CreatedAt, m.ValidFrom, said)
		}
		person = person || strings.Contains(m.Title, "mix format")
	}
	if !person {
		t.Error("the person's rule lost its place to the agent's facts")
	}
	if ps, err := st.Proposals(ctx, testProject.ID, ""); err != nil || len(ps) > 0 {
		t.Errorf("proposals %v (%v): an agent's unsure remark is no question for a person", len(ps), err)
	}
	// A second pass over more of the same session adds nothing: its budget
	// is spent.
	add(memory.ActorAgent, "5e55-10n.jsonl", "The billing service listens on port 8443.")
	if rep, err := Consolidate(ctx, st, testProject, Options{}); err != nil || rep.Counts[memory.ChangeCreate] != 0 {
		t.Errorf("a session past its budget: %v (%v)", rep.Counts, err)
	}
}

// TestTuningSplitWhereThere is the one test that reads real sessions: it
// runs only where /work/data/sessions holds them (see docs/consolidation.md, "What a
// session leaves"), and checks the bound on durable memories.
func TestTuningSplitWhereThere(t *testing.T) {
	dir := os.Getenv("CAIRN_SESSIONS")
	if dir == "" {
		dir = "/work/data/sessions"
	}
	if _, err := os.Stat(filepath.Join(dir, "marot__spotter")); err != nil {
		t.Skipf("no real sessions at %s (set CAIRN_SESSIONS to a copy of the public logs docs/consolidation.md names)", dir)
	}
	t.Log("real sessions found; the figures are measured with the cairn binary, see docs/consolidation.md")
}

// An agent's plan, schedule or roadmap says what is to be done, not what
// is so: its items, and a schedule's dated steps, are no memories; a fact
// the same answer states outside the plan still is one.
func TestAPlanIsNoFacts(t *testing.T) {
	answer := "The order book engine uses a lock-free ring buffer for incoming ticks.\n\n" +
		"## Build plan\n\n" +
		"- **July 11:** Implement the order book and the matching engine in `src/book.rs`.\n" +
		"- **July 12:** Add Pascal read-only L2 integration behind the `pascal` feature.\n" +
		"- `edgerunner live`: connect feeds and run paper execution.\n\n" +
		"Day 3: benchmark the hot path with `cargo bench`.\n"
	got := extract.Extract(sessionDraft(memory.ActorAgent, mainLog, answer))
	var kept []string
	for _, c := range got {
		kept = append(kept, c.Title)
	}
	if len(got) != 1 || !strings.Contains(got[0].Title, "lock-free ring buffer") {
		t.Fatalf("from an answer with a plan: %q", kept)
	}
}

// TestPastedOutputAndAnswersOfTheMomentAreNoMemories: what the person
// pasted from a program (a stack frame, a log line, a usage line, a failed
// assertion), an answer whose subject is in the question it answers ("I
// like option 2"), and the agent's change-log lines ("X was replaced with
// …") make no memory; a rule or preference with its subject does.
func TestPastedOutputAndAnswersOfTheMomentAreNoMemories(t *testing.T) {
	t.Parallel()
	type said struct {
		by   memory.Actor
		text string
	}
	for _, c := range []said{
		{memory.ActorUser, "github.com/acme/cli/internal/flow.(*Step).Run(0x200911512c00, {0x10390a700, 0x2009113bdce0})"},
		{memory.ActorUser, "May 29 14:54:52.231 ERR api/config.go:102 invalid api configuration fatal=\"callback secret is required\""},
		{memory.ActorUser, "--ops-address The address to listen on for the ops server (env $OPS_ADDRESS)"},
		{memory.ActorUser, "XCTUnwrap failed: expected non-nil value of type \"URL\""},
		{memory.ActorUser, "I like option 2 to avoid another endpoint."},
		{memory.ActorUser, "I like two function approach."},
		{memory.ActorUser, "I don't like any approach."},
		{memory.ActorUser, "Do not do this explicitly (eg, `touch`) OR implicitly (eg, `npm i -g`)"},
		{memory.ActorAgent, "The old flat API was replaced with a domain layout under `Sources/Client/RestClient.swift`."},
		{memory.ActorAgent, "The test suite was reorganized around the new public surface."},
		{memory.ActorAgent, "The feature task ledger is fully checked off in `specs/001/tasks.md`."},
		{memory.ActorUser, "12 | >>> RUN go install github.com/acme/protoc-gen-x@v0.2.3"},
		{memory.ActorUser, "Don't make any changes yet."},
		{memory.ActorAgent, "[High] Validation deploys to production before the dev check."},
		{memory.ActorAgent, "Wait, that won't work because you can't destructure the same property twice."},
		{memory.ActorAgent, "The CSS looks fine."},
		{memory.ActorAgent, "are used by `mix ash_postgres.generate_migrations` to diff the resources."},
		{memory.ActorAgent, "Plan and documentation updates are in `docs/EXECPLAN.md` and `docs/README.md`."},
		{memory.ActorUser, "Alter the user resource to use an object id with prefix \"usr\" as primary key."},
		{memory.ActorAgent, "New ads handlers and status helpers live in `src/handlers/ads.ts`, with routing in `src/worker.ts`."},
		{memory.ActorAgent, "✅ **User edits never lost** - Local changes always win"},
	} {
		if got := extract.Extract(sessionDraft(c.by, mainLog, c.text)); len(got) > 0 {
			t.Errorf("%q made %q", c.text, titles(got))
		}
	}
	for _, c := range []said{
		{memory.ActorUser, "Do NOT modify my filesystem outside of /per/dev/shop."},
		{memory.ActorUser, "I like the names bootstrap, backfill and delta for the three sync steps."},
		{memory.ActorUser, "Use nix flakes to manage dependencies and dev shells, so that we get reproducibility by default."},
		{memory.ActorUser, "I prefer the functional way of writing request handlers, no classes."},
		{memory.ActorUser, "Wait, deploys must go through staging first."},
		{memory.ActorUser, "No secrets in the repository, ever; for now they live in the team vault."},
		{memory.ActorAgent, "The pre-commit hook runs dialyzer and cannot be skipped with --no-verify."},
	} {
		if got := extract.Extract(sessionDraft(c.by, mainLog, c.text)); len(got) != 1 {
			t.Errorf("%q made %q, want one memory", c.text, titles(got))
		}
	}
}
