package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cairn/memory"
	"cairn/store"
)

// TestInboxListsShowsAndDrops: captured drafts can be read and erased by a
// person; after a drop neither the text nor the capture event remains, on
// the timeline or in the store's files.
func TestInboxListsShowsAndDrops(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if out := e.ok("inbox"); !strings.Contains(out, "the inbox is empty") || strings.Contains(out, "gaps") {
		t.Fatalf("empty inbox: %q", out)
	}
	// A question nothing answers is in the gap log, which the workbench's
	// Inbox lists: the CLI's says where it is.
	e.ok("recall", "which quokka runs the nightly zebra import?")
	if out := e.ok("inbox"); !strings.Contains(out, "the inbox is empty\n1 question nothing answered: cairn gaps") {
		t.Fatalf("inbox with a gap: %q", out)
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

// proposals is the open proposals inbox --json lists.
func (e *env) proposals() []proposalOut {
	e.t.Helper()
	var in struct {
		Drafts    []memory.Draft `json:"drafts"`
		Proposals []proposalOut  `json:"proposals"`
	}
	out := e.ok("inbox", "--json")
	if err := json.Unmarshal([]byte(out), &in); err != nil || in.Drafts == nil || in.Proposals == nil {
		e.t.Fatalf("inbox --json is not {\"drafts\": [...], \"proposals\": [...]}: %v\n%s", err, out)
	}
	return in.Proposals
}

func proposalOf(ps []proposalOut, k memory.ProposalKind) *proposalOut {
	for i := range ps {
		if ps[i].Kind == k {
			return &ps[i]
		}
	}
	return nil
}

// TestInboxProposals: what consolidation leaves for a person waits in the
// inbox with the drafts, reads in words, shows both texts and a word diff,
// and is accepted (edited first) or rejected from the command line; an
// accept is a run that undo takes back, a rejected proposal is not made
// again, and drafts and proposals are not confused for each other.
func TestInboxProposals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := e.rec("remember", "The API listens on port 8080.")
	nodes := e.rec("remember", "The staging cluster runs on three nodes in eu-west-1.")
	// An agent's notes: its extractions rank below what the user stated.
	withStore(t, e, func(st memory.Store, p memory.Project) {
		for _, text := range []string{"The API listens on port 9090.", "The staging cluster runs on three nodes in eu-west-1 region."} {
			if _, err := st.Capture(context.Background(), memory.Draft{Project: p.ID, Actor: memory.ActorAgent, Text: text, Source: memory.Source{Session: "s1"}}); err != nil {
				t.Fatal(err)
			}
		}
	})
	e.ok("capture", "a note the user keeps \x1b]0;pwned\x07 for later")
	listed := e.ok("inbox")
	if !strings.Contains(listed, "draft · session s1") || !strings.Contains(listed, "cairn consolidate") {
		t.Errorf("inbox before the pass:\n%s", listed)
	}
	assertInert(t, "the inbox", listed)

	out := e.ok("consolidate")
	t.Logf("consolidate:\n%s", out)
	if !strings.Contains(out, "proposal") || !strings.Contains(out, "cairn inbox") {
		t.Errorf("the report does not point at the proposals:\n%s", out)
	}
	ps := e.proposals()
	sup, merge := proposalOf(ps, memory.ProposeSupersede), proposalOf(ps, memory.ProposeMerge)
	if sup == nil || sup.Target != port.ID || merge == nil || merge.Target != nodes.ID {
		t.Fatalf("open proposals: %+v", ps)
	}
	if !strings.Contains(sup.Preview, "'The API listens on port 8080.'") || strings.Contains(sup.Preview, port.ID) {
		t.Errorf("the preview does not name the target by title: %q", sup.Preview)
	}
	listed = e.ok("inbox")
	for _, want := range []string{sup.ID + "  ", "supersede proposal", merge.ID + "  ", "merge proposal", "inbox show|accept|reject"} {
		if !strings.Contains(listed, want) {
			t.Errorf("inbox lacks %q:\n%s", want, listed)
		}
	}
	assertInert(t, "the inbox", listed)

	// Show: both texts and a word diff.
	shown := e.ok("inbox", "show", strings.ToLower(sup.ID))
	t.Logf("show:\n%s", shown)
	for _, want := range []string{"supersede proposal " + sup.ID, "now  " + port.ID, "proposed (new)", "[-8080", "{+9090", "cairn inbox accept " + sup.ID} {
		if !strings.Contains(shown, want) {
			t.Errorf("inbox show lacks %q:\n%s", want, shown)
		}
	}
	var sj proposalShown
	if err := json.Unmarshal([]byte(e.ok("inbox", "show", sup.ID, "--json")), &sj); err != nil || sj.ID != sup.ID || sj.TargetMemory == nil || sj.TargetMemory.ID != port.ID || sj.Memory == nil {
		t.Errorf("inbox show --json: %v %+v", err, sj)
	}

	// A proposal is not dropped, a draft is not accepted.
	if r := e.run("", "inbox", "drop", sup.ID, "--yes"); r.code != 2 || !strings.Contains(r.err, "cairn inbox reject "+sup.ID) {
		t.Errorf("drop of a proposal: %+v", r)
	}
	var all struct {
		Drafts []memory.Draft `json:"drafts"`
	}
	json.Unmarshal([]byte(e.ok("inbox", "--all", "--json")), &all)
	if len(all.Drafts) == 0 {
		t.Fatal("no drafts kept after the pass")
	}
	if r := e.run("", "inbox", "accept", all.Drafts[0].ID); r.code != 2 || !strings.Contains(r.err, "is a draft") {
		t.Errorf("accept of a draft: %+v", r)
	}
	if r := e.run("", "inbox", "accept", sup.ID, "--layer", "Q"); r.code != 2 || !strings.Contains(r.err, "layer") {
		t.Errorf("accept with a bad layer: %+v", r)
	}
	if r := e.run("", "inbox", "accept", sup.ID, "--title", "bad\x1b[2Jtitle"); r.code != 2 {
		t.Errorf("accept with an escape in the title: %+v", r)
	}
	if got := e.rec("show", port.ID); got.Status != memory.StatusActive {
		t.Fatalf("refused accepts changed the target: %s", got.Status)
	}

	// Accept, edited: the person's title is written, the old fact is history.
	before := e.state()
	acc := e.ok("inbox", "accept", sup.ID, "--title", "The API moved to port 9090")
	t.Logf("accept:\n%s", acc)
	m := regexp.MustCompile(`(?m)^undo with: cairn consolidate --undo ([0-9A-Z]{26})$`).FindStringSubmatch(acc)
	if !strings.HasPrefix(acc, "accepted supersede proposal "+sup.ID+"\n") || !strings.Contains(acc, "superseded") || m == nil {
		t.Fatalf("accept output:\n%s", acc)
	}
	old := e.rec("show", port.ID)
	if old.Status != memory.StatusSuperseded {
		t.Fatalf("accepted, the old fact is %s", old.Status)
	}
	next := e.rec("show", old.SupersededBy)
	if next.Title != "The API moved to port 9090" || next.Provenance != memory.ProvUserStated {
		t.Errorf("the accepted memory: %q %s", next.Title, next.Provenance)
	}
	if r := e.run("", "inbox", "accept", sup.ID); r.code == 0 || !strings.Contains(r.err, "already accepted") {
		t.Errorf("accepting twice: %+v", r)
	}
	if proposalOf(e.proposals(), memory.ProposeSupersede) != nil {
		t.Error("an accepted proposal still waits")
	}
	// The accept is a run: undo takes it back and the proposal waits again.
	e.ok("consolidate", "--undo", m[1])
	if e.state() != before {
		t.Error("undoing the accept did not restore the memories, drafts and proposals")
	}

	// Reject: nothing changes, and the same proposal is not made again.
	rej := e.ok("inbox", "reject", merge.ID)
	if !strings.HasPrefix(rej, "rejected merge proposal "+merge.ID+"\n") || !strings.Contains(rej, "will not be made again") {
		t.Errorf("reject output:\n%s", rej)
	}
	if got := e.rec("show", nodes.ID); got.Status != memory.StatusActive || got.Version != nodes.Version {
		t.Errorf("a rejected merge changed its target: %+v", got)
	}
	if proposalOf(e.proposals(), memory.ProposeMerge) != nil {
		t.Error("a rejected proposal still waits")
	}
	if out := e.ok("consolidate"); !strings.HasPrefix(out, "nothing to consolidate") {
		t.Errorf("after the reject a pass made:\n%s", out)
	}
	if r := e.run("", "inbox", "show", "ZZZZZZZZZZ"); r.code != 1 || !strings.Contains(r.err, "no draft or proposal") {
		t.Errorf("show of nothing: %+v", r)
	}
}

// TestInboxKeepsConsolidatedDraftsErasable: a consolidated draft leaves
// the inbox but stays listed with --all, marked with its run, and a person
// can still read and erase it.
func TestInboxKeepsConsolidatedDraftsErasable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.rec("capture", "I prefer table-driven tests for parsers.")
	out := e.ok("consolidate")
	m := runLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("consolidate:\n%s", out)
	}
	if in := e.ok("inbox"); !strings.Contains(in, "the inbox is empty (1 consolidated draft is kept") {
		t.Errorf("inbox after the pass:\n%s", in)
	}
	if in := e.ok("inbox", "--all"); !strings.Contains(in, d.ID) || !strings.Contains(in, "[done by run "+m[1]+"]") {
		t.Errorf("inbox --all:\n%s", in)
	}
	if sh := e.ok("inbox", "show", d.ID); !strings.Contains(sh, "by run "+m[1]) || !strings.Contains(sh, "table-driven") {
		t.Errorf("show of a consolidated draft:\n%s", sh)
	}
	if r := e.ok("inbox", "drop", d.ID, "--yes"); !strings.Contains(r, "dropped draft "+d.ID) {
		t.Errorf("drop: %s", r)
	}
	if in := e.ok("inbox", "--all"); !strings.Contains(in, "the inbox is empty") {
		t.Errorf("inbox --all after the drop:\n%s", in)
	}
	// The memory it became stays.
	if n := len(e.list()); n != 1 {
		t.Errorf("%d memories after dropping the draft, want 1", n)
	}
}

