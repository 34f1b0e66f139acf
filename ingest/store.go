package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/oklog/ulid/v2"

	"cairn/memory"
	"cairn/project"
)

// IngestOptions says how to ingest one transcript.
type IngestOptions struct {
	Format Format // "" or FormatAuto: from the file
	// Final says the session is over: its last turn is taken too, and the
	// episode says how it ended.
	Final bool
	// Project, when set, is where the drafts go whatever the session's
	// working directory was (a person's choice on the command line).
	Project *memory.Project
	// Only, when set, is the one project the session may belong to: a hook
	// acts for an agent, and an agent acts only inside its own project.
	Only string
	// Progress, when set, hears how many items were read so far.
	Progress func(items int)
	// Now is the clock the read is stamped with (nil: time.Now); an item
	// with no time of its own read at the next ingest takes that time.
	Now func() time.Time
	// Zone is the time zone the session's episode tells its times in
	// (nil: the local one).
	Zone *time.Location
}

// Report is what one ingest did.
type Report struct {
	File      string         `json:"file"`
	Format    Format         `json:"format"`
	Session   string         `json:"session"`
	Project   string         `json:"project"`    // its name
	ProjectID string         `json:"project_id"` // its id
	Lines     int            `json:"lines"`      // lines read this time
	Items     int            `json:"items"`      // drafts read this time
	Added     int            `json:"added"`      // drafts new to the inbox
	Known     int            `json:"known"`      // already there, taken or dropped before
	Refused   int            `json:"refused"`
	Skipped   map[string]int `json:"skipped,omitempty"`
	Malformed []LineError    `json:"malformed,omitempty"`
	Redacted  int            `json:"redacted"`
	Long      int            `json:"long_lines,omitempty"` // lines over ingest.MaxLine, skipped (the rest was read)
	Episode   string         `json:"episode,omitempty"`    // the session's episode memory
	// EpisodeNew says the episode was written by this ingest; Restarted
	// that the file no longer began as it did and was read from the top.
	EpisodeNew     bool     `json:"episode_new,omitempty"`
	EpisodeUpdated bool     `json:"episode_updated,omitempty"`
	Restarted      bool     `json:"restarted,omitempty"`
	Errors         []string `json:"errors,omitempty"`
	// Pending says the file's drafts may wait for consolidation: some
	// were read, now or before, and no hook's pass settled them since.
	Pending bool `json:"pending,omitempty"`
	// next is where the read stopped (for Settle).
	next int64
}

// EpisodeRef is the ref of a session's episode memory.
func EpisodeRef(session string) string { return "session:" + session }

// batchSize is how many drafts go to the store at a time.
const batchSize = 200

// headBytes is how much of a file's start identifies it.
const headBytes = 4096

// Ingest reads one transcript from where its last ingest stopped into its
// project's drafts inbox, and writes or updates the session's episode in
// layer C. Reading it again adds only what is new.
func Ingest(ctx context.Context, st memory.Store, path string, opt IngestOptions) (Report, error) {
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	rep := Report{}
	t, err := openTranscript(path)
	rep.File = t.abs
	if err != nil {
		return rep, err
	}
	defer t.f.Close()
	state, peek, err := t.resume(ctx, st, &rep)
	if err != nil {
		return rep, err
	}
	session := rep.Session
	p, err := projectOf(ctx, st, state, peek, opt)
	if err != nil {
		return rep, fmt.Errorf("transcript %s: %w", path, err)
	}
	rep.Project, rep.ProjectID = p.Name, p.ID
	diary := diaryOf(state)
	before, _ := json.Marshal(diary)

	in := &ingestion{ctx: ctx, st: st, rep: &rep, pid: p.ID, session: session, progress: opt.Progress, zone: opt.Zone}
	res, err := in.read(t, state, Options{Format: opt.Format, Offset: state.Offset, Line: state.Line, Final: opt.Final, Diary: diary, Subagent: peek.subagent})
	if err != nil {
		return rep, err
	}
	// The drafts first: an episode that cannot be written must not cost
	// the session's drafts.
	if len(in.batch) > 0 {
		if err := in.flush(nil); err != nil {
			return rep, err
		}
	}
	after, _ := json.Marshal(diary)
	in.episode(p, &state, diary, !bytes.Equal(before, after))

	state.Project, state.Session, state.Head = p.ID, session, t.head
	state.Offset, state.Line, state.Time = res.Next, res.NextLine, now().UTC()
	state.Pending = state.Pending || rep.Items > 0
	rep.Pending, rep.next = state.Pending, state.Offset
	state.Diary = nil
	if state.Episode != "" {
		state.Diary = after
	}
	return rep, in.flush(&state)
}

