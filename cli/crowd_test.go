package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Twelve negatives triggered by "billing" neither bury the decision that
// answers a billing question (cairn recall) nor make a wall at the top of
// the briefing (cairn context), which says how to list the rest.
func TestManyTriggeredNegativesDoNotCrowdRecallOrContext(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	negatives := []string{
		"Billing retries doubled the charges: use an idempotency key",
		"Do not run the billing migration at month end, the invoice run locks the tables",
		"Billing cron in UTC missed the last day of the month",
		"Rounding billing amounts per line was wrong: round the invoice total once",
		"Billing webhooks arrive out of order: never assume their sequence",
		"Caching billing plans went stale when prices changed",
		"Billing tests against the live sandbox flaked: use recorded fixtures",
		"Billing emails rendered in the worker leaked PII",
		"Deleting a customer orphaned billing records: archive customers instead",
		"Billing exports in CSV broke on commas: export JSON Lines",
		"A billing feature flag left on in staging charged test cards",
		"Float money in billing lost cents: use integer cents",
	}
	for _, n := range negatives {
		e.ok("remember", n, "-l", "E", "--trigger", "billing")
	}
	e.ok("remember", "We split billing out of the ledger service because the ledger's release cadence blocked billing fixes for weeks", "-l", "D")

	var got struct {
		Results []struct {
			Title string `json:"title"`
			Layer string `json:"layer"`
			Part  string `json:"part"`
		} `json:"results"`
	}
	out := e.ok("recall", "why did we split billing out of ledger", "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	at, triggered := -1, 0
	for i, r := range got.Results {
		if strings.HasPrefix(r.Title, "We split billing") && at < 0 {
			at = i
		}
		if r.Part == "triggered" {
			triggered++
		}
	}
	if at < 0 || at > 2 || triggered > 3 {
		t.Fatalf("the decision is at %d with %d triggered negatives first, want in the top 3 under at most 3:\n%s", at, triggered, e.ok("recall", "why did we split billing out of ledger"))
	}

	brief := e.ok("context")
	sec := brief[strings.Index(brief, "## What failed"):]
	if end := strings.Index(sec[2:], "\n## "); end >= 0 {
		sec = sec[:end+2]
	}
	if n := strings.Count(sec, "\n- **"); n != 5 {
		t.Errorf("the briefing tells %d negatives, want 5:\n%s", n, brief)
	}
	if want := fmt.Sprintf("%d more negatives not shown: `cairn list --layer negative`", len(negatives)-5); !strings.Contains(brief, want) {
		t.Errorf("the briefing does not say %q:\n%s", want, brief)
	}
	// The command it names lists them all.
	if n := strings.Count(e.ok("list", "--layer", "negative"), "\n"); n < len(negatives) {
		t.Errorf("cairn list --layer negative lists %d lines, want the %d negatives", n, len(negatives))
	}
}
