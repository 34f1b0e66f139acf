package consolidate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"cairn/consolidate/extract"
	"cairn/memory"
	"cairn/store"
)

// guess is what an agent wrote down without checking; correction is what
// the user said when they set it right.
func guess(text string) *memory.Memory {
	m := stated(text)
	m.Provenance = memory.ProvExtracted
	m.Source = memory.Source{Actor: memory.ActorAgent, Session: "s-41", File: "notes/deploy.md", Line: 12}
	m.ValidFrom = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	return m
}

func correction(text string) *memory.Memory {
	m := stated(text)
	m.Provenance = memory.ProvUserCorrected
	m.Source = memory.Source{Actor: memory.ActorUser, Session: "s-42"}
	m.ValidFrom = time.Date(2026, 3, 7, 16, 0, 0, 0, time.UTC)
	return m
}

// vague phrases a lesson must never settle for.
var vaguePhrases = []string{"be more careful", "double-check", "pay attention", "be careful"}

// checkLessonShape asserts what every lesson is: a valid F-layer lesson
// with one short title line, at most four specific triggers, nothing vague.
func checkLessonShape(t *testing.T, l *memory.Memory, right *memory.Memory) {
	t.Helper()
	if l == nil {
		t.Fatal("no lesson")
	}
	if l.Layer != memory.LayerMeta || l.Kind != memory.KindLesson || l.Provenance != right.Provenance {
		t.Errorf("lesson is %s/%s/%s, want meta/lesson/%s", l.Layer, l.Kind, l.Provenance, right.Provenance)
	}
	if !slices.Equal(l.Tags, []string{"lesson"}) {
		t.Errorf("tags %v", l.Tags)
	}
	if n := utf8.RuneCountInString(l.Title); n > 120 || strings.ContainsAny(l.Title, "\n\r") || n == 0 {
		t.Errorf("title of %d runes, or not one line: %q", n, l.Title)
	}
	// A trigger brings the lesson into a prompt: none at all is better
	// than a word every task says.
	if n := len(l.Triggers); n > 4 {
		t.Errorf("%d triggers %q, want at most 4", n, l.Triggers)
	}
	for _, tr := range l.Triggers {
		if !extract.SpecificTrigger(tr) {
			t.Errorf("trigger %q is too common", tr)
		}
	}
	if err := l.Validate(); err != nil {
		t.Errorf("the lesson is not a valid memory: %v", err)
	}
	for _, v := range vaguePhrases {
		if strings.Contains(strings.ToLower(l.Text()), v) {
			t.Errorf("vague lesson (%q): %s", v, l.Text())
		}
	}
	if !strings.Contains(l.Body, "Next time") {
		t.Errorf("the lesson says nothing about next time:\n%s", l.Body)
	}
}

func TestLessonIsSpecific(t *testing.T) {
	t.Parallel()
	wrong := guess("Deploys go through ArgoCD.")
	right := correction("Deploys go through Spinnaker, not ArgoCD.")
	right.Watermarks = []memory.Watermark{{Kind: memory.WatermarkFile, Target: "deploy/pipeline.yaml", State: memory.WatermarkIntact}}
	c, ok := Contradicts(wrong, right)
	if !ok {
		t.Fatal("no contradiction")
	}
	l := Lesson(wrong, right, c)
	checkLessonShape(t, l, right)
	if want := "Deploys go through: ArgoCD was wrong, Spinnaker is right — check deploy/pipeline.yaml"; l.Title != want {
		t.Errorf("title %q\nwant  %q", l.Title, want)
	}
	for _, want := range []string{
		// what was claimed, by whom, where and when
		"Claimed: “Deploys go through ArgoCD.”", "extracted by an agent", "session s-41", "notes/deploy.md:12", "2026-03-01",
		// what was true, who said it, when
		"True: “Deploys go through Spinnaker, not ArgoCD.”", "corrected by the user", "2026-03-07",
		// what changed and what to check
		"deploys go through: ArgoCD → Spinnaker", "read deploy/pipeline.yaml",
	} {
		if !strings.Contains(l.Body, want) {
			t.Errorf("the lesson does not say %q:\n%s", want, l.Body)
		}
	}
	if !slices.Contains(l.Triggers, "deploy") || !slices.Contains(l.Triggers, "argocd") {
		t.Errorf("triggers %q: want the subject and the wrong value", l.Triggers)
	}
	if l.Project != right.Project || l.Status != memory.StatusActive || l.Source.Actor != memory.ActorSystem {
		t.Errorf("project %q status %q actor %q", l.Project, l.Status, l.Source.Actor)
	}
}

