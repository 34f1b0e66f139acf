package derive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"
	"io"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"cairn/memory"
)

// Stamp is what a file was when it was read (memory.Stamp): a later stat
// that shows the same size and modification time means the same content,
// unread. Its ModTime is 0 when the file was modified so recently that a
// write in the same clock tick could follow unseen, so the next Update
// hashes it again.
type Stamp = memory.Stamp

// File is what was read from one file.
type File struct {
	Path string `json:"path"` // slash-separated, relative to the root
	Lang string `json:"lang"` // the reader's language, or a name by the extension ("" when unknown)
	Stamp
	Sections []Section `json:"sections"`
	// Exported are the names a module summary lists: the top-level
	// definitions of the file (not methods, not headings), in file order.
	Exported []string `json:"exported,omitempty"`
	// Err says what a reader could not read (the file still has the
	// sections read before it); "" when all was read.
	Err string `json:"err,omitempty"`
}

// Delta is what changed since the stamps an Update was given.
type Delta struct {
	// Changed are the files that are new or whose content changed, read
	// again, sorted by path.
	Changed []File `json:"changed"`
	// Restamped are files whose content is unchanged but whose size or
	// modification time moved (or was too recent to trust): the caller
	// stores the new stamp.
	Restamped map[string]Stamp `json:"restamped"`
	// Removed are paths of prev that are no longer listed, were deleted,
	// or are now skipped; sorted.
	Removed []string `json:"removed"`
	// Unchanged counts the files whose stat matched their stamp.
	Unchanged int `json:"unchanged"`
	// Skipped counts what was left out and why (see List).
	Skipped Skipped `json:"skipped"`
}

// Update reads what changed under root since prev (stamps by path, from
// an earlier Update; nil for a first run). A file whose size and
// modification time match its stamp is not read. Files are read and
// their sections extracted on all cores; the result does not depend on
// the order they finish in. A reader that fails on a file still gives
// the file with what it read; only a root that cannot be listed, a bad
// exclude pattern or a cancelled ctx fail the whole run.
func Update(ctx context.Context, root string, opt Options, prev map[string]Stamp) (Delta, error) {
	cands, skipped, err := candidates(ctx, root, opt)
	if err != nil {
		return Delta{}, err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Delta{}, fmt.Errorf("derive: %w", err)
	}
	d := Delta{Restamped: map[string]Stamp{}, Skipped: skipped}
	present := make(map[string]bool, len(cands))
	var todo []Entry
	for _, e := range cands {
		if s, ok := prev[e.Path]; ok && s.Size == e.Size && s.ModTime == e.ModTime && s.ModTime != 0 && s.Reader == readerTag(e.Path) {
			d.Unchanged++
			present[e.Path] = true
			continue
		}
		todo = append(todo, e)
	}

	results := make([]readResult, len(todo))
	if err := readEntries(ctx, real, opt, todo, results); err != nil {
		return Delta{}, err
	}
	for i, r := range results {
		p := todo[i].Path
		switch {
		case r.gone:
			continue // deleted since it was listed: Removed below if it was known
		case r.skip != "":
			d.Skipped.add(r.skip)
			continue
		}
		present[p] = true
		if s, ok := prev[p]; ok && s.Hash == r.file.Hash && s.Reader == r.file.Reader {
			d.Restamped[p] = r.file.Stamp
			continue
		}
		d.Changed = append(d.Changed, r.file)
	}
	for p := range prev {
		if !present[p] {
			d.Removed = append(d.Removed, p)
		}
	}
	sort.Strings(d.Removed)
	// todo is sorted, so Changed is too.
	return d, nil
}

// readResult is what became of one file to read.
type readResult struct {
	file File
	skip string // a reason to skip it, found in its content
	gone bool   // it vanished (or cannot be opened) since it was listed
}

// readEntries reads todo into results on GOMAXPROCS goroutines.
func readEntries(ctx context.Context, root string, opt Options, todo []Entry, results []readResult) error {
	workers := runtime.GOMAXPROCS(0)
	if workers > len(todo) {
		workers = len(todo)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = readEntry(root, todo[i].Path, opt)
			}
		}()
	}
	var err error
feed:
	for i := range todo {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return err
}

// racyWindow is how recent a modification must be for its time not to
// be trusted: a write within the same tick of a coarse file system clock
// would leave size and time as they were.
const racyWindow = 2 * time.Second

// readEntry reads, checks, hashes and extracts one file. The stamp comes
// from the open file before it is read, so a write during the read
// leaves a stamp that no longer matches and the next Update reads again.
func readEntry(root, p string, opt Options) readResult {
	f, fi, reason, err := openInRoot(root, p)
	if reason != "" {
		return readResult{skip: reason} // replaced since it was listed
	}
	if err != nil {
		return readResult{gone: true}
	}
	defer f.Close()
	if fi.Size() > opt.maxSize() {
		return readResult{skip: SkipLarge}
	}
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return readResult{gone: true}
	}
	if reason := contentSkip(p, head[:n]); reason != "" {
		return readResult{skip: reason}
	}
	src := head[:n]
	if n == headSize {
		// Read the rest, but no further than the limit (the file may grow).
		rest, err := io.ReadAll(io.LimitReader(f, opt.maxSize()-int64(n)+1))
		if err != nil {
			return readResult{gone: true}
		}
		if int64(n+len(rest)) > opt.maxSize() {
			return readResult{skip: SkipLarge}
		}
		src = append(src, rest...)
	}
	sum := sha256.Sum256(src)
	st := Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Hash: hex.EncodeToString(sum[:8]), Reader: readerTag(p)}
	if time.Since(fi.ModTime()) < racyWindow {
		st.ModTime = 0
	}
	file := File{Path: p, Stamp: st}
	extractFile(&file, src)
	return readResult{file: file}
}

