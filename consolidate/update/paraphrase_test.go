package update

import "testing"

// Numbers are read as quantities with their units, however written; one
// that differs, or that one text has and the other lacks, sets them apart.
func TestParaphraseReadsQuantities(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"PLT build takes 2+ minutes", "PLT build takes 2-3 min"},
		{"PLT build takes two minutes", "PLT build takes 2 min"},
		{"uploads limited to 10MB", "uploads limited to 10 MB"},
		{"cold build takes 45s", "cold build takes 45 seconds"},
	}
	for _, p := range same {
		if a, b := readParaphrase(p[0]), readParaphrase(p[1]); !sameValues(a.vals, b.vals) {
			t.Errorf("%q and %q read as other values: %+v / %+v", p[0], p[1], a.vals, b.vals)
		}
	}
	different := [][2]string{
		{"PLT build takes 2 minutes", "PLT build takes 20 minutes"},
		{"PLT build takes 2 minutes", "PLT build takes 2 hours"},
		{"uploads limited to 10MB", "uploads limited to 100MB"},
		{"the worker retries 3 times", "the worker retries"},
	}
	for _, p := range different {
		if a, b := readParaphrase(p[0]), readParaphrase(p[1]); sameValues(a.vals, b.vals) {
			t.Errorf("%q and %q read as the same values: %+v / %+v", p[0], p[1], a.vals, b.vals)
		}
	}
}
