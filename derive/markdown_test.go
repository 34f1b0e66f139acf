package derive

import (
	"strings"
	"testing"
)

const readmeFixture = `---
title: Widget
---
[![build](https://ci.example/badge.svg)](https://ci.example) [![docs](https://d.example/b.svg)](https://d.example)

# Widget

Widget turns *gears* into ` + "`torque`" + `, see [the docs](https://d.example).
It runs anywhere.

## Install

    go install example.com/widget@latest

### From source

` + "```sh\nmake build\n```" + `

## Usage

| flag | what |
|------|------|
| -v   | verbose |

<div>raw html</div>

Setext title
------------

Text under it.
`

func TestExtractMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		wantSection     []wantSection
	}{
		{"readme", "README.md", readmeFixture, []wantSection{
			{KindPackage, "Widget", 8, 9, "", "Widget turns gears into torque, see the docs. It runs anywhere."},
			{KindHeading, "Widget", 6, 32, "", "Widget turns gears into torque, see the docs. It runs anywhere.\n\nInstall\ngo install"},
			{KindHeading, "Install", 11, 19, "", "go install example.com/widget@latest\n\nFrom source\nmake build"},
			{KindHeading, "From source", 15, 19, "", "make build"},
			{KindHeading, "Usage", 21, 27, "", "flag what\n-v verbose"},
			{KindHeading, "Setext title", 29, 32, "", "Text under it."},
		}},
		{"not a readme: no summary; empty heading skipped", "docs/guide.md", "# Guide\n\nSome words here.\n\n#\n\n## Next\nmore\n", []wantSection{
			{KindHeading, "Guide", 1, 8, "", "Some words here.\n\nNext\nmore"},
			{KindHeading, "Next", 7, 8, "", "more"},
		}},
		{"readme without a heading", "pkg/tool/readme.markdown", "Tool does one thing well.\n", []wantSection{
			{KindPackage, "tool", 1, 1, "", "Tool does one thing well."},
		}},
		// The summary is the README's lead, as the project's purpose is:
		// not its menu of links, but the paragraph that says what it is.
		{"readme whose first paragraph is a menu", "README.md", "# LX\n\n[Doc](doc.md)\n| [Wiki](https://w.example)\n| [Chat](https://c.example) (with IRC bridge)\n\nSee the wiki for screenshots of the panes.\n\n`lx` is a terminal file manager.\n", []wantSection{
			{KindPackage, "LX", 9, 9, "", "lx is a terminal file manager."},
			{KindHeading, "LX", 1, 9, "", "Doc | Wiki | Chat (with IRC bridge)\n\nSee the wiki for screenshots of the panes.\n\nlx is a terminal file manager."},
		}},
		{"no headings", "notes.md", "just text\n", nil},
		{"heading in a list is not a section", "x.md", "- # not top\n\n# Top\n", []wantSection{
			{KindHeading, "Top", 3, 3, "", ""},
		}},
		// ripgrep's FAQ: each question an HTML heading with an anchor.
		{"HTML headings", "FAQ.md", "## FAQ\n\n<a name=\"top\"></a>\n\n<h3 name=\"config\">\nDoes ripgrep support configuration files?\n</h3>\n\nYes. See the [guide](GUIDE.md).\n\n<h3 name=\"release\">When is the <em>next</em> release?</h3>\n\nWhen it is ready.\n\n<h2>Q &amp; A</h2>\nthe HTML block's own line\n\n<div><h2>inside a div: no heading</h2></div>\n", []wantSection{
			{KindHeading, "FAQ", 1, 13, "", "Yes. See the guide.\n\nWhen it is ready."},
			{KindHeading, "Does ripgrep support configuration files?", 5, 9, "", "Yes. See the guide."},
			{KindHeading, "When is the next release?", 11, 13, "", "When it is ready."},
			{KindHeading, "Q & A", 15, 18, "", ""},
		}},
	} {
		got, err := extractMarkdown(tc.path, []byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		expectSections(t, tc.name, got, tc.wantSection)
	}
}

func TestExtractMarkdownLongSectionIsCut(t *testing.T) {
	src := "# Long\n\n" + strings.Repeat("many words in a paragraph ", 2000) + "\n"
	f := File{Path: "long.md"}
	extractFile(&f, []byte(src))
	if len(f.Sections) != 1 || len(f.Sections[0].Doc) > DocLimit || !strings.HasSuffix(f.Sections[0].Doc, "…") {
		t.Fatalf("sections %+v", f.Sections)
	}
	if f.Sections[0].EndLine != 3 {
		t.Errorf("the span is the whole section, cut or not: ends at %d", f.Sections[0].EndLine)
	}
}

// FuzzExtractMarkdown: no input makes the Markdown reader panic, and
// every section lies within the file.
func FuzzExtractMarkdown(f *testing.F) {
	f.Add("README.md", []byte(readmeFixture))
	f.Add("a.md", []byte("# a\n## b\n# c\n"))
	f.Add("README.md", []byte("---\n---\n"))
	f.Add("README.md", []byte("---\nx: 1\n..."))
	f.Add("a.md", []byte("a\n===\n\n| a |\n|---|\n| b |\n"))
	f.Add("a.md", []byte("\r\n#\r\n\x00\xff"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		secs, err := extractMarkdown(name, src)
		if err != nil {
			t.Fatal(err)
		}
		checkSectionBounds(t, secs, src)
	})
}
