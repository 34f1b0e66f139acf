package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const (
	claudeFile = "testdata/claude-code/session.jsonl"
	codexFile  = "testdata/codex/2026/11/24/rollout-2026-11-24T11-00-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"
)

// The secrets pasted into the testdata sessions: none may come out.
var pasted = []string{"Zx9Lm2Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk2Lp9N", "Pw7hQ2xZr9Kd"}

func readAll(t testing.TB, data []byte, opt Options) ([]Item, Result) {
	t.Helper()
	var items []Item
	res, err := Read(bytes.NewReader(data), opt, func(it Item) error { items = append(items, it); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return items, res
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func summary(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, string(it.Role)+" "+it.Key)
	}
	return out
}

func noSecrets(t *testing.T, what string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	for _, s := range pasted {
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(s[:12])) {
			t.Errorf("%s holds the pasted secret %q…", what, s[:6])
		}
	}
}

func TestClaudeCodeSession(t *testing.T) {
	d := &Diary{}
	items, res := readAll(t, mustRead(t, claudeFile), Options{Final: true, Diary: d})
	want := []string{
		// The sub-agent's side chain (s1–s4) is no item: its report is the
		// main agent's tool result, and the main agent's words say what it
		// took from it. What the agent said before its last text is a
		// working note (a2's "Let me look at the test first." is too short
		// to state anything).
		"user u2", "notes a5#note0", "tools tools:toolu_02", "assistant a9",
		"user u9", "tools tools:toolu_07", "assistant a11",
		"user u13", "tools tools:toolu_08", "assistant a13",
	}
	if got := summary(items); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("items:\n got %v\nwant %v", got, want)
	}
	byKey := map[string]Item{}
	for _, it := range items {
		byKey[it.Key] = it
	}
	if !strings.Contains(byKey["tools:toolu_02"].Text, "ran `go test ./store/...`: exit 1 — 3 failures; FAIL\tratelimit/store") &&
		!strings.Contains(byKey["tools:toolu_02"].Text, "ran `go test ./store/...`: exit 1 — 3 failures; FAIL ratelimit/store") {
		t.Errorf("the failing test run is not a short fact with its outcome: %q", byKey["tools:toolu_02"].Text)
	}
	for _, f := range []string{"edited store/bucket_test.go", "tool Task: Find every use of the bucket clock", "edited store/bucket.go", "ran `go test ./store/...`: ok"} {
		if !strings.Contains(byKey["tools:toolu_02"].Text, f) {
			t.Errorf("tools of turn 1 lack %q: %q", f, byKey["tools:toolu_02"].Text)
		}
	}
	if strings.Contains(byKey["tools:toolu_02"].Text, "bucket_test.go\n\tfunc") || strings.Contains(byKey["tools:toolu_02"].Text, "read ") {
		t.Errorf("reads and bulky output are kept: %q", byKey["tools:toolu_02"].Text)
	}
	for _, it := range items {
		if strings.Contains(it.Text, "secret plan") || strings.Contains(it.Text, "Let me look") {
			t.Errorf("thinking or chatter became an item: %q", it.Text)
		}
		if strings.Contains(it.Text, "This session is being continued") || strings.Contains(it.Text, "<command-name>") || strings.Contains(it.Text, "Caveat:") {
			t.Errorf("the harness's text became an item: %q", it.Text)
		}
		if it.Role == RoleUser && strings.Contains(it.Text, "Search the repository") {
			t.Errorf("a sub-agent's instructions became the person's prompt")
		}
		if it.Time.IsZero() || it.Line == 0 {
			t.Errorf("item %s has no time or line", it.Key)
		}
	}
	if !strings.Contains(byKey["u9"].Text, "[redacted: GitHub token]") || res.Redacted != 3 {
		t.Errorf("redaction: %q, %d spans", byKey["u9"].Text, res.Redacted)
	}
	noSecrets(t, "items", items)
	noSecrets(t, "diary", d)
	if len(res.Malformed) != 1 || res.Malformed[0].Line != 23 || strings.Contains(res.Malformed[0].Err, "half a line") {
		t.Errorf("malformed: %+v", res.Malformed)
	}
	for k, n := range map[string]int{"queue-operation": 1, "summary": 1, "compact summary": 1, "meta": 2, "sub-agent": 4, "before the format was known": 1} {
		if res.Skipped[k] != n {
			t.Errorf("skipped %q: %d, want %d (all: %v)", k, res.Skipped[k], n, res.Skipped)
		}
	}
	if res.Session != "7f3c9a10-2b4e-4d61-9a7e-5c1f0e2d8b34" || res.Cwd != "/home/ana/src/ratelimit" || res.Branch != "fix-flaky-store" || res.Format != FormatClaudeCode {
		t.Errorf("session: %+v", res)
	}
	if d.Prompts != 3 || len(d.Asked) != 3 || d.Compacted != 1 || d.Failures != 2 || !d.Ended ||
		d.Tests == nil || !d.Tests.Passed || d.Tests.Command != "go test ./store/..." ||
		strings.Join(d.Files, ",") != "store/bucket_test.go,store/bucket.go" || len(d.Commands) != 3 || d.Commands[0].Runs != 2 || d.Commands[0].Failed != 1 {
		t.Errorf("diary: %+v", d)
	}
	title, body := d.Episode()
	if !strings.Contains(title, "on fix-flaky-store: Fix the flaky TestBucketRefill") || len(title) > 120 {
		t.Errorf("episode title %q", title)
	}
	for _, s := range []string{"A Claude Code session in /home/ana/src/ratelimit on branch fix-flaky-store", "ran `go test ./store/...` 2× (1 failed)", "touched 2 files: store/bucket_test.go, store/bucket.go", "tests green (`go test ./store/...`)", "context compacted 1×", "Session 7f3c9a10"} {
		if !strings.Contains(body, s) {
			t.Errorf("episode body lacks %q:\n%s", s, body)
		}
	}
	if t2, b2 := d.Episode(); t2 != title || b2 != body {
		t.Error("the same diary gave another episode text")
	}
}

