package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"cairn/memory"
)

func ingestDraft(i int, text string) memory.Draft {
	return memory.Draft{
		ID: fmt.Sprintf("01KAWZ0000000000000000%04d", i), Time: time.Date(2026, 11, 24, 9, 0, i, 0, time.UTC),
		Actor: memory.ActorAgent, Text: text,
		Source: memory.Source{Actor: memory.ActorAgent, Session: "sess-1", File: "/t/s.jsonl", Line: i, Message: fmt.Sprintf("uuid-%d", i)},
	}
}

func TestIngestAddsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	db := openSmall(t, t.TempDir(), nil)
	b := memory.IngestBatch{Project: testPID, Drafts: []memory.Draft{ingestDraft(1, "the deploy runs on Fridays"), ingestDraft(2, "ran `go test ./...`: exit 1")}, Summary: "ingested drafts"}
	res, err := db.Ingest(ctx, b)
	if err != nil || res.Added != 2 || res.Known != 0 {
		t.Fatalf("first ingest: %+v, %v", res, err)
	}
	ds, _ := db.Drafts(ctx, testPID, 10)
	if len(ds) != 2 || !ds[0].Time.Equal(b.Drafts[0].Time) || ds[0].Source.Message != "uuid-1" {
		t.Fatalf("drafts keep the message's time and source: %+v", ds)
	}
	// The same batch again, and a third draft: only the third is new.
	b.Drafts = append(b.Drafts, ingestDraft(3, "we switched to pnpm because npm was slow"))
	res, err = db.Ingest(ctx, b)
	if err != nil || res.Added != 1 || res.Known != 2 {
		t.Fatalf("second ingest: %+v, %v", res, err)
	}
	// A draft a person dropped is not brought back by reading the file again.
	if err := db.DropDraft(ctx, b.Drafts[0].ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	res, err = db.Ingest(ctx, b)
	if err != nil || res.Added != 0 || res.Known != 3 {
		t.Fatalf("after a drop: %+v, %v", res, err)
	}
	if ds, _ := db.Drafts(ctx, testPID, 10); len(ds) != 2 {
		t.Fatalf("%d drafts after the drop and a re-ingest, want 2", len(ds))
	}
}

