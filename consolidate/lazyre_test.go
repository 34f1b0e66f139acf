package consolidate

import (
	"testing"

	"cairn/internal/lazyre"
)

// Every expression of the planner and the readers it links (extraction)
// compiles: they compile on first use, so a mistake would otherwise show
// only then.
func TestEveryLazyRegexpCompiles(t *testing.T) {
	t.Parallel()
	if n := lazyre.CompileAll(); n < 70 {
		t.Fatalf("%d lazy expressions registered, want the readers' eighty or so", n)
	}
}