func TestCodexSession(t *testing.T) {
	d := &Diary{}
	items, res := readAll(t, mustRead(t, codexFile), Options{Final: true, Diary: d})
	want := []string{"user L3", "tools tools:call_a1", "assistant L15", "user L17", "tools tools:call_a4", "assistant L21"}
	if got := summary(items); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("items:\n got %v\nwant %v", got, want)
	}
	tools := items[1].Text
	for _, f := range []string{"ran `ls migrations`: ok", "wrote migrations/0003_ledger_bigint.sql", "edited db/schema.go", "ran `go test ./...`: exit 1 — FAIL"} {
		if !strings.Contains(tools, f) {
			t.Errorf("codex tools lack %q: %q", f, tools)
		}
	}
	if strings.Contains(items[0].Text, "environment_context") || items[0].Text != "Migrate the ledger table to bigint ids. We use Postgres 15." {
		t.Errorf("first prompt: %q", items[0].Text)
	}
	noSecrets(t, "items", items)
	noSecrets(t, "diary", d)
	if res.Redacted != 1 || len(res.Malformed) != 1 || res.Malformed[0].Line != 14 || res.Skipped["future_kind"] != 1 || res.Skipped["reasoning"] != 1 || res.Skipped["event_msg"] != 3 {
		t.Errorf("result: %+v", res)
	}
	if d.Session != "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5" || d.Branch != "main" || d.Prompts != 2 || d.Compacted != 1 || d.Failures != 1 || d.Tests == nil || !d.Tests.Passed {
		t.Errorf("diary: %+v", d)
	}
}

// Reading a growing file in two parts — the first while a turn is still
// open, or cut in the middle of a line as the agent writes it — gives
// exactly the items and the diary of one read of the whole.
func TestReadInPartsIsOneRead(t *testing.T) {
	for _, file := range []string{claudeFile, codexFile} {
		data := mustRead(t, file)
		whole := &Diary{}
		all, _ := readAll(t, data, Options{Final: true, Diary: whole})
		wantDiary, _ := json.Marshal(whole)
		for cut := 0; cut <= len(data); cut += 97 {
			d := &Diary{}
			first, r1 := readAll(t, data[:cut], Options{Diary: d})
			if r1.Next > int64(cut) {
				t.Fatalf("%s cut at %d: next %d is past what was there", file, cut, r1.Next)
			}
			rest, _ := readAll(t, data[r1.Next:], Options{Final: true, Diary: d, Offset: r1.Next, Line: r1.NextLine})
			got := append(first, rest...)
			if strings.Join(summary(got), "|") != strings.Join(summary(all), "|") {
				t.Fatalf("%s cut at %d:\n got %v\nwant %v", file, cut, summary(got), summary(all))
			}
			for i := range got {
				if got[i].Text != all[i].Text || got[i].Line != all[i].Line {
					t.Fatalf("%s cut at %d: item %s differs", file, cut, got[i].Key)
				}
			}
			if b, _ := json.Marshal(d); !bytes.Equal(b, wantDiary) {
				t.Fatalf("%s cut at %d: diary\n got %s\nwant %s", file, cut, b, wantDiary)
			}
		}
	}
}

