package store

import (
	"bytes"
	"context"
	"sync"
	"time"

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
	// Badger registers a subscriber inside the call that then blocks, so
	// "from now on" needs proof: a probe key written after the call and
	// seen by it. Without it, a write right after Subscribe returned could
	// be missed (a test that wrote at once lost its event under load).
	probe := keySubProbe(newID())
	seen := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(ch)
		_ = db.bdb.Subscribe(ctx, func(kvs *badger.KVList) error {
			for _, kv := range kvs.Kv {
				if bytes.Equal(kv.Key, probe) {
					once.Do(func() { close(seen) })
					continue
				}
				var e memory.Event
				switch {
				case bytes.HasPrefix(kv.Key, prefixAllEvents):
					if decode(kv.Key, kv.Value, &e) != nil {
						continue
					}
				case bytes.HasPrefix(kv.Key, prefixAllGaps):
					// A gap is no timeline event, but the inbox shows it: a
					// recall in another process is news to a workbench.
					var g memory.Gap
					if len(kv.Value) == 0 || decode(kv.Key, kv.Value, &g) != nil {
						continue // dropped
					}
					e = memory.Event{Project: g.Project, Kind: memory.EventGap, Time: g.Last, Actor: memory.ActorSystem}
				default:
					continue
				}
				select {
				case ch <- e:
				default: // the consumer is behind; it reloads on the next event
				}
			}
			return nil
		}, []pb.Match{{Prefix: prefixAllEvents}, {Prefix: prefixAllGaps}, {Prefix: probe}})
	}()
	wait := time.NewTimer(5 * time.Second)
	defer wait.Stop()
	for registered := false; !registered; {
		// Written (and deleted) until the subscriber sees it: a write that
		// lands before Badger registered it is not seen, so try again.
		if err := db.commit(func(txn *badger.Txn) error { return txn.Set(probe, nil) }); err != nil {
			break // a read-only store writes no probe, and no event either
		}
		select {
		case <-seen:
			registered = true
		case <-time.After(10 * time.Millisecond):
		case <-wait.C:
			registered = true // give up waiting; events still flow
		case <-ctx.Done():
			registered = true
		}
	}
	_ = db.commit(func(txn *badger.Txn) error { return txn.Delete(probe) })
	return ch, nil
}
