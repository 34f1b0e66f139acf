package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"cairn/themes"
)

func TestParseLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line  string
		name  string
		args  []string
		layer string
		rest  string
		err   string // part of the error, "" for none
	}{
		{line: "/remember never force-push main", name: "remember", args: []string{"never", "force-push", "main"}, rest: "never force-push main"},
		{line: ":remember   spaced   out  ", name: "remember", args: []string{"spaced", "out"}, rest: "spaced   out"},
		{line: "remember -l D chose Badger", name: "remember", layer: "D", args: []string{"chose", "Badger"}, rest: "chose Badger"},
		{line: "/remember --layer negatives VGPR-256 starves", name: "remember", layer: "negatives", args: []string{"VGPR-256", "starves"}, rest: "VGPR-256 starves"},
		{line: "/remember -l A -l B last wins", name: "remember", layer: "B", args: []string{"last", "wins"}, rest: "last wins"},
		{line: "/ARCHIVE 01KH6751", name: "archive", args: []string{"01KH6751"}, rest: "01KH6751"},
		{line: "/archive", name: "archive"},
		{line: "/unarchive 01KH", name: "unarchive", args: []string{"01KH"}, rest: "01KH"},
		{line: "/forget", name: "forget"},
		{line: "/supersede 01KJ", name: "supersede", args: []string{"01KJ"}, rest: "01KJ"},
		{line: "/link because 01KJZ 01KJT", name: "link", args: []string{"because", "01KJZ", "01KJT"}, rest: "because 01KJZ 01KJT"},
		{line: "/project demo", name: "project", args: []string{"demo"}, rest: "demo"},
		{line: "/recall cache misses", name: "recall", args: []string{"cache", "misses"}, rest: "cache misses"},
		{line: "/timeline", name: "timeline"},
		{line: "/reject 01KJ", name: "reject", args: []string{"01KJ"}, rest: "01KJ"},
		{line: ":calibration", name: "calibration"},
		{line: "/help", name: "help"},
		{line: "/quit", name: "quit"},
		{line: "", err: "type a command"},
		{line: "/", err: "type a command"},
		{line: "   ", err: "type a command"},
		{line: "/frobnicate", err: "unknown command /frobnicate — /help lists them"},
		{line: "/re", err: "did you mean /remember or /recall or /reject or /rebind or /repository?"},
		{line: "/remember -l", err: "-l needs a layer"},
		{line: "/remember --layer   ", err: "--layer needs a layer"},
	}
	for _, c := range cases {
		p, err := parseLine(c.line)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseLine(%q) error = %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseLine(%q): %v", c.line, err)
			continue
		}
		if p.cmd.name != c.name || p.layer != c.layer || p.rest != c.rest || !reflect.DeepEqual(nilIfEmpty(p.args), c.args) {
			t.Errorf("parseLine(%q) = %s %q layer %q rest %q; want %s %q layer %q rest %q",
				c.line, p.cmd.name, p.args, p.layer, p.rest, c.name, c.args, c.layer, c.rest)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestCompleteLine(t *testing.T) {
	t.Parallel()
	ids := []string{"01KH6751Q0G297AK2TZ3QRG5A2", "01KH94HAQ0N31JD7GJXJRHYK7G", "01KJT8YPZ07W9D6P364Z0878JB"}
	projects := []string{"demo", "dotfiles", "cairn"}
	kinds := []string{"because", "evidence", "supersedes"}
	layers := []string{"invariant", "state", "A", "B"}
	cases := []struct {
		line, want string
		hits       []string
	}{
		{"rem", "remember ", []string{"remember"}},
		{"/arc", "/archive ", []string{"archive"}},
		{"re", "re", []string{"rebind", "recall", "reject", "remember", "repository"}},
		{"rej", "reject ", []string{"reject"}},
		{"/cal", "/calibration ", []string{"calibration"}},
		{"un", "un", []string{"unarchive", "undo"}},
		{"unar", "unarchive ", []string{"unarchive"}},
		{"consolidate d", "consolidate dry ", []string{"dry"}},
		{"undo 01KH", "undo 01KH", nil}, // run ids, not memory ids
		{"zz", "zz", nil},
		{"archive 01KH6", "archive 01KH6751Q0G297AK2TZ3QRG5A2 ", []string{"01KH6751Q0G297AK2TZ3QRG5A2"}},
		{"archive 01KH", "archive 01KH", []string{"01KH6751Q0G297AK2TZ3QRG5A2", "01KH94HAQ0N31JD7GJXJRHYK7G"}},
		{"archive 01kj", "archive 01KJT8YPZ07W9D6P364Z0878JB ", []string{"01KJT8YPZ07W9D6P364Z0878JB"}},
		{"project d", "project d", []string{"demo", "dotfiles"}},
		{"project ca", "project cairn ", []string{"cairn"}},
		{"link be", "link because ", []string{"because"}},
		{"link because 01KJ", "link because 01KJT8YPZ07W9D6P364Z0878JB ", []string{"01KJT8YPZ07W9D6P364Z0878JB"}},
		{"remember -l inv", "remember -l invariant", []string{"invariant"}},
		{"remember --layer s", "remember --layer state", []string{"state"}},
	}
	for _, c := range cases {
		got, hits := complete(c.line, ids, projects, kinds, layers)
		if got != c.want || !reflect.DeepEqual(hits, c.hits) {
			t.Errorf("complete(%q) = %q %q; want %q %q", c.line, got, hits, c.want, c.hits)
		}
	}
}

// TestRegistryFeedsHelp: every command the parser knows is in /help, and
// completion offers exactly the registry's names.
func TestRegistryFeedsHelpAndCompletion(t *testing.T) {
	t.Parallel()
	help := strings.Join(helpLines(themes.Get("plain"), 200), "\n")
	var names []string
	for _, c := range registry {
		if _, err := parseLine("/" + c.name); err != nil {
			t.Errorf("the parser refuses /%s: %v", c.name, err)
		}
		if !strings.Contains(help, "/"+c.name) {
			t.Errorf("/help does not list /%s", c.name)
		}
		names = append(names, c.name)
	}
	_, hits := complete("", nil, nil, nil, nil)
	slices.Sort(names)
	if !reflect.DeepEqual(hits, names) {
		t.Errorf("completion offers %q, the registry has %q", hits, names)
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"/remember -l D x", "/link because a b", "/re", ":", "/remember --layer", "-l", "/archive \x00", "/ümlaut -l ö"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p, err := parseLine(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without words")
			}
			return
		}
		if _, ok := lookup(p.cmd.name); !ok {
			t.Fatalf("parsed to a command not in the registry: %q", p.cmd.name)
		}
		if strings.TrimSpace(p.rest) != p.rest {
			t.Fatalf("rest %q is not trimmed", p.rest)
		}
		if utf8.ValidString(line) && !utf8.ValidString(p.rest) {
			t.Fatalf("valid input gave invalid rest %q", p.rest)
		}
		// Completion never panics on whatever was typed.
		complete(line, []string{"01KH"}, []string{"demo"}, []string{"because"}, []string{"A"})
	})
}