// genClaude writes a Claude Code transcript of n turns; every tenth tool
// result carries big bytes of output.
func genClaude(w *bytes.Buffer, turns int, big int) {
	for i := range turns {
		ts := fmt.Sprintf("2026-11-24T09:%02d:%02d.000Z", i/60%60, i%60)
		fmt.Fprintf(w, `{"type":"user","uuid":"u%d","sessionId":"gen","cwd":"/src/gen","timestamp":%q,"message":{"role":"user","content":"turn %d: make the retry policy configurable"}}`+"\n", i, ts, i)
		fmt.Fprintf(w, `{"type":"assistant","uuid":"a%d","sessionId":"gen","timestamp":%q,"message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", i, ts, i)
		out := "ok  \tgen\t0.1s"
		if big > 0 && i%10 == 0 {
			out = strings.Repeat("log line of a chatty test run\\n", big/31) + "FAIL"
		}
		fmt.Fprintf(w, `{"type":"user","uuid":"r%d","sessionId":"gen","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]}}`+"\n", i, ts, i, out)
		fmt.Fprintf(w, `{"type":"assistant","uuid":"f%d","sessionId":"gen","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"Done with turn %d."}]}}`+"\n", i, ts, i)
	}
}

// A 100 MB transcript with 5 MB lines of tool output is read in bounded
// memory: nothing but the current line and the open turn is held.
func TestHugeTranscriptInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB transcript")
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	var buf bytes.Buffer
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for chunk := 0; chunk < 20; chunk++ {
		buf.Reset()
		genClaude(&buf, 10, 5<<20) // one 5 MB line per chunk
		if _, err := f.Write(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	info, _ := os.Stat(path)
	if info.Size() < 100<<20 {
		t.Fatalf("generated %d bytes, want 100 MB", info.Size())
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	runtime.GC()
	var peak uint64
	var ms runtime.MemStats
	n := 0
	res, err := Read(in, Options{Final: true}, func(it Item) error {
		n++
		if n%50 == 0 {
			// What the reader keeps, not what the collector has yet to
			// free: a loaded machine lets garbage pile up between cycles.
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 600 || res.Lines != 800 {
		t.Fatalf("read %d items of %d lines, want 600 of 800", res.Items, res.Lines)
	}
	if peak > 64<<20 {
		t.Fatalf("heap in use peaked at %d MB reading a %d MB file: not streaming", peak>>20, info.Size()>>20)
	}
	t.Logf("%d MB read, heap in use at most %d MB", info.Size()>>20, peak>>20)
}

func BenchmarkReadClaudeCode(b *testing.B) {
	var buf bytes.Buffer
	genClaude(&buf, 5000, 64<<10)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	lines := 0
	for range b.N {
		res, err := Read(bytes.NewReader(data), Options{Final: true}, func(Item) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		lines += res.Lines
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkReadCodex(b *testing.B) {
	var buf bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&buf, `{"timestamp":"2026-11-24T11:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"turn %d: add the index"}]}}`+"\n", i)
		fmt.Fprintf(&buf, `{"timestamp":"2026-11-24T11:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"]}","call_id":"c%d"}}`+"\n", i)
		fmt.Fprintf(&buf, `{"timestamp":"2026-11-24T11:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"{\"output\":\"%s\",\"metadata\":{\"exit_code\":0}}"}}`+"\n", i, strings.Repeat("x", 2000))
		fmt.Fprintf(&buf, `{"timestamp":"2026-11-24T11:00:03.000Z","type":"event_msg","payload":{"type":"token_count"}}`+"\n")
		fmt.Fprintf(&buf, `{"timestamp":"2026-11-24T11:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done %d."}]}}`+"\n", i)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	lines := 0
	for range b.N {
		res, err := Read(bytes.NewReader(data), Options{Final: true}, func(Item) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		lines += res.Lines
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}
