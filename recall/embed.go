package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Embedder turns texts into vectors of one fixed dimension.
type Embedder interface {
	Name() string // identifies the model in the vector cache
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Hashed is the built-in embedder: hashed word and character-trigram
// features. It needs no model and no network. It is fuzzy — typos,
// inflections and shared fragments of identifiers bring texts together —
// but it is not semantic: "car" and "automobile" are strangers to it.
type Hashed struct{ Dim int }

// NewHashed is the built-in embedder with 256 dimensions.
func NewHashed() Hashed { return Hashed{Dim: 256} }

func (h Hashed) Name() string { return fmt.Sprintf("hashed-ngram-%d", h.Dim) }

func (h Hashed) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h Hashed) vector(text string) []float32 { return h.fromTokens(Tokens(text)) }

// fromTokens embeds already tokenized text: each token is a feature, and
// so is each character trigram of it (with ^ and $ marking its ends).
func (h Hashed) fromTokens(tokens []string) []float32 {
	return h.fromTokensInto(make([]float32, h.Dim), tokens)
}

// fromTokensInto is fromTokens into v (of h.Dim numbers, overwritten): a
// recall embeds every candidate into one buffer.
func (h Hashed) fromTokensInto(v []float32, tokens []string) []float32 {
	clear(v)
	add := func(x uint64, w float32) {
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(h.Dim)] += w
	}
	for _, tok := range tokens {
		add(fnv64('w', tok, 0, len(tok)), 1)
		// trigrams of "^" + tok + "$", hashed without building the strings
		n := len(tok) + 2
		at := func(i int) byte {
			switch i {
			case 0:
				return '^'
			case n - 1:
				return '$'
			}
			return tok[i-1]
		}
		for i := 0; i+3 <= n; i++ {
			x := uint64(fnvOffset)
			for _, c := range [4]byte{'c', at(i), at(i + 1), at(i + 2)} {
				x = (x ^ uint64(c)) * fnvPrime
			}
			add(x, 0.35)
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x * x)
	}
	if norm == 0 {
		v[0] = 1e-6 // the index needs a nonzero vector
	}
	return v
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv64 is FNV-1a of a kind byte followed by s[from:to].
func fnv64(kind byte, s string, from, to int) uint64 {
	x := uint64(fnvOffset)
	x = (x ^ uint64(kind)) * fnvPrime
	for i := from; i < to; i++ {
		x = (x ^ uint64(s[i])) * fnvPrime
	}
	return x
}

// HTTPEmbedder asks an OpenAI-compatible /v1/embeddings endpoint (OpenAI,
// Ollama, llama.cpp server).
type HTTPEmbedder struct {
	URL    string // base URL, e.g. http://localhost:11434/v1
	Model  string
	Key    string
	Client *http.Client
	Dim    int // expected dimension; 0 learns it from the first answer
}

func (e *HTTPEmbedder) Name() string { return "http:" + e.Model }

func (e *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(map[string]any{"model": e.Model, "input": texts})
	url := strings.TrimRight(e.URL, "/")
	if !strings.HasSuffix(url, "/embeddings") {
		url += "/embeddings"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.Key != "" {
		req.Header.Set("Authorization", "Bearer "+e.Key)
	}
	c := e.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embedding endpoint unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("embedding endpoint answered %s", resp.Status)
	}
	var parsed struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return nil, fmt.Errorf("embedding endpoint sent malformed JSON: %v", err)
	}
	if len(parsed.Data) != len(texts) {
		return nil, fmt.Errorf("embedding endpoint returned %d vectors for %d texts", len(parsed.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, d := range parsed.Data {
		idx := d.Index
		if idx < 0 || idx >= len(texts) {
			idx = i
		}
		if e.Dim == 0 {
			e.Dim = len(d.Embedding)
		}
		if len(d.Embedding) != e.Dim || e.Dim == 0 {
			return nil, fmt.Errorf("embedding endpoint returned dimension %d, expected %d", len(d.Embedding), e.Dim)
		}
		for _, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("embedding endpoint returned a non-finite number")
			}
		}
		out[idx] = d.Embedding
	}
	return out, nil
}

// Fallback uses Primary and, once it fails, the built-in embedder for good,
// saying so once through Warn. Vectors of the two never mix: after the
// switch the index is rebuilt with the fallback.
// It is safe for concurrent use: recalls ask its Name while an index
// build embeds.
type Fallback struct {
	Primary  Embedder
	Backup   Embedder
	Warn     func(string)
	switched atomic.Bool
}

func (f *Fallback) Name() string {
	if f.switched.Load() {
		return f.Backup.Name()
	}
	return f.Primary.Name()
}

func (f *Fallback) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if !f.switched.Load() {
		v, err := f.Primary.Embed(ctx, texts)
		if err == nil {
			return v, nil
		}
		if f.switched.CompareAndSwap(false, true) && f.Warn != nil {
			f.Warn(fmt.Sprintf("embedder %s failed (%v): using the built-in %s instead", f.Primary.Name(), err, f.Backup.Name()))
		}
	}
	return f.Backup.Embed(ctx, texts)
}

// Switched reports whether the fallback has taken over.
func (f *Fallback) Switched() bool { return f.switched.Load() }

// Configured is the embedder the environment asks for: an
// OpenAI-compatible endpoint when CAIRN_EMBED_URL is set (model from
// CAIRN_EMBED_MODEL, key from CAIRN_EMBED_KEY or OPENAI_API_KEY), falling
// back to the built-in one, which is also the default.
func Configured(getenv func(string) string, warn func(string)) Embedder {
	url := getenv("CAIRN_EMBED_URL")
	if url == "" {
		return NewHashed()
	}
	key := getenv("CAIRN_EMBED_KEY")
	if key == "" {
		key = getenv("OPENAI_API_KEY")
	}
	model := getenv("CAIRN_EMBED_MODEL")
	if model == "" {
		model = "text-embedding-3-small"
	}
	return &Fallback{Primary: &HTTPEmbedder{URL: url, Model: model, Key: key}, Backup: NewHashed(), Warn: warn}
}

// cosine of two vectors of one dimension (0 when either is zero).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
