package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/consolidate"
	"cairn/memory"
	"cairn/project"
	"cairn/store"
)

// withStore opens the cairn home's store directly (no command may be
// running) in the project of the working directory, for what the command
// line cannot do: write as an agent.
func withStore(t *testing.T, e *env, fn func(st memory.Store, p memory.Project)) {
	t.Helper()
	st, err := store.Open(filepath.Join(e.home, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := project.Detect(e.wd)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = st.EnsureProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	fn(st, p)
}

// runEnv runs cairn with extra environment variables.
func (e *env) runEnv(vars map[string]string, args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "CAIRN_HOME" {
				return e.home
			}
			return vars[k]
		},
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return false },
	})
	return result{out.String(), errb.String(), code}
}

// state is what a consolidation may change, as a user reads it: every
// memory with its links, every draft, and the open proposals. Salience is
// left out: reading is no change.
func (e *env) state() string {
	e.t.Helper()
	var rs []memory.Record
	if err := json.Unmarshal([]byte(e.ok("list", "--status", "all", "--limit", "1000", "--json")), &rs); err != nil {
		e.t.Fatal(err)
	}
	slices.SortFunc(rs, func(a, b memory.Record) int { return strings.Compare(a.ID, b.ID) })
	for i := range rs {
		rs[i].Salience = memory.Salience{}
	}
	b, _ := json.Marshal(rs)
	return string(b) + "\n" + e.ok("inbox", "--all", "--json")
}

var runLine = regexp.MustCompile(`(?m)^run ([0-9A-Z]{26}): (.*) — undo with: cairn consolidate --undo ([0-9A-Z]{26})$`)

// lineWith is the index of the first line holding every one of parts, or -1.
func lineWith(lines []string, parts ...string) int {
	for i, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return i
		}
	}
	return -1
}

