package ui

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"

	"cairn/memory"
	"cairn/recall"
	"cairn/store"
	"cairn/themes"
)

// Store is what the workbench needs of cairn's store.
type Store interface {
	List(ctx context.Context, q store.Query) (store.Page, error)
	Count(ctx context.Context, project string) (store.Counts, error)
	Get(ctx context.Context, id string) (*memory.Memory, error)
	Resolve(ctx context.Context, idOrPrefix string) (string, error)
	History(ctx context.Context, id string) ([]*memory.Memory, error)
	Edges(ctx context.Context, id string) (out, in []memory.Edge, err error)
	Remember(ctx context.Context, m *memory.Memory, by memory.Actor) (*memory.Memory, error)
	Supersede(ctx context.Context, oldID string, m *memory.Memory, by memory.Actor) (*memory.Memory, error)
	Archive(ctx context.Context, id, reason string, by memory.Actor) (*memory.Memory, error)
	Unarchive(ctx context.Context, id string, by memory.Actor) (*memory.Memory, error)
	Forget(ctx context.Context, id string, by memory.Actor) error
	Link(ctx context.Context, e memory.Edge, by memory.Actor) error
	Timeline(ctx context.Context, project string, limit int) ([]memory.Event, error)
	Projects(ctx context.Context) ([]memory.Project, error)
	EnsureProject(ctx context.Context, p memory.Project) (memory.Project, error)
	Subscribe(ctx context.Context) (<-chan memory.Event, error)
}

var bg = context.Background()

// pageSize is how many memories the list loads at a time.
const pageSize = 100

func loadCounts(st Store, project string) tea.Cmd {
	return func() tea.Msg {
		c, err := st.Count(bg, project)
		return countsLoadedMsg{project, c, err}
	}
}

func loadPage(st Store, req int, q store.Query, more bool) tea.Cmd {
	return func() tea.Msg {
		q.Limit = pageSize
		p, err := st.List(bg, q)
		return pageLoadedMsg{req: req, items: p.Memories, next: p.Next, more: more, err: err}
	}
}

func loadMemory(st Store, id string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Get(bg, id)
		if err != nil {
			return memoryLoadedMsg{id: id, err: err}
		}
		out, in, err := st.Edges(bg, id)
		titles := map[string]string{}
		ids := append([]string{m.SupersededBy}, m.Supersedes...)
		for _, e := range out {
			ids = append(ids, e.To)
		}
		for _, e := range in {
			ids = append(ids, e.From)
		}
		for _, other := range ids {
			if other == "" || titles[other] != "" {
				continue
			}
			if o, err := st.Get(bg, other); err == nil {
				titles[other] = o.Title
			}
		}
		return memoryLoadedMsg{id: id, mem: m, out: out, in: in, titles: titles, err: err}
	}
}

// render turns markdown into styled text with a fresh renderer (a shared
// glamour renderer is a data race).
func render(key renderKey, body string, theme themes.Theme) tea.Cmd {
	return func() tea.Msg {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(theme.Glamour()), glamour.WithWordWrap(max(key.width, 20)))
		if err != nil {
			return renderedMsg{key, body}
		}
		out, err := r.Render(body)
		if err != nil {
			return renderedMsg{key, body}
		}
		return renderedMsg{key, strings.Trim(out, "\n")}
	}
}

func loadTimeline(st Store, project string) tea.Cmd {
	return func() tea.Msg {
		evs, err := st.Timeline(bg, project, 200)
		return timelineLoadedMsg{project, evs, err}
	}
}

func loadProjects(st Store) tea.Cmd {
	return func() tea.Msg {
		ps, err := st.Projects(bg)
		return projectsLoadedMsg{ps, err}
	}
}

func archive(st Store, id string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Archive(bg, id, "", memory.ActorUser)
		return actionDoneMsg{verb: "archived", mem: m, id: id, err: err}
	}
}

func unarchive(st Store, id string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Unarchive(bg, id, memory.ActorUser)
		return actionDoneMsg{verb: "unarchived", mem: m, id: id, err: err}
	}
}

func forget(st Store, id string) tea.Cmd {
	return func() tea.Msg {
		return actionDoneMsg{verb: "forgot", id: id, err: st.Forget(bg, id, memory.ActorUser)}
	}
}

// readForForget re-reads the stored text so the dialog shows what is really there.
func readForForget(st Store, id string) tea.Cmd {
	return func() tea.Msg {
		m, err := st.Get(bg, id)
		return forgetTextMsg{m, err}
	}
}

func remember(st Store, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		got, err := st.Remember(bg, m, memory.ActorUser)
		return actionDoneMsg{verb: "remembered", mem: got, err: err}
	}
}

func supersede(st Store, oldID string, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		got, err := st.Supersede(bg, oldID, m, memory.ActorUser)
		return actionDoneMsg{verb: "superseded", mem: got, id: oldID, err: err}
	}
}

func link(st Store, e memory.Edge) tea.Cmd {
	return func() tea.Msg {
		return actionDoneMsg{verb: "linked", id: e.From, err: st.Link(bg, e, memory.ActorUser)}
	}
}

// loadDiff finds what to compare for a memory: a superseded one against
// its successor, else its previous version against the current one.
func loadDiff(st Store, m *memory.Memory) tea.Cmd {
	return func() tea.Msg {
		if m.SupersededBy != "" {
			n, err := st.Get(bg, m.SupersededBy)
			return historyLoadedMsg{old: m, new: n, title: "superseded → successor", err: err}
		}
		if len(m.Supersedes) > 0 {
			o, err := st.Get(bg, m.Supersedes[0])
			return historyLoadedMsg{old: o, new: m, title: "predecessor → this", err: err}
		}
		h, err := st.History(bg, m.ID)
		if err != nil {
			return historyLoadedMsg{err: err}
		}
		if len(h) < 2 {
			return historyLoadedMsg{err: errNothingToCompare}
		}
		return historyLoadedMsg{old: h[len(h)-2], new: h[len(h)-1], title: "previous version → current", err: nil}
	}
}

func doRecall(st Store, projects []string, query string) tea.Cmd {
	return func() tea.Msg {
		rs, err := recall.Simple(bg, st, query, recall.Options{Projects: projects, Limit: 50, Budget: 1 << 20})
		return recallDoneMsg{query, rs, err}
	}
}

// subscribe starts following the store's timeline; waitEvent reads one event.
func subscribe(ctx context.Context, st Store) tea.Cmd {
	return func() tea.Msg {
		ch, err := st.Subscribe(ctx)
		if err != nil {
			return nil
		}
		return subscribedMsg{ch}
	}
}

func waitEvent(ch <-chan memory.Event) tea.Cmd {
	return func() tea.Msg {
		e, ok := <-ch
		if !ok {
			return nil
		}
		return storeEventMsg{e}
	}
}

// editExternally opens $EDITOR (vi if unset) on text.
func editExternally(text string) tea.Cmd {
	f, err := os.CreateTemp("", "cairn-*.md")
	if err != nil {
		return func() tea.Msg { return editorDoneMsg{err: err} }
	}
	f.WriteString(text)
	f.Close()
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	parts := strings.Fields(editor)
	c := exec.Command(parts[0], append(parts[1:], f.Name())...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(f.Name())
		if err != nil {
			return editorDoneMsg{err: err}
		}
		b, err := os.ReadFile(f.Name())
		return editorDoneMsg{text: string(b), err: err}
	})
}

func clearStatusAfter(seq int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return statusClearMsg{seq} })
}
