package exchange

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"cairn/memory"
	"cairn/safetext"
)

// FileError names the file of a markdown input that refused it.
type FileError struct {
	Path string
	Err  error
}

// Error neutralises the path: a file name may hold escape sequences.
func (e *FileError) Error() string { return fmt.Sprintf("%s: %v", safetext.CleanLine(e.Path), e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// FileName is where a record lives inside an export directory that holds
// it alone: <letter>-<layer>/<slug of the title>-<tail of the id>.md. An
// export of many records spreads a layer over subfolders (see FileNames).
func FileName(r memory.Record) string {
	return filepath.Join(layerDir(r.Layer), baseName(r.Title, r.ID)+".md")
}

// WriteMarkdown writes each record to its own file under dir (see
// FileNames), creating dir if need be, and removes the files an earlier
// export there wrote for these memories under other names (a renamed
// title, a layer that filled up). Memories may hold private text, so what
// it creates is readable by the owner only (0o700 directories, 0o600
// files). dir must not be a symbolic link, and no link planted inside it
// is followed: each file is written to a new temporary name and renamed
// into place, which replaces a link rather than writing through it. A
// file whose bytes would not change is not written at all, so a second
// export of the same memories touches nothing.
func WriteMarkdown(dir string, recs []memory.Record) error {
	if err := refuseLink(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	recs, events := splitEvents(recs)
	if err := writeTimeline(root, events); err != nil {
		return err
	}
	names := FileNames(recs)
	titles := make(map[string]string, len(recs))
	for _, r := range recs {
		titles[r.ID] = r.Title
	}
	link := func(id string) (string, string) {
		name, ok := names[id]
		if !ok {
			return id, id // not in the export: the id says which
		}
		return filepath.ToSlash(strings.TrimSuffix(name, ".md")), titles[id]
	}
	made := map[string]bool{}
	// Each folder is opened once: a path of three parts through os.Root
	// opens every folder on it, for every call.
	folders := map[string]*os.Root{}
	defer func() {
		for _, f := range folders {
			f.Close()
		}
	}()
	wrote := make(map[string]bool, len(recs))
	for _, r := range recs {
		if r.ID == "" {
			return fmt.Errorf("a record without an id cannot be written as markdown")
		}
		b, err := encodeMarkdown(r, link)
		if err != nil {
			return fmt.Errorf("%s: %w", r.ID, err)
		}
		name := names[r.ID]
		wrote[name] = true
		dir, base := filepath.Split(name)
		folder := folders[dir]
		if folder == nil {
			if err := mkdirAllNoLink(root, filepath.Clean(dir), made); err != nil {
				return err
			}
			if folder, err = root.OpenRoot(filepath.Clean(dir)); err != nil {
				return err
			}
			folders[dir] = folder
		}
		if same(folder, base, b) {
			continue
		}
		if err := writeNew(folder, base, b); err != nil {
			return err
		}
	}
	return removeStale(root, recs, wrote)
}

// TimelineFile is the file of a markdown export that holds the project's
// timeline, as JSON Lines of {"event": …} records, oldest first.
const TimelineFile = "timeline.jsonl"

// splitEvents parts memory records from timeline records.
func splitEvents(recs []memory.Record) (mems, events []memory.Record) {
	for _, r := range recs {
		if r.Event != nil {
			events = append(events, r)
		} else {
			mems = append(mems, r)
		}
	}
	return mems, events
}

// writeTimeline writes the timeline file, unless there is no timeline or
// it holds these bytes already.
func writeTimeline(root *os.Root, events []memory.Record) error {
	if len(events) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := WriteJSONL(&b, events); err != nil {
		return err
	}
	if same(root, TimelineFile, b.Bytes()) {
		return nil
	}
	return writeNew(root, TimelineFile, b.Bytes())
}

// readTimeline reads the timeline file of an import directory: event
// records only, each line at most MaxLine, the whole at most MaxImport.
func readTimeline(root *os.Root, real string) ([]memory.Record, []int, error) {
	if _, err := root.Lstat(TimelineFile); err != nil {
		return nil, nil, nil // none: a vault, or an export without a timeline
	}
	f, err := openInside(root, real, TimelineFile)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	jr := NewJSONLReader(io.LimitReader(f, MaxImport))
	var out []memory.Record
	for {
		recs, err := jr.Next(1 << 10)
		for _, r := range recs {
			if r.Event == nil {
				return nil, nil, &LineError{Line: jr.Line(len(out)), Err: errors.New(`a memory record: this file holds only {"event": …} lines (memories are the .md files)`)}
			}
			out = append(out, r)
		}
		if errors.Is(err, io.EOF) {
			lines := make([]int, len(out))
			for i := range out {
				lines[i] = jr.Line(i)
			}
			return out, lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// same reports whether name under root is a regular file holding b.
func same(root *os.Root, name string, b []byte) bool {
	fi, err := root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(b)) {
		return false
	}
	old, err := root.ReadFile(name)
	return err == nil && bytes.Equal(old, b)
}

// mkdirAllNoLink makes the directory sub and its parents under root,
// refusing a link on the way.
func mkdirAllNoLink(root *os.Root, sub string, made map[string]bool) error {
	if sub == "." || made[sub] {
		return nil
	}
	if err := mkdirAllNoLink(root, filepath.Dir(sub), made); err != nil {
		return err
	}
	if err := mkdirNoLink(root, sub); err != nil {
		return err
	}
	made[sub] = true
	return nil
}

// removeStale removes the .md files of the layer directories that hold
// one of recs under a name this export did not write: what an earlier
// export wrote for the same memory before its title, layer or folder
// changed. A file that is not one of these memories is left alone.
func removeStale(root *os.Root, recs []memory.Record, wrote map[string]bool) error {
	ids := make(map[string]bool, len(recs))
	for _, r := range recs {
		ids[r.ID] = true
	}
	for _, l := range memory.Layers {
		top := layerDir(l)
		if fi, err := root.Lstat(top); err != nil || !fi.IsDir() {
			continue
		}
		err := fs.WalkDir(root.FS(), top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(p, ".md") {
				return err
			}
			name := filepath.FromSlash(p)
			if wrote[name] {
				return nil
			}
			b, err := root.ReadFile(name)
			if err != nil || len(b) > MaxFile {
				return err
			}
			if r, err := DecodeMarkdown(b); err == nil && ids[r.ID] {
				return root.Remove(name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// refuseLink refuses an export path that is a symbolic link: the export
// would land wherever the link leads, which need not be where the person
// looks for it (nor a place only they can read).
func refuseLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		target = "nowhere"
	}
	return fmt.Errorf("is a symbolic link to %s: export to the real path instead", safetext.CleanLine(target))
}

// mkdirNoLink makes the layer directory sub under root unless it is
// already a real directory.
func mkdirNoLink(root *os.Root, sub string) error {
	fi, err := root.Lstat(sub)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return root.Mkdir(sub, 0o700)
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: remove it or export to an empty directory", sub)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: remove it or export to an empty directory", sub)
	}
	return nil
}

// writeNew writes name under root through a file created exclusively (so
// nothing planted is opened) and renamed over name.
func writeNew(root *os.Root, name string, b []byte) error {
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = filepath.Join(filepath.Dir(name), fmt.Sprintf(".%s.%d.%d.tmp", filepath.Base(name), os.Getpid(), i))
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i >= 100 {
			return err
		}
	}
	_, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// EncodeMarkdown renders one record as frontmatter and body, its links
// named by id (WriteMarkdown names them by file and title).
func EncodeMarkdown(r memory.Record) ([]byte, error) {
	return encodeMarkdown(r, func(id string) (string, string) { return id, id })
}

// encodeMarkdown renders r in the Full profile; link gives the wiki-link
// target and label of a memory r links to. Nothing that changes when a
// memory is read (salience, access times) or is computed (trust) is
// written, so the same memory always gives the same bytes. An inactive
// (historical) link is kept exactly in the frontmatter's edges and left
// out of the Links section, which shows only live links.
func encodeMarkdown(r memory.Record, link func(id string) (target, label string)) ([]byte, error) {
	var links []SectionLink
	for _, e := range r.Edges {
		if e.Active != nil && !*e.Active {
			continue
		}
		target, label := link(e.To)
		links = append(links, SectionLink{Kind: e.Kind, Target: target, Label: linkLabel(label)})
	}
	return Encode(r, Full, links)
}

// quote writes every string as a double-quoted scalar (JSON's quoting is
// valid YAML), so that titles made of spaces, tabs, colons or "---"
// survive exactly.
func quote(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ReadMarkdown reads every memory file under dir, in path order.
func ReadMarkdown(dir string) ([]memory.Record, error) {
	recs, _, err := ReadMarkdownFiles(dir)
	return recs, err
}

// ReadMarkdownFiles is ReadMarkdown that also returns each record's file,
// relative to dir, for error messages; see ReadVault.
func ReadMarkdownFiles(dir string) ([]memory.Record, []string, error) {
	v, err := ReadVault(dir)
	if err != nil {
		return nil, nil, err
	}
	return v.Records, v.Files, nil
}

// Vault is what a markdown directory holds for an import: the memories,
// the file of each, the wiki links each body writes, and what was passed
// over.
type Vault struct {
	Records []memory.Record
	Files   []string
	Links   [][]BodyLink // by record
	Aliases [][]string   // by record: the other names links may use
	Skipped Skipped
	Fields  FieldCount
}

// FieldCount counts the frontmatter fields of a directory's notes that are
// not cairn's (Obsidian's cssclasses, a plugin's fields): never a reason
// to refuse a note. A short one-word value is kept as a tag "field/value".
type FieldCount struct {
	AsTags  int      `json:"as_tags,omitempty"`
	Ignored int      `json:"ignored,omitempty"`
	Names   []string `json:"names,omitempty"` // each once, sorted
}

// String says what became of the unknown fields ("" when there were none).
func (c FieldCount) String() string {
	n := c.AsTags + c.Ignored
	if n == 0 {
		return ""
	}
	what := "fields"
	if n == 1 {
		what = "field"
	}
	return fmt.Sprintf("%d frontmatter %s cairn does not know (%s): %d kept as tags, %d ignored", n, what, strings.Join(c.Names, ", "), c.AsTags, c.Ignored)
}

// Skipped counts the files of a directory that are not memories: they are
// passed over, not refused, so that any notes folder (an Obsidian vault
// with its settings and trash) can be imported.
type Skipped struct {
	NoFrontmatter int `json:"no_frontmatter,omitempty"`
	// NotMemory: frontmatter that is not cairn's (it names no layer).
	NotMemory   int `json:"not_memory,omitempty"`
	NotMarkdown int `json:"not_markdown,omitempty"`
	// Hidden counts the files under each hidden directory (".obsidian/",
	// ".trash/", ".git/") and hidden files (".").
	Hidden map[string]int `json:"hidden,omitempty"`
}

// String says what was skipped ("3 files without frontmatter, 12 under
// .obsidian/"), or "" when nothing was.
func (s Skipped) String() string {
	var parts []string
	add := func(n int, what string) {
		if n == 1 {
			parts = append(parts, "1 file "+what)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d files %s", n, what))
		}
	}
	add(s.NoFrontmatter, "without frontmatter")
	add(s.NotMemory, "whose frontmatter names no layer")
	add(s.NotMarkdown, "not .md")
	dirs := make([]string, 0, len(s.Hidden))
	for d := range s.Hidden {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if d == "." {
			add(s.Hidden[d], "hidden")
		} else {
			parts = append(parts, fmt.Sprintf("%d under %s/", s.Hidden[d], d))
		}
	}
	return strings.Join(parts, ", ")
}

// ReadVault reads every memory file under dir, in path order (dir may
// also be one memory file). A file is a memory when its frontmatter names
// a layer; files without frontmatter or with another program's, files
// that are not .md and everything under a hidden directory (.obsidian/,
// .trash/, .git/) are counted in Skipped and passed over. A memory file
// that is malformed refuses the whole directory, naming the file.
//
// Only regular files are read, each at most MaxFile bytes and all together
// at most MaxImport. A symbolic link is followed only when it leads to a
// file inside dir: a link out of the directory is refused, so that an
// import cannot be made to read (and store) a file the directory does not
// hold.
func ReadVault(dir string) (*Vault, error) { return ReadVaultNotes(dir, 0) }

// ReadVaultNotes is ReadVault that also takes a person's plain notes —
// files without frontmatter, or whose frontmatter names no layer — as
// memories of the layer notes (its letter or name), titled by their
// file name: a vault that was never cairn's imports whole. A zero notes
// passes them over, as ReadVault does.
func ReadVaultNotes(dir string, notes memory.Layer) (*Vault, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, pathError(err)
	}
	if fi.Mode().IsRegular() {
		return readOneMarkdown(dir)
	}
	if !fi.IsDir() {
		return nil, notRegular(fi.Mode(), hintImportPath)
	}
	// Walk the real directory, so that containment is judged against the
	// path links resolve to.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, pathError(err)
	}
	v := &Vault{}
	rels, err := v.walk(real)
	if err != nil {
		return nil, err
	}
	// os.Root opens each file without leaving the directory, whatever is
	// renamed or linked under it meanwhile.
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, pathError(err)
	}
	defer root.Close()
	if err := v.readNotes(root, real, rels, notes); err != nil {
		return nil, err
	}
	events, lines, err := readTimeline(root, real)
	if err != nil {
		return nil, &FileError{TimelineFile, err}
	}
	for i, e := range events {
		v.Records = append(v.Records, e)
		v.Files = append(v.Files, fmt.Sprintf("%s line %d", TimelineFile, lines[i]))
		v.Links = append(v.Links, nil)
		v.Aliases = append(v.Aliases, nil)
	}
	return v, nil
}

// walk lists the .md files under real in path order, counting in
// v.Skipped what is hidden or not markdown (the timeline is read apart).
func (v *Vault) walk(real string) ([]string, error) {
	var rels []string
	err := filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(real, p)
		if err != nil {
			return &FileError{rel, pathError(err)}
		}
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return v.skipHidden(p, rel, d)
		}
		switch {
		case d.IsDir():
		case strings.EqualFold(filepath.Ext(p), ".md"):
			rels = append(rels, rel)
		case rel == TimelineFile:
			// read after the memories: its events name them
		default:
			v.Skipped.NotMarkdown++
		}
		return nil
	})
	sort.Strings(rels)
	return rels, err
}

// skipHidden counts a hidden file, or the files of a hidden directory
// (.obsidian/, .trash/, .git/), and passes over them.
func (v *Vault) skipHidden(p, rel string, d fs.DirEntry) error {
	count := func(where string, n int) {
		if v.Skipped.Hidden == nil {
			v.Skipped.Hidden = map[string]int{}
		}
		v.Skipped.Hidden[where] += n
	}
	if !d.IsDir() {
		count(".", 1)
		return nil
	}
	n, err := countFiles(p)
	if err != nil {
		return &FileError{rel, pathError(err)}
	}
	if n > 0 {
		count(filepath.ToSlash(rel), n)
	}
	return fs.SkipDir
}

// readNotes reads the .md files rels under root: memory files, and with
// a notes layer the plain notes and other programs' files as memories of
// it (else they are counted in v.Skipped).
func (v *Vault) readNotes(root *os.Root, real string, rels []string, notes memory.Layer) error {
	var total int64
	for _, rel := range rels {
		b, err := readMarkdownFile(root, real, rel)
		if err != nil {
			return &FileError{rel, err}
		}
		if total += int64(len(b)); total > MaxImport {
			return fmt.Errorf("its .md files hold over %s: import them in several parts", size(MaxImport))
		}
		switch memoryFile(b) {
		case noFront:
			if notes == 0 {
				v.Skipped.NoFrontmatter++
				continue
			}
			b = append([]byte("---\nlayer: "+notes.Letter()+"\n---\n\n"), b...)
		case otherFront:
			if notes == 0 {
				v.Skipped.NotMemory++
				continue
			}
			b = withLayer(b, notes)
		}
		if err := v.add(b, filepath.Base(real), rel); err != nil {
			return &FileError{rel, err}
		}
	}
	return nil
}

// countFiles counts the files under a directory that is passed over.
func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	return n, err
}