// TestConsolidateMorning is the "done means" through the command
// line: a morning of notes and corrections over an agent's guess and a
// decision resting on a measurement; a dry run that writes nothing, a run
// whose report lists every change grouped by kind, a second run with
// nothing to do, and an undo that brings back the memories and the drafts.
func TestConsolidateMorning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.wd, "deploy"), 0o755)
	os.WriteFile(filepath.Join(e.wd, "deploy", "pipeline.yml"), []byte("stages: [build, ship]\n"), 0o644)

	var argo *memory.Memory
	withStore(t, e, func(st memory.Store, p memory.Project) {
		var err error
		argo, err = st.Remember(context.Background(), &memory.Memory{Project: p.ID, Layer: memory.LayerState,
			Body: "Deploys go through ArgoCD.", Provenance: memory.ProvExtracted}, memory.ActorAgent)
		if err != nil {
			t.Fatal(err)
		}
	})
	evidence := e.rec("remember", "Load test: the token bucket holds 5000 rps.", "--layer", "C", "--kind", "event", "--provenance", "measured")
	decision := e.rec("remember", "Rate limiting uses a token bucket, because the load test showed it holds the traffic.", "--layer", "D", "--kind", "decision")
	e.ok("link", decision.ID, "evidence", evidence.ID)

	notes := []string{
		"No, actually deploys go through Spinnaker, not ArgoCD.",
		"ok, thanks",
		"I prefer table-driven tests for parsers.",
		"Load test: the token bucket holds 3000 rps.",
		"We decided to keep the event log in Postgres because it already runs in production.",
		"The Alpine build failed because musl lacks the sqlite symbols.",
		"The deploy pipeline is defined in deploy/pipeline.yml.",
		"let me look at the logs",
	}
	for _, n := range notes {
		e.ok("capture", n)
	}
	before := e.state()
	timeline := e.ok("timeline", "--json", "--limit", "1000")

	// A dry run reports and writes nothing.
	r := e.run("", "consolidate", "--dry-run")
	if r.code != 0 {
		t.Fatalf("consolidate --dry-run: exit %d: %s", r.code, r.err)
	}
	dry := r.out
	t.Logf("dry run:\n%s", dry)
	if !strings.HasPrefix(dry, "dry run: nothing was written\n") || !strings.Contains(dry, "would make: ") || strings.Contains(dry, "undo with") {
		t.Errorf("the dry run's report:\n%s", dry)
	}
	if r.err != "" {
		t.Errorf("stderr is not a terminal, yet the pass wrote to it: %q", r.err)
	}
	if e.state() != before {
		t.Fatal("a dry run changed the memories or the drafts")
	}
	if tl := e.ok("timeline", "--json", "--limit", "1000"); tl != timeline {
		t.Fatalf("a dry run wrote on the timeline:\n%s", tl)
	}
	var dryRep consolidate.Report
	if err := json.Unmarshal([]byte(e.ok("consolidate", "--dry-run", "--json")), &dryRep); err != nil {
		t.Fatal(err)
	}
	if !dryRep.DryRun || dryRep.Run.ID != "" || len(dryRep.Run.Changes) == 0 || dryRep.Drafts != len(notes) {
		t.Fatalf("consolidate --dry-run --json: %+v", dryRep)
	}

	// The pass itself.
	out := e.ok("consolidate")
	t.Logf("consolidate:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	m := runLine.FindStringSubmatch(out)
	if m == nil || m[1] != m[3] {
		t.Fatalf("no summary line naming the run and its undo:\n%s", out)
	}
	runID := m[1]
	for _, want := range []string{"new", "superseded", "lesson", "reopened"} {
		if !strings.Contains(m[2], want) {
			t.Errorf("the summary %q does not count %q", m[2], want)
		}
	}
	// One line per change, grouped: corrections, then what is new, then
	// lessons, then decisions to look at again.
	sup := lineWith(lines, "superseded", "ArgoCD", "Spinnaker")
	pref := lineWith(lines, "new", "table-driven")
	lesson := lineWith(lines, "lesson")
	reopened := lineWith(lines, "reopened", "Rate limiting")
	if sup < 0 || pref < 0 || lesson < 0 || reopened < 0 {
		t.Fatalf("the report lacks a change (superseded %d, new %d, lesson %d, reopened %d):\n%s", sup, pref, lesson, reopened, out)
	}
	if sup >= pref || pref >= lesson || lesson >= reopened {
		t.Errorf("the report is not grouped superseded, new, lessons, reopened:\n%s", out)
	}
	// The reason names memories by title, never by bare id.
	if !strings.Contains(lines[reopened], "5000 rps") || regexp.MustCompile(`\b[0-9A-Z]{26}\b`).MatchString(lines[reopened]) {
		t.Errorf("the reopened line does not say in words what changed: %q", lines[reopened])
	}
	if lineWith(lines, "thanks") >= 0 || lineWith(lines, "look at the logs") >= 0 {
		t.Errorf("chatter became a memory:\n%s", out)
	}
	assertInert(t, "the report", out)

	// What the store holds now.
	if got := e.rec("show", argo.ID); got.Status != memory.StatusSuperseded {
		t.Errorf("the agent's guess is %s, want superseded", got.Status)
	}
	var spin *memory.Record
	for _, rec := range e.list("--limit", "1000") {
		if strings.Contains(rec.Body, "Spinnaker") {
			spin = &rec
		}
	}
	if spin == nil || spin.Provenance != memory.ProvUserCorrected || !slices.Contains(spin.Supersedes, argo.ID) {
		t.Errorf("the correction is not the guess's successor: %+v", spin)
	}
	if fs := e.list("--layer", "F"); len(fs) != 1 || fs[0].Kind != memory.KindLesson || !strings.Contains(fs[0].Body+fs[0].Title, "ArgoCD") {
		t.Errorf("lessons in F: %+v", fs)
	}
	if es := e.list("--layer", "E"); len(es) != 1 || es[0].Kind != memory.KindNegative || !strings.Contains(es[0].Body, "Alpine") || len(es[0].Triggers) == 0 {
		t.Errorf("the failure is not a negative in E with triggers: %+v", es)
	}
	if ds := e.list("--layer", "D"); !slices.ContainsFunc(ds, func(r memory.Record) bool {
		return r.Kind == memory.KindDecision && strings.Contains(r.Body, "Postgres") && strings.Contains(r.Body, "because")
	}) {
		t.Errorf("the decision with its because is not in D: %+v", ds)
	}
	if d := e.rec("show", decision.ID); d.ReopenedAt == nil || d.Trust >= 0.5 {
		t.Errorf("the decision whose evidence was superseded keeps trust %.2f (reopened %v)", d.Trust, d.ReopenedAt)
	}
	if q := e.ok("verify"); !strings.Contains(q, decision.ID) || !strings.Contains(q, "5000 rps") {
		t.Errorf("the reopened decision is not in the verify-first queue with its reason:\n%s", q)
	}
	var bound bool
	for _, rec := range e.list("--limit", "1000") {
		if strings.Contains(rec.Body, "deploy/pipeline.yml") {
			bound = len(rec.Watermarks) == 1 && rec.Watermarks[0].Kind == memory.WatermarkFile && rec.Watermarks[0].Target == "deploy/pipeline.yml"
		}
	}
	if !bound {
		t.Error("the new fact naming deploy/pipeline.yml was not bound to the file")
	}
	var inbox struct {
		Drafts []memory.Draft `json:"drafts"`
	}
	json.Unmarshal([]byte(e.ok("inbox", "--json")), &inbox)
	if len(inbox.Drafts) != 0 {
		t.Errorf("%d drafts still wait after the pass", len(inbox.Drafts))
	}
	json.Unmarshal([]byte(e.ok("inbox", "--all", "--json")), &inbox)
	for _, d := range inbox.Drafts {
		if d.Done != runID {
			t.Errorf("draft %s is done by %q, want the run %s", d.ID, d.Done, runID)
		}
	}
	if all := e.ok("inbox", "--all"); strings.Count(all, "[done by run "+runID+"]") != len(notes) {
		t.Errorf("inbox --all does not mark the consolidated drafts:\n%s", all)
	}
	var evs []memory.Event
	json.Unmarshal([]byte(e.ok("timeline", "--json", "--limit", "1000")), &evs)
	if !slices.ContainsFunc(evs, func(ev memory.Event) bool {
		return ev.Kind == memory.EventConsolidate && ev.Actor == memory.ActorSystem && strings.Contains(ev.Summary, runID)
	}) {
		t.Error("no consolidate event by system naming the run on the timeline")
	}

	// Twice changes nothing.
	after := e.state()
	if again := e.ok("consolidate"); !strings.HasPrefix(again, "nothing to consolidate") {
		t.Errorf("the second pass:\n%s", again)
	}
	if e.state() != after {
		t.Error("the second pass changed the store")
	}

	// The runs, then the undo.
	if runs := e.ok("consolidate", "--runs"); !strings.HasPrefix(runs, runID+"  ") || strings.Contains(runs, "undone") {
		t.Errorf("consolidate --runs:\n%s", runs)
	}
	undo := e.ok("consolidate", "--undo", strings.ToLower(runID[:12]))
	t.Logf("undo:\n%s", undo)
	if !regexp.MustCompile(`^undid run ` + runID + `: \d+ changes taken back, ` + regexp.QuoteMeta(plural(len(notes), "draft waits", "drafts wait")) + ` again\n`).MatchString(undo) {
		t.Errorf("undo output:\n%s", undo)
	}
	if got := e.state(); got != before {
		t.Errorf("the undo did not restore the memories and drafts:\nbefore %s\nafter  %s", before, got)
	}
	var runs []memory.Run
	json.Unmarshal([]byte(e.ok("consolidate", "--runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].ID != runID || runs[0].UndoneAt.IsZero() || len(runs[0].Changes) == 0 {
		t.Errorf("consolidate --runs --json after the undo: %+v", runs)
	}
	if text := e.ok("consolidate", "--runs"); !strings.Contains(text, "[undone ") {
		t.Errorf("--runs does not say the run was undone:\n%s", text)
	}
	if r := e.run("", "consolidate", "--undo", runID); r.code == 0 || !strings.Contains(r.err, "already undone") {
		t.Errorf("undoing twice: %+v", r)
	}
}

// TestConsolidateMisuse: bad flags and ids are one line each, with what
// to do, and leave the store as it was.
func TestConsolidateMisuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("capture", "I prefer table-driven tests for parsers.")
	before := e.state()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"consolidate", "--undo", "01J0", "--dry-run"}, 2, "cannot be combined"},
		{[]string{"consolidate", "--runs", "--dry-run"}, 2, "--runs"},
		{[]string{"consolidate", "--undo="}, 2, "needs a run id"},
		{[]string{"consolidate", "--undo", "ZZZZZZZZ"}, 1, "consolidate --runs"},
		{[]string{"consolidate", "--runs", "--limit", "0"}, 2, "--limit"},
		{[]string{"consolidate", "extra"}, 2, "unknown command"},
	} {
		r := e.run("", c.args...)
		if r.code != c.code {
			t.Errorf("cairn %q: exit %d, want %d (%s)", c.args, r.code, c.code, r.err)
		}
		refused(t, r, c.args, c.want)
	}
	if e.state() != before {
		t.Error("a refused command changed the store")
	}
	if out := e.ok("consolidate", "--runs"); !strings.Contains(out, "no consolidation runs") {
		t.Errorf("--runs on a project without runs:\n%s", out)
	}
}

