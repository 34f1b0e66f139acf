package exchange

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
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
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Hints for notRegular: what to do about the path named on the command
// line, and about a file found in an import directory.
const (
	hintImportPath = "import a .jsonl file or a directory of .md files"
	hintDirEntry   = "remove it from the directory"
)

// notRegular says what a file is when it is not a regular file, so that
// the refusal names it: reading a device never ends, opening a FIFO waits
// for a writer, and some devices act when they are opened.
func notRegular(mode fs.FileMode, hint string) error {
	what := "not a regular file"
	switch {
	case mode.IsDir():
		what = "a directory"
	case mode&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("is %s, not a regular file: %s", what, hint)
}

// openRegular opens a file for reading only if it is a regular file. The
// caller has already looked (stat) so that a device is never opened; this
// open is non-blocking so that a FIFO swapped in since cannot hang it, and
// the fstat after it refuses whatever was swapped in.
func openRegular(open func(flag int) (*os.File, error), hint string) (*os.File, int64, error) {
	f, err := open(os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, notRegular(fi.Mode(), hint)
	}
	return f, fi.Size(), nil
}

// readBounded reads all of f, refusing it when it holds more than limit
// bytes (also when it grew since it was measured).
func readBounded(f *os.File, sz, limit int64, what string) ([]byte, error) {
	if sz > limit {
		return nil, fmt.Errorf("is %d bytes, over the %s a %s may hold: is it a cairn export?", sz, size(limit), what)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("is over the %s a %s may hold: is it a cairn export?", size(limit), what)
	}
	return b, nil
}

// pathError drops the operation and path from an *fs.PathError: the caller
// names the file itself.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