// TestRememberTwiceIsAlreadyKnown: the same fact remembered again
// reinforces the memory instead of copying it, and says so; nearly the
// same fact is remembered with a merge proposal in the inbox.
func TestRememberTwiceIsAlreadyKnown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.rec("remember", "We deploy on Tuesdays.")
	again := e.ok("remember", "we deploy on tuesdays")
	short := after(again, "already known: reinforced ")
	want := "already known: reinforced " + short + " 'We deploy on Tuesdays.' (said 2 times)\n"
	if again != want || !e.names(short, first.ID) {
		t.Errorf("remember twice:\n got %q\nwant %q", again, want)
	}
	var third struct {
		memory.Record
		Dedup *memory.Dedup `json:"dedup"`
	}
	if err := json.Unmarshal([]byte(e.ok("remember", "We deploy on Tuesdays!", "--json")), &third); err != nil {
		t.Fatal(err)
	}
	if third.ID != first.ID || third.Dedup == nil || third.Dedup.Reinforced != first.ID || third.Salience.Reinforcements != 2 {
		t.Errorf("remember --json of a known fact: %+v dedup %+v", third.Record, third.Dedup)
	}
	if n := len(e.list()); n != 1 {
		t.Errorf("%d memories after remembering one fact three times", n)
	}

	near := e.rec("remember", "The staging cluster runs on three nodes in eu-west-1.")
	out := e.ok("remember", "The staging cluster runs on three nodes in eu-west-1 region.")
	m := regexp.MustCompile(`nearly the same as ` + near.ID[:8] + `[0-9A-Z]* 'The staging cluster runs on three nodes in eu-west-1\.': merge proposal ([0-9A-Z]{26}) waits in the inbox \(cairn inbox show ([0-9A-Z]{26})\)`).FindStringSubmatch(out)
	if !strings.HasPrefix(out, "remembered ") || m == nil || m[1] != m[2] || !e.names(after(out, "nearly the same as "), near.ID) {
		t.Fatalf("remember of a near duplicate:\n%s", out)
	}
	if p := proposalOf(e.proposals(), memory.ProposeMerge); p == nil || p.ID != m[1] || p.Target != near.ID {
		t.Errorf("the merge proposal is not in the inbox: %+v", p)
	}
	// inbox show says which says nearly the same as which: the new one of
	// the stored one, not the stored one of itself.
	show := e.ok("inbox", "show", m[1])
	if want := "why: 'The staging cluster runs on three nodes in eu-west-1 region.': says nearly the same as 'The staging cluster runs on three nodes in eu-west-1.'"; !strings.Contains(show, want) {
		t.Errorf("inbox show of a merge proposal: want %q in\n%s", want, show)
	}
}

