package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Kind is what kind of failure an error is, which decides the exit code.
type Kind int

const (
	// KindFailure: the command could not do what was asked (exit 1).
	KindFailure Kind = iota
	// KindUsage: cairn was called wrongly — a command, flag, argument or
	// value it does not take (exit 2).
	KindUsage
)

func (k Kind) String() string {
	if k == KindUsage {
		return "usage"
	}
	return "failure"
}

// exitCode is the exit code of a kind of failure.
func (k Kind) exitCode() int {
	if k == KindUsage {
		return ExitUsage
	}
	return ExitFailure
}

// Error is how a command fails: what went wrong, of what kind, and at most
// one hint of what to do. The hint is given where the command knows what
// the person was doing, and replaces any given further down, so a message
// never carries two ("— give a path … — rebind it instead").
type Error struct {
	Kind Kind
	Err  error
	Hint string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + " — " + e.Hint
}

func (e *Error) Unwrap() error { return e.Err }

// usage marks err as misuse.
func usage(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindUsage {
		return err
	}
	return &Error{Kind: KindUsage, Err: err}
}

func usagef(format string, a ...any) error { return usage(fmt.Errorf(format, a...)) }

// hint gives err the hint h, replacing one it had; its kind stays.
func hint(err error, h string) error {
	if e, ok := err.(*Error); ok {
		return &Error{Kind: e.Kind, Err: e.Err, Hint: h}
	}
	return &Error{Kind: kindOf(err), Err: err, Hint: h}
}

// hintf is a failure with a hint.
func hintf(h, format string, a ...any) error {
	return &Error{Err: fmt.Errorf(format, a...), Hint: h}
}

func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindFailure
}

// markUsage makes cobra's own misuse errors — a wrong number of arguments,
// an unknown command (the root and command groups take no arguments), a
// bad flag — of KindUsage, by wrapping the functions that make them rather
// than reading their English text.
func markUsage(c *cobra.Command) {
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usage(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsage(sub)
	}
}
