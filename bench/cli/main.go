// Command cli measures cairn as a person meets it — whole processes through
// the command line — beside SQLite FTS5 on the same rows and queries, and
// prints the first table of docs/speed.md ("As a person meets it").
//
//	go run ./bench/cli              # 100,000 memories
//	go run ./bench/cli -n 1000000   # 1,000,000
//
// It builds cairn, writes a corpus (Zipf-distributed words over a 20,000-word
// vocabulary, 50 words a memory, the same every run) and queries drawn from
// it, then, in a fresh CAIRN_HOME under -dir: imports the corpus, waits for
// the first recall, runs the queries through `cairn recall --batch` (each
// query an access, in order; then again with --peek), reads the server's
// resident memory, times stats, verify, list and consolidate, restarts the
// server and times its first recall. FTS5 (Python's sqlite3) builds the same
// rows and answers the same queries, an OR of their words ranked by bm25().
// Nothing outside -dir is touched; the server it starts is stopped at the end.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 100_000, "memories in the corpus")
	q := flag.Int("q", 300, "queries")
	passes := flag.Bool("consolidate", true, "time a first consolidation pass and passes with nothing to do (minutes at 1,000,000: -consolidate=false)")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "cairn-bench-cli"), "working directory (corpus, store, binary); emptied first but for the corpus")
	flag.Parse()
	if err := run(*n, *q, *dir, *passes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cli:", err)
		os.Exit(1)
	}
}

// row is one line of the printed table.
type row struct{ what, cairn, anchor string }

func run(n, nq int, dir string, passes bool) error {
	b, err := prepare(n, nq, dir)
	if err != nil {
		return err
	}
	defer b.c.stopServer()
	start := time.Now()
	loadBefore := loadAvg()
	steps := []func() error{b.importRows, b.recallRows, b.commandRows}
	if passes {
		steps = append(steps, b.passRows)
	}
	for _, f := range append(steps, b.restartRow) {
		if err := f(); err != nil {
			return err
		}
	}
	host, _ := os.Hostname()
	fmt.Printf("\n%s memories, %d queries — %s, %s, %d cores (%s), %s; load %s before, %s after; %s in all\n\n",
		thousands(float64(n)), nq, time.Now().Format("2 January 2006 15:04"), host, runtime.NumCPU(), cpuModel(), runtime.Version(),
		loadBefore, loadAvg(), time.Since(start).Round(time.Second))
	fmt.Println("| what | cairn | SQLite FTS5 |")
	fmt.Println("|---|---|---|")
	for _, r := range b.rows {
		fmt.Printf("| %s | %s | %s |\n", r.what, r.cairn, r.anchor)
	}
	return nil
}

// bench is one run: the built binary on its home, the corpus and its
// queries, and the rows measured so far.
type bench struct {
	c               cairn
	n               int
	dir             string
	corpus, queries string
	rows            []row
}

// prepare builds cairn into dir, writes the corpus and the queries (once
// for a size), and empties the homes of an earlier run.
func prepare(n, nq int, dir string) (*bench, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return nil, errors.New("python3 is needed for the SQLite FTS5 anchor: install it (make deps does)")
	}
	bin := filepath.Join(dir, "cairn")
	step("building cairn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	b := &bench{n: n, dir: dir,
		corpus:  filepath.Join(dir, fmt.Sprintf("corpus-%d.jsonl", n)),
		queries: filepath.Join(dir, fmt.Sprintf("queries-%d-%d.jsonl", n, nq))}
	if err := writeCorpus(b.corpus, b.queries, n, nq); err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home")
	for _, d := range []string{home, filepath.Join(dir, "user")} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	b.c = cairn{bin: bin, home: home, dir: dir}
	return b, nil
}

// importRows times the import and the first recall after it.
func (b *bench) importRows() error {
	step("cairn import")
	took, err := b.c.time("import", "--project", "bench", b.corpus)
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{"`cairn import` of the corpus", fmt.Sprintf("%.1f s, %s memories/s", took.Seconds(), thousands(float64(b.n)/took.Seconds())), ""})
	step("first recall after the import (waits for the index)")
	first, err := b.c.time("recall", "--project", "bench", "--peek", firstQuery(b.queries))
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{"first recall after the import returns (the index built)", secs(first), ""})
	return nil
}