// After 10,000 and more consolidated drafts (kept for undo), a new capture
// is still listed by inbox and inbox --all, and inbox show finds it and
// the oldest draft alike: the listing pages by cursor, it does not stop
// at a first page.
func TestInboxAfterTenThousandConsolidatedDrafts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("capture", "the first draft, consolidated long ago")
	st, err := store.Open(filepath.Join(e.home, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ps, err := st.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pid := ""
	for _, p := range ps {
		if p.Name == "myproj" {
			pid = p.ID
		}
	}
	const n = 10_200
	var ops []memory.Op
	for len(ops) < n {
		batch := memory.IngestBatch{Project: pid}
		for i := 0; i < memory.MaxIngestBatch && len(ops)+len(batch.Drafts) < n; i++ {
			batch.Drafts = append(batch.Drafts, memory.Draft{ID: memory.NewID(), Project: pid, Time: time.Now(), Actor: memory.ActorAgent,
				Text: fmt.Sprintf("session note %d: the build uses make", len(ops)+i)})
		}
		if res, err := st.Ingest(ctx, batch); err != nil || res.Added != len(batch.Drafts) {
			t.Fatalf("ingest: %+v %v", res, err)
		}
		for _, d := range batch.Drafts {
			ops = append(ops, memory.Op{Kind: memory.OpDraftDone, Draft: d.ID})
		}
	}
	first, err := st.Drafts(ctx, pid, 1)
	if err != nil || len(first) != 1 {
		t.Fatalf("%v %v", first, err)
	}
	ops = append(ops, memory.Op{Kind: memory.OpDraftDone, Draft: first[0].ID})
	for i := 0; i < len(ops); i += 1000 {
		if _, err := st.Apply(ctx, memory.Run{Project: pid, Summary: "consolidated"}, ops[i:min(i+1000, len(ops))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	out := e.ok("capture", "a new thought: the API listens on 9090")
	id := regexp.MustCompile(`[0-9A-HJKMNP-TV-Z]{26}`).FindString(out)
	if id == "" {
		t.Fatalf("capture said no id: %q", out)
	}
	if got := e.ok("inbox"); !strings.Contains(got, id) || !strings.Contains(got, "the API listens on 9090") || strings.Count(got, "\n") != 2 {
		t.Fatalf("inbox does not list the new capture (alone):\n%.500s", got)
	}
	all := e.ok("inbox", "--all")
	if !strings.Contains(all, id) || !strings.Contains(all, first[0].ID) || strings.Count(all, "[done by run") != n+1 {
		t.Fatalf("inbox --all lists %d done drafts, want %d, and the new one: %v", strings.Count(all, "[done by run"), n+1, strings.Contains(all, id))
	}
	for _, want := range []string{id, first[0].ID, first[0].ID[:20]} {
		if got := e.ok("inbox", "show", want); !strings.Contains(got, "draft ") {
			t.Fatalf("inbox show %s:\n%s", want, got)
		}
	}
	if r := e.run("", "inbox", "show", "01"); r.code == 0 || !strings.Contains(r.err, "give more of the id") {
		t.Fatalf("an ambiguous prefix: %+v", r)
	}
}

// TestInboxDecidesSeveral (issue 26): each proposal's line says what it
// would change and no two read alike; accept and reject take several ids,
// check them all before deciding any, and each decision is a run that undo
// takes back.
func TestInboxDecidesSeveral(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := e.rec("remember", "The API listens on port 8080.")
	sessions := e.rec("remember", "Keep sessions in Postgres, not Redis.")
	nodes := e.rec("remember", "The staging cluster runs on three nodes in eu-west-1.")
	withStore(t, e, func(st memory.Store, p memory.Project) {
		for _, text := range []string{"The API listens on port 9090.", "Keep sessions in Redis, not Postgres.", "The staging cluster runs on three nodes in eu-west-1 region."} {
			if _, err := st.Capture(context.Background(), memory.Draft{Project: p.ID, Actor: memory.ActorAgent, Text: text, Source: memory.Source{Session: "s1"}}); err != nil {
				t.Fatal(err)
			}
		}
	})
	e.ok("consolidate")
	listed := e.ok("inbox")
	t.Logf("inbox:\n%s", listed)
	for _, want := range []string{
		"supersede proposal            The API listens on port 8080. → 9090",
		"supersede proposal            Keep sessions in Postgres, not Redis. → Redis … Postgres",
		"merge proposal                The staging cluster runs on three nodes in eu-west-1. + The staging cluster",
	} {
		if !strings.Contains(listed, want) {
			t.Errorf("inbox lacks %q:\n%s", want, listed)
		}
	}
	if strings.Contains(listed, "forgotten") || strings.Contains(listed, "from draft") {
		t.Errorf("the inbox speaks of forgotten memories or drafts:\n%s", listed)
	}
	var ids []string
	for _, p := range e.proposals() {
		if p.Change == "" {
			t.Errorf("proposal %s has no change line in --json", p.ID)
		}
		ids = append(ids, p.ID)
	}
	if len(ids) != 3 {
		t.Fatalf("want 3 proposals, have %d", len(ids))
	}
	// A wrong id among them: nothing is decided.
	if r := e.run("", "inbox", "accept", ids[0], "ZZZZZZZZZZ"); r.code == 0 || !strings.Contains(r.err, "no draft or proposal ZZZZZZZZZZ") {
		t.Errorf("accept with a wrong id: %+v", r)
	}
	if r := e.run("", "inbox", "accept", ids[0], ids[1], "--title", "x"); r.code != 2 || !strings.Contains(r.err, "give one id") {
		t.Errorf("an edit of two proposals: %+v", r)
	}
	if len(e.proposals()) != 3 {
		t.Fatal("a refused accept decided proposals")
	}
	before := e.state()
	acc := e.ok("inbox", "accept", ids[0], ids[1])
	runs := regexp.MustCompile(`(?m)^undo with: cairn consolidate --undo ([0-9A-Z]{26})$`).FindAllStringSubmatch(acc, -1)
	if len(runs) != 2 || strings.Count(acc, "accepted supersede proposal") != 2 {
		t.Fatalf("accept of two:\n%s", acc)
	}
	for _, m := range []memory.Record{port, sessions} {
		if got := e.rec("show", m.ID); got.Status != memory.StatusSuperseded {
			t.Errorf("%q is %s after the accept", m.Title, got.Status)
		}
	}
	for i := len(runs) - 1; i >= 0; i-- {
		e.ok("consolidate", "--undo", runs[i][1])
	}
	if e.state() != before {
		t.Error("undoing both accepts did not restore the memories, drafts and proposals")
	}
	rej := e.ok("inbox", "reject", ids[2], ids[0], ids[2])
	if strings.Count(rej, "rejected ") != 2 {
		t.Errorf("reject of two (one named twice):\n%s", rej)
	}
	if got := e.rec("show", nodes.ID); got.Status != memory.StatusActive {
		t.Errorf("a rejected merge changed its target: %s", got.Status)
	}
	if ps := e.proposals(); len(ps) != 1 || ps[0].ID != ids[1] {
		t.Errorf("after rejecting two, open: %+v", ps)
	}
}

// TestInboxDecidesEveryOfAKind: after a pass leaves many merge proposals, a
// person accepts them all at once, after seeing them listed and saying
// yes; other kinds stay open, and nothing is decided without a yes.
func TestInboxDecidesEveryOfAKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("remember", "The staging cluster runs on three nodes in eu-west-1.")
	e.ok("remember", "The staging cluster runs on three nodes in eu-west-1 region.")
	e.ok("remember", "Nightly backups of the orders database are kept for thirty days.")
	e.ok("remember", "Nightly backups of the orders database are kept for thirty days in total.")
	port := e.rec("remember", "The API listens on port 8080.")
	withStore(t, e, func(st memory.Store, p memory.Project) {
		if _, err := st.Capture(context.Background(), memory.Draft{Project: p.ID, Actor: memory.ActorAgent, Text: "The API listens on port 9090.", Source: memory.Source{Session: "s1"}}); err != nil {
			t.Fatal(err)
		}
	})
	e.ok("consolidate")
	var merges []string
	for _, p := range e.proposals() {
		if p.Kind == memory.ProposeMerge {
			merges = append(merges, p.ID)
		}
	}
	if len(merges) != 2 || len(e.proposals()) != 3 {
		t.Fatalf("want 2 merge proposals of 3, have %+v", e.proposals())
	}
	for _, args := range [][]string{
		{"inbox", "accept", "--every", "merge"},            // no terminal, no --yes
		{"inbox", "accept", "--every", "merges", "--yes"},  // no such kind
		{"inbox", "accept", merges[0], "--every", "merge"}, // both
		{"inbox", "accept"},                                // neither
		{"inbox", "accept", "--every", "merge", "--title", "x", "--yes"},
		{"inbox", "reject", "--every", "merge"},
	} {
		if r := e.run("", args...); r.code != 2 || strings.Count(strings.TrimSpace(r.err), "\n") > 1 {
			t.Errorf("cairn %s: want a usage error, have %+v", strings.Join(args, " "), r)
		}
	}
	if r := e.run("", "inbox", "accept", "--every", "merge"); !strings.Contains(r.err, "refusing to accept 2 open merge proposals without confirmation") {
		t.Errorf("without a terminal: %q", r.err)
	}
	if len(e.proposals()) != 3 {
		t.Fatal("a refused --every decided proposals")
	}
	e.tty = true
	no := e.run("no\n", "inbox", "accept", "--every", "merge")
	for _, id := range merges {
		if !strings.Contains(no.out, id) {
			t.Errorf("the confirmation does not list %s:\n%s", id, no.out)
		}
	}
	if !strings.Contains(no.out, "Accept 2 merge proposals?") || !strings.Contains(no.out, "nothing was decided") || len(e.proposals()) != 3 {
		t.Errorf("answering no:\n%s", no.out)
	}
	yes := e.run("yes\n", "inbox", "accept", "--every", "merge")
	if yes.code != 0 || strings.Count(yes.out, "accepted merge proposal") != 2 {
		t.Fatalf("answering yes: %+v", yes)
	}
	e.tty = false
	left := e.proposals()
	if len(left) != 1 || left[0].Kind != memory.ProposeSupersede {
		t.Errorf("after accepting every merge, open: %+v", left)
	}
	if got := e.rec("show", port.ID); got.Status != memory.StatusActive {
		t.Errorf("accepting every merge changed the supersede proposal's target: %s", got.Status)
	}
	if out := e.ok("inbox", "accept", "--every", "merge"); !strings.Contains(out, "no open merge proposals") {
		t.Errorf("with none left: %q", out)
	}
	if out := e.ok("inbox", "reject", "--every", "supersede", "--yes"); !strings.Contains(out, "rejected supersede proposal") || len(e.proposals()) != 0 {
		t.Errorf("reject --every supersede --yes: %q", out)
	}
}
