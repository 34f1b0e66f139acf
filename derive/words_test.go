package derive

import (
	"strings"
	"testing"
)

func TestSplitIdent(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"eventLoop":             "event loop",
		"HTTPServer_v2":         "http server v2",
		"parse_ansi_code":       "parse ansi code",
		"src/ansi-parser.go":    "src ansi parser go",
		"XMLHttpRequest":        "xml http request",
		"already lower, spaced": "already lower spaced",
	} {
		if got := strings.Join(splitIdent(in), " "); got != want {
			t.Errorf("splitIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSkipLicence(t *testing.T) {
	t.Parallel()
	apache := "Copyright 2024 The Authors\n\nLicensed under the Apache License, Version 2.0 (the \"License\");\nyou may not use this file except in compliance with the License.\n\nhttp://www.apache.org/licenses/LICENSE-2.0\n\nUNLESS REQUIRED BY APPLICABLE LAW\n\nThe history of queries, kept between runs."
	for _, c := range []struct{ in, want string }{
		{apache, "The history of queries, kept between runs."},
		{"SPDX-License-Identifier: MIT", ""},
		{"Package tea provides a framework.\n\nIts licence is MIT.", "Package tea provides a framework.\n\nIts licence is MIT."},
	} {
		if got := skipLicence(c.in); got != c.want {
			t.Errorf("skipLicence(%.40q…) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A Go file with no comment but names that say what it does (as fzf's
// history.go) is found by its own words.
const historyGo = `// Copyright (c) 2013 Junegunn Choi. MIT License.

package fzf

type history struct {
	path     string
	lines    []string
	maxSize  int
	cursor   int
}

func newHistory(path string, maxSize int) (*history, error) {
	return &history{path: path, maxSize: maxSize}, nil
}

func (h *history) append(line string) error {
	h.lines = append(h.lines, line)
	return nil
}

func (h *history) previous() string { h.cursor--; return h.lines[h.cursor] }
`

func TestFileWords(t *testing.T) {
	t.Parallel()
	f := File{Path: "src/history.go"}
	extractFile(&f, []byte(historyGo))
	own := f.Sections[len(f.Sections)-1]
	if own.Kind != KindFile || own.Name != "history" || own.Line != 1 || own.EndLine != 21 || own.Signature != "src/history.go" {
		t.Fatalf("the file's own section %+v", own)
	}
	for _, w := range []string{"src history", "previous", "max size", "cursor", "lines", "path"} {
		for _, part := range strings.Fields(w) {
			if !strings.Contains(" "+own.Doc+" ", " "+part+" ") {
				t.Errorf("the file's words %q lack %q", own.Doc, part)
			}
		}
	}
	if strings.Contains(own.Doc, "Copyright") || strings.Contains(own.Doc, " func ") || strings.Contains(own.Doc, "return") {
		t.Errorf("a licence or a keyword among the file's words: %q", own.Doc)
	}
	if len(f.Exported) != 0 {
		t.Errorf("a module lists %q: none of the file's names is exported", f.Exported)
	}

	// A file no reader reads has its words too, and its leading comment.
	c := File{Path: "src/tmux.c"}
	extractFile(&c, []byte("/*\n * Copyright 2020 A. Person. All rights reserved.\n */\n\n/* Runs the finder in a tmux popup. */\nint tmux_popup(int w, int h) { return tmux_run(w, h); }\n"))
	if len(c.Sections) != 1 || c.Sections[0].Kind != KindFile || c.Lang != "c" || !strings.Contains(c.Sections[0].Doc, "popup") {
		t.Fatalf("a C file read as %+v", c)
	}
	// A build constraint speaks to the compiler: the file's own words are
	// what it holds, not "go:build !windows".
	g := File{Path: "pkg/commands/docker_host_unix.go"}
	extractFile(&g, []byte("//go:build !windows\n\npackage commands\n\nconst (\n\tdefaultDockerHost = \"unix:///var/run/docker.sock\"\n)\n"))
	for _, s := range g.Sections {
		if strings.Contains(s.Doc, "go:build") {
			t.Errorf("a build constraint read as a doc: %+v", s)
		}
	}
	if len(g.Sections) < 2 || g.Sections[0].Kind != KindConst || g.Sections[0].Name != "defaultDockerHost" {
		t.Errorf("an unexported constant is no section of its own: %+v", g.Sections)
	}
	if r := readerTag("src/tmux.c"); r == "" {
		t.Error("a code file no reader reads has no reader tag: it would not be read again when its words change")
	}

	// A configuration file's keys say what it configures: each counts.
	y := File{Path: ".golangci.yml"}
	extractFile(&y, []byte("version: \"2\"\nlinters:\n  enable:\n    - gosec\n    - misspell\n"))
	if len(y.Sections) != 1 || y.Sections[0].Kind != KindFile || !strings.Contains(y.Sections[0].Doc, "linters") || !strings.Contains(y.Sections[0].Doc, "misspell") {
		t.Errorf("a configuration file's words: %+v", y.Sections)
	}

	// A file says the language it is written in and the module system it
	// is for: in a Go repository, examples/gum.py is the example in Python.
	for p, want := range map[string]string{"examples/gum.py": "python", "lib/index.cjs": "cjs", "scripts/release.rb": "ruby"} {
		x := File{Path: p}
		extractFile(&x, []byte("import os\nrun_it = os.environ\nrun_it = 1\n"))
		if len(x.Sections) == 0 || !strings.Contains(" "+x.Sections[len(x.Sections)-1].Doc+" ", " "+want+" ") {
			t.Errorf("%s: its own words lack %q: %+v", p, want, x.Sections)
		}
	}

	// Prose and data have no such section.
	for _, p := range []string{"docs/guide.md", "data.json", "notes.txt"} {
		d := File{Path: p}
		extractFile(&d, []byte("# Guide\n\nwords words words\n"))
		for _, s := range d.Sections {
			if s.Kind == KindFile {
				t.Errorf("%s has a section of its own words", p)
			}
		}
	}
}

func TestModuleDocAfterLicence(t *testing.T) {
	t.Parallel()
	f := File{Path: "pkg/history.py"}
	extractFile(&f, []byte("\"\"\"\nCopyright 2020 The Authors.\nLicensed under the MIT License.\n\nQuery history, kept between runs.\n\"\"\"\n\ndef load(path):\n    pass\n"))
	if len(f.Sections) == 0 || f.Sections[0].Kind != KindPackage || f.Sections[0].Doc != "Query history, kept between runs." {
		t.Fatalf("module doc %+v", f.Sections)
	}
}