// recallRows times every query, as an access and peeking, beside SQLite
// FTS5 on the same rows, and reads the server's memory after.
func (b *bench) recallRows() error {
	step("recall --batch, every query an access")
	inUse, err := b.c.batch(b.queries, false)
	if err != nil {
		return err
	}
	step("recall --batch --peek")
	peek, err := b.c.batch(b.queries, true)
	if err != nil {
		return err
	}
	mem := b.c.serverMemory()
	step("sqlite FTS5 on the same rows and queries")
	fts, err := ftsRun(b.dir, b.corpus, b.queries)
	if err != nil {
		return err
	}
	b.rows[0].anchor = fmt.Sprintf("FTS5 builds the same rows in %.1f s (%s/s), in-process", fts.build, thousands(float64(b.n)/fts.build))
	b.rows = append(b.rows,
		row{"recall p50 / p99 a query, `recall --batch` (socket and JSON included), each an access", ms(inUse.p50) + " / " + ms(inUse.p99),
			fmt.Sprintf("FTS5 %s / %s (ratio of p50s %.2f)", ms(fts.p50), ms(fts.p99), inUse.p50/fts.p50)},
		row{"the same with --peek (no access recorded)", ms(peek.p50) + " / " + ms(peek.p99), ""},
		row{"server resident memory after import, build and recalls: now / peak (now: heap / mapped files)", gib(mem["VmRSS"]) + " / " + gib(mem["VmHWM"]) + " (" + gib(mem["RssAnon"]) + " / " + gib(mem["RssFile"]) + ")", ""},
	)
	return nil
}

// commandRows times short commands, best and median of 7.
func (b *bench) commandRows() error {
	for _, cmd := range [][]string{{"stats"}, {"verify"}, {"list", "-n", "50"}} {
		step("cairn " + cmd[0])
		best, med, err := b.c.repeat(7, append(cmd, "--project", "bench")...)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, row{fmt.Sprintf("`cairn %s`, best / median of 7", strings.Join(cmd, " ")), secs(best) + " / " + secs(med), ""})
	}
	return nil
}

// passRows times a first consolidation pass, then passes with nothing to do.
func (b *bench) passRows() error {
	step("cairn consolidate (first pass, then nothing to do)")
	firstPass, err := b.c.time("consolidate", "--project", "bench")
	if err != nil {
		return err
	}
	best, med, err := b.c.repeat(3, "consolidate", "--project", "bench")
	if err != nil {
		return err
	}
	b.rows = append(b.rows,
		row{"`cairn consolidate`, first pass over the imported store", secs(firstPass), ""},
		row{"`cairn consolidate` with nothing to do, best / median of 3", secs(best) + " / " + secs(med), ""})
	return nil
}

// restartRow times the first recall of a server that reads its saved index.
func (b *bench) restartRow() error {
	step("server restart, first recall")
	b.c.stopServer()
	restart, err := b.c.time("recall", "--project", "bench", "--peek", firstQuery(b.queries))
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{"first recall after the server starts (saved index read)", secs(restart), ""})
	return nil
}

func step(s string) { fmt.Fprintf(os.Stderr, "… %s\n", s) }

// cairn runs the built binary on the bench's home.
type cairn struct{ bin, home, dir string }

func (c cairn) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.dir
	// A home of its own: no person's settings are read or written.
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+c.home, "HOME="+filepath.Join(c.dir, "user"),
		"XDG_CONFIG_HOME="+filepath.Join(c.dir, "user", ".config"), "XDG_DATA_HOME="+filepath.Join(c.dir, "user", ".local"))
	return cmd
}

// time runs one command and returns its wall time.
func (c cairn) time(args ...string) (time.Duration, error) {
	cmd := c.cmd(args...)
	t := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return time.Since(t), nil
}

// repeat runs a command k times: the best and the median wall time.
func (c cairn) repeat(k int, args ...string) (best, median time.Duration, err error) {
	var ts []time.Duration
	for range k {
		t, err := c.time(args...)
		if err != nil {
			return 0, 0, err
		}
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts[0], ts[len(ts)/2], nil
}

type spread struct{ p50, p99 float64 } // seconds

// batch runs the queries through one `cairn recall --batch` and times each
// answer as the reader of its output meets it: from one line to the next
// (the first from the process's start, which is left out).
func (c cairn) batch(queries string, peek bool) (spread, error) {
	args := []string{"recall", "--project", "bench", "--batch", queries, "--json"}
	if peek {
		args = append(args, "--peek")
	}
	cmd := c.cmd(args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return spread{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return spread{}, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var gaps []float64
	last := time.Time{}
	for sc.Scan() {
		now := time.Now()
		if !last.IsZero() {
			gaps = append(gaps, now.Sub(last).Seconds())
		}
		last = now
	}
	if err := cmd.Wait(); err != nil {
		return spread{}, fmt.Errorf("cairn recall --batch: %v\n%s", err, stderr.String())
	}
	if len(gaps) == 0 {
		return spread{}, errors.New("cairn recall --batch answered fewer than two queries")
	}
	return spread{quantile(gaps, 0.5), quantile(gaps, 0.99)}, nil
}

// serverPID finds the `cairn serve` of the bench's home.
func (c cairn) serverPID() int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) > 1 && args[0] == c.bin && args[1] == "serve" && slices.Contains(args, c.home) {
			return pid
		}
	}
	return 0
}

