package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/memory"
	"cairn/remote"
)

// agent is one `cairn mcp` process driven by a real MCP client over stdio.
type agent struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

func (h *home) agent(ctx context.Context) (*agent, error) {
	cmd := h.cmd("mcp")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	return &agent{cs, cmd}, nil
}

func (a *agent) call(ctx context.Context, tool string, args map[string]any, out any) error {
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return fmt.Errorf("%s: %s", tool, text)
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return json.Unmarshal(b, out)
	}
	return nil
}

// TestManyProcessesOneStore: a watching client (as the workbench is) and
// eight agent processes, each remembering 100 times and recalling, plus CLI
// commands in between — all on one home at once.
func TestManyProcessesOneStore(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	h.ok("remember", "seed memory so the project exists", "--layer", "A")
	var project []struct {
		ID      string `json:"id"`
		Current bool   `json:"current"`
	}
	h.json(&project, "projects")

	// The watcher stands in for an open workbench: a client that subscribes.
	watcher, err := remote.Connect(ctx, remote.Launcher{Home: h.dir, Exe: bin, Args: []string{"serve", "--home", h.dir}, Env: []string{"CAIRN_IDLE=700ms"}})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	events, err := watcher.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var seenMu sync.Mutex
	go func() {
		for e := range events {
			seenMu.Lock()
			seen[e.MemoryID] = true
			seenMu.Unlock()
		}
	}()

	// The eight write at once from their first call to their last; 100
	// writes each keep them overlapping as 200 did, in half the time.
	const agents, each = 8, 100
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ag, err := h.agent(ctx)
			if err != nil {
				t.Errorf("agent %d: %v", a, err)
				return
			}
			defer ag.cs.Close()
			for i := range each {
				var m struct {
					ID string `json:"id"`
				}
				text := fmt.Sprintf("agent %d observed fact %d about src/module%d.go", a, i, i%10)
				if err := ag.call(ctx, "remember", map[string]any{"text": text, "layer": memory.Layers[i%6].String()}, &m); err != nil {
					t.Errorf("agent %d remember %d: %v", a, i, err)
					return
				}
				mu.Lock()
				acked = append(acked, m.ID)
				mu.Unlock()
				if i%20 == 0 {
					if err := ag.call(ctx, "recall", map[string]any{"query": fmt.Sprintf("module%d", i%10)}, nil); err != nil {
						t.Errorf("agent %d recall: %v", a, err)
					}
				}
			}
		}()
	}
	// Scripts use the CLI meanwhile.
	for i := range 10 {
		out, errs, code := h.run("", "remember", fmt.Sprintf("cli fact %d", i), "--json")
		if code != 0 {
			t.Errorf("cli remember: %s", errs)
			continue
		}
		var r memory.Record
		json.Unmarshal([]byte(out), &r)
		mu.Lock()
		acked = append(acked, r.ID)
		mu.Unlock()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(acked) != agents*each+10 {
		t.Fatalf("%d writes acknowledged", len(acked))
	}
	var all []memory.Record
	h.json(&all, "list", "--status", "all", "--limit", "5000")
	stored := map[string]bool{}
	for _, r := range all {
		stored[r.ID] = true
	}
	for _, id := range acked {
		if !stored[id] {
			t.Fatalf("acknowledged write %s is missing", id)
		}
	}
	// The watcher saw every write within a second or so of the last one.
	deadline := time.Now().Add(3 * time.Second)
	for {
		seenMu.Lock()
		missing := 0
		for _, id := range acked {
			if !seen[id] {
				missing++
			}
		}
		seenMu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watching client never heard of %d of %d writes", missing, len(acked))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOwnerKilledMidway: SIGKILL the server while agents write; they carry
// on with a new server (or fail with a clear error), the next command
// works, and nothing acknowledged is lost.
func TestOwnerKilledMidway(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h.ok("remember", "before the crash")
	var mu sync.Mutex
	var acked []string
	var failures []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for a := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ag, err := h.agent(ctx)
			if err != nil {
				t.Errorf("agent: %v", err)
				return
			}
			defer ag.cs.Close()
			<-start
			for i := range 150 {
				var m struct {
					ID string `json:"id"`
				}
				err := ag.call(ctx, "remember", map[string]any{"text": fmt.Sprintf("agent %d fact %d", a, i)}, &m)
				mu.Lock()
				if err != nil {
					failures = append(failures, err.Error())
				} else {
					acked = append(acked, m.ID)
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	// Kill the owner once writes are flowing.
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 60 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	pid := h.serverPID()
	if !alive(pid) {
		t.Fatalf("no live server to kill (pid %d)", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, f := range failures {
		if !strings.Contains(f, "lost the connection") {
			t.Errorf("a failure without a clear reason: %s", f)
		}
	}
	out := h.ok("list", "--status", "all", "--limit", "1000", "--json")
	var all []memory.Record
	json.Unmarshal([]byte(out), &all)
	stored := map[string]bool{}
	for _, r := range all {
		stored[r.ID] = true
	}
	for _, id := range acked {
		if !stored[id] {
			t.Fatalf("acknowledged write %s lost when the owner was killed", id)
		}
	}
	if h.serverPID() == pid {
		t.Fatalf("no new server took over")
	}
	t.Logf("%d writes acknowledged, %d failed with a clear error, across a SIGKILL of the owner", len(acked), len(failures))
}
