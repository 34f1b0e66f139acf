package remote

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"cairn/internal/config"
	"cairn/memory"
	"cairn/recall"
	"cairn/store"
)

// The servers these tests start, in this process or as helpers, never
// read a real user's settings file; a test that wants one sets its own.
func init() {
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(os.TempDir(), "cairn-remote-test-no-config"))
}

// embedServer is an OpenAI-compatible embeddings endpoint on loopback
// that counts the texts it is asked to embed.
type embedServer struct {
	*httptest.Server
	texts atomic.Int64
}

func newEmbedServer(t *testing.T) *embedServer {
	e := &embedServer{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		e.texts.Add(int64(len(req.Input)))
		type item struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, s := range req.Input {
			v := make([]float32, 8)
			for _, w := range strings.Fields(s) {
				h := fnv.New32a()
				h.Write([]byte(strings.ToLower(w)))
				v[h.Sum32()%8]++
			}
			v[0] += 0.01
			out.Data = append(out.Data, item{v, i})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(e.Close)
	return e
}

// serveHome runs the real Serve on a home in this process and returns a
// client of it; the server stops when the test ends.
func serveHome(t *testing.T, home string) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, home, store.Options{}, 0) }()
	sock, err := SocketPath(home)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(func(ctx context.Context) (net.Conn, error) { return dial(ctx, sock) })
	t.Cleanup(func() {
		c.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	// The server listens once it holds the store.
	for {
		if _, err := c.connection(ctx); err == nil {
			return c
		}
		select {
		case err := <-done:
			t.Fatalf("the server stopped: %v", err)
		default:
		}
	}
}

// seed writes memories into the home's store before a server opens it (a
// server indexes what it finds at its start before it answers a recall).
func seed(t *testing.T, home string, bodies ...string) {
	t.Helper()
	if err := PrepareHome(home); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(home, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.EnsureProject(ctx, memory.Project{ID: pid, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	for _, body := range bodies {
		if _, err := db.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerDecision, Body: body}, memory.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
}

// warnings collects what a client says.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.lines = append(w.lines, s); w.mu.Unlock() }
func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// The server embeds with what the settings file says, whatever the
// environment of the process that started it; a client whose own settings
// ask for another embedder is told so, once; and a change of the file
// moves the server to the new embedder without a restart.
func TestServerFollowsTheSettingsFileNotItsStartersEnvironment(t *testing.T) {
	a, b := newEmbedServer(t), newEmbedServer(t)
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "cfg"))
	t.Setenv("OPENAI_API_KEY", "")
	cfgPath := config.Path(os.Getenv)
	if _, err := config.Set(cfgPath, "embed.url", a.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	// The process that starts the server has B in its environment: before
	// the fix, the server would embed with B for every later client.
	t.Setenv("CAIRN_EMBED_URL", b.URL+"/v1")
	home := filepath.Join(tmp, "home")
	seed(t, home, "the decode kernel uses tile size 64", "parked MTP because it was net negative", "prefer stdlib over dependencies")
	c := serveHome(t, home)
	var said warnings
	c.ExpectEmbedder(b.URL+"/v1", "text-embedding-3-small", "CAIRN_EMBED_URL", said.add)
	recallOnce := func(c *Client) recall.Response {
		t.Helper()
		resp, err := recall.Await(ctx, c, recall.Request{Query: "decode kernel tile", Projects: []string{pid}, Peek: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := recallOnce(c)
	if len(resp.Results) == 0 || !strings.Contains(resp.Results[0].Memory.Body, "decode kernel") {
		t.Fatalf("recall did not find the memory: %+v", resp)
	}
	if a.texts.Load() == 0 || b.texts.Load() != 0 {
		t.Fatalf("the server embedded %d texts at the file's endpoint and %d at its starter's environment's: it must follow the file", a.texts.Load(), b.texts.Load())
	}
	got := said.all()
	if len(got) != 1 || !strings.Contains(got[0], "CAIRN_EMBED_URL") || !strings.Contains(got[0], strings.TrimPrefix(a.URL, "http://")) {
		t.Fatalf("a client asking for another embedder must be told once, naming its variable and the server's endpoint; it was told %q", got)
	}
	recallOnce(c)
	if n := len(said.all()); n != 1 {
		t.Fatalf("the note must come once per process, came %d times", n)
	}

	// A client that asks for what the server uses is told nothing.
	var quiet warnings
	c2 := NewClient(c.dial)
	defer c2.Close()
	c2.ExpectEmbedder(a.URL+"/v1", "text-embedding-3-small", "the settings file", quiet.add)
	recallOnce(c2)
	if w := quiet.all(); len(w) != 0 {
		t.Fatalf("a client that agrees with the server was warned: %q", w)
	}

	// The file moves to B: the server follows on the next recall.
	before := a.texts.Load()
	if _, err := config.Set(cfgPath, "embed.url", b.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	resp = recallOnce(c2)
	if b.texts.Load() == 0 {
		t.Fatal("after the settings file changed, the server still does not embed with the new endpoint")
	}
	if a.texts.Load() != before {
		t.Fatalf("after the switch the old endpoint was still asked for %d texts", a.texts.Load()-before)
	}
	if len(resp.Results) == 0 {
		t.Fatalf("recall after the switch found nothing: %+v", resp)
	}
	var s ServerSettings
	if err := c2.call(ctx, "Settings", struct{}{}, &s); err != nil || s.EmbedURL != b.URL+"/v1" || s.File != cfgPath {
		t.Fatalf("the server reports %+v (%v), want the new endpoint from %s", s, err, cfgPath)
	}
}

// A broken settings file does not keep the server from serving: it uses
// the defaults (the built-in embedder) and says what is wrong.
func TestServerWithABrokenSettingsFileServesWithDefaults(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "cfg"))
	t.Setenv("CAIRN_EMBED_URL", "")
	cfgPath := config.Path(os.Getenv)
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	if err := os.WriteFile(cfgPath, []byte("[embed]\nurl = http://x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	seed(t, home, "the decode kernel uses tile size 64")
	c := serveHome(t, home)
	resp, err := recall.Await(ctx, c, recall.Request{Query: "decode kernel", Projects: []string{pid}, Peek: true}, nil)
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("recall with a broken settings file: %+v %v", resp, err)
	}
	var s ServerSettings
	if err := c.call(ctx, "Settings", struct{}{}, &s); err != nil {
		t.Fatal(err)
	}
	if s.EmbedURL != "" || len(s.Problems) != 1 || !strings.Contains(s.Problems[0], cfgPath+":2:") {
		t.Fatalf("the server should use the built-in embedder and name line 2 of the file: %+v", s)
	}
}

// recall.salience_weight in the file is the weight the server's recalls
// give to use.
func TestServerAppliesTheFilesSalienceWeight(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "cfg"))
	t.Setenv("CAIRN_EMBED_URL", "")
	cfgPath := config.Path(os.Getenv)
	home := filepath.Join(tmp, "home")
	seed(t, home, "the decode kernel uses tile size 64")
	c := serveHome(t, home)
	hit := func() recall.Explain {
		t.Helper()
		resp, err := recall.Await(ctx, c, recall.Request{Query: "decode kernel", Projects: []string{pid}}, nil)
		if err != nil || len(resp.Results) != 1 {
			t.Fatalf("recall: %+v %v", resp, err)
		}
		return resp.Results[0].Explain
	}
	page, err := c.List(ctx, memory.Query{Project: pid})
	if err != nil || len(page.Memories) != 1 {
		t.Fatalf("list: %+v %v", page, err)
	}
	// Helpful feedback is use: salience grows.
	if err := c.Feedback(ctx, page.Memories[0].ID, "tile size", true, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0, 1} {
		if _, err := config.Set(cfgPath, "recall.salience_weight", strconv.FormatFloat(w, 'g', -1, 64)); err != nil {
			t.Fatal(err)
		}
		e := hit()
		if e.Salience <= 0 {
			t.Fatalf("no salience after recalls: %+v", e)
		}
		want := e.Relevance * (1 + w*e.Salience + recall.FeedbackWeight*e.Feedback)
		if math.Abs(e.Final-want) > 1e-9 {
			t.Fatalf("weight %g: final %g, want %g (%+v)", w, e.Final, want, e)
		}
	}
}

// BenchmarkSettingsCheck is what the server adds to each recall to follow
// the settings file: a stat of it, unchanged.
func BenchmarkSettingsCheck(b *testing.B) {
	tmp := b.TempDir()
	b.Setenv("HOME", tmp)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "cfg"))
	if _, err := config.Set(config.Path(os.Getenv), "theme", "dark"); err != nil {
		b.Fatal(err)
	}
	l := &liveRecall{getenv: os.Getenv, warn: func(string) {}}
	l.read()
	l.eng = recall.NewEngine(nil, nil)
	for b.Loop() {
		if l.refresh() != l.eng {
			b.Fatal("the engine changed")
		}
	}
}