// serverMemory is the server's resident memory, bytes, by the names
// /proc/PID/status gives them: VmRSS (now), VmHWM (peak), RssAnon (the
// heap and stacks), RssFile (pages of mapped files: Badger's tables).
func (c cairn) serverMemory() map[string]float64 {
	out := map[string]float64{}
	pid := c.serverPID()
	if pid == 0 {
		return out
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 {
			kb, _ := strconv.ParseFloat(f[1], 64)
			out[strings.TrimSuffix(f[0], ":")] = kb * 1024
		}
	}
	return out
}

// stopServer ends the bench's server and waits until it has gone.
func (c cairn) stopServer() {
	pid := c.serverPID()
	if pid == 0 {
		return
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	for range 600 {
		if c.serverPID() == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling a process we do not parent
	}
	_ = p.Kill()
}

// The corpus: pseudo-words from syllables, Zipf-distributed, the same for
// the same n on every machine.
func vocabulary(k int) []string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "gu", "do", "fe", "hi", "jo", "be", "ce", "ly", "qua", "wen", "tor", "mar", "sel", "dri", "pon", "gal", "ves", "nit", "rho", "bex"}
	seen := map[string]bool{}
	var out []string
	r := rand.New(rand.NewPCG(7, 7))
	for len(out) < k {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func writeCorpus(corpus, queries string, n, nq int) error {
	if _, err := os.Stat(queries); err == nil {
		if _, err := os.Stat(corpus); err == nil {
			return nil // written by an earlier run: the same bytes
		}
	}
	step(fmt.Sprintf("writing %s memories", thousands(float64(n))))
	vocab := vocabulary(20_000)
	r := rand.New(rand.NewPCG(1, uint64(n)))
	z := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	words := func(k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = vocab[z.Uint64()]
		}
		return out
	}
	f, err := os.Create(corpus)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	layers := []string{"state", "state", "state", "state", "decision", "negative"}
	kinds := map[string]string{"state": "fact", "decision": "decision", "negative": "negative"}
	for i := range n {
		body := words(50)
		layer := layers[i%len(layers)]
		if err := enc.Encode(map[string]string{"layer": layer, "kind": kinds[layer], "title": strings.Join(body[:8], " "), "body": strings.Join(body, " ") + fmt.Sprintf(" (record %d)", i)}); err != nil {
			return err
		}
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return err
	}
	qf, err := os.Create(queries)
	if err != nil {
		return err
	}
	qw := bufio.NewWriter(qf)
	qenc := json.NewEncoder(qw)
	for i := range nq {
		if err := qenc.Encode(map[string]string{"id": strconv.Itoa(i), "query": strings.Join(words(3+r.IntN(3)), " "), "project": "bench"}); err != nil {
			return err
		}
	}
	return errors.Join(qw.Flush(), qf.Close())
}

func firstQuery(queries string) string {
	f, err := os.Open(queries)
	if err != nil {
		return "ka"
	}
	defer f.Close()
	var l struct{ Query string }
	_ = json.NewDecoder(f).Decode(&l)
	return l.Query
}

type ftsResult struct {
	build    float64
	p50, p99 float64
}

// ftsScript builds an FTS5 table of the corpus and answers the queries,
// an OR of each query's words ranked by bm25(); it prints the build's
// seconds and each query's.
const ftsScript = `
import json, sqlite3, sys, time
corpus, queries, db = sys.argv[1], sys.argv[2], sys.argv[3]
con = sqlite3.connect(db)
con.execute("PRAGMA journal_mode=OFF"); con.execute("PRAGMA synchronous=OFF")
con.execute("CREATE VIRTUAL TABLE m USING fts5(title, body)")
t = time.perf_counter()
with open(corpus) as f:
    con.executemany("INSERT INTO m(title, body) VALUES (?, ?)", ((r["title"], r["body"]) for r in map(json.loads, f)))
con.commit()
print("build", time.perf_counter() - t)
with open(queries) as f:
    for q in map(json.loads, f):
        expr = " OR ".join('"%s"' % w for w in q["query"].split())
        t = time.perf_counter()
        con.execute("SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT 10", (expr,)).fetchall()
        print("query", time.perf_counter() - t)
`

func ftsRun(dir, corpus, queries string) (ftsResult, error) {
	db := filepath.Join(dir, "fts.db")
	_ = os.Remove(db)
	defer os.Remove(db)
	out, err := exec.Command("python3", "-c", ftsScript, corpus, queries, db).CombinedOutput()
	if err != nil {
		return ftsResult{}, fmt.Errorf("python3 sqlite3 FTS5: %v\n%s", err, out)
	}
	var r ftsResult
	var qs []float64
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "build":
			r.build = v
		case "query":
			qs = append(qs, v)
		}
	}
	if len(qs) == 0 {
		return r, fmt.Errorf("FTS5 answered no query:\n%s", out)
	}
	r.p50, r.p99 = quantile(qs, 0.5), quantile(qs, 0.99)
	return r, nil
}

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func ms(s float64) string { return fmt.Sprintf("%.1f ms", s*1000) }

func secs(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func gib(b float64) string { return fmt.Sprintf("%.0f MiB", b/(1<<20)) }

func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
