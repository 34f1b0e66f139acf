package store

import (
	"fmt"
	"sync"
	"testing"

	"cairn/memory"
)

// TestConcurrentUse runs writers, readers and status changes at once; run
// it with -race. Every acknowledged write must be there at the end.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	const writers, each = 6, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []string
	errs := make(chan error, writers*each*3)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.Layers[(w+i)%6], Body: fmt.Sprintf("w%d i%d", w, i), Tags: []string{"shared"}}, memory.ActorAgent)
				if err != nil {
					errs <- err
					continue
				}
				mu.Lock()
				all = append(all, m.ID)
				mu.Unlock()
				if i%5 == 0 {
					if _, err := db.Archive(ctx, m.ID, "", memory.ActorAgent); err != nil {
						errs <- err
					}
				}
				if i%7 == 0 {
					if _, err := db.Supersede(ctx, m.ID, &memory.Memory{Body: fmt.Sprintf("w%d i%d v2", w, i)}, memory.ActorAgent); err != nil && i%5 != 0 {
						errs <- err
					}
				}
			}
		}()
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				if _, err := db.List(ctx, memory.Query{Project: testPID, Tag: "shared", Status: memory.StatusAny}); err != nil {
					errs <- err
				}
				if _, err := db.Count(ctx, testPID); err != nil {
					errs <- err
				}
				if _, err := db.Timeline(ctx, testPID, 20); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, id := range all {
		if _, err := db.Get(ctx, id); err != nil {
			t.Fatalf("lost %s: %v", id, err)
		}
	}
	c, _ := db.Count(ctx, testPID)
	total := c.Total(memory.StatusActive) + c.Total(memory.StatusArchived) + c.Total(memory.StatusSuperseded)
	if total < len(all) {
		t.Fatalf("index counts %d memories, %d acknowledged", total, len(all))
	}
}

// TestForgetNeverFailsWriters runs remembers from many goroutines while
// forgets run: Badger blocks writes during a forget's DropPrefix, and no
// writer may see that ("Writes are blocked …").
func TestForgetNeverFailsWriters(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	const writers, each = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+1)
	stop, forgetting := make(chan struct{}), make(chan int)
	go func() {
		n := 0
		defer func() { forgetting <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			m, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.LayerEpisode, Body: fmt.Sprintf("to forget %d", n), Tags: []string{"gone"}}, memory.ActorUser)
			if err == nil {
				err = db.Forget(ctx, m.ID, memory.ActorUser)
			}
			if err != nil {
				errs <- fmt.Errorf("forget %d: %w", n, err)
				return
			}
			n++
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := db.Remember(ctx, &memory.Memory{Project: testPID, Layer: memory.Layers[(w+i)%6], Body: fmt.Sprintf("w%d i%d", w, i)}, memory.ActorAgent); err != nil {
					errs <- fmt.Errorf("writer %d, write %d: %w", w, i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	forgets := <-forgetting
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if forgets == 0 {
		t.Fatal("no forget ran while the writers wrote")
	}
	if c, _ := db.Count(ctx, testPID); c.Total(memory.StatusActive) != writers*each {
		t.Fatalf("%d active memories, want %d", c.Total(memory.StatusActive), writers*each)
	}
	t.Logf("%d writes, %d forgets", writers*each, forgets)
}
