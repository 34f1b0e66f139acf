package cli

import (
	"strings"
	"testing"
)

// An error that quotes what was typed never carries an escape to stderr.
func TestErrorsAreNeutralised(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"show", "01J\x1b]0;pwned\x07"},
		{"list", "--\x1b]0;pwned\x07"}, // the flag parser quotes it raw
	} {
		r := e.run("", args...)
		if r.code == 0 || strings.ContainsRune(r.err, 0x1b) || strings.ContainsRune(r.err, 0x07) {
			t.Fatalf("stderr carries control characters: %q", r.err)
		}
	}
}
