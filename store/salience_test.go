package store

import (
	"errors"
	"strings"
	"testing"

	"cairn/memory"
)

// Accesses are written in batches: none is lost by closing the store, and
// counting one rewrites no version of the memory.
func TestTouchBatchedSurvivesClose(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	m := remember(t, db, memory.LayerState, "x", "recalled twice")
	for range 2 {
		if err := db.Touch(ctx, []string{m.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, dir)
	got, err := db.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Salience.AccessCount != 2 || len(got.Salience.Accesses) != 2 || got.Version != 1 {
		t.Fatalf("after close and reopen: %+v (version %d)", got.Salience, got.Version)
	}
}

func TestFeedbackKeptRefusesSecretsAndUnknownIDs(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	m := remember(t, db, memory.LayerState, "x", "the retry policy lives in store/import.go")
	if err := db.Feedback(ctx, m.ID, "where is the retry policy", true, memory.ActorAgent); err != nil {
		t.Fatal(err)
	}
	err := db.Feedback(ctx, m.ID, "token ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5", false, memory.ActorAgent)
	if !errors.Is(err, memory.ErrSecret) {
		t.Fatalf("a secret in the query: %v", err)
	}
	if err := db.Feedback(ctx, "01JD0000000000000000000ZZZ", "q", true, memory.ActorAgent); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	got, _ := db.Get(ctx, m.ID)
	if len(got.Salience.Feedback) != 1 || !got.Salience.Feedback[0].Helpful || got.Salience.Feedback[0].Query != "where is the retry policy" {
		t.Fatalf("feedback: %+v", got.Salience.Feedback)
	}
	if memory.Trust(got) != memory.Trust(m) || got.Version != 1 {
		t.Fatalf("feedback changed trust or made a version: %+v", got)
	}
}

func TestGapsCountRedactAndDrop(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	for _, q := range []string{"kubernetes helm chart", "  Kubernetes   HELM chart ", "deploy with key ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"} {
		if err := db.RecordGap(ctx, testPID, q, 0); err != nil {
			t.Fatal(err)
		}
	}
	gs, err := db.Gaps(ctx, testPID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 {
		t.Fatalf("gaps: %+v", gs)
	}
	var helm memory.Gap
	for _, g := range gs {
		if strings.Contains(g.Query, "ghp_") {
			t.Fatalf("a secret reached the gap log: %q", g.Query)
		}
		if strings.Contains(g.Query, "helm") {
			helm = g
		}
	}
	if helm.Count != 2 {
		t.Fatalf("the same question asked twice: %+v", helm)
	}
	if len(filesContaining(t, dir, "aB3dE5gH7jK9mN1pQ3sT5")) > 0 {
		t.Fatal("the secret is on disk")
	}
	if err := db.DropGap(ctx, testPID, helm.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := db.DropGap(ctx, testPID, helm.ID, memory.ActorUser); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("dropping it again: %v", err)
	}
	if gs, _ := db.Gaps(ctx, testPID); len(gs) != 1 {
		t.Fatalf("after the drop: %+v", gs)
	}
}
