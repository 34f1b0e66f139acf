package derive

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// moduleTree is a small repository of Go packages, docs and a nested
// JavaScript package.
var moduleTree = map[string]string{
	"README.md":             "# shop\n\nshop sells things over the network.\n",
	"main.go":               "package main\n\nfunc main() {}\n",
	"store/doc.go":          "// Package store keeps orders. It uses a file per order.\npackage store\n",
	"store/order.go":        "package store\n\n// Order is one order.\ntype Order struct{}\n\n// Get reads an order.\nfunc Get() {}\n\n// Item is a line.\ntype Item struct{}\n\n// Total sums.\nfunc (i Item) Total() int { return 0 }\n",
	"store/methods.go":      "package store\n\n// Save writes.\nfunc (o *Order) Save() {}\n\n// Load reads.\nfunc (o *Order) Load() {}\n",
	"store/testdata/x.json": "{}\n",
	"store/sql/sql.go":      "// Package sql stores orders in SQL.\npackage sql\n\n// Open opens.\nfunc Open() {}\n",
	"web/README.md":         "# web\n\n[![b](x.svg)](y)\n\nThe web front end of the shop.\n",
	"web/app/package.json":  "{}\n",
	"web/app/src/index.js":  "x()\n",
	"web/app/src/util.js":   "y()\n",
	"web/static/logo.txt":   "logo\n",
	"docs/guide.md":         "# Guide\n\n## Setup\n",
}

func TestModules(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, moduleTree)
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mods := Modules(d.Changed)
	byPath := map[string]Module{}
	var order []string
	for _, m := range mods {
		byPath[m.Path] = m
		order = append(order, m.Path)
	}
	if wantSection := []string{"", "docs", "store", "store/sql", "web", "web/app"}; !reflect.DeepEqual(order, wantSection) {
		t.Fatalf("modules %q, want %q", order, wantSection)
	}
	root0 := byPath[""]
	if root0.Files != 2 || root0.Summary != "shop sells things over the network." || !reflect.DeepEqual(root0.Langs, []string{"go", "markdown"}) {
		t.Errorf("root module %+v", root0)
	}
	st := byPath["store"]
	if st.Files != 5 || st.Summary != "Package store keeps orders." {
		t.Errorf("store: %d files, summary %q", st.Files, st.Summary)
	}
	// Types first, the one with more methods before the other, then functions.
	if wantSection := []string{"Order", "Item", "Get", "Open"}; !reflect.DeepEqual(st.Exported, wantSection) {
		t.Errorf("store exports %q, want %q", st.Exported, wantSection)
	}
	if sql := byPath["store/sql"]; sql.Files != 1 || sql.Summary != "Package sql stores orders in SQL." || !reflect.DeepEqual(sql.Exported, []string{"Open"}) {
		t.Errorf("store/sql %+v", sql)
	}
	if web := byPath["web"]; web.Files != 5 || web.Summary != "The web front end of the shop." {
		t.Errorf("web %+v", web)
	}
	if app := byPath["web/app"]; app.Files != 3 || app.Summary != "" || app.Langs[0] != "javascript" {
		t.Errorf("web/app %+v", app)
	}
	if docs := byPath["docs"]; docs.Sections != 2 || docs.Summary != "" {
		t.Errorf("docs %+v", docs)
	}
	if !reflect.DeepEqual(Modules(d.Changed), mods) {
		t.Error("two calls differ")
	}
}

func TestSummary(t *testing.T) {
	f, mods := indexTree(t, moduleTree, map[string]string{
		"go.mod":   "module example.com/shop\n\ngo 1.22\n",
		"Makefile": "test:\n\tgo test -race ./...\n",
	})
	got := Summary(f, mods, 0)
	for _, wantSection := range []string{
		"shop sells things over the network.",
		"Go module example.com/shop (go 1.22)",
		"build: go build ./...",
		"test: make test (go test -race ./...)", // the Makefile's, not the convention
		"Entry points: main.go",
		"- store/ (go, 5 files): keeps orders. Names: Order, Item, Get, Open.",
		"- web/ (javascript, 5 files): The web front end of the shop.",
	} {
		if !strings.Contains(got, wantSection) {
			t.Errorf("summary lacks %q:\n%s", wantSection, got)
		}
	}
	if strings.Contains(got, "testdata") {
		t.Errorf("fixtures in the summary:\n%s", got)
	}
	// A small budget keeps the first lines and stays within it.
	small := Summary(f, mods, 20)
	if n := len(strings.Fields(small)); n > 20 || !strings.HasPrefix(small, "shop sells things") {
		t.Errorf("20 words: %d words\n%s", n, small)
	}
	if strings.Contains(small, "Modules:") {
		t.Errorf("modules in a summary too small for them:\n%s", small)
	}
}

// A README of a part sorts before README.md ("-" before "."): the module
// is still summed up by README.md (fzf's root said what its Vim plugin
// does).
func TestModuleSummaryFromItsOwnReadme(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"README-VIM.md": "# Vim integration\n\nOnce you have the tool installed, add it to your runtimepath.\n",
		"README.md":     "# tool\n\ntool is a general-purpose fuzzy finder for the terminal.\n",
		"main.go":       "package main\n\nfunc main() {}\n",
	})
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Modules(d.Changed) {
		if m.Path == "" && m.Summary != "tool is a general-purpose fuzzy finder for the terminal." {
			t.Errorf("root summary %q", m.Summary)
		}
	}
}

// A directory of translations (doc/README-ja.md, doc/README.zh-CN.md) is
// not summed up in one of them; a README written in HTML is read.
func TestModuleSummaryNotATranslation(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"README.md":           "<p align=\"center\">\n  <img src=\"logo.svg\"><br>\n  <a href=\"x\"><img src=\"badge.svg\"></a><br>\n  A <i>less</i> clone with colours &amp; line numbers.\n</p>\n",
		"doc/README-ja.md":    "# ツール\n\ntool は 端末のための ページャーです。\n",
		"doc/README.zh-CN.md": "# 工具\n\ntool 是 一个终端 分页器。\n",
		"doc/usage.md":        "# Usage\n\nRun it on a file.\n",
	})
	d, err := Update(context.Background(), root, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Modules(d.Changed) {
		switch m.Path {
		case "":
			if m.Summary != "A less clone with colours & line numbers." {
				t.Errorf("root summary %q", m.Summary)
			}
		case "doc":
			if m.Summary != "" {
				t.Errorf("doc/ summed up in a translation: %q", m.Summary)
			}
		}
	}
	for _, p := range []string{"README-ja.md", "doc/README.zh-CN.md", "README_pt-BR.md"} {
		if !translatedReadme(p) {
			t.Errorf("%s: not read as a translation", p)
		}
	}
	for _, p := range []string{"README.md", "README-VIM.md", "README.rst", "readme"} {
		if translatedReadme(p) {
			t.Errorf("%s: read as a translation", p)
		}
	}
}
