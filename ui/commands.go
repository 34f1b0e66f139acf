package ui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// command is one slash command. The registry feeds the parser, the
// completion and /help, so the three cannot drift apart.
type command struct {
	name    string
	args    string
	help    string
	needsID bool // acts on the selected memory when no id is given
	run     func(*workbench, parsed) (tea.Cmd, error)
}

var registry = []command{
	{name: "remember", args: "[-l LAYER] TEXT", help: "store a new memory in the current layer (or -l A-F)", run: cmdRemember},
	{name: "recall", args: "[--path PATTERN] QUERY", help: "find the memories that match (--path: about those files first)", run: cmdRecall},
	{name: "archive", args: "[ID]", help: "archive (reversible)", needsID: true, run: cmdOnMemory},
	{name: "unarchive", args: "[ID]", help: "bring an archived memory back", needsID: true, run: cmdOnMemory},
	{name: "forget", args: "[ID]", help: "delete for good, after showing the text", needsID: true, run: cmdOnMemory},
	{name: "supersede", args: "[ID] [TEXT]", help: "write the corrected version (TEXT: shown as a diff to store with enter); the old one stays as history", needsID: true, run: cmdSupersede},
	{name: "confirm", args: "[ID]", help: "it still holds: re-stamp its watermarks, trust restored", needsID: true, run: cmdOnMemory},
	{name: "why", args: "[ID]", help: "why it holds: the tree of because, evidence and what depends on it", needsID: true, run: cmdOnMemory},
	{name: "capture", args: "TEXT", help: "put raw text in the inbox for the next consolidation", run: cmdCapture},
	{name: "link", args: "[FROM] KIND TO", help: "link FROM (default: the selected memory) to TO, as cairn link does", run: cmdLink},
	{name: "project", args: "NAME", help: "switch project", run: cmdProject},
	{name: "timeline", args: "", help: "the project's events, newest first", run: cmdTimeline},
	{name: "verify", args: "", help: "the verify-first queue: facts whose ground moved", run: cmdVerify},
	{name: "reject", args: "[ID]", help: "it no longer holds: keep it out until corrected", needsID: true, run: cmdReject},
	{name: "calibration", args: "", help: "how well the bindings predicted change", run: cmdCalibration},
	{name: "rebind", args: "SPEC...", help: "bind the selected memory anew (file:PATH git:SCOPE flag:NAME none)", needsID: true, run: cmdRebind},
	{name: "inbox", args: "", help: "the drafts and proposals waiting for you", run: cmdInbox},
	{name: "consolidate", args: "[dry | undo RUN]", help: "turn the waiting drafts into memories (dry: only report)", run: cmdConsolidate},
	{name: "undo", args: "[RUN]", help: "take back a consolidation run, or an accept or reject, exactly (no RUN: the last one here)", run: cmdUndo},
	{name: "repository", args: "", help: "the repository's modules and sections, as cairn index read them (read-only)", run: cmdRepository},
	{name: "index", args: "", help: "read the repository again into derived memory (what changed since the last index), in the background", run: cmdIndex},
	{name: "sync", args: "", help: "bring the team mirror (.cairn/memories in the repository) and the store together, as cairn sync does", run: cmdSync},
	{name: "help", args: "", help: "keys and commands", run: cmdHelp},
	{name: "quit", args: "", help: "leave cairn", run: cmdQuit},
}

func lookup(name string) (command, bool) {
	for _, c := range registry {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// parsed is a command line taken apart.
type parsed struct {
	cmd   command
	args  []string
	layer string // -l / --layer value
	rest  string // the text after the command and flags, as typed
}

// parseLine reads a command line ("/archive 01J…", "remember -l D we chose X").
// The leading slash or colon is optional.
func parseLine(line string) (parsed, error) {
	s := strings.TrimSpace(line)
	s = strings.TrimLeft(s, "/:")
	if s == "" {
		return parsed{}, fmt.Errorf("type a command, e.g. /remember TEXT — /help lists them")
	}
	name, rest, _ := strings.Cut(s, " ")
	name = strings.ToLower(name)
	cmd, ok := lookup(name)
	if !ok {
		var close []string
		for _, c := range registry {
			if strings.HasPrefix(c.name, name) {
				close = append(close, "/"+c.name)
			}
		}
		if len(close) > 0 {
			return parsed{}, fmt.Errorf("unknown command /%s — did you mean %s?", name, strings.Join(close, " or "))
		}
		return parsed{}, fmt.Errorf("unknown command /%s — /help lists them", name)
	}
	p := parsed{cmd: cmd}
	rest = strings.TrimSpace(rest)
	for {
		f, after, _ := strings.Cut(rest, " ")
		if f != "-l" && f != "--layer" {
			break
		}
		v, after2, _ := strings.Cut(strings.TrimSpace(after), " ")
		if v == "" {
			return parsed{}, fmt.Errorf("%s needs a layer: A-F or a name", f)
		}
		p.layer = v
		rest = strings.TrimSpace(after2)
	}
	p.rest = rest
	p.args = strings.Fields(rest)
	return p, nil
}

// completions is what the last of the line's words may be completed to.
func completions(words, ids, projects, linkKinds, layers []string) []string {
	switch {
	case len(words) == 1:
		var names []string
		for _, c := range registry {
			names = append(names, c.name)
		}
		return names
	case words[0] == "project":
		return projects
	case words[0] == "link" && len(words) == 2:
		return linkKinds
	case words[0] == "consolidate" && len(words) == 2:
		return []string{"dry", "undo"}
	case words[0] == "undo" || words[0] == "consolidate":
		return nil // run ids are not memory ids
	case len(words) >= 2 && (words[len(words)-2] == "-l" || words[len(words)-2] == "--layer"):
		return layers
	}
	return ids
}

// complete finishes the last word of a command line: a command name, a
// layer, a link kind, a project or an id. It returns the candidates; with
// one candidate the line is completed.
func complete(line string, ids, projects, linkKinds, layers []string) (string, []string) {
	trimmed := strings.TrimLeft(line, "/:")
	prefix := line[:len(line)-len(trimmed)]
	words := strings.Split(trimmed, " ")
	last := words[len(words)-1]
	pool := completions(words, ids, projects, linkKinds, layers)
	var hits []string
	for _, c := range pool {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(last)) {
			hits = append(hits, c)
		}
	}
	sort.Strings(hits)
	if len(hits) == 1 {
		words[len(words)-1] = hits[0]
		out := prefix + strings.Join(words, " ")
		if len(words) == 1 || words[0] != "remember" {
			out += " "
		}
		return out, hits
	}
	if cp := commonPrefix(hits); len(hits) > 1 && len(cp) >= len(last) {
		words[len(words)-1] = cp
		return prefix + strings.Join(words, " "), hits
	}
	if len(hits) > 1 {
		return line, hits
	}
	return line, nil
}

// commonPrefix is the longest prefix, in whole runes, that every s shares.
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := []rune(ss[0])
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, string(p)) {
			p = p[:len(p)-1]
		}
	}
	return string(p)
}
