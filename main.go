// cairn is long-term memory for coding agents and the people who work with
// them. main only wires: the command line lives in cli/, the store in
// store/, the workbench in ui/.
package main

import (
	_ "embed"
	"os"

	"github.com/charmbracelet/x/term"

	"cairn/cli"
	_ "cairn/internal/gcpace" // a short command collects garbage less often, from init on
)

//go:embed testdata/demo.jsonl
var demo []byte

func main() {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	os.Exit(cli.Main(cli.Env{
		Args:       os.Args[1:],
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		IsTerminal: func() bool { return term.IsTerminal(os.Stdin.Fd()) },
		Workbench:  workbench,
		Demo:       demo,
		Connect:    cli.ConnectServer(exe),
		Detach:     cli.Detacher(exe),
	}))
}
