package derive

import (
	"strings"
	"testing"
)

// pathological are files built to find a reader's superlinear paths: long
// lines, deep nesting, thousands of headings, unterminated code fences,
// strings and comments, each about 1 MiB. Before the readers were made
// linear, the first three took minutes each under cairn index.
func pathological() []struct{ name, path, src string } {
	const n = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	nested := func(unit string) string { // a line per level, each deeper
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(strings.Repeat(" ", i%2000) + unit + "\n")
		}
		return b.String()
	}
	return []struct{ name, path, src string }{
		{"unclosed links on one line", "a.md", rep("[a](")},
		{"block quotes a million deep", "a.md", rep(">")},
		{"link reference definitions", "a.md", rep("[a]: b\n")},
		{"quotes and lists nested on one line", "a.md", rep("> - ")},
		{"mixed emphasis markers", "a.md", rep("*a_b*c_d**e_f*g**h*i_j**")},
		{"unclosed links over lines", "a.md", rep("[a](\n")},
		{"thousands of headings", "a.md", rep("## h\n### x\n")},
		{"unterminated code fence", "a.md", "# Code\n\n```\n" + rep("code line\n")},
		{"brackets", "a.md", rep("[")},
		{"badges", "README.md", rep("[![x](y)](z)\n\n")},
		{"nested lists", "a.md", nested("- a")},
		{"table rows", "a.md", "|a|b|\n|-|-|\n" + rep("|x|y|\n")},
		{"one huge line", "a.md", "# Title\n\n" + rep("word ")},
		{"go: nesting", "a.go", "package a\nvar x = " + rep("(")},
		{"go: unterminated comment", "a.go", "package a\n/*" + rep("x")},
		{"go: unterminated raw string", "a.go", "package a\nvar X = `" + rep("x\n")},
		{"go: cut-off declarations", "a.go", "package a\n" + rep("func (T) F()\n")},
		{"python: brackets", "a.py", rep("(")},
		{"python: unterminated docstring", "a.py", "def f():\n    \"\"\"" + rep("a\n")},
		{"python: deep indentation", "a.py", nested("def f():")},
		{"python: long line", "a.py", "x = " + rep("1+")},
		{"rust: braces", "a.rs", rep("{")},
		{"rust: nested comments", "a.rs", rep("/*")},
		{"rust: unterminated raw string", "a.rs", "let x = r#\"" + rep("a")},
		{"rust: generics", "a.rs", "fn f" + rep("<")},
		{"typescript: braces", "a.ts", rep("{")},
		{"typescript: template literals", "a.ts", rep("`${")},
		{"typescript: unterminated comment", "a.ts", "/*" + rep("a")},
		{"typescript: export heads", "a.ts", rep("export function f(\n")},
		{"typescript: jsx", "a.tsx", rep("<a>")},
	}
}

// Every pathological file is read to the end (a reader that went
// quadratic again would hold this test for hours, not seconds), and what
// it gives lies within the file. How fast is BenchmarkPathological's.
func TestPathologicalFilesAreRead(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MiB of pathological files")
	}
	t.Parallel()
	for _, c := range pathological() {
		f := File{Path: c.path}
		extractFile(&f, []byte(c.src))
		checkSectionBounds(t, f.Sections, []byte(c.src))
		if c.name == "thousands of headings" && len(f.Sections) != 2*(1<<20)/len("## h\n### x\n") {
			t.Errorf("%s: %d sections", c.name, len(f.Sections))
		}
	}
}

// What the Markdown reader keeps of emphasis and links, read without
// goldmark's own emphasis and link parsers.
func TestMarkdownPlainText(t *testing.T) {
	t.Parallel()
	src := "# The *retry* policy\n\nSet `max_retries` with **care**: 5 * 3 is too many; see [the guide](https://x.example) ![logo](l.png) and ~~old~~ notes on snake_case_names.\n\n[guide]: https://x.example\n"
	secs, err := extractMarkdown("a.md", []byte(src))
	if err != nil || len(secs) != 1 {
		t.Fatalf("%+v %v", secs, err)
	}
	if secs[0].Name != "The retry policy" {
		t.Errorf("name %q", secs[0].Name)
	}
	want := "Set max_retries with care: 5 * 3 is too many; see the guide  and old notes on snake_case_names."
	if secs[0].Doc != want {
		t.Errorf("doc\n got %q\nwant %q", secs[0].Doc, want)
	}
}

func BenchmarkPathological(b *testing.B) {
	for _, c := range pathological() {
		src := []byte(c.src)
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				f := File{Path: c.path}
				extractFile(&f, src)
			}
		})
	}
}
