package memory

import (
	"fmt"
	"path"
	"strings"
)

// maxFiles bounds the files one memory is taken to be about.
const maxFiles = 16

// Files lists the files a memory is about: the targets of its file
// watermarks, then the paths its title and body name (store/import.go,
// schema.sql, cmd/ — a word with a known extension or ending in a slash),
// at most 16, each once.
func Files(m *Memory) []string {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		f = cleanPath(f)
		if f != "" && !seen[f] && len(out) < maxFiles {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, w := range m.Watermarks {
		if w.Kind == WatermarkFile {
			add(w.Target)
		}
	}
	for _, text := range []string{m.Title, m.Body} {
		for _, w := range strings.FieldsFunc(text, func(r rune) bool {
			return r <= ' ' || strings.ContainsRune("\"'`()[]{}<>,;|=", r)
		}) {
			w = strings.TrimRight(w, ".:!?")
			if i := strings.IndexByte(w, ':'); i > 0 && strings.Trim(w[i:], ":0123456789") == "" {
				w = w[:i] // store/import.go:41:7 names the file
			}
			if looksLikePath(w) {
				add(w)
			}
		}
	}
	return out
}

func cleanPath(f string) string {
	f = strings.TrimSpace(f)
	for strings.HasPrefix(f, "./") {
		f = f[2:]
	}
	return strings.TrimPrefix(f, "/")
}

var pathExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`go mod sum py pyi js mjs cjs ts tsx jsx rs java kt kts scala c h cc cpp cxx hpp cs rb php
	swift m sql md rst txt json jsonl yaml yml toml ini cfg conf env sh bash zsh fish ps1 mk proto graphql gql html htm css scss
	vue svelte lock xml csv tf hcl gradle dockerfile lua ex exs erl hs ml clj dart zig nix`) {
		pathExts[e] = true
	}
}

func looksLikePath(w string) bool {
	if len(w) < 3 || len(w) > 200 || strings.Contains(w, "://") || strings.HasPrefix(w, "@") {
		return false
	}
	switch base := path.Base(w); {
	case strings.HasSuffix(w, "/") && strings.Count(w, "/") >= 1 && len(w) > 2:
		return !strings.ContainsAny(w, "*?")
	case base == "Makefile" || base == "Dockerfile" || base == "Justfile":
		return true
	default:
		dot := strings.LastIndexByte(base, '.')
		return dot > 0 && pathExts[strings.ToLower(base[dot+1:])]
	}
}

// MatchPath returns the first of files that pattern names, or "". A
// pattern is a path (a memory about store/import.go matches
// "store/import.go" and "import.go"; one that names only import.go
// matches "store/import.go" too), a directory (store/ or store: every file
// under it), or a glob: * ? [..] within a name, ** across directories, and
// a glob without a slash matches the file name anywhere (*.sql).
func MatchPath(pattern string, files []string) string {
	p := cleanPath(pattern)
	if p == "" {
		return ""
	}
	glob := strings.ContainsAny(p, "*?[")
	for _, f := range files {
		if glob {
			if globMatch(strings.Split(p, "/"), strings.Split(strings.TrimSuffix(f, "/"), "/")) ||
				(!strings.Contains(p, "/") && globMatch([]string{p}, []string{path.Base(f)})) {
				return f
			}
			continue
		}
		dir := strings.TrimSuffix(p, "/") + "/"
		switch {
		case f == p, f == dir, strings.HasSuffix(f, "/"+p), strings.HasPrefix(f, dir),
			!strings.Contains(f, "/") && path.Base(p) == f:
			return f
		}
	}
	return ""
}

// globMatch matches path segments against pattern segments, "**" standing
// for any number of segments.
func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if globMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// ValidPathPattern says what is wrong with a path pattern, or nil.
func ValidPathPattern(pattern string) error {
	for _, seg := range strings.Split(cleanPath(pattern), "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("the path pattern %q is malformed (an unclosed [ or a stray \\): write a path, a directory or a glob such as store/*.go", pattern)
		}
	}
	return nil
}
