package memory

import (
	"strings"
	"testing"
)

// The examples of issue 13, and what a person relies on: words by their
// stems and whole, globs on paths, regular expressions between slashes.
func TestTriggersArePatterns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, trigger string
		fires         bool
	}{
		{"we are migrating the users table", "migration", true},
		{"run the migrations", "migration", true},
		{"drain the spool directory", "pool", false},
		{"the connection pool is exhausted", "pool", true},
		{"edit schema.sql to add the index", "*.sql", true},
		{"edit db/migrations/0003_ledger.sql", "*.sql", true},
		{"edit `db/schema.sql`, then run it", "db/*.sql", true},
		{"edit schema.go", "*.sql", false},
		{"call v2.charge on retry", "/v[12]\\.charge/", true},
		{"call v3.charge", "/v[12]\\.charge/", false},
		{"add a retry around the Payments API call", "payments api", true},
		{"the api for payments", "payments api", false},
		{"ROLLBACK the deploy", "rollback", true},
		{"", "anything", false},
		{"anything at all", "   ", false},
	} {
		got := Triggered(c.text, []string{c.trigger}) != ""
		if got != c.fires {
			t.Errorf("%q on %q: fired %v, want %v", c.trigger, c.text, got, c.fires)
		}
	}
	if got := Triggered("please run the migrations now", []string{"deploy", "Migration"}); got != "Migration" {
		t.Errorf("the trigger that fired, as written: %q", got)
	}
	prepared := PrepareTriggerText("rename the logger in *.go files")
	if prepared.Match([]string{"logger"}) == "" || prepared.Match([]string{"loggers"}) == "" {
		t.Error("a prepared text matches many triggers (logger and loggers share a stem)")
	}
}

func TestTriggersAreCheckedWhenWritten(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"/v[12/", "two\nlines", strings.Repeat("x", MaxTrigger+1)} {
		if ValidTrigger(bad) == nil {
			t.Errorf("%q was taken", bad)
		}
		m := &Memory{Project: "p", Layer: LayerNegative, Title: "t", Body: "t", Triggers: []string{bad}}
		if m.Validate() == nil {
			t.Errorf("a memory with trigger %q validated", bad)
		}
	}
	for _, ok := range []string{"/v[12]\\.charge/", "*.sql", "payments api", "go test ./..."} {
		if err := ValidTrigger(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
