package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

// TestInboxListsShowsAndDrops: captured drafts can be read and erased by a
// person; after a drop neither the text nor the capture event remains, on
// the timeline or in the store's files.
func TestInboxListsShowsAndDrops(t *testing.T) {
	e := newEnv(t)
	if out := e.ok("inbox"); !strings.Contains(out, "the inbox is empty") {
		t.Fatalf("empty inbox: %q", out)
	}
	e.ok("capture", "first draft: the staging cluster is called kestrel-unique-marker")
	e.ok("capture", "second draft: deploys on fridays are frozen")
	var list struct {
		Drafts []memory.Draft `json:"drafts"`
	}
	if err := json.Unmarshal([]byte(e.ok("inbox", "--json")), &list); err != nil || len(list.Drafts) != 2 {
		t.Fatalf("inbox --json: %v %+v", err, list)
	}
	first := list.Drafts[0]
	if !strings.Contains(first.Text, "kestrel") {
		t.Fatalf("not oldest first: %+v", list.Drafts)
	}
	if out := e.ok("inbox"); !strings.Contains(out, first.ID) || !strings.Contains(out, "second draft") {
		t.Fatalf("inbox:\n%s", out)
	}
	if out := e.ok("inbox", "show", first.ID); !strings.Contains(out, "kestrel-unique-marker") {
		t.Fatalf("show:\n%s", out)
	}
	// Without a terminal a drop needs --yes and deletes nothing.
	if r := e.run("", "inbox", "drop", first.ID); r.code != 2 || !strings.Contains(r.err, "--yes") {
		t.Fatalf("drop without confirmation: %+v", r)
	}
	// On a terminal it shows the text and asks; anything but yes keeps it.
	e.tty = true
	if r := e.run("no\n", "inbox", "drop", first.ID); r.code != 0 || !strings.Contains(r.out, "kestrel-unique-marker") || !strings.Contains(r.out, "kept") {
		t.Fatalf("drop answered no: %+v", r)
	}
	if r := e.run("yes\n", "inbox", "drop", first.ID); r.code != 0 || !strings.Contains(r.out, "dropped draft "+first.ID) {
		t.Fatalf("drop answered yes: %+v", r)
	}
	e.tty = false
	if out := e.ok("inbox"); strings.Contains(out, first.ID) || !strings.Contains(out, "second draft") {
		t.Fatalf("after drop:\n%s", out)
	}
	if r := e.run("", "inbox", "show", first.ID); r.code == 0 || !strings.Contains(r.err, "no draft") {
		t.Fatalf("show of a dropped draft: %+v", r)
	}
	tl := e.ok("timeline")
	if strings.Contains(tl, "kestrel") || !strings.Contains(tl, "a draft was deleted") {
		t.Fatalf("timeline after drop:\n%s", tl)
	}
	if n := strings.Count(tl, "captured"); n != 1 {
		t.Fatalf("the dropped draft's capture event is still there (%d capture events):\n%s", n, tl)
	}
	// Nothing of the text is left in the store's files.
	filepath.WalkDir(e.home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "kestrel-unique-marker") {
			t.Errorf("%s still holds the dropped draft's text", p)
		}
		return nil
	})
}