// What a .md file is, by its frontmatter.
type fileKind int

const (
	isMemory   fileKind = iota
	noFront             // no frontmatter: a plain note
	otherFront          // frontmatter naming no layer: another program's note
)

// memoryFile tells a memory file from other notes: its frontmatter has a
// top-level "layer" key (every memory has a layer). Only that is looked
// at, so that a memory file that is malformed is still refused.
func memoryFile(b []byte) fileKind {
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		rest, ok = bytes.CutPrefix(b, []byte("---\r\n"))
	}
	if !ok {
		return noFront
	}
	if i := bytes.Index(rest, []byte("\n---")); i >= 0 {
		rest = rest[:i+1]
	}
	for line := range bytes.Lines(rest) {
		if k, _, ok := bytes.Cut(line, []byte(":")); ok && string(bytes.TrimRight(k, " \t")) == "layer" {
			return isMemory
		}
	}
	return otherFront
}

// withLayer adds a layer line at the top of a note's frontmatter.
func withLayer(b []byte, l memory.Layer) []byte {
	nl := bytes.IndexByte(b, '\n') + 1 // the frontmatter's opening line
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:nl]...)
	out = append(out, "layer: "+l.Letter()+"\n"...)
	return append(out, b[nl:]...)
}

// readOneMarkdown reads a single memory file named on the command line.
func readOneMarkdown(path string) (*Vault, error) {
	name := filepath.Base(path)
	f, sz, err := openRegular(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, hintImportPath)
	if err != nil {
		return nil, &FileError{name, pathError(err)}
	}
	defer f.Close()
	b, err := readBounded(f, sz, MaxFile, "memory file")
	if err != nil {
		return nil, &FileError{name, err}
	}
	v := &Vault{}
	dir, _ := filepath.Abs(filepath.Dir(path))
	if err := v.add(b, filepath.Base(dir), name); err != nil {
		return nil, &FileError{name, err}
	}
	return v, nil
}

