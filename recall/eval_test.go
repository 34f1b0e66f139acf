package recall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
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
	Category string   `json:"category_name"`
}

type metrics struct {
	n, nothing                 int
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
	return fmt.Sprintf("queries %d  R@1 %.3f  R@5 %.3f  R@10 %.3f  MRR@10 %.3f  nDCG@10 %.3f  (nothing known %d)", m.n, m.r1/n, m.r5/n, m.r10/n, m.mrr10/n, m.ndcg10/n, m.nothing)
}

// round3 is a figure as docs/recall.md reports it.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

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
	if v := os.Getenv("CAIRN_EVAL_PRF"); v != "" {
		fmt.Sscan(v, &prfDocs, &prfWords, &prfAlpha, &prfShort, &prfMinMatches)
	}
	if v := os.Getenv("CAIRN_EVAL_CTX"); v != "" {
		fmt.Sscan(v, &contextWeight, &contextDecay, &contextReach)
	}
	if v := os.Getenv("CAIRN_EVAL_TITLE"); v != "" {
		fmt.Sscan(v, &titleBoost)
	}
	if v := os.Getenv("CAIRN_EVAL_BM25"); v != "" {
		fmt.Sscan(v, &bm25K1, &bm25B)
	}
}

// evalSplit is a run's figures over all queries, each half (the queries of
// even and odd position in the file: parameters were tuned on the even
// half, the odd one says how well that holds) and each category.
type evalSplit struct {
	all, even, odd metrics
	byCategory     map[string]*metrics
}

func (s *evalSplit) add(i int, q evalQuery, ranked []string) {
	s.all.add(ranked, q.Evidence)
	if i%2 == 0 {
		s.even.add(ranked, q.Evidence)
	} else {
		s.odd.add(ranked, q.Evidence)
	}
	if q.Category != "" {
		if s.byCategory == nil {
			s.byCategory = map[string]*metrics{}
		}
		if s.byCategory[q.Category] == nil {
			s.byCategory[q.Category] = &metrics{}
		}
		s.byCategory[q.Category].add(ranked, q.Evidence)
	}
}

