package exchange

import (
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"cairn/memory"
)

// Names in a markdown export. A file is named for a person (the slug of
// its title) and kept apart from its namesakes by the tail of its id,
// which is random in a ULID and so spreads files evenly over folders.
const (
	// folderFiles is about the most files one folder of an export holds:
	// past it a layer's files are spread over subfolders.
	folderFiles = 1000
	// slugRunes bounds the title part of a name (and slugBytes its bytes:
	// a file name holds at most 255).
	slugRunes = 48
	slugBytes = 160
	tailLen   = 8
	// bucketWays: a ULID's characters are one of 32, so one level of
	// subfolders splits a layer 32 ways.
	bucketWays = 32
)

func layerDir(l memory.Layer) string { return l.Letter() + "-" + l.String() }

// slug is the title in lower case, its letters and digits kept and every
// run of anything else one "-".
func slug(title string) string {
	var b strings.Builder
	n, dash := 0, false
	for _, r := range strings.ToLower(title) {
		if n >= slugRunes || b.Len() >= slugBytes {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			n++
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "memory"
	}
	return b.String()
}

// tail is the end of an id, in lower case: stable, and random in a ULID.
func tail(id string) string {
	return strings.ToLower(id[max(0, len(id)-tailLen):])
}

func baseName(title, id string) string { return slug(title) + "-" + tail(id) }

// FileNames gives each record (by id) its file in an export directory:
// <letter>-<layer>/[<bucket>/]<slug>-<tail>.md. A layer of more than about
// 1,000 memories is spread over 32 subfolders named by the last character
// of the id (1,024 past 32,000, the last two), so that no folder holds
// many more than 1,000 files; the names depend only on the memories, so
// the same memories always land in the same files. Two records whose names
// would clash (the same title and tail) are told apart by their whole ids.
func FileNames(recs []memory.Record) map[string]string {
	perLayer := map[memory.Layer]int{}
	for _, r := range recs {
		perLayer[r.Layer]++
	}
	ids := make([]int, len(recs))
	for i := range ids {
		ids[i] = i
	}
	sort.Slice(ids, func(a, b int) bool { return recs[ids[a]].ID < recs[ids[b]].ID })
	out := make(map[string]string, len(recs))
	taken := make(map[string]bool, len(recs))
	for _, i := range ids {
		r := recs[i]
		depth := 0
		for n := perLayer[r.Layer]; n > folderFiles; n /= bucketWays {
			depth++
		}
		t := tail(r.ID)
		dir := layerDir(r.Layer)
		if depth > 0 {
			// The last characters: ids made in one burst (an import) share
			// their first ones and count up in their last.
			dir = filepath.Join(dir, t[len(t)-min(depth, len(t)):])
		}
		name := filepath.Join(dir, slug(r.Title)+"-"+t+".md")
		if taken[strings.ToLower(name)] {
			name = filepath.Join(dir, slug(r.Title)+"-"+strings.ToLower(r.ID)+".md")
		}
		taken[strings.ToLower(name)] = true
		out[r.ID] = name
	}
	return out
}

// linkLabel makes a title fit inside [[…|label]]: no brackets, bars or
// line breaks.
func linkLabel(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '[', ']', '|', '\n', '\r':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// BodyLink is a wiki link written in a memory's body: [[Title]],
// [[Title|label]], [[short-id]] or [[file-name]] (a path, a #heading or
// .md after it are allowed). Kind is what a Links section line says, else
// relates_to.
type BodyLink struct {
	Kind   memory.EdgeKind
	Target string
}

// BodyLinks lists the wiki links of a body (of the whole file text: the
// Links section included), each once, outside fenced code.
func BodyLinks(text string) []BodyLink {
	var out []BodyLink
	seen := map[BodyLink]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		kind := memory.EdgeRelatesTo
		if l, ok := readLinkLine(strings.TrimSpace(line)); ok {
			kind = l.Kind
		}
		for rest := line; ; {
			i := strings.Index(rest, "[[")
			if i < 0 {
				break
			}
			j := strings.Index(rest[i+2:], "]]")
			if j < 0 {
				break
			}
			target := linkTarget(rest[i+2 : i+2+j])
			rest = rest[i+2+j+2:]
			if target == "" {
				continue
			}
			l := BodyLink{Kind: kind, Target: target}
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// linkTarget is what a wiki link names: before the label, the heading or
// block and the .md extension.
func linkTarget(inner string) string {
	t, _, _ := strings.Cut(inner, "|")
	t, _, _ = strings.Cut(t, "#")
	t, _, _ = strings.Cut(t, "^")
	t = strings.TrimSpace(t)
	if strings.EqualFold(filepath.Ext(t), ".md") {
		t = t[:len(t)-3]
	}
	return strings.TrimSpace(t)
}
