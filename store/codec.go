package store

import (
	"encoding/json"
	"fmt"

	"cairn/memory"
)

// formatJSON marks a value as JSON. New formats get new bytes; old ones keep decoding.
const formatJSON byte = 1

func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte{formatJSON}, b...), nil
}

func decode(key, val []byte, v any) error {
	if len(val) == 0 {
		return fmt.Errorf("decode %q: empty value", key)
	}
	if val[0] != formatJSON {
		return fmt.Errorf("decode %q: unknown format byte %#x", key, val[0])
	}
	if err := json.Unmarshal(val[1:], v); err != nil {
		return fmt.Errorf("decode %q: %w", key, err)
	}
	return nil
}

// EncodeMemory and DecodeMemory are the record codec, exported for tests and fuzzing.
func EncodeMemory(m *memory.Memory) ([]byte, error) { return encode(m) }

// DecodeMemory decodes a value written by EncodeMemory; key only names errors.
func DecodeMemory(key, val []byte) (*memory.Memory, error) {
	var m memory.Memory
	if err := decode(key, val, &m); err != nil {
		return nil, err
	}
	if m.ID == "" || !m.Layer.Valid() {
		return nil, fmt.Errorf("decode %q: not a memory record (no id or layer)", key)
	}
	return &m, nil
}

func contentHash(m *memory.Memory) string { return memory.ContentHash(m) }
