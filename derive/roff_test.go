package derive

import (
	"strings"
	"testing"
)

// No roff formatter is on this machine: the reader is held to a manual
// page written as the man macros' own documentation writes one.
func TestExtractRoff(t *testing.T) {
	t.Parallel()
	got, _ := extractRoff("doc/widget.1", readFixture(t, "widget.1"))
	expectSections(t, "widget.1", got, []wantSection{
		{KindHeading, "widget(1) manual page", 2, 18, "", "widget - turn gears into torque"},
		{KindHeading, "SYNOPSIS", 5, 7, "", "widget [OPTIONS] FILE..."},
		{KindHeading, "DESCRIPTION", 8, 9, "", "widget reads gear files and writes torque tables."},
		{KindHeading, "OPTIONS", 10, 16, "", "-w, --warmup NUM Run NUM warm-up rounds before measuring. • 2 Tables go to standard output unless --export is given."},
		{KindHeading, "Output", 14, 16, "", "• 2 Tables go to standard output unless --export is given."},
		{KindHeading, "SEE ALSO", 17, 18, "", "gear (5)"},
	})
	for _, s := range got {
		if strings.Contains(s.Doc, `\f`) || strings.Contains(s.Doc, "written for") {
			t.Errorf("%s: an escape or a comment read as text: %q", s.Name, s.Doc)
		}
	}
	// A file named like a page that is not roff (a rotated log) is no page.
	if secs, _ := extractRoff("logs/app.log.1", []byte("2026-11-28 started\n.5 seconds\n")); len(secs) != 0 {
		t.Errorf("a rotated log read as a manual page: %+v", secs)
	}
}

// FuzzExtractRoff: no input makes the reader panic, and every section
// lies within the file.
func FuzzExtractRoff(f *testing.F) {
	f.Add([]byte(".TH X 1\n.SH NAME\nx \\- y\n.SS\n.SH \"A B\n"))
	f.Add([]byte(".Dd\n.Dt\n.Sh\n\\fB\xff"))
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, _ := extractRoff("f.1", src)
		checkSectionBounds(t, secs, src)
	})
}
