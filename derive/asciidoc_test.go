package derive

import (
	"strings"
	"testing"
)

// No AsciiDoc processor is at hand (Asciidoctor is Ruby): the reader is
// held to a manual written as AsciiDoc's own documentation writes one.
func TestExtractAsciiDoc(t *testing.T) {
	t.Parallel()
	got, _ := extractAsciiDoc("docs/manual.adoc", readFixture(t, "manual.adoc"))
	expectSections(t, "manual.adoc", got, []wantSection{
		{KindHeading, "Widget Manual", 1, 30, "", "Widget turns gears into torque; see the docs.\n\nInstalling"},
		{KindHeading, "Installing", 7, 25, "", "Run the installer with max_size set.\n\nnot a title inside a listing\nmake install\n\nFrom source\n\nBuilding\nUse the install steps or the build guide."},
		{KindHeading, "From source", 18, 25, "", "Building\nUse the install steps or the build guide."},
		{KindHeading, "Configuration", 28, 30, "", "The widget.yml file holds every setting."},
	})
	for _, s := range got {
		if strings.Contains(s.Doc, "comment") || strings.Contains(s.Doc, "toc") || strings.Contains(s.Doc, "[source") {
			t.Errorf("%s: a comment, an attribute or an attribute list read as text: %q", s.Name, s.Doc)
		}
	}
}

// FuzzExtractAsciiDoc: no input makes the reader panic, and every section
// lies within the file.
func FuzzExtractAsciiDoc(f *testing.F) {
	f.Add([]byte("= T\n\n== A\ntext\n----\n== b\n"))
	f.Add([]byte("////\n= x\n\r\n\xff"))
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, _ := extractAsciiDoc("f.adoc", src)
		checkSectionBounds(t, secs, src)
	})
}
