package exchange

import (
	"bytes"
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

// The Links section cairn writes after a memory's body: a heading, a blank
// line, then one "- kind: [[target|label]]" line per edge.
const linksHead = "\n\n## Links\n\n"

// writeLinks writes the Links section of edges, each a wiki link to the
// target's file labelled by its title (Obsidian's graph and backlinks read
// these); the frontmatter's edges say the same exactly.
func writeLinks(b *bytes.Buffer, edges []memory.RecordEdge, link func(id string) (string, string)) {
	if len(edges) == 0 {
		return
	}
	b.WriteString(linksHead)
	for _, e := range edges {
		target, label := link(e.To)
		label = linkLabel(label)
		b.WriteString("- " + string(e.Kind) + ": [[" + target)
		if label != "" && label != target {
			b.WriteString("|" + label)
		}
		b.WriteString("]]\n")
	}
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

// cutLinks splits text at its last Links section when what follows the
// heading is only link lines; ok is false (and text whole) otherwise.
func cutLinks(text string) (body string, ok bool) {
	i := strings.LastIndex(text, linksHead)
	if i < 0 {
		return text, false
	}
	for _, line := range strings.SplitAfter(text[i+len(linksHead):], "\n") {
		if line == "" {
			continue
		}
		if _, _, ok := linkLine(strings.TrimSuffix(line, "\n")); !ok {
			return text, false
		}
	}
	return text[:i], true
}

// linkLine reads "- kind: [[target…]]" as a Links section writes it.
func linkLine(line string) (memory.EdgeKind, string, bool) {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return "", "", false
	}
	kind, link, ok := strings.Cut(rest, ": ")
	if !ok || !memory.EdgeKind(kind).Valid() || !strings.HasPrefix(link, "[[") || !strings.HasSuffix(link, "]]") {
		return "", "", false
	}
	return memory.EdgeKind(kind), link, true
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
		if k, _, ok := linkLine(strings.TrimRight(line, "\r")); ok {
			kind = k
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
