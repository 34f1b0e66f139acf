package exchange

import (
	"io/fs"
	"os"

	"cairn/internal/safefile"
)

// Limits on what an import reads. Each is far above anything cairn writes
// (a body is at most memory.MaxBody), so they only stop input that is not
// an export: /dev/zero behind a link, a generated file, a decompression of
// the wrong thing.
const (
	// MaxLine bounds one JSON Lines record.
	MaxLine = 16 << 20
	// MaxFile bounds one markdown memory file.
	MaxFile = 4 << 20
	// MaxFront bounds the YAML frontmatter of one markdown file. The YAML
	// parser's cost grows faster than its input, so this is kept small.
	MaxFront = 256 << 10
	// MaxImport bounds all the bytes one import reads.
	MaxImport = 1 << 30
)

// size renders a limit for a person ("16 MiB").
func size(n int64) string { return safefile.Size(n) }

// Hints for notRegular: what to do about the path named on the command
// line, and about a file found in an import directory.
const (
	hintImportPath = "import a .jsonl file or a directory of .md files"
	hintDirEntry   = "remove it from the directory"
)

// notRegular, openRegular and readBounded are safefile's, which the team
// mirror's reader shares: see there.
func notRegular(mode fs.FileMode, hint string) error { return safefile.NotRegular(mode, hint) }

func openRegular(open func(flag int) (*os.File, error), hint string) (*os.File, int64, error) {
	return safefile.OpenRegular(open, hint)
}

func readBounded(f *os.File, sz, limit int64, what string) ([]byte, error) {
	return safefile.ReadBounded(f, sz, limit, what, "is it a cairn export?")
}

// pathError drops the operation and path from an *fs.PathError: the caller
// names the file itself.
func pathError(err error) error { return safefile.PathError(err) }
