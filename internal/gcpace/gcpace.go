// Package gcpace sets the garbage collector's pace of a cairn process.
// Most cairn processes are short commands (a verify, a hook, a list) whose
// heap never passes a few megabytes: at Go's default pace (GOGC 100, a
// first collection at 4 MB) a wake check sets off three or four
// collections, about a fifth of such a command's CPU. A short command
// collects at a quarter of that pace; a process that lives long or streams
// much (the workbench, the store's server, an import) goes back to Go's
// pace with Default.
//
// main imports the package for its init. That runs after the packages
// that sort before runtime/debug in Go's order of initialisation, the
// syntax-highlighting tables among them, whose allocations still set off
// one collection at the default pace; it could run earlier only by a
// package with no dependencies, and setting the pace needs runtime/debug.
package gcpace

import (
	"os"
	"runtime/debug"
)

// short is the pace (GOGC) of a short command: a collection when the heap
// has grown by four times what the last one left live.
const short = 400

func init() {
	if os.Getenv("GOGC") == "" { // the user's own setting wins
		debug.SetGCPercent(short)
	}
}

// Default gives the process Go's default pace again (or the user's GOGC).
func Default() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}
