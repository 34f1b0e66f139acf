package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckRefusesWhatActsOnATerminal(t *testing.T) {
	for _, s := range []string{
		"\x1b]0;pwned\x07title",      // OSC 0: retitles the window
		"id\x1b[2K\x1b[1Aline",       // erase line, cursor up
		"\x1b]8;;http://x\x1b\\link", // OSC 8 hyperlink
		"admin\u202etxt.exe",         // right-to-left override
		"a\u2066b",                   // isolate
		"\u009b31m",                  // 8-bit CSI
		"carriage\roverwrite",        // CR rewrites the line
		"del\x7f",                    // DEL
		"bad\xffutf8",                // invalid UTF-8
	} {
		if err := Check("title", s); err == nil {
			t.Errorf("Check(%q) accepted it", s)
		} else if strings.ContainsAny(err.Error(), "\x1b\r\u202e\u009b") {
			t.Errorf("Check(%q) echoed the control character: %q", s, err)
		}
	}
	for _, s := range []string{"", "Deploys go through ArgoCD", "two\nlines\tand a tab", "naïve café — 日本語 ✓"} {
		if err := Check("title", s); err != nil {
			t.Errorf("Check(%q) = %v, want nil", s, err)
		}
	}
}

func TestValidRefusesOnlyBadUTF8(t *testing.T) {
	if err := Valid("body", "colour \x1b[31mred\x1b[0m"); err != nil {
		t.Errorf("Valid refused control characters: %v", err)
	}
	if err := Valid("body", "ok\xc3("); err == nil || !strings.Contains(err.Error(), "byte 2") {
		t.Errorf("Valid(bad UTF-8) = %v, want an error naming byte 2", err)
	}
}

func TestCleanNeutralises(t *testing.T) {
	cases := map[string]string{
		"plain":                     "plain",
		"a\x1b]0;x\x07b":            "a␛]0;x␇b",
		"line\r\nnext":              "line\nnext",
		"over\rwrite":               "over␍write",
		"rtl\u202eabc":              "rtl<U+202E>abc",
		"c1\u009b":                  "c1<U+009B>",
		"bad\xff":                   "bad\uFFFD",
		"keep\n\ttabs and newlines": "keep\n\ttabs and newlines",
	}
	for in, want := range cases {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanLine("a\nb\tc\x1b"); got != "a b c␛" {
		t.Errorf("CleanLine = %q", got)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "\x1b[2J", "a\u202eb", "\xff\xfe", "x\r\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) is not valid UTF-8: %q", s, out)
		}
		if err := Check("out", strings.ReplaceAll(out, "\n", "")); err != nil {
			t.Fatalf("Clean(%q) = %q still unsafe: %v", s, out, err)
		}
		if Check("in", s) == nil && out != s {
			t.Fatalf("Clean changed safe text %q to %q", s, out)
		}
	})
}
