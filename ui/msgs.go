package ui

import (
	"os/exec"

	"cairn/consolidate"
	"cairn/derive"
	"cairn/memory"
	"cairn/mirror"
	"cairn/recall"
	"cairn/trust"
)

// Every message the workbench handles. Results of store calls carry the
// identity of their request so that an answer for a selection that has
// moved on is dropped.

type countsLoadedMsg struct {
	project string
	counts  memory.Counts
	err     error
}

type pageLoadedMsg struct {
	req   int
	items []*memory.Memory
	next  string
	more  bool // a further page appended to the list
	err   error
}

// learned carries the short forms of the memory ids a result shows: the
// shortest prefixes that name them in the whole store (memory.ShortIDsIn),
// worked out by the command that read them, so that what a person reads
// off the screen can be typed back anywhere an id is taken.
type learned struct{ shorts map[string]string }

func (l learned) learnedShorts() map[string]string { return l.shorts }

type memoryLoadedMsg struct {
	learned
	id      string
	mem     *memory.Memory
	out, in []memory.Edge
	titles  map[string]string // of the memories it links to
	err     error
}

type renderedMsg struct {
	key  renderKey
	text string
}

type timelineLoadedMsg struct {
	learned
	project string
	events  []memory.Event
	err     error
}

type projectsLoadedMsg struct {
	projects []memory.Project
	err      error
}

// actionDoneMsg reports a write the person asked for.
type actionDoneMsg struct {
	act action
	mem *memory.Memory
	id  string
	err error
}

// action is a write the person asked for, as actionDoneMsg reports it.
type action int

const (
	actArchive action = iota
	actUnarchive
	actForget
	actSupersede
	actRemember
	actLink
	actConfirm
	actRebind
	actReject
)

// verb names the action in a failure message ("archive failed: …").
func (a action) verb() string {
	return [...]string{"archive", "unarchive", "forget", "supersede", "remember", "link", "confirm", "rebind", "reject"}[a]
}

// review reports whether the action is a review (it keeps the version).
func (a action) review() bool { return a == actConfirm || a == actRebind || a == actReject }

// forgetTextMsg carries the stored text re-read for the forget dialog.
type forgetTextMsg struct {
	learned
	mem *memory.Memory
	err error
}

// rereadMsg carries a memory an open dialog is on, read again after other
// processes wrote.
type rereadMsg struct {
	id  string
	mem *memory.Memory
	err error
}

// supersedeTargetMsg carries the memory /supersede named, for the editor.
type supersedeTargetMsg struct {
	learned
	mem  *memory.Memory
	text string // the new version /supersede ID TEXT gave, if any
	err  error
}

// capturedMsg answers /capture.
type capturedMsg struct {
	draft memory.Draft
	err   error
}

// historyLoadedMsg opens the diff over the versions of a memory's
// supersession chain, comparing vers[old] with vers[new].
type historyLoadedMsg struct {
	learned
	id       string
	vers     []*memory.Memory
	old, new int
	err      error
}

type subscribedMsg struct{ ch <-chan memory.Event }

type storeEventMsg struct{ event memory.Event }

type recallDoneMsg struct {
	query         string // as asked (with --path)
	feedbackQuery string // the words alone, what feedback is given for
	path          string
	projects      []string
	resp          recall.Response
	err           error
}

// editFileReadyMsg: the text is in a file, $EDITOR can open it.
type editFileReadyMsg struct{ path string }

type editorDoneMsg struct {
	text string
	err  error
}

type statusClearMsg struct{ seq int }

// queueLoadedMsg carries the verify-first queue after a wake check.
type queueLoadedMsg struct {
	project string
	req     int // the list request it answers; -1: only the count
	items   []trust.Item
	err     error
}

// refreshMsg reloads what is shown after other processes' writes.
type refreshMsg struct{}

// calibrationLoadedMsg carries what the project's reviews say about its
// bindings, with the titles of the memories behind flagged bindings.
type calibrationLoadedMsg struct {
	learned
	project string
	cal     trust.Calibration
	titles  map[string]string
	err     error
}

// inboxLoadedMsg carries the inbox: the waiting drafts and open proposals,
// oldest first (req -1: only their count was asked for).
type inboxLoadedMsg struct {
	learned
	project string
	session string // the one session it shows, or "" for the whole inbox
	req     int
	items   []inboxItem
	count   int
	err     error
}

// draftTextMsg carries a draft re-read for the drop dialog.
type draftTextMsg struct {
	draft memory.Draft
	err   error
}

// gapDroppedMsg reports a gap closed; feedbackMsg feedback kept.
type gapDroppedMsg struct {
	id  string
	err error
}

type feedbackMsg struct {
	id      string
	helpful bool
	err     error
}

// draftDroppedMsg reports a draft deleted for good.
type draftDroppedMsg struct {
	id  string
	err error
}

// decidedMsg reports a proposal accepted or rejected, as the run that did
// it and that run in words.
type decidedMsg struct {
	accepted bool
	id       string
	run      memory.Run
	text     string
	err      error
}

// consolidationStartedMsg: a pass is under way; its progress and its end
// come through c.
type consolidationStartedMsg struct{ c *consolidation }

// consolidationProgressMsg is how far the pass c has come.
type consolidationProgressMsg struct {
	c *consolidation
	p consolidate.Progress
}

// consolidatedMsg reports a finished pass (or its error), with the report
// in words.
type consolidatedMsg struct {
	rep   consolidate.Report
	lines []string
	err   error
}

// undoneMsg reports a run taken back.
type undoneMsg struct {
	run  memory.Run
	runs int // how many runs a batch undid (0 or 1: run alone)
	err  error
}

// decidedManyMsg answers decideMany: the proposals decided, one run each,
// in order, up to the first that failed (err).
type decidedManyMsg struct {
	accepted bool
	ids      []string
	runs     []string
	err      error
}

// episodeFoundMsg answers openEpisode: the session's episode, or why not.
type episodeFoundMsg struct {
	session, id string
	err         error
}

// whyLoadedMsg answers /why: the root, then what it rests on and what rests
// on it, each row with its place in the tree.
type whyLoadedMsg struct {
	root     *memory.Memory
	items    []*memory.Memory
	prefixes []string
	err      error
}

// archivedLoadedMsg carries the archived memories /unarchive completes.
type archivedLoadedMsg struct {
	project string
	items   []*memory.Memory
	err     error
}

// repoLoadedMsg carries the project's repository summary (err
// memory.ErrNotFound: never indexed); req -1 asked only for the count.
type repoLoadedMsg struct {
	project string
	req     int
	sum     memory.RepoSummary
	err     error
}

// repoFilesLoadedMsg carries the indexed files under a module's path.
type repoFilesLoadedMsg struct {
	project, module string
	req             int
	files           []memory.DerivedFile
	err             error
}

// syncedMsg is the end of a /sync run.
type syncedMsg struct {
	project memory.Project
	rep     mirror.Report
	err     error
}

// mirrorLoadedMsg carries where a project's memories stand against its
// team mirror.
type mirrorLoadedMsg struct {
	project string
	pending map[string]mirror.Pending
	err     error
}

// indexedMsg is the end of an /index run.
type indexedMsg struct {
	project memory.Project
	rep     derive.Report
	err     error
}

// editorReadyMsg carries the editor command for a repository file that
// is there.
type editorReadyMsg struct {
	path string
	cmd  *exec.Cmd
}

// fileEditedMsg is the editor closing on a repository file, or the file
// found gone before it was opened.
type fileEditedMsg struct {
	path string
	gone bool
	err  error
}
