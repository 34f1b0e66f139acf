package claims

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSubjectKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"p99 latency is 41 ms", "latenc p99"},
		{"The API listens on port 8080.", "api listen port"},
		{"Deploys go through ArgoCD.", "deploy go"},
		{"Deploys go through Spinnaker, not ArgoCD.", "deploy go"},
		{"deploys go through spinnaker, not argocd", "deploy go"},
		{"The cache is disabled in prod.", "cach enabl prod"},
		{"The cache is not enabled in prod.", "cach enabl prod"},
		{"We are on Go 1.22.", "go"},
		{"The config lives in `config/app.yaml`.", "config live"},
		{"The Billing service listens on port 8080.", "bill listen port servic"},
		{"it is 5", ""},
		{"", ""},
		{"```\ncode only\n```", ""},
	} {
		if got := SubjectKey(c.text); got != c.want {
			t.Errorf("SubjectKey(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestParseQuantity(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Quantity
		ok   bool
	}{
		{"41", Quantity{Value: 41}, true},
		{"-3", Quantity{Value: -3}, true},
		{"+229%", Quantity{Value: 229, Dim: "percent", Unit: "%"}, true},
		{"1,000", Quantity{Value: 1000}, true},
		{"0.75", Quantity{Value: 0.75}, true},
		{"5k", Quantity{Value: 5000}, true},
		{"41ms", Quantity{Value: 0.041, Dim: "time", Unit: "ms"}, true},
		{"2GB", Quantity{Value: 2e9, Dim: "size", Unit: "gb"}, true},
		{"3x", Quantity{Value: 3, Dim: "times", Unit: "x"}, true},
		{"p99", Quantity{}, false},
		{"arm64", Quantity{}, false},
		{"12abc", Quantity{}, false},
		{"1,00", Quantity{}, false},
		{"", Quantity{}, false},
		{"-", Quantity{}, false},
		{"1.", Quantity{}, false},
	} {
		got, ok := ParseQuantity(c.in)
		if ok != c.ok || ok && (got.Dim != c.want.Dim || got.Unit != c.want.Unit || absDiff(got.Value, c.want.Value) > 1e-9) {
			t.Errorf("ParseQuantity(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func absDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"v0.6.1", "0.6.1", true},
		{"1.22", "1.22", true},
		{"1.22.0", "1.22", true},
		{"v1.22.0", "1.22", true},
		{"v2", "2", true},
		{"1.2.3-rc1", "1.2.3-rc1", true},
		{"v2.0.0+build7", "2.0", true},
		{"20", "", false},
		{"v", "", false},
		{"1.x", "", false},
		{"version", "", false},
		{"1.2.3-RC_1", "", false},
	} {
		got, ok := ParseVersion(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParsePort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"8080", 8080, true}, {"1", 1, true}, {"65535", 65535, true}, {"0", 0, false}, {"65536", 0, false}, {"80a", 0, false}, {"", 0, false}, {"123456", 0, false}} {
		got, ok := ParsePort(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParsePort(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestLooksLikePath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"config/app.yaml", true}, {"app.toml", true}, {"go.mod", true}, {"/etc/hosts", true}, {"./run.sh", true},
		{"~/notes", true}, {"deploy/", true}, {"a/b/c", true}, {".env", true}, {"README.md", true},
		{"read/write", false}, {"CI/CD", false}, {"e.g", false}, {"v1.2", false}, {"1.5", false},
		{"https://example.com/a.go", false}, {"example.com", false}, {"/", false}, {"", false},
	} {
		if got := LooksLikePath(c.in); got != c.want {
			t.Errorf("LooksLikePath(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzClaims: whatever two texts say, reading and comparing them never
// panics; a subject key is a sorted set of words; a text never conflicts
// with itself; a conflict has a how, and only texts whose keys meet can be
// in conflict (the contract the planner's buckets rely on).
func FuzzClaims(f *testing.F) {
	for _, c := range [][2]string{
		{"The API listens on port 8080.", "The API listens on port 9090."},
		{"Deploys go through ArgoCD.", "Deploys go through Spinnaker, not ArgoCD."},
		{"The cache is enabled in prod.", "The cache is disabled in prod."},
		{"We are on Go 1.22.", "We are on Go 1.23 now."},
		{"p99 latency is 41 ms", "p99 latency is 2.5s"},
		{"The config lives in `config/app.yaml`.", "The config lives in `conf/app.toml`."},
		{"`unclosed \"quote “ and 1,000,000 ms, not", "no longer not never n't ’s"},
		{"”", "?+"},
		{"X, not", "not Y but"},
		{"v2.0.0+build7 on 127.0.0.1:8080 at 10:30 since 2024-01-02", "80x24, e.g. 5k rps or 2GB; abc1234def"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		k := SubjectKey(a)
		ws := strings.Fields(k)
		if strings.Join(ws, " ") != k || !slices.IsSorted(ws) || len(slices.Compact(slices.Clone(ws))) != len(ws) {
			t.Fatalf("SubjectKey(%q) = %q: not a sorted set of words", a, k)
		}
		if c, ok := Compare(a, a, false); ok {
			t.Fatalf("%q conflicts with itself: %+v", a, c)
		}
		for _, event := range []bool{false, true} {
			c, ok := Compare(a, b, event)
			if !ok {
				continue
			}
			if c.How == "" {
				t.Fatalf("a conflict without a how: %+v", c)
			}
			if event && c.How != "number" {
				t.Fatalf("two events in conflict other than by a measurement: %+v", c)
			}
			if !KeysMeet(SubjectKey(a), SubjectKey(b)) {
				t.Fatalf("%q / %q conflict (%+v) but their keys never meet", a, b, c)
			}
		}
		Corrected(a, b)
		for _, w := range strings.Fields(a) {
			if q, ok := ParseQuantity(w); ok && q.Unit != "" && q.Dim == "" {
				t.Fatalf("ParseQuantity(%q) = %+v: a unit without its dimension", w, q)
			}
			if v, ok := ParseVersion(w); ok && (v == "" || strings.HasPrefix(v, "v")) {
				t.Fatalf("ParseVersion(%q) = %q: not a version's key", w, v)
			}
			if p, ok := ParsePort(w); ok && (p < 1 || p > 65535) {
				t.Fatalf("ParsePort(%q) = %d: no port", w, p)
			}
			_ = LooksLikePath(w) // never panics
		}
	})
}