// TestConsolidateLanguageModelMisconfigured: a model endpoint that cannot
// be used stops the pass with one line that names the variable, before
// anything is written.
func TestConsolidateLanguageModelMisconfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("capture", "I prefer table-driven tests for parsers.")
	before := e.state()
	for _, vars := range []map[string]string{
		{"CAIRN_LLM_URL": "ftp://127.0.0.1/v1", "CAIRN_LLM_MODEL": "m"},
		{"CAIRN_LLM_URL": "http://127.0.0.1:1/v1"},
	} {
		r := e.runEnv(vars, "consolidate")
		refused(t, r, []string{"consolidate"}, "CAIRN_LLM_")
	}
	if e.state() != before {
		t.Error("a pass refused for its configuration changed the store")
	}
}

// TestConsolidateProgressStaysOffPipes: with stderr a file (a pipe, a log)
// the pass writes no progress line there.
func TestConsolidateProgressStaysOffPipes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("capture", "I prefer table-driven tests for parsers.")
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	code := Main(Env{
		Args: []string{"consolidate"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: f,
		Getenv: func(k string) string {
			if k == "CAIRN_HOME" {
				return e.home
			}
			return ""
		},
		Getwd:      func() (string, error) { return e.wd, nil },
		IsTerminal: func() bool { return false },
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if b, _ := os.ReadFile(f.Name()); len(b) != 0 {
		t.Errorf("stderr, a file, got %q", b)
	}
	if !runLine.MatchString(out.String()) {
		t.Errorf("report:\n%s", out.String())
	}
}

// TestProgressLine: on a terminal the progress is one line rewritten in
// place (carriage return, erase to the end), not drawn more often than a
// tick within a stage, always on a new stage and at the end of one, and
// erased before the report.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	p := newProgressLine(&b)
	p.now = func() time.Time { return now }
	p.show(consolidate.Progress{Stage: "reading"})
	for i := range 400 {
		p.show(consolidate.Progress{Stage: "extracting", Done: i, Total: 400})
		now = now.Add(time.Millisecond)
	}
	p.show(consolidate.Progress{Stage: "extracting", Done: 400, Total: 400})
	p.clear()
	got := strings.Split(b.String(), "\r")[1:]
	want := []string{"consolidating: reading\x1b[K", "consolidating: extracting 0/400\x1b[K"}
	for ms := 100; ms < 400; ms += 100 {
		want = append(want, fmt.Sprintf("consolidating: extracting %d/400\x1b[K", ms))
	}
	want = append(want, "consolidating: extracting 400/400\x1b[K", "\x1b[K")
	if !slices.Equal(got, want) {
		t.Errorf("progress writes:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(b.String(), "\n") {
		t.Error("the progress line is not rewritten in place")
	}
	b.Reset()
	p.clear()
	if b.Len() != 0 {
		t.Errorf("clearing twice wrote %q", b.String())
	}
}

// TestConsolidateProgressOnATerminal runs the pass in a real process whose
// stderr is a terminal (a pseudo-terminal from script(1)): the progress is
// one line rewritten in place and erased before the report.
func TestConsolidateProgressOnATerminal(t *testing.T) {
	t.Parallel()
	if os.Getenv("CAIRN_TEST_CHILD") == "consolidate" {
		os.Exit(Main(Env{Args: []string{"consolidate"}, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			Getenv: os.Getenv, Getwd: os.Getwd, IsTerminal: func() bool { return false }}))
	}
	script, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("script(1) (util-linux) is needed for the terminal test and is not installed")
		}
		t.Skip("script(1) from util-linux is not installed: the terminal test needs it for a pseudo-terminal")
	}
	e := newEnv(t)
	for _, n := range []string{"I prefer table-driven tests for parsers.", "We deploy on Tuesdays."} {
		e.ok("capture", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", os.Args[0]+" -test.run=^TestConsolidateProgressOnATerminal$", "/dev/null")
	cmd.Dir = e.wd
	cmd.Env = append(os.Environ(), "CAIRN_TEST_CHILD=consolidate", "CAIRN_HOME="+e.home, "CAIRN_LLM_URL=",
		"HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("consolidate on a terminal: %v\n%q", err, out)
	}
	s := string(out)
	first := strings.Index(s, "\rconsolidating: ")
	erase := strings.LastIndex(s, "\r\x1b[K")
	report := strings.Index(s, "run ")
	if first < 0 || erase < first || report < erase {
		t.Fatalf("no progress line, or not erased before the report:\n%q", s)
	}
	if strings.Contains(s[first:erase], "\n") {
		t.Errorf("the progress line is not rewritten in place:\n%q", s[first:erase])
	}
	for _, stage := range []string{"reading", "extracting 2/2", "reconciling", "writing"} {
		if !strings.Contains(s[first:erase], "consolidating: "+stage) {
			t.Errorf("the progress line never showed %q:\n%q", stage, s[first:erase])
		}
	}
	if !runLine.MatchString(strings.ReplaceAll(s[report:], "\r\n", "\n")) {
		t.Errorf("the report after the progress:\n%q", s[report:])
	}
}

// TestImportReinforcesKnownFacts: an imported record that says a known
// fact again in other words reinforces the memory instead of copying it,
// and the import says so.
func TestImportReinforcesKnownFacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	known := e.rec("remember", "We deploy on Tuesdays.")
	path := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(path, []byte(`{"layer":"B","body":"we deploy on tuesdays"}`+"\n"+`{"layer":"A","body":"Never push directly to main."}`+"\n"), 0o644)
	out := e.ok("import", path)
	if !strings.Contains(out, "1 added") || !strings.Contains(out, "1 unchanged (1 said again: reinforced)") {
		t.Errorf("import output:\n%s", out)
	}
	if got := e.rec("show", known.ID); got.Salience.Reinforcements != 1 || got.Version != known.Version {
		t.Errorf("the known fact: %d reinforcements, version %d", got.Salience.Reinforcements, got.Version)
	}
	if n := len(e.list()); n != 2 {
		t.Errorf("%d memories after importing one known and one new fact, want 2", n)
	}
	var res memory.ImportResult
	os.WriteFile(path, []byte(`{"layer":"B","body":"We deploy on tuesdays!"}`+"\n"), 0o644)
	if err := json.Unmarshal([]byte(e.ok("import", path, "--json")), &res); err != nil || res.Reinforced != 1 || res.Added != 0 {
		t.Errorf("import --json: %v %+v", err, res)
	}
}

// A consolidation that turns drafts into a memory answering a gap closes
// the gap and says so; a dry run closes nothing.
func TestConsolidateClosesAnsweredGaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "Deploys go through ArgoCD", "-l", "B")
	if out := e.ok("recall", "where does the staging database live"); !strings.Contains(out, "nothing known") {
		t.Fatalf("recall: %q", out)
	}
	e.ok("capture", "The staging database lives on db-staging-2 in the eu-west region.")
	e.ok("consolidate", "--dry-run") // what it would write is not stored: no recall finds it yet
	if out := e.ok("gaps"); !strings.Contains(out, "staging database") {
		t.Fatalf("a dry run closed the gap: %q", out)
	}
	out := e.ok("consolidate")
	if !strings.Contains(out, `closed the gap "where does the staging database live"`) {
		t.Fatalf("consolidate: %q", out)
	}
	if out := e.ok("gaps"); !strings.Contains(out, "no gaps") {
		t.Fatalf("after consolidate: %q", out)
	}
}
