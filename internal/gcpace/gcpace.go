// Package gcpace sets the garbage collector's pace of a cairn process from
// its very start. Most cairn processes are short commands (a verify, a
// hook, a list) whose heap never passes a few megabytes: at Go's default
// pace (GOGC 100, a first collection at 4 MB) the package initialisation
// alone — the workbench's syntax-highlighting tables are built at init —
// sets off a collection, and a wake check two or three more, about a
// fifth of such a command's CPU. A short command collects at a quarter of
// that pace; a process that lives long or streams much (the workbench, the
// store's server, an import) goes back to Go's pace with Default.
//
// The package is imported by main for its init, which runs before the
// packages with heavy initialisation: Go initialises a ready package with
// the smallest import path first, and "cairn/…" sorts before them.
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
