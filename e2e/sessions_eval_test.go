package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
	"unicode"
)

// The session-memory evaluation (issue 25, "Done means"): real public agent
// sessions, each ingested and consolidated on its own with the patterns only,
// and every memory that forms judged by a reader who did not write the rules.
// The judgements live in ../testdata/sessions-eval/labels.jsonl, keyed by a
// hash of the session and the memory's text, so a rerun keeps them for the
// memories that did not change and lists only the new ones for a judge. It
// measures; it asserts nothing about the figures. See
// ../testdata/sessions-eval/README.md for the sources and how to get them.

const sessionsEvalDir = "../testdata/sessions-eval"

// sessionSources are the source directories of the data set, each a
// repository's logs, and the part of the evaluation it belongs to: rules may
// be tuned on "tuning", never on "held-out".
var sessionSources = []struct{ dir, repo, commit, split string }{
	{"marot__spotter", "marot/spotter", "8cc42b0bd39d", "tuning"},
	{"MoonLadderStudios__MoonMind", "MoonLadderStudios/MoonMind", "786ef1a51cec", "tuning"},
	{"ahmedarafa994__eq-prediction", "ahmedarafa994/eq-prediction", "f221ddce8086", "held-out"},
	{"0h-n0__local-voice-assistant-codex", "0h-n0/local-voice-assistant-codex", "c40b09dfb388", "held-out"},
	// Found and listed by a reader who had not seen the rules, at the end of
	// the third round, after "held-out" had been looked at.
	{"ingjramirez__span-league-table", "ingjramirez/span-league-table", "3b5d5791bc67", "held-out 2"},
	{"leolin84200704__posthog-impact-dashboard", "leolin84200704/posthog-impact-dashboard", "3adbaa8f38f7", "held-out 2"},
	{"Krosss0001__rave-era-project", "Krosss0001/rave-era-project", "0ffdd2ac55fa", "held-out 2"},
	{"AkashJana18__edgerunner", "AkashJana18/edgerunner", "e38ba72621da", "held-out 2"},
	// Found and listed by another reader who had not seen the rules, in the
	// fourth round; judged at first contact.
	{"ArnaudDeploiement__lms-go-spec-driven-dev", "ArnaudDeploiement/lms-go-spec-driven-dev", "f40f95ded571", "held-out 3"},
	{"Hiroya20040928__unitree-A1", "Hiroya20040928/unitree-A1", "edcf58397f01", "held-out 3"},
	{"LaEsperantisto__fihter", "LaEsperantisto/fihter", "16f2f8bbcae0", "held-out 3"},
	{"Monotoba__OpenPrintKit", "Monotoba/OpenPrintKit", "548dd4963d74", "held-out 3"},
	// Found and listed by a third such reader in the sixth round (29
	// November 2026); judged at first contact.
	{"Quelklef__shell-ws", "Quelklef/shell-ws", "044184aacc66", "held-out 4"},
	{"JamesTiberiusKirk__dotsv2", "JamesTiberiusKirk/dotsv2", "c4267e011b9f", "held-out 4"},
	{"bradymholt__dotfiles", "bradymholt/dotfiles", "45d7e4b32701", "held-out 4"},
	{"rocxteady__Resting", "rocxteady/Resting", "0bc2749830b3", "held-out 4"},
	// Found and listed by a fourth such reader later that day, after this
	// session's changes to extraction; judged at first contact.
	{"blubber__dotfiles", "blubber/dotfiles", "73793cffb680", "held-out 5"},
	{"awesumsawz__dotfiles-universal", "awesumsawz/dotfiles-universal", "49d63c930ee4", "held-out 5"},
	{"LeroySalih__planner-004", "LeroySalih/planner-004", "abb859cc063a", "held-out 5"},
	{"AaronBakerDev__knearme-platform", "AaronBakerDev/knearme-platform", "864bfa8c28aa", "held-out 5"},
}

var sessionSplits = []string{"tuning", "held-out", "held-out 2", "held-out 3", "held-out 4", "held-out 5"}

// The labels a judge gives a formed memory.
const (
	labelUseful    = "useful"
	labelNoise     = "noise"
	labelDuplicate = "duplicate"
	labelWrong     = "wrong"
)

var sessionLabels = []string{labelUseful, labelNoise, labelDuplicate, labelWrong}

// evalSession is one session of the data set: its main log and, for Claude
// Code, the directory beside it with its sub-agents' logs.
type evalSession struct {
	Key    string // the main log's path under the data directory, as expected.jsonl names it
	Source string // the source directory
	Split  string
	Format string // claude-code or codex
	Main   string // absolute path of the main log
	Side   string // Claude Code: <session>/ beside the main log, if there is one
}

