package inboxline

import (
	"strings"
	"testing"

	"cairn/memory"
)

// TestChange: a supersession's row shows the words that changed with a
// little of what stays around them, and two rows about the same memory
// read differently.
func TestChange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, before, after string }{
		{"The API listens on port 8080.", "The API listens on port 9090.", "The API listens on port 8080.", "9090"},
		{"Keep sessions in Postgres, not Redis", "Keep sessions in Redis, not Postgres", "Keep sessions in Postgres, not Redis", "Redis … Postgres"},
		{"Deploys go through ArgoCD.", "Ship with a hand-written script", "Deploys go through ArgoCD.", "Ship with a hand-written script"},
		{"We deploy on Fridays after the weekly review", "We deploy on Mondays after the weekly review, twice", "We deploy on Fridays after the weekly review", "Mondays … , twice"},
		{"Never commit secrets, ever", "Never commit secrets", "Never commit secrets, ever", "Never commit secrets"},
		// A word changed inside (a version), and a period the new text adds.
		{"Release v0.7.0 is out; auth refactor done", "Release v0.8.0 is out; auth refactor done.", "Release v0.7.0 is out; auth refactor done", "v0.8.0"},
		{"The p99 is 4 ms on the staging hosts.", "The p99 is 12 ms on the staging hosts.", "The p99 is 4 ms on the staging hosts.", "12"},
	} {
		before, after := Change(c.a, c.b)
		if before != c.before || after != c.after {
			t.Errorf("Change(%q, %q) = %q → %q, want %q → %q", c.a, c.b, before, after, c.before, c.after)
		}
	}
}

func TestMarked(t *testing.T) {
	t.Parallel()
	if got := Marked("listens on port 8080.", "listens on port 9090."); got != "listens on port [-8080-]{+9090+}." {
		t.Errorf("Marked = %q", got)
	}
}

// TestProposal: each kind of proposal reads as what it would change, and
// rows of the same kind about different memories differ.
func TestProposal(t *testing.T) {
	t.Parallel()
	port := &memory.Memory{Title: "The API listens on port 8080.", Layer: memory.LayerState}
	nodes := &memory.Memory{Title: "Staging runs three nodes", Layer: memory.LayerState}
	cand := func(title string, k memory.Kind) *memory.Memory {
		return &memory.Memory{Title: title, Layer: memory.LayerDecision, Kind: k}
	}
	rows := map[string]string{
		"supersede": Proposal(memory.Proposal{Kind: memory.ProposeSupersede, Memory: cand("The API listens on port 9090.", memory.KindFact)}, port, nil),
		"merge":     Proposal(memory.Proposal{Kind: memory.ProposeMerge, Memory: cand("Staging runs 3 nodes", memory.KindFact)}, nodes, nil),
		"merge2":    Proposal(memory.Proposal{Kind: memory.ProposeMerge}, port, nodes),
		"remember":  Proposal(memory.Proposal{Kind: memory.ProposeRemember, Memory: cand("Prefer table-driven tests", memory.KindPreference)}, nil, nil),
		"archive":   Proposal(memory.Proposal{Kind: memory.ProposeArchive}, nodes, nil),
		"forgotten": Proposal(memory.Proposal{Kind: memory.ProposeSupersede, Memory: cand("x", memory.KindFact)}, nil, nil),
	}
	want := map[string]string{
		"supersede": "The API listens on port 8080. → 9090",
		"merge":     "Staging runs three nodes + Staging runs 3 nodes",
		"merge2":    "The API listens on port 8080. + Staging runs three nodes",
		"remember":  "Prefer table-driven tests · D preference",
		"archive":   "Staging runs three nodes",
		"forgotten": "(a forgotten memory) → x",
	}
	for k, w := range want {
		if rows[k] != w {
			t.Errorf("%s: %q, want %q", k, rows[k], w)
		}
	}
	if strings.Contains(rows["remember"], "draft") {
		t.Errorf("a remember row speaks of drafts: %q", rows["remember"])
	}
}
