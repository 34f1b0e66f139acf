package memory

import "testing"

// TestExplainNamesDraftsAsDrafts: a reason that names the draft it came
// from says so (by a prefix of the draft's id, which cairn inbox show
// takes); it never calls the draft a forgotten memory, and memory ids are
// still read as titles.
func TestExplainNamesDraftsAsDrafts(t *testing.T) {
	t.Parallel()
	const draft, mem = "01M8GSS4RNN9G8JXX4TS9XJEKP", "01KHH0FF00K8ER2QQPT4XRZAGR"
	lookup := func(id string) (string, bool) {
		if id == mem {
			return "Keep sessions in Postgres", true
		}
		return "", false
	}
	got := Explain("a preference from draft "+draft+", not sure enough; contradicts "+mem, lookup)
	if want := "a preference from draft 01M8GSS4RN, not sure enough; contradicts 'Keep sessions in Postgres'"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if got := Explain("contradicts "+draft, lookup); got != "contradicts a forgotten memory" {
		t.Errorf("an id that is not a draft's and not found: %q", got)
	}
}

// A reopened decision's reason names the proposal that waits by its id:
// it reads as that proposal, not as a forgotten memory.
func TestExplainNamesProposalsAndRuns(t *testing.T) {
	t.Parallel()
	const prop, run, mem = "01M8HVAD8W668M64QHE1Z95K8W", "01M8HVAD93XPVYPJYN8PPJDT85", "01KKEPW0B0QPEATF1DDMD3T7X8"
	lookup := func(id string) (string, bool) { return "The token bucket holds 5k req/s", id == mem }
	got := Explain("its evidence "+mem+" is contradicted by a later draft (proposal "+prop+" waits; run "+run+")", lookup)
	if want := "its evidence 'The token bucket holds 5k req/s' is contradicted by a later draft (proposal 01M8HVAD8W waits; run 01M8HVAD93)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
}
