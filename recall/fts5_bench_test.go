//go:build fts5bench

// The SQLite FTS5 comparison lives behind a build tag so that the ordinary
// test run does not compile SQLite: go test -tags fts5bench -run '^$' -bench FTS5 ./recall/
package recall

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// BenchmarkLexicalCairn100k is cairn's lexical index alone: top 10 by BM25.
func BenchmarkLexicalCairn100k(b *testing.B) {
	s := setup(b, 100_000)
	qs := genQueries(500)
	all := func(int32) bool { return true }
	i := 0
	for b.Loop() {
		s.e.mu.RLock()
		s.e.lex.search(Tokens(qs[i%len(qs)]), 10, all)
		s.e.mu.RUnlock()
		i++
	}
}

// BenchmarkLexicalFTS5100k is SQLite FTS5 (porter tokenizer) on the same
// corpus and queries: top 10 by its bm25().
func BenchmarkLexicalFTS5100k(b *testing.B) {
	db, err := sql.Open("sqlite", "file:"+b.TempDir()+"/fts.db")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE m USING fts5(title, body, tokenize='porter unicode61')`); err != nil {
		b.Fatal(err)
	}
	tx, _ := db.Begin()
	st, _ := tx.Prepare(`INSERT INTO m(title, body) VALUES(?, ?)`)
	for _, r := range genRecords(100_000, 1) {
		if _, err := st.Exec(r.Title, r.Body); err != nil {
			b.Fatal(err)
		}
	}
	tx.Commit()
	q, err := db.Prepare(`SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT 10`)
	if err != nil {
		b.Fatal(err)
	}
	qs := genQueries(500)
	i := 0
	for b.Loop() {
		var terms []string
		for _, w := range strings.Fields(qs[i%len(qs)]) {
			terms = append(terms, fmt.Sprintf("%q", w))
		}
		rows, err := q.Query(strings.Join(terms, " OR "))
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		i++
	}
}