// formedMemory is what the harness writes of a memory a session left.
type formedMemory struct {
	Key        string          `json:"key"` // labelKey of session and text
	Session    string          `json:"session"`
	ID         string          `json:"id"`
	Project    string          `json:"project"`
	Layer      string          `json:"layer"`
	Kind       string          `json:"kind"`
	Provenance string          `json:"provenance"`
	Status     string          `json:"status"`
	Title      string          `json:"title"`
	Body       string          `json:"body"`
	CreatedAt  string          `json:"created_at"`
	ValidFrom  string          `json:"valid_from"`
	Source     json.RawMessage `json:"source"`
	Episode    bool            `json:"session_episode,omitempty"` // the episode ingest writes for the session: not judged
	Proposal   string          `json:"proposal,omitempty"`        // for a proposal: its id (and Kind its proposal kind)
	Harness    []string        `json:"harness_text,omitempty"`    // harness markers found in the text
	Untyped    bool            `json:"user_untyped,omitempty"`    // attributed to the person, not found in what they typed
}

// sessionLabel is one judgement in labels.jsonl. It holds no text of the
// sessions: the key, the class the memory had when judged, the label, a few
// words why and the expected items (1-based, per session, as in
// EXPECTED.md) a useful memory states.
type sessionLabel struct {
	Key      string `json:"key"`
	Session  string `json:"session"`
	Layer    string `json:"layer"`
	Kind     string `json:"kind"`
	Label    string `json:"label"`
	Why      string `json:"why"`
	Expected []int  `json:"expected,omitempty"`
}

// toLabel is a line of the file a judge fills in: a label line with the
// memory's text to read. The text is dropped when the labels are merged.
type toLabel struct {
	sessionLabel
	Provenance string `json:"provenance"`
	Title      string `json:"title"`
	Body       string `json:"body"`
}

// expectedItem is a useful thing a reader listed beforehand.
type expectedItem struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	Kind    string `json:"kind"`
}

// labelKey keys a judgement: the session and the memory's title and body,
// normalised, so that a memory formed again with the same text keeps its
// label.
func labelKey(session, title, body string) string {
	sum := sha256.Sum256([]byte(session + "\x00" + normText(title) + "\x00" + normText(body)))
	return hex.EncodeToString(sum[:8])
}

// normText lowercases and collapses every run of characters that are
// neither letters nor digits to one space.
func normText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// harnessMarkers are text the agents' harnesses add (see HARNESS.md of the
// data set); none belongs in a memory.
var harnessMarkers = []string{
	"<system-reminder>", "</system-reminder>", "<task-notification>", "<task-id>", "<output-file>",
	"<status>completed</status>", "Background command \"", "<local-command-caveat>", "Caveat:",
	"<local-command-stdout>", "<command-name>", "<command-message>", "<command-args>",
	"[Request interrupted by user", "This session is being continued from a previous conversation",
	"<environment_context>", "# AGENTS.md instructions for", "<INSTRUCTIONS>", "<user_instructions>",
	"<user_action>", "User initiated a review task", "You've hit your limit", "PreCompact [",
	"hook additional context", "Base directory for this skill", "User has answered your questions",
	"You **MUST** consider the user input", "Review the code changes against the base branch",
	"<bash-stdout>", "<bash-stderr>",
}

func harnessIn(s string) []string {
	var found []string
	for _, m := range harnessMarkers {
		if strings.Contains(s, m) {
			found = append(found, m)
		}
	}
	return found
}

var (
	systemReminder = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)
	commandArgs    = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
	askAnswer      = regexp.MustCompile(`"(?:[^"\\]|\\.)*"="((?:[^"\\]|\\.)*)"`)
	userInputBlock = regexp.MustCompile("(?s)## User Input\\s*```(?:text)?\\n(.*?)```")
)

// harnessOpeners start a user-role message that the harness wrote.
var harnessOpeners = []string{
	"<task-notification>", "<local-command-", "<command-message>", "[Request interrupted",
	"Caveat:", "<bash-stdout>", "<bash-stderr>", "This session is being continued",
	"# AGENTS.md instructions", "<environment_context>", "<user_instructions>", "<user_action>",
	"Review the code changes against the base branch", "<INSTRUCTIONS>",
}

func harnessOpened(s string) bool {
	s = strings.TrimSpace(s)
	for _, o := range harnessOpeners {
		if strings.HasPrefix(s, o) {
			return true
		}
	}
	return false
}

// typedText keeps what the person typed of a user-role message's text, or
// nothing when the harness wrote it.
func typedText(s string) string {
	s = strings.TrimSpace(systemReminder.ReplaceAllString(s, ""))
	if strings.HasPrefix(s, "<command-name>") {
		if m := commandArgs.FindStringSubmatch(s); m != nil {
			return strings.TrimSpace(m[1])
		}
		return ""
	}
	if m := userInputBlock.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1]) // an expanded custom prompt: only the person's input
	}
	if harnessOpened(s) {
		return ""
	}
	return s
}

