package lang

import (
	"testing"

	"github.com/kljensen/snowball"
	"github.com/kljensen/snowball/english"
)

// The stems are Snowball's, word for word: a memory read by consolidation
// and a question read by recall meet on the same stems.
func TestStemIsSnowballsForPlainWords(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"deploys", "deployment", "listening", "caches", "running", "generously", "migrations", "the", "was"} {
		want, err := snowball.Stem(w, "english", false)
		if err != nil {
			t.Fatal(err)
		}
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want Snowball's %q", w, got, want)
		}
		if got := Stem(w); got != want { // the cached answer
			t.Errorf("Stem(%q) again = %q, want %q", w, got, want)
		}
		if got := StemAll(w); got != want {
			t.Errorf("StemAll(%q) = %q, want %q", w, got, want)
		}
	}
}

// A word that is not plain lower-case letters is its own stem under Stem
// (a path, a version, a name with a capital), and Snowball's under StemAll.
func TestStemLeavesOtherWordsAlone(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"go", "v1.22", "config.yaml", "Deploys", "lock-free", "café", "p99", ""} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
	if got := StemAll("lock-free"); got == "lock-free" {
		t.Errorf("StemAll(%q) = %q: Snowball stems a hyphenated word too", "lock-free", got)
	}
	if got := StemAll("Deploys"); got != "deploy" {
		t.Errorf("StemAll(%q) = %q, want %q", "Deploys", got, "deploy")
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"café": "cafe", "naïve résumé": "naive resume", "plain": "plain", "": "", "日本": "日本"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordSet(t *testing.T) {
	t.Parallel()
	s := WordSet(" a  b\n\tc a ")
	if len(s) != 3 || !s["a"] || !s["b"] || !s["c"] || s[""] {
		t.Errorf("WordSet = %v, want a, b and c", s)
	}
}

// TestStemAllIsSnowball: StemAll, cached or not, is the Snowball stem of
// every word as it is, short, capitalised, accented or not.
func TestStemAllIsSnowball(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"running", "Running", "is", "a", "the", "services", "service", "café", "naïvely", "generalizations", "ab", "abc", "HTTPServer", "x86", "running"} {
		for range 2 { // the second from the cache
			if got, want := StemAll(w), english.Stem(w, false); got != want {
				t.Errorf("StemAll(%q) = %q, Snowball %q", w, got, want)
			}
		}
	}
}
