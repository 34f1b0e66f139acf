package store

import (
	"fmt"

	"cairn/memory"
)

// kindError carries one of the sentinel errors without putting its text in
// the message, so a person reads only what is wrong and what to do.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }
func invalidf(format string, a ...any) error {
	return &kindError{memory.ErrInvalid, fmt.Errorf(format, a...)}
}
func invalid(err error) error { return &kindError{memory.ErrInvalid, err} }
