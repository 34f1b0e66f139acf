package store

import (
	"testing"

	"cairn/memory"
)

// ListDrafts reaches every draft page by page, oldest first, filtered to
// the waiting ones or to an id prefix; Drafts with a limit keeps every
// waiting draft ahead of the consolidated ones, and of those the newest.
func TestDraftPagesReachEveryDraft(t *testing.T) {
	t.Parallel()
	db := openSmall(t, t.TempDir(), nil)
	if _, err := db.EnsureProject(ctx, memory.Project{ID: testPID, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	var all []memory.Draft
	for i := 0; i < 12; i++ {
		all = append(all, capture(t, db, "a draft"))
	}
	var ops []memory.Op
	for _, d := range all[:10] {
		ops = append(ops, memory.Op{Kind: memory.OpDraftDone, Draft: d.ID})
	}
	applyRun(t, db, ops...)

	var got []string
	q := memory.DraftQuery{Project: testPID, Limit: 5}
	for pages := 0; ; pages++ {
		p, err := db.ListDrafts(ctx, q)
		if err != nil || pages > 3 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, d := range p.Drafts {
			got = append(got, d.ID)
		}
		if p.Next == "" {
			break
		}
		q.After = p.Next
	}
	if len(got) != 12 || got[0] != all[0].ID || got[11] != all[11].ID {
		t.Fatalf("pages gave %d drafts: %v", len(got), got)
	}
	p, err := db.ListDrafts(ctx, memory.DraftQuery{Project: testPID, Waiting: true, Limit: 1})
	if err != nil || len(p.Drafts) != 1 || p.Drafts[0].ID != all[10].ID || p.Next != all[10].ID {
		t.Fatalf("waiting: %+v %v", p, err)
	}
	if p, err = db.ListDrafts(ctx, memory.DraftQuery{Project: testPID, Prefix: all[11].ID}); err != nil || len(p.Drafts) != 1 || p.Drafts[0].ID != all[11].ID {
		t.Fatalf("by id: %+v %v", p, err)
	}

	ds, err := db.Drafts(ctx, testPID, 4)
	if err != nil || len(ds) != 4 {
		t.Fatalf("Drafts: %d %v", len(ds), err)
	}
	want := []string{all[8].ID, all[9].ID, all[10].ID, all[11].ID}
	for i, d := range ds {
		if d.ID != want[i] {
			t.Fatalf("Drafts(4) = %v, want the two waiting and the two newest done", ds)
		}
	}
}
