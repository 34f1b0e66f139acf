package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cairn/memory"
	"cairn/safetext"
	"cairn/store"
	"cairn/trust"
)

// Issue 10 item 3, in the workbench: text from the store never reaches the
// terminal raw.

// evil holds what a hostile title or body may carry: OSC 0 (retitles the
// window), cursor movement and line erasing, an OSC 8 link, SGR colour and
// blink that no theme of ours emits, a right-to-left override, an 8-bit
// CSI, BEL, a carriage return and DEL.
const evil = "\x1b]0;pwned\x07\x1b[2K\x1b[1A\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ " +
	"\x1b[5;31mred\x1b[0m \u202eexe.txt\u202c \u009b2J \a\rback\x7f"

// legacyStore is a store as an older cairn may have filled it, before short
// fields were checked at write: what it reads of one memory, and of the
// events about it, comes back with evil in every field a person sees.
type legacyStore struct {
	*store.DB
	id string
}

func (s legacyStore) taint(m *memory.Memory) *memory.Memory {
	if m == nil || m.ID != s.id {
		return m
	}
	c := *m
	c.Title = "Deploys go through ArgoCD " + evil
	c.Body = "# Runbook " + evil + "\n\nSync first " + evil + "\n\n- a step " + evil + "\n"
	c.Tags = []string{"ops" + evil}
	c.Triggers = []string{"deploy " + evil}
	c.Watermarks = []memory.Watermark{{Kind: memory.WatermarkFile, Target: "docs/" + evil + ".md",
		Fingerprint: "sha256:00", State: memory.WatermarkIntact, StampedAt: now}}
	return &c
}

func (s legacyStore) List(ctx context.Context, q memory.Query) (memory.Page, error) {
	p, err := s.DB.List(ctx, q)
	for i, m := range p.Memories {
		p.Memories[i] = s.taint(m)
	}
	return p, err
}

func (s legacyStore) VerifyFirst(ctx context.Context, project string, now time.Time) ([]*memory.Memory, error) {
	ms, err := s.DB.VerifyFirst(ctx, project, now)
	for i, m := range ms {
		ms[i] = s.taint(m)
	}
	return ms, err
}

func (s legacyStore) Get(ctx context.Context, id string) (*memory.Memory, error) {
	m, err := s.DB.Get(ctx, id)
	return s.taint(m), err
}

func (s legacyStore) History(ctx context.Context, id string) ([]*memory.Memory, error) {
	h, err := s.DB.History(ctx, id)
	for i, m := range h {
		h[i] = s.taint(m)
	}
	return h, err
}

func (s legacyStore) Archive(ctx context.Context, id, reason string, by memory.Actor) (*memory.Memory, error) {
	m, err := s.DB.Archive(ctx, id, reason, by)
	return s.taint(m), err
}

func (s legacyStore) Timeline(ctx context.Context, project string, limit int) ([]memory.Event, error) {
	evs, err := s.DB.Timeline(ctx, project, limit)
	for i := range evs {
		if evs[i].MemoryID == s.id {
			evs[i].Title = "Deploys " + evil
			evs[i].Summary = "archived because " + evil
		}
	}
	return evs, err
}

