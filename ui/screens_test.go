package ui

import (
	"fmt"
	"testing"
)

// TestScreens goldens every view at 80×24 and 140×40, in the dark theme and
// without colour (NO_COLOR).
func TestScreens(t *testing.T) {
	views := []struct {
		name string
		seed bool
		keys []string
	}{
		{"browse", true, nil},
		{"detail", true, []string{"4", "enter", "]"}},
		{"repl-completion", true, []string{"/", "type:re", "tab"}},
		{"forget-dialog", true, []string{"3", "x"}},
		{"diff", true, []string{"2", "d"}},
		{"timeline", true, []string{"t"}},
		{"help", true, []string{"?"}},
		{"empty", false, nil},
		{"superseded", true, []string{"esc", "down", "down", "down", "down", "down", "down", "down", "enter"}},
	}
	for _, size := range [][2]int{{80, 24}, {140, 40}} {
		for _, theme := range []string{"dark", "plain"} {
			for _, v := range views {
				name := fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme)
				t.Run(name, func(t *testing.T) {
					m := app(t, openStore(t, v.seed), size[0], size[1], theme)
					press(t, m, v.keys...)
					golden(t, name, screen(m))
				})
			}
		}
	}
}
