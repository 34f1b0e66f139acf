package memory

import (
	"strings"
	"testing"
)

func TestFilesAndMatchPath(t *testing.T) {
	t.Parallel()
	m := &Memory{Title: "Never edit schema.sql by hand", Body: "See `store/import.go:41`, cmd/ and https://example.com/a.go; and/or not a path.",
		Watermarks: []Watermark{{Kind: WatermarkFile, Target: "./internal/cache/lru.go"}, {Kind: WatermarkFlag, Target: "X.go"}}}
	got := strings.Join(Files(m), ",")
	if got != "internal/cache/lru.go,schema.sql,store/import.go,cmd/" {
		t.Fatalf("files: %s", got)
	}
	files := Files(m)
	for _, c := range []struct{ pattern, want string }{
		{"store/import.go", "store/import.go"},
		{"import.go", "store/import.go"},
		{"db/schema.sql", "schema.sql"},
		{"store/", "store/import.go"},
		{"store", "store/import.go"},
		{"*.sql", "schema.sql"},
		{"internal/**/*.go", "internal/cache/lru.go"},
		{"**/lru.go", "internal/cache/lru.go"},
		{"cmd/server/main.go", ""},
		{"*.py", ""},
		{"stor", ""},
		{"sto*/import.go", "store/import.go"},
	} {
		if got := MatchPath(c.pattern, files); got != c.want {
			t.Errorf("MatchPath(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
	if ValidPathPattern("st[ore") == nil || ValidPathPattern("store/*.go") != nil {
		t.Error("pattern validation")
	}
}
