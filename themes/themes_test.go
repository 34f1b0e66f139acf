package themes

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestEveryThemeBuilds(t *testing.T) {
	for _, name := range Names {
		th := Get(name)
		if th.Name != name {
			t.Errorf("Get(%q).Name = %q", name, th.Name)
		}
		// The glamour style renders markdown with code without trouble.
		r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Glamour()), glamour.WithWordWrap(60))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := r.Render("# Title\n\nSome `code` and a [link](https://example.com).\n\n```go\nfunc main() {}\n```\n")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if plain := ansi.Strip(out); !strings.Contains(plain, "func main() {}") || !strings.Contains(plain, "Title") {
			t.Errorf("%s: the render lost text:\n%s", name, plain)
		}
	}
}

func TestUnknownNamesAreDark(t *testing.T) {
	for _, name := range []string{"", "solarized", "DARK"} {
		if got := Get(name).Name; got != "dark" {
			t.Errorf("Get(%q) = %s, want dark", name, got)
		}
	}
	if Get("hc").Name != "high-contrast" || Get("Light").Name != "light" {
		t.Error("aliases and case")
	}
}

func TestAutoFollowsTheBackground(t *testing.T) {
	if Auto(true, false).Name != "dark" || Auto(false, false).Name != "light" {
		t.Error("Auto does not follow the background")
	}
	if Auto(true, true).Name != "plain" || Auto(false, true).Name != "plain" {
		t.Error("Auto ignores NO_COLOR")
	}
}

// TestPlainHasNoColour: with NO_COLOR every style renders text without a
// colour sequence, and the glamour style is glamour's ASCII one.
func TestPlainHasNoColour(t *testing.T) {
	th := Get("plain")
	st := th.Styles
	for i, s := range append([]interface{ Render(...string) string }{st.Title, st.Muted, st.Accent, st.Danger, st.Warn,
		st.OK, st.Selected, st.Key, st.Header, st.Footer, st.Added, st.Removed}, layerStyles(st)...) {
		out := s.Render("x")
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("style %d of plain has a colour: %q", i, out)
		}
	}
	if th.Glamour().Document.Color != nil {
		t.Error("plain markdown has a colour")
	}
}

// TestLayersHaveTheirOwnColours: the six layers are told apart in colour
// themes (and by their letter everywhere).
func TestLayersHaveTheirOwnColours(t *testing.T) {
	for _, name := range []string{"dark", "light", "high-contrast"} {
		seen := map[string]bool{}
		for _, c := range Get(name).P.Layer {
			seen[hex(c)] = true
		}
		if len(seen) != 6 {
			t.Errorf("%s: %d distinct layer colours", name, len(seen))
		}
	}
}

func layerStyles(st Styles) []interface{ Render(...string) string } {
	var out []interface{ Render(...string) string }
	for _, l := range st.Layer {
		out = append(out, l)
	}
	return out
}
