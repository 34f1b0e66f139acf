package store

import (
	"testing"

	"cairn/memory"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		memory.NewID():               true,
		"01KJJ3P3X0MACX2QACHP7G8VND": true,
		"01KJJ3P3X0MACX2QACHP7G8VNU": false, // U is not Crockford's
		"01KJJ3P3X0MACX2QACHP7G8VNI": false,
		"01KJJ3P3X0MACX2QACHP7G8VNO": false,
		"01KJJ3P3X0MACX2QACHP7G8VNL": false,
		"01kjj3p3x0macx2qachp7g8vnd": false, // cairn writes upper case
		"81KJJ3P3X0MACX2QACHP7G8VND": false, // past the ULID's range
		"01KJJ3P3X0MACX2QACHP7G8VN":  false,
		"":                           false,
	} {
		if got := validID(id); got != want {
			t.Errorf("validID(%q) = %v, want %v", id, got, want)
		}
	}
}
