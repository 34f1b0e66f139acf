package store

import (
	"context"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"

	"cairn/memory"
)

// Subscribe streams every event written to any project's timeline from now
// on, until ctx ends or the store closes (then the channel closes). Every
// mutation writes an event, so this is how an open workbench learns of
// other processes' writes. A consumer that falls far behind loses events
// rather than stalling writers; it should reload on the next one.
func (db *DB) Subscribe(ctx context.Context) (<-chan memory.Event, error) {
	release, err := db.enter()
	if err != nil {
		return nil, err
	}
	defer release()
	ch := make(chan memory.Event, 256)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-db.stop:
		case <-ctx.Done():
		}
		cancel()
	}()
	go func() {
		defer close(ch)
		_ = db.bdb.Subscribe(ctx, func(kvs *badger.KVList) error {
			for _, kv := range kvs.Kv {
				var e memory.Event
				if decode(kv.Key, kv.Value, &e) != nil {
					continue
				}
				select {
				case ch <- e:
				default: // the consumer is behind; it reloads on the next event
				}
			}
			return nil
		}, []pb.Match{{Prefix: []byte("event/")}})
	}()
	return ch, nil
}
