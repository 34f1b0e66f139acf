package cli

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// detachedVar marks a cairn started by Detacher: it does the work its
// parent handed over, and hands nothing over again.
const detachedVar = "CAIRN_DETACHED"

// Detacher starts exe (this cairn) with args in a session of its own, so
// that it outlives its parent and whatever kills its parent's process
// group (as a client that exits may kill its hooks'), its standard output
// and error discarded (it logs where its work logs), stdin its input.
func Detacher(exe string) func(stdin []byte, args ...string) error {
	return func(stdin []byte, args ...string) error {
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("start cairn in the background: %w", err)
		}
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), detachedVar+"=1")
		cmd.Stdin = r
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err = cmd.Start()
		r.Close() // the child's now, if it started
		if err != nil {
			w.Close()
			return fmt.Errorf("start cairn in the background: %w", err)
		}
		_, werr := w.Write(stdin)
		if err := w.Close(); werr == nil {
			werr = err
		}
		// Not waited for: it is its own, and init reaps it.
		_ = cmd.Process.Release()
		if werr != nil {
			return fmt.Errorf("hand the work to cairn in the background: %w", werr)
		}
		return nil
	}
}
