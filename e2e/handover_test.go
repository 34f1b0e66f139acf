package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestClientsArrivingAsTheServerExits: with an idle timeout of a
// millisecond, the server exits each time its clients happen to be gone,
// and commands from four shells keep arriving while it shuts down (its
// socket closed, the store not yet released) or just after. Every command
// must work: the next server waits for the store instead of failing with
// "store is in use", and a closing server turns a connection away before
// reading from it.
func TestClientsArrivingAsTheServerExits(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const shells, each = 4, 15
	var wg sync.WaitGroup
	for s := range shells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				c := h.cmd("remember", fmt.Sprintf("fact %d from shell %d, written as a server exits", i, s))
				c.Env = append(c.Env, "CAIRN_IDLE=1ms")
				if out, err := c.CombinedOutput(); err != nil {
					t.Errorf("shell %d, command %d: %v: %s", s, i+1, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var all []struct{ ID string }
	h.json(&all, "list", "--limit", "1000")
	if len(all) != shells*each {
		t.Fatalf("%d memories stored, want %d", len(all), shells*each)
	}
	log, _ := os.ReadFile(filepath.Join(h.dir, "server.log"))
	t.Logf("%d servers started; %d waited for the previous one to release the store",
		strings.Count(string(log), "starting cairn serve for"), strings.Count(string(log), "waiting up to"))
}