// add reads the memory file rel of the folder named vault. A note that
// cairn did not write (it has no id) is a person's: its title is its file
// name when its frontmatter gives none, its ref ("vault:<folder>/<path>")
// finds its memory again when the folder is imported again after an
// edit, and a field of it cairn does not know, or a kind, status or
// provenance cairn does not use, is kept as a tag or ignored, and
// counted.
func (v *Vault) add(b []byte, vault, rel string) error {
	d, err := ReadDoc(b, Full)
	if err != nil {
		return err
	}
	r := &d.Record
	note := r.ID == ""
	if note {
		if strings.TrimSpace(r.Title) == "" {
			r.Title = strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
		}
		if r.Ref == "" {
			r.Ref = noteRef(vault, rel)
		}
		for _, odd := range []struct {
			name string
			val  *string
			ok   bool
		}{{"kind", (*string)(&r.Kind), r.Kind == "" || r.Kind.Valid()}, {"status", (*string)(&r.Status), r.Status == "" || r.Status.Valid()},
			{"provenance", (*string)(&r.Provenance), r.Provenance == "" || r.Provenance.Valid()}} {
			if !odd.ok {
				d.Unknown = append(d.Unknown, Field{Name: odd.name, Value: *odd.val})
				*odd.val = ""
			}
		}
	}
	v.keepFields(r, d.Unknown)
	links, err := linksOf(d)
	if err != nil {
		return err
	}
	v.Records = append(v.Records, *r)
	v.Files = append(v.Files, rel)
	v.Links = append(v.Links, links)
	v.Aliases = append(v.Aliases, d.Aliases)
	return nil
}

