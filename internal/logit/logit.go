// Package logit is the logistic model cairn's patterns are weighed with
// where no one reading decides: a weight for each named signal and for
// each word seen often enough, fitted on sets people labelled (the fits
// run in tests, where the sets are) and printed as Go to keep in the
// code that uses it.
package logit

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Model is a fitted model: one weight a signal (the first is the bias,
// its signal always 1), one a word, and the probability at which its
// user acts.
type Model struct {
	Threshold float64
	Weights   []float64
	Words     map[string]float64
}

// Score is the model's probability for the signals f and the words.
func (m Model) Score(f []float64, words []string) float64 {
	if len(m.Weights) != len(f) {
		return 0
	}
	z := 0.0
	for i, w := range m.Weights {
		z += w * f[i]
	}
	for _, w := range words {
		z += m.Words[w]
	}
	return 1 / (1 + math.Exp(-z))
}

// Example is one labelled case: its signals, its words, and whether it
// is what the model finds.
type Example struct {
	F     []float64
	Words []string
	Y     bool
}

// Options shape a fit: the L2 penalty, the steps of gradient descent,
// how many examples must hold a word for it to be weighed and how many
// times as much a word's weight is penalised.
type Options struct {
	L2       float64
	Steps    int
	MinWords int
	WordL2   float64
}

// Fit fits weights by gradient descent on the mean log loss with an L2
// penalty (the bias is not penalised); each class weighs the same.
func Fit(xs []Example, o Options) Model {
	if len(xs) == 0 {
		return Model{}
	}
	m := Model{Weights: make([]float64, len(xs[0].F)), Words: map[string]float64{}}
	count := map[string]int{}
	pos := 0
	for _, x := range xs {
		for _, w := range x.Words {
			count[w]++
		}
		if x.Y {
			pos++
		}
	}
	for w, c := range count {
		if c >= o.MinWords {
			m.Words[w] = 0
		}
	}
	n := float64(len(xs))
	wPos, wNeg := n/(2*float64(max(pos, 1))), n/(2*float64(max(len(xs)-pos, 1)))
	g := make([]float64, len(m.Weights))
	gw := map[string]float64{}
	const rate = 0.5
	for s := 0; s < o.Steps; s++ {
		clear(g)
		clear(gw)
		for _, x := range xs {
			p := m.Score(x.F, x.Words)
			y, cw := 0.0, wNeg
			if x.Y {
				y, cw = 1, wPos
			}
			for i, v := range x.F {
				g[i] += cw * (p - y) * v
			}
			for _, w := range x.Words {
				if _, ok := m.Words[w]; ok {
					gw[w] += cw * (p - y)
				}
			}
		}
		for i := range m.Weights {
			g[i] /= n
			if i > 0 {
				g[i] += o.L2 * m.Weights[i]
			}
			m.Weights[i] -= rate * g[i]
		}
		for w, v := range m.Words {
			m.Words[w] = v - rate*(gw[w]/n+o.WordL2*o.L2*v)
		}
	}
	return m
}

// GoSource is the model as Go source, "var name = typ{Model: logit.Model{…}}"
// (or "… = logit.Model{…}" when typ is ""), each weight named by names and
// the words whose weight is at least minWord either way, in order.
func (m Model) GoSource(name, typ string, names []string, minWord float64) string {
	var b strings.Builder
	open, close := "logit.Model{", "}"
	if typ != "" {
		open, close = typ+"{Model: logit.Model{", "}}"
	}
	fmt.Fprintf(&b, "var %s = %sThreshold: %.4f, Weights: []float64{\n", name, open, m.Threshold)
	for i, v := range m.Weights {
		fmt.Fprintf(&b, "\t%.4f, // %s\n", v, names[i])
	}
	b.WriteString("}, Words: map[string]float64{\n")
	var ws []string
	for k, v := range m.Words {
		if math.Abs(v) >= minWord {
			ws = append(ws, k)
		}
	}
	slices.Sort(ws)
	for _, k := range ws {
		fmt.Fprintf(&b, "\t%q: %.3f,\n", k, m.Words[k])
	}
	b.WriteString("}" + close + "\n")
	return b.String()
}
