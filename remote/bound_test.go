package remote

import (
	"reflect"
	"testing"
	"time"

	"cairn/memory"
)

// The wake check's reads through the socket give what the store gives: the
// summary of bound stamps, and the memories bound to the targets asked for.
func TestRemoteBoundTargetsAndBoundTo(t *testing.T) {
	t.Parallel()
	c, db, _ := serve(t)
	bind := func(body, file, fp string) *memory.Memory {
		m, err := c.Remember(ctx, &memory.Memory{Project: pid, Layer: memory.LayerState, Body: body,
			Watermarks: []memory.Watermark{{Kind: memory.WatermarkFile, Target: file, Fingerprint: fp, State: memory.WatermarkIntact, StampedAt: time.Now()}}}, memory.ActorUser)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := bind("the parser lives in a.go", "a.go", "sha256:aa")
	bind("a.go also holds the lexer", "a.go", "sha256:aa")
	bind("b.go holds the printer", "b.go", "sha256:bb")

	got, err := c.BoundTargets(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.BoundTargets(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got, want) {
		t.Fatalf("through the server %+v, in the store %+v", got, want)
	}
	if got[0].Target != "a.go" || got[0].Count != 2 {
		t.Fatalf("a.go's stamp is carried by %d memories, want 2", got[0].Count)
	}

	ms, err := c.BoundTo(ctx, pid, []string{"b.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Watermarks[0].Target != "b.go" || ms[0].ID == a.ID {
		t.Fatalf("BoundTo(b.go) through the server = %+v", ms)
	}
}