// noteRef is the ref of a note cairn did not write: the folder's name and
// the note's path in it, which stay when the folder moves.
func noteRef(vault, rel string) string {
	ref := "vault:" + vault + "/" + filepath.ToSlash(rel)
	if len(ref) > memory.MaxRef {
		sum := sha256.Sum256([]byte(ref))
		ref = ref[:memory.MaxRef-17] + "~" + hex.EncodeToString(sum[:8])
		for !utf8.ValidString(ref) {
			ref = ref[:len(ref)-1]
		}
	}
	return ref
}

// displayFields are Obsidian's properties of how a note looks or is
// published: nothing a memory says.
var displayFields = map[string]bool{"cssclasses": true, "cssclass": true, "publish": true, "permalink": true}

// keepFields keeps the unknown fields of a note that are one short word
// (or a list of them) as tags "field/value", and counts the rest.
func (v *Vault) keepFields(r *memory.Record, fields []Field) {
	for _, f := range fields {
		if displayFields[strings.ToLower(f.Name)] {
			f.Value = nil
		}
		var vals []any
		switch x := f.Value.(type) {
		case []any:
			vals = x
		case nil:
		default:
			vals = []any{x}
		}
		var tags []string
		for _, val := range vals {
			s, ok := val.(string)
			tag := strings.ToLower(f.Name + "/" + strings.TrimPrefix(strings.TrimSpace(s), "#"))
			if !ok || !strings.ContainsFunc(s, unicode.IsLetter) || strings.ContainsAny(s, ":/") || memory.ValidTag(tag) != nil {
				tags = nil
				break
			}
			tags = append(tags, tag)
		}
		if len(tags) > 0 && len(r.Tags)+len(tags) <= memory.MaxTags {
			r.Tags = append(r.Tags, tags...)
			v.Fields.AsTags++
		} else {
			v.Fields.Ignored++
		}
		if i, found := slices.BinarySearch(v.Fields.Names, f.Name); !found {
			v.Fields.Names = slices.Insert(v.Fields.Names, i, safetext.CleanLine(f.Name))
		}
	}
}

