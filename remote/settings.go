package remote

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"cairn/internal/config"
	"cairn/recall"
	"cairn/store"
)

// The server's settings come from the settings file alone, never from the
// environment of whichever process happened to start it: two shells with
// different CAIRN_EMBED_URL would otherwise get whatever the first one
// asked for, silently. The server re-reads the file when it changes (its
// size or modification time, looked at before each recall), and a change
// of embedder replaces the recall engine with one built for the new one.
//
// A client whose own settings ask for another embedder is told so (see
// Client.ExpectEmbedder) rather than served with it: the vector index is
// one per store and costs an embedding of every memory to build, so
// serving each client's own embedder would build one per client, and two
// processes would rank the same memories by different vectors.

// ServerSettings is what the server says of its settings ("Settings").
type ServerSettings struct {
	File       string   `json:"file"`                  // the settings file it reads
	EmbedURL   string   `json:"embed_url"`             // "" for the built-in embedder
	EmbedModel string   `json:"embed_model,omitempty"` // with EmbedURL
	Problems   []string `json:"problems,omitempty"`    // the file's problems
}

// embedChoice is the part of the settings that decides the engine.
type embedChoice struct{ url, model, key string }

func embedOf(s *config.Settings) embedChoice {
	c := embedChoice{url: strings.TrimSpace(s.Get("embed.url"))}
	if c.url != "" {
		c.model, c.key = s.Get("embed.model"), s.Get("embed.key")
	}
	return c
}

// fileStamp tells whether the settings file changed.
type fileStamp struct {
	exists bool
	ino    uint64 // cairn config set renames a new file in: a new inode
	size   int64
	mtime  time.Time
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil || path == "" {
		return fileStamp{}
	}
	st := fileStamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = uint64(sys.Ino)
	}
	return st
}

// liveRecall answers recalls with an engine built for the settings in
// force, replacing it when the file changes the embedder.
type liveRecall struct {
	st     *store.DB
	home   string
	getenv func(string) string
	warn   func(string)
	parent context.Context

	mu       sync.Mutex
	settings *config.Settings
	stamp    fileStamp
	choice   embedChoice
	eng      *recall.Engine
	stop     func() // stops the engine's build and event feed, and saves it
}

func newLiveRecall(ctx context.Context, st *store.DB, home string, getenv func(string) string, warn func(string)) (*liveRecall, error) {
	l := &liveRecall{st: st, home: home, getenv: getenv, warn: warn, parent: ctx}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.read()
	return l, l.start()
}

// read loads the file's settings (the caller holds mu).
func (l *liveRecall) read() {
	l.settings = config.LoadFile(l.getenv)
	l.stamp = stampOf(l.settings.Path)
	for _, p := range l.settings.Problems {
		l.warn(p)
	}
}

// start builds an engine for the settings (the caller holds mu).
func (l *liveRecall) start() error {
	l.choice = embedOf(l.settings)
	emb := recall.Configured(l.settings.Getenv(l.getenv), l.warn)
	eng := recall.NewEngine(l.st, emb)
	// The index is read from where the last server left it and saved
	// when this one stops, so a start after an idle exit does not build
	// it again from every memory.
	eng.Persist(recall.SnapshotPath(l.home))
	// A build reads every memory: what it decoded is garbage once it is
	// done, and is given back at once rather than over minutes.
	eng.OnBuilt(debug.FreeOSMemory)
	ctx, cancel := context.WithCancel(l.parent)
	events, err := l.st.Subscribe(ctx)
	if err != nil {
		cancel()
		return err
	}
	go eng.Follow(ctx, events)
	built := make(chan struct{})
	go func() { defer close(built); eng.Build(ctx) }()
	l.eng = eng
	l.stop = func() {
		cancel()
		<-built // a build cut short by the stop is not saved
		if err := eng.Save(); err != nil {
			l.warn("the recall index was not saved (the next start builds it): " + err.Error())
		}
	}
	return nil
}

