package update

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestSplitCase: splitCase says what the expression says, on names and
// on random strings of the characters that matter to it.
func TestSplitCase(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`([a-z0-9])([A-Z])`)
	cases := []string{"", "a", "A", "compileSdkVersion", "aBC", "aBcD", "a1B2C", "HTTPServer", "getHTTPResponse2Code", "x86Linux", "déjàVu", "über Über", "snake_case", "aB", "Ab"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aAzZ09bB é_-"
	for range 5000 {
		b := []rune{}
		for range r.IntN(12) {
			b = append(b, []rune(alphabet)[r.IntN(len([]rune(alphabet)))])
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := splitCase(c), re.ReplaceAllString(c, "$1 $2"); got != want {
			t.Fatalf("splitCase(%q) = %q, the expression %q", c, got, want)
		}
	}
}
