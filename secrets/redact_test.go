package secrets

import (
	"math/rand"
	"strings"
	"testing"
)

// Every secret of the corpus that Scan finds is gone from Redact's result,
// nothing Scan would find is left, and the marker names the rule.
func TestRedactLeavesNothingOfTheSecret(t *testing.T) {
	g := gen{rand.New(rand.NewSource(20261124))}
	n := 0
	for _, p := range providers {
		for _, c := range contexts {
			if c.bare && p.named {
				continue
			}
			tok := p.tok(g)
			text := c.f(g, p.env, tok)
			if len(Scan(text)) == 0 {
				continue // a miss of the scanner, measured by TestCorpusDetection
			}
			n++
			red, found := Redact(text)
			if len(found) == 0 || !strings.Contains(red, "[redacted: ") {
				t.Fatalf("%s: nothing redacted in %.120q", p.name, text)
			}
			if left := Scan(red); len(left) > 0 {
				t.Fatalf("%s: Scan still finds %v in %.200q", p.name, left, red)
			}
			if strings.ContainsAny(tok, "=;: /\n") {
				tok = text[scanHits(text)[0].start:scanHits(text)[0].end] // a connection string: its secret part
			}
			for i := 0; i+12 <= len(tok); i++ {
				if strings.Contains(red, tok[i:i+12]) {
					t.Fatalf("%s: %q of the secret survives in %.200q", p.name, tok[i:i+12], red)
				}
			}
		}
	}
	for _, sh := range shapes {
		for _, text := range sh.cases(g) {
			if len(Scan(text)) == 0 {
				continue
			}
			n++
			red, _ := Redact(text)
			if left := Scan(red); len(left) > 0 {
				t.Fatalf("%s: Scan still finds %v in %.200q", sh.name, left, red)
			}
			if sh.name == "PuTTY key" && strings.Contains(red, "Private-MAC") {
				t.Fatalf("the PuTTY key file is not redacted whole: %.300q", red)
			}
		}
	}
	if n < 300 {
		t.Fatalf("only %d cases redacted", n)
	}
}

func TestRedactKeepsTheRestOfTheText(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDxq1r4bH3Zc9mG2u8nYwzYQ8KJ3nVh7fX0sQ5gLq1yTwAAAJjSg9LP0oPS\n-----END OPENSSH PRIVATE KEY-----"
	in := "before: the deploy uses ArgoCD\n" + key + "\nafter: GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3jL5 works\npostgres://app:Tr0ub4dor-x9Q@db.internal:5432/app"
	out, found := Redact(in)
	if len(found) < 3 {
		t.Fatalf("found %d secrets, want the key, the token and the password: %v", len(found), found)
	}
	for _, keep := range []string{"before: the deploy uses ArgoCD\n", "\nafter: GITHUB_TOKEN=", " works\npostgres://app:", "@db.internal:5432/app"} {
		if !strings.Contains(out, keep) {
			t.Errorf("%q lost from %q", keep, out)
		}
	}
	for _, gone := range []string{"b3BlbnNzaC1rZXkt", "QyNTUxOQAAACDxq1r4", "aB3dE5gH7jK9", "Tr0ub4dor"} {
		if strings.Contains(out, gone) {
			t.Errorf("%q survives in %q", gone, out)
		}
	}
	if len(Scan(out)) != 0 {
		t.Errorf("Scan finds %v in the redacted text", Scan(out))
	}
	for _, l := range lookalikeCorpus() {
		if got, f := Redact(l); got != l || f != nil {
			t.Fatalf("a lookalike was changed: %.120q → %.120q", l, got)
		}
	}
}