// transcript is one open transcript file.
type transcript struct {
	path, abs string // as given, and absolute
	f         *os.File
	info      os.FileInfo
	head      string // its first bytes' hash (headOf)
}

// openTranscript opens a transcript to read. A FIFO or a device would
// block the open or never end: it looks first, and opens without
// blocking. The transcript's abs is set whenever the path could be made
// absolute.
func openTranscript(path string) (transcript, error) {
	t := transcript{path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		return t, fmt.Errorf("transcript %s: %w", path, err)
	}
	t.abs = abs
	notRegular := fmt.Errorf("transcript %s is not a regular file: give a session log (.jsonl) or a directory of them", path)
	if info, err := os.Stat(abs); err != nil {
		return t, fmt.Errorf("transcript %s: %w", path, notFound(err))
	} else if !info.Mode().IsRegular() {
		return t, notRegular
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return t, fmt.Errorf("transcript %s: %w", path, notFound(err))
	}
	t.f = f
	if t.info, err = f.Stat(); err != nil {
		f.Close()
		return t, fmt.Errorf("transcript %s: %w", path, err)
	}
	if !t.info.Mode().IsRegular() { // replaced between the look and the open
		f.Close()
		return t, notRegular
	}
	if t.head, err = headOf(f, t.info.Size()); err != nil {
		f.Close()
		return t, fmt.Errorf("transcript %s: %w", path, err)
	}
	return t, nil
}

// resume is where the last ingest of the transcript stopped (from the
// top when the file was replaced or cut short, or is another session's
// now), and the session it is of (set in rep).
func (t transcript) resume(ctx context.Context, st memory.Store, rep *Report) (memory.IngestState, peeked, error) {
	state, err := st.IngestState(ctx, t.abs)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		state = memory.IngestState{File: t.abs}
	case err != nil:
		return state, peeked{}, err
	case !sameHead(t.f, state.Head, t.info.Size()) || state.Offset > t.info.Size():
		// Replaced or cut short: read it again from the top. What was
		// read before is known by its message ids.
		rep.Restarted = true
		state.Offset, state.Line = 0, 0
	}
	peek, err := peekSession(t.f)
	if err != nil {
		return state, peek, fmt.Errorf("transcript %s: %w", t.path, err)
	}
	if state.Session != "" && peek.session != "" && peek.session != state.Session {
		state = memory.IngestState{File: t.abs} // another session now: its own episode
	}
	rep.Session = state.Session
	if rep.Session == "" {
		rep.Session = peek.session
	}
	if rep.Session == "" {
		return state, peek, fmt.Errorf("transcript %s names no session: is it a Claude Code or Codex session log?", t.path)
	}
	return state, peek, nil
}

// diaryOf is the session's diary as the last ingest left it (a new one
// when there is none, or it is of an older cairn).
func diaryOf(state memory.IngestState) *Diary {
	diary := &Diary{}
	if len(state.Diary) > 0 {
		if err := json.Unmarshal(state.Diary, diary); err != nil {
			return &Diary{}
		}
	}
	return diary
}

// ingestion sends one transcript's drafts to the store, in batches.
type ingestion struct {
	ctx      context.Context
	st       memory.Store
	rep      *Report
	pid      string
	session  string
	progress func(items int)
	zone     *time.Location // of the episode's times
	batch    []memory.Draft
}

