package memory

import (
	"strings"
	"testing"
)

func TestShortIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ids  []string
		want []string
	}{
		{[]string{"01JD7K3M9XQAAAAAAAAAAAAAAA"}, []string{"01JD7K3M"}},
		{[]string{"01JD7K3M9XQAAAAAAAAAAAAAAA", "01JD7K3M9XRBBBBBBBBBBBBBBB"}, []string{"01JD7K3M9XQ", "01JD7K3M9XR"}},
		// The neighbour sharing most decides: the first shares 5 with the
		// second, the second 10 with the third.
		{[]string{"01JD7AAAAAAAAAAAAAAAAAAAAA", "01JD7K3M9XQAAAAAAAAAAAAAAA", "01JD7K3M9XRBBBBBBBBBBBBBBB"}, []string{"01JD7AAA", "01JD7K3M9XQ", "01JD7K3M9XR"}},
		// Repeats are one id; an id that prefixes another is shown whole.
		{[]string{"01JDABCDEF", "01JDABCDEF", "01JDABCDEFG"}, []string{"01JDABCDEF", "01JDABCDEF", "01JDABCDEFG"}},
	} {
		got := ShortIDs(tc.ids)
		for i, id := range tc.ids {
			if got[id] != tc.want[i] {
				t.Errorf("ShortIDs(%v)[%s] = %q, want %q", tc.ids, id, got[id], tc.want[i])
			}
		}
	}
}

// Every short id names exactly its own id among the set.
func FuzzShortIDs(f *testing.F) {
	f.Add("01JD7K3M9XQAAAA 01JD7K3M9XRBBBB 01JD7 01JE")
	f.Fuzz(func(t *testing.T, s string) {
		ids := strings.Fields(s)
		short := ShortIDs(ids)
		for _, id := range ids {
			p := short[id]
			if !strings.HasPrefix(id, p) || (len(p) < ShownPrefix && p != id) {
				t.Fatalf("%q → %q", id, p)
			}
			for _, other := range ids {
				if other != id && strings.HasPrefix(other, p) && len(p) < len(id) {
					t.Fatalf("%q → %q also names %q", id, p, other)
				}
			}
		}
	})
}