// personWords reads what the person typed in a session's main log, by the
// formats' documented shapes, independently of cairn's reader.
func personWords(format string, log []byte) []string {
	var said []string
	add := func(s string) {
		if s = typedText(s); s != "" {
			said = append(said, s)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Type        string `json:"type"`
			Operation   string `json:"operation"`
			Content     any    `json:"content"`
			IsMeta      bool   `json:"isMeta"`
			IsCompact   bool   `json:"isCompactSummary"`
			IsSidechain bool   `json:"isSidechain"`
			Message     *struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"message"`
			Payload *struct {
				Type    string `json:"type"`
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch format {
		case "codex":
			if l.Type != "response_item" || l.Payload == nil || l.Payload.Type != "message" || l.Payload.Role != "user" {
				continue
			}
			var parts []string
			for _, c := range l.Payload.Content {
				if c.Type == "input_text" {
					parts = append(parts, c.Text)
				}
			}
			add(strings.Join(parts, "\n"))
		default:
			if l.Type == "queue-operation" && l.Operation == "enqueue" {
				if s, ok := l.Content.(string); ok {
					add(s)
				}
				continue
			}
			if l.Type != "user" || l.Message == nil || l.IsMeta || l.IsCompact || l.IsSidechain {
				continue
			}
			switch c := l.Message.Content.(type) {
			case string:
				add(c)
			case []any:
				for _, b := range c {
					blk, _ := b.(map[string]any)
					switch blk["type"] {
					case "text":
						s, _ := blk["text"].(string)
						add(s)
					case "tool_result":
						// The person's answer to the agent's question comes
						// back as the question tool's result.
						if s := toolResultText(blk["content"]); strings.HasPrefix(s, "User has answered your questions") {
							for _, m := range askAnswer.FindAllStringSubmatch(s, -1) {
								said = append(said, m[1])
							}
						}
					}
				}
			}
		}
	}
	return said
}

func toolResultText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if blk, ok := b.(map[string]any); ok {
				if s, ok := blk["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// typedBy says whether a memory's text is what the person typed: its body
// or its title found in one of their messages, or else every line of its
// body in one message (a memory may trim, reflow or drop markup; letters
// and digits must stay as typed).
func typedBy(said []string, title, body string) bool {
	norms := make([]string, len(said))
	for i, s := range said {
		norms[i] = normText(s)
	}
	for _, t := range []string{body, strings.TrimSuffix(strings.TrimSpace(title), "…")} {
		n := normText(t)
		if n == "" {
			continue
		}
		for _, s := range norms {
			if strings.Contains(s, n) {
				return true
			}
		}
	}
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if n := normText(l); n != "" {
			lines = append(lines, n)
		}
	}
	if len(lines) < 2 {
		return false
	}
	for _, s := range norms {
		all := true
		for _, l := range lines {
			all = all && strings.Contains(s, l)
		}
		if all {
			return true
		}
	}
	return false
}

// findSessions lists the sessions of the data set: a Claude Code session is
// a <session>.jsonl at the top of a source directory (its sub-agents under
// <session>/subagents/), a Codex one a sessions/YYYY/MM/DD/rollout-*.jsonl.
func findSessions(t *testing.T, root string) []evalSession {
	t.Helper()
	var ss []evalSession
	for _, src := range sessionSources {
		dir := filepath.Join(root, src.dir)
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("the data set has no %s (see %s/README.md): %v", src.dir, sessionsEvalDir, err)
		}
		mains, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, m := range mains {
			s := evalSession{Source: src.dir, Split: src.split, Format: "claude-code", Main: m}
			if fi, err := os.Stat(strings.TrimSuffix(m, ".jsonl")); err == nil && fi.IsDir() {
				s.Side = strings.TrimSuffix(m, ".jsonl")
			}
			ss = append(ss, s)
		}
		filepath.WalkDir(filepath.Join(dir, "sessions"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
				ss = append(ss, evalSession{Source: src.dir, Split: src.split, Format: "codex", Main: p})
			}
			return nil
		})
	}
	for i := range ss {
		rel, _ := filepath.Rel(root, ss[i].Main)
		ss[i].Key = filepath.ToSlash(rel)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].Key < ss[j].Key })
	if len(ss) == 0 {
		t.Fatalf("no sessions under %s", root)
	}
	return ss
}

func readJSONL[T any](t *testing.T, path string, strict bool) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	var out []T
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		if strict {
			dec.DisallowUnknownFields()
		}
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", path, n+1, err)
		}
		out = append(out, v)
	}
	return out
}

func writeJSONL[T any](t *testing.T, path string, vs []T) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkLabels refuses a malformed label file, so that a typo cannot count.
func checkLabels(ls []sessionLabel) error {
	seen := map[string]bool{}
	for i, l := range ls {
		switch {
		case len(l.Key) != 16 || l.Session == "":
			return fmt.Errorf("line %d: a label needs a 16-hex key and its session", i+1)
		case !slices.Contains(sessionLabels, l.Label):
			return fmt.Errorf("line %d: label %q: use one of %v", i+1, l.Label, sessionLabels)
		case strings.TrimSpace(l.Why) == "":
			return fmt.Errorf("line %d: say in a few words why it is %s", i+1, l.Label)
		case len(l.Expected) > 0 && l.Label != labelUseful:
			return fmt.Errorf("line %d: only a useful memory matches expected items", i+1)
		case seen[l.Key]:
			return fmt.Errorf("line %d: key %s labelled twice", i+1, l.Key)
		}
		for _, e := range l.Expected {
			if e < 1 {
				return fmt.Errorf("line %d: expected items count from 1", i+1)
			}
		}
		seen[l.Key] = true
	}
	return nil
}

// TestSessionsEvalLabels: the label file in the repository is well formed
// (runs without the data).
func TestSessionsEvalLabels(t *testing.T) {
	t.Parallel()
	ls := readJSONL[sessionLabel](t, filepath.Join(sessionsEvalDir, "labels.jsonl"), true)
	if err := checkLabels(ls); err != nil {
		t.Fatalf("labels.jsonl: %v", err)
	}
}

// splitFigures are the figures of one part of the data set.
type splitFigures struct {
	Split      string         `json:"split"`
	Sessions   int            `json:"sessions"`
	Formed     int            `json:"formed"` // durable memories, not the sessions' episodes
	Unlabelled int            `json:"unlabelled"`
	Count      map[string]int `json:"count"` // by label
	Precision  float64        `json:"precision"`
	WrongPct   float64        `json:"wrong_pct"`
	DupPct     float64        `json:"duplicate_pct"`
	Expected   int            `json:"expected"`
	Matched    int            `json:"expected_matched"`
	Recall     float64        `json:"recall"`
	MaxPerSess int            `json:"max_per_session"`
	MaxSession string         `json:"max_session"`
	Harness    int            `json:"harness_text"`
	Untyped    int            `json:"user_untyped"`
	Episodes   int            `json:"episodes"`
	Proposals  int            `json:"proposals"`
}

// figures scores one split's memories against the labels. Percentages and
// precision are over the labelled memories; recall counts an expected item
// when at least one memory labelled useful states it.
func figures(split string, sessions []evalSession, mems, props []formedMemory, labels map[string]sessionLabel, expected map[string]int) splitFigures {
	f := splitFigures{Split: split, Count: map[string]int{}}
	in := map[string]bool{}
	for _, s := range sessions {
		if s.Split == split {
			in[s.Key] = true
			f.Sessions++
			f.Expected += expected[s.Key]
		}
	}
	per := map[string]int{}
	matched := map[string]bool{}
	for _, m := range mems {
		if !in[m.Session] {
			continue
		}
		if m.Episode {
			f.Episodes++
			continue
		}
		f.Formed++
		per[m.Session]++
		if len(m.Harness) > 0 {
			f.Harness++
		}
		if m.Untyped {
			f.Untyped++
		}
		l, ok := labels[m.Key]
		if !ok || l.Layer != m.Layer || l.Kind != m.Kind {
			f.Unlabelled++
			continue
		}
		f.Count[l.Label]++
		if l.Label == labelUseful {
			for _, e := range l.Expected {
				if e <= expected[m.Session] {
					matched[fmt.Sprintf("%s#%d", m.Session, e)] = true
				}
			}
		}
	}
	for _, p := range props {
		if in[p.Session] {
			f.Proposals++
		}
	}
	for s, n := range per {
		if n > f.MaxPerSess || (n == f.MaxPerSess && s < f.MaxSession) {
			f.MaxPerSess, f.MaxSession = n, s
		}
	}
	f.Matched = len(matched)
	if judged := f.Formed - f.Unlabelled; judged > 0 {
		f.Precision = float64(f.Count[labelUseful]) / float64(judged)
		f.WrongPct = 100 * float64(f.Count[labelWrong]) / float64(judged)
		f.DupPct = 100 * float64(f.Count[labelDuplicate]) / float64(judged)
	}
	if f.Expected > 0 {
		f.Recall = float64(f.Matched) / float64(f.Expected)
	}
	return f
}

func figuresTable(fs []splitFigures) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "split\tsessions\tformed\tunlabelled\tuseful\tnoise\tduplicate\twrong\tprecision\twrong %\tdup %\trecall\tmax/session\tharness text\tuser untyped\tepisodes\tproposals\t")
	for _, f := range fs {
		recall := "n/a (no expected.jsonl)"
		if f.Expected > 0 {
			recall = fmt.Sprintf("%.2f (%d/%d)", f.Recall, f.Matched, f.Expected)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.1f\t%.1f\t%s\t%d\t%d\t%d\t%d\t%d\t\n",
			f.Split, f.Sessions, f.Formed, f.Unlabelled, f.Count[labelUseful], f.Count[labelNoise], f.Count[labelDuplicate],
			f.Count[labelWrong], f.Precision, f.WrongPct, f.DupPct, recall, f.MaxPerSess,
			f.Harness, f.Untyped, f.Episodes, f.Proposals)
	}
	w.Flush()
	return b.String()
}

// evalModel is the chat model a measurement runs with: none (the
// patterns alone), unless CAIRN_EVAL_LLM_URL and CAIRN_EVAL_LLM_MODEL name
// one (CAIRN_EVAL_LLM_KEY, and CAIRN_EVAL_LLM_DEADLINE for a pass's
// requests in all, 30m unless set).
func evalModel() []string {
	url := os.Getenv("CAIRN_EVAL_LLM_URL")
	if url == "" {
		return []string{"CAIRN_LLM_URL=", "CAIRN_LLM_MODEL="}
	}
	deadline := os.Getenv("CAIRN_EVAL_LLM_DEADLINE")
	if deadline == "" {
		deadline = "30m"
	}
	return []string{"CAIRN_LLM_URL=" + url, "CAIRN_LLM_MODEL=" + os.Getenv("CAIRN_EVAL_LLM_MODEL"),
		"CAIRN_LLM_KEY=" + os.Getenv("CAIRN_EVAL_LLM_KEY"), "CAIRN_LLM_DEADLINE=" + deadline}
}

func TestSessionsEval(t *testing.T) {
	root := os.Getenv("CAIRN_SESSIONS_DIR")
	if root == "" {
		var srcs []string
		for _, s := range sessionSources {
			srcs = append(srcs, "github.com/"+s.repo+"@"+s.commit)
		}
		t.Skip("a measurement, not a check: set CAIRN_SESSIONS_DIR to the session logs of " + strings.Join(srcs, ", ") +
			" laid out as " + sessionsEvalDir + "/README.md says (its fetch script gets them), and optionally CAIRN_SESSIONS_OUT")
	}
	out := os.Getenv("CAIRN_SESSIONS_OUT")
	if out == "" {
		out = filepath.Join(os.TempDir(), "cairn-sessions-eval-"+time.Now().UTC().Format("20060102T150405"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("output in %s", out)
	if m := os.Getenv("CAIRN_EVAL_LLM_MODEL"); os.Getenv("CAIRN_EVAL_LLM_URL") != "" {
		t.Logf("with the chat model %s: its memories need labels of their own (to-label.jsonl)", m)
	}

	labelsPath := filepath.Join(sessionsEvalDir, "labels.jsonl")
	if filled := os.Getenv("CAIRN_SESSIONS_MERGE"); filled != "" {
		mergeLabels(t, labelsPath, filled)
	}
	labelList := readJSONL[sessionLabel](t, labelsPath, true)
	if err := checkLabels(labelList); err != nil {
		t.Fatalf("%s: %v", labelsPath, err)
	}
	labels := map[string]sessionLabel{}
	for _, l := range labelList {
		labels[l.Key] = l
	}
	expected := map[string]int{}
	// The independent reader's list, without its quotes, is ours and kept
	// beside the labels; a copy in the data directory (with quotes) wins.
	expPath := filepath.Join(root, "expected.jsonl")
	if _, err := os.Stat(expPath); err != nil {
		expPath = filepath.Join("..", "testdata", "sessions-eval", "expected.jsonl")
	}
	for _, e := range readJSONL[expectedItem](t, expPath, false) {
		if e.Text != "" {
			expected[e.Session]++
		}
	}

	sessions := findSessions(t, root)
	var mems, props []formedMemory
	for _, s := range sessions {
		t.Run(strings.ReplaceAll(s.Key, "/", "_"), func(t *testing.T) {
			m, p := formFromSession(t, s)
			mems, props = append(mems, m...), append(props, p...)
			name := strings.ReplaceAll(strings.TrimSuffix(s.Key, ".jsonl"), "/", "__")
			writeJSONL(t, filepath.Join(out, name+".memories.jsonl"), m)
			writeJSONL(t, filepath.Join(out, name+".proposals.jsonl"), p)
		})
	}

	// What a judge still has to label: memories with no label, or whose
	// class changed since they were judged.
	var todo []toLabel
	for _, m := range mems {
		if m.Episode {
			continue
		}
		if l, ok := labels[m.Key]; ok && l.Layer == m.Layer && l.Kind == m.Kind {
			continue
		}
		todo = append(todo, toLabel{sessionLabel: sessionLabel{Key: m.Key, Session: m.Session, Layer: m.Layer, Kind: m.Kind, Expected: []int{}},
			Provenance: m.Provenance, Title: m.Title, Body: m.Body})
	}
	todoPath := filepath.Join(out, "to-label.jsonl")
	writeJSONL(t, todoPath, todo)

	var fs []splitFigures
	for _, sp := range sessionSplits {
		fs = append(fs, figures(sp, sessions, mems, props, labels, expected))
	}
	t.Log("\n" + figuresTable(fs))
	perSession := map[string]int{}
	for _, m := range mems {
		if !m.Episode {
			perSession[m.Session]++
		}
	}
	for _, s := range sessions {
		t.Logf("%-10s %4d memories  %s", s.Split, perSession[s.Key], s.Key)
	}
	for _, m := range mems {
		if len(m.Harness) > 0 {
			t.Logf("harness text %v in %s %s: %.100q", m.Harness, m.Session, m.ID, m.Title)
		}
	}
	for _, m := range mems {
		if m.Untyped {
			t.Logf("%s but not typed by the person: %s %s: %.100q", m.Provenance, m.Session, m.ID, m.Title)
		}
	}
	formed := map[string]bool{}
	for _, m := range mems {
		formed[m.Key] = true
	}
	stale := 0
	for _, l := range labelList {
		if !formed[l.Key] {
			stale++
		}
	}
	if stale > 0 {
		t.Logf("%d labels match no memory formed now (kept: an earlier or later build may form it again)", stale)
	}
	if len(todo) > 0 {
		t.Logf("%d memories to label: fill label, why and expected in %s, then rerun with CAIRN_SESSIONS_MERGE=%s", len(todo), todoPath, todoPath)
	}
	summary := struct {
		When    time.Time      `json:"when"`
		Figures []splitFigures `json:"figures"`
	}{time.Now().UTC(), fs}
	b, _ := json.MarshalIndent(summary, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "summary.json"), append(b, '\n'), 0o644); err != nil {
		t.Error(err)
	}
}

// mergeLabels adds the filled lines of a to-label file to the label file,
// without their text; a line left without a label is skipped.
func mergeLabels(t *testing.T, labelsPath, filled string) {
	t.Helper()
	have := readJSONL[sessionLabel](t, labelsPath, true)
	at := map[string]int{}
	for i, l := range have {
		at[l.Key] = i
	}
	added := 0
	for _, f := range readJSONL[toLabel](t, filled, true) {
		l := f.sessionLabel
		if l.Label == "" {
			continue
		}
		if len(l.Expected) == 0 {
			l.Expected = nil
		}
		if i, ok := at[l.Key]; ok {
			have[i] = l // judged again (its class changed)
		} else {
			at[l.Key] = len(have)
			have = append(have, l)
		}
		added++
	}
	if err := checkLabels(have); err != nil {
		t.Fatalf("merging %s: %v (nothing written)", filled, err)
	}
	sort.SliceStable(have, func(i, j int) bool { return have[i].Session < have[j].Session })
	writeJSONL(t, labelsPath, have)
	t.Logf("merged %d labels from %s into %s", added, filled, labelsPath)
}

// formFromSession lays one session out as its agent does, in a fresh home
// with a fresh project directory, ingests it, consolidates every project
// the ingest wrote to, and reads back the active memories and open
// proposals that came of it.
func formFromSession(t *testing.T, s evalSession) (mems, props []formedMemory) {
	h := newHome(t)
	user := filepath.Join(t.TempDir(), "user")
	var logs string
	if s.Format == "codex" {
		logs = filepath.Join(user, ".codex", "sessions")
		rel, _ := filepath.Rel(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(s.Main))))), s.Main)
		copyTree(t, s.Main, filepath.Join(logs, rel))
	} else {
		logs = filepath.Join(user, ".claude", "projects")
		dir := filepath.Join(logs, "-eval-"+s.Source)
		copyTree(t, s.Main, filepath.Join(dir, filepath.Base(s.Main)))
		if s.Side != "" {
			copyTree(t, s.Side, filepath.Join(dir, filepath.Base(s.Side)))
		}
	}
	if err := exec.Command("git", "-C", h.work, "init", "-q").Run(); err != nil {
		t.Fatalf("git init: %v", err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Env, c.Dir = append(append(h.env(), "HOME="+user), evalModel()...), h.work
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		if err := c.Run(); err != nil {
			t.Fatalf("cairn %s: %v: %s", strings.Join(args, " "), err, e.String())
		}
		return o.Bytes()
	}
	var ingested []struct {
		Episode string `json:"episode"`
	}
	if err := json.Unmarshal(run("ingest", "--json", logs), &ingested); err != nil {
		t.Fatalf("ingest --json: %v", err)
	}
	episodes := map[string]bool{}
	for _, i := range ingested {
		if i.Episode != "" {
			episodes[i.Episode] = true
		}
	}
	var projects []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(run("projects", "--json"), &projects); err != nil {
		t.Fatalf("projects --json: %v", err)
	}
	log, err := os.ReadFile(s.Main)
	if err != nil {
		t.Fatal(err)
	}
	said := personWords(s.Format, log)
	for _, p := range projects {
		run("consolidate", "--project", p.Name)
		var ms []struct {
			ID         string          `json:"id"`
			Layer      string          `json:"layer"`
			Kind       string          `json:"kind"`
			Provenance string          `json:"provenance"`
			Status     string          `json:"status"`
			Title      string          `json:"title"`
			Body       string          `json:"body"`
			CreatedAt  string          `json:"created_at"`
			ValidFrom  string          `json:"valid_from"`
			Source     json.RawMessage `json:"source"`
		}
		if err := json.Unmarshal(run("list", "--project", p.Name, "--json", "-n", "1000000"), &ms); err != nil {
			t.Fatalf("list --json: %v", err)
		}
		for _, m := range ms {
			m.Title, m.Body = untemp(m.Title), untemp(m.Body)
			fm := formedMemory{Key: labelKey(s.Key, m.Title, m.Body), Session: s.Key, ID: m.ID, Project: p.Name, Layer: m.Layer, Kind: m.Kind,
				Provenance: m.Provenance, Status: m.Status, Title: m.Title, Body: m.Body, CreatedAt: m.CreatedAt, ValidFrom: m.ValidFrom,
				Source: m.Source, Episode: episodes[m.ID]}
			fm.check(said)
			mems = append(mems, fm)
		}
		// What the pass superseded on its own: each must be an update of
		// the same subject (issue 26), so each is shown for a reader.
		var gone []struct {
			Title        string `json:"title"`
			SupersededBy string `json:"superseded_by"`
		}
		if err := json.Unmarshal(run("list", "--project", p.Name, "--json", "-n", "1000000", "--status", "superseded"), &gone); err != nil {
			t.Fatalf("list --status superseded --json: %v", err)
		}
		for _, g := range gone {
			t.Logf("%s: superseded automatically: %q (by %s)", s.Key, untemp(g.Title), g.SupersededBy)
		}
		var inbox struct {
			Proposals []struct {
				ID     string `json:"id"`
				Kind   string `json:"kind"`
				Memory *struct {
					Layer      string          `json:"layer"`
					Provenance string          `json:"provenance"`
					Title      string          `json:"title"`
					Body       string          `json:"body"`
					ValidFrom  string          `json:"valid_from"`
					Source     json.RawMessage `json:"source"`
				} `json:"memory"`
			} `json:"proposals"`
		}
		if err := json.Unmarshal(run("inbox", "--project", p.Name, "--json"), &inbox); err != nil {
			t.Fatalf("inbox --json: %v", err)
		}
		for _, pr := range inbox.Proposals {
			fp := formedMemory{Session: s.Key, Project: p.Name, Proposal: pr.ID, Kind: pr.Kind}
			if m := pr.Memory; m != nil {
				m.Title, m.Body = untemp(m.Title), untemp(m.Body)
				fp.Layer, fp.Provenance, fp.Title, fp.Body, fp.ValidFrom, fp.Source = m.Layer, m.Provenance, m.Title, m.Body, m.ValidFrom, m.Source
				fp.Key = labelKey(s.Key, m.Title, m.Body)
			}
			fp.check(said)
			props = append(props, fp)
		}
	}
	// In the order they were said, so that "duplicate" means a later one.
	sort.SliceStable(mems, func(i, j int) bool {
		if mems[i].ValidFrom != mems[j].ValidFrom {
			return mems[i].ValidFrom < mems[j].ValidFrom
		}
		return mems[i].ID < mems[j].ID
	})
	// The same text formed again is keyed by its occurrence, so that the
	// second can be judged a duplicate of the first.
	seen := map[string]int{}
	for i := range mems {
		k := mems[i].Key
		if seen[k]++; seen[k] > 1 {
			mems[i].Key = labelKey(s.Key, mems[i].Title, fmt.Sprintf("%s\x00#%d", mems[i].Body, seen[k]))
		}
	}
	return mems, props
}

// tempPath matches the harness's own temporary directories, which a
// memory may quote (a lesson names the log it came from); they differ on
// every run and would change the memory's key. The whole path goes, as
// far as a memory's own shortening of it.
var tempPath = regexp.MustCompile(regexp.QuoteMeta(filepath.Join(os.TempDir(), "Test")) + `[^\s,;"'”)]*`)

func untemp(s string) string { return tempPath.ReplaceAllString(s, "<tmp>") }

// check runs the automatic checks: harness text in the memory, and a
// memory attributed to the person that they did not type.
func (m *formedMemory) check(said []string) {
	m.Harness = harnessIn(m.Title + "\n" + m.Body)
	var src struct {
		Actor string `json:"actor"`
	}
	json.Unmarshal(m.Source, &src)
	if strings.HasPrefix(m.Provenance, "user-") || src.Actor == "user" {
		m.Untyped = !typedBy(said, m.Title, m.Body)
	}
}

// copyTree copies a file or a directory tree.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// TestSessionsEvalScoring: the figures count what a judge labelled, a
// label stops counting when the memory's class changes, recall counts an
// expected item once and only through a useful memory, and the session's
// own episode is not judged.
func TestSessionsEvalScoring(t *testing.T) {
	t.Parallel()
	ss := []evalSession{{Key: "a.jsonl", Split: "tuning"}, {Key: "b.jsonl", Split: "tuning"}, {Key: "c.jsonl", Split: "held-out"}}
	mem := func(sess, title, layer string) formedMemory {
		return formedMemory{Key: labelKey(sess, title, title), Session: sess, Title: title, Body: title, Layer: layer, Kind: "fact"}
	}
	mems := []formedMemory{
		mem("a.jsonl", "uses uv", "state"), mem("a.jsonl", "uses uv too", "state"), mem("a.jsonl", "ran tests", "state"),
		mem("a.jsonl", "still needed", "invariant"), mem("b.jsonl", "ruff lints", "state"), mem("b.jsonl", "new one", "state"),
		mem("c.jsonl", "held out", "state"),
	}
	ep := mem("a.jsonl", "Session 1", "episode")
	ep.Episode = true
	mems = append(mems, ep)
	mems[0].Harness = []string{"<task-notification>"}
	mems[4].Untyped = true
	lab := func(m formedMemory, label string, exp ...int) sessionLabel {
		return sessionLabel{Key: m.Key, Session: m.Session, Layer: m.Layer, Kind: m.Kind, Label: label, Why: "x", Expected: exp}
	}
	labels := map[string]sessionLabel{}
	for _, l := range []sessionLabel{
		lab(mems[0], labelUseful, 1, 2), lab(mems[1], labelUseful, 1), lab(mems[2], labelNoise),
		lab(mems[4], labelDuplicate), lab(mems[6], labelWrong),
	} {
		labels[l.Key] = l
	}
	// Judged as a state; formed now as an invariant: to be judged again.
	l := lab(mems[3], labelUseful, 3)
	l.Layer = "state"
	labels[l.Key] = l
	expected := map[string]int{"a.jsonl": 3, "b.jsonl": 1, "c.jsonl": 2}

	f := figures("tuning", ss, mems, []formedMemory{{Session: "b.jsonl"}}, labels, expected)
	if f.Sessions != 2 || f.Formed != 6 || f.Unlabelled != 2 || f.Episodes != 1 || f.Proposals != 1 {
		t.Fatalf("counts %+v", f)
	}
	if f.Count[labelUseful] != 2 || f.Count[labelNoise] != 1 || f.Count[labelDuplicate] != 1 {
		t.Errorf("labels %v", f.Count)
	}
	if f.Precision != 0.5 || f.DupPct != 25 || f.WrongPct != 0 {
		t.Errorf("precision %v, dup %v %%, wrong %v %%: want 0.5, 25, 0", f.Precision, f.DupPct, f.WrongPct)
	}
	if f.Expected != 4 || f.Matched != 2 || f.Recall != 0.5 {
		t.Errorf("recall %d/%d = %v, want 2/4 (item 1 once, item 2; item 3's label is stale)", f.Matched, f.Expected, f.Recall)
	}
	if f.MaxPerSess != 4 || f.MaxSession != "a.jsonl" || f.Harness != 1 || f.Untyped != 1 {
		t.Errorf("max %d (%s), harness %d, untyped %d", f.MaxPerSess, f.MaxSession, f.Harness, f.Untyped)
	}
	if h := figures("held-out", ss, mems, nil, labels, expected); h.Formed != 1 || h.Count[labelWrong] != 1 || h.WrongPct != 100 {
		t.Errorf("held-out %+v", h)
	}
}

// TestSessionsEvalChecks: keys survive reflowing and case, not a change of
// session; the label file refuses what a judge could mistype; the person's
// words are what they typed, not what the harness wrote in their name.
func TestSessionsEvalChecks(t *testing.T) {
	t.Parallel()
	if labelKey("s", "Use uv", "Use  uv\nfor Python") != labelKey("s", "use uv", "use uv for python") {
		t.Error("a reflowed memory got a new key")
	}
	if labelKey("s", "a", "b") == labelKey("t", "a", "b") {
		t.Error("two sessions share a key")
	}
	good := sessionLabel{Key: "0123456789abcdef", Session: "s", Label: labelUseful, Why: "durable fact", Expected: []int{2}}
	for _, c := range []func(l *sessionLabel){
		func(l *sessionLabel) { l.Label = "usefull" },
		func(l *sessionLabel) { l.Why = " " },
		func(l *sessionLabel) { l.Label, l.Expected = labelNoise, []int{1} },
		func(l *sessionLabel) { l.Expected = []int{0} },
		func(l *sessionLabel) { l.Key = "abc" },
	} {
		bad := good
		c(&bad)
		if checkLabels([]sessionLabel{bad}) == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if checkLabels([]sessionLabel{good, good}) == nil || checkLabels([]sessionLabel{good}) != nil {
		t.Error("a key labelled twice must be refused, a good label accepted")
	}

	claude := strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"use uv for python packages"}}`,
		`{"type":"user","message":{"role":"user","content":"<task-notification>\n<summary>Background command \"x\" completed (exit code 0)</summary>"}}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat: The messages below</local-command-caveat>"}}`,
		`{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name><command-args>and keep going</command-args>"}}`,
		`{"type":"queue-operation","operation":"enqueue","content":"new beads were added, tackle them"}`,
		`{"type":"queue-operation","operation":"enqueue","content":"<task-notification>done</task-notification>"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"User has answered your questions: \"How?\"=\"main was clean; fix the issues\". You can now continue"}]}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix it<system-reminder>todo list</system-reminder>"}]}}`,
	}, "\n")
	said := personWords("claude-code", []byte(claude))
	want := []string{"use uv for python packages", "and keep going", "new beads were added, tackle them", "main was clean; fix the issues", "fix it"}
	if !slices.Equal(said, want) {
		t.Errorf("claude-code words %q, want %q", said, want)
	}
	codex := strings.Join([]string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /x\n<INSTRUCTIONS>all paths must be absolute</INSTRUCTIONS>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/x</cwd></environment_context>"}]}}`,
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"## User Input\\n\\n```text\\nbuild an STT API\\n```\\n\\nYou **MUST** consider the user input. Each requirement must be testable.\"}]}}",
		`{"type":"event_msg","payload":{"type":"user_message","message":"build an STT API"}}`,
	}, "\n")
	said = personWords("codex", []byte(codex))
	if !slices.Equal(said, []string{"build an STT API"}) {
		t.Errorf("codex words %q", said)
	}
	if !typedBy(said, "Build an STT API", "build an STT API.") || typedBy(said, "Each requirement must be testable", "Each requirement must be testable") {
		t.Error("typed text must be found, template text must not")
	}
	if got := harnessIn(`<summary>Background command "x" completed</summary>`); !slices.Equal(got, []string{`Background command "`}) {
		t.Errorf("harness markers %q", got)
	}
	if harnessIn("The SQL sandbox must be shared") != nil {
		t.Error("plain text flagged as harness text")
	}
}