func TestIngestRefusesBadDraftsAloneAndSecretsWhole(t *testing.T) {
	t.Parallel()
	db := openSmall(t, t.TempDir(), nil)
	bad := ingestDraft(2, "token ghp_"+"aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3jL5")
	noTime := ingestDraft(3, "no time")
	noTime.Time = time.Time{}
	res, err := db.Ingest(ctx, memory.IngestBatch{Project: testPID, Drafts: []memory.Draft{ingestDraft(1, "fine"), bad, noTime}})
	if err != nil || res.Added != 1 || res.Refused != 2 || len(res.Errors) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	for _, e := range res.Errors {
		if len(e) == 0 || strings.Contains(e, "aB3dE5gH7jK9") {
			t.Fatalf("error %q must say why without the secret", e)
		}
	}
	// A state whose diary holds a secret is refused whole: nothing lands.
	st := &memory.IngestState{Project: testPID, File: "/t/s.jsonl", Offset: 10, Diary: []byte(`{"asked":["use ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3jL5"]}`)}
	if _, err := db.Ingest(ctx, memory.IngestBatch{Project: testPID, Drafts: []memory.Draft{ingestDraft(4, "x")}, State: st}); err == nil {
		t.Fatal("a diary with a secret was taken")
	}
	if _, err := db.IngestState(ctx, "/t/s.jsonl"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("state after a refused batch: %v", err)
	}
	if _, err := db.Ingest(ctx, memory.IngestBatch{Project: "nope", Drafts: []memory.Draft{ingestDraft(5, "x")}}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
}

// The diary quotes the session: it lives with the episode and goes, bytes
// and all, when a person forgets the episode; the session gets no episode
// again.
func TestForgettingTheEpisodeTakesTheDiary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openSmall(t, dir, nil)
	ep, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerEpisode, Title: "Session on main: fix the flaky test", Body: "asked: fix it"}, memory.ActorSystem)
	if err != nil {
		t.Fatal(err)
	}
	const quote = "diary-quote-osprey-5521"
	st := &memory.IngestState{Project: testPID, File: "/t/s.jsonl", Session: "sess-1", Offset: 100, Line: 7, Head: "4096:ab", Episode: ep.ID, Diary: []byte(`{"asked":["` + quote + `"]}`)}
	if _, err := db.Ingest(ctx, memory.IngestBatch{Project: testPID, State: st}); err != nil {
		t.Fatal(err)
	}
	got, err := db.IngestState(ctx, "/t/s.jsonl")
	if err != nil || got.Offset != 100 || got.Line != 7 || got.Episode != ep.ID || string(got.Diary) != string(st.Diary) {
		t.Fatalf("state back: %+v, %v", got, err)
	}
	filler(t, db, 3)
	if len(filesContaining(t, dir, quote)) == 0 {
		t.Fatal("the diary is on no file before the forget")
	}
	if err := db.Forget(ctx, ep.ID, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	got, err = db.IngestState(ctx, "/t/s.jsonl")
	if err != nil || got.Episode != "" || !got.NoEpisode || got.Diary != nil || got.Offset != 100 {
		t.Fatalf("state after the forget: %+v, %v", got, err)
	}
	// A later read that still names the forgotten episode keeps none.
	st.Episode, st.Offset = ep.ID, 200
	if _, err := db.Ingest(ctx, memory.IngestBatch{Project: testPID, State: st}); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.IngestState(ctx, "/t/s.jsonl"); got.Episode != "" || !got.NoEpisode || got.Diary != nil || got.Offset != 200 {
		t.Fatalf("state written after the forget: %+v", got)
	}
	filler(t, db, 5)
	db.Close()
	if f := filesContaining(t, dir, quote); len(f) > 0 {
		t.Errorf("the diary is still on disk after the episode was forgotten, in %v", f)
	}
}

func TestTriggeredReadsOnlyActiveNegativesAndLessons(t *testing.T) {
	t.Parallel()
	db := openSmall(t, t.TempDir(), nil)
	neg := rememberAs(t, db, &memory.Memory{Project: testPID, Layer: memory.LayerNegative, Title: "Do not use the v1 payments API", Triggers: []string{"Payments API"}}, memory.ActorUser)
	lesson := rememberAs(t, db, &memory.Memory{Project: testPID, Layer: memory.LayerMeta, Kind: memory.KindLesson, Title: "Check the retry budget first", Triggers: []string{"retry"}}, memory.ActorUser)
	rememberAs(t, db, &memory.Memory{Project: testPID, Layer: memory.LayerState, Title: "The payments API lives in billing/", Triggers: []string{"payments api"}}, memory.ActorUser)
	gone := rememberAs(t, db, &memory.Memory{Project: testPID, Layer: memory.LayerNegative, Title: "Do not retry on 409", Triggers: []string{"retry"}}, memory.ActorUser)
	if _, err := db.Archive(ctx, gone.ID, "fixed upstream", memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	hits, err := db.Triggered(ctx, testPID, "add a RETRY around the payments api call", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Memory.ID != neg.ID || hits[0].Trigger != "Payments API" || hits[1].Memory.ID != lesson.ID {
		t.Fatalf("hits: %+v", hits)
	}
	if hits, _ := db.Triggered(ctx, testPID, "rename the logger", 5); len(hits) != 0 {
		t.Fatalf("an unrelated text: %+v", hits)
	}
	if hits, _ := db.Triggered(ctx, testPID, "retry the payments api", 1); len(hits) != 1 {
		t.Fatalf("limit 1: %+v", hits)
	}
}
