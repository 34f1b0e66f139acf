// Package safetext keeps text that cairn stores from acting on the terminal
// that shows it. A memory's title, tags, ref and triggers are short names:
// Check refuses control characters, bidirectional overrides and invalid
// UTF-8 in them at write. A body is prose that may hold pasted terminal
// output, so it is stored as written and Clean neutralises it on output.
//
// The characters that act on a terminal are the C0 controls other than
// newline and tab (ESC starts every escape sequence: OSC 0 retitles the
// window, CSI moves the cursor and erases lines, OSC 8 makes links), DEL,
// the C1 controls (U+0080–U+009F, which some terminals read as 8-bit CSI
// and OSC), and the bidirectional overrides and isolates that make text
// read in another order than it is stored (U+202A–U+202E, U+2066–U+2069).
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unsafe reports whether r acts on a terminal (see the package doc).
// Newline and tab are safe.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Check refuses s when it is not valid UTF-8 or holds a character that acts
// on a terminal. The error names the field and the offending character by
// its code point, never by printing it.
func Check(field, s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return fmt.Errorf("%s is not valid UTF-8 (byte %d): save it as UTF-8 and retry", field, i)
			}
		}
		if Unsafe(r) {
			return fmt.Errorf("%s holds the control character %s at byte %d: remove it and retry", field, name(r), i)
		}
	}
	return nil
}

// Valid refuses s when it is not valid UTF-8; control characters pass (a
// body may hold them and is cleaned on output).
func Valid(field, s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("%s is not valid UTF-8 (byte %d): save it as UTF-8 and retry", field, i)
		}
		i += size
	}
	return nil
}

// Clean returns s with every character that acts on a terminal replaced by
// a visible stand-in: C0 controls by their control picture (ESC by ␛), DEL
// by ␡, C1 controls and bidi overrides by <U+XXXX>, invalid bytes by U+FFFD.
// A CRLF line end becomes a plain newline. Safe text is returned unchanged
// and unallocated.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// CRLF: the newline that follows is written next.
		case Unsafe(r):
			b.WriteString(picture(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// CleanLine is Clean for text shown on one line: newlines and tabs become
// spaces as well.
func CleanLine(s string) string {
	s = Clean(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}

func needsCleaning(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if Unsafe(r) {
			return true
		}
	}
	return false
}

func picture(r rune) string {
	switch {
	case r < 0x20:
		return string(rune(0x2400 + r))
	case r == 0x7f:
		return "␡"
	}
	return name(r)
}

func name(r rune) string { return fmt.Sprintf("<U+%04X>", r) }
