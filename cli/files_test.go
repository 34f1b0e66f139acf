package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/memory"
)

// seedStore builds a project with every feature an export must carry:
// layers, a supersession, an archived memory, edges, refs, tags, triggers.
func seedStore(t *testing.T, e *env) {
	t.Helper()
	os.MkdirAll(filepath.Join(e.wd, "bench"), 0o755)
	os.WriteFile(filepath.Join(e.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
	a := e.rec("remember", "+229 % decode speed", "--tag", "bench", "--ref", "bench-1", "--bind", "file:bench/decode.txt")
	e.rec("supersede", a.ID, "+31 % decode speed\n\n```\nmake bench\n```\n")
	d := e.rec("remember", "Parked MTP: net-negative on MoE", "-l", "D", "--provenance", "measured")
	b := e.rec("remember", "bench #41 showed -4 %", "-l", "C")
	e.ok("link", d.ID, "because", b.ID, "--weight", "0.8")
	n := e.rec("remember", "VGPR-256 starved occupancy: don't", "-l", "E", "--trigger", "VGPR", "--trigger", "occupancy")
	e.ok("archive", n.ID)
	e.ok("remember", "cited a number without checking provenance → check it", "-l", "F", "--title", "check provenance: on: cited numbers")
}

func exportAll(t *testing.T, e *env) []memory.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "all.jsonl")
	e.ok("export", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []memory.Record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r memory.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		r.Project, r.Trust = "", 0
		recs = append(recs, r)
	}
	return recs
}

func TestExportImportRoundTrip(t *testing.T) {
	for _, format := range []string{"jsonl", "md"} {
		t.Run(format, func(t *testing.T) {
			src := newEnv(t)
			seedStore(t, src)
			path := filepath.Join(t.TempDir(), "out."+format)
			if format == "md" {
				path = filepath.Join(t.TempDir(), "notes")
			}
			src.ok("export", path)

			dst := newEnv(t)
			// The same tree beside it, so that the bound file is as it was.
			os.MkdirAll(filepath.Join(dst.wd, "bench"), 0o755)
			os.WriteFile(filepath.Join(dst.wd, "bench", "decode.txt"), []byte("+229 %\n"), 0o644)
			r := dst.run("", "import", path, "--json")
			if r.code != 0 {
				t.Fatalf("import: %s", r.err)
			}
			want, got := exportAll(t, src), exportAll(t, dst)
			wb, _ := json.Marshal(want)
			gb, _ := json.Marshal(got)
			if string(wb) != string(gb) {
				t.Fatalf("round trip differs:\nwant %s\n got %s", wb, gb)
			}
			// Idempotent: the same file again changes nothing.
			before := dst.ok("timeline", "--json")
			var res struct{ Added, Updated, Unchanged int }
			json.Unmarshal([]byte(dst.ok("import", path, "--json")), &res)
			if res.Added != 0 || res.Updated != 0 || res.Unchanged != len(want) {
				t.Fatalf("second import: %+v", res)
			}
			if dst.ok("timeline", "--json") != before {
				t.Fatalf("second import wrote events")
			}
		})
	}
}

func TestImportRefusesBadLinesAndChangesNothing(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"unknown field", `{"layer":"A","body":"ok"}` + "\n" + `{"layr":"A","body":"x"}`, "line 2"},
		{"bad layer", `{"layer":"A","body":"ok"}` + "\n\n" + `{"layer":"Q","body":"x"}`, "line 3"},
		{"malformed", `{"layer":"A","body":"ok"}` + "\n" + `{"layer":`, "line 2"},
		{"secret", `{"layer":"A","body":"ok"}` + "\n" + `{"layer":"A","body":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"}`, "line 2"},
		{"dangling link", `{"layer":"A","body":"ok","edges":[{"kind":"because","to":"01JD0000000000000000000ZZZ"}]}`, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.ok("remember", "already here")
			path := filepath.Join(t.TempDir(), "in.jsonl")
			os.WriteFile(path, []byte(c.content), 0o644)
			r := e.run("", "import", path)
			if r.code != 1 || !strings.Contains(r.err, c.want) || !strings.Contains(r.err, "nothing was imported") {
				t.Fatalf("import: %+v", r)
			}
			if rs := e.list("--status", "all"); len(rs) != 1 {
				t.Fatalf("store changed: %d", len(rs))
			}
		})
	}
}
