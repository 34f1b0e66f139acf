package update

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/internal/logit"
)

// example is one pair read for the model: its signals and whether it is an
// update.
type example struct {
	set    string
	id     string
	text   string
	f      []float64
	words  []string
	update bool
}

// examplesOf reads the pairs of a JSON Lines file of update and
// consistent pairs ({"id", "kind", "old", "new"}) as examples.
func examplesOf(t *testing.T, file string) []example {
	t.Helper()
	var out []example
	for _, p := range readPairs(t, file) {
		o, n := updateCache.Get(p.Old), updateCache.Get(p.New)
		rules, _ := updateOf(o, n)
		out = append(out, example{set: filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file), id: p.ID, text: p.Old + " ⇒ " + p.New,
			f: updateFeatures(o, n, rules), words: newerWords(n), update: p.Kind == "update"})
	}
	return out
}

// setPair is one pair of a set.
type setPair struct{ ID, Kind, Old, New string }

// readPairs reads a JSON Lines file of update and consistent pairs.
func readPairs(t *testing.T, file string) []setPair {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []setPair
	for dec := json.NewDecoder(f); ; {
		var p setPair
		if err := dec.Decode(&p); err == io.EOF {
			return ps
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		ps = append(ps, p)
	}
}

// minWords and wordL2 shape the words' part of the fit (fitLogistic).
var (
	minWords = 8
	wordL2   = 5.0
)

// fitLogistic fits the update model on xs (logit.Fit).
func fitLogistic(xs []example, l2 float64, steps int) updateModel {
	ls := make([]logit.Example, len(xs))
	for i, x := range xs {
		ls[i] = logit.Example{F: x.f, Words: x.words, Y: x.update}
	}
	return updateModel{Model: logit.Fit(ls, logit.Options{L2: l2, Steps: steps, MinWords: minWords, WordL2: wordL2})}
}

// thresholdFor is the lowest probability at which at most maxFalse of the
// consistent pairs would be proposed by a pass: those the rules propose
// count first, the model's share is what is left.
func thresholdFor(xs []example, fitted updateModel, maxFalse float64) float64 {
	m := fitted
	m.Threshold = 2 // the rules alone
	var neg []float64
	ruled, consistent := 0, 0
	for _, x := range xs {
		if x.update {
			continue
		}
		consistent++
		if decides(m, x) {
			ruled++
			continue
		}
		if vetoed(x.f) {
			continue
		}
		neg = append(neg, m.Score(x.f, x.words))
	}
	slices.Sort(neg)
	slices.Reverse(neg)
	k := int(math.Floor(maxFalse*float64(consistent))) - ruled
	if k < 0 {
		return 1
	}
	if k >= len(neg) {
		return 0.5
	}
	return neg[k] + 1e-9
}

func vetoed(f []float64) bool {
	return !(updateModel{Model: logit.Model{Weights: make([]float64, len(f))}}).proposes(f, nil)
}

// decides is what a pass decides of a pair alone: the rules' reading
// (certain or probable) or the model's proposal.
func decides(m updateModel, x example) bool {
	return x.f[sRulesCertain] > 0.5 || x.f[sRulesProbable] > 0.5 || m.proposes(x.f, x.words)
}

func rates(xs []example, m updateModel) (caught, updates, falseProp, consistent int) {
	for _, x := range xs {
		p := decides(m, x)
		if x.update {
			updates++
			if p {
				caught++
			}
		} else {
			consistent++
			if p {
				falseProp++
			}
		}
	}
	return
}

// TestFitUpdateModel fits the update model on the sets CAIRN_UPDATES_TRAIN
// names (comma-separated JSON Lines files of update and consistent pairs),
// reports each set's figures when it is left out of the fit, and prints
// the weights to put in update/model.go. It runs only where the sets are.
func TestFitUpdateModel(t *testing.T) {
	files := os.Getenv("CAIRN_UPDATES_TRAIN")
	if files == "" {
		t.Skip("CAIRN_UPDATES_TRAIN names the sets to fit on")
	}
	l2, steps, maxFalse := 0.002, 3000, 0.06
	minWords, wordL2 = 8, 5
	if v := os.Getenv("CAIRN_FIT"); v != "" {
		fmt.Sscanf(v, "%g,%d,%g,%d,%g", &l2, &steps, &maxFalse, &minWords, &wordL2)
	}
	var all []example
	for _, f := range strings.Split(files, ",") {
		all = append(all, examplesOf(t, f)...)
	}
	sets := map[string]bool{}
	for _, x := range all {
		sets[x.set] = true
	}
	var sumC, sumU, sumF, sumN int
	for set := range sets {
		var train, test []example
		for _, x := range all {
			if x.set == set {
				test = append(test, x)
			} else {
				train = append(train, x)
			}
		}
		m := fitLogistic(train, l2, steps)
		m.Threshold = thresholdFor(train, m, maxFalse)
		c, u, fp, n := rates(test, m)
		if os.Getenv("CAIRN_FIT_SHOW") != "" {
			for _, x := range test {
				if p := decides(m, x); p != x.update {
					t.Logf("  %s %s %v: %s", set, x.id, x.update, x.text)
				}
			}
		}
		sumC, sumU, sumF, sumN = sumC+c, sumU+u, sumF+fp, sumN+n
		t.Logf("left out %s: updates caught %d/%d (%.0f %%), false proposals %d/%d (%.0f %%)", set, c, u, 100*float64(c)/float64(u), fp, n, 100*float64(fp)/float64(n))
	}
	t.Logf("left out, all sets: caught %d/%d (%.1f %%), false proposals %d/%d (%.1f %%)", sumC, sumU, 100*float64(sumC)/float64(sumU), sumF, sumN, 100*float64(sumF)/float64(sumN))
	m := fitLogistic(all, l2, steps)
	m.Threshold = thresholdFor(all, m, maxFalse)
	c, u, fp, n := rates(all, m)
	t.Logf("fitted on all: caught %d/%d, false proposals %d/%d", c, u, fp, n)
	t.Log("\n" + m.GoSource("fittedUpdateModel", "updateModel", updateFeatureNames[:], 0.05))
}

// TestOldNameDropped: a stored fact's tool is dropped when a clause of the
// newer text names it with a word that drops it, in any case, by the start
// of a file name or by its capitals; naming it in another clause is not.
func TestOldNameDropped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		old, new string
		want     bool
	}{
		{"Error tracking for the web app is done with Sentry.", "ripped the sentry sdk out of web, errors go to Datadog RUM", true},
		{"Frontend unit tests are run with Jest.", "chore(web): swap test runner to vitest, delete jest.config.js", true},
		{"Grafana alerts page on-call through PagerDuty.", "API alerts route to opsgenie now — PD contract ended sept 30", true},
		{"Error tracking for the web app is done with Sentry.", "the sentry dashboard has a new layout", false},
		{"Grafana alerts page on-call through PagerDuty.", "dropped the noisy disk alert, PagerDuty stays", false},
	} {
		if got := oldNameDropped(updateCache.Get(c.old), updateCache.Get(c.new)); got != c.want {
			t.Errorf("%q ⇒ %q: dropped %v, want %v", c.old, c.new, got, c.want)
		}
	}
}
