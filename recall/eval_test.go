package recall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/project"
	"cairn/store"
)

// evalDir is the public benchmark data, beside the repository (never inside it).
const evalDir = "../../shared/eval"

type evalQuery struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Conv     string   `json:"conv"`
}

type metrics struct {
	n                          int
	r1, r5, r10, mrr10, ndcg10 float64
}

func (m *metrics) add(ranked []string, gold []string) {
	g := map[string]bool{}
	for _, x := range gold {
		g[x] = true
	}
	m.n++
	hitsAt := func(k int) float64 {
		h := 0
		for i := 0; i < k && i < len(ranked); i++ {
			if g[ranked[i]] {
				h++
			}
		}
		return float64(h) / float64(len(g))
	}
	m.r1 += hitsAt(1)
	m.r5 += hitsAt(5)
	m.r10 += hitsAt(10)
	for i := 0; i < 10 && i < len(ranked); i++ {
		if g[ranked[i]] {
			m.mrr10 += 1 / float64(i+1)
			break
		}
	}
	var dcg, idcg float64
	for i := 0; i < 10 && i < len(ranked); i++ {
		if g[ranked[i]] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < len(g) && i < 10; i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	m.ndcg10 += dcg / idcg
}

func (m metrics) String() string {
	n := float64(m.n)
	return fmt.Sprintf("queries %d  R@1 %.3f  R@5 %.3f  R@10 %.3f  MRR@10 %.3f  nDCG@10 %.3f", m.n, m.r1/n, m.r5/n, m.r10/n, m.mrr10/n, m.ndcg10/n)
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// evaluate imports a corpus into a temporary store (one project per group)
// and runs every query through the engine, refs standing for corpus ids.
func init() {
	if v := os.Getenv("CAIRN_EVAL_VEC"); v != "" {
		fmt.Sscan(v, &vecWeight)
	}
}

func evaluate(t *testing.T, groups map[string][]memory.Record, queries []evalQuery, groupOf func(evalQuery) string) metrics {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pids := map[string]string{}
	for g, recs := range groups {
		p, _ := project.Named(g)
		if _, err := db.EnsureProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		pids[g] = p.ID
		for i := 0; i < len(recs); i += 2000 {
			if _, err := db.Import(ctx, p.ID, recs[i:min(i+2000, len(recs))], memory.ActorSystem); err != nil {
				t.Fatal(err)
			}
		}
	}
	e := NewEngine(db, nil)
	if err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	var m metrics
	for _, q := range queries {
		if len(q.Evidence) == 0 {
			continue
		}
		resp, err := e.Recall(ctx, Request{Query: q.Question, Projects: []string{pids[groupOf(q)]}, Limit: 10, Budget: 1 << 30, Peek: true})
		if err != nil {
			t.Fatal(err)
		}
		var ranked []string
		for _, h := range resp.Results {
			ranked = append(ranked, h.Memory.Ref)
		}
		m.add(ranked, q.Evidence)
	}
	return m
}

// TestEvalSciFact: BEIR SciFact, 5,183 abstracts, 300 claims. The published
// BM25 nDCG@10 is 0.665; cairn's recall must reach it.
func TestEvalSciFact(t *testing.T) {
	dir := filepath.Join(evalDir, "scifact")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/eval/scifact beside the repository")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	type doc struct{ ID, Title, Text string }
	var recs []memory.Record
	for _, d := range readJSONL[doc](t, filepath.Join(dir, "corpus.jsonl")) {
		title := d.Title
		if r := []rune(title); len(r) > memory.MaxTitle {
			title = string(r[:memory.MaxTitle-1]) + "…"
		}
		recs = append(recs, memory.Record{Ref: d.ID, Layer: memory.LayerState, Kind: memory.KindFact, Title: title, Body: d.Text, Provenance: memory.ProvExtracted})
	}
	qs := readJSONL[evalQuery](t, filepath.Join(dir, "queries.jsonl"))
	m := evaluate(t, map[string][]memory.Record{"scifact": recs}, qs, func(evalQuery) string { return "scifact" })
	t.Logf("SciFact: %s (BM25 published nDCG@10 0.665; bm25_check.py 0.676)", m)
	if got := m.ndcg10 / float64(m.n); got < 0.665 {
		t.Errorf("SciFact nDCG@10 %.3f is below BM25's published 0.665", got)
	}
}

// TestEvalLoCoMo: two LoCoMo conversations; each turn an episodic memory in
// the conversation's own project. BM25 alone (bm25_check.py) gets R@10 0.585.
func TestEvalLoCoMo(t *testing.T) {
	dir := filepath.Join(evalDir, "locomo-dev")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/eval/locomo-dev beside the repository")
	}
	type turn struct {
		ID, Conv, Date, Speaker, Text string
		ImgCaption                    string `json:"img_caption"`
	}
	groups := map[string][]memory.Record{}
	for _, d := range readJSONL[turn](t, filepath.Join(dir, "corpus.jsonl")) {
		body := d.Speaker + ": " + d.Text
		if d.ImgCaption != "" {
			body += " [image: " + d.ImgCaption + "]"
		}
		title := memory.DeriveTitle(body)
		groups[d.Conv] = append(groups[d.Conv], memory.Record{Ref: d.ID, Layer: memory.LayerEpisode, Kind: memory.KindEvent,
			Title: title, Body: body + "\n\n(" + d.Date + ")", Tags: []string{strings.ToLower(d.Speaker)}, Provenance: memory.ProvObserved})
	}
	qs := readJSONL[evalQuery](t, filepath.Join(dir, "queries.jsonl"))
	m := evaluate(t, groups, qs, func(q evalQuery) string { return q.Conv })
	t.Logf("LoCoMo dev: %s (bm25_check.py R@10 0.585, nDCG@10 0.447)", m)
	if got := m.r10 / float64(m.n); got <= 0.585 {
		t.Errorf("LoCoMo R@10 %.3f does not beat BM25 alone (0.585)", got)
	}
}