// TestLessonChecks: what to check comes from right's bindings, then
// wrong's, then what the texts name; the fallback only when there is
// nothing.
func TestLessonChecks(t *testing.T) {
	t.Parallel()
	file := func(p string) memory.Watermark {
		return memory.Watermark{Kind: memory.WatermarkFile, Target: p, State: memory.WatermarkIntact}
	}
	for _, c := range []struct {
		name         string
		wrong, right string
		wrongMarks   []memory.Watermark
		rightMarks   []memory.Watermark
		title        string   // the title's check
		says         []string // in the body, in this order
	}{
		{
			name:  "right's binding first",
			wrong: "The API listens on port 8080.", right: "The API listens on port 9090.",
			wrongMarks: []memory.Watermark{file("docs/api.md")}, rightMarks: []memory.Watermark{file("cmd/api/main.go")},
			title: "— check cmd/api/main.go", says: []string{"read cmd/api/main.go", "read docs/api.md"},
		},
		{
			name:  "a directory's history",
			wrong: "Deploys go through ArgoCD.", right: "Deploys go through Spinnaker, not ArgoCD.",
			rightMarks: []memory.Watermark{{Kind: memory.WatermarkGit, Target: "deploy/", State: memory.WatermarkIntact}},
			title:      "— check `git log -1 -- deploy/`", says: []string{"run `git log -1 -- deploy/` to see when it last changed"},
		},
		{
			name:  "a flag",
			wrong: "The cache is enabled in prod.", right: "The cache is disabled in prod.",
			rightMarks: []memory.Watermark{{Kind: memory.WatermarkFlag, Target: "CACHE_ENABLED", State: memory.WatermarkIntact}},
			title:      "— check CACHE_ENABLED", says: []string{"check the value of CACHE_ENABLED"},
		},
		{
			name:  "named in the text",
			wrong: "The config lives in config/app.yaml.", right: "The config lives in etc/app.toml; see `make config` and --config-dir.",
			title: "— check etc/app.toml", says: []string{"read etc/app.toml", "run `make config`", "check how --config-dir is set"},
		},
		{
			name:  "a variable and a commit in the wrong text",
			wrong: "p99 latency is 41 ms.\n\nMeasured with LOG_LEVEL=debug at 3f9e2ab.", right: "p99 latency is 38 ms.",
			title: "— check LOG_LEVEL", says: []string{"check the value of LOG_LEVEL", "run `git show 3f9e2ab`"},
		},
		{
			name:  "bindings before text",
			wrong: "The config lives in config/app.yaml.", right: "The config lives in etc/app.toml.",
			wrongMarks: []memory.Watermark{file("config/app.yaml")},
			title:      "— check config/app.yaml", says: []string{"read config/app.yaml", "read etc/app.toml"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			wrong, right := guess(c.wrong), correction(c.right)
			wrong.Watermarks, right.Watermarks = c.wrongMarks, c.rightMarks
			conflict, ok := Contradicts(wrong, right)
			if !ok {
				t.Fatalf("%q / %q: no contradiction", c.wrong, c.right)
			}
			l := Lesson(wrong, right, conflict)
			checkLessonShape(t, l, right)
			if !strings.HasSuffix(l.Title, c.title) {
				t.Errorf("title %q does not end with %q", l.Title, c.title)
			}
			at := 0
			for _, s := range c.says {
				i := strings.Index(l.Body[at:], s)
				if i < 0 {
					t.Fatalf("the lesson does not say %q (after byte %d):\n%s", s, at, l.Body)
				}
				at += i + len(s)
			}
			if strings.Contains(l.Body, "confirm") {
				t.Errorf("the fallback was used although there was something to check:\n%s", l.Body)
			}
		})
	}
}

// TestLessonFallsBackToConfirming: with nothing to check, the lesson says
// to confirm the subject with the user or the source — still specific.
func TestLessonFallsBackToConfirming(t *testing.T) {
	t.Parallel()
	wrong, right := guess("The team uses Postgres for sessions."), correction("The team uses Redis for sessions.")
	c, ok := Contradicts(wrong, right)
	if !ok {
		t.Fatal("no contradiction")
	}
	l := Lesson(wrong, right, c)
	checkLessonShape(t, l, right)
	if want := "Next time: confirm team uses … for sessions with the user or the source before stating it as current."; !strings.Contains(l.Body, want) {
		t.Errorf("body lacks %q:\n%s", want, l.Body)
	}
	if want := "Team uses … for sessions: Postgres was wrong, Redis is right — confirm before stating it as current"; l.Title != want {
		t.Errorf("title %q\nwant  %q", l.Title, want)
	}
	if !slices.Contains(l.Triggers, "team") || !slices.Contains(l.Triggers, "postgres") {
		t.Errorf("triggers %q", l.Triggers)
	}
}

