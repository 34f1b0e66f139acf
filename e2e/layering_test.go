package e2e

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayering keeps the house reading top-down: the domain (memory) holds
// the store's contract, the store implements it over Badger, and the
// services and interfaces above it see only the contract. A package here
// that links Badger or the store has reached past the contract.
func TestLayering(t *testing.T) {
	t.Parallel()
	above := []string{"cairn/ui", "cairn/trust", "cairn/recall", "cairn/mcpserver",
		"cairn/consolidate", "cairn/ingest", "cairn/exchange", "cairn/derive", "cairn/mirror", "cairn/memory"}
	out, err := exec.Command("go", append([]string{"list", "-deps", "-f",
		`{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, above...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		if !slices.Contains(above, pkg) {
			continue
		}
		for _, d := range strings.Fields(deps) {
			if d == "cairn/store" || strings.HasPrefix(d, "github.com/dgraph-io/badger") {
				t.Errorf("%s links %s: it should see the store only through memory.Store", pkg, d)
			}
		}
	}
}