// TestNoStoredTextReachesTheTerminalRaw opens every view of a memory whose
// every field holds escape sequences, bidi overrides and C1 controls, in a
// project whose name holds them too: each frame holds no escape but the
// styling the theme itself emits, and no other control character.
func TestNoStoredTextReachesTheTerminalRaw(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {140, 40}} {
		for _, theme := range []string{"plain", "dark"} {
			t.Run(fmt.Sprintf("%dx%d_%s", size[0], size[1], theme), func(t *testing.T) {
				db := openStore(t, true)
				conf := 0.2 // low trust: it is in the verify-first queue too
				mem, err := db.Remember(bg, &memory.Memory{Project: demoProject.ID, Layer: memory.LayerInvariant,
					Body: "Deploys go through ArgoCD", Provenance: memory.ProvInferred, Confidence: conf}, memory.ActorUser)
				if err != nil {
					t.Fatal(err)
				}
				body := "Deploys go through ArgoCD, synced by hand"
				if _, err := db.Edit(bg, mem.ID, memory.Patch{Body: &body}, memory.ActorUser); err != nil {
					t.Fatal(err)
				}
				st := legacyStore{db, mem.ID}
				proj := memory.Project{ID: demoProject.ID, Name: "demo" + evil}
				m := New(st, Options{Project: proj, Projects: []memory.Project{proj}, Theme: theme, NoColor: theme == "plain",
					Now: func() time.Time { return now },
					Trust: func(p memory.Project) Trust {
						return trust.For(st, p, func() (string, error) { return t.TempDir(), nil }, func(string) string { return "" })
					}})
				m.quiet = true
				m.after = func(time.Duration, tea.Msg) tea.Cmd { return func() tea.Msg { return timerSet{} } }
				drain(t, m, m.Init())
				drain(t, m, func() tea.Msg { return tea.WindowSizeMsg{Width: size[0], Height: size[1]} })

				frame := func(what string) {
					t.Helper()
					v := m.View()
					inert(t, what, v.Content)
					inert(t, what+" (window title)", v.WindowTitle)
				}
				press(t, m, "1")
				if sel := m.list.selected(); sel == nil || sel.ID != mem.ID {
					t.Fatalf("the tainted memory is not selected: %+v", sel)
				}
				frame("the list")
				press(t, m, "enter")
				frame("the detail")
				// The whole detail, the body below the fold too, once rendered.
				whole := strings.Join(m.detail.lines(m.theme, m.detailWidth(), true, m.sid), "\n")
				inert(t, "the whole detail", whole)
				if plain := ansi.Strip(whole); !strings.Contains(plain, "Sync first") || !strings.Contains(plain, "␛]0;pwned␇") {
					t.Fatalf("the body is not shown neutralised:\n%s", ansi.Strip(whole))
				}
				press(t, m, "esc", "x")
				frame("the forget dialog")
				if scr := screen(m); !strings.Contains(scr, "Deploys go through ArgoCD") || !strings.Contains(scr, "␛]0;pwned␇␛[2K") {
					t.Fatalf("the forget dialog does not show the stored title, neutralised:\n%s", screen(m))
				}
				press(t, m, "esc", "s")
				frame("the supersede editor")
				press(t, m, "esc", "d")
				frame("the diff")
				press(t, m, "esc", "v", "select:Deploys go through ArgoCD")
				if len(m.reasons[mem.ID]) == 0 || !strings.Contains(strings.Join(m.reasons[mem.ID], " "), "\x1b") {
					t.Fatalf("the queue gives no tainted reason to show: %q", m.reasons[mem.ID])
				}
				frame("the verify-first queue and its reasons")
				press(t, m, "a")
				frame("the status line of an archive")
				press(t, m, "t")
				frame("the timeline")
				press(t, m, "/", "type:project ", "tab")
				frame("the completion of a project name")
			})
		}
	}
}

// inert fails when s holds an escape sequence other than SGR styling of
// the kind the themes emit, or any other character that acts on a terminal.
func inert(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			n := themeSGR(s[i:])
			if n == 0 {
				t.Errorf("%s: an escape sequence reaches the terminal raw: %q", what, around(s, i))
				return
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			t.Errorf("%s: invalid UTF-8 reaches the terminal: %q", what, around(s, i))
			return
		}
		if safetext.Unsafe(r) || r == '\t' {
			t.Errorf("%s: the control character %U reaches the terminal: %q", what, r, around(s, i))
			return
		}
		i += size
	}
}

// themeSGR is the length of the SGR sequence s starts with when it is one a
// theme or a bubbles input emits (attributes, their resets, colours), else
// 0. Blink, which none uses, does not pass, nor does any other sequence.
func themeSGR(s string) int {
	if !strings.HasPrefix(s, "\x1b[") {
		return 0
	}
	end := strings.IndexByte(s, 'm')
	if end < 0 || strings.Trim(s[2:end], "0123456789;:") != "" {
		return 0
	}
	params := strings.Split(s[2:end], ";")
	for i := 0; i < len(params); i++ {
		p := params[i]
		if strings.HasPrefix(p, "4:") { // underline styles
			continue
		}
		n, err := strconv.Atoi(p)
		if p == "" {
			n, err = 0, nil
		}
		if err != nil {
			return 0
		}
		switch n {
		case 0, 1, 2, 3, 4, 7, 9, 22, 23, 24, 27, 29, 39, 49, 59:
		case 30, 31, 32, 33, 34, 35, 36, 37, 40, 41, 42, 43, 44, 45, 46, 47, 90, 91, 92, 93, 94, 95, 96, 97: // bubbles' default input styles
		case 38, 48, 58:
			switch {
			case i+2 < len(params) && params[i+1] == "5":
				i += 2
			case i+4 < len(params) && params[i+1] == "2":
				i += 4
			default:
				return 0
			}
		default:
			return 0
		}
	}
	return end + 1
}

func around(s string, i int) string {
	return s[max(i-20, 0):min(i+40, len(s))]
}