// readMarkdownFile reads one file of an import directory.
func readMarkdownFile(root *os.Root, real, rel string) ([]byte, error) {
	li, err := root.Lstat(rel)
	if err != nil {
		return nil, pathError(err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(filepath.Join(real, rel))
		if err != nil {
			return nil, fmt.Errorf("is a symbolic link that leads nowhere (%v): remove it", pathError(err))
		}
		if !inside(real, target) {
			return nil, fmt.Errorf("is a symbolic link to %s, outside the import directory: copy the file in or remove the link", safetext.CleanLine(target))
		}
	}
	// Look before opening: some devices act when they are merely opened.
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, pathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode(), hintDirEntry)
	}
	f, sz, err := openRegular(func(flag int) (*os.File, error) { return root.OpenFile(rel, flag, 0) }, hintDirEntry)
	if err != nil {
		return nil, pathError(err)
	}
	defer f.Close()
	return readBounded(f, sz, MaxFile, "memory file")
}

// openInside opens a regular file of an import directory for reading,
// refusing what readMarkdownFile refuses (a link out, a device, a FIFO).
func openInside(root *os.Root, real, rel string) (*os.File, error) {
	li, err := root.Lstat(rel)
	if err != nil {
		return nil, pathError(err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(filepath.Join(real, rel))
		if err != nil || !inside(real, target) {
			return nil, errors.New("is a symbolic link that leads nowhere or out of the import directory: copy the file in or remove the link")
		}
	}
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, pathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode(), hintDirEntry)
	}
	f, _, err := openRegular(func(flag int) (*os.File, error) { return root.OpenFile(rel, flag, 0) }, hintDirEntry)
	if err != nil {
		return nil, pathError(err)
	}
	return f, nil
}