// refresh re-reads the file if it changed and, if the embedder changed,
// replaces the engine. It returns the engine to use.
func (l *liveRecall) refresh() *recall.Engine {
	l.mu.Lock()
	defer l.mu.Unlock()
	if stampOf(l.settings.Path) == l.stamp {
		return l.eng
	}
	l.read()
	if embedOf(l.settings) == l.choice {
		return l.eng
	}
	was := describe(l.choice.url, l.choice.model)
	l.stop()
	if err := l.start(); err != nil {
		l.warn("the recall engine could not be restarted for the new settings: " + err.Error())
		return l.eng
	}
	fmt.Fprintf(os.Stderr, "cairn: the settings file changed the embedder from %s to %s: rebuilding the recall index\n", was, describe(l.choice.url, l.choice.model))
	return l.eng
}

// Recall answers with the engine of the settings in force; a request
// without a budget or salience weight gets the settings'.
func (l *liveRecall) Recall(ctx context.Context, req recall.Request) (recall.Response, error) {
	eng := l.refresh()
	l.mu.Lock()
	if req.Budget <= 0 {
		req.Budget = l.settings.Int("recall.budget")
	}
	if req.SalienceWeight == nil {
		w := l.settings.Float("recall.salience_weight")
		req.SalienceWeight = &w
	}
	l.mu.Unlock()
	return eng.Recall(ctx, req)
}

// Settings is what the server says of its settings.
func (l *liveRecall) Settings() ServerSettings {
	l.refresh()
	l.mu.Lock()
	defer l.mu.Unlock()
	return ServerSettings{File: l.settings.Path, EmbedURL: l.choice.url, EmbedModel: l.choice.model, Problems: l.settings.Problems}
}

// Close stops the engine and saves its index.
func (l *liveRecall) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
}

// describe names an embedder in messages, without the URL's user
// information (it may hold a password) or query.
func describe(rawURL, model string) string {
	if rawURL == "" {
		return "the built-in embedder"
	}
	where := "an invalid URL"
	if u, err := url.Parse(rawURL); err == nil {
		where = u.Scheme + "://" + u.Host + u.Path
	}
	return model + " at " + where
}

// embedCheck is what a client compares with its server's embedder, once,
// at its first recall.
type embedCheck struct {
	once       sync.Once
	url, model string // what this process's settings ask for
	from       string // where they ask it ("CAIRN_EMBED_URL", "the settings file")
	warn       func(string)
}

// ExpectEmbedder tells the client which embedder this process's own
// settings ask for. At the first recall it asks the server which one it
// uses and, when they differ, says so once through warn: the recall is
// the server's, and the user should know it is not what they asked for.
// Call it before the first recall.
func (c *Client) ExpectEmbedder(url, model, from string, warn func(string)) {
	c.embed.url, c.embed.model, c.embed.from, c.embed.warn = strings.TrimSpace(url), strings.TrimSpace(model), from, warn
	if c.embed.url == "" {
		c.embed.model = ""
	}
}

// CheckEmbedder makes that comparison now (the workbench does, before it
// takes the screen, where a line on stderr would tear it).
func (c *Client) CheckEmbedder(ctx context.Context) { c.checkEmbedder(ctx) }

func (c *Client) checkEmbedder(ctx context.Context) {
	e := &c.embed
	if e.warn == nil {
		return
	}
	e.once.Do(func() {
		var s ServerSettings
		if err := c.call(ctx, "Settings", struct{}{}, &s); err != nil {
			return // a server of an older cairn: nothing to compare
		}
		same := func(a, b string) bool { return strings.TrimRight(a, "/") == strings.TrimRight(b, "/") }
		if same(e.url, s.EmbedURL) && (e.url == "" || e.model == s.EmbedModel) {
			return
		}
		fix := "run `cairn config set embed.url URL` (and embed.model) to change it for every process"
		if e.from != "" && e.from != "the settings file" {
			fix += ", or unset " + e.from
		}
		e.warn(fmt.Sprintf("this process asks for %s (%s) but the shared store server embeds with %s (settings file %s): recall uses the server's — %s",
			describe(e.url, e.model), e.from, describe(s.EmbedURL, s.EmbedModel), orNone(s.File), fix))
	})
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