// extractFile fills a file's language, sections and exported names with its
// reader. A reader's panic is the reader's bug, not the run's end: the
// file keeps what is known and says what went wrong.
func extractFile(file *File, src []byte) {
	l, ok := readerFor(file.Path)
	if !ok {
		l = language{name: langByExt(file.Path), extract: func(string, []byte) ([]Section, error) { return nil, nil }}
	}
	file.Lang = l.name
	defer func() {
		if r := recover(); r != nil {
			file.Sections = nil
			file.Exported = nil
			file.Err = fmt.Sprintf("%s reader failed: %v", l.name, r)
		}
	}()
	secs, err := l.extract(file.Path, src)
	if err != nil {
		file.Err = err.Error()
	}
	for i := range secs {
		if secs[i].Kind == KindPackage {
			secs[i].Doc = skipLicence(secs[i].Doc) // the description, not the licence it opens with
		}
	}
	if s, ok := fileWordsSection(file.Path, l.name, src, secs); ok {
		secs = append(secs, s)
	}
	for i := range secs {
		secs[i].Path = file.Path
		if secs[i].Lang == "" {
			secs[i].Lang = l.name
		}
		// Redacted whole, before the cut: a key the cut split would
		// leave most of itself behind, unrecognised.
		if len(secs[i].Doc) > redactSpan {
			secs[i].Doc = secs[i].Doc[:redactSpan] // all the cut below keeps, and a key block's worth more
		}
		secs[i] = secs[i].Redacted()
		secs[i].Doc = cutDoc(secs[i].Doc)
	}
	file.Sections = secs
	file.Exported = exportedNames(secs)
}

// redactSpan is how much of a doc is redacted before it is cut to
// DocLimit: all it keeps, and room for a private key block across the cut.
const redactSpan = DocLimit + 64<<10

// formatVersion changes when what every reader's sections go through
// changes (the doc limit, how Exported is made): every file is read again.
const formatVersion = 7 // 2: sections redacted before the cut; 3: a code file's own words; 4: no directive (//go:build) as its leading comment; 5: a configuration file's own words; 6: fish and .env files, a shell's name as a word; 7: a language's name and a module system's extension as words

// readerVersions are the readers' versions by language name: a reader
// that comes to read differently raises its own (in its init), so the
// files it read before are read again (see Stamp.Reader). Unset is 0.
var readerVersions = map[string]int{}

// readerTag names the reader of a file and its version for its stamp;
// "" when no reader reads it.
func readerTag(p string) string {
	l, ok := readerFor(p)
	if !ok {
		if l := langByExt(p); codeLangs[l] || toolConfig(p, l) {
			return fmt.Sprintf("words/%d", formatVersion) // a code file no reader reads has its own words
		}
		return ""
	}
	return fmt.Sprintf("%s/%d.%d", l.name, readerVersions[l.name], formatVersion)
}

// readerFor finds the reader registered for the longest extension the
// file's name ends with (".d.ts" before ".ts"), ignoring case.
func readerFor(p string) (language, bool) {
	name := strings.ToLower(path.Base(p))
	var best language
	bestLen := 0
	for ext, l := range languages {
		if len(ext) > bestLen && strings.HasSuffix(name, strings.ToLower(ext)) {
			best, bestLen = l, len(ext)
		}
	}
	return best, bestLen > 0
}

// exportedNames are the names a module lists from a file's sections: its
// top-level definitions, without methods (a qualified name), headings,
// package docs, or names a language marks private (a leading "_", a Go
// name in lower case).
func exportedNames(secs []Section) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range secs {
		switch s.Kind {
		case KindHeading, KindPackage, KindMethod, memory.SectionFile:
			continue
		}
		for _, name := range strings.Split(s.Name, ", ") {
			if name == "" || name == "…" || strings.HasPrefix(name, "_") || strings.Contains(name, ".") || seen[name] ||
				(s.Lang == "go" && !token.IsExported(name)) {
				continue
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// langByExt names the language of a file no reader reads, so modules and
// project facts can count it.
func langByExt(p string) string {
	base := strings.ToLower(path.Base(p))
	switch base {
	case "makefile", "gnumakefile":
		return "make"
	case "dockerfile":
		return "dockerfile"
	case ".env", ".env.example", ".env.sample", ".env.template", ".env.dist":
		return "dotenv"
	}
	ext := path.Ext(base)
	if strings.HasSuffix(base, ".d.ts") {
		ext = ".ts"
	}
	return extLangs[ext]
}

var extLangs = map[string]string{
	".go": "go", ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
	".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
	".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java",
	".kt": "kotlin", ".rb": "ruby", ".php": "php", ".cs": "csharp", ".swift": "swift", ".scala": "scala",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell", ".lua": "lua", ".zig": "zig",
	".json": "json", ".yml": "yaml", ".yaml": "yaml", ".toml": "toml", ".sql": "sql",
	".html": "html", ".css": "css", ".scss": "css", ".proto": "protobuf", ".txt": "text", ".rst": "rst", ".adoc": "asciidoc",
}

// cutDoc bounds a doc to DocLimit bytes, cut at a word (and never inside
// a UTF-8 sequence), marked with "…" when cut.
func cutDoc(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= DocLimit {
		return s
	}
	const ell = "…"
	cut := DocLimit - len(ell)
	for cut > 0 && !isDocSpace(s[cut]) {
		cut--
	}
	if cut < DocLimit/2 {
		// One very long word: cut inside it, at a rune boundary.
		cut = DocLimit - len(ell)
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + ell
}

func isDocSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