// inside reports whether path is dir or lies under it; both are clean,
// absolute or relative alike.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// DecodeMarkdown parses one memory file.
func DecodeMarkdown(b []byte) (memory.Record, error) {
	d, _, err := decodeMarkdown(b)
	if err != nil {
		return memory.Record{}, err
	}
	return d.Record, nil
}

// decodeMarkdown parses one memory file and lists the wiki links its
// body writes (the Links section's too, unless it says only what the
// frontmatter's edges say).
func decodeMarkdown(b []byte) (*Doc, []BodyLink, error) {
	d, err := ReadDoc(b, Full)
	if err != nil {
		return nil, nil, err
	}
	links, err := linksOf(d)
	return d, links, err
}

// linksOf checks what d holds and lists the wiki links its body writes.
func linksOf(d *Doc) ([]BodyLink, error) {
	if err := validate(d.Record); err != nil {
		return nil, err
	}
	links := BodyLinks(d.Record.Body)
	var active []memory.RecordEdge
	for _, e := range d.Record.Edges {
		if e.Active == nil || *e.Active {
			active = append(active, e)
		}
	}
	// The Links section as cairn wrote it says what the edges say (an old
	// export listed the inactive ones too); one a person has added to or
	// changed, or a team file's, is read like the body.
	if !sameKinds(d.Section, active) && !sameKinds(d.Section, d.Record.Edges) {
		for _, l := range d.Section {
			if t := linkTarget(l.Target); t != "" {
				links = append(links, BodyLink{Kind: l.Kind, Target: t})
			}
		}
	}
	return links, nil
}