// log writes the halves and categories of a run.
func (s evalSplit) log(t *testing.T, name string) {
	t.Logf("%s, even half (tuned on): %s", name, s.even)
	t.Logf("%s, odd half (held out):  %s", name, s.odd)
	cats := make([]string, 0, len(s.byCategory))
	for c := range s.byCategory {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, c := range cats {
		t.Logf("%s, %-12s %s", name, c+":", s.byCategory[c])
	}
}

// evaluate runs the queries twice over one store: first static (Peek:
// nothing counted), then in use — in order, each recall counting as an
// access of what it returned, as an agent's recalls do.
func evaluate(t *testing.T, groups map[string][]memory.Record, queries []evalQuery, groupOf func(evalQuery) string) (static, inUse evalSplit) {
	ctx := context.Background()
	e, pids := evalEngine(t, groups)
	run := func(peek bool) evalSplit {
		var m evalSplit
		for i, q := range queries {
			if len(q.Evidence) == 0 {
				continue
			}
			resp, err := e.Recall(ctx, Request{Query: q.Question, Projects: []string{pids[groupOf(q)]}, Limit: 10, Budget: 1 << 30, Peek: peek})
			if err != nil {
				t.Fatal(err)
			}
			var ranked []string
			for _, h := range resp.Results {
				ranked = append(ranked, h.Memory.Ref)
			}
			m.add(i, q, ranked)
			if resp.Nothing {
				m.all.nothing++
				if os.Getenv("CAIRN_EVAL_SHOW") != "" && peek {
					t.Logf("nothing known: %q", q.Question)
				}
			}
		}
		return m
	}
	return run(true), run(false)
}

// TestEvalSciFact: BEIR SciFact, 5,183 abstracts, 300 claims. The published
// BM25 nDCG@10 is 0.665; cairn's recall must reach it. The quality target
// (issue 13) is 0.72 in use; dense models reach about 0.74.
func TestEvalSciFact(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(evalDir, "scifact")
	if _, err := os.Stat(dir); err != nil {
		testenv.Missing(t, "no ../shared/eval/scifact beside the repository")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	recs := scifactRecords(t, dir)
	qs := readJSONL[evalQuery](t, filepath.Join(dir, "queries.jsonl"))
	static, inUse := evaluate(t, map[string][]memory.Record{"scifact": recs}, qs, func(evalQuery) string { return "scifact" })
	t.Logf("SciFact static: %s (BM25 published nDCG@10 0.665; bm25_check.py 0.676)", static.all)
	t.Logf("SciFact in use: %s", inUse.all)
	inUse.log(t, "SciFact in use")
	if got := static.all.ndcg10 / float64(static.all.n); got < 0.665 {
		t.Errorf("SciFact nDCG@10 %.3f is below BM25's published 0.665", got)
	}
	if s, u := static.all.ndcg10/float64(static.all.n), inUse.all.ndcg10/float64(inUse.all.n); round3(u) < round3(s) {
		t.Errorf("SciFact: use costs relevance: nDCG@10 %.3f in use, %.3f static", u, s)
	}
}

// TestEvalLoCoMo: two LoCoMo conversations; each turn an episodic memory in
// the conversation's own project, written as a transcript's ingestion
// writes it (its session, line and time as metadata, not in its text).
// BM25 alone (bm25_check.py) gets R@10 0.585; the target (issue 13) is
// 0.70 in use.
func TestEvalLoCoMo(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(evalDir, "locomo-dev")
	if _, err := os.Stat(dir); err != nil {
		testenv.Missing(t, "no ../shared/eval/locomo-dev beside the repository")
	}
	groups := locomoRecords(t, dir)
	qs := readJSONL[evalQuery](t, filepath.Join(dir, "queries.jsonl"))
	static, inUse := evaluate(t, groups, qs, func(q evalQuery) string { return q.Conv })
	t.Logf("LoCoMo dev static: %s (bm25_check.py R@10 0.585, nDCG@10 0.447)", static.all)
	t.Logf("LoCoMo dev in use: %s", inUse.all)
	inUse.log(t, "LoCoMo in use")
	if got := static.all.r10 / float64(static.all.n); got <= 0.585 {
		t.Errorf("LoCoMo R@10 %.3f does not beat BM25 alone (0.585)", got)
	}
	if got := inUse.all.r10 / float64(inUse.all.n); got < 0.70 {
		t.Errorf("LoCoMo R@10 in use %.3f is under the target 0.70", got)
	}
	if s, u := static.all.r10/float64(static.all.n), inUse.all.r10/float64(inUse.all.n); round3(u) < round3(s) {
		t.Errorf("LoCoMo: use costs relevance: R@10 %.3f in use, %.3f static", u, s)
	}
}

// evalEngine imports each group of records into a project of its own in
// a temporary store and builds an engine over it; pids maps group → id.
func evalEngine(t *testing.T, groups map[string][]memory.Record) (e *Engine, pids map[string]string) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pids = map[string]string{}
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
	e = NewEngine(db, nil)
	if err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	return e, pids
}

func scifactRecords(t testing.TB, dir string) []memory.Record {
	type doc struct{ ID, Title, Text string }
	var recs []memory.Record
	for _, d := range readJSONL[doc](t, filepath.Join(dir, "corpus.jsonl")) {
		title := d.Title
		if r := []rune(title); len(r) > memory.MaxTitle {
			title = string(r[:memory.MaxTitle-1]) + "…"
		}
		recs = append(recs, memory.Record{Ref: d.ID, Layer: memory.LayerState, Kind: memory.KindFact, Title: title, Body: d.Text, Provenance: memory.ProvExtracted})
	}
	return recs
}

func locomoRecords(t testing.TB, dir string) map[string][]memory.Record {
	type turn struct {
		ID, Conv, Date, Speaker, Text string
		DateISO                       string `json:"date_iso"`
		Session, Turn                 int
		ImgCaption                    string `json:"img_caption"`
	}
	groups := map[string][]memory.Record{}
	for _, d := range readJSONL[turn](t, filepath.Join(dir, "corpus.jsonl")) {
		body := d.Speaker + ": " + d.Text
		if d.ImgCaption != "" {
			body += " [image: " + d.ImgCaption + "]"
		}
		if os.Getenv("CAIRN_EVAL_DATEBODY") != "" {
			body += "\n\n(" + d.Date + ")"
		}
		at, err := time.Parse("2006-01-02T15:04:05", d.DateISO)
		if err != nil {
			t.Fatal(err)
		}
		// As a transcript's ingestion writes it: the session it was said
		// in, its line there, and when it was said.
		groups[d.Conv] = append(groups[d.Conv], memory.Record{Ref: d.ID, Layer: memory.LayerEpisode, Kind: memory.KindEvent,
			Title: memory.DeriveTitle(body), Body: body, Tags: []string{strings.ToLower(d.Speaker)}, Provenance: memory.ProvObserved,
			CreatedAt: at, ValidFrom: at, Source: memory.Source{Session: fmt.Sprintf("%s session %d", d.Conv, d.Session), Line: d.Turn}})
	}
	return groups
}

// offTopic are questions neither corpus knows anything about.
var offTopic = []string{
	"kubernetes helm chart", "capital of France", "how do I configure the nginx reverse proxy",
	"rust borrow checker lifetime error", "postgres vacuum settings", "what is the wifi password policy",
	"terraform state lock", "best pizza in Naples", "javascript promise rejection handling",
	"git rebase interactive squash", "docker compose healthcheck", "stock price of Apple in 2019",
	"who won the world cup in 1998", "css grid layout alignment", "python asyncio event loop",
	"redis eviction policy", "the deploy pipeline for the billing service", "grpc deadline exceeded",
	"latex table column width", "how to bake sourdough bread",
}

// TestEvalNothingKnown: with absolute scores, a question the store knows
// nothing about comes back empty ("nothing known") while the benchmark's
// own questions still get answers. One store holds SciFact and the LoCoMo
// conversations as separate projects; each question is asked of its own
// project, of the other corpus's project, and the off-topic ones of both.
//
// The questions asked of the other corpus and the best relevances with no
// floor at all are figures for tuning Floor, logged, not asserted: they
// are asked with CAIRN_EVAL_SHOW set (CAIRN_EVAL_SHOW=1 go test -run
// EvalNothingKnown -v ./recall/). The pass with no floor sets the
// package's Floor, so the test then runs alone.
func TestEvalNothingKnown(t *testing.T) {
	show := os.Getenv("CAIRN_EVAL_SHOW") != ""
	if !show {
		t.Parallel()
	}
	sdir, ldir := filepath.Join(evalDir, "scifact"), filepath.Join(evalDir, "locomo-dev")
	for _, d := range []string{sdir, ldir} {
		if _, err := os.Stat(d); err != nil {
			testenv.Missing(t, "no "+d+" beside the repository")
		}
	}
	if testing.Short() {
		t.Skip("-short")
	}
	ctx := context.Background()
	groups := locomoRecords(t, ldir)
	groups["scifact"] = scifactRecords(t, sdir)
	e, pids := evalEngine(t, groups)
	type tally struct {
		asked, nothing, weak int
		best                 []float64 // the best relevance with no floor at all
	}
	var own, foreign, off tally
	ask := func(tl *tally, q, group string) {
		req := Request{Query: q, Projects: []string{pids[group]}, Limit: 10, Budget: 1 << 30, Peek: true}
		if show {
			floor := Floor
			Floor = 0
			resp, err := e.Recall(ctx, req)
			Floor = floor
			if err != nil {
				t.Fatal(err)
			}
			b := 0.0
			for _, h := range resp.Results {
				if h.Explain.Graph == "" {
					b = max(b, h.Explain.answers)
				}
			}
			tl.best = append(tl.best, b)
		}
		resp, err := e.Recall(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		tl.asked++
		if show && tl == &off && !resp.Nothing && !resp.Weak {
			t.Logf("off-topic %q in %s: %q %.2f", q, group, resp.Results[0].Memory.Title, resp.Results[0].Explain.answers)
		}
		if resp.Nothing {
			tl.nothing++
		} else if resp.Weak {
			tl.weak++
		}
	}
	var convs []string
	for g := range groups {
		if g != "scifact" {
			convs = append(convs, g)
		}
	}
	for _, q := range readJSONL[evalQuery](t, filepath.Join(sdir, "queries.jsonl")) {
		if len(q.Evidence) > 0 {
			ask(&own, q.Question, "scifact")
			if show {
				ask(&foreign, q.Question, convs[len(q.Question)%len(convs)])
			}
		}
	}
	for _, q := range readJSONL[evalQuery](t, filepath.Join(ldir, "queries.jsonl")) {
		if len(q.Evidence) > 0 {
			ask(&own, q.Question, q.Conv)
			if show {
				ask(&foreign, q.Question, "scifact")
			}
		}
	}
	for _, q := range offTopic {
		for g := range groups {
			ask(&off, q, g)
		}
	}
	pct := func(n, of int) float64 { return 100 * float64(n) / float64(of) }
	quantiles := func(xs []float64) string {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		q := func(p float64) float64 { return xs[int(p*float64(len(xs)-1))] }
		return fmt.Sprintf("p5 %.2f  p25 %.2f  p50 %.2f  p75 %.2f  p95 %.2f", q(0.05), q(0.25), q(0.5), q(0.75), q(0.95))
	}
	if show {
		t.Logf("best relevance, own questions:   %s", quantiles(own.best))
		t.Logf("best relevance, other corpus's:  %s", quantiles(foreign.best))
		t.Logf("best relevance, off-topic:       %s", quantiles(off.best))
	}
	t.Logf("own questions: %d asked, %.1f %% nothing known, %.1f %% weak", own.asked, pct(own.nothing, own.asked), pct(own.weak, own.asked))
	if show {
		t.Logf("the other corpus's questions: %d asked, %.1f %% nothing known, %.1f %% weak", foreign.asked, pct(foreign.nothing, foreign.asked), pct(foreign.weak, foreign.asked))
	}
	t.Logf("off-topic questions: %d asked, %.1f %% nothing known, %.1f %% weak", off.asked, pct(off.nothing, off.asked), pct(off.weak, off.asked))
	if pct(own.nothing, own.asked) > 2 {
		t.Errorf("%.1f %% of the benchmarks' own questions got \"nothing known\"", pct(own.nothing, own.asked))
	}
	if pct(off.nothing+off.weak, off.asked) < 95 {
		t.Errorf("only %.1f %% of off-topic questions were nothing known or weak", pct(off.nothing+off.weak, off.asked))
	}
}
