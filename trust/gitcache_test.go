package trust

import (
	"testing"

	"cairn/memory"
)

// The objects a process resolved at HEAD are used by the next while HEAD
// names the same commit: a commit that changes a directory is noticed,
// and so is a checkout back to the stamped commit.
func TestKeptTreesFollowHead(t *testing.T) {
	t.Parallel()
	r, _ := benchRepo(t)
	keep := t.TempDir()
	m := &memory.Memory{Confidence: 0.9, Watermarks: keptChecker(r.root, keep).Bind(ctx, "everything under bench/ is generated")}
	if len(m.Watermarks) != 1 || m.Watermarks[0].Kind != memory.WatermarkGit {
		t.Fatalf("bound to %+v", m.Watermarks)
	}
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkIntact {
		t.Fatalf("nothing changed: %s", got)
	}
	stamped := r.git("rev-parse", "HEAD")
	r.write("bench/b.txt", "new\n")
	r.commit("b")
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkMoved {
		t.Fatalf("a commit under bench/: %s in the next process, want moved", got)
	}
	r.git("checkout", "-q", "--detach", stamped)
	if got := state(t, keptChecker(r.root, keep), m); got != memory.WatermarkIntact {
		t.Fatalf("back at the stamped commit: %s in the next process, want intact", got)
	}
}