// sameKinds reports whether links are one per edge, of the edges' kinds
// in their order: a Links section as cairn wrote it.
func sameKinds(links []SectionLink, edges []memory.RecordEdge) bool {
	if len(links) != len(edges) {
		return false
	}
	for i := range links {
		if links[i].Kind != edges[i].Kind {
			return false
		}
	}
	return true
}

// yamlError words a go-yaml error as one line with the file's line number.
// Its Error method prints the source around the fault, at a cost that
// grows with the square of the input, so it is called only for errors
// that are not go-yaml's own.
func yamlError(err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return fmt.Errorf("frontmatter: %s", firstLine(err.Error()))
	}
	msg := safetext.CleanLine(firstLine(ye.GetMessage()))
	if t := ye.GetToken(); t != nil && t.Position != nil {
		// Line 1 of the frontmatter is line 2 of the file.
		return fmt.Errorf("frontmatter line %d: %s", t.Position.Line+1, msg)
	}
	return fmt.Errorf("frontmatter: %s", msg)
}

// Limits on frontmatter beyond MaxFront. go-yaml has no option to limit
// alias expansion (a few hundred bytes of nested aliases expand to
// gigabytes), and its parser's cost grows with the square of the depth of
// [ ] and { } nesting and of the number of "..." document ends. cairn
// writes none of these, so they are refused before the parser sees them.
const (
	maxFlowDepth   = 4 // [{…}] needs 2
	maxFrontTokens = 1 << 15
)

// guardFront refuses frontmatter that is too big or uses anchors, aliases,
// tags, directives, document markers or deep [ ] and { } nesting. The
// lexer it runs is linear in its input.
func guardFront(head []byte) error {
	if len(head) > MaxFront {
		return fmt.Errorf("frontmatter: over %s: cairn writes far less; is this a memory file?", size(MaxFront))
	}
	toks := lexer.Tokenize(string(head))
	if len(toks) > maxFrontTokens {
		return fmt.Errorf("frontmatter: over %d YAML tokens: cairn writes far fewer; is this a memory file?", maxFrontTokens)
	}
	depth := 0
	for _, t := range toks {
		at := 0
		if t.Position != nil {
			// Line 1 of the frontmatter is line 2 of the file.
			at = t.Position.Line + 1
		}
		switch t.Type {
		case token.AnchorType, token.AliasType, token.MergeKeyType:
			return fmt.Errorf("frontmatter line %d: YAML anchors and aliases (&, *, <<) are not read: write each value out", at)
		case token.TagType:
			return fmt.Errorf("frontmatter line %d: YAML tags (%s) are not read: remove the tag", at, safetext.CleanLine(t.Value))
		case token.DirectiveType:
			return fmt.Errorf("frontmatter line %d: YAML directives (%%…) are not read: remove the line", at)
		case token.DocumentHeaderType, token.DocumentEndType:
			return fmt.Errorf("frontmatter line %d: a YAML document marker (--- or ...): frontmatter is one document, closed by a \"---\" line of its own", at)
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > maxFlowDepth {
				return fmt.Errorf("frontmatter line %d: [ ] and { } nest deeper than %d: cairn writes no such nesting", at, maxFlowDepth)
			}
		case token.SequenceEndType, token.MappingEndType:
			depth = max(depth-1, 0)
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
