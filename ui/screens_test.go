package ui

import (
	"fmt"
	"testing"
)

// TestScreens goldens every view at 80×24 and 140×40, in the dark theme and
// without colour (NO_COLOR), and at 100×30, 120×40 and 200×50 without colour
// (the layout's other breakpoints: a cut word shows there first).
func TestScreens(t *testing.T) {
	t.Parallel()
	views := []struct {
		name string
		seed bool
		keys []string
	}{
		{"browse", true, nil},
		{"detail", true, []string{"4", "select:Token bucket", "enter", "]"}},
		{"repl-completion", true, []string{"/", "type:re", "tab"}},
		{"forget-dialog", true, []string{"3", "select:Fixed the session-timeout", "x"}},
		// A supersession chain of three: side by side from 100 columns, unified below.
		{"diff", true, []string{"2", "select:Release v0.7.0", "d"}},
		{"supersede-editor", true, []string{"6", "select:Check provenance", "s"}},
		{"supersede-diff", true, []string{"6", "select:Check provenance", "s", "type: Also check the date.", "ctrl+s"}},
		{"timeline", true, []string{"3", "select:Fixed the session", "a", "t"}},
		{"help", true, []string{"?"}},
		{"empty", false, nil},
		{"verify-first", true, []string{"v"}},
		{"superseded", true, []string{"esc", "down", "down", "down", "down", "down", "down", "down", "down", "down", "enter",
			"select:Decode is +229", "enter"}},
		{"low-trust", true, []string{"2", "select:The rate limiter", "enter"}},
		{"calibration-empty", true, []string{"K"}},
		// Two reviews: the moved file binding caught a fact that changed
		// (w rejects it), and an unbound fact changed unnoticed (superseded).
		{"calibration", true, []string{"v", "w", "6", "select:Check provenance", "s", "type: Also check the date.", "ctrl+s", "enter", "K"}},
	}
	for _, size := range [][2]int{{80, 24}, {140, 40}, {100, 30}, {120, 40}, {200, 50}} {
		themes := []string{"dark", "plain"}
		if size[0] != 80 && size[0] != 140 {
			themes = themes[1:]
		}
		for _, theme := range themes {
			for _, v := range views {
				name := fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme)
				t.Run(name, func(t *testing.T) {
					m := app(t, openStore(t, v.seed), size[0], size[1], theme)
					press(t, m, v.keys...)
					golden(t, name, shown(m, name))
				})
			}
		}
	}
}
