package logit

import (
	"strings"
	"testing"
)

// TestFitFindsTheSignalAndTheWord: a fit weighs the signal and the word
// that tell the classes apart, and the model prints as the Go it is kept
// as.
func TestFitFindsTheSignalAndTheWord(t *testing.T) {
	t.Parallel()
	var xs []Example
	for i := 0; i < 40; i++ {
		xs = append(xs,
			Example{F: []float64{1, 1, float64(i % 2)}, Words: []string{"now"}, Y: true},
			Example{F: []float64{1, 0, float64(i % 2)}, Words: []string{"still"}, Y: false})
	}
	m := Fit(xs, Options{L2: 0.002, Steps: 500, MinWords: 8, WordL2: 5})
	if yes, no := m.Score([]float64{1, 1, 0}, nil), m.Score([]float64{1, 0, 0}, nil); yes <= 0.5 || no >= 0.5 {
		t.Errorf("the deciding signal: %.2f with it, %.2f without", yes, no)
	}
	if m.Words["now"] <= 0 || m.Words["still"] >= 0 {
		t.Errorf("the words' weights: %v", m.Words)
	}
	if got := m.Score([]float64{1}, nil); got != 0 {
		t.Errorf("signals of another model scored %.2f, want 0", got)
	}
	src := m.GoSource("fitted", "kind", []string{"bias", "deciding", "noise"}, 0.05)
	for _, want := range []string{"var fitted = kind{Model: logit.Model{Threshold:", "// deciding", `"now":`, "}}\n"} {
		if !strings.Contains(src, want) {
			t.Errorf("the Go source lacks %q:\n%s", want, src)
		}
	}
}