// read reads the transcript's new items into drafts, sent to the store
// every batchSize. An item with no time of its own takes the time of the
// one before (of the last read, or the file's, at the start).
func (in *ingestion) read(t transcript, state memory.IngestState, opt Options) (Result, error) {
	rep := in.rep
	if _, err := t.f.Seek(state.Offset, io.SeekStart); err != nil {
		return Result{}, fmt.Errorf("transcript %s: %w", t.path, err)
	}
	lastTime := state.Time
	if lastTime.IsZero() {
		lastTime = t.info.ModTime()
	}
	res, err := Read(bufio.NewReaderSize(t.f, 1<<16), opt, func(it Item) error {
		if err := in.ctx.Err(); err != nil {
			return err
		}
		if !it.Time.IsZero() {
			lastTime = it.Time
		}
		in.batch = append(in.batch, draftOf(in.pid, in.session, t.abs, it, lastTime))
		rep.Items++
		if in.progress != nil {
			in.progress(rep.Items)
		}
		if len(in.batch) >= batchSize {
			return in.flush(nil)
		}
		return nil
	})
	rep.Format, rep.Lines, rep.Skipped, rep.Malformed, rep.Redacted, rep.Long = res.Format, res.Lines, res.Skipped, res.Malformed, res.Redacted, res.Long
	if rep.Format == "" {
		rep.Format = opt.Diary.Format // nothing new was read
	}
	if err != nil {
		return res, fmt.Errorf("transcript %s: %w", t.path, err)
	}
	return res, nil
}

// flush sends the drafts read so far, and with the last batch the read
// position (final).
func (in *ingestion) flush(final *memory.IngestState) error {
	rep := in.rep
	b := memory.IngestBatch{Project: in.pid, Drafts: in.batch, State: final}
	if len(in.batch) > 0 {
		b.Summary = fmt.Sprintf("ingested drafts from %s session %s", formatName(rep.Format), shortSession(in.session))
	}
	res, err := in.st.Ingest(in.ctx, b)
	if err != nil {
		return err
	}
	rep.Added += res.Added
	rep.Known += res.Known
	rep.Refused += res.Refused
	for _, e := range res.Errors {
		if len(rep.Errors) < 5 {
			rep.Errors = append(rep.Errors, e)
		}
	}
	in.batch = in.batch[:0]
	return nil
}

// episode writes the session's episode when the session first says
// something, and keeps it up to date after (when the diary changed);
// never again once a person forgot it. An episode that cannot be written
// is reported and tried again at the next read.
func (in *ingestion) episode(p memory.Project, state *memory.IngestState, diary *Diary, changed bool) {
	if !state.NoEpisode && (diary.Prompts > 0 || len(diary.Commands) > 0) && (state.Episode == "" || changed) {
		id, isNew, changed, err := keepEpisode(in.ctx, in.st, p, in.session, in.rep.File, state.Episode, diary, in.zone)
		switch {
		case err != nil:
			in.rep.Errors = append(in.rep.Errors, oneLine(err.Error()))
		case id == "":
			state.Episode, state.NoEpisode = "", true
		default:
			state.Episode, in.rep.EpisodeNew, in.rep.EpisodeUpdated = id, isNew, changed && !isNew
		}
	}
	in.rep.Episode = state.Episode
}

