package recall

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
	"cairn/store"
)

func TestSimpleRanksAndBudgets(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := memory.Project{ID: "00000000000000aa", Name: "p"}
	for _, pr := range []memory.Project{p, {ID: memory.GlobalID, Name: memory.GlobalName}, {ID: "00000000000000bb", Name: "other"}} {
		if _, err := db.EnsureProject(ctx, pr); err != nil {
			t.Fatal(err)
		}
	}
	add := func(pid string, layer memory.Layer, title, body string) *memory.Memory {
		m, err := db.Remember(ctx, &memory.Memory{Project: pid, Layer: layer, Title: title, Body: body}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	best := add(p.ID, memory.LayerNegative, "VGPR-256 starved occupancy", "raising VGPRs halved occupancy")
	add(p.ID, memory.LayerState, "release v0.7", "occupancy of the office is unrelated")
	glob := add(memory.GlobalID, memory.LayerInvariant, "prefer stdlib", "VGPR tuning notes live in the wiki")
	add("00000000000000bb", memory.LayerNegative, "VGPR in another project", "VGPR occupancy")
	arch := add(p.ID, memory.LayerEpisode, "old VGPR note", "VGPR occupancy measured in 2025")
	if _, err := db.Archive(ctx, arch.ID, "", memory.ActorUser); err != nil {
		t.Fatal(err)
	}

	rs, err := Simple(ctx, db, "VGPR occupancy", Options{Projects: []string{p.ID, memory.GlobalID}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].Memory.ID != best.ID {
		t.Fatalf("ranking: %v", titles(rs))
	}
	for _, r := range rs {
		if strings.Contains(r.Memory.Title, "another project") || r.Memory.ID == arch.ID {
			t.Fatalf("served %q", r.Memory.Title)
		}
	}
	found := false
	for _, r := range rs {
		found = found || r.Memory.ID == glob.ID
	}
	if !found {
		t.Fatal("global memory not recalled in the project")
	}
	withArchived, _ := Simple(ctx, db, "VGPR occupancy", Options{Projects: []string{p.ID}, Archived: true})
	if len(withArchived) != 3 {
		t.Fatalf("--archived: %v", titles(withArchived))
	}
	tight, _ := Simple(ctx, db, "VGPR occupancy", Options{Projects: []string{p.ID, memory.GlobalID}, Budget: 1})
	if len(tight) != 1 {
		t.Fatalf("budget 1 keeps the best one only: %v", titles(tight))
	}
}

func titles(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Memory.Title)
	}
	return out
}
