package recall

import (
	"testing"
	"time"
)

// The times a query names, and which memory times fall in them.
func TestQuerySpans(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q       string
		in, out []time.Time
	}{
		{"What did Gina get accepted for on May 23, 2023?", []time.Time{day(2023, 5, 23), day(2023, 5, 27)}, []time.Time{day(2023, 5, 22), day(2023, 6, 5), day(2024, 5, 23)}},
		{"What painting did she show on 13 October, 2023", []time.Time{day(2023, 10, 13)}, []time.Time{day(2022, 10, 13), day(2023, 10, 1)}},
		{"When did Melanie go camping in June?", []time.Time{day(2023, 6, 27), day(2019, 6, 1)}, []time.Time{day(2023, 7, 1)}},
		{"what happened in May", []time.Time{day(2023, 5, 2)}, []time.Time{day(2023, 4, 30)}},
		{"setbacks in October 2023", []time.Time{day(2023, 10, 31)}, []time.Time{day(2023, 11, 1), day(2022, 10, 5)}},
		{"releases in 2024", []time.Time{day(2024, 1, 1), day(2024, 12, 31)}, []time.Time{day(2023, 12, 31)}},
		{"the deploy of 2026-03-02", []time.Time{day(2026, 3, 2)}, []time.Time{day(2026, 3, 1)}},
		{"what did we fix yesterday", []time.Time{day(2026, 3, 9)}, []time.Time{day(2026, 3, 10), day(2026, 3, 8)}},
		{"decisions of last week", []time.Time{day(2026, 3, 4), day(2026, 3, 10)}, []time.Time{day(2026, 3, 2)}},
		{"timestamp of the event", []time.Time{}, []time.Time{}},
		{"the outage on December 30", []time.Time{day(2024, 12, 30), day(2025, 1, 3)}, []time.Time{day(2025, 1, 8), day(2024, 12, 29)}},
		{"in February", []time.Time{day(2024, 2, 29), day(2023, 2, 1)}, []time.Time{day(2024, 3, 2), day(2024, 1, 31)}},
	} {
		spans, _ := querySpans(c.q, now)
		for _, tm := range c.in {
			if !inSpans(spans, tm) {
				t.Errorf("%q: %s should fall in %+v", c.q, tm.Format(time.DateOnly), spans)
			}
		}
		for _, tm := range c.out {
			if inSpans(spans, tm) {
				t.Errorf("%q: %s should not fall in %+v", c.q, tm.Format(time.DateOnly), spans)
			}
		}
	}
	// "may" the verb names no time; a bare number is not a year.
	for _, q := range []string{"may I restart the server", "we may need 2000 workers", "port 8080 in the config"} {
		if spans, rest := querySpans(q, now); len(spans) != 0 || rest != q {
			t.Errorf("%q names no time, read %+v", q, spans)
		}
	}
}

// BenchmarkQuerySpans: reading the times of a query, which every recall does.
func BenchmarkQuerySpans(b *testing.B) {
	now := time.Now()
	qs := []string{"how do deploys reach the cluster?", "What did Gina get accepted for on May 23, 2023?", "retry policy of the importer"}
	i := 0
	for b.Loop() {
		querySpans(qs[i%len(qs)], now)
		i++
	}
}