// draftOf is the draft of one item. Its id is a ULID made from the
// message's time and a hash of the session and the item's key, so that the
// same message read twice is the same draft.
func draftOf(pid, session, file string, it Item, fallback time.Time) memory.Draft {
	t := it.Time
	if t.IsZero() {
		t = fallback
	}
	h := sha256.Sum256([]byte(pid + "\x00" + session + "\x00" + it.Key))
	var entropy [10]byte
	copy(entropy[:], h[:])
	id := ulid.MustNew(ulid.Timestamp(t), bytes.NewReader(entropy[:])).String()
	actor := memory.ActorAgent
	if it.Role == RoleUser {
		// What the person typed, as the agent's harness recorded it. What
		// they pasted (RolePasted) is not their words: the agent's.
		actor = memory.ActorUser
	}
	msg := strings.Join(it.Messages, ",")
	if len(msg) > memory.MaxRef {
		msg = msg[:strings.LastIndexByte(msg[:memory.MaxRef], ',')+1] + "…"
		if len(msg) > memory.MaxRef {
			msg = ""
		}
	}
	return memory.Draft{
		ID: id, Project: pid, Time: t.UTC(), Actor: actor, Text: it.Text,
		Source: memory.Source{Actor: actor, Session: session, File: file, Line: it.Line, Message: msg},
	}
}

// keepEpisode writes the session's episode, or brings it up to date. It
// returns "" when a person forgot it: the session gets none again.
func keepEpisode(ctx context.Context, st memory.Store, p memory.Project, session, file, id string, d *Diary, zone *time.Location) (_ string, isNew, changed bool, err error) {
	if zone == nil {
		zone = time.Local
	}
	title, body := d.EpisodeIn(zone)
	if id == "" {
		// A crash between writing the episode and the read position leaves
		// it findable by its ref.
		if m, err := st.GetByRef(ctx, p.ID, EpisodeRef(session)); err == nil {
			id = m.ID
		} else if !errors.Is(err, memory.ErrNotFound) {
			return "", false, false, err
		}
	}
	if id == "" {
		m := &memory.Memory{
			Project: p.ID, Layer: memory.LayerEpisode, Kind: memory.KindEvent, Title: title, Body: body,
			Provenance: memory.ProvObserved, Ref: EpisodeRef(session), Tags: []string{"session", string(d.Format)},
			ValidFrom: d.Start, Source: memory.Source{Actor: memory.ActorSystem, Session: session, File: file},
		}
		if m.Tags[1] == "" {
			m.Tags = m.Tags[:1]
		}
		got, err := st.Remember(ctx, m, memory.ActorSystem)
		if err != nil {
			return "", false, false, fmt.Errorf("write the session's episode: %w", err)
		}
		return got.ID, true, true, nil
	}
	m, err := st.Get(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, err
	}
	if m.Status == memory.StatusActive && (m.Title != title || m.Body != body) {
		if _, err := st.Edit(ctx, id, memory.Patch{Title: &title, Body: &body}, memory.ActorSystem); err != nil {
			return "", false, false, fmt.Errorf("update the session's episode: %w", err)
		}
		return id, false, true, nil
	}
	return id, false, false, nil
}

// projectOf is the project the session's drafts go to: the person's
// choice, the one of an earlier read, or the one of the session's working
// directory. A hook may act only in its own project.
func projectOf(ctx context.Context, st memory.Store, state memory.IngestState, peek peeked, opt IngestOptions) (memory.Project, error) {
	var p memory.Project
	switch {
	case opt.Project != nil:
		p = *opt.Project
	case state.Project != "":
		got, err := st.Project(ctx, state.Project)
		if err != nil {
			return p, err
		}
		p = got
	case peek.cwd != "" && !filepath.IsAbs(peek.cwd):
		// A session recorded on Windows, read here.
		p = project.Foreign(peek.cwd)
	case peek.cwd != "":
		got, err := project.Detect(peek.cwd)
		if err != nil {
			return p, err
		}
		p = got
	default:
		return p, errors.New("the session names no working directory, so its project is unknown: give --project")
	}
	if opt.Only != "" && p.ID != opt.Only {
		// The session's checkout may know the project by another of its
		// keys (a worktree, a project known by its path before).
		got, ok, err := project.Find(ctx, st, p)
		if err != nil {
			return p, err
		}
		if ok && got.ID == opt.Only {
			return st.EnsureProject(ctx, p)
		}
		return p, fmt.Errorf("the session belongs to project %s, not to this one: an agent's hook ingests only its own project's sessions", p.Name)
	}
	return st.EnsureProject(ctx, p)
}

