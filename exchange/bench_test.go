package exchange

import (
	"os"
	"testing"

	"cairn/memory"
)

// benchRecords reads the first n records of the 100,000-memory corpus,
// when it is there.
func benchRecords(b *testing.B, n int) []memory.Record {
	f, err := os.Open("/tmp/100k.jsonl")
	if err != nil {
		b.Skip("no /tmp/100k.jsonl")
	}
	defer f.Close()
	recs, err := NewJSONLReader(f).Next(n)
	if err != nil {
		b.Fatal(err)
	}
	for i := range recs {
		recs[i].ID = memory.NewID()
	}
	return recs
}

// BenchmarkWriteMarkdown10k writes 10,000 memories as a markdown
// directory, then writes them again unchanged (which writes no file).
func BenchmarkWriteMarkdown10k(b *testing.B) {
	recs := benchRecords(b, 10000)
	for b.Loop() {
		dir := b.TempDir()
		if err := WriteMarkdown(dir, recs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRewriteMarkdown10k(b *testing.B) {
	recs := benchRecords(b, 10000)
	dir := b.TempDir()
	if err := WriteMarkdown(dir, recs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := WriteMarkdown(dir, recs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeMarkdown(b *testing.B) {
	recs := benchRecords(b, 1000)
	for b.Loop() {
		for _, r := range recs {
			if _, err := EncodeMarkdown(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
