// Package themes holds cairn's looks: a theme is a palette of semantic
// colours from which one function builds every lipgloss style of the
// workbench and the matching glamour style for markdown. Dark, light and
// high contrast differ only in their palettes; "plain" (NO_COLOR) has no
// colours at all, so every state must also read from marks and text.
package themes

import (
	"image/color"
	"strings"

	"charm.land/glamour/v2/ansi"
	glamourstyles "charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// Palette is the set of semantic colours a theme is made of. A nil colour
// means "the terminal's own".
type Palette struct {
	Fg, Muted, Accent, Danger, Warn, OK, Selection, SelectionFg, Border color.Color
	Layer                                                               [6]color.Color // A–F
	Added, Removed                                                      color.Color    // diff backgrounds
}

// Theme is a named palette with the styles built from it.
type Theme struct {
	Name   string
	Dark   bool
	Plain  bool // no colour: NO_COLOR or a dumb terminal
	P      Palette
	Styles Styles
}

// Styles are every lipgloss style the workbench uses.
type Styles struct {
	Title, Muted, Accent, Danger, Warn, OK, Bold lipgloss.Style
	Selected, Cursor                             lipgloss.Style
	Pane, PaneFocused                            lipgloss.Style
	Header, Footer, Key                          lipgloss.Style
	Layer                                        [6]lipgloss.Style
	Added, Removed                               lipgloss.Style
	Dialog                                       lipgloss.Style
}

func c(s string) color.Color { return lipgloss.Color(s) }

var dark = Palette{
	Fg: c("#dcdcdc"), Muted: c("#8a8a8a"), Accent: c("#7aa2f7"), Danger: c("#f7768e"), Warn: c("#e0af68"),
	OK: c("#9ece6a"), Selection: c("#33467c"), SelectionFg: c("#ffffff"), Border: c("#444b6a"),
	Layer:   [6]color.Color{c("#bb9af7"), c("#7dcfff"), c("#9ece6a"), c("#e0af68"), c("#f7768e"), c("#73daca")},
	Added:   c("#1f3d2a"),
	Removed: c("#4a1f26"),
}

var light = Palette{
	Fg: c("#1f2328"), Muted: c("#6e7781"), Accent: c("#0550ae"), Danger: c("#cf222e"), Warn: c("#9a6700"),
	OK: c("#1a7f37"), Selection: c("#ddf4ff"), SelectionFg: c("#000000"), Border: c("#d0d7de"),
	Layer:   [6]color.Color{c("#8250df"), c("#0969da"), c("#1a7f37"), c("#9a6700"), c("#cf222e"), c("#1b7c83")},
	Added:   c("#dafbe1"),
	Removed: c("#ffebe9"),
}

var highContrast = Palette{
	Fg: c("#ffffff"), Muted: c("#d0d0d0"), Accent: c("#00ffff"), Danger: c("#ff5f5f"), Warn: c("#ffff00"),
	OK: c("#00ff00"), Selection: c("#ffffff"), SelectionFg: c("#000000"), Border: c("#ffffff"),
	Layer:   [6]color.Color{c("#ff87ff"), c("#00ffff"), c("#00ff00"), c("#ffff00"), c("#ff5f5f"), c("#87ffd7")},
	Added:   c("#005f00"),
	Removed: c("#870000"),
}

// Names lists the themes a person can choose.
var Names = []string{"dark", "light", "high-contrast", "plain"}

// Get returns the theme called name ("" and unknown names give dark).
func Get(name string) Theme {
	switch strings.ToLower(name) {
	case "light":
		return build("light", false, false, light)
	case "high-contrast", "contrast", "hc":
		return build("high-contrast", true, false, highContrast)
	case "plain", "none", "no-color":
		return build("plain", true, true, Palette{})
	}
	return build("dark", true, false, dark)
}

// Auto picks dark or light from the terminal's background, unless plain.
func Auto(isDark, plain bool) Theme {
	switch {
	case plain:
		return Get("plain")
	case isDark:
		return Get("dark")
	}
	return Get("light")
}

func build(name string, isDark, plain bool, p Palette) Theme {
	fg := func(c color.Color) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c != nil {
			s = s.Foreground(c)
		}
		return s
	}
	st := Styles{
		Title:  fg(p.Fg).Bold(true),
		Muted:  fg(p.Muted),
		Accent: fg(p.Accent),
		Danger: fg(p.Danger).Bold(true),
		Warn:   fg(p.Warn),
		OK:     fg(p.OK),
		Bold:   lipgloss.NewStyle().Bold(true),
		Key:    fg(p.Accent).Bold(true),
		Header: fg(p.Fg).Bold(true),
		Footer: fg(p.Muted),
	}
	st.Selected = lipgloss.NewStyle().Bold(true)
	st.Cursor = lipgloss.NewStyle().Reverse(plain)
	if !plain {
		st.Selected = st.Selected.Background(p.Selection).Foreground(p.SelectionFg)
	}
	border := lipgloss.RoundedBorder()
	st.Pane = lipgloss.NewStyle().Border(border).Padding(0, 1)
	st.PaneFocused = st.Pane.BorderStyle(lipgloss.ThickBorder())
	if !plain {
		st.Pane = st.Pane.BorderForeground(p.Border)
		st.PaneFocused = st.PaneFocused.BorderForeground(p.Accent)
	}
	st.Dialog = lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).Padding(1, 2)
	if !plain {
		st.Dialog = st.Dialog.BorderForeground(p.Danger)
	}
	for i := range st.Layer {
		st.Layer[i] = fg(p.Layer[i]).Bold(true)
	}
	st.Added = lipgloss.NewStyle().Underline(true)
	st.Removed = lipgloss.NewStyle().Strikethrough(true)
	if !plain {
		st.Added = st.Added.Background(p.Added).Foreground(p.OK)
		st.Removed = st.Removed.Background(p.Removed).Foreground(p.Danger)
	}
	return Theme{Name: name, Dark: isDark, Plain: plain, P: p, Styles: st}
}

// Glamour is the markdown style matching the theme: glamour's own dark or
// light style with the theme's accent for headings and links, no margin
// (the pane pads), and ASCII for plain.
func (t Theme) Glamour() ansi.StyleConfig {
	if t.Plain {
		s := glamourstyles.ASCIIStyleConfig
		s.Document.Margin = uintPtr(0)
		return s
	}
	s := glamourstyles.DarkStyleConfig
	if !t.Dark {
		s = glamourstyles.LightStyleConfig
	}
	s.Document.Margin = uintPtr(0)
	s.Document.BlockPrefix, s.Document.BlockSuffix = "", ""
	accent := hex(t.P.Accent)
	s.Heading.Color = &accent
	s.Link.Color = &accent
	if t.Name == "high-contrast" {
		fg := hex(t.P.Fg)
		s.Document.Color = &fg
		s.Text.Color = &fg
	}
	return s
}

func uintPtr(u uint) *uint { return &u }

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	const digits = "0123456789abcdef"
	out := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range []uint32{r >> 8, g >> 8, b >> 8} {
		out[1+2*i], out[2+2*i] = digits[v>>4], digits[v&15]
	}
	return string(out)
}
