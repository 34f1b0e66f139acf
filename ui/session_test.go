package ui

import (
	"strings"
	"testing"

	"cairn/ingest"
)

// sessionApp is a workbench whose project has read an agent's session in
// (the testdata transcript of package ingest, through the real ingest).
func sessionApp(t *testing.T, w, h int) (Model, ingest.Report) {
	t.Helper()
	db := openStore(t, true)
	p := demoProject
	rep, err := ingest.Ingest(bg, db, "../ingest/testdata/claude-code/session.jsonl", ingest.IngestOptions{Final: true, Project: &p})
	if err != nil {
		t.Fatal(err)
	}
	return app(t, db, w, h, "plain"), rep
}

// selectMemory moves the list's cursor to id.
func selectMemory(t *testing.T, m Model, id string) {
	t.Helper()
	for i, it := range m.list.items {
		if it.ID == id {
			press(t, m, "g")
			for range i {
				press(t, m, "down")
			}
			return
		}
	}
	t.Fatalf("%s is not in the list", id)
}

// A session's episode opens the session's drafts, a draft of it opens the
// episode, and esc (or i) brings the whole inbox back.
func TestEpisodeOpensItsSession(t *testing.T) {
	t.Parallel()
	m, rep := sessionApp(t, 120, 40)
	press(t, m, "3") // layer C, where episodes are
	selectMemory(t, m, rep.Episode)
	press(t, m, "o")
	if m.section != sectionInbox || m.inbox.session != rep.Session || len(m.inbox.items) != rep.Added {
		t.Fatalf("o on the episode: section %d, session %q, %d items (want %d)", m.section, m.inbox.session, len(m.inbox.items), rep.Added)
	}
	for _, it := range m.inbox.items {
		if it.draft == nil || it.draft.Source.Session != rep.Session {
			t.Fatalf("a draft of another session in the session's view: %+v", it)
		}
	}
	scr := screen(m)
	for _, want := range []string{"Session 7f3c9a10 10 drafts · esc: all", "> draft     you · 7f3c9a10 · Fix the f", "agent · 7f3c9a10 · edited"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the session's view lacks %q:\n%s", want, scr)
		}
	}
	// From a draft of the session, o opens the episode.
	press(t, m, "down", "o")
	if sel := m.list.selected(); m.section != 2 || sel == nil || sel.ID != rep.Episode {
		t.Fatalf("o on a session's draft: section %d, selected %v", m.section, sel)
	}
	// esc leaves the session's view for the whole inbox.
	press(t, m, "o", "esc")
	if m.section != sectionInbox || m.inbox.session != "" || !strings.Contains(screen(m), "Inbox 10 drafts") {
		t.Fatalf("esc in the session's view:\n%s", screen(m))
	}
	// On a memory that is no episode, o says what it is for and moves nowhere.
	press(t, m, "1")
	press(t, m, "o")
	if m.section != 0 || !strings.Contains(screen(m), "o opens the drafts of an agent session") {
		t.Fatalf("o on an invariant:\n%s", screen(m))
	}
	if _, err := m.st.Get(bg, rep.Episode); err != nil {
		t.Fatal(err)
	}
}

// The session's view shows, in its detail pane, the transcript's absolute
// path, which differs from clone to clone (and wraps where its length
// says), so both sizes are checked by what they must hold; the inbox's
// goldens (inbox-kinds*) hold its layout.
func TestSessionScreens(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, rep := sessionApp(t, size[0], size[1])
		press(t, m, "3")
		selectMemory(t, m, rep.Episode)
		press(t, m, "o")
		scr := screen(m)
		for _, want := range []string{"Session 7f3c9a10 10 drafts · esc: all", "> draft     you · 7f3c9a10 · Fix the f", "from session 7f3c9a10-2b4e-4d61-9a7e-", "session.jsonl:3", "Fix the flaky TestBucketRefill in"} {
			if !strings.Contains(scr, want) {
				t.Errorf("the session's view at %dx%d lacks %q:\n%s", size[0], size[1], want, scr)
			}
		}
	}
}
