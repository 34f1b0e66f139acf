package store

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// Vectors returns the cached vectors of content hashes for an embedder
// (those it has; see PutVectors).
func (db *DB) Vectors(ctx context.Context, embedder string, hashes []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	err := db.view(func(txn *badger.Txn) error {
		for _, h := range hashes {
			item, err := txn.Get(KeyVector(h, embedder))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := item.Value(func(v []byte) error {
				if len(v) < 1 || v[0] != formatVector || (len(v)-1)%4 != 0 {
					return nil // not a vector this version wrote: embed again
				}
				vec := make([]float32, (len(v)-1)/4)
				for i := range vec {
					vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(v[1+4*i:]))
				}
				out[h] = vec
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// formatVector marks a cached vector: little-endian float32s.
const formatVector byte = 'v'

// PutVectors caches vectors of content hashes for an embedder, so that a
// server start embeds only what is new. A forget drops the vector of the
// memory's content with it (prefixVectors).
func (db *DB) PutVectors(ctx context.Context, embedder string, vecs map[string][]float32) error {
	hashes := make([]string, 0, len(vecs))
	for h := range vecs {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	for len(hashes) > 0 {
		batch := hashes[:min(len(hashes), 500)]
		hashes = hashes[len(batch):]
		err := db.update(ctx, func(txn *badger.Txn) error {
			for _, h := range batch {
				v := vecs[h]
				b := make([]byte, 1+4*len(v))
				b[0] = formatVector
				for i, x := range v {
					binary.LittleEndian.PutUint32(b[1+4*i:], math.Float32bits(x))
				}
				if err := txn.Set(KeyVector(h, embedder), b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
