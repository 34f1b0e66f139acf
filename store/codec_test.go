package store

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"cairn/memory"
)

func genMemory() *rapid.Generator[*memory.Memory] {
	return rapid.Custom(func(t *rapid.T) *memory.Memory {
		tm := func(label string) time.Time {
			return time.Unix(rapid.Int64Range(0, 4e9).Draw(t, label), rapid.Int64Range(0, 999999999).Draw(t, label+"ns")).UTC()
		}
		m := &memory.Memory{
			ID:         rapid.StringMatching(`[0-9A-HJKMNP-TV-Z]{26}`).Draw(t, "id"),
			Ref:        rapid.String().Draw(t, "ref"),
			Project:    rapid.StringMatching(`[0-9a-f]{16}`).Draw(t, "project"),
			Layer:      rapid.SampledFrom(memory.Layers).Draw(t, "layer"),
			Kind:       rapid.SampledFrom(memory.Kinds).Draw(t, "kind"),
			Title:      rapid.String().Draw(t, "title"),
			Body:       rapid.String().Draw(t, "body"),
			Tags:       rapid.SliceOfN(rapid.StringMatching(`[a-z0-9_-]{1,12}`), 0, 5).Draw(t, "tags"),
			Provenance: rapid.SampledFrom(memory.Provenances).Draw(t, "prov"),
			Confidence: rapid.Float64Range(0, 1).Draw(t, "conf"),
			Source:     memory.Source{Actor: rapid.SampledFrom([]memory.Actor{"", memory.ActorUser, memory.ActorAgent}).Draw(t, "actor"), Line: rapid.IntRange(0, 1000).Draw(t, "line")},
			CreatedAt:  tm("created"), UpdatedAt: tm("updated"), ValidFrom: tm("from"),
			Status:   rapid.SampledFrom(memory.Statuses).Draw(t, "status"),
			Triggers: rapid.SliceOfN(rapid.String(), 0, 3).Draw(t, "triggers"),
			Version:  rapid.IntRange(1, 1000).Draw(t, "version"),
		}
		if rapid.Bool().Draw(t, "until") {
			m.ValidUntil = tm("until")
		}
		if rapid.Bool().Draw(t, "sup") {
			m.Supersedes = []string{rapid.StringMatching(`[0-9A-Z]{26}`).Draw(t, "supersedes")}
			m.SupersededBy = rapid.StringMatching(`[0-9A-Z]{26}`).Draw(t, "supby")
		}
		for range rapid.IntRange(0, 3).Draw(t, "nwm") {
			m.Watermarks = append(m.Watermarks, memory.Watermark{
				Kind:   rapid.SampledFrom([]memory.WatermarkKind{memory.WatermarkFile, memory.WatermarkGit, memory.WatermarkFlag}).Draw(t, "wk"),
				Target: rapid.String().Draw(t, "wt"), Fingerprint: rapid.String().Draw(t, "wf"),
				State: memory.WatermarkUnchecked,
			})
		}
		if len(m.Tags) == 0 {
			m.Tags = nil
		}
		if len(m.Triggers) == 0 {
			m.Triggers = nil
		}
		m.Salience.AccessCount = rapid.IntRange(0, 100).Draw(t, "ac")
		return m
	})
}

func TestCodecRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := genMemory().Draw(t, "m")
		b, err := EncodeMemory(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMemory([]byte("mem/x"), b)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := EncodeMemory(got)
		if string(b) != string(b2) || !got.CreatedAt.Equal(m.CreatedAt) || got.Body != m.Body || got.Title != m.Title {
			t.Fatalf("round trip differs:\n%s\n%s", b, b2)
		}
	})
}

func FuzzDecodeMemory(f *testing.F) {
	m := &memory.Memory{ID: "01JD0000000000000000000AAA", Layer: 'A', Kind: "fact", Body: "x", Status: "active", Version: 1}
	b, _ := EncodeMemory(m)
	f.Add(b)
	f.Add([]byte{formatJSON, '{', '}'})
	f.Add([]byte{formatForgotten})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeMemory([]byte("mem/fuzz"), data)
		if err != nil {
			return
		}
		again, err := EncodeMemory(got)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		if _, err := DecodeMemory([]byte("mem/fuzz"), again); err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
	})
}
