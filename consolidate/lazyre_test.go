package consolidate

import "testing"

// Every expression of the package compiles (they compile on first use).
func TestEveryLazyRegexpCompiles(t *testing.T) {
	t.Parallel()
	if len(lazies) < 70 {
		t.Fatalf("%d lazy expressions registered, want the package's eighty or so", len(lazies))
	}
	for _, l := range lazies {
		if l.re() == nil {
			t.Fatal("an expression did not compile")
		}
	}
}