// TestLessonOnlyForCorrectedSecondhandFacts: an ordinary update of state
// teaches nothing; only a secondhand fact set right by the user or a
// measurement does.
func TestLessonOnlyForCorrectedSecondhandFacts(t *testing.T) {
	t.Parallel()
	c := Conflict{Subject: "p99 latency", Old: "41 ms", New: "38 ms", How: "number"}
	for _, wp := range memory.Provenances {
		for _, rp := range memory.Provenances {
			wrong, right := guess("p99 latency is 41 ms."), correction("p99 latency is 38 ms.")
			wrong.Provenance, right.Provenance = wp, rp
			l := Lesson(wrong, right, c)
			want := wp.Secondhand() && (rp == memory.ProvUserCorrected || rp == memory.ProvMeasured)
			if (l != nil) != want {
				t.Errorf("%s corrected by %s: lesson %v, want %v", wp, rp, l != nil, want)
			}
			if l != nil {
				checkLessonShape(t, l, right)
			}
		}
	}
	if Lesson(nil, correction("x"), c) != nil || Lesson(guess("x"), nil, c) != nil {
		t.Error("a lesson from nothing")
	}

	wrong, right := guess("p99 latency is 41 ms."), correction("p99 latency is 38 ms.")
	wrong.Provenance = memory.ProvObserved
	right.Provenance, right.Source = memory.ProvMeasured, memory.Source{Actor: memory.ActorAgent, Session: "bench-7"}
	l := Lesson(wrong, right, c)
	for _, want := range []string{"observed by an agent", "measured by an agent, session bench-7, 2026-03-07", "observed once"} {
		if !strings.Contains(l.Body, want) {
			t.Errorf("the lesson does not say %q:\n%s", want, l.Body)
		}
	}
}

// TestLessonFromEveryContradiction: each kind of contradiction reconcile
// finds makes a well-formed lesson that names both values.
func TestLessonFromEveryContradiction(t *testing.T) {
	t.Parallel()
	for _, cc := range contradictions {
		wrong, right := guess(cc.older), correction(cc.newer)
		c, ok := Contradicts(wrong, right)
		if !ok {
			continue // TestContradictsFindsChangedValues reports it
		}
		l := Lesson(wrong, right, c)
		checkLessonShape(t, l, right)
		if !strings.Contains(l.Body, c.Old+" → "+c.New) {
			t.Errorf("%q → %q: the body does not show %q → %q:\n%s", cc.older, cc.newer, c.Old, c.New, l.Body)
		}
	}
}

// TestLessonIsSafeAndShort: control characters, long values and an empty
// conflict still make one clean line under 120 runes and a valid memory.
func TestLessonIsSafeAndShort(t *testing.T) {
	t.Parallel()
	wrong := guess("The build \x1b[31mcommand\x1b[0m is `make build`.\nMore text.")
	wrong.Title = "The build \x1b[31mcommand\x1b[0m is `make build`"
	right := correction(strings.Repeat("The build command is a very long pipeline of steps ", 6) + "`./scripts/build-everything-for-release.sh`.")
	for _, c := range []Conflict{
		{},
		{Subject: "build\ncommand", Old: "`make build`", New: strings.Repeat("x", 300), How: "value"},
		{Subject: strings.Repeat("subject ", 40), Old: "a\x07b", New: "c", How: "value"},
	} {
		l := Lesson(wrong, right, c)
		checkLessonShape(t, l, right)
		if strings.ContainsRune(l.Title, '\x1b') || strings.ContainsRune(l.Body, '\x1b') || strings.ContainsRune(l.Title, '\x07') {
			t.Errorf("a control character reached the lesson: %q", l.Title)
		}
	}
}

// TestLessonIsStored: the lesson is accepted by a real store as it is
// (its scan for secrets, its checks) and reads back the same.
func TestLessonIsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p := memory.Project{ID: "00000000000000c1", Name: "lesson-test"}
	if _, err := db.EnsureProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	wrong := guess("Deploys go through ArgoCD; see `deploy/argo.yaml`.")
	right := correction("Deploys go through Spinnaker, not ArgoCD.")
	right.Watermarks = []memory.Watermark{{Kind: memory.WatermarkGit, Target: "deploy/", State: memory.WatermarkIntact}}
	c, ok := Contradicts(wrong, right)
	if !ok {
		t.Fatal("no contradiction")
	}
	l := Lesson(wrong, right, c)
	stored, err := db.Remember(ctx, l, memory.ActorAgent)
	if err != nil {
		t.Fatalf("the store refused the lesson: %v", err)
	}
	got, err := db.Get(ctx, stored.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != l.Title || got.Body != l.Body || !slices.Equal(got.Triggers, l.Triggers) || got.Layer != memory.LayerMeta || got.Kind != memory.KindLesson {
		t.Errorf("stored lesson differs:\n%+v\n%+v", got, l)
	}
	if !strings.Contains(got.Body, "run `git log -1 -- deploy/`") || !strings.Contains(got.Body, "read deploy/argo.yaml") {
		t.Errorf("checks missing:\n%s", got.Body)
	}
}
