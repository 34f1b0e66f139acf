package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Every process these tests start inherits this: none of them reads a
// real user's settings file. A test that wants one points it elsewhere.
func init() {
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(os.TempDir(), "cairn-e2e-no-config"))
}

// embedEndpoint is an OpenAI-compatible embeddings server on loopback that
// counts the texts it embeds.
func embedEndpoint(t *testing.T) (url string, texts *atomic.Int64) {
	texts = new(atomic.Int64)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		texts.Add(int64(len(req.Input)))
		var data []string
		for i, s := range req.Input {
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[%d,1,0.5,0.25]}`, i, len(s)%7+1))
		}
		fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(data, ","))
	}))
	t.Cleanup(s.Close)
	return s.URL + "/v1", texts
}

// Two shells with different CAIRN_EMBED_URL share one server: it embeds
// with the settings file's endpoint whichever of them started it, and the
// shell that asks for another is told so on stderr rather than silently
// given the server's.
func TestEmbedderMeansTheSameWhicheverProcessStartedTheServer(t *testing.T) {
	t.Parallel()
	a, aTexts := embedEndpoint(t)
	b, bTexts := embedEndpoint(t)
	h := newHome(t)
	cfg := filepath.Join(filepath.Dir(h.dir), "config")
	base := h.env()
	withEnv := func(extra ...string) []string {
		return append(append([]string{}, base...), append([]string{"XDG_CONFIG_HOME=" + cfg, "OPENAI_API_KEY="}, extra...)...)
	}
	run := func(env []string, args ...string) (string, string) {
		t.Helper()
		c := h.cmd(args...)
		c.Env = env
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			t.Fatalf("cairn %s: %v: %s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), errb.String()
	}
	run(withEnv(), "config", "set", "embed.url", a)
	// The shell that starts the server has B in its environment.
	run(withEnv("CAIRN_EMBED_URL="+b), "remember", "the decode kernel uses tile size 64")
	out, errs := run(withEnv("CAIRN_EMBED_URL="+b), "recall", "decode kernel")
	if !strings.Contains(out, "decode kernel") {
		t.Fatalf("recall found nothing: %s", out)
	}
	if bTexts.Load() != 0 || aTexts.Load() == 0 {
		t.Fatalf("the server embedded %d texts with the file's endpoint and %d with its starter's: it must follow the file", aTexts.Load(), bTexts.Load())
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "CAIRN_EMBED_URL") || !strings.Contains(errs, "cairn config set embed.url") {
		t.Fatalf("the shell asking for another embedder must be told in one line, got %q", errs)
	}
	// A shell that agrees with the file is told nothing.
	if _, errs := run(withEnv(), "recall", "decode kernel"); errs != "" {
		t.Fatalf("a shell that agrees with the server was told %q", errs)
	}
}
