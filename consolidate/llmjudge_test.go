package consolidate

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"cairn/memory"
)

// judgeServer answers extraction requests with one state candidate (the
// whole draft) and judgement requests with judged(user content).
func judgeServer(t *testing.T, judged func(user string) string) (*LLM, *llmSeen) {
	t.Helper()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		sys, _ := msgs[0].(map[string]any)
		user, _ := msgs[1].(map[string]any)
		text, _ := user["content"].(string)
		if strings.Contains(sys["content"].(string), "You compare two notes") {
			if a := judged(text); a != "" {
				chat(w, a)
				return
			}
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		chat(w, candidatesJSON(map[string]any{"class": "state", "title": text, "body": text, "span": text, "sure": true}))
	})
	return newLLM(srv), seen
}

func verdictJSON(v, old, new string) string {
	b, _ := json.Marshal(map[string]string{"verdict": v, "old": old, "new": new})
	return string(b)
}

// judgedOutcome stores old as an agent's fact, captures newer as the
// person, runs a pass with the model and returns the old memory, the open
// supersession proposals of it and the report.
func judgedOutcome(t *testing.T, l *LLM, old, newer string) (*memory.Memory, []memory.Proposal, Report) {
	t.Helper()
	st := openStore(t)
	o := remember(t, st, memory.Memory{Layer: memory.LayerState, Kind: memory.KindFact, Body: old, Provenance: memory.ProvExtracted}, memory.ActorAgent)
	capture(t, st, memory.ActorUser, newer)
	rep, err := Consolidate(ctx, st, testProject, Options{AskedBy: memory.ActorUser, LLM: l})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := st.Proposals(ctx, testProject.ID, memory.ProposalOpen)
	if err != nil {
		t.Fatal(err)
	}
	return got, slices.DeleteFunc(ps, func(p memory.Proposal) bool { return p.Kind != memory.ProposeSupersede || p.Target != o.ID }), rep
}

// An update neither the rules nor the update model read (a bill from
// Cloudflare says the storage moved) is proposed when the model judges it one and quotes both texts; the stored
// fact stays active until a person accepts. The request holds the two
// texts and nothing else of the store.
func TestLLMJudgeProposesWhatTheRulesMiss(t *testing.T) {
	t.Parallel()
	const old = "Object storage is on Google Cloud Storage."
	const newer = "Our object storage bill comes from Cloudflare these days."
	l, seen := judgeServer(t, func(user string) string {
		if !strings.Contains(user, "OLDER: "+old) || !strings.Contains(user, "NEWER: "+newer) {
			return ""
		}
		return verdictJSON("update", "Google Cloud Storage", "Cloudflare")
	})
	got, ps, rep := judgedOutcome(t, l, old, newer)
	if got.Status != memory.StatusActive {
		t.Fatalf("a model's verdict superseded the stored fact on its own: %s", got.Status)
	}
	if len(ps) != 1 || !strings.Contains(ps[0].Reason, "Google Cloud Storage → Cloudflare") {
		t.Fatalf("proposals %+v; dropped %q", ps, rep.Dropped)
	}
	judged := 0
	for _, raw := range seen.raw {
		if strings.Contains(raw, "You compare two notes") {
			judged++
			for _, private := range []string{got.ID, testProject.ID, string(got.Provenance)} {
				if strings.Contains(raw, private) {
					t.Errorf("the judgement request holds %q", private)
				}
			}
		}
	}
	if judged != 1 {
		t.Errorf("%d judgement requests, want 1", judged)
	}

	// The same pair without a model: the rules do not see it.
	_, ps, _ = judgedOutcome(t, nil, old, newer)
	if len(ps) != 0 {
		t.Errorf("the rules alone proposed %+v: pick a pair they miss", ps)
	}
}

// The model withdraws a proposal the rules were unsure of when it reads
// the pair as another thing; an answer that does not quote the texts, a
// verdict it does not know, or a server that fails leaves the rules'
// proposal, and says why.
func TestLLMJudgeWithdrawsOrLeavesTheRules(t *testing.T) {
	t.Parallel()
	const old = "The public API rate limit is 100 requests per minute per key."
	const newer = "rate limit per key is 300/min as of today's release"
	_, ps, _ := judgedOutcome(t, nil, old, newer)
	if len(ps) != 1 {
		t.Fatalf("the rules alone: %d proposals, want 1 (pick a pair they find probable)", len(ps))
	}

	l, _ := judgeServer(t, func(string) string { return verdictJSON("unrelated", "", "") })
	if _, ps, rep := judgedOutcome(t, l, old, newer); len(ps) != 0 {
		t.Errorf("judged unrelated, still proposed: %+v (dropped %q)", ps, rep.Dropped)
	}
	l, _ = judgeServer(t, func(string) string { return verdictJSON("same", "", "") })
	if _, ps, _ := judgedOutcome(t, l, old, newer); len(ps) != 0 {
		t.Errorf("judged the same fact, still proposed as an update: %+v", ps)
	}

	for _, tc := range []struct{ name, answer, why string }{
		{"invented old", verdictJSON("update", "200 requests per hour", "300/min"), `"old" is not in the older memory`},
		{"invented new", verdictJSON("update", "100 requests", "500 per minute"), `"new" is not in the newer text`},
		{"unknown verdict", verdictJSON("maybe", "", ""), `none of "update"`},
		{"not JSON", "sure, it is an update", "not the JSON asked for"},
		{"server error", "", "answered 500"},
	} {
		l, _ := judgeServer(t, func(string) string { return tc.answer })
		got, ps, rep := judgedOutcome(t, l, old, newer)
		if got.Status != memory.StatusActive || len(ps) != 1 {
			t.Errorf("%s: old %s, %d proposals; want the rules' one proposal", tc.name, got.Status, len(ps))
		}
		if !slices.ContainsFunc(rep.Dropped, func(s string) bool { return strings.Contains(s, tc.why) && strings.Contains(s, "the rules decided") }) {
			t.Errorf("%s: the reason is not reported: %q", tc.name, rep.Dropped)
		}
	}
}

// Judge reads fenced and reasoning answers, and never sends a secret.
func TestLLMJudgeAnswers(t *testing.T) {
	t.Parallel()
	srv, seen := llmServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any) {
		chat(w, "<think>the port moved</think>\n```json\n"+verdictJSON("update", "port 8080", "8081")+"\n```")
	})
	l := newLLM(srv)
	v, c, err := l.judgePair(context.Background(), "The API listens on port 8080.", "api now on 8081")
	if err != nil || v != verdictUpdate || c.Old != "port 8080" || c.New != "8081" {
		t.Fatalf("verdict %v %+v %v", v, c, err)
	}
	n := seen.count()
	if _, _, err := l.judgePair(context.Background(), "The CI token is "+llmGitHubToken+".", "deploy key rotated"); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("a text with a credential: %v", err)
	}
	if seen.count() != n {
		t.Error("a text with a credential was sent")
	}
}
