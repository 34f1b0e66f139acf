package secrets

import "testing"

// Every pattern's expression compiles (they compile on first use).
func TestEveryPatternCompiles(t *testing.T) {
	for _, pt := range patterns {
		if pt.re() == nil {
			t.Fatalf("%s did not compile", pt.name)
		}
	}
}
