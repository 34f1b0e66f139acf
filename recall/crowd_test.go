package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cairn/memory"
)

// billingNegatives are twelve things that failed around billing, each
// triggered by the word: a common subject gathers many.
var billingNegatives = []struct{ title, body string }{
	{"Billing retries doubled the charges", "Retrying a billing call without an idempotency key charged customers twice."},
	{"Do not run the billing migration at month end", "The invoice run locks the billing tables for hours."},
	{"Billing cron in UTC missed the last day", "Schedule billing jobs in the customer's timezone."},
	{"Rounding billing amounts per line was wrong", "Round the invoice total once, not each line."},
	{"Billing webhooks arrive out of order", "Never assume the payment webhook follows the invoice webhook."},
	{"Caching billing plans went stale", "Plan prices changed under the cache: read them fresh."},
	{"Billing tests against the live sandbox flaked", "Use the recorded fixtures for billing tests."},
	{"Billing emails sent from the worker leaked PII", "Render billing emails in the mailer, never in the worker."},
	{"Deleting a customer orphaned billing records", "Archive customers; billing keeps its records seven years."},
	{"Billing exports in CSV broke on commas", "Export billing data as JSON Lines."},
	{"A billing feature flag left on in staging", "Billing flags must default to off."},
	{"Float money in billing lost cents", "Billing amounts are integer cents."},
}

// billingStore is a project with the twelve negatives and the decision
// that answers why billing left the ledger.
func billingStore(t *testing.T) (*fixture, *memory.Memory) {
	t.Helper()
	f := newFixture(t)
	for _, n := range billingNegatives {
		f.add(t, memory.Memory{Layer: memory.LayerNegative, Kind: memory.KindNegative, Title: n.title, Body: n.body, Triggers: []string{"billing"}})
	}
	dec := f.add(t, memory.Memory{Layer: memory.LayerDecision, Kind: memory.KindDecision, Title: "Split billing out of the ledger service",
		Body: "We split billing out of ledger because the ledger's release cadence blocked billing fixes for weeks, and billing needs PCI scope the ledger must not carry."})
	f.add(t, memory.Memory{Layer: memory.LayerState, Title: "Ledger runs on Postgres 16", Body: "The ledger service's database."})
	return f, dec
}

// A word that triggers many negatives does not bury the answer under
// them: a few stand first, the rest rank by their own score.
func TestTriggeredNegativesDoNotCrowdOutTheAnswer(t *testing.T) {
	t.Parallel()
	f, dec := billingStore(t)
	f.build(t)
	resp := f.recall(t, "why did we split billing out of ledger", func(r *Request) { r.Budget = 4000 })
	at := -1
	for i, h := range resp.Results {
		if h.Memory.ID == dec.ID {
			at = i
			break
		}
	}
	if at < 0 || at > 2 {
		t.Fatalf("the decision is at %d, want in the top 3: %q", at, titles(resp.Results))
	}
	above := 0
	for _, h := range resp.Results[:at] {
		if h.Memory.Layer == memory.LayerNegative {
			above++
		}
	}
	if above > MaxTriggered {
		t.Fatalf("%d negatives above the answer, want at most %d: %q", above, MaxTriggered, titles(resp.Results))
	}
	triggered := 0
	for i, h := range resp.Results {
		if h.Memory.Layer != memory.LayerNegative {
			continue
		}
		if h.Explain.Trigger != "billing" {
			t.Errorf("%q lost its trigger in the explanation: %+v", h.Memory.Title, h.Explain)
		}
		if h.Part == PartTriggered {
			triggered++
			continue
		}
		// the rest rank by their own score: never above a better one
		if i > 0 && resp.Results[i-1].Part == h.Part && resp.Results[i-1].Score < h.Score {
			t.Errorf("%q ranks below a lower score", h.Memory.Title)
		}
	}
	if triggered == 0 || triggered > MaxTriggered {
		t.Errorf("%d negatives stand first, want 1..%d", triggered, MaxTriggered)
	}
	if len(resp.Results)+resp.Cut < 10 {
		t.Errorf("the other negatives should still be results or counted as cut: %d results, %d cut", len(resp.Results), resp.Cut)
	}
}

// A triggered negative that is itself the best answer still comes first,
// and the most specific trigger stands before a bare word.
func TestTriggeredNegativeThatAnswersComesFirst(t *testing.T) {
	t.Parallel()
	f, _ := billingStore(t)
	float := f.add(t, memory.Memory{Layer: memory.LayerNegative, Kind: memory.KindNegative, Title: "Never store billing amounts as float",
		Body: "Float billing amounts lost cents on every refund: store integer cents.", Triggers: []string{"billing"}})
	exact := f.add(t, memory.Memory{Layer: memory.LayerNegative, Kind: memory.KindNegative, Title: "The invoice PDF renderer leaks memory",
		Body: "Restart it after each batch.", Triggers: []string{"billing", "invoice pdf"}})
	f.build(t)
	resp := f.recall(t, "can we store billing amounts as float for the invoice pdf totals?")
	if len(resp.Results) < 2 {
		t.Fatalf("too few results: %q", titles(resp.Results))
	}
	if resp.Results[0].Memory.ID != float.ID {
		t.Fatalf("the negative that answers should come first: %q", titles(resp.Results))
	}
	if resp.Results[1].Memory.ID != exact.ID || resp.Results[1].Explain.Trigger != "invoice pdf" {
		t.Fatalf("the most specific trigger should come next, explained by it: %q %+v", titles(resp.Results), resp.Results[1].Explain)
	}
}

// The briefing lists a few negatives, the most reinforced first, and says
// how many more there are and how to list them.
func TestBriefingCapsNegatives(t *testing.T) {
	t.Parallel()
	f, _ := billingStore(t)
	ctx := context.Background()
	page, err := f.db.List(ctx, memory.Query{Project: f.pid, Layer: memory.LayerNegative, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	// The oldest one said again: reinforced, it leads.
	oldest := page.Memories[len(page.Memories)-1]
	if _, err := f.db.Remember(ctx, &memory.Memory{Project: f.pid, Layer: memory.LayerNegative, Kind: memory.KindNegative, Title: oldest.Title, Body: oldest.Body, Triggers: oldest.Triggers}, memory.ActorUser); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.db.Get(ctx, oldest.ID); got.Salience.Reinforcements == 0 {
		t.Fatal("saying a memory again did not reinforce it")
	}
	b, err := Context(ctx, f.db, []string{f.pid}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	var negs []*memory.Memory
	for _, s := range b.Sections {
		for _, m := range s.Memories {
			if m.Layer == memory.LayerNegative {
				negs = append(negs, m)
			}
		}
	}
	if len(negs) != maxBriefNegatives {
		t.Fatalf("%d negatives briefed, want %d", len(negs), maxBriefNegatives)
	}
	if negs[0].ID != oldest.ID {
		t.Errorf("the reinforced negative should lead, got %q", negs[0].Title)
	}
	if b.MoreNegatives != len(billingNegatives)-maxBriefNegatives {
		t.Errorf("MoreNegatives %d, want %d", b.MoreNegatives, len(billingNegatives)-maxBriefNegatives)
	}
	md := b.Markdown()
	line := fmt.Sprintf("%d more negatives", len(billingNegatives)-maxBriefNegatives)
	if !strings.Contains(md, line) || !strings.Contains(md, "cairn list --layer negative") {
		t.Fatalf("the briefing does not say how many more negatives exist and how to list them:\n%s", md)
	}
	if strings.Index(md, "## What failed") < strings.Index(md, "## Working state") {
		t.Errorf("the negatives lead the briefing:\n%s", md)
	}
}
