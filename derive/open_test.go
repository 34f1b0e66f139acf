package derive

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The facts are read from regular files inside the root only: a manifest
// that is a link to /dev/zero or out of the root, a FIFO or a file over
// the limit is not read (no hang, no unbounded read) and gets a note; a
// link to a file inside the root is read.
func TestProjectFactsReadOnlyRegularFilesInside(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "Cargo.toml"), []byte("[package]\nname = \"stolen\"\n"), 0o644)
	os.WriteFile(filepath.Join(root, "real.mod"), []byte("module example.com/kites\n"), 0o644)
	for link, target := range map[string]string{
		"go.mod":     "real.mod", // inside: read
		"Makefile":   "/dev/zero",
		"Cargo.toml": filepath.Join(outside, "Cargo.toml"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "package.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	big, _ := os.Create(filepath.Join(root, "pyproject.toml"))
	big.Truncate(factsLimit + 1)
	big.Close()

	f, notes := projectFacts(root, nil)
	if f.Module != "example.com/kites" || f.Name == "stolen" {
		t.Fatalf("facts %+v", f)
	}
	got := strings.Join(notes, "\n")
	for _, want := range []string{
		"Makefile is a link out of the repository: not read",
		"Cargo.toml is a link out of the repository: not read",
		"package.json is not a regular file (a FIFO, a device or a socket): not read",
		"pyproject.toml is over 4 MiB: not read",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
}

// A section's doc is redacted before it is cut: a private key across the
// cut leaves nothing of itself behind.
func TestSectionRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	key := "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
	prose := strings.Repeat("word ", (DocLimit-300)/5)
	src := "# Keys\n\n" + prose + "\n\n```\n-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat(key+"\n", 12) + "-----END RSA PRIVATE KEY-----\n```\n"
	f := File{Path: "keys.md"}
	extractFile(&f, []byte(src))
	if len(f.Sections) != 1 {
		t.Fatalf("sections %+v", f.Sections)
	}
	if doc := f.Sections[0].Doc; strings.Contains(doc, key[:12]) || !strings.Contains(doc, "[redacted:") {
		t.Fatalf("doc %q", doc)
	}
}