// peeked is what the first lines of a transcript say about its session.
type peeked struct {
	session, cwd string
	subagent     bool // a Codex sub-agent's rollout (its session_meta says so)
}

// peekLines bounds how far peekSession looks.
const peekLines = 200

// peekSession finds the session id and working directory in the first
// lines of a transcript, in either format, and rewinds the file.
func peekSession(f *os.File) (peeked, error) {
	var p peeked
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return p, err
	}
	r := newLineReader(f, MaxLine)
	for n := 0; n < peekLines && (p.session == "" || p.cwd == ""); n++ {
		line, _, _, err := r.next()
		if len(bytes.TrimSpace(line)) > 0 {
			var l struct {
				SessionID string `json:"sessionId"`
				Cwd       string `json:"cwd"`
				Type      string `json:"type"`
				Payload   struct {
					ID     string          `json:"id"`
					Cwd    string          `json:"cwd"`
					Source json.RawMessage `json:"source"`
				} `json:"payload"`
			}
			if json.Unmarshal(line, &l) == nil {
				if p.session == "" {
					p.session = l.SessionID
					if l.Type == "session_meta" {
						p.session = l.Payload.ID
						p.subagent = codexSubagent(l.Payload.Source)
					}
				}
				if p.cwd == "" {
					p.cwd = l.Cwd
					if l.Type == "session_meta" || l.Type == "turn_context" {
						p.cwd = l.Payload.Cwd
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return p, err
		}
	}
	if !validName(p.session) {
		p.session = ""
	}
	if p.cwd != "" && !filepath.IsAbs(p.cwd) && !project.WindowsPath(p.cwd) {
		p.cwd = ""
	}
	_, err := f.Seek(0, io.SeekStart)
	return p, err
}

// validName is a session id cairn keeps: one short line of plain characters.
func validName(s string) bool {
	return s != "" && len(s) <= 128 && !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r == '/' || r == '\\' })
}

// headOf identifies a file by its first bytes: their hash and how many.
func headOf(f *os.File, size int64) (string, error) {
	n := min(size, headBytes)
	buf := make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, n), buf); err != nil {
		return "", err
	}
	h := sha256.Sum256(buf)
	return fmt.Sprintf("%d:%s", n, hex.EncodeToString(h[:16])), nil
}

// sameHead reports whether a file still begins as it did when head (its
// hash of so many first bytes) was taken; a file that was shorter then is
// compared over that many bytes.
func sameHead(f *os.File, head string, size int64) bool {
	if head == "" {
		return true
	}
	var n int64
	if _, err := fmt.Sscanf(head, "%d:", &n); err != nil || n > size {
		return false
	}
	now, err := headOf(f, n)
	return err == nil && now == head
}

// Files expands the paths given to `cairn ingest`: a file as it is, a
// directory into the session logs (*.jsonl) under it, oldest first by name
// within each directory.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, notFound(err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no session logs (*.jsonl)", p)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return missing{pe.Path, err}
		}
	}
	return err
}

// missing is a file that does not exist, said in one line; errors.Is still
// sees fs.ErrNotExist in it.
type missing struct {
	path string
	err  error
}

func (m missing) Error() string { return m.path + " does not exist" }
func (m missing) Unwrap() error { return m.err }

func formatName(f Format) string {
	if f == "" {
		return "an agent's"
	}
	return "a " + string(f)
}

func shortSession(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// Settle notes that the drafts a read (rep) left pending were consolidated,
// so that the next read with nothing new costs only the read. It leaves
// the mark when another read moved on since (its own pass settles it).
func Settle(ctx context.Context, st memory.Store, rep Report) error {
	if !rep.Pending {
		return nil
	}
	state, err := st.IngestState(ctx, rep.File)
	if err != nil {
		return err
	}
	if !state.Pending || state.Offset != rep.next || state.Project != rep.ProjectID {
		return nil
	}
	state.Pending = false
	_, err = st.Ingest(ctx, memory.IngestBatch{Project: state.Project, State: &state})
	return err
}
